#include "wireseal/dtls/record_cipher.h"

namespace wireseal::dtls {

using crypto::HashAlgorithm;

const RecordCipherInfo& info(RecordCipher cipher) noexcept {
  static constexpr RecordCipherInfo kInfo[] = {
      {CipherKind::kAead, 16, 0, 4, 8, 16, HashAlgorithm::kSha256, "AES-128-GCM"},
      {CipherKind::kAead, 32, 0, 4, 8, 16, HashAlgorithm::kSha256, "AES-256-GCM"},
      {CipherKind::kAead, 16, 0, 4, 8, 16, HashAlgorithm::kSha256, "AES-128-CCM"},
      {CipherKind::kAead, 16, 0, 4, 8, 8, HashAlgorithm::kSha256, "AES-128-CCM8"},
      {CipherKind::kAead, 32, 0, 4, 8, 16, HashAlgorithm::kSha256, "AES-256-CCM"},
      {CipherKind::kAead, 32, 0, 4, 8, 8, HashAlgorithm::kSha256, "AES-256-CCM8"},
      {CipherKind::kAead, 32, 0, 12, 0, 16, HashAlgorithm::kSha256, "CHACHA20-POLY1305"},
      {CipherKind::kCbc, 16, 20, 0, 16, 20, HashAlgorithm::kSha1, "AES-128-CBC-SHA"},
      {CipherKind::kCbc, 32, 20, 0, 16, 20, HashAlgorithm::kSha1, "AES-256-CBC-SHA"},
      {CipherKind::kCbc, 16, 32, 0, 16, 32, HashAlgorithm::kSha256, "AES-128-CBC-SHA256"},
      {CipherKind::kCbc, 32, 32, 0, 16, 32, HashAlgorithm::kSha256, "AES-256-CBC-SHA256"},
      {CipherKind::kCbc, 32, 48, 0, 16, 48, HashAlgorithm::kSha384, "AES-256-CBC-SHA384"},
      {CipherKind::kNull, 0, 20, 0, 0, 20, HashAlgorithm::kSha1, "NULL-SHA"},
      {CipherKind::kNull, 0, 32, 0, 0, 32, HashAlgorithm::kSha256, "NULL-SHA256"},
  };
  return kInfo[static_cast<std::size_t>(cipher)];
}

std::optional<SuiteInfo> suite_info(std::uint16_t suite) noexcept {
  using enum RecordCipher;
  constexpr HashAlgorithm kSha256 = HashAlgorithm::kSha256;
  constexpr HashAlgorithm kSha384 = HashAlgorithm::kSha384;
  switch (suite) {
    // AES-GCM (RFC 5288, RFC 5289, RFC 5487)
    case 0xC02B:  // ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
    case 0xC02F:  // ECDHE_RSA_WITH_AES_128_GCM_SHA256
    case 0x009C:  // RSA_WITH_AES_128_GCM_SHA256
    case 0x00A8:  // PSK_WITH_AES_128_GCM_SHA256
      return SuiteInfo{kAes128Gcm, kSha256};
    case 0xC02C:  // ECDHE_ECDSA_WITH_AES_256_GCM_SHA384
    case 0xC030:  // ECDHE_RSA_WITH_AES_256_GCM_SHA384
    case 0x009D:  // RSA_WITH_AES_256_GCM_SHA384
    case 0x00A9:  // PSK_WITH_AES_256_GCM_SHA384
      return SuiteInfo{kAes256Gcm, kSha384};
    // AES-CCM (RFC 6655, RFC 7251)
    case 0xC0AC:  // ECDHE_ECDSA_WITH_AES_128_CCM
    case 0xC09C:  // RSA_WITH_AES_128_CCM
    case 0xC0A4:  // PSK_WITH_AES_128_CCM
      return SuiteInfo{kAes128Ccm, kSha256};
    case 0xC0AE:  // ECDHE_ECDSA_WITH_AES_128_CCM_8
    case 0xC0A0:  // RSA_WITH_AES_128_CCM_8
    case 0xC0A8:  // PSK_WITH_AES_128_CCM_8
      return SuiteInfo{kAes128Ccm8, kSha256};
    case 0xC0AD:  // ECDHE_ECDSA_WITH_AES_256_CCM
    case 0xC09D:  // RSA_WITH_AES_256_CCM
    case 0xC0A5:  // PSK_WITH_AES_256_CCM
      return SuiteInfo{kAes256Ccm, kSha256};
    case 0xC0AF:  // ECDHE_ECDSA_WITH_AES_256_CCM_8
    case 0xC0A1:  // RSA_WITH_AES_256_CCM_8
    case 0xC0A9:  // PSK_WITH_AES_256_CCM_8
      return SuiteInfo{kAes256Ccm8, kSha256};
    // ChaCha20-Poly1305 (RFC 7905)
    case 0xCCA8:  // ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256
    case 0xCCA9:  // ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
    case 0xCCAB:  // PSK_WITH_CHACHA20_POLY1305_SHA256
    case 0xCCAC:  // ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256
      return SuiteInfo{kChaCha20Poly1305, kSha256};
    // CBC (RFC 5246, RFC 4492, RFC 5289)
    case 0xC009:  // ECDHE_ECDSA_WITH_AES_128_CBC_SHA
    case 0xC013:  // ECDHE_RSA_WITH_AES_128_CBC_SHA
    case 0x002F:  // RSA_WITH_AES_128_CBC_SHA
    case 0x008C:  // PSK_WITH_AES_128_CBC_SHA
    case 0xC035:  // ECDHE_PSK_WITH_AES_128_CBC_SHA (RFC 5489)
      return SuiteInfo{kAes128CbcSha1, kSha256};
    case 0xC00A:  // ECDHE_ECDSA_WITH_AES_256_CBC_SHA
    case 0xC014:  // ECDHE_RSA_WITH_AES_256_CBC_SHA
    case 0x0035:  // RSA_WITH_AES_256_CBC_SHA
    case 0x008D:  // PSK_WITH_AES_256_CBC_SHA
    case 0xC036:  // ECDHE_PSK_WITH_AES_256_CBC_SHA
      return SuiteInfo{kAes256CbcSha1, kSha256};
    case 0xC023:  // ECDHE_ECDSA_WITH_AES_128_CBC_SHA256
    case 0xC027:  // ECDHE_RSA_WITH_AES_128_CBC_SHA256
    case 0x003C:  // RSA_WITH_AES_128_CBC_SHA256
    case 0x00AE:  // PSK_WITH_AES_128_CBC_SHA256
    case 0xC037:  // ECDHE_PSK_WITH_AES_128_CBC_SHA256
      return SuiteInfo{kAes128CbcSha256, kSha256};
    case 0x003D:  // RSA_WITH_AES_256_CBC_SHA256
      return SuiteInfo{kAes256CbcSha256, kSha256};
    case 0xC024:  // ECDHE_ECDSA_WITH_AES_256_CBC_SHA384
    case 0xC028:  // ECDHE_RSA_WITH_AES_256_CBC_SHA384
    case 0x00AF:  // PSK_WITH_AES_256_CBC_SHA384
    case 0xC038:  // ECDHE_PSK_WITH_AES_256_CBC_SHA384
      return SuiteInfo{kAes256CbcSha384, kSha384};
    // NULL ciphers (integrity only)
    case 0x0002:  // RSA_WITH_NULL_SHA
    case 0x002C:  // PSK_WITH_NULL_SHA
      return SuiteInfo{kNullSha1, kSha256};
    case 0x003B:  // RSA_WITH_NULL_SHA256
    case 0x00B0:  // PSK_WITH_NULL_SHA256
      return SuiteInfo{kNullSha256, kSha256};
    default:
      return std::nullopt;
  }
}

}  // namespace wireseal::dtls
