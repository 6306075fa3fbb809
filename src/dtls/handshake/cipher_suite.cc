#include "wireseal/dtls/handshake/cipher_suite.h"

#include <array>

#include "common/text.h"

namespace wireseal::dtls {

namespace {

constexpr KeyExchange kEcdhe = KeyExchange::kEcdhe;
constexpr KeyExchange kEcdhePsk = KeyExchange::kEcdhePsk;
constexpr KeyExchange kPskOnly = KeyExchange::kPsk;
constexpr SuiteAuth kEcdsa = SuiteAuth::kEcdsa;
constexpr SuiteAuth kRsa = SuiteAuth::kRsa;
constexpr SuiteAuth kByPsk = SuiteAuth::kPsk;

constexpr std::array kSuites{
    // ECDHE with certificates (RFC 5289, RFC 7251, RFC 7905)
    CipherSuite{0xC02B, kEcdhe, kEcdsa, true, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                "ECDHE-ECDSA-AES128-GCM-SHA256"},
    CipherSuite{0xC02C, kEcdhe, kEcdsa, true, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                "ECDHE-ECDSA-AES256-GCM-SHA384"},
    CipherSuite{0xCCA9, kEcdhe, kEcdsa, true, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
                "ECDHE-ECDSA-CHACHA20-POLY1305"},
    CipherSuite{0xC02F, kEcdhe, kRsa, true, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                "ECDHE-RSA-AES128-GCM-SHA256"},
    CipherSuite{0xC030, kEcdhe, kRsa, true, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                "ECDHE-RSA-AES256-GCM-SHA384"},
    CipherSuite{0xCCA8, kEcdhe, kRsa, true, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
                "ECDHE-RSA-CHACHA20-POLY1305"},
    CipherSuite{0xC0AC, kEcdhe, kEcdsa, true, "TLS_ECDHE_ECDSA_WITH_AES_128_CCM",
                "ECDHE-ECDSA-AES128-CCM"},
    CipherSuite{0xC0AD, kEcdhe, kEcdsa, true, "TLS_ECDHE_ECDSA_WITH_AES_256_CCM",
                "ECDHE-ECDSA-AES256-CCM"},
    CipherSuite{0xC0AE, kEcdhe, kEcdsa, true, "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8",
                "ECDHE-ECDSA-AES128-CCM8"},
    CipherSuite{0xC0AF, kEcdhe, kEcdsa, true, "TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8",
                "ECDHE-ECDSA-AES256-CCM8"},
    CipherSuite{0xC023, kEcdhe, kEcdsa, false, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
                "ECDHE-ECDSA-AES128-SHA256"},
    CipherSuite{0xC024, kEcdhe, kEcdsa, false, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
                "ECDHE-ECDSA-AES256-SHA384"},
    CipherSuite{0xC009, kEcdhe, kEcdsa, false, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
                "ECDHE-ECDSA-AES128-SHA"},
    CipherSuite{0xC00A, kEcdhe, kEcdsa, false, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
                "ECDHE-ECDSA-AES256-SHA"},
    CipherSuite{0xC027, kEcdhe, kRsa, false, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
                "ECDHE-RSA-AES128-SHA256"},
    CipherSuite{0xC028, kEcdhe, kRsa, false, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
                "ECDHE-RSA-AES256-SHA384"},
    CipherSuite{0xC013, kEcdhe, kRsa, false, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
                "ECDHE-RSA-AES128-SHA"},
    CipherSuite{0xC014, kEcdhe, kRsa, false, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
                "ECDHE-RSA-AES256-SHA"},
    // ECDHE_PSK (RFC 5489, RFC 7905)
    CipherSuite{0xCCAC, kEcdhePsk, kByPsk, true, "TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256",
                "ECDHE-PSK-CHACHA20-POLY1305"},
    CipherSuite{0xC037, kEcdhePsk, kByPsk, false, "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256",
                "ECDHE-PSK-AES128-CBC-SHA256"},
    CipherSuite{0xC038, kEcdhePsk, kByPsk, false, "TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA384",
                "ECDHE-PSK-AES256-CBC-SHA384"},
    CipherSuite{0xC035, kEcdhePsk, kByPsk, false, "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA",
                "ECDHE-PSK-AES128-CBC-SHA"},
    CipherSuite{0xC036, kEcdhePsk, kByPsk, false, "TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA",
                "ECDHE-PSK-AES256-CBC-SHA"},
    // PSK (RFC 4279, RFC 5487, RFC 6655, RFC 7905)
    CipherSuite{0x00A8, kPskOnly, kByPsk, true, "TLS_PSK_WITH_AES_128_GCM_SHA256",
                "PSK-AES128-GCM-SHA256"},
    CipherSuite{0x00A9, kPskOnly, kByPsk, true, "TLS_PSK_WITH_AES_256_GCM_SHA384",
                "PSK-AES256-GCM-SHA384"},
    CipherSuite{0xCCAB, kPskOnly, kByPsk, true, "TLS_PSK_WITH_CHACHA20_POLY1305_SHA256",
                "PSK-CHACHA20-POLY1305"},
    CipherSuite{0xC0A4, kPskOnly, kByPsk, true, "TLS_PSK_WITH_AES_128_CCM", "PSK-AES128-CCM"},
    CipherSuite{0xC0A5, kPskOnly, kByPsk, true, "TLS_PSK_WITH_AES_256_CCM", "PSK-AES256-CCM"},
    CipherSuite{0xC0A8, kPskOnly, kByPsk, true, "TLS_PSK_WITH_AES_128_CCM_8", "PSK-AES128-CCM8"},
    CipherSuite{0xC0A9, kPskOnly, kByPsk, true, "TLS_PSK_WITH_AES_256_CCM_8", "PSK-AES256-CCM8"},
    CipherSuite{0x00AE, kPskOnly, kByPsk, false, "TLS_PSK_WITH_AES_128_CBC_SHA256",
                "PSK-AES128-CBC-SHA256"},
    CipherSuite{0x00AF, kPskOnly, kByPsk, false, "TLS_PSK_WITH_AES_256_CBC_SHA384",
                "PSK-AES256-CBC-SHA384"},
    CipherSuite{0x008C, kPskOnly, kByPsk, false, "TLS_PSK_WITH_AES_128_CBC_SHA",
                "PSK-AES128-CBC-SHA"},
    CipherSuite{0x008D, kPskOnly, kByPsk, false, "TLS_PSK_WITH_AES_256_CBC_SHA",
                "PSK-AES256-CBC-SHA"},
};

constexpr std::array<std::uint16_t, 14> kDefaultSuites{
    0xC02B, 0xC02C, 0xCCA9, 0xC02F, 0xC030, 0xCCA8, 0xC0AC,
    0xC0AD, 0xCCAC, 0x00A8, 0x00A9, 0xCCAB, 0xC0A4, 0xC0A5,
};

}  // namespace

std::span<const CipherSuite> cipher_suites() noexcept { return kSuites; }

std::span<const std::uint16_t> default_cipher_suites() noexcept { return kDefaultSuites; }

const CipherSuite* find_cipher_suite(std::uint16_t code) noexcept {
  for (const CipherSuite& suite : kSuites) {
    if (suite.code == code) {
      return &suite;
    }
  }
  return nullptr;
}

const CipherSuite* find_cipher_suite_by_name(std::string_view name) noexcept {
  for (const CipherSuite& suite : kSuites) {
    if (wireseal::detail::equal_ignoring_case(name, suite.iana_name) ||
        wireseal::detail::equal_ignoring_case(name, suite.openssl_name)) {
      return &suite;
    }
  }
  return nullptr;
}

}  // namespace wireseal::dtls
