// TLS signature schemes over OpenSSL 3's EVP_DigestSign/EVP_DigestVerify (RFC 5246
// §7.4.1.4.1, RFC 8446 §4.2.3, RFC 8032).
#include "wireseal/crypto/signature.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/buffer.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <new>
#include <optional>

#include "ec_parameters.h"

namespace wireseal::crypto {

struct PublicKey::State {
  EVP_PKEY* key = nullptr;
  ~State() { EVP_PKEY_free(key); }
};

struct PrivateKey::State {
  EVP_PKEY* key = nullptr;
  ~State() { EVP_PKEY_free(key); }  // OpenSSL clears the private key
};

namespace {

template <class T, void (*Free)(T*)>
struct Freer {
  void operator()(T* p) const noexcept { Free(p); }
};
template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Freer<T, Free>>;

// ErrorMark drops whatever OpenSSL queued during one call: the failure is reported through
// the Result, and stale entries would mislead the next libssl call on this thread.
class ErrorMark {
 public:
  ErrorMark() noexcept { ERR_set_mark(); }
  ~ErrorMark() { ERR_pop_to_mark(); }
  ErrorMark(const ErrorMark&) = delete;
  ErrorMark& operator=(const ErrorMark&) = delete;
};

enum class Family : std::uint8_t { kNone, kRsaPkcs1, kRsaPss, kEcdsa, kEd25519 };

struct SchemeInfo {
  Family family;
  const char* digest;  // OpenSSL's name; nullptr for Ed25519 (it hashes internally)
  const char* name;
};

SchemeInfo scheme_info(SignatureScheme scheme) noexcept {
  switch (scheme) {
    case SignatureScheme::kRsaPkcs1Sha1:
      return {Family::kRsaPkcs1, "SHA1", "rsa_pkcs1_sha1"};
    case SignatureScheme::kEcdsaSha1:
      return {Family::kEcdsa, "SHA1", "ecdsa_sha1"};
    case SignatureScheme::kRsaPkcs1Sha256:
      return {Family::kRsaPkcs1, "SHA256", "rsa_pkcs1_sha256"};
    case SignatureScheme::kRsaPkcs1Sha384:
      return {Family::kRsaPkcs1, "SHA384", "rsa_pkcs1_sha384"};
    case SignatureScheme::kRsaPkcs1Sha512:
      return {Family::kRsaPkcs1, "SHA512", "rsa_pkcs1_sha512"};
    case SignatureScheme::kEcdsaSecp256r1Sha256:
      return {Family::kEcdsa, "SHA256", "ecdsa_secp256r1_sha256"};
    case SignatureScheme::kEcdsaSecp384r1Sha384:
      return {Family::kEcdsa, "SHA384", "ecdsa_secp384r1_sha384"};
    case SignatureScheme::kEcdsaSecp521r1Sha512:
      return {Family::kEcdsa, "SHA512", "ecdsa_secp521r1_sha512"};
    case SignatureScheme::kRsaPssRsaeSha256:
      return {Family::kRsaPss, "SHA256", "rsa_pss_rsae_sha256"};
    case SignatureScheme::kRsaPssRsaeSha384:
      return {Family::kRsaPss, "SHA384", "rsa_pss_rsae_sha384"};
    case SignatureScheme::kRsaPssRsaeSha512:
      return {Family::kRsaPss, "SHA512", "rsa_pss_rsae_sha512"};
    case SignatureScheme::kEd25519:
      return {Family::kEd25519, nullptr, "ed25519"};
  }
  return {Family::kNone, nullptr, "unknown"};
}

bool key_supports(KeyType type, SignatureScheme scheme) noexcept {
  switch (scheme_info(scheme).family) {
    case Family::kRsaPkcs1:
    case Family::kRsaPss:
      return type == KeyType::kRsa;
    case Family::kEcdsa:
      // TLS 1.2 code points name the hash only; the curve is the certificate's.
      return type == KeyType::kEcP256 || type == KeyType::kEcP384;
    case Family::kEd25519:
      return type == KeyType::kEd25519;
    case Family::kNone:
      break;
  }
  return false;
}

// key_type classifies an OpenSSL key; kUnsupported for anything but the KeyTypes (RSA-PSS
// restricted keys, other curves, explicit curve parameters, DSA...).
Result<KeyType> key_type(const EVP_PKEY* key) noexcept {
  if (EVP_PKEY_is_a(key, "RSA") == 1) {
    return KeyType::kRsa;
  }
  if (EVP_PKEY_is_a(key, "ED25519") == 1) {
    return KeyType::kEd25519;
  }
  if (EVP_PKEY_is_a(key, "EC") == 1) {
    std::array<char, 64> name{};
    std::size_t len = 0;
    if (EVP_PKEY_get_group_name(key, name.data(), name.size(), &len) == 1) {
      int nid = OBJ_sn2nid(name.data());
      if (nid == NID_undef) {
        nid = EC_curve_nist2nid(name.data());
      }
      if (nid == NID_X9_62_prime256v1) {
        return KeyType::kEcP256;
      }
      if (nid == NID_secp384r1) {
        return KeyType::kEcP384;
      }
    }
  }
  return Error::kUnsupported;
}

// init readies `ctx` to sign or verify with `scheme` under `key`.
bool init(EVP_MD_CTX* ctx, const SchemeInfo& scheme, EVP_PKEY* key, bool signing) noexcept {
  EVP_PKEY_CTX* pctx = nullptr;  // owned by ctx
  const int started =
      signing ? EVP_DigestSignInit_ex(ctx, &pctx, scheme.digest, nullptr, nullptr, key, nullptr)
              : EVP_DigestVerifyInit_ex(ctx, &pctx, scheme.digest, nullptr, nullptr, key, nullptr);
  if (started != 1 || pctx == nullptr) {
    return false;
  }
  switch (scheme.family) {
    case Family::kRsaPkcs1:
      return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1;
    case Family::kRsaPss:
      // RFC 8446 §4.2.3: salt as long as the digest, MGF1 with the same hash (verification
      // then also insists on that salt length).
      return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
             EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1 &&
             EVP_PKEY_CTX_set_rsa_mgf1_md_name(pctx, scheme.digest, nullptr) == 1;
    case Family::kEcdsa:
    case Family::kEd25519:
      return true;
    case Family::kNone:
      break;
  }
  return false;
}

// refuse_passphrase makes an encrypted PEM key fail instead of OpenSSL's default of prompting
// on the terminal.
int refuse_passphrase(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*u*/) { return -1; }

// adopt_key takes ownership of `key` (nullptr: `missing`) into a fresh State and builds the
// key object with `make` (which can reach the private constructor).
template <class Key, class State, class Make>
Result<Key> adopt_key(EVP_PKEY* key, Error missing, Make make) noexcept {
  if (key == nullptr) {
    return missing;
  }
  Owned<EVP_PKEY, EVP_PKEY_free> owned(key);
  const Result<KeyType> type = key_type(key);
  if (!type) {
    return type.error();
  }
  std::unique_ptr<State> state(new (std::nothrow) State);
  if (state == nullptr) {
    return Error::kOutOfMemory;
  }
  state->key = owned.release();
  return make(*type, std::move(state));
}

// --- The key of a certificate, found without OpenSSL's decoder framework
//
// d2i_X509 hands the SubjectPublicKeyInfo to OSSL_DECODER, which searches its decoders by
// name: about 110 µs per certificate here, a quarter of a whole P-256 handshake. The
// certificate's DER is walked to the key instead (RFC 5280 §4.1) and the key made the short
// way for the types the handshake meets (EC P-256/P-384, RSA, Ed25519); others (RSA-PSS
// restricted keys, other curves) still take d2i_X509.

struct Tlv {
  std::uint8_t tag = 0;
  std::span<const std::uint8_t> value;
};

constexpr std::uint8_t kSequence = 0x30;
constexpr std::uint8_t kInteger = 0x02;
constexpr std::uint8_t kBitString = 0x03;
constexpr std::uint8_t kOid = 0x06;
constexpr std::uint8_t kVersionTag = 0xa0;  // [0] EXPLICIT Version

// next_tlv takes one DER element (low tag number, definite minimal length) off `in`.
std::optional<Tlv> next_tlv(std::span<const std::uint8_t>& in) noexcept {
  if (in.size() < 2 || (in[0] & 0x1f) == 0x1f) {
    return std::nullopt;
  }
  std::size_t length = in[1];
  std::size_t header = 2;
  if ((length & 0x80) != 0) {
    const std::size_t octets = length & 0x7f;
    if (octets == 0 || octets > 3 || in.size() < 2 + octets || in[2] == 0) {
      return std::nullopt;
    }
    length = 0;
    for (std::size_t i = 0; i < octets; ++i) {
      length = length << 8 | in[2 + i];
    }
    if (length < 0x80) {
      return std::nullopt;  // not the shortest form
    }
    header += octets;
  }
  if (in.size() - header < length) {
    return std::nullopt;
  }
  const Tlv tlv{in[0], in.subspan(header, length)};
  in = in.subspan(header + length);
  return tlv;
}

std::optional<Tlv> expect_tlv(std::span<const std::uint8_t>& in, std::uint8_t tag) noexcept {
  std::optional<Tlv> tlv = next_tlv(in);
  return tlv && tlv->tag == tag ? tlv : std::nullopt;
}

// subject_public_key_info finds the SubjectPublicKeyInfo's contents in a certificate, which
// must be one DER SEQUENCE with nothing after it.
std::optional<std::span<const std::uint8_t>> subject_public_key_info(
    std::span<const std::uint8_t> der) noexcept {
  const std::optional<Tlv> certificate = expect_tlv(der, kSequence);
  if (!certificate || !der.empty()) {
    return std::nullopt;
  }
  std::span<const std::uint8_t> body = certificate->value;
  const std::optional<Tlv> tbs = expect_tlv(body, kSequence);
  if (!tbs) {
    return std::nullopt;
  }
  std::span<const std::uint8_t> fields = tbs->value;
  std::optional<Tlv> field = next_tlv(fields);
  if (field && field->tag == kVersionTag) {
    field = next_tlv(fields);
  }
  if (!field || field->tag != kInteger) {  // serialNumber
    return std::nullopt;
  }
  // signature, issuer, validity, subject: then the key.
  for (int skipped = 0; skipped < 4; ++skipped) {
    if (!expect_tlv(fields, kSequence)) {
      return std::nullopt;
    }
  }
  const std::optional<Tlv> spki = expect_tlv(fields, kSequence);
  return spki ? std::optional(spki->value) : std::nullopt;
}

bool equals(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) noexcept {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// The object identifiers' contents (RFC 5480 §2.1.1, RFC 8410 §3).
constexpr std::array<std::uint8_t, 7> kIdEcPublicKey{0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
constexpr std::array<std::uint8_t, 8> kSecp256r1{0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
constexpr std::array<std::uint8_t, 5> kSecp384r1{0x2b, 0x81, 0x04, 0x00, 0x22};
constexpr std::array<std::uint8_t, 3> kIdEd25519{0x2b, 0x65, 0x70};
constexpr std::array<std::uint8_t, 9> kRsaEncryption{0x2a, 0x86, 0x48, 0x86, 0xf7,
                                                     0x0d, 0x01, 0x01, 0x01};
constexpr std::array<std::uint8_t, 2> kDerNull{0x05, 0x00};
constexpr std::size_t kEd25519KeySize = 32;

// positive_integer: an INTEGER's contents as an unsigned big-endian number (DER: no
// superfluous leading zero); nullopt if negative or not minimal.
std::optional<std::span<const std::uint8_t>> positive_integer(
    std::span<const std::uint8_t>& in) noexcept {
  const std::optional<Tlv> integer = expect_tlv(in, kInteger);
  if (!integer || integer->value.empty() || (integer->value[0] & 0x80) != 0) {
    return std::nullopt;
  }
  std::span<const std::uint8_t> v = integer->value;
  if (v[0] == 0 && v.size() > 1) {
    if ((v[1] & 0x80) == 0) {
      return std::nullopt;
    }
    v = v.subspan(1);
  }
  return v;
}

// rsa_public_key makes the key of an RSAPublicKey (RFC 8017 §A.1.1); nullptr if malformed.
EVP_PKEY* rsa_public_key(std::span<const std::uint8_t> der) noexcept {
  const std::optional<Tlv> sequence = expect_tlv(der, kSequence);
  if (!sequence || !der.empty()) {
    return nullptr;
  }
  std::span<const std::uint8_t> fields = sequence->value;
  const std::optional<std::span<const std::uint8_t>> n = positive_integer(fields);
  const std::optional<std::span<const std::uint8_t>> e = positive_integer(fields);
  if (!n || !e || !fields.empty()) {
    return nullptr;
  }
  const Owned<BIGNUM, BN_free> bn_n(BN_bin2bn(n->data(), static_cast<int>(n->size()), nullptr));
  const Owned<BIGNUM, BN_free> bn_e(BN_bin2bn(e->data(), static_cast<int>(e->size()), nullptr));
  const Owned<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free> build(OSSL_PARAM_BLD_new());
  if (bn_n == nullptr || bn_e == nullptr || build == nullptr ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    return nullptr;
  }
  const Owned<OSSL_PARAM, OSSL_PARAM_free> params(OSSL_PARAM_BLD_to_param(build.get()));
  const Owned<EVP_PKEY_CTX, EVP_PKEY_CTX_free> ctx(
      EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* key = nullptr;
  if (params == nullptr || ctx == nullptr || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return nullptr;
  }
  return key;
}

// key_from_spki makes the key of a SubjectPublicKeyInfo of a type it knows the short way;
// nullopt for the other types, nullptr for a malformed or invalid key of a known type.
std::optional<EVP_PKEY*> key_from_spki(std::span<const std::uint8_t> spki) noexcept {
  const std::optional<Tlv> algorithm = expect_tlv(spki, kSequence);
  const std::optional<Tlv> bits = expect_tlv(spki, kBitString);
  if (!algorithm || !bits || !spki.empty() || bits->value.empty() || bits->value[0] != 0) {
    return std::nullopt;  // let d2i_X509 judge it
  }
  const std::span<const std::uint8_t> key = bits->value.subspan(1);
  std::span<const std::uint8_t> parts = algorithm->value;
  const std::optional<Tlv> oid = expect_tlv(parts, kOid);
  if (!oid) {
    return std::nullopt;
  }
  if (equals(oid->value, kIdEcPublicKey)) {
    const std::optional<Tlv> curve = expect_tlv(parts, kOid);
    if (!curve || !parts.empty()) {
      return std::nullopt;  // explicit parameters: not a named curve
    }
    if (equals(curve->value, kSecp256r1)) {
      return detail::ec_public_key(detail::Curve::kP256, key);
    }
    if (equals(curve->value, kSecp384r1)) {
      return detail::ec_public_key(detail::Curve::kP384, key);
    }
    return std::nullopt;
  }
  if (equals(oid->value, kRsaEncryption) && equals(parts, kDerNull)) {
    return rsa_public_key(key);
  }
  if (equals(oid->value, kIdEd25519) && parts.empty()) {
    return key.size() == kEd25519KeySize
               ? EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.data(), key.size())
               : nullptr;
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(SignatureScheme scheme) noexcept { return scheme_info(scheme).name; }

const char* to_string(KeyType type) noexcept {
  switch (type) {
    case KeyType::kRsa:
      return "RSA";
    case KeyType::kEcP256:
      return "P-256";
    case KeyType::kEcP384:
      return "P-384";
    case KeyType::kEd25519:
      return "Ed25519";
  }
  return "?";
}

bool is_known(std::uint16_t code_point) noexcept {
  return scheme_info(static_cast<SignatureScheme>(code_point)).family != Family::kNone;
}

// PublicKey

PublicKey::PublicKey(KeyType type, std::unique_ptr<State> state) noexcept
    : type_(type), state_(std::move(state)) {}
PublicKey::PublicKey(PublicKey&&) noexcept = default;
PublicKey& PublicKey::operator=(PublicKey&&) noexcept = default;
PublicKey::~PublicKey() = default;

// adopt makes the PublicKey owning `key` (nullptr: `missing`).
Result<PublicKey> PublicKey::adopt(EVP_PKEY* key, Error missing) noexcept {
  return adopt_key<PublicKey, State>(key, missing, [](KeyType type, std::unique_ptr<State> state) {
    return PublicKey(type, std::move(state));
  });
}

Result<PublicKey> PublicKey::from_certificate(std::span<const std::uint8_t> der) noexcept {
  if (der.empty() || der.size() > static_cast<std::size_t>(LONG_MAX)) {
    return Error::kMalformed;
  }
  const ErrorMark mark;
  const std::optional<std::span<const std::uint8_t>> spki = subject_public_key_info(der);
  if (!spki) {
    return Error::kMalformed;
  }
  if (const std::optional<EVP_PKEY*> key = key_from_spki(*spki)) {
    return adopt(*key, Error::kMalformed);
  }
  const unsigned char* p = der.data();
  const Owned<X509, X509_free> cert(d2i_X509(nullptr, &p, static_cast<long>(der.size())));
  if (cert == nullptr || p != der.data() + der.size()) {
    return Error::kMalformed;
  }
  // X509_get_pubkey takes a reference of our own; it fails for a key OpenSSL cannot decode.
  return adopt(X509_get_pubkey(cert.get()), Error::kUnsupported);
}

bool PublicKey::supports(SignatureScheme scheme) const noexcept {
  return key_supports(type_, scheme);
}

Status PublicKey::verify(SignatureScheme scheme, std::span<const std::uint8_t> message,
                         std::span<const std::uint8_t> signature) const noexcept {
  if (!supports(scheme)) {
    return Error::kUnsupported;
  }
  const ErrorMark mark;
  const Owned<EVP_MD_CTX, EVP_MD_CTX_free> ctx(EVP_MD_CTX_new());
  if (ctx == nullptr) {
    return Error::kOutOfMemory;
  }
  if (!init(ctx.get(), scheme_info(scheme), state_->key, false) ||
      EVP_DigestVerify(ctx.get(), signature.data(), signature.size(), message.data(),
                       message.size()) != 1) {
    return Error::kAuthFailed;
  }
  return {};
}

EVP_PKEY* PublicKey::evp_pkey() const noexcept { return state_->key; }

// PrivateKey

PrivateKey::PrivateKey(KeyType type, std::unique_ptr<State> state) noexcept
    : type_(type), state_(std::move(state)) {}
PrivateKey::PrivateKey(PrivateKey&&) noexcept = default;
PrivateKey& PrivateKey::operator=(PrivateKey&&) noexcept = default;
PrivateKey::~PrivateKey() = default;

// adopt makes the PrivateKey owning `key` (nullptr: `missing`).
Result<PrivateKey> PrivateKey::adopt(EVP_PKEY* key, Error missing) noexcept {
  return adopt_key<PrivateKey, State>(key, missing, [](KeyType type, std::unique_ptr<State> state) {
    return PrivateKey(type, std::move(state));
  });
}

Result<PrivateKey> PrivateKey::from_pem(std::span<const std::uint8_t> pem) noexcept {
  if (pem.empty() || pem.size() > static_cast<std::size_t>(INT_MAX)) {
    return Error::kMalformed;
  }
  const ErrorMark mark;
  const Owned<BIO, BIO_free_all> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) {
    return Error::kOutOfMemory;
  }
  return adopt(PEM_read_bio_PrivateKey(bio.get(), nullptr, refuse_passphrase, nullptr),
               Error::kMalformed);
}

Result<PrivateKey> PrivateKey::from_der(std::span<const std::uint8_t> der) noexcept {
  if (der.empty() || der.size() > static_cast<std::size_t>(LONG_MAX)) {
    return Error::kMalformed;
  }
  const ErrorMark mark;
  const unsigned char* p = der.data();
  const Owned<PKCS8_PRIV_KEY_INFO, PKCS8_PRIV_KEY_INFO_free> info(
      d2i_PKCS8_PRIV_KEY_INFO(nullptr, &p, static_cast<long>(der.size())));
  if (info == nullptr || p != der.data() + der.size()) {
    return Error::kMalformed;
  }
  return adopt(EVP_PKCS82PKEY(info.get()), Error::kMalformed);
}

Result<PrivateKey> PrivateKey::generate(KeyType type) noexcept {
  const ErrorMark mark;
  EVP_PKEY* key = nullptr;
  switch (type) {
    case KeyType::kRsa:
      key = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048});  // e = 65537
      break;
    case KeyType::kEcP256:
      key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
      break;
    case KeyType::kEcP384:
      key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384");
      break;
    case KeyType::kEd25519:
      key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
      break;
  }
  return adopt(key, Error::kUnsupported);
}

bool PrivateKey::supports(SignatureScheme scheme) const noexcept {
  return key_supports(type_, scheme);
}

std::size_t PrivateKey::max_signature_size() const noexcept {
  const int size = EVP_PKEY_get_size(state_->key);
  return size > 0 ? static_cast<std::size_t>(size) : 0;
}

Result<std::size_t> PrivateKey::sign(SignatureScheme scheme, std::span<const std::uint8_t> message,
                                     std::span<std::uint8_t> out) const noexcept {
  if (!supports(scheme)) {
    return Error::kUnsupported;
  }
  if (out.size() < max_signature_size()) {
    return Error::kBufferTooSmall;
  }
  const ErrorMark mark;
  const Owned<EVP_MD_CTX, EVP_MD_CTX_free> ctx(EVP_MD_CTX_new());
  if (ctx == nullptr) {
    return Error::kOutOfMemory;
  }
  std::size_t n = out.size();
  if (!init(ctx.get(), scheme_info(scheme), state_->key, true) ||
      EVP_DigestSign(ctx.get(), out.data(), &n, message.data(), message.size()) != 1) {
    return Error::kInvalidArgument;
  }
  return n;
}

Result<std::size_t> PrivateKey::to_pem(std::span<std::uint8_t> out) const noexcept {
  const ErrorMark mark;
  // A memory BIO grows and frees its buffer with OPENSSL_clear_free: no key bytes left behind.
  const Owned<BIO, BIO_free_all> bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr || PEM_write_bio_PKCS8PrivateKey(bio.get(), state_->key, nullptr, nullptr, 0,
                                                      nullptr, nullptr) != 1) {
    return Error::kOutOfMemory;
  }
  BUF_MEM* pem = nullptr;
  if (BIO_get_mem_ptr(bio.get(), &pem) <= 0 || pem == nullptr) {
    return Error::kOutOfMemory;
  }
  if (out.empty()) {
    return pem->length;
  }
  if (out.size() < pem->length) {
    return Error::kBufferTooSmall;
  }
  std::memcpy(out.data(), pem->data, pem->length);
  return pem->length;
}

Result<PublicKey> PrivateKey::public_key() const noexcept {
  const ErrorMark mark;
  // Through SubjectPublicKeyInfo DER, so the PublicKey holds no private half.
  unsigned char* der = nullptr;
  const int len = i2d_PUBKEY(state_->key, &der);
  if (len <= 0) {
    return Error::kOutOfMemory;
  }
  const unsigned char* p = der;
  EVP_PKEY* pub = d2i_PUBKEY(nullptr, &p, len);
  OPENSSL_free(der);
  return PublicKey::adopt(pub, Error::kOutOfMemory);
}

EVP_PKEY* PrivateKey::evp_pkey() const noexcept { return state_->key; }

}  // namespace wireseal::crypto
