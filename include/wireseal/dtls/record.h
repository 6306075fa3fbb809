#pragma once
// DTLS 1.2 record header codec (RFC 6347 §4.1) and the RFC 9146 connection-ID form.
//
//   DTLSPlaintext / DTLSCiphertext header (13 bytes):
//     type(1) | version(2) | epoch(2) | sequence_number(6) | length(2) | fragment(length)
//   RFC 9146 CID form (type = tls12_cid = 25):
//     type(1) | version(2) | epoch(2) | sequence_number(6) | cid(cid_len) | length(2) | fragment
//
// Parsing never copies: a RecordView points into the caller's datagram. A datagram may carry
// several records back to back; DatagramReader yields them one by one.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

enum class ContentType : std::uint8_t {
  kChangeCipherSpec = 20,
  kAlert = 21,
  kHandshake = 22,
  kApplicationData = 23,
  kHeartbeat = 24,
  kTls12Cid = 25,  // RFC 9146: the outer type of records that carry a connection ID
};

inline constexpr std::uint16_t kDtls12Version = 0xfefd;
inline constexpr std::uint16_t kDtls10Version = 0xfeff;  // allowed on the first ClientHello
inline constexpr std::size_t kHeaderSize = 13;
inline constexpr std::size_t kMaxCidLength = 255;
inline constexpr std::uint64_t kMaxSequence = (std::uint64_t{1} << 48) - 1;
// RFC 6347 §4.1: the length field must not exceed 2^14 + 2048 for ciphertext records.
inline constexpr std::size_t kMaxFragmentLength = 16384 + 2048;

// header_size is the record header length for a connection ID of `cid_len` bytes (0: none).
constexpr std::size_t header_size(std::size_t cid_len) noexcept {
  return cid_len == 0 ? kHeaderSize : kHeaderSize + cid_len;
}

// ConnectionId is a CID of 0..255 bytes kept by value (RFC 9146).
class ConnectionId {
 public:
  ConnectionId() noexcept = default;
  // ConnectionId copies `bytes` (at most 255; longer throws std::invalid_argument).
  explicit ConnectionId(std::span<const std::uint8_t> bytes);
  std::span<const std::uint8_t> bytes() const noexcept { return {bytes_.data(), len_}; }
  std::size_t size() const noexcept { return len_; }
  bool empty() const noexcept { return len_ == 0; }

 private:
  std::array<std::uint8_t, kMaxCidLength> bytes_{};
  std::size_t len_ = 0;
};

struct RecordView {
  ContentType type;  // outer type (kTls12Cid for CID records)
  std::uint16_t version;
  std::uint16_t epoch;
  std::uint64_t sequence;                  // 48 bits
  std::span<const std::uint8_t> cid;       // empty unless type == kTls12Cid
  std::span<const std::uint8_t> header;    // the header bytes (the AEAD's AAD is built from them)
  std::span<const std::uint8_t> fragment;  // `length` bytes after the header
  std::span<const std::uint8_t> record;    // header + fragment
};

// parse_record reads one record at the start of `bytes`. Records of type tls12_cid carry a
// `cid_len`-byte connection ID (the receiver knows the length it asked for). Returns
// kMalformed if the header is truncated, the length runs past `bytes`, or the length exceeds
// kMaxFragmentLength.
Result<RecordView> parse_record(std::span<const std::uint8_t> bytes,
                                std::size_t cid_len = 0) noexcept;

// DatagramReader walks the records of one datagram. next() returns kMalformed for a bad
// record (RFC 6347 §4.1.2.7: the rest of the datagram is then dropped) and kBadState at the end.
class DatagramReader {
 public:
  explicit DatagramReader(std::span<const std::uint8_t> datagram, std::size_t cid_len = 0) noexcept
      : rest_(datagram), cid_len_(cid_len) {}
  bool done() const noexcept { return rest_.empty(); }
  Result<RecordView> next() noexcept;

 private:
  std::span<const std::uint8_t> rest_;
  std::size_t cid_len_;
};

// write_header writes a record header into out[0, header_size(cid.size())). `length` is the
// fragment length. The type written is kTls12Cid when `cid` is non-empty.
void write_header(ContentType type, std::uint16_t version, std::uint16_t epoch,
                  std::uint64_t sequence, std::span<const std::uint8_t> cid, std::uint16_t length,
                  std::uint8_t* out) noexcept;

}  // namespace wireseal::dtls
