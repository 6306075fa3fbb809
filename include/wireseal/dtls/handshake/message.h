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

}  // namespace wireseal::dtls
