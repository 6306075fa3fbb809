#pragma once
// Hello extensions (RFC 5246 §7.4.1.4) that a DTLS 1.2 endpoint acts on, in ClientHello and
// ServerHello alike: parsed as views into the message, written from the same struct. Unknown
// extensions are skipped when parsing; a known one appearing twice is malformed. The codec
// checks syntax only — which extension may appear in which hello, and what a reply must
// echo, is the handshake engine's business.

#include <cstdint>
#include <span>

#include "wireseal/dtls/handshake/message.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

enum class ExtensionType : std::uint16_t {
  kServerName = 0,              // RFC 6066 §3
  kSupportedGroups = 10,        // RFC 8422 §5.1.1 (was elliptic_curves)
  kEcPointFormats = 11,         // RFC 8422 §5.1.2
  kSignatureAlgorithms = 13,    // RFC 5246 §7.4.1.4.1
  kUseSrtp = 14,                // RFC 5764 §4.1.1
  kAlpn = 16,                   // RFC 7301
  kEncryptThenMac = 22,         // RFC 7366
  kExtendedMasterSecret = 23,   // RFC 7627
  kSessionTicket = 35,          // RFC 5077
  kSupportedVersions = 43,      // RFC 8446 §4.2.1, RFC 9147 §5.3 (read only: never sent)
  kConnectionId = 54,           // RFC 9146
  kRenegotiationInfo = 0xff01,  // RFC 5746
};

// HelloExtensions: every field is "absent" by default. Spans view the message (parsed) or the
// caller's bytes (to write).
struct HelloExtensions {
  // server_name: a ClientHello carries one host_name; a ServerHello acknowledges with an empty
  // extension (has_server_name with an empty host_name).
  bool has_server_name = false;
  std::span<const std::uint8_t> host_name;
  U16List supported_groups;                        // empty: absent
  std::span<const std::uint8_t> ec_point_formats;  // empty: absent
  U16List signature_algorithms;                    // empty: absent
  // use_srtp: the offered (or, from a server, the one chosen) profiles and the MKI.
  bool has_use_srtp = false;
  U16List srtp_profiles;
  std::span<const std::uint8_t> srtp_mki;
  // alpn: the ProtocolNameList's contents as on the wire, each name a 1-byte length and its
  // bytes (non-empty names); empty: absent.
  std::span<const std::uint8_t> alpn_protocols;
  bool encrypt_then_mac = false;
  bool extended_master_secret = false;
  bool has_session_ticket = false;
  std::span<const std::uint8_t> session_ticket;  // may be empty (a request for a ticket)
  bool has_connection_id = false;
  std::span<const std::uint8_t>
      connection_id;  // the CID the sender wants to receive (may be empty)
  bool has_renegotiation_info = false;
  std::span<const std::uint8_t> renegotiated_connection;  // empty on an initial handshake
  // supported_versions, as a DTLS 1.3 peer sends it: the extension's body, unparsed (a
  // ClientHello's version list, a ServerHello's selected version).
  bool has_supported_versions = false;
  std::span<const std::uint8_t> supported_versions;
};

// parse_hello_extensions reads the contents of a hello's extensions vector (the bytes after
// its 2-byte length). kMalformed for a truncated extension, bad inner syntax, any extension
// twice (RFC 5246 §7.4.1.4; at most 128 of types this code does not know), or bytes left
// over.
Result<HelloExtensions> parse_hello_extensions(std::span<const std::uint8_t> block) noexcept;

// write_hello_extensions writes the extensions vector (with its 2-byte length) of every field
// that is present. kInvalidArgument for a field that cannot be encoded (an SRTP offer with no
// profile, an over-long name), kBufferTooSmall if `out` is short.
Result<std::size_t> write_hello_extensions(const HelloExtensions& extensions,
                                           std::span<std::uint8_t> out) noexcept;

// alpn_lists_name: `name` is one of the protocols of the wire-form list `list`.
bool alpn_lists_name(std::span<const std::uint8_t> list,
                     std::span<const std::uint8_t> name) noexcept;

// AlpnWalker yields the protocol names of an alpn_protocols list that parsed (or that the
// caller built in wire form).
class AlpnWalker {
 public:
  explicit AlpnWalker(std::span<const std::uint8_t> list) noexcept : rest_(list) {}
  // next sets `name` to the next protocol; false at the end or at a malformed entry.
  bool next(std::span<const std::uint8_t>& name) noexcept;

 private:
  std::span<const std::uint8_t> rest_;
};

}  // namespace wireseal::dtls
