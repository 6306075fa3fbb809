// Connection: several sessions on one connection, protection chosen per request and required of
// each response, the unverified final SESSION_SETUP response, credits, compound chains and the
// NEGOTIATE preauth hash — against SecureChannel as the server side, over the in-memory pipe.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <vector>

#include "smb_test_util.h"
#include "wireseal/io/pipe.h"
#include "wireseal/smb/connection.h"
#include "wireseal/smb/secure_channel.h"

namespace wireseal::smb {
namespace {

using test::Bytes;

const Bytes kKeyA(16, 0x5A);
const Bytes kKeyB(16, 0xA5);
const Bytes kPreauth(64, 0x11);
constexpr std::uint64_t kSessionA = 0x1001;
constexpr std::uint64_t kSessionB = 0x2002;

SessionConfig session(std::uint64_t id, const Bytes& key, Protection p, Role role) {
  SessionConfig c;
  c.role = role;
  c.protection = p;
  c.session_id = id;
  c.session_key = key;
  c.preauth_hash = kPreauth;
  return c;
}

template <class Sink>
void drain(io::MemoryPipe::Endpoint& from, Sink& sink) {
  while (from.readable() > 0) {
    sink.commit(from.read(sink.read_space()));
  }
}

// Fixture: a client connection with sessions A (signing) and B (encrypting) installed, and one
// server-side SecureChannel per session and protection it answers with.
class SmbConnection : public ::testing::Test {
 protected:
  SmbConnection()
      : pipe_(1 << 20), connection_(ConnectionConfig{.max_sessions = 4, .credits = 64}) {
    EXPECT_TRUE(connection_.install(
        SessionSecurity(session(kSessionA, kKeyA, Protection::kSigned, Role::kClient))));
    EXPECT_TRUE(connection_.install(
        SessionSecurity(session(kSessionB, kKeyB, Protection::kEncrypted, Role::kClient))));
  }

  // send adds one ECHO for `session_id` and writes its frame into the pipe.
  std::uint64_t send(std::uint64_t session_id, bool encrypt = false) {
    Request r;
    r.session_id = session_id;
    r.encrypt = encrypt;
    const Result<std::uint64_t> id = connection_.add(r, 4);
    EXPECT_TRUE(id);
    const Result<std::span<const std::uint8_t>> frame = connection_.flush();
    EXPECT_TRUE(frame);
    return id ? *id : 0;
  }

  // send_interim sends an interim STATUS_PENDING answer to `message_id` through `server` (its
  // session and protection), granting `credits`.
  void send_interim(SecureChannel& server, std::uint64_t message_id, std::uint16_t credits) {
    Smb2Header h;
    h.flags = kFlagServerToRedir | kFlagAsyncCommand;
    h.command = Command::kEcho;
    h.message_id = message_id;
    h.async_id = 77;
    h.status = kStatusPending;
    h.credits = credits;
    const Result<std::span<const std::uint8_t>> frame = server.send(h, 4);
    ASSERT_TRUE(frame);
    pipe_.server().write(*frame);
    drain(pipe_.client(), connection_);
  }

  // answer sends a response to `message_id` through `server` (its session and protection).
  void answer(SecureChannel& server, std::uint64_t message_id, std::uint16_t credits = 1,
              Command command = Command::kEcho, std::uint32_t status = 0) {
    Smb2Header h;
    h.flags = kFlagServerToRedir;
    h.command = command;
    h.message_id = message_id;
    h.credits = credits;
    h.status = status;
    const Result<std::span<const std::uint8_t>> frame = server.send(h, 4);
    ASSERT_TRUE(frame);
    pipe_.server().write(*frame);
    drain(pipe_.client(), connection_);
  }

  io::MemoryPipe pipe_;
  Connection connection_;
};

TEST_F(SmbConnection, EachSessionProtectsAndOpensItsOwnMessages) {
  SecureChannel server_a(session(kSessionA, kKeyA, Protection::kSigned, Role::kServer));
  SecureChannel server_b(session(kSessionB, kKeyB, Protection::kEncrypted, Role::kServer));
  const std::uint64_t a = send(kSessionA);
  const std::uint64_t b = send(kSessionB);
  answer(server_b, b);
  answer(server_a, a);
  const auto rb = connection_.poll();
  ASSERT_TRUE(rb && rb->has_value());
  EXPECT_EQ((*rb)->message_id, b);
  EXPECT_TRUE((*rb)->encrypted);
  const auto ra = connection_.poll();
  ASSERT_TRUE(ra && ra->has_value());
  EXPECT_EQ((*ra)->message_id, a);
  EXPECT_FALSE((*ra)->encrypted);
  EXPECT_TRUE((*ra)->header.is_signed());
  EXPECT_EQ(connection_.in_flight(), 0u);
}

TEST_F(SmbConnection, AnEncryptedRequestNeedsAnEncryptedResponse) {
  // Session A signs; this request asks for encryption (a share that encrypts). A response that
  // is only signed — valid signature and all — is a downgrade.
  SecureChannel signed_server(session(kSessionA, kKeyA, Protection::kSigned, Role::kServer));
  const std::uint64_t id = send(kSessionA, /*encrypt=*/true);
  answer(signed_server, id);
  EXPECT_EQ(connection_.poll().error(), Error::kAuthFailed);
}

TEST_F(SmbConnection, AnUnsignedResponseOnASigningSessionIsRefused) {
  SecureChannel plain(session(kSessionA, kKeyA, Protection::kNone, Role::kServer));
  const std::uint64_t id = send(kSessionA);
  answer(plain, id);
  EXPECT_EQ(connection_.poll().error(), Error::kAuthFailed);
}

TEST_F(SmbConnection, AResponseFromAnotherSessionIsRefused) {
  // Session B encrypts everything: a response merely signed with B's SessionId is refused.
  SecureChannel signed_b(session(kSessionB, kKeyB, Protection::kSigned, Role::kServer));
  std::uint64_t id = send(kSessionA);
  answer(signed_b, id);
  EXPECT_EQ(connection_.poll().error(), Error::kAuthFailed);
  // Session C signs too and its signature is good, but the request was A's.
  constexpr std::uint64_t kSessionC = 0x5005;
  const Bytes key_c(16, 0x3C);
  ASSERT_TRUE(connection_.install(
      SessionSecurity(session(kSessionC, key_c, Protection::kSigned, Role::kClient))));
  SecureChannel server_c(session(kSessionC, key_c, Protection::kSigned, Role::kServer));
  id = send(kSessionA);
  answer(server_c, id);
  EXPECT_EQ(connection_.poll().error(), Error::kWrongContext);
}

TEST_F(SmbConnection, FinalSessionSetupResponseIsVerifiedOnceItsSessionIsInstalled) {
  constexpr std::uint64_t kNew = 0x3003;
  const Bytes key(16, 0x77);
  Request r;
  r.command = Command::kSessionSetup;
  r.session_id = kNew;  // not installed yet: sent in clear
  const Result<std::uint64_t> id = connection_.add(r, 4);
  ASSERT_TRUE(id);
  ASSERT_TRUE(connection_.flush());
  SecureChannel server(session(kNew, key, Protection::kSigned, Role::kServer));
  answer(server, *id, 1, Command::kSessionSetup);
  const auto resp = connection_.poll();
  ASSERT_TRUE(resp && resp->has_value());
  EXPECT_FALSE((*resp)->verified);
  ASSERT_TRUE(
      connection_.install(SessionSecurity(session(kNew, key, Protection::kSigned, Role::kClient))));
  EXPECT_TRUE(connection_.verify(**resp));
  // The same message with one byte changed does not verify.
  (*resp)->body[0] ^= 1;
  EXPECT_EQ(connection_.verify(**resp).error(), Error::kAuthFailed);
  // A signed response for a session nobody set up, to anything but SESSION_SETUP, is refused.
  const std::uint64_t echo = send(0);
  SecureChannel stranger(session(0x4004, key, Protection::kSigned, Role::kServer));
  answer(stranger, echo);
  EXPECT_EQ(connection_.poll().error(), Error::kWrongContext);
}

TEST_F(SmbConnection, AnInterimPendingResponseOnlyGrantsCredits) {
  SecureChannel server(session(kSessionA, kKeyA, Protection::kSigned, Role::kServer));
  const std::uint64_t id = send(kSessionA);
  const std::uint32_t before = connection_.credits();
  // §3.3.4.2: the server goes async — an interim STATUS_PENDING with an AsyncId — and answers
  // later under the same MessageId.
  send_interim(server, id, 3);
  const auto nothing = connection_.poll();
  ASSERT_TRUE(nothing);
  EXPECT_FALSE(nothing->has_value());
  EXPECT_EQ(connection_.credits(), before + 3);
  EXPECT_EQ(connection_.in_flight(), 1u);
  answer(server, id, 2);
  const auto final_response = connection_.poll();
  ASSERT_TRUE(final_response && final_response->has_value());
  EXPECT_EQ((*final_response)->message_id, id);
  EXPECT_EQ(connection_.credits(), before + 5);
  EXPECT_EQ(connection_.in_flight(), 0u);
}

TEST_F(SmbConnection, AnInterimResponseInClearOnAnEncryptingSessionIsRefused) {
  // Session B encrypts everything: an interim answer in clear is forged (its credits would
  // steer the client), even though interim answers are not signature-checked.
  SecureChannel plain_b(session(kSessionB, kKeyB, Protection::kNone, Role::kServer));
  const std::uint64_t id = send(kSessionB);
  const std::uint32_t before = connection_.credits();
  send_interim(plain_b, id, 7);
  const auto polled = connection_.poll();
  ASSERT_FALSE(polled) << "an interim answer in clear was taken";
  EXPECT_EQ(polled.error(), Error::kAuthFailed);
  EXPECT_EQ(connection_.credits(), before);
}

TEST_F(SmbConnection, AnInterimResponseInClearToAnEncryptedRequestIsRefused) {
  // Session A only signs; this request was sealed (a share that encrypts).
  SecureChannel plain_a(session(kSessionA, kKeyA, Protection::kNone, Role::kServer));
  const std::uint64_t id = send(kSessionA, /*encrypt=*/true);
  send_interim(plain_a, id, 7);
  const auto polled = connection_.poll();
  ASSERT_FALSE(polled) << "an interim answer in clear was taken";
  EXPECT_EQ(polled.error(), Error::kAuthFailed);
}

TEST_F(SmbConnection, InterimResponsesSealedOrOnASigningSessionUnsignedAreAccepted) {
  // What real servers send: sealed where the request was, and (MS-SMB2 §3.2.5.1.3: interim
  // answers are not signature-checked) possibly unsigned on a signing session.
  SecureChannel sealed_b(session(kSessionB, kKeyB, Protection::kEncrypted, Role::kServer));
  SecureChannel plain_a(session(kSessionA, kKeyA, Protection::kNone, Role::kServer));
  const std::uint64_t b = send(kSessionB);
  const std::uint64_t a = send(kSessionA);
  const std::uint32_t before = connection_.credits();
  send_interim(sealed_b, b, 2);
  send_interim(plain_a, a, 3);
  const auto nothing = connection_.poll();
  ASSERT_TRUE(nothing) << to_string(nothing.error());
  EXPECT_FALSE(nothing->has_value());
  EXPECT_EQ(connection_.credits(), before + 5);
  EXPECT_EQ(connection_.in_flight(), 2u);
}

TEST_F(SmbConnection, CreditsBoundWhatIsSentAndResponsesGrantMore) {
  Connection c(ConnectionConfig{.credits = 1});
  Request r;
  ASSERT_TRUE(c.add(r, 4));
  ASSERT_TRUE(c.flush());
  EXPECT_EQ(c.add(r, 4).error(), Error::kBadState);  // no credit left
  r.credit_charge = 2;
  EXPECT_EQ(c.credits(), 0u);
  SecureChannel server(session(0, kKeyA, Protection::kNone, Role::kServer));
  Smb2Header h;
  h.flags = kFlagServerToRedir;
  h.command = Command::kEcho;
  h.message_id = 0;
  h.credits = 5;
  const auto frame = server.send(h, 4);
  ASSERT_TRUE(frame);
  pipe_.server().write(*frame);
  drain(pipe_.client(), c);
  ASSERT_TRUE(c.poll());
  EXPECT_EQ(c.credits(), 5u);
  const Result<std::uint64_t> two = c.add(r, 4);  // a 2-credit request takes two MessageIds
  ASSERT_TRUE(two);
  EXPECT_EQ(*two, 1u);
  EXPECT_EQ(c.next_message_id(), 3u);
  EXPECT_EQ(c.credits(), 3u);
}

TEST_F(SmbConnection, ACompoundChainBelongsToOneSessionAndProtection) {
  Request r;
  r.session_id = kSessionA;
  ASSERT_TRUE(connection_.add(r, 4));
  r.session_id = kSessionB;
  EXPECT_EQ(connection_.add(r, 4).error(), Error::kBadState);
  r.session_id = kSessionA;
  r.encrypt = true;
  EXPECT_EQ(connection_.add(r, 4).error(), Error::kBadState);
  r.encrypt = false;
  r.flags = kFlagRelatedOperations;
  ASSERT_TRUE(connection_.add(r, 4));
  const Result<std::span<const std::uint8_t>> frame = connection_.flush();
  ASSERT_TRUE(frame);
  // Two members, 8-byte aligned, each signed on its own: 4 + (64 + 4 + 4 padding) + 64 + 4.
  EXPECT_EQ(frame->size(), 4u + 72u + 68u);
}

TEST_F(SmbConnection, TheNegotiateExchangeIsThePreauthHash) {
  Connection c;
  Request r;
  r.command = Command::kNegotiate;
  const std::span<std::uint8_t> body = c.request_body();
  std::fill_n(body.begin(), 36, std::uint8_t{0x42});
  ASSERT_TRUE(c.add(r, 36));
  const Bytes request(c.pending_chain().begin(), c.pending_chain().end());
  ASSERT_TRUE(c.flush());
  SecureChannel server(session(0, kKeyA, Protection::kNone, Role::kServer));
  Smb2Header h;
  h.flags = kFlagServerToRedir;
  h.command = Command::kNegotiate;
  const auto frame = server.send(h, 4);
  ASSERT_TRUE(frame);
  const Bytes response(frame->begin() + 4, frame->end());
  pipe_.server().write(*frame);
  drain(pipe_.client(), c);
  ASSERT_TRUE(c.poll());
  // H1 = SHA-512(0^64 || request), H2 = SHA-512(H1 || response), computed with EVP.
  std::array<std::uint8_t, 64> h1{};
  Bytes in(64, 0);
  in.insert(in.end(), request.begin(), request.end());
  unsigned int len = 0;
  EVP_Digest(in.data(), in.size(), h1.data(), &len, EVP_sha512(), nullptr);
  in.assign(h1.begin(), h1.end());
  in.insert(in.end(), response.begin(), response.end());
  std::array<std::uint8_t, 64> h2{};
  EVP_Digest(in.data(), in.size(), h2.data(), &len, EVP_sha512(), nullptr);
  EXPECT_TRUE(std::equal(h2.begin(), h2.end(), c.preauth_hash().value().begin()));
}

}  // namespace
}  // namespace wireseal::smb
