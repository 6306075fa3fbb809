// crypto/aes{128,256}ctr and crypto/aes128cbc_{encrypt,decrypt}: the unauthenticated AES modes
// (SRTP AES-CM, DTLS CBC suites) through wireseal and through the OpenSSL baseline.
#include <algorithm>
#include <array>
#include <string>

#include "bench/baseline_openssl.h"
#include "bench/bench_util.h"
#include "bench/suites.h"
#include "wireseal/crypto/aes.h"

namespace wireseal::bench {
namespace {

// Buffers of one AES-mode message. The IV / counter block is fixed: these modes are
// benchmarked for throughput, and the per-message IV set-up is the same work either way.
struct Blocks {
  explicit Blocks(std::size_t size) : in(pattern(size, 3)), out(size) {
    const Bytes seed = pattern(crypto::kAesBlockSize, 1);
    std::copy(seed.begin(), seed.end(), iv.begin());
    iv[14] = 0;  // an SRTP-style IV: low 16 bits zero, room for the block counter
    iv[15] = 0;
  }
  std::array<std::uint8_t, crypto::kAesBlockSize> iv{};
  Bytes in;
  Bytes out;
};

// cbc_size: CBC processes whole blocks, so 1400 runs as 1392 (MB/s uses the bytes processed).
std::size_t cbc_size(std::size_t size) {
  return size / crypto::kAesBlockSize * crypto::kAesBlockSize;
}

void register_ctr(const char* op, std::size_t key_len, const char* evp_name) {
  register_op("crypto", op, kWireseal, [key_len](std::size_t size) {
    return timed(
        [ctr = crypto::AesCtr(pattern(key_len, 7)), b = Blocks(size)]() mutable noexcept {
          pin(b.in);
          const bool ok = ctr.apply(b.iv, b.in, b.out).has_value();
          pin(b.out);
          return ok;
        },
        size);
  });
  register_op("crypto", op, kOpenSsl, [key_len, evp_name](std::size_t size) {
    return timed(
        [ctr = openssl::Cipher(evp_name, pattern(key_len, 7), true),
         b = Blocks(size)]() mutable noexcept {
          pin(b.in);
          const bool ok = ctr.apply(b.iv, b.in, b.out);
          pin(b.out);
          return ok;
        },
        size);
  });
}

void register_cbc(const char* op, bool encrypt) {
  register_op("crypto", op, kWireseal, [encrypt](std::size_t size) {
    return timed(
        [cbc = crypto::AesCbc(pattern(16, 7)), b = Blocks(cbc_size(size)),
         encrypt]() mutable noexcept {
          pin(b.in);
          const bool ok =
              (encrypt ? cbc.encrypt(b.iv, b.in, b.out) : cbc.decrypt(b.iv, b.in, b.out))
                  .has_value();
          pin(b.out);
          return ok;
        },
        cbc_size(size));
  });
  register_op("crypto", op, kOpenSsl, [encrypt](std::size_t size) {
    return timed(
        [cbc = openssl::Cipher("AES-128-CBC", pattern(16, 7), encrypt),
         b = Blocks(cbc_size(size))]() mutable noexcept {
          pin(b.in);
          const bool ok = cbc.apply(b.iv, b.in, b.out);
          pin(b.out);
          return ok;
        },
        cbc_size(size));
  });
}

}  // namespace

void register_crypto_aes() {
  register_ctr("aes128ctr", 16, "AES-128-CTR");
  register_ctr("aes256ctr", 32, "AES-256-CTR");
  register_cbc("aes128cbc_encrypt", true);
  register_cbc("aes128cbc_decrypt", false);
}

}  // namespace wireseal::bench
