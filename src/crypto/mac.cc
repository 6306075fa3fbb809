// AesCmac and AesGmac front ends.
#include "wireseal/crypto/mac.h"

#include <stdexcept>

#include "backend/native.h"
#include "common/ct.h"

namespace wireseal::crypto {
namespace {

AeadAlgorithm gcm_for_key(std::size_t key_len) {
  if (key_len == 16) {
    return AeadAlgorithm::kAes128Gcm;
  }
  if (key_len == 32) {
    return AeadAlgorithm::kAes256Gcm;
  }
  throw std::invalid_argument("wireseal::AesGmac: key must be 16 or 32 bytes");
}

}  // namespace

AesCmac::AesCmac(std::span<const std::uint8_t> key, Backend backend)
    : backend_(resolve(Primitive::kAesCmac, backend)) {
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
    throw std::invalid_argument("wireseal: AES key must be 16, 24 or 32 bytes");
  }
  impl_ =
      backend_ == Backend::kNative ? detail::make_native_cmac(key) : detail::make_openssl_cmac(key);
}
AesCmac::~AesCmac() = default;
AesCmac::AesCmac(AesCmac&&) noexcept = default;
AesCmac& AesCmac::operator=(AesCmac&&) noexcept = default;

Status AesCmac::compute(std::span<const std::uint8_t> message,
                        std::span<std::uint8_t> out) noexcept {
  if (out.empty() || out.size() > kCmacLength) {
    return Error::kInvalidArgument;
  }
  std::uint8_t mac[kCmacLength];
  impl_->compute(message, mac);
  std::copy(mac, mac + out.size(), out.begin());
  return {};
}

bool AesCmac::verify(std::span<const std::uint8_t> message,
                     std::span<const std::uint8_t> tag) noexcept {
  if (tag.empty() || tag.size() > kCmacLength) {
    return false;
  }
  std::uint8_t mac[kCmacLength];
  impl_->compute(message, mac);
  return wireseal::detail::tag_matches(std::span<const std::uint8_t>(mac, tag.size()), tag);
}

void AesCmac::compute_batch(std::span<CmacJob> jobs) noexcept {
  for (CmacJob& job : jobs) {
    job.status = compute(job.message, job.out);
  }
}

AesGmac::AesGmac(std::span<const std::uint8_t> key, Backend backend)
    : gcm_(gcm_for_key(key.size()), key,
           AeadOptions{.tag_len = 16, .nonce_len = 12, .backend = backend}) {}

Status AesGmac::compute(std::span<const std::uint8_t, 12> nonce,
                        std::span<const std::uint8_t> message,
                        std::span<std::uint8_t> out) noexcept {
  if (out.empty() || out.size() > kGmacLength) {
    return Error::kInvalidArgument;
  }
  std::uint8_t tag[kGmacLength];
  if (Status s = gcm_.seal(nonce, message, {}, {}, tag); !s) {
    return s;
  }
  std::copy(tag, tag + out.size(), out.begin());
  return {};
}

bool AesGmac::verify(std::span<const std::uint8_t, 12> nonce, std::span<const std::uint8_t> message,
                     std::span<const std::uint8_t> tag) noexcept {
  if (tag.empty() || tag.size() > kGmacLength) {
    return false;
  }
  std::uint8_t expected[kGmacLength];
  if (!gcm_.seal(nonce, message, {}, {}, expected)) {
    return false;
  }
  return wireseal::detail::tag_matches(std::span<const std::uint8_t>(expected, tag.size()), tag);
}

}  // namespace wireseal::crypto
