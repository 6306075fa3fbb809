#pragma once
// Ephemeral (EC)DH for the DTLS 1.2 handshake (RFC 8422 §5.10, RFC 7748): X25519, P-256 and
// P-384 over OpenSSL libcrypto. A KeyShare is one private key, used for one handshake and
// then destroyed (OpenSSL clears it); its public key is in the TLS wire form (32 bytes for
// X25519, the uncompressed point 04||x||y for the NIST curves). Set-up allocates inside
// OpenSSL; the handshake is not the packet path.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "wireseal/result.h"

// OpenSSL's EVP_PKEY, named here without including OpenSSL's headers.
struct evp_pkey_st;

namespace wireseal::crypto {

// NamedGroup values are the TLS code points (RFC 8422 §5.1.1, RFC 8446 §4.2.7).
enum class NamedGroup : std::uint16_t {
  kSecp256r1 = 23,
  kSecp384r1 = 24,
  kX25519 = 29,
};

struct GroupInfo {
  const char* name;             // "X25519", "P-256", "P-384"
  std::size_t public_key_size;  // on the wire
  std::size_t shared_secret_size;
};
const GroupInfo& info(NamedGroup group) noexcept;

// named_group maps a code point to a group wireseal implements (kUnsupported otherwise).
Result<NamedGroup> named_group(std::uint16_t code_point) noexcept;

class KeyShare {
 public:
  // generate makes a fresh key pair (kOutOfMemory or kUnsupported if OpenSSL cannot).
  static Result<KeyShare> generate(NamedGroup group) noexcept;
  // from_private rebuilds a key pair from its private key: for known-answer tests and the
  // fuzzing build's deterministic handshakes. X25519: 32 bytes; P-256/P-384: the big-endian
  // scalar (32/48 bytes), its public key computed. kInvalidArgument for a bad key.
  static Result<KeyShare> from_private(NamedGroup group,
                                       std::span<const std::uint8_t> private_key) noexcept;

  KeyShare(KeyShare&&) noexcept;
  KeyShare& operator=(KeyShare&&) noexcept;
  ~KeyShare();

  NamedGroup group() const noexcept { return group_; }
  // public_key is this share's public key in wire form (info(group()).public_key_size bytes).
  std::span<const std::uint8_t> public_key() const noexcept;

  // derive computes the shared secret with the peer's wire-form public key into
  // out[0, shared_secret_size): the X25519 output, or the x coordinate of the shared point.
  // kMalformed for a peer key of the wrong size, not on the curve, or (X25519) one that gives
  // the all-zero secret (RFC 7748 §6.1); kBufferTooSmall if `out` is short.
  Status derive(std::span<const std::uint8_t> peer_public,
                std::span<std::uint8_t> out) const noexcept;

  struct State;

 private:
  KeyShare(NamedGroup group, std::unique_ptr<State> state) noexcept;
  static Result<KeyShare> adopt(NamedGroup group, ::evp_pkey_st* key, Error missing) noexcept;
  NamedGroup group_;
  std::unique_ptr<State> state_;
};

}  // namespace wireseal::crypto
