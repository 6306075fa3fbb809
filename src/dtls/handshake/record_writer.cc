#include "record_writer.h"

namespace wireseal::dtls::detail {

std::size_t RecordWriter::payload_offset(std::uint16_t epoch) const noexcept {
  return epoch == 0 || !sealer_ ? kHeaderSize : sealer_->payload_offset();
}

std::size_t RecordWriter::max_plaintext(std::uint16_t epoch, std::size_t room) const noexcept {
  if (epoch != 0 && sealer_) {
    return sealer_->max_plaintext_size(room);
  }
  return room > kHeaderSize ? room - kHeaderSize : 0;
}

std::size_t RecordWriter::sealed_size(std::uint16_t epoch,
                                      std::size_t plaintext_len) const noexcept {
  return epoch != 0 && sealer_ ? sealer_->sealed_size(plaintext_len) : kHeaderSize + plaintext_len;
}

Result<std::size_t> RecordWriter::write(std::uint16_t epoch, ContentType type,
                                        std::span<std::uint8_t> buffer,
                                        std::size_t plaintext_len) noexcept {
  if (epoch != 0) {
    if (!sealer_ || sealer_->epoch() != epoch) {
      return Error::kBadState;
    }
    return sealer_->seal(type, buffer, plaintext_len);
  }
  const std::size_t size = kHeaderSize + plaintext_len;
  if (buffer.size() < size || plaintext_len > 0xffff) {
    return Error::kBufferTooSmall;
  }
  if (plaintext_sequence_ > kMaxSequence) {
    return Error::kSequenceExhausted;
  }
  write_header(type, plaintext_version_, 0, plaintext_sequence_++, {},
               static_cast<std::uint16_t>(plaintext_len), buffer.data());
  return size;
}

}  // namespace wireseal::dtls::detail
