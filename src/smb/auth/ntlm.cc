// NTLMSSP client, NTLMv2 only (MS-NLMP): NEGOTIATE, CHALLENGE parsing, AUTHENTICATE with
// NTLMv2 response, MIC and key exchange, and the NTLM signing behind SPNEGO's mechListMIC.
#include "wireseal/smb/ntlm.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <initializer_list>
#include <optional>
#include <utility>

#include "auth/spnego.h"
#include "common/byte_cursor.h"
#include "common/bytes.h"
#include "common/ct.h"

namespace wireseal::smb {
namespace {

using Bytes = std::vector<std::uint8_t>;
using ByteSpan = std::span<const std::uint8_t>;

// ---- OpenSSL: a private library context with the legacy provider ----

// LegacyCrypto owns a library context of its own with the "legacy" (MD4, RC4) and "default"
// (MD5, HMAC) providers, so that the rest of the process never sees legacy algorithms in the
// default context. It lives for the process: built on first use, freed at exit. Its
// destructor runs before OpenSSL's own atexit clean-up, which the constructor's first OpenSSL
// call registered earlier.
class LegacyCrypto {
 public:
  LegacyCrypto() noexcept {
    ctx_ = OSSL_LIB_CTX_new();
    if (ctx_ == nullptr) {
      return;
    }
    // Without the legacy provider (not installed, or refused by the configuration) there is no
    // MD4 and no RC4, hence no NTLM at all: every operation reports kUnsupported.
    legacy_ = OSSL_PROVIDER_load(ctx_, "legacy");
    default_ = OSSL_PROVIDER_load(ctx_, "default");
    if (legacy_ == nullptr || default_ == nullptr) {
      return;
    }
    md4_ = EVP_MD_fetch(ctx_, "MD4", nullptr);
    md5_ = EVP_MD_fetch(ctx_, "MD5", nullptr);
    rc4_ = EVP_CIPHER_fetch(ctx_, "RC4", nullptr);
    hmac_ = EVP_MAC_fetch(ctx_, "HMAC", nullptr);
  }
  ~LegacyCrypto() {
    EVP_MAC_free(hmac_);
    EVP_CIPHER_free(rc4_);
    EVP_MD_free(md5_);
    EVP_MD_free(md4_);
    if (default_ != nullptr) {
      OSSL_PROVIDER_unload(default_);
    }
    if (legacy_ != nullptr) {
      OSSL_PROVIDER_unload(legacy_);
    }
    OSSL_LIB_CTX_free(ctx_);
  }
  LegacyCrypto(const LegacyCrypto&) = delete;
  LegacyCrypto& operator=(const LegacyCrypto&) = delete;

  bool ok() const noexcept {
    return md4_ != nullptr && md5_ != nullptr && rc4_ != nullptr && hmac_ != nullptr;
  }
  const EVP_MD* md4() const noexcept { return md4_; }
  const EVP_MD* md5() const noexcept { return md5_; }
  const EVP_CIPHER* rc4() const noexcept { return rc4_; }
  EVP_MAC* hmac() const noexcept { return hmac_; }

 private:
  OSSL_LIB_CTX* ctx_ = nullptr;
  OSSL_PROVIDER* legacy_ = nullptr;
  OSSL_PROVIDER* default_ = nullptr;
  EVP_MD* md4_ = nullptr;
  EVP_MD* md5_ = nullptr;
  EVP_CIPHER* rc4_ = nullptr;
  EVP_MAC* hmac_ = nullptr;
};

// legacy_crypto is the process's LegacyCrypto, or nullptr when it could not be set up.
const LegacyCrypto* legacy_crypto() noexcept {
  static const LegacyCrypto crypto;
  return crypto.ok() ? &crypto : nullptr;
}

constexpr std::size_t kMd5Size = 16;

Status digest(const EVP_MD* md, std::initializer_list<ByteSpan> parts,
              std::span<std::uint8_t, kMd5Size> out) noexcept {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) {
    return Error::kOutOfMemory;
  }
  bool ok = EVP_DigestInit_ex2(ctx, md, nullptr) == 1;
  for (const ByteSpan part : parts) {
    ok = ok && EVP_DigestUpdate(ctx, part.data(), part.size()) == 1;
  }
  unsigned int length = 0;
  ok = ok && EVP_DigestFinal_ex(ctx, out.data(), &length) == 1 && length == out.size();
  EVP_MD_CTX_free(ctx);
  return ok ? Status{} : Error::kUnsupported;
}

Status md4(ByteSpan data, std::span<std::uint8_t, kMd5Size> out) noexcept {
  const LegacyCrypto* crypto = legacy_crypto();
  if (crypto == nullptr) {
    return Error::kUnsupported;
  }
  return digest(crypto->md4(), {data}, out);
}

Status md5(std::initializer_list<ByteSpan> parts, std::span<std::uint8_t, kMd5Size> out) noexcept {
  const LegacyCrypto* crypto = legacy_crypto();
  if (crypto == nullptr) {
    return Error::kUnsupported;
  }
  return digest(crypto->md5(), parts, out);
}

Status hmac_md5(ByteSpan key, std::initializer_list<ByteSpan> parts,
                std::span<std::uint8_t, kMd5Size> out) noexcept {
  const LegacyCrypto* crypto = legacy_crypto();
  if (crypto == nullptr) {
    return Error::kUnsupported;
  }
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(crypto->hmac());
  if (ctx == nullptr) {
    return Error::kOutOfMemory;
  }
  char digest_name[] = "MD5";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
      OSSL_PARAM_construct_end()};
  bool ok = EVP_MAC_init(ctx, key.data(), key.size(), params) == 1;
  for (const ByteSpan part : parts) {
    ok = ok && EVP_MAC_update(ctx, part.data(), part.size()) == 1;
  }
  std::size_t length = 0;
  ok = ok && EVP_MAC_final(ctx, out.data(), &length, out.size()) == 1 && length == out.size();
  EVP_MAC_CTX_free(ctx);
  return ok ? Status{} : Error::kUnsupported;
}

// Rc4Stream is an RC4 key stream whose state runs on across calls (the NTLM sealing handle).
class Rc4Stream {
 public:
  Rc4Stream() noexcept = default;
  ~Rc4Stream() { EVP_CIPHER_CTX_free(ctx_); }  // frees the key schedule, cleansed
  Rc4Stream(const Rc4Stream&) = delete;
  Rc4Stream& operator=(const Rc4Stream&) = delete;

  Status init(std::span<const std::uint8_t, ntlm::kKeySize> key) noexcept {
    const LegacyCrypto* crypto = legacy_crypto();
    if (crypto == nullptr) {
      return Error::kUnsupported;
    }
    EVP_CIPHER_CTX_free(ctx_);
    ctx_ = EVP_CIPHER_CTX_new();
    if (ctx_ == nullptr) {
      return Error::kOutOfMemory;
    }
    // RC4's default key length is 16 bytes, the size of every NTLM RC4 key.
    if (EVP_EncryptInit_ex2(ctx_, crypto->rc4(), key.data(), nullptr, nullptr) != 1) {
      return Error::kUnsupported;
    }
    return {};
  }

  // apply XORs the next in.size() key stream bytes into `out` (which may be `in`).
  Status apply(ByteSpan in, std::span<std::uint8_t> out) noexcept {
    if (ctx_ == nullptr) {
      return Error::kBadState;
    }
    if (in.size() != out.size() || in.size() > static_cast<std::size_t>(INT_MAX)) {
      return Error::kInvalidArgument;
    }
    if (in.empty()) {
      return {};
    }
    int length = 0;
    if (EVP_EncryptUpdate(ctx_, out.data(), &length, in.data(), static_cast<int>(in.size())) != 1 ||
        static_cast<std::size_t>(length) != in.size()) {
      return Error::kUnsupported;
    }
    return {};
  }

 private:
  EVP_CIPHER_CTX* ctx_ = nullptr;
};

// Secret is a fixed-size secret on the stack, wiped when it goes out of scope.
template <std::size_t N>
struct Secret {
  Secret() noexcept = default;
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  ~Secret() { detail::secure_wipe(bytes.data(), bytes.size()); }

  std::array<std::uint8_t, N> bytes{};
};

// ---- text: UTF-8 to UTF-16LE ----

// decode_utf8 reads one code point from `text` at `i`, advancing `i`; std::nullopt for an
// invalid sequence (overlong forms, surrogates and values past U+10FFFF included).
std::optional<char32_t> decode_utf8(std::string_view text, std::size_t& i) noexcept {
  const auto byte = [&](std::size_t at) { return static_cast<std::uint8_t>(text[at]); };
  const std::uint8_t lead = byte(i);
  std::size_t extra = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  if ((lead & 0xe0) == 0xc0) {
    extra = 1;
    cp = lead & 0x1fU;
    min = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    extra = 2;
    cp = lead & 0x0fU;
    min = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    extra = 3;
    cp = lead & 0x07U;
    min = 0x10000;
  } else {
    return std::nullopt;
  }
  if (text.size() - i <= extra) {
    return std::nullopt;
  }
  for (std::size_t k = 1; k <= extra; ++k) {
    const std::uint8_t b = byte(i + k);
    if ((b & 0xc0) != 0x80) {
      return std::nullopt;
    }
    cp = (cp << 6) | (b & 0x3fU);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    return std::nullopt;
  }
  i += extra + 1;
  return cp;
}

// upper_case is Uppercase() of MS-NLMP for the letters of ASCII and Latin-1; other scripts
// pass unchanged.
char32_t upper_case(char32_t cp) noexcept {
  if ((cp >= U'a' && cp <= U'z') || (cp >= 0xe0 && cp <= 0xfe && cp != 0xf7)) {
    return cp - 0x20;
  }
  if (cp == 0xff) {
    return 0x178;  // ÿ -> Ÿ
  }
  return cp;
}

void append_utf16le(Bytes& out, char32_t cp) {
  const auto unit = [&out](std::uint32_t u) {
    out.push_back(static_cast<std::uint8_t>(u));
    out.push_back(static_cast<std::uint8_t>(u >> 8));
  };
  if (cp < 0x10000) {
    unit(cp);
  } else {
    const std::uint32_t v = cp - 0x10000;
    unit(0xd800 + (v >> 10));
    unit(0xdc00 + (v & 0x3ff));
  }
}

// append_unicode appends UNICODE(text) of MS-NLMP (UTF-16LE), upper-cased when asked.
bool append_unicode(Bytes& out, std::string_view text, bool upper) {
  for (std::size_t i = 0; i < text.size();) {
    const std::optional<char32_t> cp = decode_utf8(text, i);
    if (!cp) {
      return false;
    }
    append_utf16le(out, upper ? upper_case(*cp) : *cp);
  }
  return true;
}

std::optional<Bytes> unicode(std::string_view text) {
  Bytes out;
  out.reserve(2 * text.size());
  if (!append_unicode(out, text, false)) {
    return std::nullopt;
  }
  return out;
}

// ---- NTLM messages ----

constexpr std::uint8_t kSignature[] = {'N', 'T', 'L', 'M', 'S', 'S', 'P', 0};
constexpr std::uint32_t kNegotiateType = 1;
constexpr std::uint32_t kChallengeType = 2;
constexpr std::uint32_t kAuthenticateType = 3;

// What this client asks for: NTLMv2 with extended session security, signing keys of 128 bits
// and key exchange, and the server's target info (for the NTLMv2 response and MsvAvTimestamp).
// No SEAL (SMB encrypts by itself), no LM_KEY, no OEM strings.
constexpr std::uint32_t kClientFlags =
    ntlm::kNegotiateUnicode | ntlm::kRequestTarget | ntlm::kNegotiateSign | ntlm::kNegotiateNtlm |
    ntlm::kNegotiateAlwaysSign | ntlm::kNegotiateExtendedSessionSecurity |
    ntlm::kNegotiateTargetInfo | ntlm::kNegotiateVersion | ntlm::kNegotiate128 |
    ntlm::kNegotiateKeyExch | ntlm::kNegotiate56;

// VERSION (§2.2.2.10): 10.0 build 0, NTLMSSP_REVISION_W2K3. Informational only.
constexpr std::uint8_t kVersion[] = {10, 0, 0, 0, 0, 0, 0, 0x0f};

constexpr std::size_t kNegotiateSize = 40;     // fixed fields with VERSION, no payload
constexpr std::size_t kChallengeMinSize = 48;  // up to TargetInfoFields
constexpr std::size_t kAuthenticateHeaderSize = 88;
constexpr std::size_t kMicOffset = 72;
constexpr std::size_t kMicSize = 16;
constexpr std::size_t kLmResponseSize = 24;

// AV_PAIR AvIds (§2.2.2.1).
constexpr std::uint16_t kAvEol = 0;
constexpr std::uint16_t kAvFlags = 6;
constexpr std::uint16_t kAvTimestamp = 7;
constexpr std::uint16_t kAvTargetName = 9;
constexpr std::uint16_t kAvChannelBindings = 10;
constexpr std::uint32_t kAvFlagMicPresent = 0x2;
constexpr std::size_t kChannelBindingsSize = 16;

constexpr std::size_t kMaxField = 0xffff;  // a message field's length is a 16-bit count

Bytes build_negotiate() {
  Bytes message(kNegotiateSize);
  ByteWriter w(message);
  w.bytes(kSignature);
  w.u32le(kNegotiateType);
  w.u32le(kClientFlags);
  for (int field = 0; field < 2; ++field) {  // DomainNameFields, WorkstationFields: empty
    w.u16le(0);
    w.u16le(0);
    w.u32le(static_cast<std::uint32_t>(kNegotiateSize));
  }
  w.bytes(kVersion);
  return message;
}

struct Challenge {
  std::uint32_t flags = 0;
  std::array<std::uint8_t, ntlm::kChallengeSize> server_challenge{};
  ByteSpan target_info;
};

// field_in reads a (Len, MaxLen, BufferOffset) triple and returns the bytes it points to in
// `message`, or std::nullopt when they do not lie inside it.
std::optional<ByteSpan> field_in(ByteReader& r, ByteSpan message) noexcept {
  const std::uint16_t length = r.u16le();
  r.skip(2);  // MaxLen: ignored on receipt
  const std::uint32_t offset = r.u32le();
  if (!r.ok()) {
    return std::nullopt;
  }
  if (length == 0) {
    return ByteSpan{};
  }
  if (offset > message.size() || length > message.size() - offset) {
    return std::nullopt;
  }
  return message.subspan(offset, length);
}

Result<Challenge> parse_challenge(ByteSpan message) {
  if (message.size() < kChallengeMinSize) {
    return Error::kMalformed;
  }
  ByteReader r(message);
  Challenge c;
  const bool signature_ok = std::ranges::equal(r.bytes(sizeof kSignature), kSignature);
  const std::uint32_t type = r.u32le();
  const std::optional<ByteSpan> target_name = field_in(r, message);
  c.flags = r.u32le();
  r.copy_to(c.server_challenge);
  r.skip(8);  // Reserved
  const std::optional<ByteSpan> target_info = field_in(r, message);
  if (!r.ok() || !signature_ok || type != kChallengeType || !target_name || !target_info) {
    return Error::kMalformed;
  }
  c.target_info = *target_info;
  return c;
}

struct TargetInfo {
  Bytes av_pairs;  // ServerName of the NTLMv2 response: the server's pairs plus ours, EOL
  std::optional<std::uint64_t> timestamp;
};

void append_av_pair(Bytes& out, std::uint16_t id, ByteSpan value) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  store_le16(out.data() + at, id);
  store_le16(out.data() + at + 2, static_cast<std::uint16_t>(value.size()));
  out.insert(out.end(), value.begin(), value.end());
}

// build_target_info copies the server's AV pairs (§3.1.5.1.2) and adds what the client
// asserts: MsvAvFlags with "MIC present", and MsvAvChannelBindings. SMB runs over no TLS
// channel, so the channel-binding hash is the all-zero value of "no bindings"; a transport
// with a channel would put MD5(gss_channel_bindings_struct) there.
Result<TargetInfo> build_target_info(ByteSpan server_pairs) {
  TargetInfo info;
  std::uint32_t av_flags = 0;
  bool eol = server_pairs.empty();
  ByteReader r(server_pairs);
  while (!r.empty()) {
    const std::uint16_t id = r.u16le();
    const std::uint16_t length = r.u16le();
    const ByteSpan value = r.bytes(length);
    if (!r.ok()) {
      return Error::kMalformed;
    }
    if (id == kAvEol) {
      eol = true;
      break;
    }
    if (id == kAvTimestamp) {
      if (length != 8) {
        return Error::kMalformed;
      }
      info.timestamp = load_le64(value.data());
    } else if (id == kAvFlags) {
      if (length != 4) {
        return Error::kMalformed;
      }
      av_flags = load_le32(value.data());
      continue;  // rewritten below with the MIC bit
    } else if (id == kAvChannelBindings || id == kAvTargetName) {
      continue;  // the client's assertions, never the server's
    }
    append_av_pair(info.av_pairs, id, value);
  }
  if (!eol) {
    return Error::kMalformed;
  }
  std::array<std::uint8_t, 4> flags_value;
  store_le32(flags_value.data(), av_flags | kAvFlagMicPresent);
  append_av_pair(info.av_pairs, kAvFlags, flags_value);
  const std::array<std::uint8_t, kChannelBindingsSize> no_bindings{};
  append_av_pair(info.av_pairs, kAvChannelBindings, no_bindings);
  append_av_pair(info.av_pairs, kAvEol, {});
  return info;
}

struct AuthenticateFields {
  std::uint32_t flags = 0;
  ByteSpan lm_response;
  ByteSpan nt_response;
  ByteSpan domain;
  ByteSpan user;
  ByteSpan workstation;
  ByteSpan encrypted_session_key;
};

// build_authenticate lays out AUTHENTICATE_MESSAGE (§2.2.1.3) with VERSION and a zero MIC.
Result<Bytes> build_authenticate(const AuthenticateFields& f) {
  const ByteSpan payload[] = {f.domain,      f.user,        f.workstation,
                              f.lm_response, f.nt_response, f.encrypted_session_key};
  std::size_t total = kAuthenticateHeaderSize;
  for (const ByteSpan part : payload) {
    if (part.size() > kMaxField) {
      return Error::kInvalidArgument;
    }
    total += part.size();
  }
  std::array<std::size_t, std::size(payload)> offsets;
  std::size_t offset = kAuthenticateHeaderSize;
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    offsets[i] = offset;
    offset += payload[i].size();
  }
  Bytes message(total);
  ByteWriter w(message);
  w.bytes(kSignature);
  w.u32le(kAuthenticateType);
  // The header lists Lm, Nt, Domain, User, Workstation, EncryptedRandomSessionKey; the payload
  // holds them in Windows' order (the indices into `payload`).
  constexpr std::size_t kHeaderOrder[] = {3, 4, 0, 1, 2, 5};
  for (const std::size_t i : kHeaderOrder) {
    w.u16le(static_cast<std::uint16_t>(payload[i].size()));
    w.u16le(static_cast<std::uint16_t>(payload[i].size()));
    w.u32le(static_cast<std::uint32_t>(offsets[i]));
  }
  w.u32le(f.flags);
  w.bytes(kVersion);
  w.zeros(kMicSize);
  for (const ByteSpan part : payload) {
    w.bytes(part);
  }
  if (!w.ok() || w.size() != total) {
    return Error::kInvalidArgument;
  }
  return message;
}

// ---- key derivation (§3.4.5) ----

template <std::size_t N>
constexpr ByteSpan magic(const char (&text)[N]) noexcept {
  // The constants are hashed with their terminating NUL (sizeof counts it).
  return {reinterpret_cast<const std::uint8_t*>(text), N};
}

constexpr char kClientSignMagic[] = "session key to client-to-server signing key magic constant";
constexpr char kServerSignMagic[] = "session key to server-to-client signing key magic constant";
constexpr char kClientSealMagic[] = "session key to client-to-server sealing key magic constant";
constexpr char kServerSealMagic[] = "session key to server-to-client sealing key magic constant";

}  // namespace

NtTimeSource system_nt_time() noexcept {
  return NtTimeSource{[](void* /*context*/) noexcept -> std::uint64_t {
                        // FILETIME counts 100 ns ticks from 1601-01-01; the Unix epoch is
                        // 11644473600 s later.
                        constexpr std::uint64_t kEpochDelta = 116444736000000000ULL;
                        using Ticks = std::chrono::duration<std::int64_t, std::ratio<1, 10000000>>;
                        const auto since_unix = std::chrono::duration_cast<Ticks>(
                            std::chrono::system_clock::now().time_since_epoch());
                        return kEpochDelta + static_cast<std::uint64_t>(since_unix.count());
                      },
                      nullptr};
}

namespace ntlm {

Status nt_owf_v2(std::string_view user, std::string_view domain, std::string_view password,
                 std::span<std::uint8_t, kKeySize> out) noexcept {
  try {
    std::optional<Bytes> password16 = unicode(password);
    Bytes user_domain;
    user_domain.reserve(2 * (user.size() + domain.size()));
    if (!password16 || !append_unicode(user_domain, user, true) ||
        !append_unicode(user_domain, domain, false)) {
      if (password16) {
        detail::secure_wipe(password16->data(), password16->size());
      }
      return Error::kInvalidArgument;
    }
    Secret<kKeySize> nt_hash;  // NTOWFv1
    Status s = md4(*password16, nt_hash.bytes);
    detail::secure_wipe(password16->data(), password16->size());
    if (s) {
      s = hmac_md5(nt_hash.bytes, {user_domain}, out);
    }
    return s;
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
}

Result<Ntlmv2Response> ntlmv2_response(
    std::span<const std::uint8_t, kKeySize> response_key_nt,
    std::span<const std::uint8_t, kChallengeSize> server_challenge,
    std::span<const std::uint8_t, kChallengeSize> client_challenge, std::uint64_t timestamp,
    std::span<const std::uint8_t> server_name) {
  // temp = RespType 1 || HiRespType 1 || Z(6) || Time || ClientChallenge || Z(4) ||
  //        ServerName || Z(4)
  constexpr std::size_t kProofSize = 16;
  constexpr std::size_t kTempFixed = 28;
  Ntlmv2Response response;
  Bytes& out = response.nt_challenge_response;
  out.resize(kProofSize + kTempFixed + server_name.size() + 4);
  ByteWriter w(std::span<std::uint8_t>(out).subspan(kProofSize));
  w.u8(1);
  w.u8(1);
  w.zeros(6);
  w.u64le(timestamp);
  w.bytes(client_challenge);
  w.zeros(4);
  w.bytes(server_name);
  w.zeros(4);
  if (!w.ok()) {
    return Error::kInvalidArgument;
  }
  const ByteSpan temp = w.written();
  const std::span<std::uint8_t, kProofSize> proof(out.data(), kProofSize);
  // NTProofStr = HMAC_MD5(ResponseKeyNT, ServerChallenge || temp);
  // SessionBaseKey = HMAC_MD5(ResponseKeyNT, NTProofStr).
  if (Status s = hmac_md5(response_key_nt, {server_challenge, temp}, proof); !s) {
    return s.error();
  }
  if (Status s = hmac_md5(response_key_nt, {proof}, response.session_base_key); !s) {
    return s.error();
  }
  return response;
}

Status lmv2_response(std::span<const std::uint8_t, kKeySize> response_key_lm,
                     std::span<const std::uint8_t, kChallengeSize> server_challenge,
                     std::span<const std::uint8_t, kChallengeSize> client_challenge,
                     std::span<std::uint8_t, 24> out) noexcept {
  if (Status s = hmac_md5(response_key_lm, {server_challenge, client_challenge}, out.first<16>());
      !s) {
    return s;
  }
  std::copy(client_challenge.begin(), client_challenge.end(), out.begin() + 16);
  return {};
}

Status encrypt_session_key(std::span<const std::uint8_t, kKeySize> key_exchange_key,
                           std::span<const std::uint8_t, kKeySize> exported_session_key,
                           std::span<std::uint8_t, kKeySize> out) noexcept {
  Rc4Stream rc4;
  if (Status s = rc4.init(key_exchange_key); !s) {
    return s;
  }
  return rc4.apply(exported_session_key, out);
}

// ---- MessageSecurity ----

struct MessageSecurity::Rc4 : Rc4Stream {};

MessageSecurity::MessageSecurity() noexcept = default;
MessageSecurity::MessageSecurity(MessageSecurity&&) noexcept = default;
MessageSecurity& MessageSecurity::operator=(MessageSecurity&&) noexcept = default;
MessageSecurity::~MessageSecurity() {
  detail::secure_wipe(sign_key_.data(), sign_key_.size());
  detail::secure_wipe(seal_key_.data(), seal_key_.size());
}

Result<MessageSecurity> MessageSecurity::create(
    std::span<const std::uint8_t, kKeySize> exported_session_key, Direction direction,
    std::uint32_t negotiated_flags) noexcept {
  try {
    const bool client = direction == Direction::kClientToServer;
    MessageSecurity security;
    // SIGNKEY (§3.4.5.2) uses the whole key; SEALKEY (§3.4.5.3) with extended session security
    // keeps 128, 56 or 40 bits of it before hashing.
    if (Status s = md5({exported_session_key, magic(client ? kClientSignMagic : kServerSignMagic)},
                       security.sign_key_);
        !s) {
      return s.error();
    }
    std::size_t seal_bytes = 5;
    if ((negotiated_flags & kNegotiate128) != 0) {
      seal_bytes = kKeySize;
    } else if ((negotiated_flags & kNegotiate56) != 0) {
      seal_bytes = 7;
    }
    if (Status s = md5({exported_session_key.first(seal_bytes),
                        magic(client ? kClientSealMagic : kServerSealMagic)},
                       security.seal_key_);
        !s) {
      return s.error();
    }
    security.handle_ = std::make_unique<Rc4>();
    if (Status s = security.handle_->init(security.seal_key_); !s) {
      return s.error();
    }
    security.key_exch_ = (negotiated_flags & kNegotiateKeyExch) != 0;
    return Result<MessageSecurity>(std::move(security));
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
}

Status MessageSecurity::mac(std::span<const std::uint8_t> message,
                            std::span<std::uint8_t, 8> checksum) noexcept {
  if (!handle_) {
    return Error::kBadState;
  }
  if (seq_num_ == UINT32_MAX) {
    return Error::kSequenceExhausted;
  }
  std::array<std::uint8_t, 4> seq;
  store_le32(seq.data(), seq_num_);
  Secret<kMd5Size> full;
  if (Status s = hmac_md5(sign_key_, {seq, message}, full.bytes); !s) {
    return s;
  }
  std::copy_n(full.bytes.begin(), checksum.size(), checksum.begin());
  return {};
}

Status MessageSecurity::finish_signature(
    std::span<std::uint8_t, 8> checksum,
    std::span<std::uint8_t, kSignatureSize> signature) noexcept {
  // §3.4.4.2: with key exchange the checksum is encrypted with the sealing handle.
  if (key_exch_) {
    if (Status s = handle_->apply(checksum, checksum); !s) {
      return s;
    }
  }
  store_le32(signature.data(), 1);  // NTLMSSP_MESSAGE_SIGNATURE Version
  std::copy(checksum.begin(), checksum.end(), signature.begin() + 4);
  store_le32(signature.data() + 12, seq_num_);
  ++seq_num_;
  return {};
}

Status MessageSecurity::sign(std::span<const std::uint8_t> message,
                             std::span<std::uint8_t, kSignatureSize> signature) noexcept {
  std::array<std::uint8_t, 8> checksum;
  if (Status s = mac(message, checksum); !s) {
    return s;
  }
  return finish_signature(checksum, signature);
}

Status MessageSecurity::seal(std::span<std::uint8_t> message,
                             std::span<std::uint8_t, kSignatureSize> signature) noexcept {
  std::array<std::uint8_t, 8> checksum;
  if (Status s = mac(message, checksum); !s) {
    return s;
  }
  if (Status s = handle_->apply(message, message); !s) {
    return s;
  }
  return finish_signature(checksum, signature);
}

Status MessageSecurity::verify(std::span<const std::uint8_t> message,
                               std::span<const std::uint8_t> signature) noexcept {
  std::array<std::uint8_t, kSignatureSize> expected;
  if (Status s = sign(message, expected); !s) {
    return s;
  }
  if (!detail::tag_matches(expected, signature)) {
    return Error::kAuthFailed;
  }
  return {};
}

// ---- SPNEGO helpers ----

Result<bool> offers_ntlmssp(std::span<const std::uint8_t> negotiate_security_buffer) {
  if (negotiate_security_buffer.empty()) {
    return true;
  }
  try {
    const Result<spnego::NegTokenInitFields> init =
        spnego::parse_neg_token_init(negotiate_security_buffer);
    if (!init) {
      return init.error();
    }
    return std::ranges::any_of(init->mech_types, [](ByteSpan oid) {
      return std::ranges::equal(oid, spnego::kNtlmsspOid);
    });
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  }
}

}  // namespace ntlm

// ---- NtlmClient ----

NtlmClient::NtlmClient(NtlmCredentials credentials, RandomSource random, NtTimeSource clock)
    : credentials_(std::move(credentials)),
      random_(random),
      clock_(clock),
      anonymous_(credentials_.user.empty() && credentials_.password.empty()) {}

NtlmClient::~NtlmClient() {
  detail::secure_wipe(credentials_.password.data(), credentials_.password.size());
  detail::secure_wipe(exported_session_key_.data(), exported_session_key_.size());
}

std::span<const std::uint8_t> NtlmClient::session_key() const noexcept {
  if (!have_session_key_) {
    return {};
  }
  return exported_session_key_;
}

Result<std::vector<std::uint8_t>> NtlmClient::initial_token() {
  if (state_ != State::kInitial) {
    return Error::kBadState;
  }
  if (legacy_crypto() == nullptr) {
    return Error::kUnsupported;  // no MD4/RC4: the exchange could not be completed
  }
  negotiate_message_ = build_negotiate();
  mech_types_ = spnego::ntlmssp_mech_type_list();
  std::vector<std::uint8_t> token = spnego::encode_initial_token(mech_types_, negotiate_message_);
  state_ = State::kNegotiateSent;
  return token;
}

namespace {

// challenge_from_spnego checks the server's first NegTokenResp and returns the NTLM
// CHALLENGE_MESSAGE it carries.
Result<ByteSpan> challenge_from_spnego(ByteSpan server_token) {
  const Result<spnego::NegTokenRespFields> resp = spnego::parse_neg_token_resp(server_token);
  if (!resp) {
    return resp.error();
  }
  if (resp->neg_state) {
    if (*resp->neg_state == spnego::NegState::kReject) {
      return Error::kUnsupported;
    }
    if (*resp->neg_state != spnego::NegState::kAcceptIncomplete) {
      return Error::kMalformed;  // NTLM cannot be complete before AUTHENTICATE
    }
  }
  if (resp->supported_mech && !std::ranges::equal(*resp->supported_mech, spnego::kNtlmsspOid)) {
    return Error::kUnsupported;
  }
  if (!resp->response_token) {
    return Error::kMalformed;
  }
  return *resp->response_token;
}

}  // namespace

Result<std::vector<std::uint8_t>> NtlmClient::respond(std::span<const std::uint8_t> server_token) {
  if (state_ != State::kNegotiateSent) {
    return Error::kBadState;
  }
  const Result<ByteSpan> challenge_message = challenge_from_spnego(server_token);
  if (!challenge_message) {
    return challenge_message.error();
  }
  const Result<Challenge> challenge = parse_challenge(*challenge_message);
  if (!challenge) {
    return challenge.error();
  }
  // NTLMv2 needs extended session security; strings are only ever Unicode here.
  constexpr std::uint32_t kRequired =
      ntlm::kNegotiateExtendedSessionSecurity | ntlm::kNegotiateUnicode;
  if ((challenge->flags & kRequired) != kRequired) {
    return Error::kUnsupported;
  }
  std::uint32_t flags = kClientFlags & challenge->flags;
  if (anonymous_) {
    // No password, no keys: nothing to exchange, sign or protect with a MIC.
    flags = (flags | ntlm::kNegotiateAnonymous) & ~ntlm::kNegotiateKeyExch;
  }
  const std::optional<Bytes> domain = unicode(credentials_.domain);
  const std::optional<Bytes> user = unicode(credentials_.user);
  const std::optional<Bytes> workstation = unicode(credentials_.workstation);
  if (!domain || !user || !workstation) {
    return Error::kInvalidArgument;
  }
  AuthenticateFields fields;
  fields.flags = flags;
  fields.domain = *domain;
  fields.user = *user;
  fields.workstation = *workstation;

  // Anonymous (§3.1.5.1.2): NtChallengeResponse empty, LmChallengeResponse Z(1).
  const std::array<std::uint8_t, 1> anonymous_lm{};
  std::array<std::uint8_t, kLmResponseSize> lm_response{};
  ntlm::Ntlmv2Response nt;
  Secret<ntlm::kKeySize> exported;
  std::array<std::uint8_t, ntlm::kKeySize> encrypted_key{};
  if (anonymous_) {
    fields.lm_response = anonymous_lm;
  } else {
    const Result<TargetInfo> info = build_target_info(challenge->target_info);
    if (!info) {
      return info.error();
    }
    Secret<ntlm::kKeySize> response_key;
    if (Status s = ntlm::nt_owf_v2(credentials_.user, credentials_.domain, credentials_.password,
                                   response_key.bytes);
        !s) {
      return s.error();
    }
    std::array<std::uint8_t, ntlm::kChallengeSize> client_challenge;
    random_(client_challenge);
    // The server's clock when it gives one (then no LMv2: Z(24), §3.1.5.1.2), else ours.
    const std::uint64_t time = info->timestamp ? *info->timestamp : clock_();
    Result<ntlm::Ntlmv2Response> computed = ntlm::ntlmv2_response(
        response_key.bytes, challenge->server_challenge, client_challenge, time, info->av_pairs);
    if (!computed) {
      return computed.error();
    }
    nt = std::move(*computed);
    detail::secure_wipe(computed->session_base_key.data(), computed->session_base_key.size());
    if (!info->timestamp) {
      if (Status s = ntlm::lmv2_response(response_key.bytes, challenge->server_challenge,
                                         client_challenge, lm_response);
          !s) {
        return s.error();
      }
    }
    // NTLMv2: KeyExchangeKey = SessionBaseKey. With KEY_EXCH the session key is fresh and
    // travels RC4-encrypted under it; without, the KeyExchangeKey itself is exported.
    const std::span<const std::uint8_t, ntlm::kKeySize> key_exchange_key = nt.session_base_key;
    if ((flags & ntlm::kNegotiateKeyExch) != 0) {
      random_(exported.bytes);
      if (Status s = ntlm::encrypt_session_key(key_exchange_key, exported.bytes, encrypted_key);
          !s) {
        return s.error();
      }
      fields.encrypted_session_key = encrypted_key;
    } else {
      exported.bytes = nt.session_base_key;
    }
    detail::secure_wipe(nt.session_base_key.data(), nt.session_base_key.size());
    fields.lm_response = lm_response;
    fields.nt_response = nt.nt_challenge_response;
  }

  Result<Bytes> authenticate = build_authenticate(fields);
  if (!authenticate) {
    return authenticate.error();
  }
  std::unique_ptr<ntlm::MessageSecurity> server_to_client;
  std::optional<std::array<std::uint8_t, ntlm::kSignatureSize>> mech_list_mic;
  if (!anonymous_) {
    // MIC = HMAC_MD5(ExportedSessionKey, NEGOTIATE || CHALLENGE || AUTHENTICATE), MIC zeroed.
    const std::span<std::uint8_t, kMicSize> mic(authenticate->data() + kMicOffset, kMicSize);
    if (Status s =
            hmac_md5(exported.bytes, {negotiate_message_, *challenge_message, *authenticate}, mic);
        !s) {
      return s.error();
    }
    // mechListMIC (RFC 4178 §5): the client's NTLM signature, sequence 0, over mechTypes.
    Result<ntlm::MessageSecurity> client_to_server =
        ntlm::MessageSecurity::create(exported.bytes, ntlm::Direction::kClientToServer, flags);
    Result<ntlm::MessageSecurity> verifier =
        ntlm::MessageSecurity::create(exported.bytes, ntlm::Direction::kServerToClient, flags);
    if (!client_to_server || !verifier) {
      return (client_to_server ? verifier.error() : client_to_server.error());
    }
    mech_list_mic.emplace();
    if (Status s = client_to_server->sign(mech_types_, *mech_list_mic); !s) {
      return s.error();
    }
    server_to_client = std::make_unique<ntlm::MessageSecurity>(std::move(*verifier));
  }

  spnego::NegTokenRespFields resp;
  resp.response_token = *authenticate;
  if (mech_list_mic) {
    resp.mech_list_mic = *mech_list_mic;
  }
  std::vector<std::uint8_t> token = spnego::encode_neg_token_resp(resp);

  // Commit only now: every failure above left the client as it was.
  if (!anonymous_) {
    exported_session_key_ = exported.bytes;
    have_session_key_ = true;
  }
  server_to_client_ = std::move(server_to_client);
  state_ = State::kAuthenticateSent;
  return token;
}

Status NtlmClient::finish(std::span<const std::uint8_t> server_token) {
  if (state_ != State::kAuthenticateSent) {
    return Error::kBadState;
  }
  if (server_token.empty()) {
    state_ = State::kDone;
    return {};
  }
  const Result<spnego::NegTokenRespFields> resp = spnego::parse_neg_token_resp(server_token);
  if (!resp) {
    return resp.error();
  }
  if (resp->neg_state && *resp->neg_state != spnego::NegState::kAcceptCompleted) {
    return *resp->neg_state == spnego::NegState::kReject ? Error::kAuthFailed : Error::kMalformed;
  }
  if (resp->supported_mech && !std::ranges::equal(*resp->supported_mech, spnego::kNtlmsspOid)) {
    return Error::kMalformed;
  }
  // An anonymous session has no keys, so there is nothing a server mechListMIC could be
  // checked against; it is ignored. Otherwise it must verify. The verifier's sequence
  // advances, so a failed finish() cannot be retried.
  if (resp->mech_list_mic && server_to_client_) {
    if (Status s = server_to_client_->verify(mech_types_, *resp->mech_list_mic); !s) {
      return s;
    }
  }
  server_to_client_.reset();
  state_ = State::kDone;
  return {};
}

}  // namespace wireseal::smb
