#pragma once
// The engine of `wireseal dtls decrypt`: follows the DTLS 1.2 flows of a capture, learns each
// connection's randoms, cipher suite and encrypt-then-MAC from the plaintext hellos, derives
// the epoch-1 keys from the master secret in an NSS key log and opens every record with
// wireseal's RecordOpener. It returns structured results; dtls_command.cc prints them, and the
// interop test checks them directly.
//
// Limits (reported, not guessed around): only unfragmented ClientHello/ServerHello messages
// are parsed; epochs above 1 (renegotiation) and connection IDs are not supported.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dtls_flow.h"
#include "wireseal/dtls/handshake/client_hello.h"
#include "wireseal/dtls/handshake/server_hello.h"
#include "wireseal/dtls/record.h"
#include "wireseal/io/keylog.h"
#include "wireseal/io/pcap.h"
#include "wireseal/result.h"

namespace wireseal::cli {

using dtls::ClientHello;
using dtls::ServerHello;

struct DecryptOptions {
  std::optional<std::uint16_t> port;  // only datagrams from or to this UDP port
};

enum class RecordStatus : std::uint8_t {
  kPlaintext,  // epoch 0: not protected
  kDecrypted,  // epoch 1: authenticated and decrypted
  kFailed,     // epoch >= 1 record that could not be opened (see `error`)
};

struct RecordResult {
  std::size_t frame;  // 1-based frame number in the capture
  std::size_t flow;   // index into DecryptReport::flows
  Peer sender;
  std::uint16_t epoch;
  std::uint64_t sequence;
  dtls::ContentType type;  // the record's content type
  RecordStatus status;
  std::vector<std::uint8_t> plaintext;  // record body (epoch 0) or decrypted plaintext
  std::vector<std::uint8_t> record;     // the protected record as captured (header included)
  std::string summary;  // handshake message names or alert, when the plaintext is known
  std::string error;    // why the record failed (status kFailed)
};

struct FlowResult {
  io::UdpEndpoint client;
  io::UdpEndpoint server;
  std::optional<ClientHello> client_hello;
  std::optional<ServerHello> server_hello;
  bool have_keys = false;
  std::vector<std::string> notes;  // problems with the flow's handshake or keys
};

struct DecryptReport {
  std::vector<FlowResult> flows;
  std::vector<RecordResult> records;  // in capture order
  std::vector<std::string> notes;     // datagrams that did not parse as DTLS
  std::size_t failed = 0;             // protected records (or datagrams) that failed
};

// decrypt_datagrams runs the decryptor over UDP datagrams in capture order.
DecryptReport decrypt_datagrams(std::span<const io::UdpDatagram> datagrams,
                                const io::KeyLog& keylog, const DecryptOptions& options);

// decrypt_capture reads a classic pcap file's bytes and runs decrypt_datagrams on them.
Result<DecryptReport> decrypt_capture(std::span<const std::uint8_t> pcap, const io::KeyLog& keylog,
                                      const DecryptOptions& options);

// content_type_name is "handshake", "application_data", ... for the DTLS content types.
const char* content_type_name(dtls::ContentType type) noexcept;

}  // namespace wireseal::cli
