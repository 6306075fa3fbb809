#pragma once
// Shared by the DTLS tests: every record cipher, and gtest-safe names for parameters.

#include <algorithm>
#include <cctype>
#include <string>

#include "wireseal/dtls/record_cipher.h"

namespace wireseal::test {

inline constexpr dtls::RecordCipher kAllRecordCiphers[] = {
    dtls::RecordCipher::kAes128Gcm,        dtls::RecordCipher::kAes256Gcm,
    dtls::RecordCipher::kAes128Ccm,        dtls::RecordCipher::kAes128Ccm8,
    dtls::RecordCipher::kAes256Ccm,        dtls::RecordCipher::kAes256Ccm8,
    dtls::RecordCipher::kChaCha20Poly1305, dtls::RecordCipher::kAes128CbcSha1,
    dtls::RecordCipher::kAes256CbcSha1,    dtls::RecordCipher::kAes128CbcSha256,
    dtls::RecordCipher::kAes256CbcSha256,  dtls::RecordCipher::kAes256CbcSha384,
    dtls::RecordCipher::kNullSha1,         dtls::RecordCipher::kNullSha256};

// identifier turns `text` into a gtest parameter name: every non-alphanumeric becomes '_'.
inline std::string identifier(std::string text) {
  std::replace_if(
      text.begin(), text.end(),
      [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; }, '_');
  return text;
}

// cipher_name is the cipher's name as an identifier ("AES_128_GCM").
inline std::string cipher_name(dtls::RecordCipher cipher) {
  return identifier(dtls::info(cipher).name);
}

}  // namespace wireseal::test
