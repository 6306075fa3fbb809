#pragma once
// An independent builder of DTLS 1.2 CBC MAC-then-encrypt records (OpenSSL HMAC and AES-CBC
// only, no wireseal code), with any legal padding length and deliberate damage: the oracle of
// the MtE unit tests and of the constant-time validation.

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "wireseal/dtls/key_block.h"
#include "wireseal/dtls/record_cipher.h"

namespace wireseal::test {

// MteDamage says what to spoil in a built record.
enum class MteDamage {
  kNone,
  kPaddingByte,     // one padding byte (never the length byte) differs: valid MAC, bad padding
  kMac,             // one MAC byte differs: bad MAC, valid padding
  kBoth,            // both of the above
  kPaddingTooLong,  // the last 256 bytes (or all) say 255: padding longer than the record holds
};

struct MteRecordSpec {
  dtls::RecordCipher cipher;
  dtls::DirectionKeys keys;
  std::span<const std::uint8_t> cid;  // RFC 9146 form when not empty
  std::uint16_t epoch = 1;
  std::uint64_t sequence = 0;
};

// build_mte_record returns the record (header, IV, ciphertext) carrying `content` as
// application data, with pad + 1 padding bytes; the plaintext before padding must make the
// total a multiple of 16 (mte_content_length finds such lengths).
std::vector<std::uint8_t> build_mte_record(const MteRecordSpec& spec,
                                           std::span<const std::uint8_t> content, std::size_t pad,
                                           MteDamage damage, std::mt19937_64& rng);

// mte_content_length is a content length (plus 16 * extra_blocks) whose record needs exactly
// pad + 1 padding bytes.
std::size_t mte_content_length(dtls::RecordCipher cipher, bool with_cid, std::size_t pad,
                               std::size_t extra_blocks);

}  // namespace wireseal::test
