// TLS 1.2 PRF, SRTP KDF and SP 800-108 counter-mode KDF.
#include "wireseal/crypto/kdf.h"

#include <algorithm>
#include <cstring>

#include "common/bytes.h"
#include "common/ct.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/crypto/mac.h"

namespace wireseal::crypto {
namespace {

std::span<const std::uint8_t> as_bytes(std::string_view s) noexcept {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

constexpr HashAlgorithm kKbkdfHashes[] = {HashAlgorithm::kSha1, HashAlgorithm::kSha224,
                                          HashAlgorithm::kSha256, HashAlgorithm::kSha384,
                                          HashAlgorithm::kSha512};

// kbkdf_digest_length is the output size of an HMAC PRF.
std::size_t kbkdf_digest_length(KbkdfPrf prf) noexcept {
  return digest_length(kKbkdfHashes[static_cast<std::size_t>(prf)]);
}

}  // namespace

Status tls12_prf(HashAlgorithm hash, std::span<const std::uint8_t> secret, std::string_view label,
                 std::span<const std::uint8_t> seed, std::span<std::uint8_t> out) noexcept {
  // RFC 5246 §5: P_hash(secret, s) = HMAC(secret, A(1) || s) || HMAC(secret, A(2) || s) || ...
  // with A(0) = s, A(i) = HMAC(secret, A(i-1)) and s = label || seed.
  const Hmac hmac(hash, secret);
  const std::size_t digest_len = hmac.digest_len();
  std::uint8_t a[kMaxDigestLength];
  std::uint8_t block[kMaxDigestLength];
  {
    Hmac::Stream s = hmac.begin();
    s.update(as_bytes(label));
    s.update(seed);
    if (Status st = s.finish({a, digest_len}); !st) {
      return st;
    }
  }
  std::size_t done = 0;
  while (done < out.size()) {
    Hmac::Stream s = hmac.begin();
    s.update({a, digest_len});
    s.update(as_bytes(label));
    s.update(seed);
    (void)s.finish({block, digest_len});
    const std::size_t n = std::min(digest_len, out.size() - done);
    std::memcpy(out.data() + done, block, n);
    done += n;
    (void)hmac.compute({a, digest_len}, {a, digest_len});
  }
  wireseal::detail::secure_wipe(a, sizeof(a));
  wireseal::detail::secure_wipe(block, sizeof(block));
  return {};
}

Status srtp_kdf(std::span<const std::uint8_t> master_key, std::span<const std::uint8_t> master_salt,
                SrtpKdfLabel label, std::span<std::uint8_t> out,
                std::uint64_t index_div_kdr) noexcept {
  if ((master_key.size() != 16 && master_key.size() != 24 && master_key.size() != 32) ||
      master_salt.size() > 14) {
    return Error::kInvalidArgument;
  }
  // RFC 3711 §4.3.1: key_id = label || r (r is 48 bits), x = key_id XOR master_salt in 112
  // bits; the AES-CM IV is x * 2^16. A shorter salt (RFC 7714's 96-bit AEAD salt) fills the
  // leading bytes and is followed by zeros, as libsrtp does and RFC 9335's examples confirm.
  std::uint8_t iv[16] = {};
  if (!master_salt.empty()) {
    std::memcpy(iv, master_salt.data(), master_salt.size());
  }
  iv[7] ^= static_cast<std::uint8_t>(label);
  for (int i = 0; i < 6; ++i) {
    iv[13 - i] ^= static_cast<std::uint8_t>(index_div_kdr >> (8 * i));
  }
  AesCtr ctr(master_key);
  std::fill(out.begin(), out.end(), std::uint8_t{0});
  return ctr.apply(std::span<const std::uint8_t, 16>(iv, 16), out, out);
}

Status kbkdf_counter(KbkdfPrf prf, std::span<const std::uint8_t> key,
                     std::span<const std::uint8_t> fixed_before,
                     std::span<const std::uint8_t> fixed_after, std::size_t counter_bits,
                     std::span<std::uint8_t> out) noexcept {
  if (counter_bits != 8 && counter_bits != 16 && counter_bits != 24 && counter_bits != 32) {
    return Error::kInvalidArgument;
  }
  const std::size_t counter_len = counter_bits / 8;
  // SP 800-108 §5.1: at most 2^r - 1 PRF blocks, or the counter would wrap and the output
  // repeat itself.
  const std::size_t prf_len = prf >= KbkdfPrf::kCmacAes128 ? kCmacLength : kbkdf_digest_length(prf);
  const std::uint64_t max_blocks = (std::uint64_t{1} << counter_bits) - 1;
  if ((std::uint64_t{out.size()} + prf_len - 1) / prf_len > max_blocks) {
    return Error::kInvalidArgument;
  }
  // The counter is the low counter_len bytes of i, big-endian.
  auto write_counter = [&](std::uint32_t i, std::uint8_t* c) {
    std::uint8_t be[4];
    store_be32(be, i);
    std::memcpy(c, be + sizeof(be) - counter_len, counter_len);
  };
  std::uint8_t block[kMaxDigestLength];
  std::uint8_t counter[4];
  std::size_t done = 0;
  std::uint32_t i = 1;
  if (prf >= KbkdfPrf::kCmacAes128) {
    if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
      return Error::kInvalidArgument;
    }
    // CMAC has no streaming interface here; assemble each PRF input on the stack.
    constexpr std::size_t kMaxInput = 1024;
    if (fixed_before.size() + fixed_after.size() + counter_len > kMaxInput) {
      return Error::kInvalidArgument;
    }
    std::uint8_t input[kMaxInput];
    AesCmac cmac(key);
    if (!fixed_before.empty()) {
      std::memcpy(input, fixed_before.data(), fixed_before.size());
    }
    if (!fixed_after.empty()) {
      std::memcpy(input + fixed_before.size() + counter_len, fixed_after.data(),
                  fixed_after.size());
    }
    const std::size_t input_len = fixed_before.size() + counter_len + fixed_after.size();
    for (; done < out.size(); ++i) {
      write_counter(i, input + fixed_before.size());
      (void)cmac.compute({input, input_len}, {block, kCmacLength});
      const std::size_t n = std::min(kCmacLength, out.size() - done);
      std::memcpy(out.data() + done, block, n);
      done += n;
    }
  } else {
    const Hmac hmac(kKbkdfHashes[static_cast<std::size_t>(prf)], key);
    const std::size_t digest_len = hmac.digest_len();
    for (; done < out.size(); ++i) {
      write_counter(i, counter);
      Hmac::Stream s = hmac.begin();
      s.update(fixed_before);
      s.update({counter, counter_len});
      s.update(fixed_after);
      (void)s.finish({block, digest_len});
      const std::size_t n = std::min(digest_len, out.size() - done);
      std::memcpy(out.data() + done, block, n);
      done += n;
    }
  }
  wireseal::detail::secure_wipe(block, sizeof(block));
  return {};
}

Status sp800_108_hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> label,
                             std::span<const std::uint8_t> context,
                             std::span<std::uint8_t> out) noexcept {
  constexpr std::size_t kMaxFixed = 512;
  if (label.size() + context.size() + 5 > kMaxFixed) {
    return Error::kInvalidArgument;
  }
  std::uint8_t fixed[kMaxFixed];
  std::size_t len = 0;
  if (!label.empty()) {
    std::memcpy(fixed, label.data(), label.size());
  }
  len += label.size();
  fixed[len++] = 0x00;
  if (!context.empty()) {
    std::memcpy(fixed + len, context.data(), context.size());
  }
  len += context.size();
  if (std::uint64_t{out.size()} * 8 > UINT32_MAX) {
    return Error::kInvalidArgument;  // L is a 32-bit field
  }
  const std::uint32_t bits = static_cast<std::uint32_t>(out.size() * 8);
  for (int b = 3; b >= 0; --b) {
    fixed[len++] = static_cast<std::uint8_t>(bits >> (8 * b));
  }
  return kbkdf_counter(KbkdfPrf::kHmacSha256, key, {}, {fixed, len}, 32, out);
}

}  // namespace wireseal::crypto
