// smb/transform_seal_<cipher>, smb/transform_open_<cipher> and smb/sign_<mac>: SMB 3.x message
// encryption and signing alone, through wireseal's smb:: objects and through an OpenSSL EVP
// baseline doing the same work (transform header built, AEAD over header AAD and message with
// the key scheduled once and only the nonce set per message; MAC over the message with the
// signature field zeroed).
#include <array>
#include <cstring>

#include "bench/baseline_openssl.h"
#include "bench/bench_util.h"
#include "bench/suites.h"
#include "wireseal/smb/signing.h"
#include "wireseal/smb/transform.h"

namespace wireseal::bench {

void register_smb_transform();

namespace {

using smb::Cipher;

constexpr std::size_t kSmbSizes[] = {1024, 65536, 1 << 20};
constexpr std::uint64_t kSessionId = 0x100000000025;

struct CipherCase {
  const char* name;
  Cipher cipher;
  const char* evp_name;
};

constexpr CipherCase kCipherCases[] = {
    {"gcm128", Cipher::kAes128Gcm, "AES-128-GCM"},
    {"gcm256", Cipher::kAes256Gcm, "AES-256-GCM"},
    {"ccm128", Cipher::kAes128Ccm, "AES-128-CCM"},
};

// TransformBuffers: a message sealed once at set-up (so open has a valid tag), and an output.
struct TransformBuffers {
  TransformBuffers(const CipherCase& c, std::size_t size)
      : key(pattern(smb::info(c.cipher).key_len, 7)),
        message(pattern(size, 3)),
        sealed(smb::kTransformHeaderSize + size),
        out(smb::kTransformHeaderSize + size) {
    smb::TransformSealer sealer(c.cipher, key, kSessionId);
    if (!sealer.seal(message, sealed)) {
      throw std::runtime_error("set-up seal failed");
    }
  }
  Bytes key;
  Bytes message;
  Bytes sealed;
  Bytes out;
};

// evp_seal is what a careful OpenSSL user writes for the transform: build the header, then one
// EVP AEAD call with the header's bytes 20..51 as AAD and the tag into the Signature field.
bool evp_seal(openssl::Aead& aead, Cipher cipher, std::uint64_t& counter, const Bytes& message,
              Bytes& out) noexcept {
  std::uint8_t* p = out.data();
  const std::uint8_t proto[4] = {0xFD, 'S', 'M', 'B'};
  std::memcpy(p, proto, 4);
  std::memset(p + 20, 0, 16);
  std::memcpy(p + 20, &counter, 8);
  ++counter;
  const auto n = static_cast<std::uint32_t>(message.size());
  std::memcpy(p + 36, &n, 4);
  const std::uint8_t flags_reserved[4] = {0, 0, 1, 0};
  std::memcpy(p + 40, flags_reserved, 4);
  std::memcpy(p + 44, &kSessionId, 8);
  const std::span<const std::uint8_t> header(p, smb::kTransformHeaderSize);
  return aead.seal(header.subspan(20, smb::info(cipher).nonce_len), header.subspan(20), message,
                   std::span<std::uint8_t>(out).subspan(smb::kTransformHeaderSize),
                   std::span<std::uint8_t>(out).subspan(4, 16));
}

void register_transform(const CipherCase& c) {
  const std::string seal_op = std::string("transform_seal_") + c.name;
  const std::string open_op = std::string("transform_open_") + c.name;
  register_op(
      "smb", seal_op, kWireseal,
      [c](std::size_t size) {
        return timed(
            [b = TransformBuffers(c, size),
             sealer = smb::TransformSealer(c.cipher, pattern(smb::info(c.cipher).key_len, 7),
                                           kSessionId)]() mutable noexcept {
              pin(b.message);
              const bool ok = sealer.seal(b.message, b.out).has_value();
              pin(b.out);
              return ok;
            },
            size);
      },
      kSmbSizes);
  register_op(
      "smb", seal_op, kOpenSsl,
      [c](std::size_t size) {
        return timed(
            [b = TransformBuffers(c, size),
             aead = openssl::Aead(c.evp_name, pattern(smb::info(c.cipher).key_len, 7), 16,
                                  smb::info(c.cipher).nonce_len),
             counter = std::uint64_t{1}, c]() mutable noexcept {
              pin(b.message);
              const bool ok = evp_seal(aead, c.cipher, counter, b.message, b.out);
              pin(b.out);
              return ok;
            },
            size);
      },
      kSmbSizes);
  register_op(
      "smb", open_op, kWireseal,
      [c](std::size_t size) {
        return timed(
            [b = TransformBuffers(c, size),
             opener = smb::TransformOpener(c.cipher, pattern(smb::info(c.cipher).key_len, 7),
                                           kSessionId)]() mutable noexcept {
              pin(b.sealed);
              const bool ok = opener.open(b.sealed, b.out).has_value();
              pin(b.out);
              return ok;
            },
            size);
      },
      kSmbSizes);
  register_op(
      "smb", open_op, kOpenSsl,
      [c](std::size_t size) {
        return timed(
            [b = TransformBuffers(c, size),
             aead = openssl::Aead(c.evp_name, pattern(smb::info(c.cipher).key_len, 7), 16,
                                  smb::info(c.cipher).nonce_len),
             c]() mutable noexcept {
              pin(b.sealed);
              const std::span<const std::uint8_t> t(b.sealed);
              std::uint64_t sid = 0;
              std::memcpy(&sid, t.data() + 44, 8);
              const bool ok =
                  sid == kSessionId &&
                  aead.open(t.subspan(20, smb::info(c.cipher).nonce_len), t.subspan(20, 32),
                            t.subspan(smb::kTransformHeaderSize), b.out, t.subspan(4, 16));
              pin(b.out);
              return ok;
            },
            size);
      },
      kSmbSizes);
}

// SignBuffers: an SMB2 message (header + body) of `size` bytes.
struct SignBuffers {
  explicit SignBuffers(std::size_t size) : message(pattern(size, 3)) {
    const std::uint8_t proto[4] = {0xFE, 'S', 'M', 'B'};
    std::memcpy(message.data(), proto, 4);
    message[4] = 64;
    message[5] = 0;
  }
  Bytes message;
  std::array<std::uint8_t, 16> mac{};
};

void register_sign(const char* op, smb::SigningAlgorithm algorithm, const char* evp_mac,
                   const char* evp_param) {
  register_op(
      "smb", op, kWireseal,
      [algorithm](std::size_t size) {
        return timed(
            [b = SignBuffers(size),
             signer = smb::Signer(algorithm, pattern(16, 7))]() mutable noexcept {
              pin(b.message);
              const bool ok = signer.sign(b.message).has_value();
              pin(b.message);
              return ok;
            },
            size);
      },
      kSmbSizes);
  register_op(
      "smb", op, kOpenSsl,
      [algorithm, evp_mac, evp_param](std::size_t size) {
        return timed(
            [b = SignBuffers(size), algorithm,
             mac = openssl::Mac(evp_mac, "cipher", evp_param, pattern(16, 7))]() mutable noexcept {
              pin(b.message);
              std::uint8_t* p = b.message.data();
              p[16] |= 0x08;
              std::memset(p + 48, 0, 16);
              std::array<std::uint8_t, 12> iv{};
              std::memcpy(iv.data(), p + 24, 8);
              iv[8] = static_cast<std::uint8_t>(p[16] & 1);
              const bool ok = mac.compute(algorithm == smb::SigningAlgorithm::kAesGmac
                                              ? std::span<const std::uint8_t>(iv)
                                              : std::span<const std::uint8_t>(),
                                          b.message, b.mac);
              std::memcpy(p + 48, b.mac.data(), 16);
              pin(b.message);
              return ok;
            },
            size);
      },
      kSmbSizes);
}

}  // namespace

void register_smb_transform() {
  for (const CipherCase& c : kCipherCases) {
    register_transform(c);
  }
  register_sign("sign_cmac", smb::SigningAlgorithm::kAesCmac, "CMAC", "AES-128-CBC");
  register_sign("sign_gmac", smb::SigningAlgorithm::kAesGmac, "GMAC", "AES-128-GCM");
}

}  // namespace wireseal::bench
