#pragma once
// The handshake-message codec (wireseal/dtls/handshake/) on OpenSSL's own plaintext handshake
// messages: every epoch-0 message of a captured session is reassembled from its fragments,
// parsed, and — where the encoding is fully determined by the fields — written again and
// compared byte for byte with what OpenSSL sent.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "udp_relay.h"
#include "wireseal/crypto/hash.h"
#include "wireseal/dtls/handshake/key_exchange.h"

namespace wireseal::interop {

// PlainMessage is one reassembled plaintext handshake message.
struct PlainMessage {
  bool from_client;
  std::uint8_t type;
  std::uint16_t message_seq;
  std::vector<std::uint8_t> body;
};

struct CodecTally {
  std::size_t messages = 0;    // epoch-0 handshake messages reassembled
  std::size_t parsed = 0;      // of them, parsed by wireseal's codec
  std::size_t rewritable = 0;  // of them, with a canonical encoding
  std::size_t identical = 0;   // of those, written again byte for byte
  std::vector<std::string> failures;
  std::vector<PlainMessage> plain;  // the messages, in the order they completed
};

// check_handshake_codec walks the epoch-0 handshake of `datagrams`. `suite` is the cipher
// suite the ServerHello must carry; `kind` the key exchange its messages use.
CodecTally check_handshake_codec(const std::vector<RelayedDatagram>& datagrams, std::uint16_t suite,
                                 dtls::KeyExchange kind);

// check_finished recomputes both Finished messages with wireseal's Transcript: the plaintext
// messages of `codec` (from the ClientHello that the ServerHello answers), the decrypted
// client Finished between the flights, and `master_secret` from the key log; each must equal
// the verify_data OpenSSL sent (`client_finished`, `server_finished`: whole decrypted
// handshake messages). Returns what did not match (empty: both did).
std::vector<std::string> check_finished(const CodecTally& codec, crypto::HashAlgorithm prf_hash,
                                        std::span<const std::uint8_t, 48> master_secret,
                                        std::span<const std::uint8_t> client_finished,
                                        std::span<const std::uint8_t> server_finished);

// check_psk_master_secret recomputes the master secret of a PSK session from the PSK alone:
// psk_pre_master_secret, then (with `extended`) the RFC 7627 session hash over the transcript
// through ClientKeyExchange, else the two randoms. It must equal the logged one.
std::vector<std::string> check_psk_master_secret(const CodecTally& codec,
                                                 crypto::HashAlgorithm prf_hash, bool extended,
                                                 std::span<const std::uint8_t> psk,
                                                 std::span<const std::uint8_t, 48> logged);

}  // namespace wireseal::interop
