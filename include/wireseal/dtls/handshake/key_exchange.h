#pragma once
// The key exchange families whose messages differ on the wire: ServerKeyExchange and
// ClientKeyExchange are parsed and written for one of them (the negotiated suite's).

#include <cstdint>

namespace wireseal::dtls {

enum class KeyExchange : std::uint8_t {
  kEcdhe,     // ECDHE_ECDSA, ECDHE_RSA (RFC 8422): signed ECDH parameters
  kPsk,       // PSK (RFC 4279): an optional identity hint, no server key
  kEcdhePsk,  // ECDHE_PSK (RFC 5489): identity hint, then unsigned ECDH parameters
};

// RFC 8422 §5.4 ECCurveType: only named_curve is allowed.
inline constexpr std::uint8_t kNamedCurve = 3;

}  // namespace wireseal::dtls
