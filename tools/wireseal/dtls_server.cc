// `wireseal dtls server --listen HOST:PORT`: DTLS 1.2 associations over one real UDP socket,
// one Endpoint per peer address, with a HelloVerifier (stateless cookies, secret rotated
// every minute) in front so that no state exists for an address before it proves it receives
// there. With --cid HEX each association asks for its own random RFC 9146 connection ID as
// long as HEX, and a record from a new address that carries one and authenticates moves its
// association there (NAT rebinding). --echo sends every record back; otherwise received data
// goes to standard output and lines of standard input go to the association when there is
// exactly one.
#include <fmt/core.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dtls_endpoint_options.h"
#include "wireseal/dtls/hello_verifier.h"
#include "wireseal/dtls/record.h"
#include "wireseal/io/udp.h"
#include "wireseal/random.h"

namespace wireseal::cli {
namespace {

constexpr const char* kName = "wireseal dtls server";
constexpr std::chrono::milliseconds kWaitCap(250);  // how soon a stop signal is noticed
constexpr std::chrono::seconds kCookieRotation(60);
constexpr std::size_t kMaxAssociations = 1024;
constexpr std::size_t kMaxDatagramsPerTurn = 256;  // then timers and stdin get their turn

struct ServerArgs {
  DtlsEndpointArgs endpoint;
  std::string listen;
  bool echo = false;
  bool once = false;
  bool no_cookie = false;
  double idle_timeout = 300;  // seconds; 0: never
};

// looks_like_client_hello: the first record is an epoch-0 handshake record whose first
// message is a ClientHello (what the HelloVerifier checks too, when cookies are on).
bool looks_like_client_hello(std::span<const std::uint8_t> d) noexcept {
  constexpr std::size_t kRecordHeader = 13;
  return d.size() > kRecordHeader + 12 && d[0] == 22 && d[3] == 0 && d[4] == 0 &&
         d[kRecordHeader] == 1;
}

// record_cid: the connection ID of the first record of `d` when it is a tls12_cid record
// with a CID `size` bytes long (RFC 9146 §4); empty otherwise.
std::string_view record_cid(std::span<const std::uint8_t> d, std::size_t size) noexcept {
  if (size == 0) {
    return {};
  }
  const Result<dtls::RecordView> r = dtls::parse_record(d, size);
  if (!r || r->type != dtls::ContentType::kTls12Cid) {
    return {};
  }
  return {reinterpret_cast<const char*>(r->cid.data()), r->cid.size()};
}

using Associations = std::unordered_map<io::UdpAddress, std::unique_ptr<Association>>;

class Server {
 public:
  Server(EndpointSetup setup, io::UdpSocket socket, const ServerArgs& args)
      : setup_(std::move(setup)),
        socket_(std::move(socket)),
        args_(args),
        idle_timeout_(std::llround(args.idle_timeout * 1000.0)),
        cid_size_(setup_.config->connection_id ? setup_.config->connection_id->size() : 0) {
    if (!args.no_cookie) {
      std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> secret{};
      system_random()(secret);
      verifier_.emplace(secret);
      rotated_ = Clock::now();
    }
  }

  int run() {
    std::vector<std::uint8_t> datagram(65536);
    for (;;) {
      Clock::time_point now = Clock::now();
      if (stop_requested()) {
        return stop();
      }
      rotate_cookie_secret(now);
      expire(now);
      if (const std::optional<int> done = reap()) {
        return *done;
      }
      std::optional<dtls::Instant> deadline;
      for (const auto& [address, a] : associations_) {
        if (a->deadline && (!deadline || *a->deadline < *deadline)) {
          deadline = a->deadline;
        }
      }
      const bool read_input = !args_.echo && !input_.at_end();
      const Result<io::UdpSocket::Readiness> ready =
          socket_.wait(wait_time(deadline, now, kWaitCap), read_input ? StdinLines::kStdinFd : -1);
      if (!ready) {
        fmt::print(stderr, "{}: poll: {}\n", kName, std::strerror(socket_.last_errno()));
        return kExitFailure;
      }
      if (ready->socket) {
        receive(datagram);
      }
      if (ready->other) {
        for (const std::string& line : input_.read()) {
          send_line(line);
        }
      }
    }
  }

 private:
  void on_output(Association& a, const dtls::Output& out) {
    switch (out.kind) {
      case dtls::Output::Kind::kConnected:
        print_connected(a, setup_, kName);
        break;
      case dtls::Output::Kind::kApplicationData:
        if (args_.echo) {
          static_cast<void>(send_text(a, socket_, false, out.data));
        } else {
          write_stdout(out.data);
        }
        break;
      case dtls::Output::Kind::kClosed:
        fmt::print(stderr, "{}: {} closed the association\n", kName, a.peer.to_string());
        break;
      case dtls::Output::Kind::kFailed:
        fmt::print(stderr, "{}: {} with {} failed: {}\n", kName,
                   a.connected ? "association" : "handshake", a.peer.to_string(),
                   describe_failure(a.endpoint.failure()));
        break;
      default:
        break;
    }
  }

  void flush_one(Association& a) {
    if (!flush(a, socket_, false,
               [this](Association& x, const dtls::Output& out) { on_output(x, out); })) {
      fmt::print(stderr, "{}: {}: internal error in poll_output\n", kName, a.peer.to_string());
    }
  }

  void rotate_cookie_secret(Clock::time_point now) {
    if (verifier_ && now - rotated_ >= kCookieRotation) {
      std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> secret{};
      system_random()(secret);
      verifier_->rotate(secret);
      rotated_ = now;
    }
  }

  // expire runs the timers that are due and closes associations idle for too long.
  void expire(Clock::time_point now) {
    for (auto& [address, a] : associations_) {
      if (a->deadline && now >= *a->deadline) {
        static_cast<void>(a->endpoint.handle_timeout(now));
        flush_one(*a);
      }
      if (idle_timeout_.count() > 0 && a->connected && !a->failed && !a->closed &&
          now - a->last_heard >= idle_timeout_) {
        fmt::print(stderr, "{}: {} sent nothing for {} s: closing the association\n", kName,
                   a->peer.to_string(), idle_timeout_.count() / 1000);
        static_cast<void>(a->endpoint.close());
        flush_one(*a);
        a->failed = true;  // gone without a word: not a clean close
      }
    }
  }

  // reap forgets the associations that ended; with --once the first one to end ends the
  // server: its exit status.
  std::optional<int> reap() {
    std::optional<int> status;
    for (auto it = associations_.begin(); it != associations_.end();) {
      const Association& a = *it->second;
      if (a.failed || a.closed) {
        if (!status) {
          status = a.failed ? kExitFailure : 0;
        }
        by_cid_.erase(cid_key(a));
        it = associations_.erase(it);
      } else {
        ++it;
      }
    }
    return args_.once ? status : std::nullopt;
  }

  void receive(std::vector<std::uint8_t>& datagram) {
    for (std::size_t i = 0; i < kMaxDatagramsPerTurn; ++i) {
      const Result<io::UdpSocket::Received> r = socket_.recv_from(datagram);
      if (!r) {
        // An ICMP error for an earlier send_to: it concerns one peer, not the socket.
        continue;
      }
      if (!r->received) {
        return;
      }
      if (r->truncated) {
        continue;
      }
      const std::span<std::uint8_t> d = std::span(datagram).first(r->size);
      const Clock::time_point now = Clock::now();
      auto found = associations_.find(r->from);
      if (found == associations_.end() && follow_cid(r->from, d, now)) {
        continue;
      }
      if (found == associations_.end()) {
        found = admit(r->from, d, now);
        if (found == associations_.end()) {
          continue;
        }
      }
      Association& a = *found->second;
      a.last_heard = now;
      static_cast<void>(a.endpoint.handle_datagram(now, d));
      flush_one(a);  // before `datagram` is reused: application data points into it
    }
  }

  static std::string cid_key(const Association& a) {
    const std::span<const std::uint8_t> cid = a.endpoint.connection_id();
    return {reinterpret_cast<const char*>(cid.data()), cid.size()};
  }

  // follow_cid handles a datagram from an unknown address that starts with a CID record of
  // an association: the association takes it, and moves to the new address if it
  // authenticated (nothing dropped). False when no association has that CID.
  bool follow_cid(const io::UdpAddress& from, std::span<std::uint8_t> d, Clock::time_point now) {
    const std::string_view cid = record_cid(d, cid_size_);
    const auto owner = cid.empty() ? by_cid_.end() : by_cid_.find(std::string(cid));
    if (owner == by_cid_.end()) {
      return false;
    }
    const auto old = associations_.find(owner->second);
    Association& a = *old->second;
    const std::uint64_t dropped = a.endpoint.stats().drops.total();
    static_cast<void>(a.endpoint.handle_datagram(now, d));
    if (a.endpoint.stats().drops.total() == dropped && a.connected) {
      fmt::print(stderr, "{}: {} moved to {} (connection ID)\n", kName, a.peer.to_string(),
                 from.to_string());
      a.peer = from;
      a.last_heard = now;
      owner->second = from;
      auto node = associations_.extract(old);
      node.key() = from;
      associations_.insert(std::move(node));
    }
    flush_one(a);
    return true;
  }

  // give_cid makes a fresh random connection ID, used by no other association, this one's.
  bool give_cid(Association& a) {
    std::vector<std::uint8_t> cid(cid_size_);
    for (int attempt = 0; attempt < 16; ++attempt) {
      system_random()(cid);
      const std::string key(cid.begin(), cid.end());
      if (by_cid_.find(key) == by_cid_.end() && a.endpoint.use_connection_id(cid)) {
        by_cid_.emplace(key, a.peer);
        return true;
      }
    }
    return false;
  }

  // admit decides whether a datagram from an unknown address starts an association.
  Associations::iterator admit(const io::UdpAddress& from, std::span<const std::uint8_t> d,
                               Clock::time_point now) {
    const auto none = associations_.end();
    if (verifier_) {
      std::array<std::uint8_t, dtls::HelloVerifier::kMaxReplySize> reply{};
      const dtls::HelloVerifier::Outcome outcome = verifier_->check(from.bytes(), d, reply);
      if (outcome.verdict == dtls::HelloVerifier::Verdict::kReply) {
        static_cast<void>(socket_.send_to(from, std::span(reply).first(outcome.size)));
        return none;
      }
      if (outcome.verdict == dtls::HelloVerifier::Verdict::kDrop) {
        return none;
      }
    } else if (!looks_like_client_hello(d)) {
      return none;
    }
    if (associations_.size() >= kMaxAssociations) {
      if (!warned_full_) {
        fmt::print(stderr, "{}: {} associations: new clients are turned away\n", kName,
                   kMaxAssociations);
        warned_full_ = true;
      }
      return none;
    }
    warned_full_ = false;
    auto a = std::make_unique<Association>(setup_.config, from);
    if (cid_size_ > 0 && !give_cid(*a)) {
      return none;
    }
    if (!a->endpoint.start(now)) {
      by_cid_.erase(cid_key(*a));
      return none;
    }
    return associations_.emplace(from, std::move(a)).first;
  }

  void send_line(const std::string& line) {
    Association* target = nullptr;
    std::size_t connected = 0;
    for (auto& [address, a] : associations_) {
      if (a->connected && !a->closed && !a->failed) {
        target = a.get();
        ++connected;
      }
    }
    if (connected != 1) {
      fmt::print(stderr, "{}: {} connected clients: input line not sent\n", kName, connected);
      return;
    }
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(line.data());
    static_cast<void>(send_text(*target, socket_, false, std::span(bytes, line.size())));
  }

  int stop() {
    for (auto& [address, a] : associations_) {
      if (!a->failed && !a->closed) {
        static_cast<void>(a->endpoint.close());
        flush_one(*a);
      }
    }
    fmt::print(stderr, "{}: stopped, {} association(s) closed\n", kName, associations_.size());
    associations_.clear();
    return 0;
  }

  EndpointSetup setup_;
  io::UdpSocket socket_;
  const ServerArgs& args_;
  std::chrono::milliseconds idle_timeout_;
  std::optional<dtls::HelloVerifier> verifier_;
  Clock::time_point rotated_{};
  std::size_t cid_size_;  // the length of each association's CID; 0: found by address only
  Associations associations_;
  std::unordered_map<std::string, io::UdpAddress> by_cid_;  // CID bytes → associations_ key
  StdinLines input_;
  bool warned_full_ = false;
};

int run_server(const ServerArgs& args) {
  const Result<io::HostPort> where = io::parse_host_port(args.listen);
  if (!where) {
    throw UsageError(fmt::format("--listen: '{}' is not HOST:PORT", args.listen));
  }
  EndpointSetup setup = build_endpoint_setup(args.endpoint, dtls::Role::kServer, {});
  const std::vector<io::UdpAddress> addresses = io::resolve_udp(where->host, where->port, true);
  io::UdpSocket socket = io::UdpSocket::bind(addresses.front());
  if (args.endpoint.print_fingerprint) {
    if (setup.own_fingerprint.empty()) {
      fmt::print(stderr, "{}: no certificate (the PSK is the only authentication)\n", kName);
    } else {
      fmt::print(stderr, "fingerprint {}\n", setup.own_fingerprint);
    }
  }
  fmt::print(stderr, "{}: listening on {}{}\n", kName, socket.local_address().to_string(),
             setup.config->allow_unauthenticated_peer ? " (clients need no certificate)" : "");
  std::fflush(stderr);
  install_stop_handlers();
  Server server(std::move(setup), std::move(socket), args);
  return server.run();
}

}  // namespace

Run set_up_dtls_server(CLI::App& command) {
  auto args = std::make_shared<ServerArgs>();
  command
      .add_option("--listen", args->listen,
                  "Address to listen on: HOST:PORT, [IPv6]:PORT, :PORT for every address (port "
                  "0: any free port, printed at start)")
      ->required();
  add_endpoint_options(command, args->endpoint, dtls::Role::kServer);
  command.add_flag("--echo", args->echo, "Send every record back to its sender");
  command.add_flag("--once", args->once,
                   "Exit after the first association ends (status 0 if it closed cleanly)");
  command.add_flag("--no-cookie", args->no_cookie,
                   "Answer ClientHellos without the HelloVerifyRequest cookie exchange");
  command
      .add_option("--idle-timeout", args->idle_timeout,
                  "Close an association that sent nothing for this many seconds (0: never)")
      ->check(CLI::Range(0.0, 31536000.0))
      ->capture_default_str();
  command.footer(
      "Without --fingerprint, --ca or --psk the server accepts clients without certificates "
      "(allow_unauthenticated_peer); with --fingerprint or --ca it requests the client's "
      "certificate and accepts only a matching one; with --psk clients must know the key. "
      "Without --echo, received data goes to standard output and each line of standard input "
      "goes to the client when exactly one is connected. Serves until SIGINT/SIGTERM "
      "(close_notify to every client, exit 0) or, with --once, the first association's end.\n"
      "Examples:\n"
      "  wireseal dtls server --listen 0.0.0.0:4433 --echo --print-fingerprint\n"
      "  wireseal dtls server --listen [::]:4433 --cert server.pem --key server.key "
      "--fingerprint sha-256:AB:CD:... --srtp SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80\n" +
      endpoint_options_footer());
  return [args] { return run_command(kName, [&args] { return run_server(*args); }); };
}

}  // namespace wireseal::cli
