// The real smb::Client against a scripted server with a man in the middle (ScriptedServer):
// a rewritten NEGOTIATE (caught by the 3.1.1 preauth hash, or by 3.0.x's VALIDATE_NEGOTIATE), a
// stripped signature on the final SESSION_SETUP answer, a forged guest or null answer to a logon
// that gave credentials (refused unless the caller opted in), an interim STATUS_PENDING answer
// in clear on an encrypted session, and a directory listing that never ends.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/bytes.h"
#include "smb_scripted_server.h"
#include "smb_test_util.h"
#include "wireseal/smb/authenticator.h"
#include "wireseal/smb/client.h"

namespace wireseal::smb {
namespace {

using test::Bytes;
using test::InterimAnswers;
using test::ScriptedServer;
using test::ScriptedServerConfig;

constexpr std::uint16_t kSessionFlagIsGuest = 0x0001;
constexpr std::uint16_t kSessionFlagIsNull = 0x0002;
constexpr std::size_t kFlagsOffset = 16;

// The client's random source repeats these bytes, so the NTLM ExportedSessionKey it draws is
// exactly them, and the scripted server knows the session key without computing NTLM.
const Bytes kSessionKey = {0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87,
                           0x98, 0xa9, 0xba, 0xcb, 0xdc, 0xed, 0xfe, 0x0f};

ClientConfig ntlm_client(std::vector<Dialect> dialects = {Dialect::kSmb311, Dialect::kSmb302,
                                                          Dialect::kSmb300}) {
  ClientConfig c;
  c.credentials = NtlmCredentials{"alice", "SCRIPTED", "Secret-1", ""};
  c.dialects = std::move(dialects);
  c.random = test::fixed_random(&kSessionKey);
  return c;
}

ScriptedServerConfig server_for(Dialect dialect) {
  ScriptedServerConfig s;
  s.dialect = dialect;
  s.session_key = kSessionKey;
  return s;
}

// FixedKeyAuthenticator is a caller's Authenticator (Kerberos, say) whose exchange ends with a
// key the test knows.
class FixedKeyAuthenticator final : public Authenticator {
 public:
  Result<std::vector<std::uint8_t>> initial_token() override { return Bytes{0x60, 0x00}; }
  Result<std::vector<std::uint8_t>> respond(std::span<const std::uint8_t> /*token*/) override {
    return Bytes{0xa1, 0x00};
  }
  Status finish(std::span<const std::uint8_t> /*token*/) override { return {}; }
  std::span<const std::uint8_t> session_key() const noexcept override { return kSessionKey; }
};

// --- what the middle does to a message

std::uint16_t header_u16(const Bytes& m, std::size_t at) { return load_le16(m.data() + at); }
std::uint32_t header_u32(const Bytes& m, std::size_t at) { return load_le32(m.data() + at); }
Command command_of(const Bytes& m) { return static_cast<Command>(header_u16(m, 12)); }
bool is_final_session_setup(const Bytes& m) {
  return command_of(m) == Command::kSessionSetup && header_u32(m, 8) == kStatusSuccess;
}

void strip_signature(Bytes& m) {
  store_le32(m.data() + kFlagsOffset, header_u32(m, kFlagsOffset) & ~kFlagSigned);
  std::fill_n(m.begin() + kSignatureOffset, kSignatureSize, std::uint8_t{0});
}

// forge_guest turns the final SESSION_SETUP answer into what a party without the password can
// send: success, the guest (or null) flag, no token, no signature.
test::Rewrite forge_guest(std::uint16_t flags) {
  return [flags](Bytes& m) {
    if (is_final_session_setup(m)) {
      store_le16(m.data() + kHeaderSize + 2, flags);
      strip_signature(m);
    }
  };
}

// no_cipher_311 rewrites a 3.1.1 NEGOTIATE answer to pick no cipher (a downgrade to clear).
void no_cipher_311(Bytes& m) {
  if (command_of(m) != Command::kNegotiate) {
    return;
  }
  std::size_t at = header_u32(m, kHeaderSize + 60);
  for (std::uint16_t i = 0; i < header_u16(m, kHeaderSize + 6); ++i) {
    at = (at + 7) & ~std::size_t{7};
    if (header_u16(m, at) == 2) {
      store_le16(m.data() + at + 10, 0);
    }
    at += std::size_t{8} + header_u16(m, at + 2);
  }
}

// no_encryption_30x rewrites a 3.0.x NEGOTIATE answer to drop the ENCRYPTION capability.
void no_encryption_30x(Bytes& m) {
  if (command_of(m) == Command::kNegotiate) {
    store_le32(m.data() + kHeaderSize + 24, header_u32(m, kHeaderSize + 24) & ~0x40u);
  }
}

// refusal is connect's error; a connect that succeeds fails the test (the attack worked).
Error refusal(ScriptedServer& server, const ClientConfig& config) {
  const Result<Client> client = Client::connect(server, config);
  if (client) {
    ADD_FAILURE() << "connected through the attack: encrypts " << client->encrypts() << ", signs "
                  << client->signs();
    return Error::kBadState;
  }
  return client.error();
}

std::string dialect_name(Dialect d) {
  return d == Dialect::kSmb311 ? "3.1.1" : d == Dialect::kSmb302 ? "3.0.2" : "3.0";
}

// --- the honest server: the harness itself works

TEST(SmbHostileServer, TheHonestServerGivesAnEncryptedSessionOnEveryDialect) {
  for (const Dialect d : {Dialect::kSmb311, Dialect::kSmb302, Dialect::kSmb300}) {
    SCOPED_TRACE(dialect_name(d));
    ScriptedServer server(server_for(d));
    Result<Client> client = Client::connect(server, ntlm_client());
    ASSERT_TRUE(client) << to_string(client.error());
    EXPECT_EQ(client->dialect(), d);
    EXPECT_TRUE(client->encrypts());
    const Result<Tree> tree = client->tree_connect("share");
    ASSERT_TRUE(tree) << to_string(tree.error());
    EXPECT_TRUE(tree->encrypted);
    EXPECT_EQ(client->negotiate_validated(), d != Dialect::kSmb311);
    EXPECT_EQ(server.requests(Command::kIoctl), d != Dialect::kSmb311 ? 1 : 0);
    const Result<std::vector<DirectoryEntry>> entries = client->list(*tree, "dir");
    ASSERT_TRUE(entries) << to_string(entries.error());
    EXPECT_EQ(entries->size(), 3u);
    EXPECT_EQ(server.sealed_requests(Command::kQueryDirectory), 2);
    EXPECT_FALSE(server.broken());
  }
}

// --- guest and null answers

TEST(SmbHostileServer, AForgedGuestOrNullAnswerToAnNtlmLogonIsRefused) {
  for (const Dialect d : {Dialect::kSmb311, Dialect::kSmb302}) {
    for (const std::uint16_t flags : {kSessionFlagIsGuest, kSessionFlagIsNull}) {
      SCOPED_TRACE(dialect_name(d) + (flags == kSessionFlagIsGuest ? " guest" : " null"));
      ScriptedServer server(server_for(d));
      server.rewrite_response = forge_guest(flags);
      const Result<Client> client = Client::connect(server, ntlm_client());
      ASSERT_FALSE(client) << "a forged guest session was accepted: encrypts " << client->encrypts()
                           << ", signs " << client->signs();
      EXPECT_EQ(client.error(), Error::kAuthFailed);
      EXPECT_EQ(server.requests(Command::kTreeConnect), 0);
    }
  }
}

TEST(SmbHostileServer, AForgedGuestAnswerHidesNoNegotiateDowngrade) {
  // The whole attack: the middle removes the cipher from the NEGOTIATE answer and makes the
  // logon a guest one, so neither the signed final answer nor VALIDATE_NEGOTIATE can show it.
  ScriptedServer server(server_for(Dialect::kSmb311));
  const test::Rewrite guest = forge_guest(kSessionFlagIsGuest);
  server.rewrite_response = [&](Bytes& m) {
    no_cipher_311(m);
    guest(m);
  };
  const Result<Client> client = Client::connect(server, ntlm_client());
  ASSERT_FALSE(client) << "downgraded to a guest session in clear";
  EXPECT_EQ(client.error(), Error::kAuthFailed);
}

TEST(SmbHostileServer, AForgedGuestAnswerToTheCallersAuthenticatorIsRefused) {
  FixedKeyAuthenticator auth;
  ScriptedServerConfig sc = server_for(Dialect::kSmb311);
  sc.ntlm = false;
  ClientConfig config;
  config.authenticator = &auth;
  {
    ScriptedServer honest(sc);
    const Result<Client> client = Client::connect(honest, config);
    ASSERT_TRUE(client) << to_string(client.error());
    EXPECT_TRUE(client->encrypts());
  }
  ScriptedServer server(sc);
  server.rewrite_response = forge_guest(kSessionFlagIsGuest);
  const Result<Client> client = Client::connect(server, config);
  ASSERT_FALSE(client) << "a forged guest session was accepted";
  EXPECT_EQ(client.error(), Error::kAuthFailed);
}

TEST(SmbHostileServer, AGuestSessionIsAcceptedOnlyWhenTheCallerOptsIn) {
  ClientConfig config = ntlm_client();
  config.allow_insecure_guest = true;
  ScriptedServer server(server_for(Dialect::kSmb311));
  server.rewrite_response = forge_guest(kSessionFlagIsGuest);
  Result<Client> client = Client::connect(server, config);
  ASSERT_TRUE(client) << to_string(client.error());
  // What the caller opted into: nothing protected.
  EXPECT_FALSE(client->encrypts());
  EXPECT_FALSE(client->signs());
  const Result<Tree> tree = client->tree_connect("share");
  ASSERT_TRUE(tree) << to_string(tree.error());
  EXPECT_FALSE(tree->encrypted);
  EXPECT_EQ(server.signed_requests(Command::kTreeConnect), 0);
  // Even opted in, nothing can be required of a session without a key.
  config.encryption = EncryptionPolicy::kRequired;
  ScriptedServer again(server_for(Dialect::kSmb311));
  again.rewrite_response = forge_guest(kSessionFlagIsGuest);
  EXPECT_EQ(refusal(again, config), Error::kUnsupported);
}

TEST(SmbHostileServer, AnAnonymousLogonAsksForAKeylessSession) {
  // Empty credentials ask for no key: the server's null answer (unsigned: it has no key to
  // sign with) is what was asked for, without the opt-in.
  for (const std::uint16_t flags : {kSessionFlagIsNull, kSessionFlagIsGuest}) {
    ScriptedServerConfig sc = server_for(Dialect::kSmb311);
    sc.session_key.clear();
    sc.session_flags = flags;
    ScriptedServer server(sc);
    ClientConfig config;
    Result<Client> client = Client::connect(server, config);
    ASSERT_TRUE(client) << to_string(client.error());
    EXPECT_FALSE(client->encrypts());
    EXPECT_TRUE(client->tree_connect("pub"));
  }
}

// --- a rewritten NEGOTIATE, a stripped signature

TEST(SmbHostileServer, ARewrittenNegotiateIsCaughtByThe311PreauthHash) {
  // Answer rewritten (no cipher), or request rewritten (so the server hashes other bytes).
  ScriptedServer answer(server_for(Dialect::kSmb311));
  answer.rewrite_response = &no_cipher_311;
  EXPECT_EQ(refusal(answer, ntlm_client()), Error::kAuthFailed);
  ScriptedServer request(server_for(Dialect::kSmb311));
  request.rewrite_request = [](Bytes& m) {
    if (command_of(m) == Command::kNegotiate) {
      m[kHeaderSize + 4] ^= 0x02;  // SecurityMode: signing required
    }
  };
  EXPECT_EQ(refusal(request, ntlm_client()), Error::kAuthFailed);
}

TEST(SmbHostileServer, ARewrittenNegotiateIsCaughtByValidateNegotiateOn30x) {
  for (const Dialect d : {Dialect::kSmb302, Dialect::kSmb300}) {
    SCOPED_TRACE(dialect_name(d));
    ScriptedServer server(server_for(d));
    server.rewrite_response = &no_encryption_30x;
    Result<Client> client = Client::connect(server, ntlm_client({d}));
    ASSERT_TRUE(client) << to_string(client.error());  // 3.0.x cannot tell yet
    EXPECT_FALSE(client->encrypts());
    const Result<Tree> tree = client->tree_connect("share");
    ASSERT_FALSE(tree) << "a downgraded NEGOTIATE went unnoticed";
    EXPECT_EQ(tree.error(), Error::kAuthFailed);
    EXPECT_EQ(server.signed_requests(Command::kIoctl), 1);
    EXPECT_FALSE(client->negotiate_validated());
    EXPECT_TRUE(client->failed());
  }
}

TEST(SmbHostileServer, AFinalSessionSetupAnswerWithoutItsSignatureIsRefused) {
  for (const Dialect d : {Dialect::kSmb311, Dialect::kSmb302}) {
    SCOPED_TRACE(dialect_name(d));
    ScriptedServer server(server_for(d));
    server.rewrite_response = [](Bytes& m) {
      if (is_final_session_setup(m)) {
        strip_signature(m);
      }
    };
    EXPECT_EQ(refusal(server, ntlm_client()), Error::kAuthFailed);
  }
}

// --- interim answers

TEST(SmbHostileServer, AnInterimAnswerInClearOnAnEncryptedSessionIsRefused) {
  ScriptedServerConfig sc = server_for(Dialect::kSmb311);
  sc.interim = InterimAnswers::kInClear;
  ScriptedServer server(sc);
  Result<Client> client = Client::connect(server, ntlm_client());
  ASSERT_TRUE(client) << to_string(client.error());
  ASSERT_TRUE(client->encrypts());
  const Result<Tree> tree = client->tree_connect("share");
  ASSERT_FALSE(tree) << "an interim answer in clear was taken on an encrypted session";
  EXPECT_EQ(tree.error(), Error::kAuthFailed);
  EXPECT_TRUE(client->failed());
}

TEST(SmbHostileServer, InterimAnswersProtectedLikeTheirRequestAreTaken) {
  for (const bool encrypt : {true, false}) {
    SCOPED_TRACE(encrypt ? "sealed" : "signed");
    ScriptedServerConfig sc = server_for(Dialect::kSmb311);
    sc.interim = InterimAnswers::kLikeTheRequest;
    sc.encrypt = encrypt;
    sc.require_signing = !encrypt;
    ScriptedServer server(sc);
    Result<Client> client = Client::connect(server, ntlm_client());
    ASSERT_TRUE(client) << to_string(client.error());
    EXPECT_EQ(client->encrypts(), encrypt);
    const Result<Tree> tree = client->tree_connect("share");
    ASSERT_TRUE(tree) << to_string(tree.error());
    EXPECT_TRUE(client->echo());
  }
}

// --- listings that never end

TEST(SmbHostileServer, AListingPastTheEntryBoundStopsWithTableFull) {
  ScriptedServerConfig sc = server_for(Dialect::kSmb311);
  sc.list_rounds = 1000;  // 100,000 entries: far past the bound, but finite
  sc.list_entries_per_round = 100;
  ScriptedServer server(sc);
  ClientConfig config = ntlm_client();
  config.max_list_entries = 1000;
  Result<Client> client = Client::connect(server, config);
  ASSERT_TRUE(client) << to_string(client.error());
  const Result<Tree> tree = client->tree_connect("share");
  ASSERT_TRUE(tree);
  const Result<std::vector<DirectoryEntry>> entries = client->list(*tree, "flood");
  ASSERT_FALSE(entries) << "took " << entries->size() << " entries past a bound of 1000";
  EXPECT_EQ(entries.error(), Error::kTableFull);
  EXPECT_LE(server.directory_entries_sent(), 1100u);  // it stopped asking at the bound
  EXPECT_EQ(server.requests(Command::kClose), 1);     // and closed the directory
  EXPECT_FALSE(client->failed());
  EXPECT_TRUE(client->echo());
}

TEST(SmbHostileServer, AListingPastTheByteBoundStopsWithTableFull) {
  ScriptedServerConfig sc = server_for(Dialect::kSmb311);
  sc.list_rounds = 1000;
  sc.list_entries_per_round = 100;
  ScriptedServer server(sc);
  ClientConfig config = ntlm_client();
  config.max_list_bytes = 64 * 1024;
  Result<Client> client = Client::connect(server, config);
  ASSERT_TRUE(client) << to_string(client.error());
  const Result<Tree> tree = client->tree_connect("share");
  ASSERT_TRUE(tree);
  const Result<std::vector<DirectoryEntry>> entries = client->list(*tree, "flood");
  ASSERT_FALSE(entries) << "took " << entries->size() << " entries past 64 KiB";
  EXPECT_EQ(entries.error(), Error::kTableFull);
  EXPECT_LE(server.directory_entries_sent() * sizeof(DirectoryEntry), 2u * 64 * 1024);
}

TEST(SmbHostileServer, ListingRoundsWithoutEntriesAreMalformed) {
  // Success with an empty buffer, round after round: no growth, but no end either.
  ScriptedServerConfig sc = server_for(Dialect::kSmb311);
  sc.list_rounds = 10000;
  sc.list_entries_per_round = 0;
  ScriptedServer server(sc);
  Result<Client> client = Client::connect(server, ntlm_client());
  ASSERT_TRUE(client) << to_string(client.error());
  const Result<Tree> tree = client->tree_connect("share");
  ASSERT_TRUE(tree);
  const Result<std::vector<DirectoryEntry>> entries = client->list(*tree, "empty");
  ASSERT_FALSE(entries) << "asked " << server.requests(Command::kQueryDirectory) << " times";
  EXPECT_EQ(entries.error(), Error::kMalformed);
  EXPECT_EQ(server.requests(Command::kQueryDirectory), 1);
}

TEST(SmbHostileServer, ListingBoundsHaveTheDocumentedDefaults) {
  const ClientConfig config;
  EXPECT_EQ(config.max_list_entries, 1'000'000u);
  EXPECT_EQ(config.max_list_bytes, std::size_t{64} << 20);
  EXPECT_FALSE(config.allow_insecure_guest);
}

}  // namespace
}  // namespace wireseal::smb
