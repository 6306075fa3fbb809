#pragma once
// The few DTLS 1.2 handshake messages a passive decryptor needs (RFC 6347 §4.2.2, RFC 5246
// §7.4.1): the handshake message header, and the randoms, cipher suite and record-relevant
// extensions of ClientHello and ServerHello. Parsing never copies.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::cli {

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

inline constexpr std::size_t kHelloRandomSize = 32;
using HelloRandom = std::array<std::uint8_t, kHelloRandomSize>;

struct ClientHello {
  std::uint16_t version;
  HelloRandom random;
};

struct ServerHello {
  std::uint16_t version;
  HelloRandom random;
  std::uint16_t cipher_suite;
  bool encrypt_then_mac;        // extension 22 echoed (RFC 7366): CBC records are EtM
  bool extended_master_secret;  // extension 23 echoed (RFC 7627)
};

// parse_client_hello and parse_server_hello read a complete message body (the bytes after
// the 12-byte handshake header). kMalformed if any length runs past the body.
Result<ClientHello> parse_client_hello(std::span<const std::uint8_t> body) noexcept;
Result<ServerHello> parse_server_hello(std::span<const std::uint8_t> body) noexcept;

}  // namespace wireseal::cli
