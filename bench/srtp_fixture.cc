#include "bench/srtp_fixture.h"

#include <arpa/inet.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "wireseal/crypto/kdf.h"

namespace wireseal::bench::srtp_bench {
namespace {

using crypto::SrtpKdfLabel;

void store_be32(std::uint8_t* p, std::uint32_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

Bytes kdf(const MasterKeys& m, SrtpKdfLabel label, std::size_t n) {
  Bytes out(n);
  if (n != 0 && !crypto::srtp_kdf(m.key, m.salt, label, out)) {
    throw std::runtime_error("srtp bench: SRTP KDF failed");
  }
  return out;
}

const char* ctr_name(std::size_t key_len) {
  return key_len == 16 ? "AES-128-CTR" : key_len == 24 ? "AES-192-CTR" : "AES-256-CTR";
}

// The counter block of RFC 3711 §4.1.1 (salt14 || 00 00) ^ (SSRC << 64) ^ (index << 16).
void cm_counter(const std::uint8_t salt[14], std::uint32_t ssrc, std::uint64_t index,
                std::uint8_t iv[16]) noexcept {
  std::memcpy(iv, salt, 14);
  iv[14] = iv[15] = 0;
  for (int i = 0; i < 4; ++i) {
    iv[4 + i] ^= static_cast<std::uint8_t>(ssrc >> (24 - 8 * i));
  }
  for (int i = 0; i < 6; ++i) {
    iv[8 + i] ^= static_cast<std::uint8_t>(index >> (40 - 8 * i));
  }
}

void set_libsrtp_policy(srtp::Profile p, srtp_crypto_policy_t* rtp, srtp_crypto_policy_t* rtcp) {
  switch (p) {
    case srtp::Profile::kAes128CmHmacSha1_80:
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(rtp);
      break;
    case srtp::Profile::kAes128CmHmacSha1_32:
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(rtp);
      break;
    case srtp::Profile::kAes192CmHmacSha1_80:
      srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80(rtp);
      break;
    case srtp::Profile::kAes192CmHmacSha1_32:
      srtp_crypto_policy_set_aes_cm_192_hmac_sha1_32(rtp);
      break;
    case srtp::Profile::kAes256CmHmacSha1_80:
      srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(rtp);
      break;
    case srtp::Profile::kAes256CmHmacSha1_32:
      srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(rtp);
      break;
    case srtp::Profile::kNullHmacSha1_80:
      srtp_crypto_policy_set_null_cipher_hmac_sha1_80(rtp);
      break;
    case srtp::Profile::kNullHmacSha1_32:
      srtp_crypto_policy_set_null_cipher_hmac_sha1_80(rtp);
      rtp->auth_tag_len = 4;  // libsrtp has no setter for NULL_HMAC_SHA1_32
      break;
    case srtp::Profile::kAeadAes128Gcm:
      srtp_crypto_policy_set_aes_gcm_128_16_auth(rtp);
      break;
    case srtp::Profile::kAeadAes256Gcm:
      srtp_crypto_policy_set_aes_gcm_256_16_auth(rtp);
      break;
  }
  *rtcp = *rtp;
  rtcp->auth_tag_len =
      rtp->sec_serv == sec_serv_conf_and_auth && rtp->auth_tag_len == 4 ? 10 : rtp->auth_tag_len;
}

}  // namespace

MasterKeys::MasterKeys(srtp::Profile p) {
  const srtp::ProfileInfo& i = srtp::info(p);
  key = pattern(i.master_key_len, 11);
  salt = pattern(i.master_salt_len, 12);
}

srtp::Session make_session(srtp::Profile p) {
  const MasterKeys m(p);
  const srtp::MasterKey keys[] = {{m.key, m.salt, {}}};
  srtp::SessionConfig c;
  c.profile = p;
  c.keys = keys;
  c.max_streams = 16;
  return srtp::Session(c);
}

Bytes rtcp_packet(std::size_t len) {
  Bytes p = pattern(len + kRoom, 23);
  p[0] = 0x80;
  p[1] = 200;  // sender report
  p[2] = static_cast<std::uint8_t>((len / 4 - 1) >> 8);
  p[3] = static_cast<std::uint8_t>(len / 4 - 1);
  store_be32(p.data() + 4, kSsrc);
  return p;
}

Bytes rtp_packet(std::uint16_t seq, std::size_t payload) {
  Bytes p = pattern(12 + payload + kRoom, 21);
  p[0] = 0x80;
  p[1] = 96;
  set_sequence(p.data(), seq);
  store_be32(p.data() + 8, kSsrc);
  return p;
}

// ---- OpenSSL

OpensslSrtp::OpensslSrtp(srtp::Profile p) : info_(&srtp::info(p)) {
  const MasterKeys m(p);
  const Bytes salt = kdf(m, SrtpKdfLabel::kRtpSalt, info_->session_salt_len);
  std::copy(salt.begin(), salt.end(), salt_.begin());
  const Bytes key = kdf(m, SrtpKdfLabel::kRtpEncryption, info_->session_key_len);
  switch (info_->cipher) {
    case srtp::CipherKind::kAesCm:
      ctr_.emplace(ctr_name(key.size()), key, true);
      break;
    case srtp::CipherKind::kAesGcm:
      gcm_.emplace(key.size() == 16 ? "AES-128-GCM" : "AES-256-GCM", key, 16, 12);
      break;
    case srtp::CipherKind::kNull:
      break;
  }
  if (info_->auth_key_len != 0) {
    const Bytes auth = kdf(m, SrtpKdfLabel::kRtpAuthentication, info_->auth_key_len);
    EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    hmac_.reset(EVP_MAC_CTX_new(mac));
    EVP_MAC_free(mac);
    char digest[] = "SHA1";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_END};
    if (!hmac_ || EVP_MAC_init(hmac_.get(), auth.data(), auth.size(), params) != 1) {
      throw std::runtime_error("srtp bench: EVP_MAC HMAC-SHA1 set-up failed");
    }
  }
}

bool OpensslSrtp::tag(const std::uint8_t* data, std::size_t len, std::uint32_t roc,
                      std::uint8_t out[20]) noexcept {
  std::uint8_t roc_be[4];
  store_be32(roc_be, roc);
  std::size_t n = 0;
  return EVP_MAC_init(hmac_.get(), nullptr, 0, nullptr) == 1 &&
         EVP_MAC_update(hmac_.get(), data, len) == 1 &&
         EVP_MAC_update(hmac_.get(), roc_be, 4) == 1 &&
         EVP_MAC_final(hmac_.get(), out, &n, 20) == 1;
}

std::size_t OpensslSrtp::protect(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                                 std::uint64_t index) noexcept {
  constexpr std::size_t kHeader = 12;
  const auto roc = static_cast<std::uint32_t>(index >> 16);
  if (out != in) {
    std::memcpy(out, in, kHeader);
  }
  const openssl::In payload(in + kHeader, len - kHeader);
  const openssl::Out payload_out(out + kHeader, len - kHeader);
  if (info_->cipher == srtp::CipherKind::kAesGcm) {
    std::uint8_t iv[12] = {};
    for (int i = 0; i < 4; ++i) {
      iv[2 + i] = static_cast<std::uint8_t>(kSsrc >> (24 - 8 * i));
      iv[6 + i] = static_cast<std::uint8_t>(roc >> (24 - 8 * i));
    }
    iv[10] = in[2];
    iv[11] = in[3];
    for (int i = 0; i < 12; ++i) {
      iv[i] ^= salt_[static_cast<std::size_t>(i)];
    }
    return gcm_->seal(iv, {in, kHeader}, payload, payload_out, {out + len, 16}) ? len + 16 : 0;
  }
  if (info_->cipher == srtp::CipherKind::kAesCm) {
    std::uint8_t iv[16];
    cm_counter(salt_.data(), kSsrc, index, iv);
    if (!ctr_->apply(iv, payload, payload_out)) {
      return 0;
    }
  } else if (out != in) {
    std::memcpy(payload_out.data(), payload.data(), payload.size());
  }
  std::uint8_t mac[20];
  if (!tag(out, len, roc, mac)) {
    return 0;
  }
  std::memcpy(out + len, mac, info_->rtp_tag_len);
  return len + info_->rtp_tag_len;
}

std::size_t OpensslSrtp::unprotect(const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                                   std::uint64_t index) noexcept {
  constexpr std::size_t kHeader = 12;
  const auto roc = static_cast<std::uint32_t>(index >> 16);
  const std::size_t tag_len = info_->rtp_tag_len;
  if (len < kHeader + tag_len) {
    return 0;
  }
  const std::size_t plain = len - tag_len;
  const openssl::In payload(in + kHeader, plain - kHeader);
  const openssl::Out payload_out(out + kHeader, plain - kHeader);
  if (info_->cipher == srtp::CipherKind::kAesGcm) {
    std::uint8_t iv[12] = {};
    for (int i = 0; i < 4; ++i) {
      iv[2 + i] = static_cast<std::uint8_t>(kSsrc >> (24 - 8 * i));
      iv[6 + i] = static_cast<std::uint8_t>(roc >> (24 - 8 * i));
    }
    iv[10] = in[2];
    iv[11] = in[3];
    for (int i = 0; i < 12; ++i) {
      iv[i] ^= salt_[static_cast<std::size_t>(i)];
    }
    if (!gcm_->open(iv, {in, kHeader}, payload, payload_out, {in + plain, 16})) {
      return 0;
    }
  } else {
    std::uint8_t mac[20];
    if (!tag(in, plain, roc, mac) || CRYPTO_memcmp(mac, in + plain, tag_len) != 0) {
      return 0;
    }
    if (info_->cipher == srtp::CipherKind::kAesCm) {
      std::uint8_t iv[16];
      cm_counter(salt_.data(), kSsrc, index, iv);
      if (!ctr_->apply(iv, payload, payload_out)) {
        return 0;
      }
    } else if (out != in) {
      std::memcpy(payload_out.data(), payload.data(), payload.size());
    }
  }
  if (out != in) {
    std::memcpy(out, in, kHeader);
  }
  return plain;
}

// ---- libsrtp

LibsrtpSession::LibsrtpSession(srtp::Profile p, LibsrtpRole role) : profile_(p), role_(role) {
  static const bool initialised = srtp_init() == srtp_err_status_ok;
  if (!initialised) {
    throw std::runtime_error("srtp bench: srtp_init failed");
  }
  const MasterKeys m(p);
  key_ = m.key;
  key_.insert(key_.end(), m.salt.begin(), m.salt.end());
  create();
}

LibsrtpSession::~LibsrtpSession() {
  if (ctx_ != nullptr) {
    srtp_dealloc(ctx_);
  }
}

void LibsrtpSession::create() {
  srtp_policy_t policy;
  std::memset(&policy, 0, sizeof(policy));
  set_libsrtp_policy(profile_, &policy.rtp, &policy.rtcp);
  policy.ssrc.type = role_ == LibsrtpRole::kReceiver ? ssrc_any_inbound : ssrc_specific;
  policy.ssrc.value = role_ == LibsrtpRole::kReceiver ? 0 : kSsrc;
  policy.key = key_.data();
  policy.window_size = 128;
  policy.allow_repeat_tx = 0;
  const srtp_err_status_t s = srtp_create(&ctx_, &policy);
  if (s != srtp_err_status_ok) {
    ctx_ = nullptr;
    throw std::runtime_error("libsrtp refused the profile (srtp_create status " +
                             std::to_string(static_cast<int>(s)) + ")");
  }
}

void LibsrtpSession::reset() {
  if (role_ == LibsrtpRole::kReceiver) {
    // The template's stream for kSsrc exists once a packet came in; the next one clones it.
    if (srtp_remove_stream(ctx_, htonl(kSsrc)) != srtp_err_status_ok) {
      throw std::runtime_error("srtp bench: srtp_remove_stream failed");
    }
    return;
  }
  srtp_dealloc(ctx_);
  ctx_ = nullptr;
  create();
}

std::size_t LibsrtpSession::protect(std::uint8_t* buf, std::size_t len) noexcept {
  int n = static_cast<int>(len);
  return srtp_protect(ctx_, buf, &n) == srtp_err_status_ok ? static_cast<std::size_t>(n) : 0;
}

std::size_t LibsrtpSession::unprotect(std::uint8_t* buf, std::size_t len) noexcept {
  int n = static_cast<int>(len);
  return srtp_unprotect(ctx_, buf, &n) == srtp_err_status_ok ? static_cast<std::size_t>(n) : 0;
}

std::size_t LibsrtpSession::protect_rtcp(std::uint8_t* buf, std::size_t len) noexcept {
  int n = static_cast<int>(len);
  return srtp_protect_rtcp(ctx_, buf, &n) == srtp_err_status_ok ? static_cast<std::size_t>(n) : 0;
}

std::size_t LibsrtpSession::unprotect_rtcp(std::uint8_t* buf, std::size_t len) noexcept {
  int n = static_cast<int>(len);
  return srtp_unprotect_rtcp(ctx_, buf, &n) == srtp_err_status_ok ? static_cast<std::size_t>(n) : 0;
}

}  // namespace wireseal::bench::srtp_bench
