#pragma once
// NTLMSSP client (MS-NLMP, NTLMv2 only) inside SPNEGO (RFC 4178): the security tokens of SMB2
// SESSION_SETUP. NtlmClient turns tokens into tokens; the SMB command around it is elsewhere.
//
//   client                                         server
//   initial_token()  GSS{NegTokenInit{[NTLMSSP], NEGOTIATE}}  ->
//                    <-  NegTokenResp{accept-incomplete, NTLMSSP, CHALLENGE}
//   respond()        NegTokenResp{AUTHENTICATE, mechListMIC}  ->
//                    <-  NegTokenResp{accept-completed, mechListMIC}   (or nothing)
//   finish()
//
// Only NTLMv2 with extended session security is ever sent: never LM, never NTLMv1. The
// AUTHENTICATE_MESSAGE carries a MIC, and the SPNEGO exchange a mechListMIC both ways, so
// neither the NTLM flags nor the mechanism list can be altered in transit unnoticed.
//
// The legacy algorithms NTLM needs (MD4, RC4) come from OpenSSL 3's legacy provider, loaded
// into a private library context (never into the default one the rest of the process uses).
// Where that provider cannot be loaded every operation fails with kUnsupported.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wireseal/random.h"
#include "wireseal/result.h"
#include "wireseal/smb/authenticator.h"

namespace wireseal::smb {

struct NtlmCredentials {
  std::string user;      // UTF-8. Empty user and password: anonymous (NTLMSSP_NEGOTIATE_ANONYMOUS)
  std::string domain;    // UTF-8, may be empty (then NTOWFv2 is keyed with an empty domain)
  std::string password;  // UTF-8
  std::string workstation;  // UTF-8, may be empty
};

// NtTimeSource: the current time as an NT FILETIME (100 ns ticks since 1601-01-01 UTC). NTLMv2
// uses it only when the server's CHALLENGE carries no MsvAvTimestamp; tests inject a fixed one.
struct NtTimeSource {
  std::uint64_t (*now)(void* context) noexcept = nullptr;
  void* context = nullptr;

  std::uint64_t operator()() const noexcept { return now(context); }
};

// system_nt_time reads the system clock.
NtTimeSource system_nt_time() noexcept;

namespace ntlm {

inline constexpr std::size_t kKeySize = 16;
inline constexpr std::size_t kChallengeSize = 8;
inline constexpr std::size_t kSignatureSize = 16;

// NegotiateFlags bits (MS-NLMP §2.2.2.5) this client uses or checks.
inline constexpr std::uint32_t kNegotiateUnicode = 0x00000001;
inline constexpr std::uint32_t kRequestTarget = 0x00000004;
inline constexpr std::uint32_t kNegotiateSign = 0x00000010;
inline constexpr std::uint32_t kNegotiateNtlm = 0x00000200;
inline constexpr std::uint32_t kNegotiateAnonymous = 0x00000800;
inline constexpr std::uint32_t kNegotiateAlwaysSign = 0x00008000;
inline constexpr std::uint32_t kNegotiateExtendedSessionSecurity = 0x00080000;
inline constexpr std::uint32_t kNegotiateTargetInfo = 0x00800000;
inline constexpr std::uint32_t kNegotiateVersion = 0x02000000;
inline constexpr std::uint32_t kNegotiate128 = 0x20000000;
inline constexpr std::uint32_t kNegotiateKeyExch = 0x40000000;
inline constexpr std::uint32_t kNegotiate56 = 0x80000000;

// nt_owf_v2 is NTOWFv2 (MS-NLMP §3.3.2): HMAC_MD5(MD4(UNICODE(password)),
// UNICODE(Uppercase(user) || domain)). Strings are UTF-8; upper-casing covers ASCII and
// Latin-1. kInvalidArgument for invalid UTF-8, kUnsupported without the legacy provider.
Status nt_owf_v2(std::string_view user, std::string_view domain, std::string_view password,
                 std::span<std::uint8_t, kKeySize> out) noexcept;

// Ntlmv2Response is what ComputeResponse (MS-NLMP §3.3.2) yields for NTLMv2.
struct Ntlmv2Response {
  std::vector<std::uint8_t> nt_challenge_response;  // NTProofStr (16 bytes) || temp
  std::array<std::uint8_t, kKeySize> session_base_key{};
};

// ntlmv2_response computes the NtChallengeResponse and SessionBaseKey from ResponseKeyNT (the
// NTOWFv2), the challenges, the timestamp and ServerName (the AV_PAIR list, MsvAvEOL included,
// exactly as it goes into temp).
Result<Ntlmv2Response> ntlmv2_response(
    std::span<const std::uint8_t, kKeySize> response_key_nt,
    std::span<const std::uint8_t, kChallengeSize> server_challenge,
    std::span<const std::uint8_t, kChallengeSize> client_challenge, std::uint64_t timestamp,
    std::span<const std::uint8_t> server_name);

// lmv2_response is the 24-byte LMv2 response (MS-NLMP §3.3.2), sent only when the server gives
// no MsvAvTimestamp: HMAC_MD5(ResponseKeyLM, ServerChallenge || ClientChallenge) ||
// ClientChallenge, where ResponseKeyLM is the NTOWFv2.
Status lmv2_response(std::span<const std::uint8_t, kKeySize> response_key_lm,
                     std::span<const std::uint8_t, kChallengeSize> server_challenge,
                     std::span<const std::uint8_t, kChallengeSize> client_challenge,
                     std::span<std::uint8_t, 24> out) noexcept;

// encrypt_session_key is the key exchange of MS-NLMP §3.1.5.1.2: EncryptedRandomSessionKey =
// RC4(KeyExchangeKey, ExportedSessionKey) (RC4 being its own inverse, it also decrypts).
Status encrypt_session_key(std::span<const std::uint8_t, kKeySize> key_exchange_key,
                           std::span<const std::uint8_t, kKeySize> exported_session_key,
                           std::span<std::uint8_t, kKeySize> out) noexcept;

enum class Direction : std::uint8_t { kClientToServer, kServerToClient };

// MessageSecurity is one direction of NTLM session security with extended session security
// (MS-NLMP §3.4): SIGNKEY/SEALKEY derived from the ExportedSessionKey, a sequence number and
// the RC4 sealing handle, whose state runs on across messages as §3.4 requires. Signature =
// Version 1 || RC4(Handle, HMAC_MD5(SignKey, SeqNum || Message)[0..7]) || SeqNum (the RC4
// pass only when key exchange was negotiated). Move-only; wipes its keys when destroyed.
class MessageSecurity {
 public:
  // negotiated_flags decide the seal key strength (128/56/40 bits) and whether the checksum is
  // RC4-encrypted (KEY_EXCH).
  static Result<MessageSecurity> create(
      std::span<const std::uint8_t, kKeySize> exported_session_key, Direction direction,
      std::uint32_t negotiated_flags) noexcept;
  MessageSecurity(MessageSecurity&&) noexcept;
  MessageSecurity& operator=(MessageSecurity&&) noexcept;
  MessageSecurity(const MessageSecurity&) = delete;
  MessageSecurity& operator=(const MessageSecurity&) = delete;
  ~MessageSecurity();

  // sign writes the 16-byte signature of `message` (GSS_GetMIC) and advances the sequence.
  Status sign(std::span<const std::uint8_t> message,
              std::span<std::uint8_t, kSignatureSize> signature) noexcept;
  // seal encrypts `message` in place and writes its signature (GSS_WrapEx, §3.4.3).
  Status seal(std::span<std::uint8_t> message,
              std::span<std::uint8_t, kSignatureSize> signature) noexcept;
  // verify recomputes the signature of `message` (as the peer's sign would have, advancing the
  // sequence) and compares in constant time: kAuthFailed when it differs.
  Status verify(std::span<const std::uint8_t> message,
                std::span<const std::uint8_t> signature) noexcept;

  std::span<const std::uint8_t, kKeySize> signing_key() const noexcept { return sign_key_; }
  std::span<const std::uint8_t, kKeySize> sealing_key() const noexcept { return seal_key_; }

 private:
  struct Rc4;
  MessageSecurity() noexcept;
  // mac is HMAC_MD5(SignKey, SeqNum || message)[0..7]; finish_signature encrypts it (with key
  // exchange), assembles the signature and advances the sequence. seal runs RC4 over the
  // message between the two, as §3.4.3 orders the handle's use.
  Status mac(std::span<const std::uint8_t> message, std::span<std::uint8_t, 8> checksum) noexcept;
  Status finish_signature(std::span<std::uint8_t, 8> checksum,
                          std::span<std::uint8_t, kSignatureSize> signature) noexcept;

  std::array<std::uint8_t, kKeySize> sign_key_{};
  std::array<std::uint8_t, kKeySize> seal_key_{};
  std::unique_ptr<Rc4> handle_;
  std::uint32_t seq_num_ = 0;
  bool key_exch_ = false;
};

// offers_ntlmssp reads the security buffer of the SMB2 NEGOTIATE response (a GSS-wrapped SPNEGO
// NegTokenInit2: mechTypes, maybe negHints) and says whether NTLMSSP is among the mechanisms.
// An empty buffer means the server leaves the choice to the client (MS-SMB2 §3.2.5.2): true.
// kMalformed when the buffer does not parse.
Result<bool> offers_ntlmssp(std::span<const std::uint8_t> negotiate_security_buffer);

}  // namespace ntlm

class NtlmClient final : public Authenticator {
 public:
  // random supplies the client challenge and the ExportedSessionKey; clock the timestamp when
  // the server sends none.
  explicit NtlmClient(NtlmCredentials credentials, RandomSource random = system_random(),
                      NtTimeSource clock = system_nt_time());
  NtlmClient(const NtlmClient&) = delete;
  NtlmClient& operator=(const NtlmClient&) = delete;
  ~NtlmClient() override;  // wipes the password and every key

  // initial_token is the first SESSION_SETUP security buffer: GSS InitialContextToken wrapping
  // SPNEGO NegTokenInit{mechTypes = [NTLMSSP], mechToken = NEGOTIATE_MESSAGE}. Once only
  // (kBadState after); kUnsupported without the legacy provider.
  Result<std::vector<std::uint8_t>> initial_token() override;

  // respond takes the server's NegTokenResp carrying the CHALLENGE_MESSAGE and returns
  // NegTokenResp{responseToken = AUTHENTICATE_MESSAGE, mechListMIC} (no mechListMIC when
  // anonymous: there are no keys). kMalformed when it does not parse; kUnsupported when the
  // server picks another mechanism or does not offer NTLMv2 (extended session security,
  // Unicode); kBadState out of order; kInvalidArgument for credentials too long or not UTF-8.
  // On error nothing changes, so the state stays where it was.
  Result<std::vector<std::uint8_t>> respond(std::span<const std::uint8_t> server_token) override;

  // finish checks the server's final NegTokenResp: negState accept-completed (kAuthFailed for
  // reject) and, when it carries a mechListMIC, that it verifies over the mechTypes with the
  // server-to-client keys (kAuthFailed otherwise). An empty token is accepted: some servers
  // send none. kMalformed when it does not parse, kBadState before respond().
  Status finish(std::span<const std::uint8_t> server_token) override;

  // session_key is the 16-byte ExportedSessionKey (MS-NLMP §3.1.5.1.2), the SMB session key,
  // once respond() succeeded; empty before, and for an anonymous session (which has none).
  std::span<const std::uint8_t> session_key() const noexcept override;
  bool anonymous() const noexcept { return anonymous_; }

 private:
  enum class State : std::uint8_t { kInitial, kNegotiateSent, kAuthenticateSent, kDone };

  NtlmCredentials credentials_;
  RandomSource random_;
  NtTimeSource clock_;
  bool anonymous_;
  State state_ = State::kInitial;
  std::vector<std::uint8_t> negotiate_message_;
  std::vector<std::uint8_t> mech_types_;  // DER MechTypeList exactly as sent, for mechListMIC
  std::array<std::uint8_t, ntlm::kKeySize> exported_session_key_{};
  bool have_session_key_ = false;
  std::unique_ptr<ntlm::MessageSecurity> server_to_client_;  // verifies the server's mechListMIC
};

}  // namespace wireseal::smb
