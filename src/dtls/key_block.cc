#include "wireseal/dtls/key_block.h"

#include <cstring>
#include <utility>

#include "common/byte_cursor.h"
#include "common/ct.h"
#include "wireseal/crypto/kdf.h"

namespace wireseal::dtls {

std::size_t KeyBlock::size(RecordCipher cipher) noexcept {
  const RecordCipherInfo& c = info(cipher);
  return 2 * (c.mac_key_len + c.enc_key_len + c.fixed_iv_len);
}

Result<KeyBlock> KeyBlock::from_bytes(RecordCipher cipher,
                                      std::span<const std::uint8_t> bytes) noexcept {
  const std::size_t len = size(cipher);
  if (bytes.size() != len) {
    return Error::kInvalidArgument;
  }
  KeyBlock kb(cipher, len);
  std::memcpy(kb.bytes_.data(), bytes.data(), len);
  return kb;
}

Result<KeyBlock> KeyBlock::derive(
    RecordCipher cipher, crypto::HashAlgorithm prf_hash,
    std::span<const std::uint8_t, kMasterSecretSize> master_secret,
    std::span<const std::uint8_t, kRandomSize> client_random,
    std::span<const std::uint8_t, kRandomSize> server_random) noexcept {
  KeyBlock kb(cipher, size(cipher));
  std::uint8_t seed[2 * kRandomSize];
  std::memcpy(seed, server_random.data(), kRandomSize);
  std::memcpy(seed + kRandomSize, client_random.data(), kRandomSize);
  if (Status s = crypto::tls12_prf(prf_hash, master_secret, "key expansion", seed,
                                   {kb.bytes_.data(), kb.len_});
      !s) {
    return s.error();
  }
  return kb;
}

KeyBlock::~KeyBlock() { wireseal::detail::secure_wipe(bytes_.data(), bytes_.size()); }

KeyBlock::KeyBlock(KeyBlock&& other) noexcept : KeyBlock(other.cipher_, other.len_) {
  *this = std::move(other);
}

KeyBlock& KeyBlock::operator=(KeyBlock&& other) noexcept {
  if (this != &other) {
    cipher_ = other.cipher_;
    len_ = other.len_;
    claimed_ = other.claimed_;
    bytes_ = other.bytes_;
    wireseal::detail::secure_wipe(other.bytes_.data(), other.bytes_.size());
    other.claimed_ = 0xff;  // a moved-from block seals nothing
  }
  return *this;
}

Result<DirectionKeys> KeyBlock::claim_for_sealing(Direction direction) noexcept {
  const auto bit = static_cast<std::uint8_t>(1u << static_cast<unsigned>(direction));
  if ((claimed_ & bit) != 0) {
    return Error::kBadState;
  }
  claimed_ = static_cast<std::uint8_t>(claimed_ | bit);
  return keys(direction);
}

DirectionKeys KeyBlock::keys(Direction direction) const noexcept {
  const RecordCipherInfo& c = info(cipher_);
  const bool server = direction == Direction::kServerWrite;
  const std::uint8_t* p = bytes_.data();
  DirectionKeys k;
  k.mac_key = {p + (server ? c.mac_key_len : 0), c.mac_key_len};
  p += 2 * c.mac_key_len;
  k.enc_key = {p + (server ? c.enc_key_len : 0), c.enc_key_len};
  p += 2 * c.enc_key_len;
  k.iv = {p + (server ? c.fixed_iv_len : 0), c.fixed_iv_len};
  return k;
}

Status master_secret(crypto::HashAlgorithm prf_hash,
                     std::span<const std::uint8_t> pre_master_secret,
                     std::span<const std::uint8_t, kRandomSize> client_random,
                     std::span<const std::uint8_t, kRandomSize> server_random,
                     std::span<std::uint8_t, kMasterSecretSize> out) noexcept {
  std::uint8_t seed[2 * kRandomSize];
  std::memcpy(seed, client_random.data(), kRandomSize);
  std::memcpy(seed + kRandomSize, server_random.data(), kRandomSize);
  return crypto::tls12_prf(prf_hash, pre_master_secret, "master secret", seed, out);
}

Status extended_master_secret(crypto::HashAlgorithm prf_hash,
                              std::span<const std::uint8_t> pre_master_secret,
                              std::span<const std::uint8_t> session_hash,
                              std::span<std::uint8_t, kMasterSecretSize> out) noexcept {
  return crypto::tls12_prf(prf_hash, pre_master_secret, "extended master secret", session_hash,
                           out);
}

Result<std::size_t> psk_pre_master_secret(std::span<const std::uint8_t> psk,
                                          std::span<const std::uint8_t> other_secret,
                                          std::span<std::uint8_t> out) noexcept {
  constexpr std::size_t kMax16 = 0xFFFF;
  const std::size_t other_size = other_secret.empty() ? psk.size() : other_secret.size();
  if (psk.empty() || psk.size() > kMax16 || other_size > kMax16) {
    return Error::kInvalidArgument;
  }
  ByteWriter w(out);
  w.u16be(static_cast<std::uint16_t>(other_size));
  if (other_secret.empty()) {
    w.zeros(other_size);
  } else {
    w.bytes(other_secret);
  }
  w.u16be(static_cast<std::uint16_t>(psk.size()));
  w.bytes(psk);
  if (!w.ok()) {
    wireseal::detail::secure_wipe(out.data(), out.size());
    return Error::kBufferTooSmall;
  }
  return w.size();
}

}  // namespace wireseal::dtls
