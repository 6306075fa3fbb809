#pragma once
// The handshake transcript (RFC 5246 §7.4.9, RFC 6347 §4.2.6) and the Finished verify_data
// computed from it.
//
// DTLS hashes each message as if it had been sent unfragmented: its 12-byte header with
// fragment_offset 0 and fragment_length = length, then its body. The first ClientHello and
// the HelloVerifyRequest are left out. The PRF hash is known only from the ServerHello, so
// until select() the transcript runs both hashes a DTLS 1.2 suite can use (SHA-256, SHA-384).

#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/crypto/hash.h"
#include "wireseal/dtls/key_block.h"
#include "wireseal/result.h"

namespace wireseal::dtls {

class Transcript {
 public:
  Transcript() noexcept;

  // add hashes one whole handshake message (type, message_seq, body).
  void add(std::uint8_t msg_type, std::uint16_t message_seq,
           std::span<const std::uint8_t> body) noexcept;

  // select keeps only the suite's PRF hash; kInvalidArgument for one other than SHA-256/384.
  Status select(crypto::HashAlgorithm prf_hash) noexcept;

  // hash writes the hash of every message added so far (the transcript keeps going) into
  // the first hash_length() bytes of `out`: kBadState before select(), kBufferTooSmall.
  Status hash(std::span<std::uint8_t> out) const noexcept;
  std::size_t hash_length() const noexcept;

 private:
  crypto::Hash sha256_;
  crypto::Hash sha384_;
  bool selected_ = false;
  crypto::HashAlgorithm prf_hash_ = crypto::HashAlgorithm::kSha256;
};

inline constexpr std::size_t kFinishedSize = 12;

// finished_verify_data computes PRF(master_secret, "client finished" | "server finished",
// handshake_hash)[0..11] (RFC 5246 §7.4.9).
Status finished_verify_data(crypto::HashAlgorithm prf_hash,
                            std::span<const std::uint8_t, kMasterSecretSize> master_secret,
                            bool client, std::span<const std::uint8_t> handshake_hash,
                            std::span<std::uint8_t, kFinishedSize> out) noexcept;

}  // namespace wireseal::dtls
