// NTLMSSP / SPNEGO client: the MS-NLMP §4.2.4 NTLMv2 example values, a full token exchange
// against a hand-built CHALLENGE (MIC, NTProofStr, key exchange and both mechListMICs checked
// independently), and malformed server tokens.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <string>

#include "common/bytes.h"
#include "smb/auth/spnego.h"
#include "smb_test_util.h"
#include "support/hex.h"
#include "support/random_below.h"
#include "wireseal/smb/ntlm.h"

namespace wireseal::smb {
namespace {

using ::wireseal::test::below;

using test::Bytes;
using wireseal::test::from_hex;
using wireseal::test::to_hex;

Bytes span_bytes(std::span<const std::uint8_t> s) { return Bytes(s.begin(), s.end()); }

// utf16 is UNICODE() of an ASCII string.
Bytes utf16(std::string_view text) {
  Bytes out;
  for (const char c : text) {
    out.push_back(static_cast<std::uint8_t>(c));
    out.push_back(0);
  }
  return out;
}

// (resize and copy: GCC 12 -O3 reports a false -Warray-bounds on vector::insert here)
void append(Bytes& out, std::span<const std::uint8_t> more) {
  const std::size_t at = out.size();
  out.resize(at + more.size());
  std::copy(more.begin(), more.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
}

void append_av(Bytes& out, std::uint16_t id, std::span<const std::uint8_t> value) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  store_le16(out.data() + at, id);
  store_le16(out.data() + at + 2, static_cast<std::uint16_t>(value.size()));
  append(out, value);
}

// OpenSSL's HMAC-MD5 and MD5 (default provider) as the independent oracle.
Bytes evp_hmac_md5(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data) {
  Bytes out(16);
  std::size_t length = 0;
  EXPECT_NE(EVP_Q_mac(nullptr, "HMAC", nullptr, "MD5", nullptr, key.data(), key.size(), data.data(),
                      data.size(), out.data(), out.size(), &length),
            nullptr);
  EXPECT_EQ(length, 16u);
  return out;
}

Bytes evp_md5(std::span<const std::uint8_t> data) {
  Bytes out(16);
  std::size_t length = 0;
  EXPECT_EQ(EVP_Q_digest(nullptr, "MD5", nullptr, data.data(), data.size(), out.data(), &length),
            1);
  return out;
}

// ---- MS-NLMP §4.2.4: NTLMv2 Authentication ----
//
// Inputs (§4.2.1, §4.2.4): User "User", UserDom "Domain", Passwd "Password", server name
// "Server", workstation "COMPUTER", RandomSessionKey 55 × 16, Time 0, ClientChallenge aa × 8,
// ServerChallenge 01 23 45 67 89 ab cd ef, challenge flags 33 82 8a e2.

const Bytes kServerChallenge = from_hex("0123456789abcdef");
const Bytes kClientChallenge(8, 0xaa);
const Bytes kRandomSessionKey(16, 0x55);
constexpr std::uint32_t kSpecFlags = 0xe28a8233;

// The AV pairs of §4.2.4 (ServerName of temp): MsvAvNbDomainName "Domain", MsvAvNbComputerName
// "Server", MsvAvEOL.
Bytes spec_server_name() {
  Bytes av;
  append_av(av, 2, utf16("Domain"));
  append_av(av, 1, utf16("Server"));
  append_av(av, 0, {});
  return av;
}

template <std::size_t N>
std::span<const std::uint8_t, N> fixed(const Bytes& b) {
  EXPECT_EQ(b.size(), N);
  return std::span<const std::uint8_t, N>(b.data(), N);
}

TEST(NtlmSpec, NtOwfV2) {
  // §4.2.4.1.1 NTOWFv2() and LMOWFv2().
  std::array<std::uint8_t, 16> owf{};
  ASSERT_TRUE(ntlm::nt_owf_v2("User", "Domain", "Password", owf));
  EXPECT_EQ(to_hex(owf), "0c868a403bfd7a93a3001ef22ef02e3f");
  // Only the user name is upper-cased: the domain is hashed as given.
  std::array<std::uint8_t, 16> upper{};
  ASSERT_TRUE(ntlm::nt_owf_v2("USER", "Domain", "Password", upper));
  EXPECT_EQ(upper, owf);
  ASSERT_TRUE(ntlm::nt_owf_v2("User", "DOMAIN", "Password", upper));
  EXPECT_NE(upper, owf);
  // Invalid UTF-8 is refused rather than hashed.
  EXPECT_EQ(ntlm::nt_owf_v2("Us\xff", "Domain", "Password", upper).error(),
            Error::kInvalidArgument);
}

TEST(NtlmSpec, Ntlmv2ResponseSessionBaseKeyAndLmv2) {
  std::array<std::uint8_t, 16> owf{};
  ASSERT_TRUE(ntlm::nt_owf_v2("User", "Domain", "Password", owf));
  const Bytes server_name = spec_server_name();
  const Result<ntlm::Ntlmv2Response> r = ntlm::ntlmv2_response(
      owf, fixed<8>(kServerChallenge), fixed<8>(kClientChallenge), 0, server_name);
  ASSERT_TRUE(r);
  // §4.2.4.2.2 NTLMv2 Response (NTProofStr) and §4.2.4.1.2 Session Base Key.
  EXPECT_EQ(to_hex(std::span(r->nt_challenge_response).first(16)),
            "68cd0ab851e51c96aabc927bebef6a1c");
  EXPECT_EQ(to_hex(r->session_base_key), "8de40ccadbc14a82f15cb0ad0de95ca3");
  // §4.2.4.3: the NtChallengeResponse bytes of the AUTHENTICATE_MESSAGE, NTProofStr || temp.
  EXPECT_EQ(to_hex(r->nt_challenge_response),
            "68cd0ab851e51c96aabc927bebef6a1c"
            "0101000000000000"
            "0000000000000000"
            "aaaaaaaaaaaaaaaa"
            "00000000"
            "02000c0044006f006d00610069006e00"
            "01000c00530065007200760065007200"
            "00000000"
            "00000000");
  // §4.2.4.2.1 LMv2 Response.
  std::array<std::uint8_t, 24> lm{};
  ASSERT_TRUE(ntlm::lmv2_response(owf, fixed<8>(kServerChallenge), fixed<8>(kClientChallenge), lm));
  EXPECT_EQ(to_hex(lm), "86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa");
  // §4.2.4.2.3 Encrypted Session Key: RC4(KeyExchangeKey = SessionBaseKey, RandomSessionKey).
  std::array<std::uint8_t, 16> encrypted{};
  ASSERT_TRUE(
      ntlm::encrypt_session_key(r->session_base_key, fixed<16>(kRandomSessionKey), encrypted));
  EXPECT_EQ(to_hex(encrypted), "c5dad2544fc9799094ce1ce90bc9d03e");
  // RC4 is its own inverse: the server recovers the key.
  std::array<std::uint8_t, 16> decrypted{};
  ASSERT_TRUE(ntlm::encrypt_session_key(r->session_base_key, encrypted, decrypted));
  EXPECT_EQ(span_bytes(decrypted), kRandomSessionKey);
}

TEST(NtlmSpec, GssWrapExSealAndSign) {
  // §4.2.4.4 GSS_WrapEx Examples: SeqNum 0, "Plaintext" in UTF-16, keys from RandomSessionKey.
  Result<ntlm::MessageSecurity> c2s = ntlm::MessageSecurity::create(
      fixed<16>(kRandomSessionKey), ntlm::Direction::kClientToServer, kSpecFlags);
  ASSERT_TRUE(c2s);
  EXPECT_EQ(to_hex(c2s->sealing_key()), "59f600973cc4960a25480a7c196e4c58");
  EXPECT_EQ(to_hex(c2s->signing_key()), "4788dc861b4782f35d43fd98fe1a2d39");
  Bytes message = utf16("Plaintext");
  std::array<std::uint8_t, 16> signature{};
  ASSERT_TRUE(c2s->seal(message, signature));
  EXPECT_EQ(to_hex(message), "54e50165bf1936dc996020c1811b0f06fb5f");
  EXPECT_EQ(to_hex(signature), "010000007fb38ec5c55d497600000000");

  // The checksum before its RC4 pass: with no key exchange it is sent as is.
  Result<ntlm::MessageSecurity> plain =
      ntlm::MessageSecurity::create(fixed<16>(kRandomSessionKey), ntlm::Direction::kClientToServer,
                                    kSpecFlags & ~ntlm::kNegotiateKeyExch);
  ASSERT_TRUE(plain);
  ASSERT_TRUE(plain->sign(utf16("Plaintext"), signature));
  EXPECT_EQ(to_hex(signature), "0100000070352851f256430900000000");
  // The sequence number advances with every signature.
  ASSERT_TRUE(plain->sign(utf16("Plaintext"), signature));
  EXPECT_EQ(load_le32(signature.data() + 12), 1u);

  // The server-to-client keys use the other constants (§3.4.5.2, §3.4.5.3).
  Result<ntlm::MessageSecurity> s2c = ntlm::MessageSecurity::create(
      fixed<16>(kRandomSessionKey), ntlm::Direction::kServerToClient, kSpecFlags);
  ASSERT_TRUE(s2c);
  const std::string sign_magic = "session key to server-to-client signing key magic constant";
  Bytes input = kRandomSessionKey;
  input.insert(input.end(), sign_magic.begin(), sign_magic.end());
  input.push_back(0);
  EXPECT_EQ(span_bytes(s2c->signing_key()), evp_md5(input));
}

TEST(NtlmSpec, SignVerifyRoundTrip) {
  const Bytes key(16, 0x42);
  auto make = [&] {
    Result<ntlm::MessageSecurity> m =
        ntlm::MessageSecurity::create(fixed<16>(key), ntlm::Direction::kServerToClient, kSpecFlags);
    EXPECT_TRUE(m);
    return std::move(*m);
  };
  ntlm::MessageSecurity signer = make();
  ntlm::MessageSecurity verifier = make();
  const Bytes message = from_hex("300c060a2b06010401823702020a");
  std::array<std::uint8_t, 16> sig{};
  ASSERT_TRUE(signer.sign(message, sig));
  EXPECT_TRUE(verifier.verify(message, sig));
  ASSERT_TRUE(signer.sign(message, sig));
  sig[5] ^= 1;
  EXPECT_EQ(verifier.verify(message, sig).error(), Error::kAuthFailed);
  EXPECT_EQ(verifier.verify(message, std::span(sig).first(15)).error(), Error::kAuthFailed);
}

// ---- token exchange ----

constexpr std::uint64_t kServerTime = 0x01d9a2b3c4d5e6f7;
constexpr std::uint64_t kClientTime = 0x01d0000000000001;

std::uint64_t fixed_clock(void* /*context*/) noexcept { return kClientTime; }

constexpr std::uint32_t kServerFlags =
    ntlm::kNegotiateUnicode | ntlm::kRequestTarget | ntlm::kNegotiateSign | ntlm::kNegotiateNtlm |
    ntlm::kNegotiateAlwaysSign | 0x00020000 /* TARGET_TYPE_SERVER */ |
    ntlm::kNegotiateExtendedSessionSecurity | ntlm::kNegotiateTargetInfo | ntlm::kNegotiateVersion |
    ntlm::kNegotiate128 | ntlm::kNegotiateKeyExch | ntlm::kNegotiate56;

Bytes server_target_info(bool timestamp) {
  Bytes av;
  append_av(av, 2, utf16("SAMBA"));
  append_av(av, 1, utf16("SMBD"));
  append_av(av, 4, utf16("samba.example"));
  append_av(av, 3, utf16("smbd.samba.example"));
  if (timestamp) {
    std::array<std::uint8_t, 8> t{};
    store_le64(t.data(), kServerTime);
    append_av(av, 7, t);
  }
  append_av(av, 0, {});
  return av;
}

// make_challenge builds a CHALLENGE_MESSAGE: header, VERSION, TargetName, TargetInfo.
Bytes make_challenge(std::uint32_t flags, const Bytes& target_info) {
  const Bytes target_name = utf16("SAMBA");
  Bytes m(56);
  std::copy_n("NTLMSSP", 8, m.begin());
  store_le32(m.data() + 8, 2);
  store_le16(m.data() + 12, static_cast<std::uint16_t>(target_name.size()));
  store_le16(m.data() + 14, static_cast<std::uint16_t>(target_name.size()));
  store_le32(m.data() + 16, 56);
  store_le32(m.data() + 20, flags);
  std::copy(kServerChallenge.begin(), kServerChallenge.end(), m.begin() + 24);
  store_le16(m.data() + 40, static_cast<std::uint16_t>(target_info.size()));
  store_le16(m.data() + 42, static_cast<std::uint16_t>(target_info.size()));
  store_le32(m.data() + 44, static_cast<std::uint32_t>(56 + target_name.size()));
  const std::uint8_t version[] = {6, 1, 0xb1, 0x1d, 0, 0, 0, 15};
  std::copy(std::begin(version), std::end(version), m.begin() + 48);
  append(m, target_name);
  append(m, target_info);
  return m;
}

Bytes wrap_challenge(const Bytes& challenge) {
  spnego::NegTokenRespFields resp;
  resp.neg_state = spnego::NegState::kAcceptIncomplete;
  resp.supported_mech = std::span<const std::uint8_t>(spnego::kNtlmsspOid);
  resp.response_token = std::span<const std::uint8_t>(challenge);
  return spnego::encode_neg_token_resp(resp);
}

struct Authenticate {
  std::uint32_t flags = 0;
  Bytes lm, nt, domain, user, workstation, encrypted_key, mic;
};

Authenticate parse_authenticate(const Bytes& m) {
  Authenticate a;
  EXPECT_GE(m.size(), 88u);
  EXPECT_EQ(Bytes(m.begin(), m.begin() + 8), Bytes({'N', 'T', 'L', 'M', 'S', 'S', 'P', 0}));
  EXPECT_EQ(load_le32(m.data() + 8), 3u);
  const auto field = [&](std::size_t at) {
    const std::size_t len = load_le16(m.data() + at);
    EXPECT_EQ(load_le16(m.data() + at + 2), len);
    const std::size_t off = load_le32(m.data() + at + 4);
    EXPECT_LE(off + len, m.size());
    EXPECT_GE(off, 88u);
    return Bytes(m.begin() + static_cast<std::ptrdiff_t>(off),
                 m.begin() + static_cast<std::ptrdiff_t>(off + len));
  };
  a.lm = field(12);
  a.nt = field(20);
  a.domain = field(28);
  a.user = field(36);
  a.workstation = field(44);
  a.encrypted_key = field(52);
  a.flags = load_le32(m.data() + 60);
  a.mic = Bytes(m.begin() + 72, m.begin() + 88);
  return a;
}

// find_av returns the value of AvId `id` in an AV pair list, or nothing.
std::optional<Bytes> find_av(std::span<const std::uint8_t> av, std::uint16_t id) {
  std::size_t at = 0;
  while (at + 4 <= av.size()) {
    const std::uint16_t this_id = load_le16(av.data() + at);
    const std::size_t len = load_le16(av.data() + at + 2);
    if (at + 4 + len > av.size()) {
      return std::nullopt;
    }
    if (this_id == id) {
      return Bytes(av.begin() + static_cast<std::ptrdiff_t>(at + 4),
                   av.begin() + static_cast<std::ptrdiff_t>(at + 4 + len));
    }
    if (this_id == 0) {
      return std::nullopt;
    }
    at += 4 + len;
  }
  return std::nullopt;
}

// StreamRandom hands out its bytes in order across calls, starting over at the end.
struct StreamRandom {
  Bytes bytes;
  std::size_t next = 0;

  RandomSource source() {
    return RandomSource{[](void* context, std::span<std::uint8_t> out) noexcept {
                          auto* self = static_cast<StreamRandom*>(context);
                          for (std::uint8_t& b : out) {
                            b = self->bytes[self->next];
                            self->next = (self->next + 1) % self->bytes.size();
                          }
                        },
                        this};
  }
};

class NtlmExchange : public ::testing::Test {
 protected:
  // The random source yields the client challenge (8 bytes), then the ExportedSessionKey (16).
  const Bytes random_bytes_ = from_hex(
      "c1c2c3c4c5c6c7c8"
      "e0e1e2e3e4e5e6e7e8e9eaebecedeeef");
  StreamRandom random_{random_bytes_};
  const NtTimeSource clock_{&fixed_clock, nullptr};

  NtlmClient make_client(NtlmCredentials credentials = {"alice", "SAMBA", "Secret-1", "WS1"}) {
    random_.next = 0;
    return NtlmClient(std::move(credentials), random_.source(), clock_);
  }
  std::unique_ptr<NtlmClient> new_client(NtlmCredentials credentials) {
    random_.next = 0;
    return std::make_unique<NtlmClient>(std::move(credentials), random_.source(), clock_);
  }
};

TEST_F(NtlmExchange, InitialTokenParsesBack) {
  NtlmClient client = make_client();
  const Result<Bytes> token = client.initial_token();
  ASSERT_TRUE(token);
  EXPECT_EQ((*token)[0], 0x60);  // GSS InitialContextToken
  const Result<spnego::NegTokenInitFields> init = spnego::parse_neg_token_init(*token);
  ASSERT_TRUE(init);
  ASSERT_EQ(init->mech_types.size(), 1u);
  EXPECT_EQ(span_bytes(init->mech_types[0]), span_bytes(spnego::kNtlmsspOid));
  EXPECT_EQ(to_hex(init->mech_type_list), "300c060a2b06010401823702020a");
  ASSERT_TRUE(init->mech_token);
  const Bytes negotiate = span_bytes(*init->mech_token);
  ASSERT_EQ(negotiate.size(), 40u);
  EXPECT_EQ(Bytes(negotiate.begin(), negotiate.begin() + 8),
            Bytes({'N', 'T', 'L', 'M', 'S', 'S', 'P', 0}));
  EXPECT_EQ(load_le32(negotiate.data() + 8), 1u);
  const std::uint32_t flags = load_le32(negotiate.data() + 12);
  EXPECT_EQ(flags, 0xe2888215u);  // UNICODE REQUEST_TARGET SIGN NTLM ALWAYS_SIGN ESS TARGET_INFO
                                  // VERSION 128 KEY_EXCH 56
  EXPECT_EQ(negotiate[39], 15);   // NTLMSSP_REVISION_W2K3
  Result<bool> offered = ntlm::offers_ntlmssp(*token);
  ASSERT_TRUE(offered);
  EXPECT_TRUE(*offered);
  EXPECT_EQ(client.initial_token().error(), Error::kBadState);
}

TEST_F(NtlmExchange, AuthenticateVerifiesIndependently) {
  NtlmClient client = make_client();
  const Result<Bytes> initial = client.initial_token();
  ASSERT_TRUE(initial);
  const Result<spnego::NegTokenInitFields> init = spnego::parse_neg_token_init(*initial);
  ASSERT_TRUE(init && init->mech_token);
  const Bytes negotiate = span_bytes(*init->mech_token);
  const Bytes mech_types = span_bytes(init->mech_type_list);
  EXPECT_TRUE(client.session_key().empty());

  const Bytes challenge = make_challenge(kServerFlags, server_target_info(true));
  const Result<Bytes> reply = client.respond(wrap_challenge(challenge));
  ASSERT_TRUE(reply) << to_string(reply.error());
  const Result<spnego::NegTokenRespFields> resp = spnego::parse_neg_token_resp(*reply);
  ASSERT_TRUE(resp);
  EXPECT_FALSE(resp->neg_state);
  ASSERT_TRUE(resp->response_token && resp->mech_list_mic);
  const Bytes auth_bytes = span_bytes(*resp->response_token);
  const Authenticate auth = parse_authenticate(auth_bytes);

  EXPECT_EQ(auth.flags, kServerFlags & 0xe2888215u);
  EXPECT_EQ(auth.domain, utf16("SAMBA"));
  EXPECT_EQ(auth.user, utf16("alice"));
  EXPECT_EQ(auth.workstation, utf16("WS1"));
  // MsvAvTimestamp present: LmChallengeResponse is Z(24).
  EXPECT_EQ(auth.lm, Bytes(24, 0));

  // The NTLMv2 response, recomputed from its own temp: the server's timestamp, our client
  // challenge, the server's AV pairs plus MsvAvFlags (MIC) and zero channel bindings.
  ASSERT_GT(auth.nt.size(), 48u);
  const std::span<const std::uint8_t> temp = std::span(auth.nt).subspan(16);
  EXPECT_EQ(load_le64(temp.data() + 8), kServerTime);
  EXPECT_EQ(Bytes(temp.begin() + 16, temp.begin() + 24),
            Bytes(random_bytes_.begin(), random_bytes_.begin() + 8));
  const std::span<const std::uint8_t> av = temp.subspan(28, temp.size() - 32);
  const std::optional<Bytes> av_flags = find_av(av, 6);
  ASSERT_TRUE(av_flags);
  EXPECT_EQ(*av_flags, from_hex("02000000"));
  EXPECT_EQ(find_av(av, 10), Bytes(16, 0));
  EXPECT_EQ(find_av(av, 3), utf16("smbd.samba.example"));
  EXPECT_EQ(Bytes(av.end() - 4, av.end()), Bytes(4, 0));  // MsvAvEOL

  std::array<std::uint8_t, 16> owf{};
  ASSERT_TRUE(ntlm::nt_owf_v2("alice", "SAMBA", "Secret-1", owf));
  const Result<ntlm::Ntlmv2Response> expected =
      ntlm::ntlmv2_response(owf, fixed<8>(kServerChallenge),
                            std::span<const std::uint8_t, 8>(temp.data() + 16, 8), kServerTime, av);
  ASSERT_TRUE(expected);
  EXPECT_EQ(auth.nt, expected->nt_challenge_response);
  // Independently: NTProofStr = HMAC_MD5(NTOWFv2, ServerChallenge || temp).
  Bytes proof_input = kServerChallenge;
  append(proof_input, temp);
  EXPECT_EQ(Bytes(auth.nt.begin(), auth.nt.begin() + 16), evp_hmac_md5(owf, proof_input));

  // Key exchange: the server decrypts the ExportedSessionKey with the SessionBaseKey.
  ASSERT_EQ(auth.encrypted_key.size(), 16u);
  std::array<std::uint8_t, 16> exported{};
  ASSERT_TRUE(ntlm::encrypt_session_key(expected->session_base_key, fixed<16>(auth.encrypted_key),
                                        exported));
  EXPECT_EQ(span_bytes(exported), Bytes(random_bytes_.begin() + 8, random_bytes_.end()));
  EXPECT_EQ(span_bytes(client.session_key()), span_bytes(exported));

  // MIC = HMAC_MD5(ExportedSessionKey, NEGOTIATE || CHALLENGE || AUTHENTICATE with MIC zero).
  Bytes transcript = negotiate;
  append(transcript, challenge);
  Bytes zeroed = auth_bytes;
  std::fill(zeroed.begin() + 72, zeroed.begin() + 88, 0);
  append(transcript, zeroed);
  EXPECT_EQ(auth.mic, evp_hmac_md5(exported, transcript));

  // The client's mechListMIC, as the server checks it.
  Result<ntlm::MessageSecurity> c2s =
      ntlm::MessageSecurity::create(exported, ntlm::Direction::kClientToServer, auth.flags);
  ASSERT_TRUE(c2s);
  EXPECT_TRUE(c2s->verify(mech_types, *resp->mech_list_mic));
  EXPECT_EQ(client.respond(wrap_challenge(challenge)).error(), Error::kBadState);

  // The server's final token: accept-completed with its mechListMIC.
  Result<ntlm::MessageSecurity> s2c =
      ntlm::MessageSecurity::create(exported, ntlm::Direction::kServerToClient, auth.flags);
  ASSERT_TRUE(s2c);
  std::array<std::uint8_t, 16> server_mic{};
  ASSERT_TRUE(s2c->sign(mech_types, server_mic));
  spnego::NegTokenRespFields done;
  done.neg_state = spnego::NegState::kAcceptCompleted;
  done.mech_list_mic = std::span<const std::uint8_t>(server_mic);
  EXPECT_TRUE(client.finish(spnego::encode_neg_token_resp(done)));
  EXPECT_EQ(client.finish({}).error(), Error::kBadState);
}

TEST_F(NtlmExchange, FinishChecksTheServerMechListMic) {
  const Bytes challenge_token =
      wrap_challenge(make_challenge(kServerFlags, server_target_info(true)));
  const auto ready_client = [&] {
    auto client = new_client({"alice", "SAMBA", "Secret-1", ""});
    EXPECT_TRUE(client->initial_token());
    EXPECT_TRUE(client->respond(challenge_token));
    return client;
  };
  const Bytes mech_types = spnego::ntlmssp_mech_type_list();
  std::array<std::uint8_t, 16> exported{};
  std::array<std::uint8_t, 16> good_mic{};
  {
    auto client = ready_client();
    std::copy(client->session_key().begin(), client->session_key().end(), exported.begin());
    Result<ntlm::MessageSecurity> s2c =
        ntlm::MessageSecurity::create(exported, ntlm::Direction::kServerToClient, kServerFlags);
    ASSERT_TRUE(s2c);
    ASSERT_TRUE(s2c->sign(mech_types, good_mic));
  }
  spnego::NegTokenRespFields done;
  done.neg_state = spnego::NegState::kAcceptCompleted;
  done.mech_list_mic = std::span<const std::uint8_t>(good_mic);
  EXPECT_TRUE(ready_client()->finish(spnego::encode_neg_token_resp(done)));

  // A flipped bit, a MIC made with the client-to-server key, a reject: all refused.
  std::array<std::uint8_t, 16> bad_mic = good_mic;
  bad_mic[6] ^= 0x80;
  done.mech_list_mic = std::span<const std::uint8_t>(bad_mic);
  EXPECT_EQ(ready_client()->finish(spnego::encode_neg_token_resp(done)).error(),
            Error::kAuthFailed);
  Result<ntlm::MessageSecurity> c2s =
      ntlm::MessageSecurity::create(exported, ntlm::Direction::kClientToServer, kServerFlags);
  ASSERT_TRUE(c2s);
  ASSERT_TRUE(c2s->sign(mech_types, bad_mic));
  EXPECT_EQ(ready_client()->finish(spnego::encode_neg_token_resp(done)).error(),
            Error::kAuthFailed);
  spnego::NegTokenRespFields reject;
  reject.neg_state = spnego::NegState::kReject;
  EXPECT_EQ(ready_client()->finish(spnego::encode_neg_token_resp(reject)).error(),
            Error::kAuthFailed);
  // No token at all, or accept-completed without a MIC: accepted.
  EXPECT_TRUE(ready_client()->finish({}));
  spnego::NegTokenRespFields bare;
  bare.neg_state = spnego::NegState::kAcceptCompleted;
  EXPECT_TRUE(ready_client()->finish(spnego::encode_neg_token_resp(bare)));
  EXPECT_EQ(ready_client()->finish(from_hex("a1 03 30 01")).error(), Error::kMalformed);
}

TEST_F(NtlmExchange, NoServerTimestampUsesClockAndLmv2) {
  NtlmClient client = make_client();
  ASSERT_TRUE(client.initial_token());
  const Result<Bytes> reply =
      client.respond(wrap_challenge(make_challenge(kServerFlags, server_target_info(false))));
  ASSERT_TRUE(reply);
  const Result<spnego::NegTokenRespFields> resp = spnego::parse_neg_token_resp(*reply);
  ASSERT_TRUE(resp && resp->response_token);
  const Authenticate auth = parse_authenticate(span_bytes(*resp->response_token));
  EXPECT_EQ(load_le64(auth.nt.data() + 16 + 8), kClientTime);
  std::array<std::uint8_t, 16> owf{};
  ASSERT_TRUE(ntlm::nt_owf_v2("alice", "SAMBA", "Secret-1", owf));
  std::array<std::uint8_t, 24> lm{};
  ASSERT_TRUE(ntlm::lmv2_response(owf, fixed<8>(kServerChallenge),
                                  std::span<const std::uint8_t, 8>(random_bytes_.data(), 8), lm));
  EXPECT_EQ(auth.lm, span_bytes(lm));
}

TEST_F(NtlmExchange, WithoutKeyExchangeTheSessionBaseKeyIsExported) {
  NtlmClient client = make_client();
  ASSERT_TRUE(client.initial_token());
  const Result<Bytes> reply = client.respond(wrap_challenge(
      make_challenge(kServerFlags & ~ntlm::kNegotiateKeyExch, server_target_info(true))));
  ASSERT_TRUE(reply);
  const Result<spnego::NegTokenRespFields> resp = spnego::parse_neg_token_resp(*reply);
  ASSERT_TRUE(resp && resp->response_token);
  const Authenticate auth = parse_authenticate(span_bytes(*resp->response_token));
  EXPECT_TRUE(auth.encrypted_key.empty());
  EXPECT_EQ(auth.flags & ntlm::kNegotiateKeyExch, 0u);
  std::array<std::uint8_t, 16> owf{};
  ASSERT_TRUE(ntlm::nt_owf_v2("alice", "SAMBA", "Secret-1", owf));
  // SessionBaseKey = HMAC_MD5(NTOWFv2, NTProofStr).
  EXPECT_EQ(span_bytes(client.session_key()), evp_hmac_md5(owf, std::span(auth.nt).first(16)));
}

TEST_F(NtlmExchange, Anonymous) {
  NtlmClient client = make_client({"", "", "", ""});
  EXPECT_TRUE(client.anonymous());
  ASSERT_TRUE(client.initial_token());
  const Result<Bytes> reply =
      client.respond(wrap_challenge(make_challenge(kServerFlags, server_target_info(true))));
  ASSERT_TRUE(reply);
  const Result<spnego::NegTokenRespFields> resp = spnego::parse_neg_token_resp(*reply);
  ASSERT_TRUE(resp && resp->response_token);
  EXPECT_FALSE(resp->mech_list_mic);
  const Authenticate auth = parse_authenticate(span_bytes(*resp->response_token));
  EXPECT_EQ(auth.lm, Bytes(1, 0));  // MS-NLMP §3.1.5.1.2: Z(1)
  EXPECT_TRUE(auth.nt.empty());
  EXPECT_TRUE(auth.user.empty());
  EXPECT_TRUE(auth.encrypted_key.empty());
  EXPECT_NE(auth.flags & ntlm::kNegotiateAnonymous, 0u);
  EXPECT_EQ(auth.flags & ntlm::kNegotiateKeyExch, 0u);
  EXPECT_EQ(auth.mic, Bytes(16, 0));
  EXPECT_TRUE(client.session_key().empty());
  EXPECT_TRUE(client.finish({}));
}

TEST_F(NtlmExchange, StateAndServerChoices) {
  NtlmClient client = make_client();
  const Bytes good = wrap_challenge(make_challenge(kServerFlags, server_target_info(true)));
  EXPECT_EQ(client.respond(good).error(), Error::kBadState);
  EXPECT_EQ(client.finish({}).error(), Error::kBadState);
  ASSERT_TRUE(client.initial_token());

  // No extended session security (NTLMv1 territory), or no Unicode: refused.
  EXPECT_EQ(
      client
          .respond(wrap_challenge(make_challenge(
              kServerFlags & ~ntlm::kNegotiateExtendedSessionSecurity, server_target_info(true))))
          .error(),
      Error::kUnsupported);
  EXPECT_EQ(client
                .respond(wrap_challenge(make_challenge(kServerFlags & ~ntlm::kNegotiateUnicode,
                                                       server_target_info(true))))
                .error(),
            Error::kUnsupported);
  // The server picks Kerberos, or rejects.
  const Bytes challenge = make_challenge(kServerFlags, server_target_info(true));
  const Bytes krb5_oid = from_hex("2a864886f712010202");
  spnego::NegTokenRespFields other;
  other.neg_state = spnego::NegState::kAcceptIncomplete;
  other.supported_mech = std::span<const std::uint8_t>(krb5_oid);
  other.response_token = std::span<const std::uint8_t>(challenge);
  EXPECT_EQ(client.respond(spnego::encode_neg_token_resp(other)).error(), Error::kUnsupported);
  spnego::NegTokenRespFields reject;
  reject.neg_state = spnego::NegState::kReject;
  EXPECT_EQ(client.respond(spnego::encode_neg_token_resp(reject)).error(), Error::kUnsupported);
  spnego::NegTokenRespFields no_token;
  no_token.neg_state = spnego::NegState::kAcceptIncomplete;
  EXPECT_EQ(client.respond(spnego::encode_neg_token_resp(no_token)).error(), Error::kMalformed);
  // Errors changed nothing: the genuine challenge still works.
  EXPECT_TRUE(client.respond(good));
}

// ---- malformed input ----

TEST_F(NtlmExchange, EveryTruncationOfTheServerTokenFails) {
  NtlmClient client = make_client();
  ASSERT_TRUE(client.initial_token());
  const Bytes challenge = make_challenge(kServerFlags, server_target_info(true));
  const Bytes token = wrap_challenge(challenge);
  for (std::size_t n = 0; n < token.size(); ++n) {
    const Bytes cut(token.begin(), token.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(client.respond(cut)) << n;
  }
  // Truncated NTLM inside well-formed SPNEGO (the message cut before the TargetInfo ends).
  for (std::size_t n = 0; n < challenge.size(); ++n) {
    const Bytes cut(challenge.begin(), challenge.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(client.respond(wrap_challenge(cut))) << n;
  }
  EXPECT_TRUE(client.respond(token));
}

TEST_F(NtlmExchange, BadLengthsAndOffsetsFail) {
  NtlmClient client = make_client();
  ASSERT_TRUE(client.initial_token());
  const Bytes good = make_challenge(kServerFlags, server_target_info(true));
  const auto rejects = [&](const Bytes& challenge) {
    return client.respond(wrap_challenge(challenge)).error() == Error::kMalformed;
  };
  Bytes m = good;
  store_le32(m.data() + 44, 0xffffffff);  // TargetInfo offset past the end
  EXPECT_TRUE(rejects(m));
  m = good;
  store_le16(m.data() + 40, 0xffff);  // TargetInfo length past the end
  EXPECT_TRUE(rejects(m));
  m = good;
  store_le32(m.data() + 16, 0xfffffff0);  // TargetName offset past the end
  EXPECT_TRUE(rejects(m));
  m = good;
  store_le32(m.data() + 8, 3);  // not a CHALLENGE
  EXPECT_TRUE(rejects(m));
  m = good;
  m[0] = 'X';
  EXPECT_TRUE(rejects(m));
  // AV pairs: a pair running past the list, a list without MsvAvEOL, a short timestamp.
  Bytes av;
  append_av(av, 2, utf16("SAMBA"));
  av.resize(av.size() - 2);
  EXPECT_TRUE(rejects(make_challenge(kServerFlags, av)));
  Bytes no_eol;
  append_av(no_eol, 2, utf16("SAMBA"));
  EXPECT_TRUE(rejects(make_challenge(kServerFlags, no_eol)));
  Bytes short_time;
  append_av(short_time, 7, Bytes(4, 1));
  append_av(short_time, 0, {});
  EXPECT_TRUE(rejects(make_challenge(kServerFlags, short_time)));

  // DER: huge and oversized lengths, indefinite length, trailing bytes, wrong tags.
  for (const char* hex : {"a1 84 ff ff ff ff 30 00", "a1 85 00 00 00 00 02 30 00",
                          "a1 80 30 00 00 00", "a1 02 30 00 00", "a0 02 30 00", "a1 04 31 02 a0 00",
                          "a1 83 00 00", "a1 05 30 03 a0 01 0a", "a1 07 30 05 a0 03 0a 01 07",
                          "a1 0a 30 08 a2 02 04 00 a2 02 04 00", "a1 05 30 03 bf 01 00", ""}) {
    EXPECT_EQ(client.respond(from_hex(hex)).error(), Error::kMalformed) << hex;
  }
  EXPECT_TRUE(client.respond(wrap_challenge(good)));
}

TEST_F(NtlmExchange, MutatedTokensNeverCrash) {
  const Bytes token = wrap_challenge(make_challenge(kServerFlags, server_target_info(true)));
  std::mt19937_64 rng(20240601);
  auto client = new_client({"alice", "SAMBA", "pw", ""});
  ASSERT_TRUE(client->initial_token());
  for (int i = 0; i < 3000; ++i) {
    Bytes m = token;
    const int edits = 1 + static_cast<int>(below(rng, 4));
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = below(rng, m.size());
      switch (below(rng, 3)) {
        case 0:
          m[at] = static_cast<std::uint8_t>(rng());
          break;
        case 1:
          m.erase(m.begin() + static_cast<std::ptrdiff_t>(at));
          break;
        default:
          m.insert(m.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng()));
          break;
      }
    }
    if (client->respond(m)) {  // a mutation that still parses: start over
      client = new_client({"alice", "SAMBA", "pw", ""});
      ASSERT_TRUE(client->initial_token());
    }
  }
}

// ---- the NEGOTIATE response's NegTokenInit2 ----

// A NegTokenInit2 as Samba and Windows send it in the SMB2 NEGOTIATE response: mechTypes
// (MS-KRB5, KRB5, NTLMSSP) and negHints.
Bytes neg_token_init2(bool with_ntlmssp) {
  Bytes mechs;
  const Bytes ms_krb5 = from_hex("06092a864882f712010202");
  const Bytes krb5 = from_hex("06092a864886f712010202");
  const Bytes ntlmssp = from_hex("060a2b06010401823702020a");
  append(mechs, ms_krb5);
  append(mechs, krb5);
  if (with_ntlmssp) {
    append(mechs, ntlmssp);
  }
  const std::string hint = "not_defined_in_RFC4178@please_ignore";
  const auto tlv = [](std::uint8_t tag, const Bytes& body) {
    Bytes out{tag, static_cast<std::uint8_t>(body.size())};
    append(out, body);
    return out;
  };
  const Bytes hint_name = tlv(0xa0, tlv(0x1b, Bytes(hint.begin(), hint.end())));
  Bytes seq = tlv(0xa0, tlv(0x30, mechs));
  append(seq, tlv(0xa3, tlv(0x30, hint_name)));
  Bytes body = from_hex("06062b0601050502");
  append(body, tlv(0xa0, tlv(0x30, seq)));
  return tlv(0x60, body);
}

TEST(SpnegoNegTokenInit2, OffersAndTolerates) {
  const Bytes with = neg_token_init2(true);
  Result<bool> offered = ntlm::offers_ntlmssp(with);
  ASSERT_TRUE(offered);
  EXPECT_TRUE(*offered);
  const Result<spnego::NegTokenInitFields> init = spnego::parse_neg_token_init(with);
  ASSERT_TRUE(init);
  EXPECT_EQ(init->mech_types.size(), 3u);
  EXPECT_FALSE(init->mech_token);
  offered = ntlm::offers_ntlmssp(neg_token_init2(false));
  ASSERT_TRUE(offered);
  EXPECT_FALSE(*offered);
  offered = ntlm::offers_ntlmssp({});
  ASSERT_TRUE(offered);
  EXPECT_TRUE(*offered);
  for (std::size_t n = 1; n < with.size(); ++n) {
    EXPECT_FALSE(ntlm::offers_ntlmssp(std::span(with).first(n))) << n;
  }
  Bytes wrong_oid = with;
  wrong_oid[4] ^= 1;  // inside the SPNEGO OID
  EXPECT_EQ(ntlm::offers_ntlmssp(wrong_oid).error(), Error::kMalformed);
  // Deeply nested junk is refused without recursing.
  Bytes nested;
  for (int i = 0; i < 100000; ++i) {
    nested.push_back(0xa0);
    nested.push_back(0x80);
  }
  EXPECT_EQ(ntlm::offers_ntlmssp(nested).error(), Error::kMalformed);
}

}  // namespace
}  // namespace wireseal::smb
