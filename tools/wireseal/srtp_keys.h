#pragma once
// Key input of `wireseal srtp`: an SDES crypto attribute's key parameter (RFC 4568 §6.1,
// "inline:" base64(master key || master salt) ["|" lifetime] ["|" MKI ":" length]) or a hex
// key and salt, and profile names.

#include <cstdint>
#include <string>
#include <vector>

#include "wireseal/srtp/profile.h"

namespace wireseal::cli {

struct SrtpKeyInput {
  std::vector<std::uint8_t> key;
  std::vector<std::uint8_t> salt;
  std::vector<std::uint8_t> mki;  // the MKI value, big-endian in its signalled length; empty: none
};

// parse_sdes_inline splits "inline:<base64>[|<lifetime>][|<mki>:<length>]" for `profile`:
// the base64 must decode to exactly master key + master salt bytes. Throws
// std::invalid_argument naming what is wrong.
SrtpKeyInput parse_sdes_inline(const std::string& text, srtp::Profile profile);

// parse_hex_keys takes the master key and salt as hex (whitespace and ':' ignored); throws
// std::invalid_argument on bad hex or lengths that do not fit `profile`.
SrtpKeyInput parse_hex_keys(const std::string& key_hex, const std::string& salt_hex,
                            srtp::Profile profile);

// profile_from_name accepts the RFC 4568 / RFC 7714 names (AES_CM_128_HMAC_SHA1_80, ...,
// AEAD_AES_128_GCM) and the DTLS-SRTP ones (SRTP_AES128_CM_HMAC_SHA1_80, SRTP_AEAD_AES_128_GCM),
// case-insensitively. Throws std::invalid_argument listing the known names.
srtp::Profile profile_from_name(const std::string& name);

// decode_base64 decodes standard base64 (with or without '=' padding) using OpenSSL's
// EVP_DecodeBlock; throws std::invalid_argument on malformed input.
std::vector<std::uint8_t> decode_base64(const std::string& text);

}  // namespace wireseal::cli
