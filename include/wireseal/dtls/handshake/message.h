#pragma once
// The DTLS 1.2 handshake message header (RFC 6347 §4.2.2) and the walk over the handshake
// fragments of one plaintext handshake record. Parsing never copies.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::dtls {

enum class HandshakeType : std::uint8_t {
  kHelloRequest = 0,
  kClientHello = 1,
  kServerHello = 2,
  kHelloVerifyRequest = 3,
  kNewSessionTicket = 4,
  kCertificate = 11,
  kServerKeyExchange = 12,
  kCertificateRequest = 13,
  kServerHelloDone = 14,
  kCertificateVerify = 15,
  kClientKeyExchange = 16,
  kFinished = 20,
};

// handshake_name is "ClientHello", "Finished", ... or "handshake(N)" style "unknown".
const char* handshake_name(std::uint8_t msg_type) noexcept;

inline constexpr std::size_t kHandshakeHeaderSize = 12;

// HandshakeFragment is one DTLS handshake header and the fragment bytes it announces:
// msg_type(1) | length(3) | message_seq(2) | fragment_offset(3) | fragment_length(3).
struct HandshakeFragment {
  std::uint8_t msg_type;
  std::uint32_t length;  // of the whole message
  std::uint16_t message_seq;
  std::uint32_t fragment_offset;
  std::span<const std::uint8_t> body;  // fragment_length bytes
  bool complete() const noexcept { return fragment_offset == 0 && body.size() == length; }
};

// HandshakeReader walks the handshake fragments of one plaintext handshake record body.
// next() returns kMalformed for a truncated header or fragment and kBadState at the end.
class HandshakeReader {
 public:
  explicit HandshakeReader(std::span<const std::uint8_t> record_body) noexcept
      : rest_(record_body) {}
  bool done() const noexcept { return rest_.empty(); }
  Result<HandshakeFragment> next() noexcept;

 private:
  std::span<const std::uint8_t> rest_;
};

// The 32-byte random of ClientHello and ServerHello (RFC 5246 §7.4.1.2).
inline constexpr std::size_t kHelloRandomSize = 32;
using HelloRandom = std::array<std::uint8_t, kHelloRandomSize>;
// Both hellos' session_id<0..32>.
inline constexpr std::size_t kMaxSessionIdSize = 32;

// U16List is a list of 16-bit code points (cipher suites, named groups, signature schemes,
// SRTP profiles) as a codec sees it either way: parsed, a view of the big-endian pairs in the
// message; to be written, a view of the caller's values. Neither copies.
class U16List {
 public:
  constexpr U16List() noexcept = default;
  constexpr U16List(std::span<const std::uint16_t> values) noexcept  // NOLINT: implicit
      : values_(values.data()), size_(values.size()) {}
  template <std::size_t N>
  constexpr U16List(const std::array<std::uint16_t, N>& values) noexcept  // NOLINT: implicit
      : U16List(std::span<const std::uint16_t>(values)) {}
  // from_wire views `pairs` (an even number of bytes) as big-endian 16-bit values.
  static constexpr U16List from_wire(std::span<const std::uint8_t> pairs) noexcept {
    U16List list;
    list.wire_ = pairs.data();
    list.size_ = pairs.size() / 2;
    return list;
  }

  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr std::uint16_t operator[](std::size_t i) const noexcept {
    return wire_ != nullptr
               ? static_cast<std::uint16_t>(std::uint16_t{wire_[2 * i]} << 8 | wire_[2 * i + 1])
               : values_[i];
  }
  constexpr bool contains(std::uint16_t value) const noexcept {
    for (std::size_t i = 0; i < size_; ++i) {
      if ((*this)[i] == value) {
        return true;
      }
    }
    return false;
  }

 private:
  const std::uint8_t* wire_ = nullptr;
  const std::uint16_t* values_ = nullptr;
  std::size_t size_ = 0;
};

// write_handshake_fragment writes one handshake header and the bytes [offset, offset +
// length) of the message `body` (of type `msg_type`, number `message_seq`) into `out`: a whole
// message when offset is 0 and length is body.size(). Returns the bytes written;
// kInvalidArgument if the range is not inside the body or the body exceeds 2^24 - 1 bytes,
// kBufferTooSmall if `out` cannot hold it.
Result<std::size_t> write_handshake_fragment(std::uint8_t msg_type, std::uint16_t message_seq,
                                             std::span<const std::uint8_t> body, std::size_t offset,
                                             std::size_t length,
                                             std::span<std::uint8_t> out) noexcept;

}  // namespace wireseal::dtls
