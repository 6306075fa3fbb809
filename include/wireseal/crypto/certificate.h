#pragma once
// X.509 certificates for the DTLS 1.2 handshake over OpenSSL libcrypto: chains held as DER,
// self-signed certificates for WebRTC (RFC 8827), their fingerprints (RFC 8122 §5) and chain
// verification against trust anchors. All of this is set-up: it allocates.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wireseal/crypto/signature.h"
#include "wireseal/result.h"

namespace wireseal::crypto {

// CertificateChain is a certificate chain held as DER, leaf first. Copies and moves keep
// certificates() pointing into their own storage; a moved-from chain is empty.
class CertificateChain {
 public:
  CertificateChain() = default;
  // from_pem takes every CERTIFICATE block of a PEM text, in file order (other blocks, such as
  // a private key in the same file, are skipped). kMalformed if there is none, or a block or
  // certificate does not parse.
  static Result<CertificateChain> from_pem(std::span<const std::uint8_t> pem) noexcept;
  // from_der copies DER certificates, each parsed once to check it is one certificate with
  // nothing after it (kMalformed otherwise). An empty list gives an empty chain.
  static Result<CertificateChain> from_der(
      std::span<const std::span<const std::uint8_t>> certificates) noexcept;

  CertificateChain(const CertificateChain& other);
  CertificateChain& operator=(const CertificateChain& other);
  CertificateChain(CertificateChain&& other) noexcept;
  CertificateChain& operator=(CertificateChain&& other) noexcept;
  ~CertificateChain() = default;

  std::size_t size() const noexcept { return spans_.size(); }
  bool empty() const noexcept { return spans_.empty(); }
  // der is certificate i (0: the leaf); empty when i >= size().
  std::span<const std::uint8_t> der(std::size_t i) const noexcept;
  // certificates are the DER certificates as spans, leaf first (what dtls::write_certificate
  // takes).
  std::span<const std::span<const std::uint8_t>> certificates() const noexcept { return spans_; }
  // to_pem writes every certificate as a CERTIFICATE block (64-column base64) and returns the
  // bytes written. An empty `out` asks for the size: nothing is written and the size needed
  // is returned. A shorter non-empty `out`: kBufferTooSmall.
  Result<std::size_t> to_pem(std::span<std::uint8_t> out) const noexcept;

 private:
  // append checks that `der` is one certificate (kMalformed) and copies it in (may throw
  // std::bad_alloc); finish then makes the spans.
  Status append(std::span<const std::uint8_t> der);
  void finish();
  void rebuild_spans() noexcept;  // spans_ from ends_ over bytes_, sizes already equal

  std::vector<std::uint8_t> bytes_;  // the certificates back to back
  std::vector<std::size_t> ends_;    // where each one ends in bytes_
  std::vector<std::span<const std::uint8_t>> spans_;
};

// CertifiedKey is a certificate and the key that signs for it.
struct CertifiedKey {
  CertificateChain chain;
  PrivateKey key;
};

// generate_self_signed makes a key of `type` and a self-signed certificate for WebRTC-style
// use (RFC 8827): subject and issuer CN=common_name, a random 16-byte positive serial, valid
// from now - 1 day (for peers' clock skew) to now + `days` days, X.509 v3 without
// extensions, signed with SHA-256 (Ed25519: no digest). kInvalidArgument for days < 1 or a
// validity end past 9999, or a common name X.509 does not allow (empty, longer than 64
// characters, not UTF-8).
Result<CertifiedKey> generate_self_signed(KeyType type, std::string_view common_name = "wireseal",
                                          int days = 30) noexcept;

// Fingerprint (RFC 8122 §5) is the hash of a DER certificate.
enum class FingerprintHash : std::uint8_t { kSha1, kSha224, kSha256, kSha384, kSha512 };

struct Fingerprint {
  FingerprintHash hash = FingerprintHash::kSha256;
  std::array<std::uint8_t, 64> digest{};
  std::size_t size = 0;

  std::span<const std::uint8_t> bytes() const noexcept { return {digest.data(), size}; }
  // Equal: the same hash, size and digest bytes up to size.
  bool operator==(const Fingerprint& other) const noexcept;
};

// fingerprint hashes `der` (the bytes as given; they are not parsed). kInvalidArgument for a
// hash outside FingerprintHash.
Result<Fingerprint> fingerprint(FingerprintHash hash, std::span<const std::uint8_t> der) noexcept;
// parse_fingerprint reads "sha-256 AB:CD:..." (RFC 8122: the hash names sha-1, sha-224,
// sha-256, sha-384, sha-512; colon-separated hex pairs). The separator between name and hex
// may be a space or ':' ("sha-256:AB:CD:..."); name and hex are case-insensitive. kMalformed
// for anything else: another hash, a digest of the wrong length, odd digits, stray spaces.
Result<Fingerprint> parse_fingerprint(std::string_view text) noexcept;
// format_fingerprint writes "sha-256 AB:CD:..." (uppercase hex).
std::string format_fingerprint(const Fingerprint& fp);

// TrustStore holds trust anchors for chain verification. An anchor is a self-signed
// certificate (a root CA, or a self-signed peer trusted as itself): an intermediate CA in the
// store does not end a chain on its own (OpenSSL's default, no partial chains).
class TrustStore {
 public:
  // from_pem takes the CA certificates of a PEM text (every CERTIFICATE block; repeats are
  // fine). kMalformed if there is none or one does not parse.
  static Result<TrustStore> from_pem(std::span<const std::uint8_t> pem) noexcept;

  TrustStore(TrustStore&&) noexcept;
  TrustStore& operator=(TrustStore&&) noexcept;
  ~TrustStore();

  // verify checks `chain` (leaf first, DER) up to one of the anchors at the current time, for
  // the purpose TLS server authentication (`server`) or client authentication, and when
  // `host_name` is not empty that it names the leaf (a DNS name, RFC 6125 matching without
  // partial wildcards; an IP address literal is matched against iPAddress names).
  // kAuthFailed on any failure (an empty chain included); kMalformed when a certificate does
  // not parse; kInvalidArgument for a host name OpenSSL refuses (an embedded NUL).
  Status verify(std::span<const std::span<const std::uint8_t>> chain, bool server,
                std::string_view host_name = {}) const noexcept;

  struct State;

 private:
  explicit TrustStore(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace wireseal::crypto
