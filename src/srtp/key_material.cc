// Session-key derivation (RFC 3711 §4.3.1 with key_derivation_rate 0, labels §4.3.2 and
// RFC 6904 §5.1; RFC 7714 §11 for the 12-byte AEAD salt).
#include "key_material.h"

#include <algorithm>
#include <stdexcept>

#include "common/ct.h"
#include "wireseal/crypto/kdf.h"

namespace wireseal::srtp::detail {
namespace {

using crypto::SrtpKdfLabel;

// Scratch for one derived key, wiped after keying the object that uses it.
struct Scratch {
  std::array<std::uint8_t, 32> bytes{};
  ~Scratch() { wireseal::detail::secure_wipe(bytes.data(), bytes.size()); }
  std::span<std::uint8_t> first(std::size_t n) { return {bytes.data(), n}; }
};

void kdf(const MasterKey& key, SrtpKdfLabel label, std::span<std::uint8_t> out) {
  if (!crypto::srtp_kdf(key.key, key.salt, label, out)) {
    throw std::invalid_argument("wireseal::srtp: SRTP KDF rejected the master key or salt");
  }
}

CipherKeys derive_cipher_keys(const ProfileInfo& p, const MasterKey& key, SrtpKdfLabel enc,
                              SrtpKdfLabel auth, SrtpKdfLabel salt, crypto::Backend backend) {
  CipherKeys k;
  Scratch s;
  switch (p.cipher) {
    case CipherKind::kAesCm:
      kdf(key, enc, s.first(p.session_key_len));
      k.ctr.emplace(s.first(p.session_key_len), backend);
      break;
    case CipherKind::kAesGcm: {
      kdf(key, enc, s.first(p.session_key_len));
      const auto alg = p.session_key_len == 16 ? crypto::AeadAlgorithm::kAes128Gcm
                                               : crypto::AeadAlgorithm::kAes256Gcm;
      k.aead.emplace(alg, s.first(p.session_key_len),
                     crypto::AeadOptions{p.rtp_tag_len, 12, backend});
      break;
    }
    case CipherKind::kNull:
      break;
  }
  if (p.session_salt_len != 0) {
    kdf(key, salt, {k.salt.data(), p.session_salt_len});
  }
  if (p.auth_key_len != 0) {
    kdf(key, auth, s.first(p.auth_key_len));
    k.hmac.emplace(crypto::HashAlgorithm::kSha1, s.first(p.auth_key_len));
  }
  return k;
}

}  // namespace

KeyMaterial derive_key_material(const ProfileInfo& p, const MasterKey& key, std::size_t mki_len,
                                crypto::Backend backend) {
  if (key.key.size() != p.master_key_len || key.salt.size() != p.master_salt_len) {
    throw std::invalid_argument(
        "wireseal::srtp: master key or salt length does not fit the profile");
  }
  if (key.mki.size() != mki_len) {
    throw std::invalid_argument("wireseal::srtp: MKI length differs from SessionConfig::mki_len");
  }
  KeyMaterial m;
  m.rtp = derive_cipher_keys(p, key, SrtpKdfLabel::kRtpEncryption, SrtpKdfLabel::kRtpAuthentication,
                             SrtpKdfLabel::kRtpSalt, backend);
  m.rtcp = derive_cipher_keys(p, key, SrtpKdfLabel::kRtcpEncryption,
                              SrtpKdfLabel::kRtcpAuthentication, SrtpKdfLabel::kRtcpSalt, backend);
  if (p.cipher != CipherKind::kNull) {
    // RFC 6904 §5.1: header key and salt from labels 6 and 7, as long as the SRTP cipher's
    // key and salt. AEAD profiles encrypt headers with AES-CM of the same key size (RFC 7714
    // §8.3); their 12-byte header salt is followed by two zero bytes in the AES-CM IV, which
    // is how libsrtp pads it.
    Scratch s;
    kdf(key, SrtpKdfLabel::kRtpHeaderEncryption, s.first(p.session_key_len));
    m.header_ctr.emplace(s.first(p.session_key_len), backend);
    kdf(key, SrtpKdfLabel::kRtpHeaderSalt, {m.header_salt.data(), p.session_salt_len});
  }
  std::copy(key.mki.begin(), key.mki.end(), m.mki.begin());
  return m;
}

}  // namespace wireseal::srtp::detail
