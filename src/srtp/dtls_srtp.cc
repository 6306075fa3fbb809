// RFC 5764 §4.2 keying material split.
#include "wireseal/srtp/dtls_srtp.h"

#include <algorithm>

#include "common/ct.h"

namespace wireseal::srtp {

DtlsSrtpKeys::~DtlsSrtpKeys() {
  wireseal::detail::secure_wipe(client_key_.data(), client_key_.size());
  wireseal::detail::secure_wipe(server_key_.data(), server_key_.size());
  wireseal::detail::secure_wipe(client_salt_.data(), client_salt_.size());
  wireseal::detail::secure_wipe(server_salt_.data(), server_salt_.size());
}

Result<DtlsSrtpKeys> split_keying_material(Profile profile,
                                           std::span<const std::uint8_t> material) noexcept {
  const ProfileInfo& p = info(profile);
  if (material.size() != keying_material_size(profile)) {
    return Error::kInvalidArgument;
  }
  DtlsSrtpKeys k;
  k.profile_ = profile;
  k.key_len_ = p.master_key_len;
  k.salt_len_ = p.master_salt_len;
  // Both keys first, then both salts (RFC 5764 §4.2), client before server in each pair.
  const std::uint8_t* at = material.data();
  const auto take = [&at](std::uint8_t* dst, std::size_t n) {
    std::copy(at, at + n, dst);
    at += n;
  };
  take(k.client_key_.data(), k.key_len_);
  take(k.server_key_.data(), k.key_len_);
  take(k.client_salt_.data(), k.salt_len_);
  take(k.server_salt_.data(), k.salt_len_);
  return k;
}

}  // namespace wireseal::srtp
