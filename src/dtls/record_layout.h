#pragma once
// The sizes of a DTLS 1.2 record's parts, shared by RecordSealer and RecordOpener.
#include <cstddef>
#include <cstdint>

#include "common/bytes.h"
#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_cipher.h"

namespace wireseal::dtls::detail {

inline constexpr std::size_t kMaxPlaintext = 16384;  // RFC 6347 §4.1 / RFC 5246 §6.2.1
inline constexpr std::size_t kCbcIvSize = 16;

inline std::uint64_t epoch_seq(std::uint16_t epoch, std::uint64_t sequence) noexcept {
  return std::uint64_t{epoch} << 48 | sequence;
}

// Layout is the sizes of a record's parts for an inner plaintext of `n` bytes (after any CID
// framing).
struct Layout {
  std::size_t header;  // record header
  std::size_t prefix;  // explicit nonce or CBC IV
  std::size_t body;    // encrypted bytes (AEAD: n; CBC MtE: n + MAC + padding; ...)
  std::size_t suffix;  // AEAD tag, or the MAC of EtM and NULL records
  std::size_t fragment() const noexcept { return prefix + body + suffix; }
  std::size_t total() const noexcept { return header + fragment(); }
};

inline Layout layout(const RecordCipherInfo& c, bool etm, std::size_t cid_len,
                     std::size_t n) noexcept {
  Layout l{header_size(cid_len), c.explicit_nonce_len, n, 0};
  switch (c.kind) {
    case CipherKind::kAead:
      l.suffix = c.tag_len;
      break;
    case CipherKind::kCbc:
      if (etm) {
        l.body = n + (16 - n % 16);
        l.suffix = c.tag_len;
      } else {
        l.body = n + c.tag_len + (16 - (n + c.tag_len) % 16);
      }
      break;
    case CipherKind::kNull:
      l.suffix = c.tag_len;
      break;
  }
  return l;
}

// write_header_without_cid writes the 13-byte header of a record without a connection ID:
// type | version | epoch|sequence (8) | length. write_header() is the general form.
inline void write_header_without_cid(ContentType type, std::uint16_t version,
                                     std::uint64_t epoch_seq, std::uint16_t length,
                                     std::uint8_t* out) noexcept {
  out[0] = static_cast<std::uint8_t>(type);
  store_be16(out + 1, version);
  store_be64(out + 3, epoch_seq);
  store_be16(out + 11, length);
}

// aad_without_cid writes RFC 5246 §6.2.3.3's 13-byte additional data (the MAC pseudo-header
// of CBC and NULL records too): seq_num | type | version | length. build_aad() is the
// general form, with the RFC 9146 CID variant.
inline void aad_without_cid(std::uint64_t epoch_seq, ContentType type, std::uint16_t version,
                            std::uint16_t length, std::uint8_t* out) noexcept {
  store_be64(out, epoch_seq);
  out[8] = static_cast<std::uint8_t>(type);
  store_be16(out + 9, version);
  store_be16(out + 11, length);
}

}  // namespace wireseal::dtls::detail
