// The handshake transcript and Finished (RFC 5246 §7.4.9, RFC 6347 §4.2.6).
#include "wireseal/dtls/handshake/transcript.h"

#include <array>

#include "codec.h"
#include "common/byte_cursor.h"
#include "wireseal/crypto/kdf.h"
#include "wireseal/dtls/handshake/message.h"

namespace wireseal::dtls {

Transcript::Transcript() noexcept
    : sha256_(crypto::HashAlgorithm::kSha256), sha384_(crypto::HashAlgorithm::kSha384) {}

void Transcript::add(std::uint8_t msg_type, std::uint16_t message_seq,
                     std::span<const std::uint8_t> body) noexcept {
  std::array<std::uint8_t, kHandshakeHeaderSize> header{};
  ByteWriter w(header);
  detail::write_handshake_header(w, msg_type, body.size(), message_seq, 0, body.size());
  for (crypto::Hash* h : {&sha256_, &sha384_}) {
    if (!selected_ || h->algorithm() == prf_hash_) {
      h->update(header);
      h->update(body);
    }
  }
}

Status Transcript::select(crypto::HashAlgorithm prf_hash) noexcept {
  if (prf_hash != crypto::HashAlgorithm::kSha256 && prf_hash != crypto::HashAlgorithm::kSha384) {
    return Error::kInvalidArgument;
  }
  selected_ = true;
  prf_hash_ = prf_hash;
  return {};
}

Status Transcript::hash(std::span<std::uint8_t> out) const noexcept {
  if (!selected_) {
    return Error::kBadState;
  }
  crypto::Hash fork = prf_hash_ == crypto::HashAlgorithm::kSha256 ? sha256_ : sha384_;
  return fork.finish(out);
}

std::size_t Transcript::hash_length() const noexcept { return crypto::digest_length(prf_hash_); }

Status finished_verify_data(crypto::HashAlgorithm prf_hash,
                            std::span<const std::uint8_t, kMasterSecretSize> master_secret,
                            bool client, std::span<const std::uint8_t> handshake_hash,
                            std::span<std::uint8_t, kFinishedSize> out) noexcept {
  return crypto::tls12_prf(prf_hash, master_secret, client ? "client finished" : "server finished",
                           handshake_hash, out);
}

}  // namespace wireseal::dtls
