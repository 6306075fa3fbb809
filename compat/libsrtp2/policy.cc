// The crypto policies of libsrtp's srtp_crypto_policy_set_* functions and of the DTLS-SRTP
// profiles, and which wireseal profile each one is.
#include <cstring>

#include "context.h"

namespace {

using wireseal::srtp::Profile;

void set(srtp_crypto_policy_t* p, srtp_cipher_type_id_t cipher, int cipher_key_len,
         srtp_auth_type_id_t auth, int auth_key_len, int tag_len, srtp_sec_serv_t services) {
  if (p == nullptr) {
    return;
  }
  *p = srtp_crypto_policy_t{cipher, cipher_key_len, auth, auth_key_len, tag_len, services};
}

constexpr int kHmacKeyLen = 20;

}  // namespace

extern "C" {

void srtp_crypto_policy_set_rtp_default(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_128, SRTP_AES_ICM_128_KEY_LEN_WSALT, SRTP_HMAC_SHA1, kHmacKeyLen, 10,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_rtcp_default(srtp_crypto_policy_t* p) {
  srtp_crypto_policy_set_rtp_default(p);
}
void srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_128, SRTP_AES_ICM_128_KEY_LEN_WSALT, SRTP_HMAC_SHA1, kHmacKeyLen, 4,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_aes_cm_128_null_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_128, SRTP_AES_ICM_128_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 0, sec_serv_conf);
}
void srtp_crypto_policy_set_null_cipher_hmac_sha1_80(srtp_crypto_policy_t* p) {
  set(p, SRTP_NULL_CIPHER, SRTP_AES_ICM_128_KEY_LEN_WSALT, SRTP_HMAC_SHA1, kHmacKeyLen, 10,
      sec_serv_auth);
}
void srtp_crypto_policy_set_null_cipher_hmac_null(srtp_crypto_policy_t* p) {
  set(p, SRTP_NULL_CIPHER, SRTP_AES_ICM_128_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 0, sec_serv_none);
}
void srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_256, SRTP_AES_ICM_256_KEY_LEN_WSALT, SRTP_HMAC_SHA1, kHmacKeyLen, 10,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_256, SRTP_AES_ICM_256_KEY_LEN_WSALT, SRTP_HMAC_SHA1, kHmacKeyLen, 4,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_aes_cm_256_null_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_256, SRTP_AES_ICM_256_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 0, sec_serv_conf);
}
void srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_192, SRTP_AES_ICM_192_KEY_LEN_WSALT, SRTP_HMAC_SHA1, kHmacKeyLen, 10,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_aes_cm_192_hmac_sha1_32(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_192, SRTP_AES_ICM_192_KEY_LEN_WSALT, SRTP_HMAC_SHA1, kHmacKeyLen, 4,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_aes_cm_192_null_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_ICM_192, SRTP_AES_ICM_192_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 0, sec_serv_conf);
}
void srtp_crypto_policy_set_aes_gcm_128_8_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_GCM_128, SRTP_AES_GCM_128_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 8,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_aes_gcm_256_8_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_GCM_256, SRTP_AES_GCM_256_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 8,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_aes_gcm_128_8_only_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_GCM_128, SRTP_AES_GCM_128_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 8, sec_serv_auth);
}
void srtp_crypto_policy_set_aes_gcm_256_8_only_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_GCM_256, SRTP_AES_GCM_256_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 8, sec_serv_auth);
}
void srtp_crypto_policy_set_aes_gcm_128_16_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_GCM_128, SRTP_AES_GCM_128_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 16,
      sec_serv_conf_and_auth);
}
void srtp_crypto_policy_set_aes_gcm_256_16_auth(srtp_crypto_policy_t* p) {
  set(p, SRTP_AES_GCM_256, SRTP_AES_GCM_256_KEY_LEN_WSALT, SRTP_NULL_AUTH, 0, 16,
      sec_serv_conf_and_auth);
}

// RFC 5764 §4.1.2: the _32 profiles keep an 80-bit SRTCP tag; NULL profiles authenticate only.
srtp_err_status_t srtp_crypto_policy_set_from_profile_for_rtp(srtp_crypto_policy_t* policy,
                                                              srtp_profile_t profile) {
  switch (profile) {
    case srtp_profile_aes128_cm_sha1_80:
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(policy);
      break;
    case srtp_profile_aes128_cm_sha1_32:
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(policy);
      break;
    case srtp_profile_null_sha1_80:
      srtp_crypto_policy_set_null_cipher_hmac_sha1_80(policy);
      break;
    case srtp_profile_aead_aes_128_gcm:
      srtp_crypto_policy_set_aes_gcm_128_16_auth(policy);
      break;
    case srtp_profile_aead_aes_256_gcm:
      srtp_crypto_policy_set_aes_gcm_256_16_auth(policy);
      break;
    default:
      return srtp_err_status_bad_param;
  }
  return srtp_err_status_ok;
}

srtp_err_status_t srtp_crypto_policy_set_from_profile_for_rtcp(srtp_crypto_policy_t* policy,
                                                               srtp_profile_t profile) {
  switch (profile) {
    case srtp_profile_aes128_cm_sha1_80:
    case srtp_profile_aes128_cm_sha1_32:
      srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(policy);
      break;
    case srtp_profile_null_sha1_80:
      srtp_crypto_policy_set_null_cipher_hmac_sha1_80(policy);
      break;
    case srtp_profile_aead_aes_128_gcm:
      srtp_crypto_policy_set_aes_gcm_128_16_auth(policy);
      break;
    case srtp_profile_aead_aes_256_gcm:
      srtp_crypto_policy_set_aes_gcm_256_16_auth(policy);
      break;
    default:
      return srtp_err_status_bad_param;
  }
  return srtp_err_status_ok;
}

unsigned int srtp_profile_get_master_key_length(srtp_profile_t profile) {
  switch (profile) {
    case srtp_profile_aes128_cm_sha1_80:
    case srtp_profile_aes128_cm_sha1_32:
    case srtp_profile_null_sha1_80:
    case srtp_profile_aead_aes_128_gcm:
      return SRTP_AES_128_KEY_LEN;
    case srtp_profile_aead_aes_256_gcm:
      return SRTP_AES_256_KEY_LEN;
    default:
      return 0;
  }
}

unsigned int srtp_profile_get_master_salt_length(srtp_profile_t profile) {
  switch (profile) {
    case srtp_profile_aes128_cm_sha1_80:
    case srtp_profile_aes128_cm_sha1_32:
    case srtp_profile_null_sha1_80:
      return SRTP_SALT_LEN;
    case srtp_profile_aead_aes_128_gcm:
    case srtp_profile_aead_aes_256_gcm:
      return SRTP_AEAD_SALT_LEN;
    default:
      return 0;
  }
}

void srtp_append_salt_to_key(unsigned char* key, unsigned int bytes_in_key, unsigned char* salt,
                             unsigned int bytes_in_salt) {
  if (key != nullptr && salt != nullptr) {
    std::memcpy(key + bytes_in_key, salt, bytes_in_salt);
  }
}

}  // extern "C"

namespace wireseal::compat {

namespace {

// GStreamer asks for GCM with "no authentication" as sec_serv_conf; AES-GCM authenticates
// regardless (libsrtp too: the bytes are the same), so that is the AEAD profile as well.
bool gcm_with_conf_only(const srtp_crypto_policy_t& p, srtp_sec_serv_t services) noexcept {
  return (p.cipher_type == SRTP_AES_GCM_128 || p.cipher_type == SRTP_AES_GCM_256) &&
         services == sec_serv_conf_and_auth && raw(p.sec_serv) == sec_serv_conf;
}

}  // namespace

// profile_of: the policy's cipher, key length, tag and services must be exactly one profile's.
bool profile_of(const srtp_crypto_policy_t& p, Profile& out) noexcept {
  struct Row {
    srtp_cipher_type_id_t cipher;
    int cipher_key_len;
    srtp_auth_type_id_t auth;
    int tag_len;
    srtp_sec_serv_t services;
    Profile profile;
  };
  static constexpr Row kRows[] = {
      {SRTP_AES_ICM_128, 30, SRTP_HMAC_SHA1, 10, sec_serv_conf_and_auth,
       Profile::kAes128CmHmacSha1_80},
      {SRTP_AES_ICM_128, 30, SRTP_HMAC_SHA1, 4, sec_serv_conf_and_auth,
       Profile::kAes128CmHmacSha1_32},
      {SRTP_AES_ICM_192, 38, SRTP_HMAC_SHA1, 10, sec_serv_conf_and_auth,
       Profile::kAes192CmHmacSha1_80},
      {SRTP_AES_ICM_192, 38, SRTP_HMAC_SHA1, 4, sec_serv_conf_and_auth,
       Profile::kAes192CmHmacSha1_32},
      {SRTP_AES_ICM_256, 46, SRTP_HMAC_SHA1, 10, sec_serv_conf_and_auth,
       Profile::kAes256CmHmacSha1_80},
      {SRTP_AES_ICM_256, 46, SRTP_HMAC_SHA1, 4, sec_serv_conf_and_auth,
       Profile::kAes256CmHmacSha1_32},
      {SRTP_NULL_CIPHER, 30, SRTP_HMAC_SHA1, 10, sec_serv_auth, Profile::kNullHmacSha1_80},
      {SRTP_NULL_CIPHER, 30, SRTP_HMAC_SHA1, 4, sec_serv_auth, Profile::kNullHmacSha1_32},
      {SRTP_AES_GCM_128, 28, SRTP_NULL_AUTH, 16, sec_serv_conf_and_auth, Profile::kAeadAes128Gcm},
      {SRTP_AES_GCM_256, 44, SRTP_NULL_AUTH, 16, sec_serv_conf_and_auth, Profile::kAeadAes256Gcm},
  };
  for (const Row& r : kRows) {
    if (p.cipher_type == r.cipher && p.cipher_key_len == r.cipher_key_len &&
        p.auth_type == r.auth && p.auth_tag_len == r.tag_len &&
        (raw(p.sec_serv) == r.services || gcm_with_conf_only(p, r.services)) &&
        (r.auth == SRTP_NULL_AUTH || p.auth_key_len == kHmacKeyLen)) {
      out = r.profile;
      return true;
    }
  }
  return false;
}

}  // namespace wireseal::compat
