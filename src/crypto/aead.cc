// Aead front end: argument validation once, then one call into the chosen backend.
#include "wireseal/crypto/aead.h"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "backend/native.h"
#include "common/ct.h"

namespace wireseal::crypto {
namespace {

void check_options(AeadAlgorithm algorithm, std::span<const std::uint8_t> key,
                   const AeadOptions& options) {
  if (key.size() != info(algorithm).key_len) {
    throw std::invalid_argument("wireseal::Aead: wrong key size");
  }
  switch (primitive_of(algorithm)) {
    case Primitive::kAesGcm:
      // NIST SP 800-38D allows 12..16 (and 4, 8 with caveats); protocols use 16.
      if (options.nonce_len != 12 || options.tag_len < 12 || options.tag_len > 16) {
        throw std::invalid_argument("wireseal::Aead: GCM needs a 12-byte nonce and a 12..16 tag");
      }
      break;
    case Primitive::kAesCcm:
      if (options.nonce_len < 7 || options.nonce_len > 13 || options.tag_len < 4 ||
          options.tag_len > 16 || options.tag_len % 2 != 0) {
        throw std::invalid_argument(
            "wireseal::Aead: CCM needs a 7..13 nonce and an even 4..16 tag");
      }
      break;
    default:
      if (options.nonce_len != 12 || options.tag_len != 16) {
        throw std::invalid_argument("wireseal::Aead: ChaCha20-Poly1305 is 12-byte nonce, 16 tag");
      }
      break;
  }
}

std::unique_ptr<detail::AeadImpl> make_impl(Backend backend, AeadAlgorithm algorithm,
                                            std::span<const std::uint8_t> key,
                                            const AeadOptions& o) {
  switch (backend) {
    case Backend::kNative:
      return detail::make_native_aead(algorithm, key, o.tag_len, o.nonce_len);
    case Backend::kIpsecMb:
      return detail::make_ipsecmb_aead(algorithm, key, o.tag_len, o.nonce_len);
    default:
      return detail::make_openssl_aead(algorithm, key, o.tag_len, o.nonce_len);
  }
}

// max_message_length is the longest message the algorithm can take with this nonce length,
// past which its block counter would wrap and reuse keystream: CCM encodes the length in
// 15 - nonce_len bytes; GCM counts 2^32 - 2 blocks (SP 800-38D: 2^39 - 256 bits); ChaCha20
// 2^32 - 1 blocks of 64 bytes, counter 0 being the Poly1305 key (RFC 8439 §2.8).
std::size_t max_message_length(AeadAlgorithm algorithm, std::size_t nonce_len) noexcept {
  std::uint64_t limit = UINT64_MAX;
  switch (primitive_of(algorithm)) {
    case Primitive::kAesCcm: {
      const std::size_t length_bytes = 15 - nonce_len;
      if (length_bytes < 8) {
        limit = (std::uint64_t{1} << (8 * length_bytes)) - 1;
      }
      break;
    }
    case Primitive::kAesGcm:
      limit = (std::uint64_t{1} << 36) - 32;
      break;
    case Primitive::kChaCha20Poly1305:
      limit = (std::uint64_t{1} << 38) - 64;
      break;
    default:
      break;
  }
  return limit < SIZE_MAX ? static_cast<std::size_t>(limit) : SIZE_MAX;
}

// check_buffers validates one seal/open call; kept branch-light because it runs per packet.
Status check_buffers(std::size_t nonce_len, std::size_t max_len,
                     std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> in,
                     std::span<std::uint8_t> out, const std::uint8_t* tag,
                     std::size_t tag_len) noexcept {
  if (nonce.size() != nonce_len || in.size() > max_len) {
    return Error::kInvalidArgument;
  }
  if (out.size() < in.size()) {
    return Error::kBufferTooSmall;
  }
  if (wireseal::detail::overlaps_partially(in.data(), in.size(), out.data(), in.size()) ||
      wireseal::detail::overlaps(out.data(), in.size(), tag, tag_len)) {
    return Error::kAliasing;
  }
  return {};
}

}  // namespace

namespace {

// RFC 9001 §6.6: AES-GCM 2^23 messages, 2^52 forgeries; ChaCha20-Poly1305 beyond 2^62 (so
// 2^62 here), 2^36 forgeries; AES-128-CCM 2^21.5 (2965820) for both (Appendix B.2). The RFC
// gives GCM one figure for both key sizes; the CCM figure is applied to the longer keys too.
constexpr std::uint64_t kGcmConfidentiality = std::uint64_t{1} << 23;
constexpr std::uint64_t kGcmIntegrity = std::uint64_t{1} << 52;
constexpr std::uint64_t kCcmLimit = 2965820;  // 2^21.5
constexpr std::uint64_t kChaChaConfidentiality = std::uint64_t{1} << 62;
constexpr std::uint64_t kChaChaIntegrity = std::uint64_t{1} << 36;

// In AeadAlgorithm order.
constexpr AeadInfo kAeads[] = {
    {AeadAlgorithm::kAes128Gcm, "AES-128-GCM", Primitive::kAesGcm, 16, 12, 16, kGcmConfidentiality,
     kGcmIntegrity},
    {AeadAlgorithm::kAes192Gcm, "AES-192-GCM", Primitive::kAesGcm, 24, 12, 16, kGcmConfidentiality,
     kGcmIntegrity},
    {AeadAlgorithm::kAes256Gcm, "AES-256-GCM", Primitive::kAesGcm, 32, 12, 16, kGcmConfidentiality,
     kGcmIntegrity},
    {AeadAlgorithm::kAes128Ccm, "AES-128-CCM", Primitive::kAesCcm, 16, 12, 16, kCcmLimit,
     kCcmLimit},
    {AeadAlgorithm::kAes192Ccm, "AES-192-CCM", Primitive::kAesCcm, 24, 12, 16, kCcmLimit,
     kCcmLimit},
    {AeadAlgorithm::kAes256Ccm, "AES-256-CCM", Primitive::kAesCcm, 32, 12, 16, kCcmLimit,
     kCcmLimit},
    {AeadAlgorithm::kChaCha20Poly1305, "ChaCha20-Poly1305", Primitive::kChaCha20Poly1305, 32, 12,
     16, kChaChaConfidentiality, kChaChaIntegrity},
};

}  // namespace

const AeadInfo& info(AeadAlgorithm algorithm) noexcept {
  const auto index = static_cast<std::size_t>(algorithm);
  return index < std::size(kAeads) ? kAeads[index] : kAeads[0];
}

Primitive primitive_of(AeadAlgorithm algorithm) noexcept { return info(algorithm).primitive; }

const char* to_string(AeadAlgorithm algorithm) noexcept { return info(algorithm).name; }

Aead::Aead(AeadAlgorithm algorithm, std::span<const std::uint8_t> key, AeadOptions options)
    : algorithm_(algorithm),
      backend_(resolve(primitive_of(algorithm), options.backend)),
      tag_len_(options.tag_len),
      nonce_len_(options.nonce_len),
      max_in_len_(max_message_length(algorithm, options.nonce_len)) {
  check_options(algorithm, key, options);
  impl_ = make_impl(backend_, algorithm, key, options);
  single_ = &impl_->single_calls();
}

Aead::~Aead() = default;
Aead::Aead(Aead&&) noexcept = default;
Aead& Aead::operator=(Aead&&) noexcept = default;

// check_seal and check_open run for every job of a batch: inline (they are private, used only
// in this file).
inline Status Aead::check_seal(std::span<const std::uint8_t> nonce,
                               std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                               std::span<std::uint8_t> tag) const noexcept {
  if (tag.size() < tag_len_) {
    return Error::kBufferTooSmall;
  }
  return check_buffers(nonce_len_, max_in_len_, nonce, in, out, tag.data(), tag_len_);
}

inline Status Aead::check_open(std::span<const std::uint8_t> nonce,
                               std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                               std::span<const std::uint8_t> tag) const noexcept {
  if (tag.size() != tag_len_) {
    return Error::kAuthFailed;
  }
  return check_buffers(nonce_len_, max_in_len_, nonce, in, out, tag.data(), tag_len_);
}

Status Aead::seal(std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> aad,
                  std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                  std::span<std::uint8_t> tag) noexcept {
  if (Status s = check_seal(nonce, in, out, tag); !s) {
    return s;
  }
  single_->seal(nonce, aad, in, out.first(in.size()), tag.first(tag_len_));
  return {};
}

Status Aead::open(std::span<const std::uint8_t> nonce, std::span<const std::uint8_t> aad,
                  std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                  std::span<const std::uint8_t> tag) noexcept {
  if (Status s = check_open(nonce, in, out, tag); !s) {
    return s;
  }
  if (!wireseal::detail::accept_verdict(single_->open(nonce, aad, in, out.first(in.size()), tag))) {
    wireseal::detail::secure_wipe(out.data(), in.size());
    return Error::kAuthFailed;
  }
  return {};
}

bool Aead::batch_interleaves() const noexcept { return impl_->interleave_max() != 0; }

std::size_t Aead::batch_interleave_max() const noexcept { return impl_->interleave_max(); }

void Aead::seal_batch(std::span<SealJob> jobs) noexcept {
  // Valid jobs are handed to the backend in groups of up to kMaxLanes, trimmed to exact sizes.
  SealJob* lanes[detail::AeadImpl::kMaxLanes];
  std::size_t num_lanes = 0;
  for (SealJob& job : jobs) {
    job.status = check_seal(job.nonce, job.in, job.out, job.tag);
    if (!job.status) {
      continue;
    }
    job.out = job.out.first(job.in.size());
    job.tag = job.tag.first(tag_len_);
    lanes[num_lanes++] = &job;
    if (num_lanes == detail::AeadImpl::kMaxLanes) {
      impl_->seal_lanes(lanes, num_lanes);
      num_lanes = 0;
    }
  }
  if (num_lanes != 0) {
    impl_->seal_lanes(lanes, num_lanes);
  }
}

void Aead::open_batch(std::span<OpenJob> jobs) noexcept {
  OpenJob* lanes[detail::AeadImpl::kMaxLanes];
  std::size_t num_lanes = 0;
  auto flush = [&] {
    const std::uint32_t ok = impl_->open_lanes(lanes, num_lanes);
    for (std::size_t i = 0; i < num_lanes; ++i) {
      if (!wireseal::detail::accept_verdict((ok >> i & 1) != 0)) {
        wireseal::detail::secure_wipe(lanes[i]->out.data(), lanes[i]->in.size());
        lanes[i]->status = Error::kAuthFailed;
      }
    }
    num_lanes = 0;
  };
  for (OpenJob& job : jobs) {
    job.status = check_open(job.nonce, job.in, job.out, job.tag);
    if (!job.status) {
      continue;
    }
    job.out = job.out.first(job.in.size());
    lanes[num_lanes++] = &job;
    if (num_lanes == detail::AeadImpl::kMaxLanes) {
      flush();
    }
  }
  if (num_lanes != 0) {
    flush();
  }
}

}  // namespace wireseal::crypto
