// An in-memory network and clock for dtls::Endpoint tests: two endpoints, a link that can
// lose, duplicate and reorder datagrams (seeded), an optional HelloVerifier in front of the
// server, and a simulated clock that jumps to the next deadline when the link is quiet.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "wireseal/crypto/certificate.h"
#include "wireseal/dtls/endpoint.h"
#include "wireseal/dtls/hello_verifier.h"

namespace wireseal::dtls::test {

using Datagram = std::vector<std::uint8_t>;
using std::chrono::milliseconds;

struct LinkModel {
  double loss = 0;       // probability a datagram vanishes
  double duplicate = 0;  // probability it arrives twice
  double reorder = 0;    // probability it is held back behind the next one
  std::uint32_t seed = 1;
  bool lose_everything = false;
};

// DropRule, when set on a Network, decides per datagram (after the link model) whether it
// vanishes.
using DropRule = std::function<bool(const std::vector<std::uint8_t>& datagram, bool to_server)>;

// One side: its endpoint and what it has seen.
struct Side {
  std::optional<Endpoint> endpoint;
  std::vector<std::string> data;  // application data received
  bool connected = false;
  bool closed = false;
  bool failed = false;
  std::string failure;  // failure().reason and alert, for test messages
  std::optional<Instant> deadline;
};

inline std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

class Network {
 public:
  Network(std::shared_ptr<const EndpointConfig> client,
          std::shared_ptr<const EndpointConfig> server, LinkModel model = {}, bool cookies = false)
      : server_config_(std::move(server)), model_(model), rng_(model.seed) {
    client_.endpoint.emplace(std::move(client));
    if (cookies) {
      std::array<std::uint8_t, HelloVerifier::kSecretSize> secret{};
      secret.fill(0x5a);
      verifier_.emplace(secret);
    } else {
      server_.endpoint.emplace(server_config_);
    }
  }

  Side& client() { return client_; }
  Side& server() { return server_; }
  Instant now() const { return now_; }
  std::size_t hello_verify_replies() const { return hello_verify_replies_; }
  std::size_t datagrams_sent() const { return datagrams_sent_; }
  void drop_when(DropRule rule) { drop_ = std::move(rule); }

  // run drives both sides until `done` holds, a side fails, or `limit` of simulated time.
  template <class Done>
  void run(Done done, milliseconds limit = milliseconds(600000)) {
    if (!started_) {
      started_ = true;
      ASSERT_TRUE(client_.endpoint->start(now_));
      if (server_.endpoint) {
        ASSERT_TRUE(server_.endpoint->start(now_));
      }
    }
    const Instant end = now_ + limit;
    while (!done() && !client_.failed && !server_.failed && now_ < end) {
      drain(client_, to_server_);
      if (server_.endpoint) {
        drain(server_, to_client_);
      }
      const bool moved_to_server = deliver(to_server_, true);
      const bool moved_to_client = deliver(to_client_, false);
      const bool moved = moved_to_server || moved_to_client;
      if (done() || client_.failed || server_.failed) {
        break;
      }
      if (!moved && to_server_.empty() && to_client_.empty()) {
        advance_clock(end);
      }
    }
    // Whatever is already on the wire (a last alert) still arrives.
    drain(client_, to_server_);
    if (server_.endpoint) {
      drain(server_, to_client_);
    }
    deliver(to_server_, true);
    deliver(to_client_, false);
  }

  void handshake() {
    run([this] { return client_.connected && server_.connected; });
  }

  std::string describe() const {
    return "client: " + (client_.connected ? std::string("connected") : client_.failure) +
           "; server: " + (server_.connected ? std::string("connected") : server_.failure);
  }

  // inject hands `d` to one side as if its peer had sent it (what anyone who knows the
  // 5-tuple can do) and returns how many bytes that side sent in answer; the answer goes on
  // to the peer with the next run.
  std::size_t inject(Side& to, Datagram d) {
    const bool to_server = &to == &server_;
    const std::deque<Datagram>& outbox = to_server ? to_client_ : to_server_;
    const std::size_t queued = outbox.size();
    arrive(d, to_server);
    std::size_t answered = 0;
    for (std::size_t i = queued; i < outbox.size(); ++i) {
      answered += outbox[i].size();
    }
    return answered;
  }

  // exchange sends `text` from one side to the other and runs until it arrives.
  void send(Side& from, const std::string& text) {
    std::array<std::uint8_t, 2048> record{};
    const Result<std::size_t> n = from.endpoint->send(bytes_of(text), record);
    ASSERT_TRUE(n) << to_string(n.error());
    (&from == &client_ ? to_server_ : to_client_).emplace_back(record.begin(), record.begin() + *n);
    Side& to = &from == &client_ ? server_ : client_;
    const std::size_t before = to.data.size();
    run([&to, before] { return to.data.size() > before; }, milliseconds(5000));
  }

 private:
  void drain(Side& side, std::deque<Datagram>& outbox) {
    std::array<std::uint8_t, 1500> buffer{};
    for (int guard = 0; guard < 1000; ++guard) {
      const Result<Output> out = side.endpoint->poll_output(buffer);
      ASSERT_TRUE(out) << to_string(out.error());
      switch (out->kind) {
        case Output::Kind::kDatagram:
          ASSERT_LE(out->size, side.endpoint->max_datagram_size());
          outbox.emplace_back(buffer.begin(), buffer.begin() + out->size);
          ++datagrams_sent_;
          break;
        case Output::Kind::kConnected:
          side.connected = true;
          break;
        case Output::Kind::kApplicationData:
          side.data.emplace_back(out->data.begin(), out->data.end());
          break;
        case Output::Kind::kClosed:
          side.closed = true;
          break;
        case Output::Kind::kFailed:
          side.failed = true;
          side.failure = std::string(side.endpoint->failure().reason) + " (" +
                         to_string(side.endpoint->failure().alert) +
                         (side.endpoint->failure().alert_from_peer ? " from the peer)" : ")");
          break;
        case Output::Kind::kTimeout:
          side.deadline = out->deadline;
          return;
        case Output::Kind::kIdle:
          side.deadline.reset();
          return;
      }
    }
    FAIL() << "poll_output never said wait";
  }

  // deliver hands the datagrams queued for one side to it through the link model.
  bool deliver(std::deque<Datagram>& queue, bool to_server) {
    bool moved = false;
    std::uniform_real_distribution<double> coin(0, 1);
    while (!queue.empty()) {
      Datagram d = std::move(queue.front());
      queue.pop_front();
      if (model_.lose_everything || coin(rng_) < model_.loss || (drop_ && drop_(d, to_server))) {
        continue;
      }
      if (!queue.empty() && coin(rng_) < model_.reorder) {
        std::swap(d, queue.front());
      }
      const int copies = coin(rng_) < model_.duplicate ? 2 : 1;
      for (int i = 0; i < copies; ++i) {
        Datagram copy = d;
        arrive(copy, to_server);
        moved = true;
      }
    }
    return moved;
  }

  void arrive(Datagram& d, bool to_server) {
    if (!to_server) {
      (void)client_.endpoint->handle_datagram(now_, d);
      drain(client_, to_server_);  // the views into `d` are used before it goes
      return;
    }
    if (!server_.endpoint) {
      std::array<std::uint8_t, HelloVerifier::kMaxReplySize> reply{};
      const std::array<std::uint8_t, 6> address{127, 0, 0, 1, 0x13, 0x88};
      const HelloVerifier::Outcome outcome = verifier_->check(address, d, reply);
      if (outcome.verdict == HelloVerifier::Verdict::kReply) {
        ++hello_verify_replies_;
        to_client_.emplace_back(reply.begin(), reply.begin() + outcome.size);
        return;
      }
      if (outcome.verdict == HelloVerifier::Verdict::kDrop) {
        return;
      }
      server_.endpoint.emplace(server_config_);
      ASSERT_TRUE(server_.endpoint->start(now_));
    }
    (void)server_.endpoint->handle_datagram(now_, d);
    drain(server_, to_client_);
  }

  void advance_clock(Instant end) {
    std::optional<Instant> next;
    for (Side* side : {&client_, &server_}) {
      if (side->deadline && (!next || *side->deadline < *next)) {
        next = side->deadline;
      }
    }
    now_ = next ? std::max(*next, now_) : end;
    for (Side* side : {&client_, &server_}) {
      if (side->endpoint) {
        (void)side->endpoint->handle_timeout(now_);
      }
    }
  }

  std::shared_ptr<const EndpointConfig> server_config_;
  LinkModel model_;
  DropRule drop_;
  std::mt19937 rng_;
  std::optional<HelloVerifier> verifier_;
  Side client_;
  Side server_;
  std::deque<Datagram> to_server_;
  std::deque<Datagram> to_client_;
  Instant now_{std::chrono::seconds(1000)};
  bool started_ = false;
  std::size_t hello_verify_replies_ = 0;
  std::size_t datagrams_sent_ = 0;
};

// Certificates are slow to make (RSA): one of each kind per test binary.
inline const crypto::CertifiedKey& test_certificate(crypto::KeyType type) {
  static std::array<std::optional<crypto::CertifiedKey>, 4> made;
  std::optional<crypto::CertifiedKey>& slot = made[static_cast<std::size_t>(type)];
  if (!slot) {
    Result<crypto::CertifiedKey> key = crypto::generate_self_signed(type);
    EXPECT_TRUE(key);
    slot.emplace(std::move(*key));
  }
  return *slot;
}

inline crypto::CertifiedKey copy_certificate(crypto::KeyType type) {
  const crypto::CertifiedKey& original = test_certificate(type);
  std::array<std::uint8_t, 8192> pem{};
  const Result<std::size_t> n = original.key.to_pem(pem);
  EXPECT_TRUE(n);
  Result<crypto::PrivateKey> key = crypto::PrivateKey::from_pem(std::span(pem).first(*n));
  EXPECT_TRUE(key);
  return crypto::CertifiedKey{original.chain, std::move(*key)};
}

inline crypto::Fingerprint fingerprint_of(crypto::KeyType type) {
  const Result<crypto::Fingerprint> fp =
      crypto::fingerprint(crypto::FingerprintHash::kSha256, test_certificate(type).chain.der(0));
  EXPECT_TRUE(fp);
  return *fp;
}

// Judge is a PeerVerifier that answers as told and remembers what it was shown.
// client_pinned_to: a client that knows the server by the fingerprint of `type`'s test
// certificate (as WebRTC does).
inline std::shared_ptr<EndpointConfig> client_pinned_to(crypto::KeyType type) {
  auto c = std::make_shared<EndpointConfig>();
  c->role = Role::kClient;
  c->peer_fingerprints = {fingerprint_of(type)};
  return c;
}

// server_with: a server with `type`'s test certificate that takes clients without one.
inline std::shared_ptr<EndpointConfig> server_with(crypto::KeyType type) {
  auto c = std::make_shared<EndpointConfig>();
  c->role = Role::kServer;
  c->certificate = copy_certificate(type);
  c->allow_unauthenticated_peer = true;
  return c;
}

struct Judge {
  bool accept = true;
  AlertDescription alert = AlertDescription::kCertificateUnknown;  // sent when refusing
  int calls = 0;
  std::size_t chain_size = 0;
  std::vector<std::uint8_t> leaf;

  PeerVerifier verifier() { return {verify, this}; }

 private:
  static bool verify(void* context, std::span<const std::span<const std::uint8_t>> chain,
                     AlertDescription& alert) noexcept {
    auto* judge = static_cast<Judge*>(context);
    ++judge->calls;
    judge->chain_size = chain.size();
    judge->leaf.assign(chain.front().begin(), chain.front().end());
    if (!judge->accept) {
      alert = judge->alert;
    }
    return judge->accept;
  }
};

}  // namespace wireseal::dtls::test
