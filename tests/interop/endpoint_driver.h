// What the dtls::Endpoint interop tests share: a UDP socket on 127.0.0.1, a driver that runs
// an Endpoint over it on the real clock, and a fixture with a temporary directory for the
// peer's certificate, key and logs.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "udp_peer.h"
#include "udp_relay.h"
#include "wireseal/crypto/certificate.h"
#include "wireseal/dtls/endpoint.h"
#include "wireseal/dtls/hello_verifier.h"

namespace wireseal::interop {

using dtls::Endpoint;
using dtls::EndpointConfig;
using dtls::Output;
using std::chrono::milliseconds;

inline constexpr const char* kExportLabel = "EXPERIMENTAL-wireseal";
inline constexpr std::size_t kExportLength = 32;

inline std::string hex(std::span<const std::uint8_t> bytes) {
  std::string out;
  char two[3];
  for (std::uint8_t b : bytes) {
    std::snprintf(two, sizeof two, "%02X", b);
    out += two;
  }
  return out;
}

// A UDP socket on 127.0.0.1 with the peer fixed once known.
class Udp {
 public:
  explicit Udp(std::uint16_t port = 0) : fd_(::socket(AF_INET, SOCK_DGRAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~Udp() { ::close(fd_); }
  Udp(const Udp&) = delete;
  Udp& operator=(const Udp&) = delete;
  std::uint16_t port() const { return port_; }
  // forget_peer lets the next datagram's sender become the peer (a server's next client).
  void forget_peer() { has_peer_ = false; }
  void connect_to(std::uint16_t port) {
    peer_.sin_family = AF_INET;
    peer_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    peer_.sin_port = htons(port);
    has_peer_ = true;
  }
  void send(std::span<const std::uint8_t> d) {
    ASSERT_TRUE(has_peer_);
    ::sendto(fd_, d.data(), d.size(), 0, reinterpret_cast<const sockaddr*>(&peer_), sizeof peer_);
  }
  // receive waits up to `wait` for one datagram; a server learns its peer from the first.
  std::optional<std::size_t> receive(std::span<std::uint8_t> out, milliseconds wait) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) {
      return std::nullopt;
    }
    sockaddr_in from{};
    socklen_t len = sizeof from;
    const ssize_t n =
        ::recvfrom(fd_, out.data(), out.size(), 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) {
      return std::nullopt;
    }
    if (!has_peer_) {
      peer_ = from;
      has_peer_ = true;
    }
    return static_cast<std::size_t>(n);
  }

 private:
  int fd_;
  std::uint16_t port_ = 0;
  sockaddr_in peer_{};
  bool has_peer_ = false;
};

// Drives an Endpoint over a Udp socket with the real clock.
class Driver {
 public:
  Driver(std::shared_ptr<const EndpointConfig> config, Udp& udp) : endpoint_(config), udp_(&udp) {}
  Endpoint& endpoint() { return endpoint_; }
  // use_cookies puts a HelloVerifier in front of a server, as `wireseal dtls server` has by
  // default: hellos reach the endpoint only with a valid cookie (RFC 6347 §4.2.1).
  void use_cookies() {
    std::array<std::uint8_t, dtls::HelloVerifier::kSecretSize> secret{};
    secret.fill(0x42);
    verifier_.emplace(secret);
  }
  std::size_t hello_verify_requests() const { return hello_verify_requests_; }
  // use_socket moves the association to another socket (a new source port: NAT rebinding).
  void use_socket(Udp& udp) { udp_ = &udp; }
  const std::vector<std::string>& received() const { return received_; }

  // pump runs until `done` or `limit`.
  template <class Done>
  bool pump(Done done, milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    if (!started_) {
      started_ = true;
      EXPECT_TRUE(endpoint_.start(std::chrono::steady_clock::now()));
    }
    while (!done() && !failed_ && std::chrono::steady_clock::now() < end) {
      flush();
      std::array<std::uint8_t, 2048> in{};
      const std::optional<std::size_t> n = udp_->receive(in, milliseconds(20));
      const auto now = std::chrono::steady_clock::now();
      if (n && !passes_cookie_check(std::span(in).first(*n))) {
        continue;
      }
      if (n) {
        (void)endpoint_.handle_datagram(now, std::span(in).first(*n));
        flush();  // before `in` goes: application data views point into it
      } else {
        (void)endpoint_.handle_timeout(now);
      }
    }
    flush();
    return done();
  }

  void send(const std::string& text) {
    std::array<std::uint8_t, 2048> record{};
    const Result<std::size_t> n = endpoint_.send(
        std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), record);
    ASSERT_TRUE(n);
    udp_->send(std::span(record).first(*n));
  }

  // close sends close_notify.
  void close() {
    (void)endpoint_.close();
    flush();
  }

  bool connected() const { return connected_; }
  bool closed() const { return closed_; }
  bool failed() const { return failed_; }

  // receives runs until a record containing `text` arrives, or `limit`.
  bool receives(const std::string& text, milliseconds limit = milliseconds(5000)) {
    return pump(
        [this, &text] {
          return !received_.empty() && received_.back().find(text) != std::string::npos;
        },
        limit);
  }

 private:
  // passes_cookie_check runs the HelloVerifier until a hello with a valid cookie arrives,
  // answering the others with a HelloVerifyRequest.
  bool passes_cookie_check(std::span<const std::uint8_t> datagram) {
    if (!verifier_ || cookie_accepted_) {
      return true;
    }
    const std::array<std::uint8_t, 6> address{127, 0, 0, 1, 0, 0};
    std::array<std::uint8_t, dtls::HelloVerifier::kMaxReplySize> reply{};
    const dtls::HelloVerifier::Outcome outcome = verifier_->check(address, datagram, reply);
    if (outcome.verdict == dtls::HelloVerifier::Verdict::kReply) {
      ++hello_verify_requests_;
      udp_->send(std::span(reply).first(outcome.size));
    }
    cookie_accepted_ = outcome.verdict == dtls::HelloVerifier::Verdict::kAccept;
    return cookie_accepted_;
  }

  void flush() {
    std::array<std::uint8_t, 1500> out{};
    for (;;) {
      const Result<Output> o = endpoint_.poll_output(out);
      if (!o) {
        return;
      }
      switch (o->kind) {
        case Output::Kind::kDatagram:
          udp_->send(std::span(out).first(o->size));
          break;
        case Output::Kind::kConnected:
          connected_ = true;
          break;
        case Output::Kind::kApplicationData:
          received_.emplace_back(o->data.begin(), o->data.end());
          break;
        case Output::Kind::kFailed:
          failed_ = true;
          break;
        case Output::Kind::kClosed:
          closed_ = true;
          break;
        default:
          return;
      }
    }
  }

  Endpoint endpoint_;
  Udp* udp_;
  std::optional<dtls::HelloVerifier> verifier_;
  bool cookie_accepted_ = false;
  std::size_t hello_verify_requests_ = 0;
  std::vector<std::string> received_;
  bool started_ = false;
  bool connected_ = false;
  bool closed_ = false;
  bool failed_ = false;
};

inline constexpr const char* kPskHex = "0102030405060708090a0b0c0d0e0f10";
inline constexpr const char* kPskIdentity = "wireseal-client";

// PeerTest: a temporary directory for the peer's files, removed after the test.
template <class Param>
class PeerTest : public testing::TestWithParam<Param> {
 protected:
  void make_dir() {
    char tmpl[] = "/tmp/wireseal-endpoint-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write_file(const std::string& name, std::span<const std::uint8_t> bytes) {
    std::ofstream(dir_ + "/" + name)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }

  // write_identity saves a fresh certificate and key as PEM for OpenSSL, returns ours.
  crypto::CertifiedKey write_identity(crypto::KeyType type, const std::string& stem) {
    Result<crypto::CertifiedKey> made = crypto::generate_self_signed(type, stem);
    EXPECT_TRUE(made);
    std::vector<std::uint8_t> pem(16384);
    const Result<std::size_t> c = made->chain.to_pem(pem);
    EXPECT_TRUE(c);
    write_file(stem + ".crt", std::span(pem).first(*c));
    const Result<std::size_t> k = made->key.to_pem(pem);
    EXPECT_TRUE(k);
    write_file(stem + ".key", std::span(pem).first(*k));
    return std::move(*made);
  }

  std::string dir_;
};

inline std::string slurp_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

inline std::vector<std::uint8_t> psk_bytes() {
  std::vector<std::uint8_t> out;
  const std::string h = kPskHex;
  for (std::size_t i = 0; i < h.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  }
  return out;
}

}  // namespace wireseal::interop
