// RTP header parsing and header-extension element walking (RFC 3550 §5.1, RFC 8285).
#include "wireseal/srtp/rtp_header.h"

#include "common/bytes.h"
#include "rtp_header_read.h"

namespace wireseal::srtp {

ExtensionForm RtpHeader::extension_form() const noexcept {
  if (!has_extension) {
    return ExtensionForm::kNone;
  }
  if (extension_profile == kOneByteExtensionProfile) {
    return ExtensionForm::kOneByte;
  }
  if ((extension_profile & kTwoByteExtensionMask) == kTwoByteExtensionProfile) {
    return ExtensionForm::kTwoByte;
  }
  return ExtensionForm::kOther;
}

Result<RtpHeader> parse_rtp_header(std::span<const std::uint8_t> packet) noexcept {
  RtpHeader h;
  if (const Status s = detail::read_rtp_header(packet, h); !s) {
    return s.error();
  }
  return h;
}

ExtensionIterator::ExtensionIterator(std::span<const std::uint8_t> packet, const RtpHeader& header,
                                     ExtensionForm form) noexcept
    : packet_(packet.data()),
      pos_(header.extension_body_offset()),
      end_(header.extension_body_offset() + header.extension_body_size),
      form_(form) {
  if (!header.has_extension ||
      (form != ExtensionForm::kOneByte && form != ExtensionForm::kTwoByte)) {
    pos_ = end_ = 0;
  }
}

bool ExtensionIterator::next(ExtensionElement& element) noexcept {
  while (pos_ < end_) {
    const std::uint8_t b = packet_[pos_];
    if (b == 0) {  // padding byte between elements (both forms)
      ++pos_;
      continue;
    }
    std::size_t header_len = 0;
    std::size_t data_len = 0;
    std::uint8_t id = 0;
    if (form_ == ExtensionForm::kOneByte) {
      id = static_cast<std::uint8_t>(b >> 4);
      if (id == 15) {  // RFC 8285 §4.2: reserved ID, stop processing the extension
        pos_ = end_;
        return false;
      }
      header_len = 1;
      data_len = std::size_t{static_cast<std::uint8_t>(b & 0x0f)} + 1;
    } else {
      if (pos_ + 2 > end_) {
        malformed_ = true;
        pos_ = end_;
        return false;
      }
      id = b;
      header_len = 2;
      data_len = packet_[pos_ + 1];
    }
    if (pos_ + header_len + data_len > end_) {
      malformed_ = true;
      pos_ = end_;
      return false;
    }
    element = {id, pos_ + header_len, data_len};
    pos_ += header_len + data_len;
    return true;
  }
  return false;
}

}  // namespace wireseal::srtp
