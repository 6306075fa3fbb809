// A server endpoint fed hand-made ClientHellos, the ones a peer or an attacker could send:
// a downgrade to DTLS 1.0, a DTLS 1.3-only version list, a repeated extension, a message that
// does not belong first, a message longer than the bound, a fragment running past its record.
// Each must end the handshake with the right alert (or be dropped and counted), never crash.
#include <gtest/gtest.h>

#include <vector>

#include "endpoint_harness.h"
#include "wireseal/dtls/handshake/message.h"

namespace wireseal::dtls {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint16_t kDtls12 = 0xfefd;
constexpr std::uint16_t kDtls10 = 0xfeff;

void put_u16(Bytes& b, std::size_t v) {
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v));
}

// The extensions a P-256 ECDSA server needs to answer: groups, signature schemes, EMS.
Bytes usual_extensions() {
  return {0, 10, 0, 4, 0, 2, 0, 23,  // supported_groups: secp256r1
          0, 13, 0, 4, 0, 2, 4, 3,   // signature_algorithms: ecdsa_secp256r1_sha256
          0, 23, 0, 0};              // extended_master_secret
}

// client_hello_body: client_version, a fixed random, no session ID or cookie, one suite
// (ECDHE_ECDSA_WITH_AES_128_GCM_SHA256), null compression, then `extensions`.
Bytes client_hello_body(std::uint16_t version, const Bytes& extensions) {
  Bytes b;
  put_u16(b, version);
  b.insert(b.end(), 32, 0x42);
  b.insert(b.end(), {0, 0, 0, 2, 0xc0, 0x2b, 1, 0});
  put_u16(b, extensions.size());
  b.insert(b.end(), extensions.begin(), extensions.end());
  return b;
}

// record: one epoch-0 handshake record holding `fragment`.
Bytes record(std::uint64_t sequence, const Bytes& fragment) {
  Bytes r = {22, 0xfe, 0xfd, 0, 0};
  for (int shift = 40; shift >= 0; shift -= 8) {
    r.push_back(static_cast<std::uint8_t>(sequence >> shift));
  }
  put_u16(r, fragment.size());
  r.insert(r.end(), fragment.begin(), fragment.end());
  return r;
}

Bytes message(std::uint8_t type, const Bytes& body) {
  Bytes out(12 + body.size());
  const Result<std::size_t> n = write_handshake_fragment(type, 0, body, 0, body.size(), out);
  EXPECT_TRUE(n);
  out.resize(n ? *n : 0);
  return out;
}

struct Outcome {
  bool failed = false;
  bool sent_flight = false;  // answered with its flight
  AlertDescription alert = AlertDescription::kCloseNotify;
  std::uint64_t dropped = 0;
};

// feed hands `datagram` to a fresh P-256 server and drains what it answers.
Outcome feed(const Bytes& datagram) {
  auto config = std::make_shared<EndpointConfig>();
  config->role = Role::kServer;
  config->certificate = test::copy_certificate(crypto::KeyType::kEcP256);
  config->allow_unauthenticated_peer = true;
  Endpoint server(config);
  const Instant now{};
  EXPECT_TRUE(server.start(now));
  Bytes in = datagram;
  (void)server.handle_datagram(now, in);
  Outcome o;
  std::array<std::uint8_t, 2048> buffer{};
  for (;;) {
    const Result<Output> out = server.poll_output(buffer);
    if (!out || out->kind == Output::Kind::kTimeout || out->kind == Output::Kind::kIdle) {
      break;
    }
    if (out->kind == Output::Kind::kFailed) {
      o.failed = true;
      o.alert = server.failure().alert;
    }
    o.sent_flight = o.sent_flight || out->kind == Output::Kind::kDatagram;
  }
  o.sent_flight = o.sent_flight && !o.failed;  // a failed server's datagram is its alert
  o.dropped = server.stats().drops.total();
  return o;
}

Bytes hello_datagram(std::uint16_t version, const Bytes& extensions) {
  return record(0, message(1, client_hello_body(version, extensions)));
}

TEST(EndpointBadInput, TheWellFormedHelloIsAnswered) {
  const Outcome o = feed(hello_datagram(kDtls12, usual_extensions()));
  EXPECT_FALSE(o.failed);
  EXPECT_TRUE(o.sent_flight);
}

TEST(EndpointBadInput, ADowngradeToDtls10IsRefused) {
  const Outcome o = feed(hello_datagram(kDtls10, usual_extensions()));
  EXPECT_TRUE(o.failed);
  EXPECT_EQ(o.alert, AlertDescription::kProtocolVersion);
}

// RFC 8446 §4.2.1: supported_versions overrides client_version; a DTLS 1.3 client that also
// speaks 1.2 gets 1.2, one that does not is refused.
TEST(EndpointBadInput, SupportedVersionsDecideOverClientVersion) {
  Bytes only13 = usual_extensions();
  only13.insert(only13.end(), {0, 43, 0, 3, 2, 0xfe, 0xfc});
  const Outcome refused = feed(hello_datagram(kDtls12, only13));
  EXPECT_TRUE(refused.failed);
  EXPECT_EQ(refused.alert, AlertDescription::kProtocolVersion);

  Bytes both = usual_extensions();
  both.insert(both.end(), {0, 43, 0, 5, 4, 0xfe, 0xfc, 0xfe, 0xfd});
  const Outcome answered = feed(hello_datagram(kDtls12, both));
  EXPECT_FALSE(answered.failed);
  EXPECT_TRUE(answered.sent_flight);

  Bytes odd = usual_extensions();
  odd.insert(odd.end(), {0, 43, 0, 2, 1, 0xfe});
  EXPECT_EQ(feed(hello_datagram(kDtls12, odd)).alert, AlertDescription::kDecodeError);
}

TEST(EndpointBadInput, ARepeatedExtensionIsADecodeError) {
  Bytes twice = usual_extensions();
  twice.insert(twice.end(), {0x7a, 0x7a, 0, 0, 0x7a, 0x7a, 0, 1, 0});  // an unknown type twice
  const Outcome o = feed(hello_datagram(kDtls12, twice));
  EXPECT_TRUE(o.failed);
  EXPECT_EQ(o.alert, AlertDescription::kDecodeError);
}

TEST(EndpointBadInput, AMessageOutOfTurnIsUnexpected) {
  // A ServerHello-shaped message where the ClientHello belongs.
  const Outcome o = feed(record(0, message(2, client_hello_body(kDtls12, {}))));
  EXPECT_TRUE(o.failed);
  EXPECT_EQ(o.alert, AlertDescription::kUnexpectedMessage);
}

TEST(EndpointBadInput, AMessageOverTheBoundEndsTheHandshake) {
  // The first fragment of a ClientHello claiming 1 MiB: nothing that size is ever held.
  Bytes fragment = {1, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0xfe, 0xfd, 0, 0};
  const Outcome o = feed(record(0, fragment));
  EXPECT_TRUE(o.failed);
  EXPECT_FALSE(o.sent_flight);
}

TEST(EndpointBadInput, AFragmentPastItsRecordIsDroppedAndCounted) {
  Bytes fragment = message(1, client_hello_body(kDtls12, usual_extensions()));
  fragment.resize(fragment.size() - 10);  // the header still claims the whole body
  const Outcome o = feed(record(0, fragment));
  EXPECT_FALSE(o.failed);
  EXPECT_FALSE(o.sent_flight);
  EXPECT_GT(o.dropped, 0U);
}

}  // namespace
}  // namespace wireseal::dtls
