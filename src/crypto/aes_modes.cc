// AesCtr / AesCbc front ends: validation once, then the chosen backend.
#include <stdexcept>

#include "backend/native.h"
#include "common/ct.h"
#include "wireseal/crypto/aes.h"

namespace wireseal::crypto {
namespace {

void check_aes_key(std::span<const std::uint8_t> key) {
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
    throw std::invalid_argument("wireseal: AES key must be 16, 24 or 32 bytes");
  }
}

std::unique_ptr<detail::AesModeImpl> make_mode(Backend backend, detail::AesMode mode,
                                               std::span<const std::uint8_t> key) {
  check_aes_key(key);
  if (backend == Backend::kNative) {
    return detail::make_native_aes_mode(mode, key);
  }
  return detail::make_openssl_aes_mode(mode, key);
}

Status check_in_out(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) noexcept {
  if (out.size() < in.size()) {
    return Error::kBufferTooSmall;
  }
  if (wireseal::detail::overlaps_partially(in.data(), in.size(), out.data(), in.size())) {
    return Error::kAliasing;
  }
  return {};
}

}  // namespace

AesCtr::AesCtr(std::span<const std::uint8_t> key, Backend backend)
    : backend_(resolve(Primitive::kAesCtr, backend)) {
  impl_ = make_mode(backend_, detail::AesMode::kCtr, key);
}
AesCtr::~AesCtr() = default;
AesCtr::AesCtr(AesCtr&&) noexcept = default;
AesCtr& AesCtr::operator=(AesCtr&&) noexcept = default;

Status AesCtr::apply(std::span<const std::uint8_t, 16> counter_block,
                     std::span<const std::uint8_t> in, std::span<std::uint8_t> out) noexcept {
  if (Status s = check_in_out(in, out); !s) {
    return s;
  }
  if (!in.empty()) {
    impl_->ctr(counter_block.data(), in, out.first(in.size()));
  }
  return {};
}

void AesCtr::apply_batch(std::span<CtrJob> jobs) noexcept {
  for (CtrJob& job : jobs) {
    job.status = apply(job.counter_block, job.in, job.out);
  }
}

AesCbc::AesCbc(std::span<const std::uint8_t> key, Backend backend)
    : backend_(resolve(Primitive::kAesCbc, backend)) {
  impl_ = make_mode(backend_, detail::AesMode::kCbc, key);
}
AesCbc::~AesCbc() = default;
AesCbc::AesCbc(AesCbc&&) noexcept = default;
AesCbc& AesCbc::operator=(AesCbc&&) noexcept = default;

Status AesCbc::encrypt(std::span<const std::uint8_t, 16> iv, std::span<const std::uint8_t> in,
                       std::span<std::uint8_t> out) noexcept {
  if (in.size() % kAesBlockSize != 0) {
    return Error::kInvalidArgument;
  }
  if (Status s = check_in_out(in, out); !s) {
    return s;
  }
  if (!in.empty()) {
    impl_->cbc_encrypt(iv.data(), in, out.first(in.size()));
  }
  return {};
}

void AesCbc::encrypt_batch(std::span<CbcJob> jobs) noexcept {
  CbcJob* lanes[detail::AesModeImpl::kMaxLanes];
  std::size_t count = 0;
  for (CbcJob& job : jobs) {
    if (job.iv.size() != kAesBlockSize || job.in.size() % kAesBlockSize != 0) {
      job.status = Error::kInvalidArgument;
      continue;
    }
    job.status = check_in_out(job.in, job.out);
    if (!job.status || job.in.empty()) {
      continue;
    }
    job.out = job.out.first(job.in.size());
    lanes[count++] = &job;
    if (count == detail::AesModeImpl::kMaxLanes) {
      impl_->cbc_encrypt_lanes(lanes, count);
      count = 0;
    }
  }
  if (count != 0) {
    impl_->cbc_encrypt_lanes(lanes, count);
  }
}

Status AesCbc::decrypt(std::span<const std::uint8_t, 16> iv, std::span<const std::uint8_t> in,
                       std::span<std::uint8_t> out) noexcept {
  if (in.size() % kAesBlockSize != 0) {
    return Error::kInvalidArgument;
  }
  if (Status s = check_in_out(in, out); !s) {
    return s;
  }
  if (!in.empty()) {
    impl_->cbc_decrypt(iv.data(), in, out.first(in.size()));
  }
  return {};
}

}  // namespace wireseal::crypto
