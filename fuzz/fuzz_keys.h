#pragma once
// Fixed keys shared by the fuzz targets and their corpus generator, so that seed inputs are
// valid records the targets can open (and mutations start from deep inside the open path).

#include <cstdint>
#include <vector>

#include "wireseal/dtls/record_opener.h"
#include "wireseal/dtls/record_sealer.h"

namespace wireseal::fuzz {

// dtls_config_count is the number of (cipher, encrypt-then-MAC, CID) combinations the DTLS
// target selects from with its first input byte.
inline constexpr std::size_t kDtlsConfigCount = 14 * 2 * 2;

struct DtlsConfig {
  dtls::RecordCipher cipher;
  bool encrypt_then_mac;
  std::size_t cid_len;
};

inline DtlsConfig dtls_config(std::uint8_t selector) {
  const std::size_t i = selector % kDtlsConfigCount;
  const auto cipher = static_cast<dtls::RecordCipher>(i / 4);
  const bool cbc = dtls::info(cipher).kind == dtls::CipherKind::kCbc;
  return {cipher, cbc && (i & 1) != 0, (i & 2) != 0 ? 4u : 0u};
}

// dtls_key_block returns a deterministic key block for `cipher`.
inline dtls::KeyBlock dtls_key_block(dtls::RecordCipher cipher) {
  std::vector<std::uint8_t> bytes(dtls::KeyBlock::size(cipher));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::uint8_t>(i * 31 + 7);
  }
  return *dtls::KeyBlock::from_bytes(cipher, bytes);
}

inline dtls::RecordSealerOptions dtls_options(const DtlsConfig& c) {
  dtls::RecordSealerOptions o;
  o.encrypt_then_mac = c.encrypt_then_mac;
  const std::uint8_t cid[4] = {0xc1, 0xd2, 0xe3, 0xf4};
  o.cid = dtls::ConnectionId({cid, c.cid_len});
  return o;
}

}  // namespace wireseal::fuzz
