// `wireseal dtls client --connect HOST:PORT`: one DTLS 1.2 association over a real UDP socket.
// Each line of standard input (with its newline) goes out as one application-data record;
// what the server sends is written to standard output. At the end of input the client waits
// --linger seconds for replies, sends close_notify and exits 0.
#include <fmt/core.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dtls_endpoint_options.h"
#include "wireseal/io/udp.h"

namespace wireseal::cli {
namespace {

constexpr const char* kName = "wireseal dtls client";
constexpr std::chrono::milliseconds kWaitCap(250);  // how soon a stop signal is noticed

struct ClientArgs {
  DtlsEndpointArgs endpoint;
  std::string connect;
  double linger = 1;  // seconds
};

class Client {
 public:
  Client(EndpointSetup setup, const io::UdpAddress& server, io::UdpSocket socket,
         const ClientArgs& args)
      : setup_(std::move(setup)),
        socket_(std::move(socket)),
        association_(setup_.config, server),
        linger_(std::chrono::milliseconds(std::llround(args.linger * 1000.0))) {}

  int run() {
    if (!association_.endpoint.start(Clock::now())) {
      fmt::print(stderr, "{}: cannot start the handshake\n", kName);
      return kExitFailure;
    }
    std::vector<std::uint8_t> datagram(65536);
    for (;;) {
      if (!flush_all() || association_.failed) {
        return report_failure();
      }
      if (association_.closed) {
        fmt::print(stderr, "{}: {} closed the association\n", kName, association_.peer.to_string());
        return 0;
      }
      Clock::time_point now = Clock::now();
      if (stop_requested()) {
        if (!association_.connected) {
          fmt::print(stderr, "{}: interrupted before the handshake completed\n", kName);
          return kExitFailure;
        }
        return close();
      }
      if (linger_until_ && now >= *linger_until_) {
        return close();
      }
      if (association_.deadline && now >= *association_.deadline) {
        static_cast<void>(association_.endpoint.handle_timeout(now));
        continue;
      }
      std::optional<dtls::Instant> deadline = association_.deadline;
      if (linger_until_ && (!deadline || *linger_until_ < *deadline)) {
        deadline = linger_until_;
      }
      const bool read_input = association_.connected && !input_.at_end();
      const Result<io::UdpSocket::Readiness> ready =
          socket_.wait(wait_time(deadline, now, kWaitCap), read_input ? StdinLines::kStdinFd : -1);
      if (!ready) {
        fmt::print(stderr, "{}: poll: {}\n", kName, std::strerror(socket_.last_errno()));
        return kExitFailure;
      }
      if (ready->socket && !receive(datagram)) {
        return kExitFailure;
      }
      if (ready->other && association_.connected) {
        for (const std::string& line : input_.read()) {
          send_line(line);
        }
        if (input_.at_end()) {
          linger_until_ = Clock::now() + linger_;
        }
      }
    }
  }

 private:
  bool flush_all() {
    return flush(association_, socket_, true, [this](Association& a, const dtls::Output& out) {
      switch (out.kind) {
        case dtls::Output::Kind::kConnected:
          print_connected(a, setup_, kName);
          break;
        case dtls::Output::Kind::kApplicationData:
          write_stdout(out.data);
          break;
        default:
          break;
      }
    });
  }

  // receive drains the datagrams queued on the socket, each handed to the endpoint and its
  // output flushed before the buffer is reused.
  bool receive(std::vector<std::uint8_t>& datagram) {
    for (;;) {
      const Result<io::UdpSocket::Received> r = socket_.recv_from(datagram);
      if (!r) {
        if (socket_.last_errno() == ECONNREFUSED) {
          refused_ = true;  // nothing listening yet, perhaps: the handshake retransmits
          continue;
        }
        fmt::print(stderr, "{}: receive: {}\n", kName, std::strerror(socket_.last_errno()));
        return false;
      }
      if (!r->received) {
        return true;
      }
      if (r->truncated) {
        continue;
      }
      association_.last_heard = Clock::now();
      static_cast<void>(association_.endpoint.handle_datagram(association_.last_heard,
                                                              std::span(datagram).first(r->size)));
      if (!flush_all()) {
        return true;  // reported by run()'s next flush
      }
      if (association_.failed || association_.closed) {
        return true;
      }
    }
  }

  void send_line(const std::string& line) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(line.data());
    if (!send_text(association_, socket_, true, std::span(bytes, line.size()))) {
      fmt::print(stderr, "{}: the association no longer takes data\n", kName);
    }
  }

  int close() {
    static_cast<void>(association_.endpoint.close());
    static_cast<void>(flush_all());
    return 0;
  }

  int report_failure() {
    const dtls::Failure& f = association_.endpoint.failure();
    std::string why = describe_failure(f);
    if (f.error == Error::kTimedOut && refused_) {
      why += " (ICMP port unreachable: is a DTLS server listening there?)";
    }
    fmt::print(stderr, "{}: {} with {} failed: {}\n", kName,
               association_.connected ? "association" : "handshake", association_.peer.to_string(),
               why);
    return kExitFailure;
  }

  EndpointSetup setup_;
  io::UdpSocket socket_;
  Association association_;
  std::chrono::milliseconds linger_;
  std::optional<dtls::Instant> linger_until_;
  StdinLines input_;
  bool refused_ = false;
};

int run_client(const ClientArgs& args) {
  const Result<io::HostPort> target = io::parse_host_port(args.connect);
  if (!target || target->host.empty() || target->port == 0) {
    throw UsageError(fmt::format("--connect: '{}' is not HOST:PORT", args.connect));
  }
  EndpointSetup setup = build_endpoint_setup(args.endpoint, dtls::Role::kClient, target->host);
  if (args.endpoint.print_fingerprint) {
    if (setup.own_fingerprint.empty()) {
      fmt::print(stderr, "{}: no certificate (the PSK is the only authentication)\n", kName);
    } else {
      fmt::print(stderr, "fingerprint {}\n", setup.own_fingerprint);
    }
  }
  const std::vector<io::UdpAddress> addresses = io::resolve_udp(target->host, target->port, false);
  io::UdpSocket socket = io::UdpSocket::connect(addresses.front());
  install_stop_handlers();
  Client client(std::move(setup), addresses.front(), std::move(socket), args);
  return client.run();
}

}  // namespace

Run set_up_dtls_client(CLI::App& command) {
  auto args = std::make_shared<ClientArgs>();
  command.add_option("--connect", args->connect, "Server to connect to: HOST:PORT, [IPv6]:PORT")
      ->required();
  add_endpoint_options(command, args->endpoint, dtls::Role::kClient);
  command
      .add_option("--linger", args->linger,
                  "At the end of standard input, wait this many seconds for replies before "
                  "sending close_notify")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  command.footer(
      "Each line of standard input, newline included, is sent as one application-data record "
      "(longer than a datagram: split); received data is written to standard output as is. The "
      "server must be authenticated by --fingerprint, --ca or --psk unless --insecure is given. "
      "SIGINT/SIGTERM: close_notify and exit.\n"
      "Examples:\n"
      "  wireseal dtls client --connect 192.0.2.1:4433 --fingerprint sha-256:AB:CD:...\n"
      "  wireseal dtls client --connect dtls.example:4433 --ca ca.pem --srtp "
      "SRTP_AES128_CM_SHA1_80 --export EXTRACTOR-dtls_srtp:60\n"
      "  echo hi | wireseal dtls client --connect [::1]:4433 --psk 00112233 --psk-identity "
      "me\n" +
      endpoint_options_footer());
  return [args] { return run_command(kName, [&args] { return run_client(*args); }); };
}

}  // namespace wireseal::cli
