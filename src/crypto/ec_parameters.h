// Parameters-only keys for the NIST curves, made once per process. A public key copied from
// one, or a key pair generated from one, skips OpenSSL's look-ups by name (the curve, the key
// manager): more work than anything but the scalar multiplication itself.
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <span>

namespace wireseal::crypto::detail {

enum class Curve : std::uint8_t { kP256, kP384 };

// ec_public_key decodes a SEC 1 point (compressed or not) on `curve`; nullptr unless it is a
// point of the curve.
EVP_PKEY* ec_public_key(Curve curve, std::span<const std::uint8_t> point) noexcept;

// ec_generate makes a fresh key pair on `curve`.
EVP_PKEY* ec_generate(Curve curve) noexcept;

}  // namespace wireseal::crypto::detail
