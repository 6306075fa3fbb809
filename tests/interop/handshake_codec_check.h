#pragma once
// The handshake-message codec (wireseal/dtls/handshake/) on OpenSSL's own plaintext handshake
// messages: every epoch-0 message of a captured session is reassembled from its fragments,
// parsed, and — where the encoding is fully determined by the fields — written again and
// compared byte for byte with what OpenSSL sent.

#include <cstdint>
#include <string>
#include <vector>

#include "udp_relay.h"
#include "wireseal/dtls/handshake/key_exchange.h"

namespace wireseal::interop {

struct CodecTally {
  std::size_t messages = 0;    // epoch-0 handshake messages reassembled
  std::size_t parsed = 0;      // of them, parsed by wireseal's codec
  std::size_t rewritable = 0;  // of them, with a canonical encoding
  std::size_t identical = 0;   // of those, written again byte for byte
  std::vector<std::string> failures;
  std::vector<std::uint8_t> types_seen;  // message types, in order
};

// check_handshake_codec walks the epoch-0 handshake of `datagrams`. `suite` is the cipher
// suite the ServerHello must carry; `kind` the key exchange its messages use.
CodecTally check_handshake_codec(const std::vector<RelayedDatagram>& datagrams, std::uint16_t suite,
                                 dtls::KeyExchange kind);

}  // namespace wireseal::interop
