// RecordWriter frames the records an endpoint sends: plaintext epoch-0 records (the first
// flights, which retransmissions may repeat after the switch) and sealed records of the
// current epoch once ChangeCipherSpec has gone out.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "wireseal/dtls/record.h"
#include "wireseal/dtls/record_sealer.h"
#include "wireseal/result.h"

namespace wireseal::dtls::detail {

class RecordWriter {
 public:
  // install takes the sealer of epoch 1 (written after our ChangeCipherSpec).
  void install(RecordSealer sealer) noexcept { sealer_.emplace(std::move(sealer)); }
  bool sealing() const noexcept { return sealer_.has_value(); }
  RecordSealer* sealer() noexcept { return sealer_ ? &*sealer_ : nullptr; }
  const RecordSealer* sealer() const noexcept { return sealer_ ? &*sealer_ : nullptr; }
  // Epoch-0 records carry DTLS 1.0 in their header until the version is settled (the
  // client's first hellos, as OpenSSL and BoringSSL send them), then DTLS 1.2.
  void set_plaintext_version(std::uint16_t version) noexcept { plaintext_version_ = version; }
  // continue_plaintext_from makes the next epoch-0 record number at least `sequence`.
  void continue_plaintext_from(std::uint64_t sequence) noexcept {
    plaintext_sequence_ = std::max(plaintext_sequence_, sequence);
  }
  // mark_change_cipher_spec records that our CCS is on its way: from then on alerts go out
  // in the new epoch (before it the peer could not read them there).
  void mark_change_cipher_spec() noexcept { changed_ = true; }
  // current_epoch is the epoch alerts and application data go out in.
  std::uint16_t current_epoch() const noexcept {
    return sealer_ && changed_ ? sealer_->epoch() : 0;
  }

  // Where a record's plaintext goes in its buffer, and the most that fits in `room` bytes.
  std::size_t payload_offset(std::uint16_t epoch) const noexcept;
  std::size_t max_plaintext(std::uint16_t epoch, std::size_t room) const noexcept;
  std::size_t sealed_size(std::uint16_t epoch, std::size_t plaintext_len) const noexcept;

  // write frames buffer[payload_offset(epoch), +plaintext_len) as one record in place and
  // returns the record's length.
  Result<std::size_t> write(std::uint16_t epoch, ContentType type, std::span<std::uint8_t> buffer,
                            std::size_t plaintext_len) noexcept;

 private:
  std::optional<RecordSealer> sealer_;
  bool changed_ = false;
  std::uint16_t plaintext_version_ = kDtls10Version;
  std::uint64_t plaintext_sequence_ = 0;  // epoch 0
};

}  // namespace wireseal::dtls::detail
