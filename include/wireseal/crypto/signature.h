#pragma once
// Signatures for the DTLS 1.2 handshake (ServerKeyExchange, CertificateVerify) over OpenSSL
// libcrypto: RSA (PKCS#1 v1.5 and PSS), ECDSA on P-256/P-384 and Ed25519, named by their TLS
// code points. Keys are set-up objects (they allocate inside OpenSSL); signing and verifying
// write into caller storage.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/result.h"

// OpenSSL's EVP_PKEY, named here without including OpenSSL's headers.
struct evp_pkey_st;

namespace wireseal::crypto {

// TLS SignatureScheme code points (RFC 8446 §4.2.3). In TLS 1.2 these same numbers are the
// SignatureAndHashAlgorithm pairs {hash, signature} of RFC 5246 §7.4.1.4.1.
enum class SignatureScheme : std::uint16_t {
  kRsaPkcs1Sha1 = 0x0201,
  kEcdsaSha1 = 0x0203,
  kRsaPkcs1Sha256 = 0x0401,
  kRsaPkcs1Sha384 = 0x0501,
  kRsaPkcs1Sha512 = 0x0601,
  kEcdsaSecp256r1Sha256 = 0x0403,
  kEcdsaSecp384r1Sha384 = 0x0503,
  kEcdsaSecp521r1Sha512 = 0x0603,
  kRsaPssRsaeSha256 = 0x0804,
  kRsaPssRsaeSha384 = 0x0805,
  kRsaPssRsaeSha512 = 0x0806,
  kEd25519 = 0x0807,
};

enum class KeyType : std::uint8_t { kRsa, kEcP256, kEcP384, kEd25519 };

// to_string names `scheme` as the IANA registry does ("ecdsa_secp256r1_sha256"); "unknown"
// for any other value.
const char* to_string(SignatureScheme scheme) noexcept;
// to_string names `type` ("RSA", "P-256", "P-384", "Ed25519").
const char* to_string(KeyType type) noexcept;
// is_known tells whether `code_point` is one of the SignatureScheme enumerators.
bool is_known(std::uint16_t code_point) noexcept;

class PublicKey {
 public:
  // from_certificate takes the subject public key of a DER X.509 certificate. kMalformed if
  // the bytes are not one certificate, kUnsupported for a key that is not a KeyType.
  static Result<PublicKey> from_certificate(std::span<const std::uint8_t> der) noexcept;

  PublicKey(PublicKey&&) noexcept;
  PublicKey& operator=(PublicKey&&) noexcept;
  ~PublicKey();

  KeyType type() const noexcept { return type_; }
  // supports tells whether `scheme` can be verified with this key in TLS 1.2, where the ECDSA
  // code points name only the hash: any ECDSA hash goes with either EC curve; RSA keys take
  // PKCS#1 v1.5 and PSS-rsae; Ed25519 only kEd25519. The SHA-1 schemes are supported (peers
  // still send them).
  bool supports(SignatureScheme scheme) const noexcept;
  // verify checks `signature` over `message` (the whole message, hashed inside with the
  // scheme's hash; PSS with salt length = hash length and MGF1 with the same hash; an ECDSA
  // signature is DER). kAuthFailed when it does not verify, kUnsupported when
  // !supports(scheme).
  Status verify(SignatureScheme scheme, std::span<const std::uint8_t> message,
                std::span<const std::uint8_t> signature) const noexcept;

  // evp_pkey is the OpenSSL key, still owned by this object (for wireseal's certificate code
  // and for tests that cross-check against OpenSSL).
  ::evp_pkey_st* evp_pkey() const noexcept;

  struct State;

 private:
  friend class PrivateKey;
  PublicKey(KeyType type, std::unique_ptr<State> state) noexcept;
  static Result<PublicKey> adopt(::evp_pkey_st* key, Error missing) noexcept;
  KeyType type_;
  std::unique_ptr<State> state_;
};

class PrivateKey {
 public:
  // from_pem reads the first private key of a PEM text: "PRIVATE KEY" (PKCS#8), "EC PRIVATE
  // KEY" or "RSA PRIVATE KEY", unencrypted. from_der reads one DER PKCS#8 PrivateKeyInfo
  // with nothing after it. kMalformed if there is no such key (an encrypted one included),
  // kUnsupported for a key that is not a KeyType.
  static Result<PrivateKey> from_pem(std::span<const std::uint8_t> pem) noexcept;
  static Result<PrivateKey> from_der(std::span<const std::uint8_t> der) noexcept;
  // generate makes a fresh key: RSA 2048 (e = 65537), EC P-256/P-384, Ed25519.
  static Result<PrivateKey> generate(KeyType type) noexcept;

  PrivateKey(PrivateKey&&) noexcept;
  PrivateKey& operator=(PrivateKey&&) noexcept;
  ~PrivateKey();

  KeyType type() const noexcept { return type_; }
  // supports follows the same rule as PublicKey::supports.
  bool supports(SignatureScheme scheme) const noexcept;
  // max_signature_size is the longest signature this key makes (EVP_PKEY_get_size).
  std::size_t max_signature_size() const noexcept;
  // sign signs `message` (hashed inside, as PublicKey::verify takes it) into `out` and
  // returns the signature's length. kUnsupported when !supports(scheme), kBufferTooSmall if
  // out.size() < max_signature_size(), kInvalidArgument if OpenSSL refuses (an RSA key too
  // short for PSS with SHA-512).
  Result<std::size_t> sign(SignatureScheme scheme, std::span<const std::uint8_t> message,
                           std::span<std::uint8_t> out) const noexcept;
  // to_pem writes the key as PKCS#8 PEM ("PRIVATE KEY"), for the CLI to save a generated key,
  // and returns the bytes written. An empty `out` asks for the size: nothing is written and
  // the size needed is returned. A shorter non-empty `out`: kBufferTooSmall.
  Result<std::size_t> to_pem(std::span<std::uint8_t> out) const noexcept;

  // public_key is this key's public half.
  Result<PublicKey> public_key() const noexcept;
  // evp_pkey is the OpenSSL key, still owned by this object (for wireseal's certificate code
  // and for tests that cross-check against OpenSSL).
  ::evp_pkey_st* evp_pkey() const noexcept;

  struct State;

 private:
  PrivateKey(KeyType type, std::unique_ptr<State> state) noexcept;
  static Result<PrivateKey> adopt(::evp_pkey_st* key, Error missing) noexcept;
  KeyType type_;
  std::unique_ptr<State> state_;
};

}  // namespace wireseal::crypto
