// HMAC from precomputed inner/outer states over OpenSSL's low-level SHA contexts.
//
// The SHA*_CTX structs are plain data, so a saved state is copied by value onto the stack for
// each message: zero allocations, and OpenSSL's SHA-NI/AVX2 compression functions do the work.
// These functions are deprecated in OpenSSL 3 in favour of EVP_MAC, whose per-message cost is
// exactly what this file exists to avoid.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "wireseal/crypto/hmac.h"

#include <openssl/sha.h>

#include <cstring>

#include "common/ct.h"
#include "crypto/backend/x86/sha1_ni.h"
#include "crypto/backend/x86/sha256_ni.h"
#include "crypto/hmac_lanes.h"
#include "wireseal/crypto/backend.h"

namespace wireseal::crypto {
namespace {

static_assert(sizeof(SHA512_CTX) <= sizeof(HashState), "HashState too small");
static_assert(sizeof(SHA256_CTX) <= sizeof(HashState), "HashState too small");
static_assert(sizeof(SHA_CTX) <= sizeof(HashState), "HashState too small");

template <class Ctx>
Ctx* as(HashState& s) noexcept {
  return reinterpret_cast<Ctx*>(s.bytes);
}
template <class Ctx>
const Ctx* as(const HashState& s) noexcept {
  return reinterpret_cast<const Ctx*>(s.bytes);
}

void hash_init(HashAlgorithm hash, HashState& s) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      SHA1_Init(as<SHA_CTX>(s));
      break;
    case HashAlgorithm::kSha224:
      SHA224_Init(as<SHA256_CTX>(s));
      break;
    case HashAlgorithm::kSha256:
      SHA256_Init(as<SHA256_CTX>(s));
      break;
    case HashAlgorithm::kSha384:
      SHA384_Init(as<SHA512_CTX>(s));
      break;
    case HashAlgorithm::kSha512:
      SHA512_Init(as<SHA512_CTX>(s));
      break;
  }
}

void hash_update(HashAlgorithm hash, HashState& s, const std::uint8_t* data, std::size_t len) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      SHA1_Update(as<SHA_CTX>(s), data, len);
      break;
    case HashAlgorithm::kSha224:
    case HashAlgorithm::kSha256:
      SHA256_Update(as<SHA256_CTX>(s), data, len);
      break;
    case HashAlgorithm::kSha384:
    case HashAlgorithm::kSha512:
      SHA512_Update(as<SHA512_CTX>(s), data, len);
      break;
  }
}

void hash_final(HashAlgorithm hash, HashState& s, std::uint8_t* out) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      SHA1_Final(out, as<SHA_CTX>(s));
      break;
    case HashAlgorithm::kSha224:
      SHA224_Final(out, as<SHA256_CTX>(s));
      break;
    case HashAlgorithm::kSha256:
      SHA256_Final(out, as<SHA256_CTX>(s));
      break;
    case HashAlgorithm::kSha384:
      SHA384_Final(out, as<SHA512_CTX>(s));
      break;
    case HashAlgorithm::kSha512:
      SHA512_Final(out, as<SHA512_CTX>(s));
      break;
  }
}

}  // namespace

const char* to_string(HashAlgorithm hash) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      return "SHA-1";
    case HashAlgorithm::kSha224:
      return "SHA-224";
    case HashAlgorithm::kSha256:
      return "SHA-256";
    case HashAlgorithm::kSha384:
      return "SHA-384";
    case HashAlgorithm::kSha512:
      return "SHA-512";
  }
  return "?";
}

std::size_t digest_length(HashAlgorithm hash) noexcept {
  switch (hash) {
    case HashAlgorithm::kSha1:
      return 20;
    case HashAlgorithm::kSha224:
      return 28;
    case HashAlgorithm::kSha256:
      return 32;
    case HashAlgorithm::kSha384:
      return 48;
    case HashAlgorithm::kSha512:
      return 64;
  }
  return 0;
}

std::size_t block_length(HashAlgorithm hash) noexcept {
  return hash == HashAlgorithm::kSha384 || hash == HashAlgorithm::kSha512 ? 128 : 64;
}

Hmac::Hmac(HashAlgorithm hash, std::span<const std::uint8_t> key) noexcept : hash_(hash) {
  const std::size_t block = block_length(hash);
  std::uint8_t padded[128] = {};
  if (key.size() > block) {
    HashState s;
    hash_init(hash, s);
    hash_update(hash, s, key.data(), key.size());
    hash_final(hash, s, padded);
    wireseal::detail::secure_wipe(&s, sizeof(s));
  } else if (!key.empty()) {
    std::memcpy(padded, key.data(), key.size());
  }
  std::uint8_t pad[128];
  for (std::size_t i = 0; i < block; ++i) {
    pad[i] = static_cast<std::uint8_t>(padded[i] ^ 0x36);
  }
  hash_init(hash, inner_);
  hash_update(hash, inner_, pad, block);
  for (std::size_t i = 0; i < block; ++i) {
    pad[i] = static_cast<std::uint8_t>(padded[i] ^ 0x5c);
  }
  hash_init(hash, outer_);
  hash_update(hash, outer_, pad, block);
  wireseal::detail::secure_wipe(padded, sizeof(padded));
  wireseal::detail::secure_wipe(pad, sizeof(pad));
  // The saved SHA contexts after the ipad/opad block hold exactly the chaining values that the
  // SHA-NI kernels start from.
  if (cpu_features().sha_ni && hash == HashAlgorithm::kSha1) {
    const SHA_CTX* in = as<SHA_CTX>(inner_);
    const SHA_CTX* out = as<SHA_CTX>(outer_);
    const std::uint32_t in_h[5] = {in->h0, in->h1, in->h2, in->h3, in->h4};
    const std::uint32_t out_h[5] = {out->h0, out->h1, out->h2, out->h3, out->h4};
    std::memcpy(inner_chain_, in_h, sizeof(in_h));
    std::memcpy(outer_chain_, out_h, sizeof(out_h));
    lanes_ = true;
  } else if (cpu_features().sha_ni && hash == HashAlgorithm::kSha256) {
    for (int i = 0; i < 8; ++i) {
      inner_chain_[i] = as<SHA256_CTX>(inner_)->h[i];
      outer_chain_[i] = as<SHA256_CTX>(outer_)->h[i];
    }
    lanes_ = true;
  }
}

Hmac::~Hmac() {
  wireseal::detail::secure_wipe(&inner_, sizeof(inner_));
  wireseal::detail::secure_wipe(&outer_, sizeof(outer_));
  wireseal::detail::secure_wipe(inner_chain_, sizeof(inner_chain_));
  wireseal::detail::secure_wipe(outer_chain_, sizeof(outer_chain_));
}

Hmac::Stream::Stream(const Hmac& hmac) noexcept : hmac_(&hmac), inner_(hmac.inner_) {}

void Hmac::Stream::update(std::span<const std::uint8_t> data) noexcept {
  if (!data.empty()) {
    hash_update(hmac_->hash_, inner_, data.data(), data.size());
  }
}

Status Hmac::Stream::finish(std::span<std::uint8_t> out) noexcept {
  const HashAlgorithm hash = hmac_->hash_;
  const std::size_t digest_len = digest_length(hash);
  if (out.empty() || out.size() > digest_len) {
    return Error::kInvalidArgument;
  }
  std::uint8_t digest[kMaxDigestLength];
  hash_final(hash, inner_, digest);
  HashState outer = hmac_->outer_;
  hash_update(hash, outer, digest, digest_len);
  hash_final(hash, outer, digest);
  std::memcpy(out.data(), digest, out.size());
  wireseal::detail::secure_wipe(digest, sizeof(digest));
  return {};
}

Status Hmac::compute(std::span<const std::uint8_t> message, std::span<std::uint8_t> out) const noexcept {
  if (lanes_) {
    if (out.empty() || out.size() > digest_len()) {
      return Error::kInvalidArgument;
    }
    if (message.size() <= detail::kHmacShortMax) {
      if (hash_ == HashAlgorithm::kSha1) {
        detail::hmac_sha1_short(inner_chain_, outer_chain_, message, out);
      } else {
        detail::hmac_sha256_short(inner_chain_, outer_chain_, message, out);
      }
      return {};
    }
    HmacJob job{{message, {}, {}}, out, {}};
    HmacJob* one = &job;
    compute_lanes(&one, 1);
    return {};
  }
  Stream s = begin();
  s.update(message);
  return s.finish(out);
}

void Hmac::compute_lanes(HmacJob* const* jobs, std::size_t num_jobs) const noexcept {
  if (hash_ == HashAlgorithm::kSha1) {
    detail::hmac_sha1_lanes(inner_chain_, outer_chain_, jobs, num_jobs);
  } else {
    detail::hmac_sha256_lanes(inner_chain_, outer_chain_, jobs, num_jobs);
  }
}

void Hmac::compute_batch(std::span<HmacJob> jobs) const noexcept {
  const std::size_t digest = digest_len();
  HmacJob* lanes[16];
  std::size_t count = 0;
  for (HmacJob& job : jobs) {
    if (job.out.empty() || job.out.size() > digest) {
      job.status = Error::kInvalidArgument;
      continue;
    }
    job.status = {};
    if (!lanes_) {
      Stream s = begin();
      for (const auto& part : job.parts) {
        s.update(part);
      }
      (void)s.finish(job.out);
      continue;
    }
    lanes[count++] = &job;
    if (count == 16) {
      compute_lanes(lanes, count);
      count = 0;
    }
  }
  if (count != 0) {
    compute_lanes(lanes, count);
  }
}

void Hmac::run_dummy_blocks(std::size_t num_blocks) const noexcept {
  static constexpr std::uint8_t kZeros[128] = {};
  if (lanes_) {
    std::uint32_t state[8];
    std::memcpy(state, inner_chain_, sizeof(state));
    for (std::size_t i = 0; i < num_blocks; ++i) {
      if (hash_ == HashAlgorithm::kSha1) {
        detail::sha1_compress_ni(state, kZeros, 1);
      } else {
        detail::sha256_compress_ni(state, kZeros, 1);
      }
    }
    // Keep the work observable so the compiler cannot drop it.
    volatile std::uint32_t sink = state[0];
    (void)sink;
    return;
  }
  Stream s = begin();
  for (std::size_t i = 0; i < num_blocks; ++i) {
    s.update({kZeros, block_length(hash_)});
  }
}

bool Hmac::verify(std::span<const std::uint8_t> message, std::span<const std::uint8_t> tag) const noexcept {
  if (tag.empty() || tag.size() > digest_len()) {
    return false;
  }
  std::uint8_t mac[kMaxDigestLength];
  if (!compute(message, std::span<std::uint8_t>(mac, tag.size()))) {
    return false;
  }
  return wireseal::detail::tag_matches(std::span<const std::uint8_t>(mac, tag.size()), tag);
}

}  // namespace wireseal::crypto
