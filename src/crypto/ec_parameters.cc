#include "ec_parameters.h"

#include <openssl/core_names.h>

#include <array>
#include <memory>

namespace wireseal::crypto::detail {

namespace {

struct KeyFree {
  void operator()(EVP_PKEY* key) const noexcept { EVP_PKEY_free(key); }
};
using SharedParameters = std::unique_ptr<EVP_PKEY, KeyFree>;

EVP_PKEY* make_parameters(const char* group) noexcept {
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
  std::array<OSSL_PARAM, 2> params{
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, const_cast<char*>(group), 0),
      OSSL_PARAM_construct_end()};
  EVP_PKEY* key = nullptr;
  if (ctx == nullptr || EVP_PKEY_fromdata_init(ctx) != 1 ||
      EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEY_PARAMETERS, params.data()) != 1) {
    key = nullptr;
  }
  EVP_PKEY_CTX_free(ctx);
  return key;
}

// curve_parameters: the curve's shared parameters key (read-only; nullptr if OpenSSL could
// not make it).
const EVP_PKEY* curve_parameters(Curve curve) noexcept {
  // Made on first use (thread-safe: C++ static initialisation) and freed at exit, before
  // OpenSSL's own clean-up, which registered earlier.
  static const SharedParameters p256(make_parameters("P-256"));
  static const SharedParameters p384(make_parameters("P-384"));
  return curve == Curve::kP256 ? p256.get() : p384.get();
}

}  // namespace

EVP_PKEY* ec_public_key(Curve curve, std::span<const std::uint8_t> point) noexcept {
  const EVP_PKEY* parameters = curve_parameters(curve);
  EVP_PKEY* key = parameters != nullptr ? EVP_PKEY_new() : nullptr;
  // EVP_PKEY_set1_encoded_public_key goes through EC_POINT_oct2point, which refuses a point
  // that is not on the curve.
  if (key == nullptr || EVP_PKEY_copy_parameters(key, parameters) != 1 ||
      EVP_PKEY_set1_encoded_public_key(key, point.data(), point.size()) != 1) {
    EVP_PKEY_free(key);
    return nullptr;
  }
  return key;
}

EVP_PKEY* ec_generate(Curve curve) noexcept {
  const EVP_PKEY* parameters = curve_parameters(curve);
  EVP_PKEY_CTX* ctx =
      parameters != nullptr
          ? EVP_PKEY_CTX_new_from_pkey(nullptr, const_cast<EVP_PKEY*>(parameters), nullptr)
          : nullptr;
  EVP_PKEY* key = nullptr;
  if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_keygen(ctx, &key) != 1) {
    key = nullptr;
  }
  EVP_PKEY_CTX_free(ctx);
  return key;
}

}  // namespace wireseal::crypto::detail
