#include "srtp_keys.h"

#include <fmt/core.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace wireseal::cli {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

void check_lengths(const SrtpKeyInput& k, srtp::Profile profile, const char* source) {
  const srtp::ProfileInfo& p = srtp::info(profile);
  if (k.key.size() != p.master_key_len || k.salt.size() != p.master_salt_len) {
    throw std::invalid_argument(
        fmt::format("{}: {} needs a {}-byte master key and a {}-byte salt, got {} and {}", source,
                    p.name, p.master_key_len, p.master_salt_len, k.key.size(), k.salt.size()));
  }
}

std::vector<std::uint8_t> decode_hex(const std::string& text, const char* what) {
  std::string digits;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0 && c != ':') {
      digits += c;
    }
  }
  if (digits.size() % 2 != 0) {
    throw std::invalid_argument(fmt::format("{}: odd number of hex digits", what));
  }
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < digits.size(); i += 2) {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
      v = std::stoul(digits.substr(i, 2), &used, 16);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != 2) {
      throw std::invalid_argument(fmt::format("{}: '{}' is not hex", what, digits.substr(i, 2)));
    }
    out.push_back(static_cast<std::uint8_t>(v));
  }
  return out;
}

// parse_mki reads "<value>:<length>" (RFC 4568 §6.1: decimal MKI value, length 1..128 bytes).
std::vector<std::uint8_t> parse_mki(const std::string& field) {
  const std::size_t colon = field.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == field.size()) {
    throw std::invalid_argument(fmt::format("SDES: MKI '{}' is not <value>:<length>", field));
  }
  unsigned long long value = 0;
  unsigned long length = 0;
  try {
    std::size_t used = 0;
    value = std::stoull(field.substr(0, colon), &used, 10);
    if (used != colon) {
      throw std::invalid_argument("");
    }
    length = std::stoul(field.substr(colon + 1), &used, 10);
    if (used != field.size() - colon - 1) {
      throw std::invalid_argument("");
    }
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format("SDES: MKI '{}' is not <value>:<length>", field));
  }
  if (length == 0 || length > 128 || (length < 8 && value >> (8 * length) != 0)) {
    throw std::invalid_argument(
        fmt::format("SDES: MKI value {} does not fit {} bytes", value, length));
  }
  std::vector<std::uint8_t> mki(length, 0);
  for (std::size_t i = 0; i < length && i < 8; ++i) {
    mki[length - 1 - i] = static_cast<std::uint8_t>(value >> (8 * i));
  }
  return mki;
}

// check_lifetime accepts RFC 4568's "2^n" or a decimal packet count.
void check_lifetime(const std::string& field) {
  const std::string digits = field.rfind("2^", 0) == 0 ? field.substr(2) : field;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    throw std::invalid_argument(fmt::format("SDES: lifetime '{}' is not 2^n or a number", field));
  }
}

}  // namespace

std::vector<std::uint8_t> decode_base64(const std::string& text) {
  if (text.empty() || text.size() % 4 != 0) {
    throw std::invalid_argument("SDES: base64 length is not a multiple of 4");
  }
  std::vector<std::uint8_t> out(text.size() / 4 * 3);
  // EVP_DecodeBlock decodes whole 4-character groups and counts '=' padding as zero bytes, so
  // the padding is taken off its length here.
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) {
    throw std::invalid_argument("SDES: malformed base64");
  }
  std::size_t pad = 0;
  for (std::size_t i = text.size(); i-- > 0 && text[i] == '=' && pad < 2;) {
    ++pad;
  }
  if (text.find('=') < text.size() - pad) {
    throw std::invalid_argument("SDES: '=' inside base64");
  }
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

SrtpKeyInput parse_sdes_inline(const std::string& text, srtp::Profile profile) {
  constexpr std::string_view kPrefix = "inline:";
  if (text.compare(0, kPrefix.size(), kPrefix) != 0) {
    throw std::invalid_argument("SDES: the key parameter must start with 'inline:'");
  }
  std::vector<std::string> fields;
  std::size_t start = kPrefix.size();
  while (true) {
    const std::size_t bar = text.find('|', start);
    fields.push_back(text.substr(start, bar == std::string::npos ? bar : bar - start));
    if (bar == std::string::npos) {
      break;
    }
    start = bar + 1;
  }
  if (fields.size() > 3) {
    throw std::invalid_argument("SDES: more than key|lifetime|MKI:length");
  }
  const std::vector<std::uint8_t> key_salt = decode_base64(fields[0]);
  const srtp::ProfileInfo& p = srtp::info(profile);
  if (key_salt.size() != p.master_key_len + p.master_salt_len) {
    throw std::invalid_argument(fmt::format(
        "SDES: the inline key decodes to {} bytes; {} needs {} (key {} + salt {})", key_salt.size(),
        p.name, p.master_key_len + p.master_salt_len, p.master_key_len, p.master_salt_len));
  }
  SrtpKeyInput k;
  k.key.assign(key_salt.begin(), key_salt.begin() + static_cast<std::ptrdiff_t>(p.master_key_len));
  k.salt.assign(key_salt.begin() + static_cast<std::ptrdiff_t>(p.master_key_len), key_salt.end());
  // With two optional fields, one field is the MKI if it has a ':' (RFC 4568 §6.1).
  for (std::size_t i = 1; i < fields.size(); ++i) {
    if (fields[i].find(':') != std::string::npos) {
      k.mki = parse_mki(fields[i]);
    } else if (i == 1) {
      check_lifetime(fields[i]);
    } else {
      throw std::invalid_argument(fmt::format("SDES: '{}' is not <mki>:<length>", fields[i]));
    }
  }
  check_lengths(k, profile, "SDES");
  return k;
}

SrtpKeyInput parse_hex_keys(const std::string& key_hex, const std::string& salt_hex,
                            srtp::Profile profile) {
  SrtpKeyInput k;
  k.key = decode_hex(key_hex, "--key");
  k.salt = decode_hex(salt_hex, "--salt");
  check_lengths(k, profile, "--key/--salt");
  return k;
}

srtp::Profile profile_from_name(const std::string& name) {
  std::string want = upper(name);
  if (want.rfind("SRTP_", 0) == 0) {
    want = want.substr(5);  // DTLS-SRTP spelling
  }
  std::string known;
  for (std::size_t i = 0; i < srtp::kProfileCount; ++i) {
    const srtp::ProfileInfo& p = srtp::info(static_cast<srtp::Profile>(i));
    std::string dtls = p.name;
    if (dtls.rfind("AES_CM_128", 0) == 0) {
      dtls = "AES128_CM" + dtls.substr(10);  // SRTP_AES128_CM_HMAC_SHA1_80
    }
    if (want == p.name || want == dtls) {
      return p.profile;
    }
    known += (known.empty() ? "" : ", ") + std::string(p.name);
  }
  throw std::invalid_argument(fmt::format("unknown SRTP profile '{}' (known: {})", name, known));
}

}  // namespace wireseal::cli
