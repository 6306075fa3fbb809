// crypto/<aead>_seal and crypto/<aead>_open: every AEAD the protocols use, through wireseal's
// Aead (Backend::kAuto) and through the OpenSSL baseline, on identical buffers.
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "bench/baseline_openssl.h"
#include "bench/bench_util.h"
#include "bench/suites.h"
#include "wireseal/crypto/aead.h"

namespace wireseal::bench {
namespace {

using crypto::AeadAlgorithm;

struct AeadCase {
  const char* name;  // operation prefix: "aes128gcm" -> aes128gcm_seal / aes128gcm_open
  AeadAlgorithm algorithm;
  const char* evp_name;  // the same algorithm for the OpenSSL baseline
  std::size_t tag_len;
};

// CCM runs with the 16-byte tag (DTLS AES-CCM, SMB) and the 8-byte tag of DTLS's CCM_8
// suites. All use a 12-byte nonce, as DTLS 1.2 does.
constexpr AeadCase kCases[] = {
    {"aes128gcm", AeadAlgorithm::kAes128Gcm, "AES-128-GCM", 16},
    {"aes256gcm", AeadAlgorithm::kAes256Gcm, "AES-256-GCM", 16},
    {"aes128ccm", AeadAlgorithm::kAes128Ccm, "AES-128-CCM", 16},
    {"aes128ccm8", AeadAlgorithm::kAes128Ccm, "AES-128-CCM", 8},
    {"aes256ccm", AeadAlgorithm::kAes256Ccm, "AES-256-CCM", 16},
    {"chacha20poly1305", AeadAlgorithm::kChaCha20Poly1305, "ChaCha20-Poly1305", 16},
};

constexpr std::size_t kNonceLen = 12;
constexpr std::size_t kAadLen = 13;  // a DTLS 1.2 record's additional data

// Message holds one message's buffers; `in` is sealed once at set-up so open has a valid tag.
struct Message {
  Message(std::size_t size, std::size_t tag_len)
      : nonce(pattern(kNonceLen, 1)),
        aad(pattern(kAadLen, 2)),
        in(pattern(size, 3)),
        out(size),
        tag(tag_len) {}

  // next_nonce advances the nonce like a record sequence number: sealing twice under one nonce
  // would be a misuse even in a benchmark.
  void next_nonce() noexcept {
    std::uint64_t seq = 0;
    std::memcpy(&seq, nonce.data() + 4, sizeof seq);
    ++seq;
    std::memcpy(nonce.data() + 4, &seq, sizeof seq);
  }

  Bytes nonce;
  Bytes aad;
  Bytes in;
  Bytes out;
  Bytes tag;
};

crypto::Aead make_wireseal(const AeadCase& c) {
  const Bytes key = pattern(crypto::info(c.algorithm).key_len, 7);
  return crypto::Aead(c.algorithm, key,
                      crypto::AeadOptions{.tag_len = c.tag_len, .nonce_len = kNonceLen});
}

openssl::Aead make_openssl(const AeadCase& c) {
  const Bytes key = pattern(crypto::info(c.algorithm).key_len, 7);
  return openssl::Aead(c.evp_name, key, c.tag_len, kNonceLen);
}

// Engine is either implementation; both expose seal/open with the same argument order, so
// one fixture body serves both and the two do byte-for-byte the same work.
bool do_seal(crypto::Aead& a, Message& m) noexcept {
  return a.seal(m.nonce, m.aad, m.in, m.out, m.tag).has_value();
}
bool do_seal(openssl::Aead& a, Message& m) noexcept {
  return a.seal(m.nonce, m.aad, m.in, m.out, m.tag);
}
bool do_open(crypto::Aead& a, Message& m) noexcept {
  return a.open(m.nonce, m.aad, m.in, m.out, m.tag).has_value();
}
bool do_open(openssl::Aead& a, Message& m) noexcept {
  return a.open(m.nonce, m.aad, m.in, m.out, m.tag);
}

template <class Make>
void register_seal(const AeadCase& c, std::string_view impl, Make make_engine) {
  register_op("crypto", std::string(c.name) + "_seal", impl, [c, make_engine](std::size_t size) {
    return timed(
        [engine = make_engine(c), m = Message(size, c.tag_len)]() mutable noexcept {
          m.next_nonce();
          pin(m.in);
          const bool ok = do_seal(engine, m);
          pin(m.out);
          pin(m.tag);
          return ok;
        },
        size);
  });
}

template <class Make>
void register_open(const AeadCase& c, std::string_view impl, Make make_engine) {
  register_op("crypto", std::string(c.name) + "_open", impl, [c, make_engine](std::size_t size) {
    auto engine = make_engine(c);
    Message m(size, c.tag_len);
    // Replace the plaintext with its ciphertext so every timed open authenticates.
    if (!do_seal(engine, m)) {
      throw std::runtime_error("seal for open fixture failed");
    }
    m.in.swap(m.out);
    return timed(
        [engine = std::move(engine), m = std::move(m)]() mutable noexcept {
          pin(m.in);
          const bool ok = do_open(engine, m);
          pin(m.out);
          return ok;
        },
        size);
  });
}

}  // namespace

void register_crypto_aead() {
  for (const AeadCase& c : kCases) {
    // Implementations of one operation run back to back so machine drift hits both alike.
    register_seal(c, kWireseal, make_wireseal);
    register_seal(c, kOpenSsl, make_openssl);
    register_open(c, kWireseal, make_wireseal);
    register_open(c, kOpenSsl, make_openssl);
  }
}

}  // namespace wireseal::bench
