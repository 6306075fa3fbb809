// SMB 3.x encryption and decryption of messages (MS-SMB2 §3.1.4.3, §3.2.5.1.1, §3.3.5.2.1.1).
#include "wireseal/smb/transform.h"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "common/bytes.h"
#include "common/create.h"
#include "common/ct.h"
#include "transform_fields.h"

namespace wireseal::smb {
namespace {

constexpr std::size_t kCounterSize = 8;
constexpr std::size_t kOriginalSizeOffset = 36;
constexpr std::size_t kFlagsOffset = 42;
constexpr std::size_t kSessionIdOffset = 44;

crypto::Aead make_aead(Cipher cipher, std::span<const std::uint8_t> key, crypto::Backend backend) {
  const CipherInfo& c = info(cipher);
  if (key.size() != c.key_len) {
    throw std::invalid_argument("wireseal::smb: cipher key has the wrong length");
  }
  return crypto::Aead(
      c.aead, key,
      crypto::AeadOptions{.tag_len = c.tag_len, .nonce_len = c.nonce_len, .backend = backend});
}

// random_first_counter is a uniformly random counter below 2^63: at least 2^63 nonces remain.
std::uint64_t random_first_counter(RandomSource& random) {
  std::uint8_t bytes[kCounterSize];
  random(bytes);
  return load_le64(bytes) >> 1;
}

}  // namespace

TransformNonces::TransformNonces(Cipher cipher, RandomSource random,
                                 std::optional<std::uint64_t> first_counter)
    : cipher_(cipher), counter_(first_counter ? *first_counter : random_first_counter(random)) {
  // Uniqueness under the key comes from the counter; the random salt (and the random start)
  // keep apart the nonces of sources wrongly made twice for one key.
  random(std::span<std::uint8_t>(salt_).first(info(cipher).nonce_len - kCounterSize));
}

Status TransformNonces::next(std::span<std::uint8_t, kTransformNonceSize> out) noexcept {
  // The counter never wraps: its last value is refused, so every value is handed out once.
  std::uint64_t counter = counter_.load(std::memory_order_relaxed);
  do {
    if (counter == std::numeric_limits<std::uint64_t>::max()) {
      return Error::kSequenceExhausted;
    }
  } while (!counter_.compare_exchange_weak(counter, counter + 1, std::memory_order_relaxed));
  const std::size_t nonce_len = info(cipher_).nonce_len;
  store_le64(out.data(), counter);
  std::memcpy(out.data() + kCounterSize, salt_.data(), nonce_len - kCounterSize);
  std::memset(out.data() + nonce_len, 0, kTransformNonceSize - nonce_len);
  return {};
}

namespace {

std::shared_ptr<TransformNonces> nonces_for(Cipher cipher, TransformSealerOptions& options) {
  if (options.nonces == nullptr) {
    return std::make_shared<TransformNonces>(cipher, options.random, options.first_counter);
  }
  if (options.nonces->cipher() != cipher || options.first_counter) {
    throw std::invalid_argument(
        "wireseal::smb: shared nonces must be of the sealer's cipher, and keep their counter");
  }
  return std::move(options.nonces);
}

}  // namespace

TransformSealer::TransformSealer(Cipher cipher, std::span<const std::uint8_t> key,
                                 std::uint64_t session_id, TransformSealerOptions options)
    : aead_(make_aead(cipher, key, options.backend)),
      cipher_(cipher),
      session_id_(session_id),
      nonces_(nonces_for(cipher, options)) {}

Result<TransformSealer> TransformSealer::create(Cipher cipher, std::span<const std::uint8_t> key,
                                                std::uint64_t session_id,
                                                TransformSealerOptions options) noexcept {
  return wireseal::detail::try_create<TransformSealer>(cipher, key, session_id, std::move(options));
}

Result<std::size_t> TransformSealer::seal(std::span<std::uint8_t> buffer,
                                          std::size_t message_len) noexcept {
  if (buffer.size() < kTransformHeaderSize || buffer.size() - kTransformHeaderSize < message_len) {
    return Error::kBufferTooSmall;
  }
  return seal(std::span<const std::uint8_t>(buffer.subspan(kTransformHeaderSize, message_len)),
              buffer);
}

//    0        4              20                   36       40   42     44        52
//   | FD SMB | tag (written) | ctr(8)|salt(3|4)|0 | OrigSz | 0  | 0001 | SessId  | ciphertext
//                            '---------------------- AAD --------------------------'
Result<std::size_t> TransformSealer::seal(std::span<const std::uint8_t> message,
                                          std::span<std::uint8_t> out) noexcept {
  const std::size_t n = message.size();
  if (n == 0 || n > std::numeric_limits<std::uint32_t>::max()) {
    return Error::kInvalidArgument;
  }
  if (out.size() < kTransformHeaderSize || out.size() - kTransformHeaderSize < n) {
    return Error::kBufferTooSmall;
  }
  std::uint8_t* p = out.data();
  std::uint8_t* ciphertext = p + kTransformHeaderSize;
  if (message.data() != ciphertext &&
      wireseal::detail::overlaps(message.data(), n, p, kTransformHeaderSize + n)) {
    return Error::kAliasing;
  }
  // §3.1.4.3: the nonce MUST NOT be used for any other message of the session. It is
  // consumed before sealing so a failed seal never lets it be reused either.
  if (Status s = nonces_->next(out.subspan<kTransformNonceOffset, kTransformNonceSize>()); !s) {
    return s.error();
  }
  const std::size_t nonce_len = info(cipher_).nonce_len;
  detail::write_transform_fields(static_cast<std::uint32_t>(n), kTransformFlagEncrypted,
                                 session_id_, out.first<kTransformHeaderSize>());
  const std::span<const std::uint8_t> header(p, kTransformHeaderSize);
  const Status s =
      aead_.seal(header.subspan(kTransformNonceOffset, nonce_len),
                 header.subspan(kTransformAadOffset), message, out.subspan(kTransformHeaderSize, n),
                 out.subspan(kTransformSignatureOffset, kTransformTagSize));
  if (!s) {
    return s.error();
  }
  return kTransformHeaderSize + n;
}

TransformOpener::TransformOpener(Cipher cipher, std::span<const std::uint8_t> key,
                                 std::uint64_t session_id, TransformOpenerOptions options)
    : aead_(make_aead(cipher, key, options.backend)), cipher_(cipher), session_id_(session_id) {}

Result<TransformOpener> TransformOpener::create(Cipher cipher, std::span<const std::uint8_t> key,
                                                std::uint64_t session_id,
                                                TransformOpenerOptions options) noexcept {
  return wireseal::detail::try_create<TransformOpener>(cipher, key, session_id, options);
}

Status TransformOpener::check(std::span<const std::uint8_t> transformed) const noexcept {
  if (transformed.size() <= kTransformHeaderSize || !is_transform_message(transformed)) {
    return Error::kMalformed;
  }
  const std::uint8_t* p = transformed.data();
  const std::size_t n = transformed.size() - kTransformHeaderSize;
  // §3.3.5.2.1.1 / §3.2.5.1.1: the receiver MUST check the encryption flag and that the
  // OriginalMessageSize fits; we demand the exact size, as direct TCP frames carry one
  // transformed message each.
  if (load_le16(p + kFlagsOffset) != kTransformFlagEncrypted ||
      load_le32(p + kOriginalSizeOffset) != n) {
    return Error::kMalformed;
  }
  // §3.3.5.2.1.1: look the session up by SessionId; a message for another session is dropped
  // without touching the ciphertext.
  if (load_le64(p + kSessionIdOffset) != session_id_) {
    return Error::kWrongContext;
  }
  return {};
}

//    0        4              20                   36       40   42     44        52
//   | FD SMB | tag (checked) | nonce (11|12)  |rsv| OrigSz | rsv| 0001 | SessId  | ciphertext
//                            '---------------------- AAD --------------------------'
Result<std::span<std::uint8_t>> TransformOpener::open(
    std::span<std::uint8_t> transformed) noexcept {
  if (const Status s = check(transformed); !s) {
    return s.error();
  }
  const std::span<std::uint8_t> ciphertext = transformed.subspan(kTransformHeaderSize);
  const Status s = aead_.open(
      transformed.subspan(kTransformNonceOffset, info(cipher_).nonce_len),
      transformed.subspan(kTransformAadOffset, kTransformHeaderSize - kTransformAadOffset),
      ciphertext, ciphertext, transformed.subspan(kTransformSignatureOffset, kTransformTagSize));
  if (!s) {
    return s.error();
  }
  WS_CT_DECLASSIFY(ciphertext.data(), ciphertext.size());  // authenticated plaintext
  return ciphertext;
}

Result<std::span<std::uint8_t>> TransformOpener::open(std::span<const std::uint8_t> transformed,
                                                      std::span<std::uint8_t> out) noexcept {
  if (out.data() == transformed.data()) {
    // The same buffer: decrypt in place, then move the plaintext over the header.
    if (out.size() < transformed.size()) {
      return Error::kBufferTooSmall;
    }
    Result<std::span<std::uint8_t>> plain = open(out.first(transformed.size()));
    if (!plain) {
      return plain.error();
    }
    std::memmove(out.data(), plain->data(), plain->size());
    return out.first(plain->size());
  }
  if (const Status s = check(transformed); !s) {
    return s.error();
  }
  const std::size_t n = transformed.size() - kTransformHeaderSize;
  if (out.size() < n) {
    return Error::kBufferTooSmall;
  }
  if (wireseal::detail::overlaps(transformed.data(), transformed.size(), out.data(), n)) {
    return Error::kAliasing;
  }
  const Status s = aead_.open(
      transformed.subspan(kTransformNonceOffset, info(cipher_).nonce_len),
      transformed.subspan(kTransformAadOffset, kTransformHeaderSize - kTransformAadOffset),
      transformed.subspan(kTransformHeaderSize), out.first(n),
      transformed.subspan(kTransformSignatureOffset, kTransformTagSize));
  if (!s) {
    return s.error();
  }
  WS_CT_DECLASSIFY(out.data(), n);  // authenticated plaintext
  return out.first(n);
}

}  // namespace wireseal::smb
