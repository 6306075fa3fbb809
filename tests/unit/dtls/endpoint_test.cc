// dtls::Endpoint against itself over the in-memory network: every key exchange, suite family
// and way of authenticating the peer; use_srtp and the exporter; fragmentation; a lossy link;
// the timeout; and the failures that must end a handshake.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "endpoint_harness.h"
#include "wireseal/dtls/handshake/cipher_suite.h"

namespace wireseal::dtls {
namespace {

using crypto::KeyType;
using test::Network;

std::shared_ptr<EndpointConfig> client_config() {
  auto c = std::make_shared<EndpointConfig>();
  c->role = Role::kClient;
  return c;
}

std::shared_ptr<EndpointConfig> server_config(KeyType type) {
  auto c = std::make_shared<EndpointConfig>();
  c->role = Role::kServer;
  c->certificate = test::copy_certificate(type);
  // A server that does not ask for client certificates accepts anonymous clients only
  // when told so (fail-closed); tests that want client authentication set fingerprints.
  c->allow_unauthenticated_peer = true;
  return c;
}

void use_psk(EndpointConfig& c) {
  c.psk = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c};
  c.psk_identity = {'c', 'l', 'i', 'e', 'n', 't'};
}

void expect_same_keys(Endpoint& a, Endpoint& b) {
  std::array<std::uint8_t, 40> ea{};
  std::array<std::uint8_t, 40> eb{};
  const std::array<std::uint8_t, 3> context{1, 2, 3};
  ASSERT_TRUE(a.export_keying_material("EXPERIMENTAL wireseal", context, true, ea));
  ASSERT_TRUE(b.export_keying_material("EXPERIMENTAL wireseal", context, true, eb));
  EXPECT_EQ(ea, eb);
  std::array<std::uint8_t, 40> no_context{};
  ASSERT_TRUE(a.export_keying_material("EXPERIMENTAL wireseal", {}, false, no_context));
  EXPECT_NE(ea, no_context);
}

void expect_data_both_ways(Network& net) {
  net.send(net.client(), "hello from the client");
  ASSERT_FALSE(net.server().data.empty());
  EXPECT_EQ(net.server().data.back(), "hello from the client");
  net.send(net.server(), "and back");
  ASSERT_FALSE(net.client().data.empty());
  EXPECT_EQ(net.client().data.back(), "and back");
}

TEST(Endpoint, EcdsaServerByFingerprint) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  Network net(client, server_config(KeyType::kEcP256));
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  const Negotiated& n = net.client().endpoint->negotiated();
  EXPECT_EQ(n.suite->code, 0xC02B);
  EXPECT_EQ(n.group, 29);
  EXPECT_EQ(n.signature_scheme, 0x0403);
  EXPECT_TRUE(n.extended_master_secret);
  EXPECT_EQ(n.peer_auth, PeerAuth::kFingerprint);
  EXPECT_EQ(net.server().endpoint->negotiated().peer_auth, PeerAuth::kNone);
  expect_same_keys(*net.client().endpoint, *net.server().endpoint);
  expect_data_both_ways(net);
  EXPECT_EQ(net.client().endpoint->stats().retransmissions, 0U);
}

TEST(Endpoint, MutualFingerprintsWithSrtpAsWebRtcDoes) {
  auto client = client_config();
  client->certificate = test::copy_certificate(KeyType::kEcP256);
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP384)};
  client->srtp_profiles = {0x0007, 0x0001};
  auto server = server_config(KeyType::kEcP384);
  server->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  server->allow_unauthenticated_peer = false;
  server->srtp_profiles = {0x0001, 0x0007, 0x0008};
  Network net(client, server, {}, /*cookies=*/true);
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_EQ(net.hello_verify_replies(), 1U);
  EXPECT_EQ(net.server().endpoint->negotiated().peer_auth, PeerAuth::kFingerprint);
  EXPECT_EQ(net.client().endpoint->negotiated().srtp_profile, 0x0001);
  const Result<SrtpKeyingMaterial> a = net.client().endpoint->srtp_keying_material();
  const Result<SrtpKeyingMaterial> b = net.server().endpoint->srtp_keying_material();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->size, 60U);
  EXPECT_TRUE(std::equal(a->material().begin(), a->material().end(), b->material().begin(),
                         b->material().end()));
  EXPECT_FALSE(net.client().endpoint->peer_certificate().empty());
  EXPECT_FALSE(net.server().endpoint->peer_certificate().empty());
  expect_data_both_ways(net);
}

// Every suite, with the identity it needs: certificate suites with an ECDSA or RSA server,
// PSK suites with a PSK on both sides.
TEST(Endpoint, EverySuite) {
  for (const CipherSuite& suite : cipher_suites()) {
    SCOPED_TRACE(suite.openssl_name);
    auto client = client_config();
    client->cipher_suites = {suite.code};
    std::shared_ptr<EndpointConfig> server;
    if (suite.auth == SuiteAuth::kPsk) {
      server = std::make_shared<EndpointConfig>();
      server->role = Role::kServer;
      use_psk(*server);
      use_psk(*client);
    } else {
      const KeyType type = suite.auth == SuiteAuth::kRsa ? KeyType::kRsa : KeyType::kEcP256;
      server = server_config(type);
      client->peer_fingerprints = {test::fingerprint_of(type)};
    }
    server->cipher_suites = {suite.code};
    Network net(client, server);
    net.handshake();
    ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
    EXPECT_EQ(net.server().endpoint->negotiated().suite->code, suite.code);
    EXPECT_EQ(net.client().endpoint->negotiated().encrypt_then_mac, !suite.aead);
    expect_same_keys(*net.client().endpoint, *net.server().endpoint);
    expect_data_both_ways(net);
  }
}

TEST(Endpoint, EveryGroupAndServerKey) {
  for (const std::uint16_t group : std::array<std::uint16_t, 3>{29, 23, 24}) {
    for (KeyType type : {KeyType::kEcP256, KeyType::kEcP384, KeyType::kEd25519, KeyType::kRsa}) {
      SCOPED_TRACE(testing::Message() << "group " << group << " key " << static_cast<int>(type));
      auto client = client_config();
      client->groups = {group};
      client->peer_fingerprints = {test::fingerprint_of(type)};
      Network net(client, server_config(type));
      net.handshake();
      ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
      EXPECT_EQ(net.client().endpoint->negotiated().group, group);
    }
  }
}

TEST(Endpoint, EverySignatureScheme) {
  struct Case {
    KeyType key;
    std::uint16_t scheme;
  };
  for (const Case c :
       {Case{KeyType::kEcP256, 0x0403}, Case{KeyType::kEcP384, 0x0503}, Case{KeyType::kRsa, 0x0401},
        Case{KeyType::kRsa, 0x0501}, Case{KeyType::kRsa, 0x0804}, Case{KeyType::kRsa, 0x0805},
        Case{KeyType::kRsa, 0x0806}, Case{KeyType::kEd25519, 0x0807}}) {
    SCOPED_TRACE(c.scheme);
    auto client = client_config();
    client->signature_schemes = {c.scheme};
    client->peer_fingerprints = {test::fingerprint_of(c.key)};
    // Mutual: the client signs CertificateVerify with the same scheme.
    client->certificate = test::copy_certificate(c.key);
    auto server = server_config(c.key);
    server->peer_fingerprints = {test::fingerprint_of(c.key)};
    Network net(client, server);
    net.handshake();
    ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
    EXPECT_EQ(net.client().endpoint->negotiated().signature_scheme, c.scheme);
  }
}

TEST(Endpoint, PskAndEcdhePskWithIdentityHint) {
  for (const std::uint16_t suite : std::array<std::uint16_t, 2>{0x00A8, 0xCCAC}) {
    auto client = client_config();
    use_psk(*client);
    client->cipher_suites = {suite};
    auto server = std::make_shared<EndpointConfig>();
    server->role = Role::kServer;
    use_psk(*server);
    server->psk_identity_hint = {'h', 'i', 'n', 't'};
    Network net(client, server);
    net.handshake();
    ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
    EXPECT_EQ(net.client().endpoint->negotiated().peer_auth, PeerAuth::kPsk);
    expect_data_both_ways(net);
  }
}

// With another PSK the client's Finished does not even decrypt: it is dropped like any
// forged record (RFC 6347 §4.1.2.7), and the handshake runs out of time on both sides.
TEST(Endpoint, WrongPskNeverConnects) {
  auto client = client_config();
  use_psk(*client);
  client->psk[0] ^= 1;
  client->handshake_timeout = std::chrono::seconds(10);
  auto server = std::make_shared<EndpointConfig>();
  server->role = Role::kServer;
  use_psk(*server);
  server->handshake_timeout = std::chrono::seconds(10);
  Network net(client, server);
  net.run([&net] { return net.client().failed && net.server().failed; });
  EXPECT_FALSE(net.client().connected || net.server().connected);
  EXPECT_EQ(net.server().endpoint->failure().error, Error::kTimedOut);
  EXPECT_GT(net.server().endpoint->stats().drops.total(), 0U);
}

TEST(Endpoint, WrongFingerprintFailsClosed) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP384)};
  Network net(client, server_config(KeyType::kEcP256));
  net.handshake();
  EXPECT_TRUE(net.client().failed);
  EXPECT_FALSE(net.client().connected);
  EXPECT_EQ(net.client().endpoint->failure().error, Error::kAuthFailed);
  EXPECT_EQ(net.client().endpoint->failure().alert, AlertDescription::kBadCertificate);
  // The server got the alert.
  EXPECT_TRUE(net.server().failed);
  EXPECT_TRUE(net.server().endpoint->failure().alert_from_peer);
}

TEST(Endpoint, NoWayToAuthenticateTheServerFailsUnlessOptedOut) {
  Network refused(client_config(), server_config(KeyType::kEcP256));
  refused.handshake();
  EXPECT_TRUE(refused.client().failed);

  auto client = client_config();
  client->allow_unauthenticated_peer = true;
  Network allowed(client, server_config(KeyType::kEcP256));
  allowed.handshake();
  EXPECT_TRUE(allowed.client().connected);
  EXPECT_EQ(allowed.client().endpoint->negotiated().peer_auth, PeerAuth::kNone);
}

// PeerVerifier: the caller's own check, alone or narrowing a fingerprint list; its refusal
// ends the handshake with the alert it chose.
TEST(Endpoint, PeerVerifierAloneAuthenticatesTheServer) {
  test::Judge judge;
  auto client = client_config();
  client->peer_verifier = judge.verifier();
  Network net(client, server_config(KeyType::kEcP256));
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_EQ(net.client().endpoint->negotiated().peer_auth, PeerAuth::kVerifier);
  EXPECT_EQ(judge.calls, 1);
  EXPECT_EQ(judge.chain_size, 1U);
  const std::span<const std::uint8_t> leaf = net.client().endpoint->peer_certificate();
  EXPECT_TRUE(std::equal(leaf.begin(), leaf.end(), judge.leaf.begin(), judge.leaf.end()));
}

TEST(Endpoint, PeerVerifierRefusalSendsItsAlert) {
  test::Judge judge;
  judge.accept = false;
  judge.alert = AlertDescription::kAccessDenied;
  auto client = client_config();
  client->peer_verifier = judge.verifier();
  client->allow_unauthenticated_peer = true;  // a refusal is final even so
  Network net(client, server_config(KeyType::kEcP256));
  net.handshake();
  EXPECT_FALSE(net.client().connected);
  EXPECT_EQ(net.client().endpoint->failure().error, Error::kAuthFailed);
  EXPECT_EQ(net.client().endpoint->failure().alert, AlertDescription::kAccessDenied);
  EXPECT_TRUE(net.server().failed);
  EXPECT_TRUE(net.server().endpoint->failure().alert_from_peer);
  EXPECT_EQ(net.server().endpoint->failure().alert, AlertDescription::kAccessDenied);
}

TEST(Endpoint, PeerVerifierNarrowsAFingerprintMatch) {
  test::Judge judge;
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  client->peer_verifier = judge.verifier();
  Network accepted(client, server_config(KeyType::kEcP256));
  accepted.handshake();
  ASSERT_TRUE(accepted.client().connected) << accepted.describe();
  EXPECT_EQ(accepted.client().endpoint->negotiated().peer_auth, PeerAuth::kFingerprint);
  EXPECT_EQ(judge.calls, 1);

  judge.accept = false;
  Network refused(client, server_config(KeyType::kEcP256));
  refused.handshake();
  EXPECT_FALSE(refused.client().connected);
  EXPECT_EQ(refused.client().endpoint->failure().alert, AlertDescription::kCertificateUnknown);

  // A fingerprint that does not match is not rescued by an accepting verifier.
  judge.accept = true;
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP384)};
  Network mismatch(client, server_config(KeyType::kEcP256));
  mismatch.handshake();
  EXPECT_FALSE(mismatch.client().connected);
  EXPECT_EQ(mismatch.client().endpoint->failure().alert, AlertDescription::kBadCertificate);
  EXPECT_EQ(judge.calls, 2);
}

TEST(Endpoint, ServerWithAPeerVerifierAsksForTheClientCertificate) {
  test::Judge judge;
  auto server = server_config(KeyType::kEcP256);
  server->peer_verifier = judge.verifier();
  server->allow_unauthenticated_peer = false;
  auto anonymous = client_config();
  anonymous->allow_unauthenticated_peer = true;
  Network refused(anonymous, server);
  refused.handshake();
  EXPECT_TRUE(refused.server().failed);
  EXPECT_STREQ(refused.server().endpoint->failure().reason, "the client sent no certificate");
  EXPECT_EQ(judge.calls, 0);

  auto client = client_config();
  client->allow_unauthenticated_peer = true;
  client->certificate = test::copy_certificate(KeyType::kEcP384);
  Network net(client, server);
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_EQ(net.server().endpoint->negotiated().peer_auth, PeerAuth::kVerifier);
  EXPECT_EQ(judge.calls, 1);
}

TEST(Endpoint, ServerRequiresTheClientCertificateItAskedFor) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  auto server = server_config(KeyType::kEcP256);
  server->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP384)};
  server->allow_unauthenticated_peer = false;
  Network net(client, server);
  net.handshake();
  EXPECT_TRUE(net.server().failed);
  EXPECT_FALSE(net.client().connected);
  EXPECT_STREQ(net.server().endpoint->failure().reason, "the client sent no certificate");
}

// The default configuration requires the extended master secret (RFC 7627), and two
// default endpoints negotiate it; a changed default on either side shows here.
TEST(Endpoint, ExtendedMasterSecretNegotiatedByDefault) {
  EXPECT_TRUE(EndpointConfig{}.require_extended_master_secret);
  auto client = client_config();
  client->allow_unauthenticated_peer = true;
  Network net(client, server_config(KeyType::kEcP256));
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_TRUE(net.client().endpoint->negotiated().extended_master_secret);
  EXPECT_TRUE(net.server().endpoint->negotiated().extended_master_secret);
}

// RFC 7301: the server's preference among what the client offers; none in common is fatal;
// either side without a list means no ALPN.
TEST(Endpoint, AlpnTakesTheServersFirstChoiceTheClientOffers) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  client->alpn_protocols = {"c-webrtc", "webrtc"};
  auto server = server_config(KeyType::kEcP256);
  server->alpn_protocols = {"webrtc", "c-webrtc"};
  Network net(client, server);
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_EQ(net.client().endpoint->application_protocol(), "webrtc");
  EXPECT_EQ(net.server().endpoint->application_protocol(), "webrtc");

  auto other = server_config(KeyType::kEcP256);
  other->alpn_protocols = {"coap"};
  Network refused(client, other);
  refused.handshake();
  EXPECT_TRUE(refused.server().failed);
  EXPECT_EQ(refused.server().endpoint->failure().alert, AlertDescription::kNoApplicationProtocol);
  EXPECT_TRUE(refused.client().failed);

  Network plain(client, server_config(KeyType::kEcP256));
  plain.handshake();
  ASSERT_TRUE(plain.client().connected && plain.server().connected) << plain.describe();
  EXPECT_TRUE(plain.client().endpoint->application_protocol().empty());

  auto silent = client_config();
  silent->peer_fingerprints = client->peer_fingerprints;
  Network quiet(silent, server);
  quiet.handshake();
  ASSERT_TRUE(quiet.client().connected && quiet.server().connected) << quiet.describe();
  EXPECT_TRUE(quiet.server().endpoint->application_protocol().empty());
}

// sealed_record seals `text` from `side` and returns the record as it goes on the wire.
std::vector<std::uint8_t> sealed_record(Endpoint& side, const std::string& text) {
  std::vector<std::uint8_t> record(side.sealed_size(text.size()));
  const Result<std::size_t> n = side.send(test::bytes_of(text), record);
  EXPECT_TRUE(n);
  record.resize(n ? *n : 0);
  return record;
}

// The CID of a tls12_cid record: after type, version, epoch and sequence (RFC 9146 §4).
std::vector<std::uint8_t> cid_of(const std::vector<std::uint8_t>& record, std::size_t size) {
  return {record.begin() + 11, record.begin() + 11 + static_cast<std::ptrdiff_t>(size)};
}

// RFC 9146: each side's records carry the CID the other asked for; a zero-length request means
// plain records towards that side; one side without CID support means none at all.
TEST(Endpoint, ConnectionIdsAsEachSideAskedThem) {
  const std::vector<std::uint8_t> client_cid{0xc1, 0xc2, 0xc3, 0xc4};
  const std::vector<std::uint8_t> server_cid{0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58};
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  client->connection_id = client_cid;
  auto server = server_config(KeyType::kEcP256);
  server->connection_id = server_cid;
  Network net(client, server, {}, /*cookies=*/true);
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_TRUE(net.client().endpoint->negotiated().connection_id);
  EXPECT_TRUE(net.server().endpoint->negotiated().connection_id);
  const std::vector<std::uint8_t> to_server = sealed_record(*net.client().endpoint, "up");
  ASSERT_GT(to_server.size(), 11 + server_cid.size());
  EXPECT_EQ(to_server[0], 25);  // tls12_cid
  EXPECT_EQ(cid_of(to_server, server_cid.size()), server_cid);
  const std::vector<std::uint8_t> to_client = sealed_record(*net.server().endpoint, "down");
  EXPECT_EQ(to_client[0], 25);
  EXPECT_EQ(cid_of(to_client, client_cid.size()), client_cid);
  expect_data_both_ways(net);

  // The client needs no CID of its own: the server's records to it stay plain.
  client->connection_id = std::vector<std::uint8_t>{};
  Network half(client, server);
  half.handshake();
  ASSERT_TRUE(half.client().connected && half.server().connected) << half.describe();
  EXPECT_EQ(sealed_record(*half.client().endpoint, "up")[0], 25);
  EXPECT_EQ(sealed_record(*half.server().endpoint, "down")[0], 23);
  expect_data_both_ways(half);

  // A server without CID support does not answer the extension: plain records both ways.
  Network none(client, server_config(KeyType::kEcP256));
  none.handshake();
  ASSERT_TRUE(none.client().connected && none.server().connected) << none.describe();
  EXPECT_FALSE(none.client().endpoint->negotiated().connection_id);
  EXPECT_EQ(sealed_record(*none.client().endpoint, "up")[0], 23);
}

// use_connection_id gives one association its own CID (a server finds associations by it).
TEST(Endpoint, UseConnectionIdOverridesTheConfiguredOne) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  client->connection_id = std::vector<std::uint8_t>{1, 2, 3};
  auto server = server_config(KeyType::kEcP256);
  server->connection_id = std::vector<std::uint8_t>{9};
  Network net(client, server);
  const std::vector<std::uint8_t> own{0xa0, 0xa1, 0xa2, 0xa3, 0xa4};
  ASSERT_TRUE(net.client().endpoint->use_connection_id(own));
  const std::vector<std::uint8_t> too_long(256, 1);
  EXPECT_EQ(net.client().endpoint->use_connection_id(too_long).error(), Error::kInvalidArgument);
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_EQ(net.client().endpoint->use_connection_id(own).error(), Error::kBadState);
  const std::vector<std::uint8_t> to_client = sealed_record(*net.server().endpoint, "down");
  EXPECT_EQ(to_client[0], 25);
  EXPECT_EQ(cid_of(to_client, own.size()), own);
  expect_data_both_ways(net);

  // Without a configured CID the association has none to replace.
  Network plain(client_config(), server);
  EXPECT_EQ(plain.client().endpoint->use_connection_id(own).error(), Error::kBadState);
}

TEST(Endpoint, ConnectionIdHandshakeOnALossyLink) {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE(seed);
    auto client = client_config();
    client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
    client->connection_id = std::vector<std::uint8_t>{1, 2, 3};
    auto server = server_config(KeyType::kEcP256);
    server->connection_id = std::vector<std::uint8_t>{9, 8, 7, 6, 5};
    Network net(client, server, {0.3, 0.2, 0.2, seed}, /*cookies=*/true);
    net.handshake();
    ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
    EXPECT_TRUE(net.server().endpoint->negotiated().connection_id);
  }
}

TEST(Endpoint, SmallMtuFragmentsEveryFlight) {
  auto client = client_config();
  client->mtu = 256;
  client->certificate = test::copy_certificate(KeyType::kRsa);
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kRsa)};
  auto server = server_config(KeyType::kRsa);
  server->mtu = 256;
  server->peer_fingerprints = {test::fingerprint_of(KeyType::kRsa)};
  Network net(client, server);
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_GT(net.datagrams_sent(), 10U);  // two RSA certificates cannot fit in a few
  expect_data_both_ways(net);
}

// RFC 6347 §4.2.4 on a bad link: 30 % loss, duplication and reordering, several seeds.
TEST(Endpoint, LossyLinkCompletesOnRetransmissions) {
  std::uint64_t retransmissions = 0;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    auto client = client_config();
    client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
    client->mtu = 400;
    auto server = server_config(KeyType::kEcP256);
    server->mtu = 400;
    Network net(client, server, {0.3, 0.2, 0.2, seed}, /*cookies=*/true);
    net.handshake();
    ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
    retransmissions += net.client().endpoint->stats().retransmissions +
                       net.server().endpoint->stats().retransmissions;
  }
  EXPECT_GT(retransmissions, 0U);
}

TEST(Endpoint, TotalLossEndsWithTheTimeout) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  test::LinkModel model;
  model.lose_everything = true;
  Network net(client, server_config(KeyType::kEcP256), model);
  const Instant start = net.now();
  net.run([] { return false; }, std::chrono::seconds(3600));
  EXPECT_TRUE(net.client().failed);
  EXPECT_EQ(net.client().endpoint->failure().error, Error::kTimedOut);
  // Twelve resends, 1 s doubling to the 60 s cap, then the thirteenth expiry gives up:
  // 1 + 2 + 4 + 8 + 16 + 32 + 7 x 60 = 483 s.
  EXPECT_EQ(net.client().endpoint->stats().retransmissions, 12U);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(net.now() - start).count(), 483);
}

TEST(Endpoint, HandshakeTimeoutBoundsTheWholeHandshake) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  client->handshake_timeout = std::chrono::seconds(20);
  test::LinkModel model;
  model.lose_everything = true;
  Network net(client, server_config(KeyType::kEcP256), model);
  net.run([] { return false; }, std::chrono::seconds(60));
  EXPECT_EQ(net.client().endpoint->failure().error, Error::kTimedOut);
  // 1 + 2 + 4 + 8 s pass before 20 s: four retransmissions.
  EXPECT_EQ(net.client().endpoint->stats().retransmissions, 4U);
}

TEST(Endpoint, CloseNotifyBothWays) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  Network net(client, server_config(KeyType::kEcP256));
  net.handshake();
  ASSERT_TRUE(net.client().endpoint->close());
  net.run([&net] { return net.server().closed && net.client().closed; });
  EXPECT_TRUE(net.server().closed);
  EXPECT_TRUE(net.client().closed);
  std::array<std::uint8_t, 64> record{};
  EXPECT_EQ(net.client().endpoint->send(test::bytes_of("late"), record).error(), Error::kBadState);
}

// abort: a verdict the application reaches after the handshake (a fingerprint from a late
// SDP answer) ends the association with the alert it names.
TEST(Endpoint, AbortSendsTheApplicationsFatalAlert) {
  auto client = client_config();
  client->allow_unauthenticated_peer = true;
  Network net(client, server_config(KeyType::kEcP256));
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  ASSERT_TRUE(net.client().endpoint->abort(AlertDescription::kBadCertificate));
  net.run([&net] { return net.client().failed && net.server().failed; });
  EXPECT_TRUE(net.client().failed);
  EXPECT_STREQ(net.client().endpoint->failure().reason, "the application ended the association");
  EXPECT_TRUE(net.server().failed);
  EXPECT_TRUE(net.server().endpoint->failure().alert_from_peer);
  EXPECT_EQ(net.server().endpoint->failure().alert, AlertDescription::kBadCertificate);
  EXPECT_TRUE(net.server().data.empty());
  EXPECT_EQ(net.client().endpoint->abort(AlertDescription::kBadCertificate).error(),
            Error::kBadState);
}

TEST(Endpoint, ReleasesHandshakeMemoryOnceConnected) {
  auto client = client_config();
  client->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP256)};
  Network net(client, server_config(KeyType::kEcP256));
  const std::size_t before = net.client().endpoint->memory_used();
  net.handshake();
  const std::size_t after = net.client().endpoint->memory_used();
  EXPECT_LT(after, before);
  EXPECT_LT(after, 8192U) << "steady-state bytes per association";
}

// HelloClient is a client endpoint (anonymous servers accepted) started at time 0, for the
// hellos it sends and the HelloVerifyRequests it takes.
class HelloClient {
 public:
  HelloClient() : endpoint_(anonymous_client()) { EXPECT_TRUE(endpoint_.start(Instant{})); }

  // next is the next datagram the client sends.
  std::vector<std::uint8_t> next() {
    std::array<std::uint8_t, 1500> buffer{};
    const Result<Output> out = endpoint_.poll_output(buffer);
    if (!out || out->kind != Output::Kind::kDatagram) {
      ADD_FAILURE() << "the client sent no datagram";
      return {};
    }
    return {buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(out->size)};
  }
  void receive(std::span<std::uint8_t> datagram) {
    EXPECT_TRUE(endpoint_.handle_datagram(Instant{}, datagram));
  }

 private:
  static std::shared_ptr<EndpointConfig> anonymous_client() {
    auto c = client_config();
    c->allow_unauthenticated_peer = true;
    return c;
  }
  Endpoint endpoint_;
};

using Reply = std::array<std::uint8_t, HelloVerifier::kMaxReplySize>;
constexpr std::array<std::uint8_t, 6> kAddress{10, 0, 0, 1, 0, 80};

// Every hello without a cookie gets the same HelloVerifyRequest from a const verifier (the
// state it keeps is its secrets, whatever arrives; dtls_alloc_test shows a flood allocates
// nothing), and garbage gets no reply.
TEST(HelloVerifier, AFloodOfHellosWithoutCookiesGetsOneAnswer) {
  std::array<std::uint8_t, HelloVerifier::kSecretSize> secret{};
  const HelloVerifier verifier(secret);
  const std::vector<std::uint8_t> hello = HelloClient().next();
  Reply first{};
  const HelloVerifier::Outcome o = verifier.check(kAddress, hello, first);
  ASSERT_EQ(o.verdict, HelloVerifier::Verdict::kReply);
  for (int i = 0; i < 1000; ++i) {
    Reply reply{};
    const HelloVerifier::Outcome again = verifier.check(kAddress, hello, reply);
    ASSERT_EQ(again.verdict, HelloVerifier::Verdict::kReply);
    ASSERT_EQ(again.size, o.size);
    ASSERT_TRUE(std::equal(reply.begin(), reply.begin() + o.size, first.begin()));
  }
  // Garbage is dropped without a reply.
  std::array<std::uint8_t, 40> junk{};
  Reply reply{};
  EXPECT_EQ(verifier.check(kAddress, junk, reply).verdict, HelloVerifier::Verdict::kDrop);
}

// split_hello puts the ClientHello of a one-record datagram into two records of one datagram,
// the hello in two fragments split at `at` (as OpenSSL over a memory BIO, aiortc's DTLS, sends
// a hello); `second_first` puts the second fragment first.
std::vector<std::uint8_t> split_hello(std::span<const std::uint8_t> d, std::size_t at,
                                      bool second_first = false) {
  constexpr std::size_t kRecord = 13;
  constexpr std::size_t kMessage = 12;
  const std::span<const std::uint8_t> body = d.subspan(kRecord + kMessage);
  const auto put24 = [](std::vector<std::uint8_t>& out, std::size_t v) {
    out.insert(out.end(), {static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 8),
                           static_cast<std::uint8_t>(v)});
  };
  const auto record = [&](std::uint8_t sequence, std::size_t offset, std::size_t length) {
    std::vector<std::uint8_t> out(d.begin(), d.begin() + 10);  // type, version, epoch, seq
    out.push_back(sequence);
    out.push_back(static_cast<std::uint8_t>((kMessage + length) >> 8));
    out.push_back(static_cast<std::uint8_t>(kMessage + length));
    out.push_back(d[kRecord]);  // msg_type
    put24(out, body.size());
    out.insert(out.end(), {d[kRecord + 4], d[kRecord + 5]});  // message_seq
    put24(out, offset);
    put24(out, length);
    out.insert(out.end(), body.begin() + static_cast<std::ptrdiff_t>(offset),
               body.begin() + static_cast<std::ptrdiff_t>(offset + length));
    return out;
  };
  std::vector<std::uint8_t> first = record(d[10], 0, at);
  std::vector<std::uint8_t> second =
      record(static_cast<std::uint8_t>(d[10] + 1), at, body.size() - at);
  if (second_first) {
    std::swap(first, second);
  }
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

// A hello fragmented over several records of one datagram is checked whole: aiortc's DTLS
// (OpenSSL over a memory BIO) never sends it otherwise, and without this never connected to
// a server with cookies on. Fragments out of order are not a hello a stateless server can
// check.
TEST(HelloVerifier, AHelloInFragmentsOfOneDatagramIsChecked) {
  std::array<std::uint8_t, HelloVerifier::kSecretSize> secret{};
  const HelloVerifier verifier(secret);
  HelloClient client;
  const std::vector<std::uint8_t> first = client.next();
  Reply reply{};
  EXPECT_EQ(verifier.check(kAddress, split_hello(first, 100, true), reply).verdict,
            HelloVerifier::Verdict::kDrop);
  const HelloVerifier::Outcome o = verifier.check(kAddress, split_hello(first, 100), reply);
  ASSERT_EQ(o.verdict, HelloVerifier::Verdict::kReply);
  Reply whole_reply{};
  const HelloVerifier::Outcome whole = verifier.check(kAddress, first, whole_reply);
  ASSERT_EQ(whole.size, o.size);
  EXPECT_TRUE(std::equal(reply.begin(), reply.begin() + o.size, whole_reply.begin()))
      << "the same hello, whole or in fragments, gets the same cookie";
  client.receive(std::span(reply).first(o.size));
  const std::vector<std::uint8_t> second = client.next();
  ASSERT_GT(second.size(), 26U);
  for (const std::size_t at : {std::size_t{1}, std::size_t{64}, second.size() - 26}) {
    EXPECT_EQ(verifier.check(kAddress, split_hello(second, at), reply).verdict,
              HelloVerifier::Verdict::kAccept)
        << "split at " << at;
  }
}

// record_sequence reads the 48-bit record number of a datagram's first record.
std::uint64_t record_sequence(std::span<const std::uint8_t> d) {
  std::uint64_t sequence = 0;
  for (std::size_t i = 5; i < 11; ++i) {
    sequence = sequence << 8 | d[i];
  }
  return sequence;
}

// RFC 6347 §4.2.1: a stateless HelloVerifyRequest reuses the record number of the hello it
// answers, so the server's flight must not start again at 0: it continues from the number of
// the hello it answers, which a client that keeps an epoch-0 replay window (OpenSSL) would
// otherwise drop, then wait a whole retransmission timeout.
TEST(Endpoint, ServerRecordsContinueFromTheHellosRecordNumber) {
  std::vector<std::uint8_t> hello = HelloClient().next();
  ASSERT_GT(hello.size(), 13U);
  hello[10] = 5;  // the second hello's record number, after a HelloVerifyRequest numbered 4
  Endpoint s(server_config(KeyType::kEcP256));
  ASSERT_TRUE(s.start(Instant{}));
  ASSERT_TRUE(s.handle_datagram(Instant{}, hello));
  std::array<std::uint8_t, 1500> flight{};
  const Result<Output> answer = s.poll_output(flight);
  ASSERT_TRUE(answer && answer->kind == Output::Kind::kDatagram);
  EXPECT_GE(record_sequence(flight), 5U);
}

TEST(HelloVerifier, CookieBindsAddressAndSurvivesOneRotation) {
  std::array<std::uint8_t, HelloVerifier::kSecretSize> secret{};
  HelloVerifier verifier(secret);
  HelloClient client;
  Reply reply{};
  const HelloVerifier::Outcome o = verifier.check(kAddress, client.next(), reply);
  ASSERT_EQ(o.verdict, HelloVerifier::Verdict::kReply);
  client.receive(std::span(reply).first(o.size));
  const std::vector<std::uint8_t> second_hello = client.next();
  EXPECT_EQ(verifier.check(kAddress, second_hello, reply).verdict, HelloVerifier::Verdict::kAccept);
  const std::array<std::uint8_t, 6> other{10, 0, 0, 2, 0, 80};
  EXPECT_EQ(verifier.check(other, second_hello, reply).verdict, HelloVerifier::Verdict::kReply);
  secret.fill(7);
  verifier.rotate(secret);
  EXPECT_EQ(verifier.check(kAddress, second_hello, reply).verdict, HelloVerifier::Verdict::kAccept);
  verifier.rotate(secret);
  EXPECT_EQ(verifier.check(kAddress, second_hello, reply).verdict, HelloVerifier::Verdict::kReply);
}

}  // namespace
}  // namespace wireseal::dtls
