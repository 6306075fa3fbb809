// dtls/<cipher>_encrypt_batch8: eight records sealed in one RecordSealer::seal_batch call (a
// burst of application data leaving one connection), against the OpenSSL baseline sealing the
// same eight records one by one (it has no batch API). ns/op is per batch of 8 records; the
// payload counted for MB/s is all eight plaintexts, so MB/s compares directly with the
// single-record dtls/<cipher>_encrypt rows.
#include <array>
#include <memory>

#include "bench/dtls_fixture.h"
#include "bench/suites.h"

namespace wireseal::bench {
namespace {

using namespace dtls_bench;

constexpr std::size_t kBatch = 8;
// 64 to 256 bytes: where AES-GCM batches run on the multi-message kernel (x86 with VAES);
// longer GCM records are sealed one by one inside the batch.
constexpr std::size_t kBatchSizes[] = {64, 100, 128, 256, 1400, 8192};

constexpr CipherCase kBatchCases[] = {
    {"aes128gcm", dtls::RecordCipher::kAes128Gcm, false},
    {"aes128ccm", dtls::RecordCipher::kAes128Ccm, false},
    {"aes128cbcsha256", dtls::RecordCipher::kAes128CbcSha256, false},
};

// Records holds the eight record buffers, each with its plaintext at payload_offset().
struct Records {
  template <class Sealer>
  Records(const Sealer& sealer, std::size_t size) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      rec[i].resize(sealer.sealed_size(size));
      const Bytes plaintext = pattern(size, static_cast<std::uint8_t>(3 + i));
      std::copy(plaintext.begin(), plaintext.end(),
                rec[i].begin() + static_cast<std::ptrdiff_t>(sealer.payload_offset()));
    }
  }
  std::array<Bytes, kBatch> rec;
};

auto make_wireseal(const CipherCase& c, std::size_t size) {
  const dtls::KeyBlock block = key_block(c.cipher);
  WiresealSealer sealer(c, block.keys(dtls::Direction::kClientWrite));
  // The jobs point into the record buffers, so those live behind a stable pointer.
  auto records = std::make_unique<Records>(sealer, size);
  std::array<dtls::RecordSealer::Job, kBatch> jobs{};
  for (std::size_t i = 0; i < kBatch; ++i) {
    jobs[i].type = kType;
    jobs[i].plaintext =
        std::span<const std::uint8_t>(records->rec[i]).subspan(sealer.payload_offset(), size);
    jobs[i].out = records->rec[i];
  }
  return timed(
      [sealer = std::move(sealer), records = std::move(records), jobs]() mutable noexcept {
        pin(records->rec[0]);
        sealer.raw().seal_batch(jobs);
        bool ok = true;
        for (const dtls::RecordSealer::Job& job : jobs) {
          ok = ok && job.status.has_value();
        }
        pin(records->rec[0]);
        return ok;
      },
      kBatch * size);
}

auto make_openssl(const CipherCase& c, std::size_t size) {
  check_interop(c, size);
  const dtls::KeyBlock block = key_block(c.cipher);
  OpenSslSealer sealer(c, block.keys(dtls::Direction::kClientWrite));
  auto records = std::make_unique<Records>(sealer, size);
  return timed(
      [sealer = std::move(sealer), records = std::move(records), size]() mutable noexcept {
        pin(records->rec[0]);
        bool ok = true;
        for (Bytes& rec : records->rec) {
          ok = sealer.seal(size, rec) && ok;
        }
        pin(records->rec[0]);
        return ok;
      },
      kBatch * size);
}

}  // namespace

void register_dtls_batch() {
  for (const CipherCase& c : kBatchCases) {
    const std::string op = std::string(c.name) + "_encrypt_batch8";
    register_op(
        "dtls", op, kWireseal, [c](std::size_t size) { return make_wireseal(c, size); },
        kBatchSizes);
    register_op(
        "dtls", op, kOpenSsl, [c](std::size_t size) { return make_openssl(c, size); }, kBatchSizes);
  }
}

}  // namespace wireseal::bench
