// crypto/hmac_sha{1,256,384}, crypto/aes128cmac and crypto/aes128gmac: the MACs of SRTP
// (HMAC-SHA1), DTLS CBC suites (HMAC-SHA1/256/384) and SMB signing (CMAC, GMAC), through
// wireseal and through the OpenSSL baseline's reused EVP_MAC_CTX.
#include <algorithm>
#include <array>

#include "bench/baseline_openssl.h"
#include "bench/bench_util.h"
#include "bench/suites.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/crypto/mac.h"

namespace wireseal::bench {
namespace {

struct MacMessage {
  MacMessage(std::size_t size, std::size_t mac_len) : message(pattern(size, 3)), out(mac_len) {
    const Bytes seed = pattern(iv.size(), 1);
    std::copy(seed.begin(), seed.end(), iv.begin());
  }
  std::array<std::uint8_t, 12> iv{};  // GMAC only
  Bytes message;
  Bytes out;
};

// HMAC-SHA1 also runs at 1200 bytes, SRTP's typical video packet (its authentication tag).
constexpr std::size_t kHmacSha1Sizes[] = {16, 64, 256, 1024, 1200, 1400, 8192, 65536};

void register_hmac(const char* op, crypto::HashAlgorithm hash, const char* digest,
                   std::span<const std::size_t> sizes = kSizes) {
  // Key length = digest length, as SRTP and the TLS PRF outputs give.
  const std::size_t len = crypto::digest_length(hash);
  register_op(
      "crypto", op, kWireseal,
      [hash, len](std::size_t size) {
        return timed(
            [hmac = crypto::Hmac(hash, pattern(len, 7)),
             m = MacMessage(size, len)]() mutable noexcept {
              pin(m.message);
              const bool ok = hmac.compute(m.message, m.out).has_value();
              pin(m.out);
              return ok;
            },
            size);
      },
      sizes);
  register_op(
      "crypto", op, kOpenSsl,
      [digest, len](std::size_t size) {
        return timed(
            [hmac = openssl::Mac("HMAC", "digest", digest, pattern(len, 7)),
             m = MacMessage(size, len)]() mutable noexcept {
              pin(m.message);
              const bool ok = hmac.compute({}, m.message, m.out);
              pin(m.out);
              return ok;
            },
            size);
      },
      sizes);
}

void register_cmac() {
  register_op("crypto", "aes128cmac", kWireseal, [](std::size_t size) {
    return timed(
        [cmac = crypto::AesCmac(pattern(16, 7)),
         m = MacMessage(size, crypto::kCmacLength)]() mutable noexcept {
          pin(m.message);
          const bool ok = cmac.compute(m.message, m.out).has_value();
          pin(m.out);
          return ok;
        },
        size);
  });
  register_op("crypto", "aes128cmac", kOpenSsl, [](std::size_t size) {
    return timed(
        [cmac = openssl::Mac("CMAC", "cipher", "AES-128-CBC", pattern(16, 7)),
         m = MacMessage(size, crypto::kCmacLength)]() mutable noexcept {
          pin(m.message);
          const bool ok = cmac.compute({}, m.message, m.out);
          pin(m.out);
          return ok;
        },
        size);
  });
}

void register_gmac() {
  register_op("crypto", "aes128gmac", kWireseal, [](std::size_t size) {
    return timed(
        [gmac = crypto::AesGmac(pattern(16, 7)),
         m = MacMessage(size, crypto::kGmacLength)]() mutable noexcept {
          pin(m.message);
          const bool ok = gmac.compute(m.iv, m.message, m.out).has_value();
          pin(m.out);
          return ok;
        },
        size);
  });
  register_op("crypto", "aes128gmac", kOpenSsl, [](std::size_t size) {
    return timed(
        [gmac = openssl::Mac("GMAC", "cipher", "AES-128-GCM", pattern(16, 7)),
         m = MacMessage(size, crypto::kGmacLength)]() mutable noexcept {
          pin(m.message);
          const bool ok = gmac.compute(m.iv, m.message, m.out);
          pin(m.out);
          return ok;
        },
        size);
  });
}

}  // namespace

void register_crypto_mac() {
  register_hmac("hmac_sha1", crypto::HashAlgorithm::kSha1, "SHA1", kHmacSha1Sizes);
  register_hmac("hmac_sha256", crypto::HashAlgorithm::kSha256, "SHA256");
  register_hmac("hmac_sha384", crypto::HashAlgorithm::kSha384, "SHA384");
  register_cmac();
  register_gmac();
}

}  // namespace wireseal::bench
