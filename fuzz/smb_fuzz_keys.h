#pragma once
// Fixed keys and session of the SMB fuzz targets, shared with the corpus generator so the
// seeds it seals authenticate and fuzzing starts past the tag check.
#include <array>
#include <cstdint>

#include "wireseal/smb/transform.h"

namespace wireseal::fuzz {

inline constexpr std::uint64_t kSmbSessionId = 0x100000000025;
inline constexpr smb::Cipher kSmbCiphers[] = {smb::Cipher::kAes128Ccm, smb::Cipher::kAes128Gcm,
                                              smb::Cipher::kAes256Ccm, smb::Cipher::kAes256Gcm};

// smb_key returns the fixed key for `cipher` (its first info(cipher).key_len bytes are used).
inline std::array<std::uint8_t, 32> smb_key() {
  std::array<std::uint8_t, 32> k{};
  for (std::size_t i = 0; i < k.size(); ++i) {
    k[i] = static_cast<std::uint8_t>(0xA0 + i);
  }
  return k;
}

}  // namespace wireseal::fuzz
