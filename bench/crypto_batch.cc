// crypto/aes128ccm_seal_batch8: eight independent messages sealed in one call, the shape of a
// burst of DTLS records or SMB compounds. wireseal's seal_batch may interleave the messages;
// the OpenSSL baseline has no batch API, so it seals the eight in a loop. ns/op is per batch;
// MB/s counts all eight payloads.
#include <array>
#include <cstring>

#include "bench/baseline_openssl.h"
#include "bench/bench_util.h"
#include "bench/suites.h"
#include "wireseal/crypto/aead.h"

namespace wireseal::bench {
namespace {

constexpr std::size_t kBatch = 8;
constexpr std::size_t kTagLen = 16;
constexpr std::size_t kNonceLen = 12;
constexpr std::size_t kAadLen = 13;

struct Batch {
  explicit Batch(std::size_t size) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      const auto seed = static_cast<std::uint8_t>(i * 4);
      nonce[i] = pattern(kNonceLen, seed);
      aad[i] = pattern(kAadLen, static_cast<std::uint8_t>(seed + 1));
      in[i] = pattern(size, static_cast<std::uint8_t>(seed + 2));
      out[i].resize(size);
      tag[i].resize(kTagLen);
      jobs[i] = crypto::SealJob{nonce[i], aad[i], in[i], out[i], tag[i], {}};
    }
  }
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  // next_nonces advances each message's sequence number (the jobs' spans see it in place).
  void next_nonces() noexcept {
    for (Bytes& n : nonce) {
      std::uint64_t seq = 0;
      std::memcpy(&seq, n.data() + 4, sizeof seq);
      ++seq;
      std::memcpy(n.data() + 4, &seq, sizeof seq);
    }
  }

  std::array<Bytes, kBatch> nonce, aad, in, out, tag;
  std::array<crypto::SealJob, kBatch> jobs;
};

}  // namespace

void register_crypto_batch() {
  register_op("crypto", "aes128ccm_seal_batch8", kWireseal, [](std::size_t size) {
    // The jobs point into the batch's vectors, so the batch lives behind a stable pointer.
    auto b = std::make_unique<Batch>(size);
    crypto::Aead aead(crypto::AeadAlgorithm::kAes128Ccm, pattern(16, 7),
                      crypto::AeadOptions{.tag_len = kTagLen, .nonce_len = kNonceLen});
    return timed(
        [aead = std::move(aead), b = std::move(b)]() mutable noexcept {
          b->next_nonces();
          pin(b->in[0]);
          aead.seal_batch(b->jobs);
          bool ok = true;
          for (const crypto::SealJob& job : b->jobs) {
            ok = ok && job.status.has_value();
          }
          pin(b->out[0]);
          return ok;
        },
        kBatch * size);
  });
  register_op("crypto", "aes128ccm_seal_batch8", kOpenSsl, [](std::size_t size) {
    auto b = std::make_unique<Batch>(size);
    return timed(
        [aead = openssl::Aead("AES-128-CCM", pattern(16, 7), kTagLen, kNonceLen),
         b = std::move(b)]() mutable noexcept {
          b->next_nonces();
          pin(b->in[0]);
          bool ok = true;
          for (std::size_t i = 0; i < kBatch; ++i) {
            ok = aead.seal(b->nonce[i], b->aad[i], b->in[i], b->out[i], b->tag[i]) && ok;
          }
          pin(b->out[0]);
          return ok;
        },
        kBatch * size);
  });
}

}  // namespace wireseal::bench
