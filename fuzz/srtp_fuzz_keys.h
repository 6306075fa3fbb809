#pragma once
// Fixed SRTP sessions shared by the srtp_unprotect / srtcp_unprotect fuzz targets and their
// corpus generator (srtp_make_corpus.cc), so that seeds are packets the targets authenticate.
//
// The first input byte selects the configuration: profile (10) x MKI (none / 2 keys with a
// 2-byte MKI) x header protection (none / RFC 6904 IDs 1-3 / cryptex).

#include <cstdint>
#include <vector>

#include "wireseal/srtp/session.h"

namespace wireseal::fuzz {

inline constexpr std::size_t kSrtpConfigCount = srtp::kProfileCount * 2 * 3;

struct SrtpConfig {
  srtp::Profile profile;
  bool mki;
  int header_mode;  // 0 none, 1 RFC 6904, 2 cryptex
};

inline SrtpConfig srtp_config(std::uint8_t selector) {
  const std::size_t i = selector % kSrtpConfigCount;
  return {static_cast<srtp::Profile>(i / 6), (i / 3) % 2 == 1, static_cast<int>(i % 3)};
}

// srtp_session builds the deterministic session for `c` (receiver and sender alike).
inline srtp::Session srtp_session(const SrtpConfig& c) {
  const srtp::ProfileInfo& info = srtp::info(c.profile);
  static std::vector<std::uint8_t> bytes(64);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::uint8_t>(i * 29 + 3);
  }
  static const std::uint8_t mki[2][2] = {{0x01, 0x02}, {0x03, 0x04}};
  static const std::uint8_t ids[] = {1, 2, 3};
  std::vector<srtp::MasterKey> keys;
  for (std::size_t k = 0; k < (c.mki ? 2u : 1u); ++k) {
    keys.push_back(
        {{bytes.data() + k, info.master_key_len},
         {bytes.data() + 32 + k, info.master_salt_len},
         c.mki ? std::span<const std::uint8_t>(mki[k], 2) : std::span<const std::uint8_t>{}});
  }
  srtp::SessionConfig config;
  config.profile = c.profile;
  config.keys = keys;
  config.mki_len = c.mki ? 2 : 0;
  config.max_streams = 8;
  if (c.header_mode == 1) {
    config.stream_defaults.encrypted_extension_ids = ids;
  }
  config.stream_defaults.cryptex = c.header_mode == 2;
  return srtp::Session(config);
}

}  // namespace wireseal::fuzz
