// Records injected by a third party who knows the 5-tuple (trivial for ICE candidates) but no
// keys: every content type in every epoch, with old and new handshake message numbers,
// alerts of every level, before and after the handshake, into either role. An established
// association must neither end, nor answer, nor change: it sends no byte back, and data
// still flows both ways. Before the handshake, records that no handshake could contain
// leave it to complete. And the real peer's authenticated repeats are answered, but no
// faster than the rate limit allows.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "endpoint_harness.h"

namespace wireseal::dtls {
namespace {

using crypto::KeyType;
using test::Datagram;
using test::Network;
using test::Side;

constexpr std::uint16_t kDtls12 = 0xfefd;
constexpr std::uint16_t kDtls10 = 0xfeff;
constexpr std::size_t kRecordHeader = 13;

// record frames one DTLS 1.2 record by hand (no CID): type, version, epoch, 48-bit
// sequence number, length, body.
Datagram record(std::uint8_t type, std::uint16_t epoch, std::uint64_t sequence,
                const std::vector<std::uint8_t>& body, std::uint16_t version = kDtls12) {
  Datagram d = {type, static_cast<std::uint8_t>(version >> 8), static_cast<std::uint8_t>(version),
                static_cast<std::uint8_t>(epoch >> 8), static_cast<std::uint8_t>(epoch)};
  for (int shift = 40; shift >= 0; shift -= 8) {
    d.push_back(static_cast<std::uint8_t>(sequence >> shift));
  }
  d.push_back(static_cast<std::uint8_t>(body.size() >> 8));
  d.push_back(static_cast<std::uint8_t>(body.size()));
  d.insert(d.end(), body.begin(), body.end());
  return d;
}

// handshake_fragment is one whole handshake message of `length` zero bytes (RFC 6347 §4.2.2).
std::vector<std::uint8_t> handshake_fragment(std::uint8_t msg_type, std::uint16_t message_seq,
                                             std::uint32_t length = 12) {
  std::vector<std::uint8_t> body = {msg_type,
                                    static_cast<std::uint8_t>(length >> 16),
                                    static_cast<std::uint8_t>(length >> 8),
                                    static_cast<std::uint8_t>(length),
                                    static_cast<std::uint8_t>(message_seq >> 8),
                                    static_cast<std::uint8_t>(message_seq),
                                    0,
                                    0,
                                    0,
                                    static_cast<std::uint8_t>(length >> 16),
                                    static_cast<std::uint8_t>(length >> 8),
                                    static_cast<std::uint8_t>(length)};
  body.resize(body.size() + length);
  return body;
}

// Every record body a spoofer might try in a given content type.
std::vector<std::vector<std::uint8_t>> bodies_for(std::uint8_t type) {
  switch (type) {
    case 20:  // change_cipher_spec
      return {{1}, {1, 1}, {}};
    case 21:  // alert: close_notify, fatal handshake_failure, unexpected_message, bad sizes
      return {{1, 0}, {2, 40}, {2, 10}, {2, 20}, {1, 100}, {3, 0}, {2}, {2, 40, 0}};
    case 22: {  // handshake: every message number of the handshake, old and new
      std::vector<std::vector<std::uint8_t>> out;
      for (std::uint16_t seq = 0; seq < 10; ++seq) {
        // HelloRequest, ClientHello, ServerHello, Certificate, ServerHelloDone,
        // ClientKeyExchange, Finished
        for (const std::uint8_t msg_type : std::array<std::uint8_t, 7>{0, 1, 2, 11, 14, 16, 20}) {
          out.push_back(handshake_fragment(msg_type, seq));
        }
      }
      out.push_back({20, 0, 0});                           // a truncated header
      out.push_back(handshake_fragment(1, 0x7fff, 4000));  // a huge new message
      return out;
    }
    default:
      return {std::vector<std::uint8_t>(16, 0xab), {}, std::vector<std::uint8_t>(300, 0x17)};
  }
}

// Every content type with a meaning in DTLS 1.2 (and heartbeat, tls12_cid, ack), and some
// without one.
constexpr std::uint8_t kContentTypes[] = {20, 21, 22, 23, 24, 25, 26, 0, 19, 99, 255};
constexpr std::uint16_t kEpochs[] = {0, 1, 2, 0xffff};
constexpr std::uint64_t kSequences[] = {0, 7, 0xffffffffffffULL};

struct Injection {
  Datagram datagram;
  std::string label;
};

// spoofed_records: every (type, epoch, sequence, body) combination, as single records, and
// a few packed datagrams and broken headers.
std::vector<Injection> spoofed_records() {
  std::vector<Injection> out;
  for (const std::uint8_t type : kContentTypes) {
    for (const std::uint16_t epoch : kEpochs) {
      for (const std::uint64_t sequence : kSequences) {
        const std::vector<std::vector<std::uint8_t>> bodies = bodies_for(type);
        for (std::size_t i = 0; i < bodies.size(); ++i) {
          out.push_back({record(type, epoch, sequence, bodies[i]),
                         "type " + std::to_string(type) + " epoch " + std::to_string(epoch) +
                             " seq " + std::to_string(sequence) + " body " + std::to_string(i)});
        }
      }
    }
  }
  for (const std::uint16_t version : {kDtls10, std::uint16_t{0x0303}, std::uint16_t{0xfefc}}) {
    out.push_back(
        {record(21, 0, 3, {2, 40}, version), "alert in version " + std::to_string(version)});
  }
  Datagram packed = record(22, 0, 9, handshake_fragment(1, 0));
  const Datagram alert = record(21, 0, 10, {2, 40});
  packed.insert(packed.end(), alert.begin(), alert.end());
  out.push_back({packed, "a ClientHello and a fatal alert packed"});
  out.push_back({{22, 0xfe, 0xfd, 0}, "a truncated record header"});
  out.push_back({Datagram(13, 0), "thirteen zero bytes"});
  return out;
}

std::shared_ptr<EndpointConfig> client_config() { return test::client_pinned_to(KeyType::kEcP256); }

// The server issues tickets, so its last flight carries a NewSessionTicket too.
std::shared_ptr<EndpointConfig> server_config() {
  auto c = test::server_with(KeyType::kEcP256);
  c->session_ticket_keys = std::make_shared<SessionTicketKeys>(
      std::array<std::uint8_t, SessionTicketKeys::kSecretSize>{});
  return c;
}

void expect_data_both_ways(Network& net, const std::string& tag) {
  net.send(net.client(), "client " + tag);
  ASSERT_FALSE(net.server().data.empty()) << tag;
  EXPECT_EQ(net.server().data.back(), "client " + tag);
  net.send(net.server(), "server " + tag);
  ASSERT_FALSE(net.client().data.empty()) << tag;
  EXPECT_EQ(net.client().data.back(), "server " + tag);
}

// is_handshake_input: an epoch-0 DTLS 1.0/1.2 record of a type the handshake reads in
// plaintext (change_cipher_spec, alert, handshake, and application data, refused there).
bool is_handshake_input(const Datagram& d) {
  if (d.size() < kRecordHeader || d[3] != 0 || d[4] != 0) {
    return false;
  }
  const auto version = static_cast<std::uint16_t>(d[1] << 8 | d[2]);
  return (version == kDtls12 || version == kDtls10) && d[0] >= 20 && d[0] <= 23;
}

class Injected : public testing::TestWithParam<Role> {
 protected:
  Side& target(Network& net) const {
    return GetParam() == Role::kClient ? net.client() : net.server();
  }
};

// After the handshake, no unauthenticated datagram makes the target answer, end or change:
// it sends nothing back (so a spoofer gains no amplification and no reflection), both sides
// stay connected, and data flows both ways after every class of injection.
TEST_P(Injected, AConnectedAssociationIgnoresEveryUnauthenticatedRecord) {
  auto client = client_config();
  client->session_tickets = true;
  Network net(client, server_config());
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  Side& side = target(net);
  const EndpointStats before = side.endpoint->stats();
  std::size_t injected = 0;
  std::size_t answered = 0;
  const std::vector<Injection> all = spoofed_records();
  for (std::size_t i = 0; i < all.size(); ++i) {
    injected += all[i].datagram.size();
    const std::size_t reply = net.inject(side, all[i].datagram);
    answered += reply;
    EXPECT_EQ(reply, 0U) << all[i].label;
    net.run([] { return false; }, std::chrono::milliseconds(1));
    ASSERT_TRUE(net.client().connected && !net.client().failed)
        << all[i].label << ": " << net.describe();
    ASSERT_TRUE(net.server().connected && !net.server().failed)
        << all[i].label << ": " << net.describe();
    if (i % 64 == 0) {
      expect_data_both_ways(net, std::to_string(i));
    }
  }
  expect_data_both_ways(net, "after all");
  EXPECT_EQ(answered, 0U) << "bytes sent for " << injected << " bytes injected";
  EXPECT_EQ(side.endpoint->stats().retransmissions, before.retransmissions);
  EXPECT_GT(side.endpoint->stats().drops.total(), before.drops.total() + all.size() / 2);
}

// Before the handshake, records no handshake could hold (epochs not reached yet, CID records
// in epoch 0, other versions, broken headers, unknown content types) change nothing: the
// handshake then completes as if they had not been sent, and without a retransmission.
TEST_P(Injected, RecordsNoHandshakeCouldHoldLeaveItToComplete) {
  Network net(client_config(), server_config());
  net.run([] { return true; });  // started: the client's hello is on its way
  Side& side = target(net);
  std::size_t answered = 0;
  for (const Injection& spoof : spoofed_records()) {
    if (is_handshake_input(spoof.datagram)) {
      continue;  // plaintext handshake input: unauthenticated by nature before the keys
    }
    answered += net.inject(side, spoof.datagram);
    EXPECT_FALSE(side.failed) << spoof.label << ": " << side.failure;
  }
  EXPECT_EQ(answered, 0U);
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_EQ(net.client().endpoint->stats().retransmissions, 0U);
  EXPECT_EQ(net.server().endpoint->stats().retransmissions, 0U);
  expect_data_both_ways(net, "after the handshake");
}

std::string target_name(const testing::TestParamInfo<Role>& param) {
  return param.param == Role::kClient ? "IntoTheClient" : "IntoTheServer";
}

INSTANTIATE_TEST_SUITE_P(BothRoles, Injected, testing::Values(Role::kClient, Role::kServer),
                         target_name);

// The server of a full handshake sends the last flight; when it is lost, the client repeats
// its own, authenticated, and the server answers each repeat — but a peer that repeats
// faster than any real timer (10 ms here) gets at most one resend per 50 ms, and never more
// than max_retransmissions in all.
TEST(RepeatAnswers, AConnectedServerAnswersRepeatsAtABoundedRate) {
  auto client = client_config();
  client->initial_retransmit_timeout = std::chrono::milliseconds(10);
  client->max_retransmit_timeout = std::chrono::milliseconds(10);
  client->max_retransmissions = 40;
  Network net(client, server_config());
  net.drop_when([&net](const Datagram&, bool to_server) {
    return !to_server && net.server().connected;  // the server's last flight is lost
  });
  net.run([] { return false; }, std::chrono::milliseconds(2000));
  ASSERT_TRUE(net.server().connected) << net.describe();
  EXPECT_FALSE(net.client().connected);
  const std::uint64_t repeats = net.client().endpoint->stats().retransmissions;
  const std::uint64_t answers = net.server().endpoint->stats().retransmissions;
  EXPECT_GE(repeats, 30U);                                   // every 10 ms for 400 ms or so
  EXPECT_GE(answers, 2U);                                    // repeats are still answered ...
  EXPECT_LE(answers, repeats / 4);                           // ... at most one per 50 ms ...
  EXPECT_LE(answers, server_config()->max_retransmissions);  // ... and so many in all
}

// With a real timer (1 s, doubling), every repeat of the client's last flight is answered,
// and the handshake completes once one answer gets through.
TEST(RepeatAnswers, ALostLastFlightIsResentWhenTheClientRepeats) {
  Network net(client_config(), server_config());
  int lost = 0;
  net.drop_when([&net, &lost](const Datagram&, bool to_server) {
    return !to_server && net.server().connected && lost++ < 2;  // two flights lost
  });
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_GE(net.server().endpoint->stats().retransmissions, 1U);
  expect_data_both_ways(net, "after the resends");
}

}  // namespace
}  // namespace wireseal::dtls
