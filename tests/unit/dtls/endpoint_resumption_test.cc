// Session resumption between two wireseal endpoints: by session ID through the server's
// SessionCache and by RFC 5077 ticket through SessionTicketKeys; what makes a server decline
// (an unknown, tampered, expired or rotated-out session), the EMS rules of RFC 7627 §5.3,
// and the abbreviated handshake on a lossy link. Also the NSS key log, whose lines must let a
// reader (io::KeyLog) recover each association's master secret, resumed ones included.
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "endpoint_harness.h"
#include "support/hex.h"
#include "wireseal/dtls/session.h"
#include "wireseal/io/keylog.h"

namespace wireseal::dtls {
namespace {

using crypto::KeyType;
using test::Network;

std::array<std::uint8_t, SessionTicketKeys::kSecretSize> secret_of(std::uint8_t fill) {
  std::array<std::uint8_t, SessionTicketKeys::kSecretSize> secret{};
  secret.fill(fill);
  return secret;
}

std::shared_ptr<EndpointConfig> client_config() { return test::client_pinned_to(KeyType::kEcP256); }

std::shared_ptr<EndpointConfig> server_config() { return test::server_with(KeyType::kEcP256); }

std::shared_ptr<EndpointConfig> caching_server() {
  auto c = server_config();
  c->session_cache = std::make_shared<SessionCache>();
  return c;
}

std::shared_ptr<EndpointConfig> ticket_server(std::uint8_t secret = 0x11) {
  auto c = server_config();
  c->session_ticket_keys = std::make_shared<SessionTicketKeys>(secret_of(secret));
  return c;
}

// full_handshake connects once and returns the client's session.
Session full_handshake(const std::shared_ptr<EndpointConfig>& client,
                       const std::shared_ptr<EndpointConfig>& server) {
  Network net(client, server);
  net.handshake();
  EXPECT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_FALSE(net.client().endpoint->negotiated().resumed);
  Result<Session> session = net.client().endpoint->session();
  EXPECT_TRUE(session) << to_string(session.error());
  return session ? std::move(*session) : Session{};
}

void expect_same_keys(Endpoint& a, Endpoint& b) {
  std::array<std::uint8_t, 32> ea{};
  std::array<std::uint8_t, 32> eb{};
  ASSERT_TRUE(a.export_keying_material("EXPERIMENTAL resumption", {}, false, ea));
  ASSERT_TRUE(b.export_keying_material("EXPERIMENTAL resumption", {}, false, eb));
  EXPECT_EQ(ea, eb);
}

// resume offers `saved` and returns whether both sides report a resumed association.
bool resume(const std::shared_ptr<EndpointConfig>& client,
            const std::shared_ptr<EndpointConfig>& server, const Session& saved,
            std::optional<Session>* renewed = nullptr) {
  Network net(client, server);
  EXPECT_TRUE(net.client().endpoint->offer_session(saved));
  net.handshake();
  EXPECT_TRUE(net.client().connected && net.server().connected) << net.describe();
  const bool client_resumed = net.client().endpoint->negotiated().resumed;
  EXPECT_EQ(client_resumed, net.server().endpoint->negotiated().resumed);
  expect_same_keys(*net.client().endpoint, *net.server().endpoint);
  net.send(net.client(), "after resumption");
  EXPECT_EQ(net.server().data.size(), 1U);
  if (renewed != nullptr) {
    Result<Session> next = net.client().endpoint->session();
    if (next) {
      renewed->emplace(std::move(*next));
    }
  }
  return client_resumed;
}

TEST(Resumption, BySessionIdThroughTheServerCache) {
  auto client = client_config();
  auto server = caching_server();
  const Session saved = full_handshake(client, server);
  EXPECT_EQ(saved.id_size, 32U);
  EXPECT_TRUE(saved.ticket.empty());
  EXPECT_EQ(server->session_cache->size(), 1U);
  EXPECT_EQ(saved.peer_auth, PeerAuth::kFingerprint);

  Network net(client, server);
  ASSERT_TRUE(net.client().endpoint->offer_session(saved));
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  const Negotiated& n = net.client().endpoint->negotiated();
  EXPECT_TRUE(n.resumed);
  EXPECT_TRUE(net.server().endpoint->negotiated().resumed);
  EXPECT_EQ(n.suite->code, saved.cipher_suite);
  EXPECT_EQ(n.peer_auth, PeerAuth::kFingerprint);
  EXPECT_TRUE(n.extended_master_secret);
  EXPECT_FALSE(net.client().endpoint->peer_certificate().empty());
  // ServerHello, CCS and Finished in one datagram; CCS and Finished back.
  EXPECT_EQ(net.datagrams_sent(), 3U);
  expect_same_keys(*net.client().endpoint, *net.server().endpoint);
  net.send(net.server(), "resumed");
  ASSERT_EQ(net.client().data.size(), 1U);
  EXPECT_EQ(net.client().data[0], "resumed");
}

// A resumption trusts the verifier's verdict from the full handshake, unless
// reverify_on_resume asks the verifier again about the saved certificate; a refusal then
// keeps the session from being offered, and the full handshake asks about the whole chain.
TEST(Resumption, ReverifyOnResumeAsksThePeerVerifierAgain) {
  test::Judge judge;
  auto client = client_config();
  client->peer_fingerprints.clear();
  client->peer_verifier = judge.verifier();
  auto server = caching_server();
  const Session saved = full_handshake(client, server);
  EXPECT_EQ(saved.peer_auth, PeerAuth::kVerifier);
  EXPECT_EQ(judge.calls, 1);

  judge.accept = false;
  EXPECT_TRUE(resume(client, server, saved));
  EXPECT_EQ(judge.calls, 1);  // not asked: no certificate in an abbreviated handshake

  client->reverify_on_resume = true;
  Network refused(client, server);
  EXPECT_EQ(refused.client().endpoint->offer_session(saved).error(), Error::kAuthFailed);
  EXPECT_EQ(judge.calls, 2);
  EXPECT_EQ(judge.chain_size, 1U);  // the saved leaf
  refused.handshake();              // a full one, whose certificate the verifier refuses too
  EXPECT_FALSE(refused.client().connected);
  EXPECT_FALSE(refused.client().endpoint->negotiated().resumed);
  EXPECT_EQ(refused.client().endpoint->failure().alert, AlertDescription::kCertificateUnknown);
  EXPECT_EQ(judge.calls, 3);

  judge.accept = true;
  Network again(client, server);
  ASSERT_TRUE(again.client().endpoint->offer_session(saved));
  again.handshake();
  ASSERT_TRUE(again.client().connected) << again.describe();
  EXPECT_TRUE(again.client().endpoint->negotiated().resumed);
  EXPECT_EQ(again.client().endpoint->negotiated().peer_auth, PeerAuth::kVerifier);
  EXPECT_EQ(judge.calls, 4);
}

// A client pinned today to another server's fingerprint does not resume a session saved
// with the first one, whatever reverify_on_resume says: it does not offer the session, and
// the full handshake refuses the server it reaches.
TEST(Resumption, ClientPinnedElsewhereSinceDoesNotResume) {
  auto server = caching_server();  // serves the P-256 certificate
  const Session saved = full_handshake(client_config(), server);
  for (const bool reverify : {false, true}) {
    auto repinned = client_config();
    repinned->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP384)};
    repinned->reverify_on_resume = reverify;
    Network net(repinned, server);
    EXPECT_EQ(net.client().endpoint->offer_session(saved).error(), Error::kAuthFailed);
    net.handshake();
    EXPECT_FALSE(net.client().connected) << "reverify_on_resume " << reverify;
    EXPECT_FALSE(net.client().endpoint->negotiated().resumed);
    EXPECT_EQ(net.client().endpoint->failure().error, Error::kAuthFailed);
  }
  // Pinned to both, it resumes, and says the fingerprint proved the server.
  auto both = client_config();
  both->peer_fingerprints.push_back(test::fingerprint_of(KeyType::kEcP384));
  Network net(both, server);
  ASSERT_TRUE(net.client().endpoint->offer_session(saved));
  net.handshake();
  ASSERT_TRUE(net.client().connected) << net.describe();
  EXPECT_TRUE(net.client().endpoint->negotiated().resumed);
  EXPECT_EQ(net.client().endpoint->negotiated().peer_auth, PeerAuth::kFingerprint);
}

// A server whose client pins changed since runs a full handshake for a session of a client
// it no longer accepts, by session ID and by ticket alike.
TEST(Resumption, ServerPinnedElsewhereSinceRunsAFullHandshake) {
  for (const bool by_ticket : {false, true}) {
    auto client = client_config();
    client->certificate = test::copy_certificate(KeyType::kEcP384);
    client->session_tickets = by_ticket;
    auto server = by_ticket ? ticket_server() : caching_server();
    server->allow_unauthenticated_peer = false;
    server->peer_fingerprints = {test::fingerprint_of(KeyType::kEcP384)};
    const Session saved = full_handshake(client, server);
    ASSERT_TRUE(saved.resumable());

    // The same server, its cache and ticket keys, pinned to another client since.
    auto repinned = server_config();
    repinned->allow_unauthenticated_peer = false;
    repinned->session_cache = server->session_cache;
    repinned->session_ticket_keys = server->session_ticket_keys;
    repinned->peer_fingerprints = {test::fingerprint_of(KeyType::kEd25519)};
    Network net(client, repinned);
    ASSERT_TRUE(net.client().endpoint->offer_session(saved));
    net.handshake();
    EXPECT_FALSE(net.server().endpoint->negotiated().resumed) << "by ticket " << by_ticket;
    EXPECT_FALSE(net.server().connected);  // the full handshake's certificate check refuses
    EXPECT_EQ(net.server().endpoint->failure().error, Error::kAuthFailed);

    // With the client's fingerprint still pinned, the same server resumes.
    repinned->peer_fingerprints.push_back(test::fingerprint_of(KeyType::kEcP384));
    Network again(client, repinned);
    ASSERT_TRUE(again.client().endpoint->offer_session(saved));
    again.handshake();
    ASSERT_TRUE(again.server().connected) << again.describe();
    EXPECT_TRUE(again.server().endpoint->negotiated().resumed);
    EXPECT_EQ(again.server().endpoint->negotiated().peer_auth, PeerAuth::kFingerprint);
  }
}

TEST(Resumption, ByTicketWithARenewedTicketEachTime) {
  auto client = client_config();
  client->session_tickets = true;
  auto server = ticket_server();
  const Session first = full_handshake(client, server);
  EXPECT_EQ(first.id_size, 0U);  // no cache: the ticket alone carries the session
  EXPECT_FALSE(first.ticket.empty());
  EXPECT_EQ(first.ticket_lifetime_hint_seconds, 7200U);

  std::optional<Session> second;
  EXPECT_TRUE(resume(client, server, first, &second));
  ASSERT_TRUE(second);
  EXPECT_NE(second->ticket, first.ticket);
  EXPECT_EQ(second->master_secret, first.master_secret);
  EXPECT_TRUE(resume(client, server, *second));
  EXPECT_TRUE(resume(client, server, first));  // a ticket is not single-use
}

TEST(Resumption, WithoutTicketSupportTheClientGetsNoTicket) {
  auto server = ticket_server();
  Network net(client_config(), server);
  net.handshake();
  ASSERT_TRUE(net.client().connected);
  EXPECT_EQ(net.client().endpoint->session().error(), Error::kUnsupported);
}

TEST(Resumption, TicketsSurviveOneRotationButNotTwo) {
  auto client = client_config();
  client->session_tickets = true;
  auto server = ticket_server();
  const Session saved = full_handshake(client, server);
  server->session_ticket_keys->rotate(secret_of(0x22));
  EXPECT_TRUE(resume(client, server, saved));
  server->session_ticket_keys->rotate(secret_of(0x33));
  EXPECT_FALSE(resume(client, server, saved));
}

TEST(Resumption, AnotherServersTicketOrATamperedOneGetsAFullHandshake) {
  auto client = client_config();
  client->session_tickets = true;
  auto server = ticket_server(0x11);
  Session saved = full_handshake(client, server);
  EXPECT_FALSE(resume(client, ticket_server(0x44), saved));
  for (const std::size_t at : {std::size_t{0}, std::size_t{20}, saved.ticket.size() - 1}) {
    Session tampered = saved;
    tampered.ticket[at] ^= 0x01;
    EXPECT_FALSE(resume(client, server, tampered)) << "byte " << at;
  }
}

TEST(Resumption, UnknownOrForgottenSessionIdGetsAFullHandshake) {
  auto client = client_config();
  auto server = caching_server();
  const Session saved = full_handshake(client, server);
  EXPECT_FALSE(resume(client, caching_server(), saved));  // a server that never saw it
  server->session_cache->remove(saved.session_id());
  EXPECT_FALSE(resume(client, server, saved));
}

TEST(Resumption, PskSessionResumesAsPsk) {
  auto client = std::make_shared<EndpointConfig>();
  client->psk = {1, 2, 3, 4, 5, 6, 7, 8};
  client->psk_identity = {'i', 'd'};
  auto server = std::make_shared<EndpointConfig>();
  server->role = Role::kServer;
  server->psk = client->psk;
  server->psk_identity = client->psk_identity;
  server->session_cache = std::make_shared<SessionCache>();
  const Session saved = full_handshake(client, server);
  EXPECT_EQ(saved.peer_auth, PeerAuth::kPsk);
  Network net(client, server);
  ASSERT_TRUE(net.client().endpoint->offer_session(saved));
  net.handshake();
  ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
  EXPECT_TRUE(net.server().endpoint->negotiated().resumed);
  EXPECT_EQ(net.server().endpoint->negotiated().peer_auth, PeerAuth::kPsk);
}

TEST(Resumption, ServerNoLongerServingTheSuiteRunsAFullHandshake) {
  auto client = client_config();
  auto server = caching_server();
  const Session saved = full_handshake(client, server);
  auto narrower = caching_server();
  narrower->session_cache = server->session_cache;
  narrower->cipher_suites = {saved.cipher_suite == 0xC02B ? std::uint16_t{0xC02C}
                                                          : std::uint16_t{0xC02B}};
  EXPECT_FALSE(resume(client, narrower, saved));
}

TEST(Resumption, OfferSessionRefusesWhatCannotBeResumed) {
  Endpoint client(client_config());
  Session none;
  EXPECT_EQ(client.offer_session(none).error(), Error::kInvalidArgument);
  Session no_ems;
  no_ems.cipher_suite = 0xC02B;
  no_ems.id_size = 32;
  EXPECT_EQ(client.offer_session(no_ems).error(), Error::kInvalidArgument);  // RFC 7627 §5.3
  Session unknown_suite = no_ems;
  unknown_suite.extended_master_secret = true;
  unknown_suite.cipher_suite = 0x0005;
  EXPECT_EQ(client.offer_session(unknown_suite).error(), Error::kInvalidArgument);
  Session good = no_ems;
  good.extended_master_secret = true;
  // The client pins the P-256 server: a session without its certificate, or with another
  // one, is refused as the full handshake would refuse that server.
  EXPECT_EQ(client.offer_session(good).error(), Error::kAuthFailed);
  const std::span<const std::uint8_t> other = test::test_certificate(KeyType::kEcP384).chain.der(0);
  good.peer_certificate.assign(other.begin(), other.end());
  EXPECT_EQ(client.offer_session(good).error(), Error::kAuthFailed);
  const std::span<const std::uint8_t> pinned =
      test::test_certificate(KeyType::kEcP256).chain.der(0);
  good.peer_certificate.assign(pinned.begin(), pinned.end());
  EXPECT_TRUE(client.offer_session(good));
  ASSERT_TRUE(client.start(Instant{}));
  EXPECT_EQ(client.offer_session(good).error(), Error::kBadState);
  Endpoint server(server_config());
  EXPECT_EQ(server.offer_session(good).error(), Error::kBadState);
}

// The server remembers whether EMS made the session: a client that offers it without EMS
// gets a full handshake (RFC 7627 §5.3), and one made without EMS is not resumed with it.
TEST(Resumption, ExtendedMasterSecretMustMatchTheSession) {
  auto client = client_config();
  client->require_extended_master_secret = false;
  auto server = caching_server();
  server->require_extended_master_secret = false;
  Session saved = full_handshake(client, server);
  ASSERT_TRUE(saved.extended_master_secret);
  // A cached session marked as made without EMS: the client's EMS offer no longer matches.
  Session without = saved;
  without.extended_master_secret = false;
  server->session_cache->remove(saved.session_id());
  ASSERT_TRUE(server->session_cache->store(Instant{}, without));
  EXPECT_FALSE(resume(client, server, without));
}

TEST(Resumption, AbbreviatedHandshakeOnALossyLink) {
  auto client = client_config();
  client->session_tickets = true;
  auto server = ticket_server();
  server->session_cache = std::make_shared<SessionCache>();
  const Session saved = full_handshake(client, server);
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    Network net(client, server, {0.3, 0.2, 0.2, seed});
    ASSERT_TRUE(net.client().endpoint->offer_session(saved));
    net.handshake();
    ASSERT_TRUE(net.client().connected && net.server().connected) << net.describe();
    EXPECT_TRUE(net.client().endpoint->negotiated().resumed);
    expect_same_keys(*net.client().endpoint, *net.server().endpoint);
  }
}

void collect_line(void* context, std::string_view line) noexcept {
  static_cast<std::vector<std::string>*>(context)->emplace_back(line);
}

// random_of is the client random of a CLIENT_RANDOM line (the 64 hex digits after the label).
std::array<std::uint8_t, 32> random_of(const std::string& line) {
  const std::vector<std::uint8_t> bytes =
      wireseal::test::from_hex(std::string_view(line).substr(14, 64));
  std::array<std::uint8_t, 32> out{};
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

TEST(KeyLog, OneLinePerAssociationThatRecoversItsMasterSecret) {
  std::vector<std::string> client_lines;
  std::vector<std::string> server_lines;
  auto client = client_config();
  client->keylog = {collect_line, &client_lines};
  auto server = caching_server();
  server->keylog = {collect_line, &server_lines};
  const Session saved = full_handshake(client, server);
  EXPECT_TRUE(resume(client, server, saved));
  ASSERT_EQ(client_lines.size(), 2U);
  EXPECT_EQ(client_lines, server_lines);        // both ends log the same association the same way
  EXPECT_NE(client_lines[0], client_lines[1]);  // a resumption has its own client random
  std::string text;
  for (const std::string& line : client_lines) {
    EXPECT_EQ(line.size(), 14U + 64 + 1 + 96);
    text += line + "\n";
  }
  const io::KeyLog log = io::KeyLog::parse(text);
  ASSERT_EQ(log.size(), 2U);
  EXPECT_EQ(log.malformed_lines(), 0U);
  for (const std::string& line : client_lines) {
    const std::array<std::uint8_t, 32> random = random_of(line);
    const io::KeyLog::MasterSecret* master = log.find(random);
    ASSERT_NE(master, nullptr);
    EXPECT_EQ(*master, saved.master_secret);  // resumption reuses the master secret
  }
}

TEST(SessionCache, BoundedInCountAndAge) {
  SessionCache cache(2, std::chrono::seconds(60));
  const Instant t0{};
  Session s;
  s.cipher_suite = 0xC02B;
  s.id_size = 32;
  for (std::uint8_t i = 1; i <= 3; ++i) {
    s.id.fill(i);
    ASSERT_TRUE(cache.store(t0, s));
  }
  EXPECT_EQ(cache.size(), 2U);
  std::array<std::uint8_t, 32> id{};
  id.fill(1);
  EXPECT_FALSE(cache.find(t0, id));  // the oldest went
  id.fill(3);
  EXPECT_TRUE(cache.find(t0 + std::chrono::seconds(60), id));
  EXPECT_FALSE(cache.find(t0 + std::chrono::seconds(61), id));
  Session no_id;
  EXPECT_EQ(cache.store(t0, no_id).error(), Error::kInvalidArgument);
}

TEST(SessionTicketKeys, SealOpenRoundTripAndEveryTruncationFails) {
  SessionTicketKeys keys(secret_of(7));
  Session s;
  s.cipher_suite = 0xC02F;
  s.extended_master_secret = true;
  s.peer_auth = PeerAuth::kChain;
  s.master_secret.fill(0xAB);
  s.peer_certificate = {1, 2, 3};
  std::vector<std::uint8_t> ticket(keys.sealed_size(s));
  const Result<std::size_t> n = keys.seal(s, system_random(), ticket);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, ticket.size());
  const Result<Session> opened = keys.open(ticket);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->cipher_suite, s.cipher_suite);
  EXPECT_EQ(opened->peer_auth, PeerAuth::kChain);
  EXPECT_EQ(opened->master_secret, s.master_secret);
  EXPECT_EQ(opened->peer_certificate, s.peer_certificate);
  for (std::size_t len = 0; len < ticket.size(); ++len) {
    EXPECT_EQ(keys.open(std::span(ticket).first(len)).error(), Error::kAuthFailed) << len;
  }
  std::vector<std::uint8_t> again(ticket.size());
  ASSERT_TRUE(keys.seal(s, system_random(), again));
  EXPECT_NE(again, ticket);  // a fresh salt, so a fresh key, per ticket
  std::vector<std::uint8_t> small(ticket.size() - 1);
  EXPECT_EQ(keys.seal(s, system_random(), small).error(), Error::kBufferTooSmall);
}

}  // namespace
}  // namespace wireseal::dtls
