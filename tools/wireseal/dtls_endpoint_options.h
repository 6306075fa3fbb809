#pragma once
// What `wireseal dtls server` and `wireseal dtls client` share: the options both take, the
// dtls::EndpointConfig built from them, and the pieces of both event loops (an Endpoint's
// output sent over a UDP socket, the handshake report, standard input as lines, SIGINT and
// SIGTERM as a request to close).
//
// Output convention of both commands: standard output carries only the application data the
// peer sent; everything else (listening address, our fingerprint, the handshake report with
// exports and SRTP keys, errors) is one line each on standard error.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "subcommand.h"
#include "wireseal/dtls/endpoint.h"
#include "wireseal/io/udp.h"

namespace wireseal::cli {

// The two subcommands (dtls_server.cc, dtls_client.cc), registered by dtls_command.cc.
Run set_up_dtls_server(CLI::App& command);
Run set_up_dtls_client(CLI::App& command);

inline constexpr int kExitFailure = 1;  // the handshake or the association failed
inline constexpr int kExitUsage = 2;    // an option cannot work (or is not supported yet)

// UsageError is an option that cannot work: the command prints it and exits with kExitUsage.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The options both commands take.
struct DtlsEndpointArgs {
  std::string cert;
  std::string key;
  std::vector<std::string> fingerprints;
  bool print_fingerprint = false;
  std::string ca;
  std::string server_name;  // client only
  std::string psk;          // hex
  std::string psk_identity;
  std::string psk_hint;  // server only
  std::string ciphers;
  std::string groups;
  std::string srtp;
  std::size_t mtu = 1200;
  double handshake_timeout = 30;  // seconds
  std::vector<std::string> exports;
  bool insecure = false;
  // Accepted so that nobody believes they work: the engine has neither yet.
  std::string keylog;
  std::string cid;
  CLI::Option* cid_option = nullptr;
};

// add_endpoint_options adds the shared options to `command`, worded for `role`.
void add_endpoint_options(CLI::App& command, DtlsEndpointArgs& args, dtls::Role role);

// endpoint_options_footer is the part of --help that lists the names --ciphers, --groups and
// --srtp take.
std::string endpoint_options_footer();

// One --export LABEL:LENGTH[:CONTEXT_HEX].
struct ExportRequest {
  std::string label;
  std::size_t length = 0;
  bool has_context = false;  // "LABEL:32:" is an empty context, which differs from none
  std::vector<std::uint8_t> context;
};

// EndpointSetup is what a command needs from its options to run associations.
struct EndpointSetup {
  std::shared_ptr<const dtls::EndpointConfig> config;
  std::vector<ExportRequest> exports;
  std::string own_fingerprint;        // format_fingerprint of our certificate; empty without one
  std::shared_ptr<std::FILE> keylog;  // --keylog's file, which config->keylog writes to
};

// build_endpoint_setup checks the options and turns them into a configuration: it throws
// UsageError naming the option at fault (unsupported ones included), loads the PEM files and
// generates an ECDSA P-256 self-signed certificate when --cert is not given (unless the only
// authentication is a PSK). `connect_host` is the client's --connect host: it becomes the
// server name checked against --ca when --server-name is not given.
EndpointSetup build_endpoint_setup(const DtlsEndpointArgs& args, dtls::Role role,
                                   const std::string& connect_host);

// run_command runs `body`, turning UsageError into kExitUsage and any other exception into
// kExitFailure, each with one line on stderr prefixed by `name` ("wireseal dtls client").
int run_command(const char* name, const std::function<int()>& body);

// --- the event loops

using Clock = std::chrono::steady_clock;

// Association is one Endpoint and the address of its peer.
struct Association {
  Association(std::shared_ptr<const dtls::EndpointConfig> config, const io::UdpAddress& peer);

  dtls::Endpoint endpoint;
  io::UdpAddress peer;
  std::vector<std::uint8_t> output;  // poll_output's buffer (max_datagram_size())
  std::vector<std::uint8_t> record;  // send()'s buffer
  std::optional<dtls::Instant> deadline;
  dtls::Instant last_heard{};
  std::size_t max_plaintext = 0;  // the longest record plaintext that fits in the MTU
  bool connected = false;
  bool closed = false;  // the peer sent close_notify
  bool failed = false;
};

// What flush reports besides datagrams, which it sends itself.
using OutputHandler = std::function<void(Association&, const dtls::Output&)>;

// flush calls poll_output until it says wait (kTimeout, kIdle), sending each datagram to the
// peer (`connected_socket`: with send(), else send_to()), keeping the deadline and the
// connected/closed/failed flags, and handing every other output to `handler`. Application
// data views point into the datagram given to handle_datagram: call this before reusing it.
// false when poll_output itself failed (an internal error; the association is then failed).
bool flush(Association& a, io::UdpSocket& socket, bool connected_socket,
           const OutputHandler& handler);

// send_text sends `text` as application data, one record per max_plaintext bytes (a line
// normally fits one). false when the endpoint refused it (not connected or closing).
bool send_text(Association& a, io::UdpSocket& socket, bool connected_socket,
               std::span<const std::uint8_t> text);

// print_connected writes the handshake report on stderr: the connected line, then per
// --export "export LABEL HEX" and, with use_srtp negotiated, "srtp-profile NAME" and
// "srtp-keying-material HEX" (hex in uppercase).
void print_connected(const Association& a, const EndpointSetup& setup, const char* name);

// describe_failure names why an association ended: the engine's reason and the alert (which
// side sent it).
std::string describe_failure(const dtls::Failure& failure);

// wait_time is how long to block before `deadline` (at least 1 ms so an expired deadline
// handled already cannot spin, at most `cap` so a signal's flag is seen soon).
std::chrono::milliseconds wait_time(std::optional<dtls::Instant> deadline, dtls::Instant now,
                                    std::chrono::milliseconds cap);

// StdinLines reads standard input without blocking past what is there: call read() when it
// is readable (UdpSocket::wait with kStdinFd).
class StdinLines {
 public:
  static constexpr int kStdinFd = 0;
  // read returns the complete lines now available, each with its '\n'; at the end of input
  // the unterminated rest, if any, as a last line.
  std::vector<std::string> read();
  bool at_end() const noexcept { return at_end_; }

 private:
  std::string partial_;
  bool at_end_ = false;
};

// write_stdout writes application data to standard output and flushes it.
void write_stdout(std::span<const std::uint8_t> data);

// install_stop_handlers makes SIGINT and SIGTERM set a flag instead of ending the process;
// stop_requested reads it.
void install_stop_handlers();
bool stop_requested() noexcept;

}  // namespace wireseal::cli
