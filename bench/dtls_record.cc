// dtls/<cipher>_encrypt and dtls/<cipher>_decrypt: DTLS 1.2 record protection for every record
// cipher at the record sizes of the pion/dtls #781 grid, through wireseal's RecordSealer /
// RecordOpener and through the OpenSSL EVP baseline (bench/baseline_openssl_dtls.h).
//
// Encrypt: one sealer, one record buffer; each iteration seals the plaintext sitting at
// payload_offset() in place into a complete record with the next sequence number (header,
// explicit nonce or random CBC IV, tag/MAC, padding). The payload bytes are whatever the last
// iteration left there, which costs the same as fresh plaintext.
//
// Decrypt: open() decrypts in place and its replay window rejects a sequence number seen
// before, so every iteration needs a fresh, never-opened record. The fixture pre-seals a ring
// of N records with increasing sequence numbers (N = 256 KiB / record stride, clamped to
// 16..256, so the ring stays in L2) and each timed iteration opens the next one in place: no
// copy is timed. When the ring is used up the loop pauses timing once, re-seals all N slots
// (the opened plaintext is already at payload_offset(), and the sealer continues with higher
// sequence numbers, so the same opener accepts them) and resumes. That is one
// PauseTiming/ResumeTiming pair per N records, a few ns per record at most, and the same for
// both implementations; each implementation seals its own ring. Allocations are counted over
// the timed segments only, so the untimed re-sealing cannot show up in allocs/op.
//
// Before timing, the openssl fixtures check that each implementation opens the other's
// records (check_interop), so both do exactly the same DTLS record.
#include <algorithm>
#include <memory>
#include <string>

#include "bench/dtls_fixture.h"
#include "bench/suites.h"

namespace wireseal::bench {
namespace {

using namespace dtls_bench;

template <class Sealer>
auto make_encrypt(const CipherCase& c, std::size_t size) {
  const dtls::KeyBlock block = key_block(c.cipher);
  Sealer sealer(c, block.keys(dtls::Direction::kClientWrite));
  Bytes record(sealer.sealed_size(size));
  const Bytes plaintext = pattern(size, 3);
  std::copy(plaintext.begin(), plaintext.end(),
            record.begin() + static_cast<std::ptrdiff_t>(sealer.payload_offset()));
  return timed(
      [sealer = std::move(sealer), record = std::move(record), size]() mutable noexcept {
        pin(record);
        const bool ok = sealer.seal(size, record);
        pin(record);
        return ok;
      },
      size);
}

// Ring is the decrypt fixture: N sealed records, opened one per iteration.
template <class Sealer, class Opener>
class Ring {
 public:
  static constexpr std::size_t kRingBytes = 256 * 1024;

  Ring(const CipherCase& c, std::size_t size)
      : keys_(key_block(c.cipher)),
        sealer_(c, keys_.keys(dtls::Direction::kClientWrite)),
        opener_(c, keys_.keys(dtls::Direction::kClientWrite)),
        size_(size),
        stride_((sealer_.sealed_size(size) + 63) / 64 * 64),
        count_(std::clamp<std::size_t>(kRingBytes / stride_, 16, 256)),
        buf_(stride_ * count_) {
    const Bytes plaintext = pattern(size, 3);
    for (std::size_t i = 0; i < count_; ++i) {
      std::copy(plaintext.begin(), plaintext.end(),
                buf_.begin() + static_cast<std::ptrdiff_t>(i * stride_ + sealer_.payload_offset()));
    }
  }

  std::size_t payload_bytes() const noexcept { return size_; }
  bool exhausted() const noexcept { return next_ == count_; }

  // refill re-seals every slot with the next sequence numbers (untimed).
  bool refill() noexcept {
    bool ok = true;
    for (std::size_t i = 0; i < count_; ++i) {
      ok = sealer_.seal(size_, slot(i)) && ok;
    }
    next_ = 0;
    return ok;
  }

  bool open_next() noexcept { return opener_.open(slot(next_++)); }

 private:
  std::span<std::uint8_t> slot(std::size_t i) noexcept {
    return {buf_.data() + i * stride_, stride_};
  }

  dtls::KeyBlock keys_;
  Sealer sealer_;
  Opener opener_;
  std::size_t size_;
  std::size_t stride_;
  std::size_t count_;
  Bytes buf_;
  std::size_t next_ = 0;
};

void add(test::AllocStats& total, const test::AllocStats& from, const test::AllocStats& to) {
  total.count += to.count - from.count;
  total.bytes += to.bytes - from.bytes;
}

template <class R>
void run_ring(benchmark::State& state, R& ring) {
  // One untimed open first (of the first sealed record), as run_timed does.
  if (!ring.refill() || !ring.open_next()) {
    state.SkipWithError("operation failed before timing");
    return;
  }
  test::AllocStats timed_allocs;
  test::AllocStats mark = test::alloc_stats();
  for (auto _ : state) {
    if (ring.exhausted()) [[unlikely]] {
      state.PauseTiming();
      add(timed_allocs, mark, test::alloc_stats());
      const bool ok = ring.refill();
      mark = test::alloc_stats();
      state.ResumeTiming();
      if (!ok) {
        state.SkipWithError("re-sealing the ring failed");
        break;
      }
    }
    if (!ring.open_next()) [[unlikely]] {
      state.SkipWithError("operation failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  add(timed_allocs, mark, test::alloc_stats());
  detail::report_figures(state, ring.payload_bytes(), test::AllocStats{}, timed_allocs);
}

// register_decrypt is register_op for the ring fixture (which needs the State to pause).
template <class Sealer, class Opener>
void register_decrypt(const CipherCase& c, std::string_view impl, bool check) {
  const std::string op = std::string(c.name) + "_decrypt";
  for (const std::size_t size : kRecordSizes) {
    register_named(benchmark_name("dtls", op, impl, size),
                   [c, size, check](benchmark::State& state) {
                     try {
                       if (check) {
                         check_interop(c, size);
                       }
                       auto ring = std::make_unique<Ring<Sealer, Opener>>(c, size);
                       run_ring(state, *ring);
                     } catch (const std::exception& e) {
                       state.SkipWithError(e.what());
                     }
                   });
  }
}

}  // namespace

void register_dtls_record() {
  for (const CipherCase& c : kCipherCases) {
    // Implementations of one operation run back to back so machine drift hits both alike.
    const std::string encrypt = std::string(c.name) + "_encrypt";
    register_op(
        "dtls", encrypt, kWireseal,
        [c](std::size_t size) { return make_encrypt<WiresealSealer>(c, size); }, kRecordSizes);
    register_op(
        "dtls", encrypt, kOpenSsl,
        [c](std::size_t size) {
          check_interop(c, size);
          return make_encrypt<OpenSslSealer>(c, size);
        },
        kRecordSizes);
    register_decrypt<WiresealSealer, WiresealOpener>(c, kWireseal, false);
    register_decrypt<OpenSslSealer, OpenSslOpener>(c, kOpenSsl, true);
  }
}

}  // namespace wireseal::bench
