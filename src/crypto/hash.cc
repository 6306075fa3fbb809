// SHA-1/SHA-2 digests over the saved-state helpers Hmac uses (hash_state.h).
#include "wireseal/crypto/hash.h"

#include "common/ct.h"
#include "hash_state.h"

namespace wireseal::crypto {

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

Hash::Hash(HashAlgorithm hash) noexcept : hash_(hash) { detail::hash_init(hash, state_); }

Hash::~Hash() { wireseal::detail::secure_wipe(&state_, sizeof(state_)); }

void Hash::update(std::span<const std::uint8_t> data) noexcept {
  if (!finished_ && !data.empty()) {
    detail::hash_update(hash_, state_, data.data(), data.size());
  }
}

Status Hash::finish(std::span<std::uint8_t> out) noexcept {
  if (finished_) {
    return Error::kBadState;
  }
  if (out.size() < digest_length()) {
    return Error::kBufferTooSmall;
  }
  finished_ = true;
  detail::hash_final(hash_, state_, out.data());
  return {};
}

Status Hash::digest(HashAlgorithm hash, std::span<const std::uint8_t> data,
                    std::span<std::uint8_t> out) noexcept {
  Hash h(hash);
  h.update(data);
  return h.finish(out);
}

}  // namespace wireseal::crypto
