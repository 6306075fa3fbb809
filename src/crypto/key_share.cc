// (EC)DH key shares over OpenSSL 3's EVP_PKEY API (RFC 8422 §5.10, RFC 7748).
#include "wireseal/crypto/key_share.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

#include <algorithm>
#include <array>
#include <new>

#include "common/ct.h"
#include "ec_parameters.h"

namespace wireseal::crypto {

struct KeyShare::State {
  EVP_PKEY* key = nullptr;
  std::array<std::uint8_t, 97> public_key{};  // the largest: P-384 uncompressed
  std::size_t public_key_size = 0;
  ~State() { EVP_PKEY_free(key); }
};

namespace {

constexpr GroupInfo kX25519{"X25519", 32, 32};
constexpr GroupInfo kP256{"P-256", 65, 32};
constexpr GroupInfo kP384{"P-384", 97, 48};

bool is_x25519(NamedGroup group) noexcept { return group == NamedGroup::kX25519; }

detail::Curve curve_of(NamedGroup group) noexcept {
  return group == NamedGroup::kSecp256r1 ? detail::Curve::kP256 : detail::Curve::kP384;
}

// finish stores the public key of state->key in wire form.
Result<std::unique_ptr<KeyShare::State>> finish(NamedGroup group,
                                                std::unique_ptr<KeyShare::State> state) noexcept {
  std::size_t n = state->public_key.size();
  if (is_x25519(group)) {
    if (EVP_PKEY_get_raw_public_key(state->key, state->public_key.data(), &n) != 1) {
      return Error::kInvalidArgument;
    }
  } else {
    unsigned char* encoded = nullptr;
    n = EVP_PKEY_get1_encoded_public_key(state->key, &encoded);
    const bool fits = n == info(group).public_key_size;
    if (fits) {
      std::copy_n(encoded, n, state->public_key.begin());
    }
    OPENSSL_free(encoded);
    if (!fits) {
      return Error::kInvalidArgument;
    }
  }
  state->public_key_size = n;
  return state;
}

// ec_public_point computes d·G in uncompressed form into `out` (OpenSSL 3.0 does not derive
// the public key when a private key is imported); 0 on failure (d = 0 gives infinity).
std::size_t ec_public_point(NamedGroup group, const BIGNUM* d,
                            std::span<std::uint8_t> out) noexcept {
  const int nid = group == NamedGroup::kSecp256r1 ? NID_X9_62_prime256v1 : NID_secp384r1;
  EC_GROUP* curve = EC_GROUP_new_by_curve_name(nid);
  EC_POINT* point = curve != nullptr ? EC_POINT_new(curve) : nullptr;
  std::size_t n = 0;
  if (point != nullptr && EC_POINT_mul(curve, point, d, nullptr, nullptr, nullptr) == 1) {
    n = EC_POINT_point2oct(curve, point, POINT_CONVERSION_UNCOMPRESSED, out.data(), out.size(),
                           nullptr);
  }
  EC_POINT_free(point);
  EC_GROUP_free(curve);
  return n == info(group).public_key_size ? n : 0;
}

// ec_from_private builds a NIST-curve key pair from its scalar.
EVP_PKEY* ec_from_private(NamedGroup group, std::span<const std::uint8_t> scalar) noexcept {
  EVP_PKEY* key = nullptr;
  BIGNUM* priv = BN_bin2bn(scalar.data(), static_cast<int>(scalar.size()), nullptr);
  std::array<std::uint8_t, 97> pub{};
  const std::size_t pub_size = priv != nullptr ? ec_public_point(group, priv, pub) : 0;
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
  OSSL_PARAM* params = nullptr;
  if (pub_size != 0 && bld != nullptr && ctx != nullptr &&
      OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, info(group).name, 0) == 1 &&
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv) == 1 &&
      OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub.data(), pub_size) == 1 &&
      (params = OSSL_PARAM_BLD_to_param(bld)) != nullptr && EVP_PKEY_fromdata_init(ctx) == 1) {
    if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params) != 1) {
      key = nullptr;
    }
  }
  OSSL_PARAM_free(params);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_BLD_free(bld);
  BN_clear_free(priv);
  return key;
}

// peer_key decodes a wire-form public key of `group`: for the NIST curves an uncompressed
// point (RFC 8422 §5.4.1: not compressed, not OpenSSL's hybrid form), checked to be on the
// curve.
EVP_PKEY* peer_key(NamedGroup group, std::span<const std::uint8_t> wire) noexcept {
  if (wire.size() != info(group).public_key_size) {
    return nullptr;
  }
  if (is_x25519(group)) {
    return EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, wire.data(), wire.size());
  }
  constexpr std::uint8_t kUncompressed = 0x04;
  return wire[0] == kUncompressed ? detail::ec_public_key(curve_of(group), wire) : nullptr;
}

}  // namespace

const GroupInfo& info(NamedGroup group) noexcept {
  switch (group) {
    case NamedGroup::kSecp256r1:
      return kP256;
    case NamedGroup::kSecp384r1:
      return kP384;
    case NamedGroup::kX25519:
      break;
  }
  return kX25519;
}

Result<NamedGroup> named_group(std::uint16_t code_point) noexcept {
  switch (static_cast<NamedGroup>(code_point)) {
    case NamedGroup::kSecp256r1:
    case NamedGroup::kSecp384r1:
    case NamedGroup::kX25519:
      return static_cast<NamedGroup>(code_point);
  }
  return Error::kUnsupported;
}

KeyShare::KeyShare(NamedGroup group, std::unique_ptr<State> state) noexcept
    : group_(group), state_(std::move(state)) {}
KeyShare::KeyShare(KeyShare&&) noexcept = default;
KeyShare& KeyShare::operator=(KeyShare&&) noexcept = default;
KeyShare::~KeyShare() = default;

// adopt makes the KeyShare of `key` (nullptr: `missing`, OpenSSL could not make it).
Result<KeyShare> KeyShare::adopt(NamedGroup group, EVP_PKEY* key, Error missing) noexcept {
  if (key == nullptr) {
    return missing;
  }
  std::unique_ptr<State> state(new (std::nothrow) State);
  if (state == nullptr) {
    EVP_PKEY_free(key);
    return Error::kOutOfMemory;
  }
  state->key = key;
  Result<std::unique_ptr<State>> done = finish(group, std::move(state));
  if (!done) {
    return done.error();
  }
  return KeyShare(group, std::move(*done));
}

Result<KeyShare> KeyShare::generate(NamedGroup group) noexcept {
  return adopt(group,
               is_x25519(group) ? EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519")
                                : detail::ec_generate(curve_of(group)),
               Error::kUnsupported);
}

Result<KeyShare> KeyShare::from_private(NamedGroup group,
                                        std::span<const std::uint8_t> private_key) noexcept {
  if (private_key.size() != info(group).shared_secret_size) {
    return Error::kInvalidArgument;
  }
  return adopt(group,
               is_x25519(group)
                   ? EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, private_key.data(),
                                                  private_key.size())
                   : ec_from_private(group, private_key),
               Error::kInvalidArgument);
}

std::span<const std::uint8_t> KeyShare::public_key() const noexcept {
  return {state_->public_key.data(), state_->public_key_size};
}

Status KeyShare::derive(std::span<const std::uint8_t> peer_public,
                        std::span<std::uint8_t> out) const noexcept {
  const std::size_t size = info(group_).shared_secret_size;
  if (out.size() < size) {
    return Error::kBufferTooSmall;
  }
  EVP_PKEY* peer = peer_key(group_, peer_public);
  if (peer == nullptr) {
    return Error::kMalformed;
  }
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, state_->key, nullptr);
  std::size_t n = size;
  // The peer key is validated already: peer_key took only an uncompressed point of the
  // group's size, which EC_POINT_oct2point refuses unless it is on the curve, and P-256 and
  // P-384 have cofactor 1, so that is the whole check (SP 800-56A partial validation); X25519
  // needs none (the all-zero result is refused below). EVP_PKEY_derive_set_peer would repeat
  // it as a full public-key check, a second scalar multiplication per handshake.
  const bool ok = ctx != nullptr && EVP_PKEY_derive_init(ctx) == 1 &&
                  EVP_PKEY_derive_set_peer_ex(ctx, peer, 0) == 1 &&
                  EVP_PKEY_derive(ctx, out.data(), &n) == 1 && n == size;
  EVP_PKEY_CTX_free(ctx);
  EVP_PKEY_free(peer);
  if (!ok) {
    wireseal::detail::secure_wipe(out.data(), size);
    return Error::kMalformed;  // OpenSSL refuses the all-zero X25519 output itself
  }
  // RFC 7748 §6.1: a low-order peer key gives all zeros; refuse it whatever OpenSSL did.
  std::uint8_t any = 0;
  for (std::size_t i = 0; i < size; ++i) {
    any = static_cast<std::uint8_t>(any | out[i]);
  }
  if (any == 0) {
    return Error::kMalformed;
  }
  return {};
}

}  // namespace wireseal::crypto
