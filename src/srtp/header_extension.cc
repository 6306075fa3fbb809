// RFC 6904 header-extension encryption and RFC 9335 cryptex helpers.
#include "header_extension.h"

#include <cstring>

namespace wireseal::srtp::detail {

Status apply_rfc6904(crypto::AesCtr& ctr, const Iv16& iv, const StreamState& stream,
                     std::span<std::uint8_t> packet, const RtpHeader& header) noexcept {
  const ExtensionForm form = header.extension_form();
  if (form != ExtensionForm::kOneByte && form != ExtensionForm::kTwoByte) {
    return {};
  }
  ExtensionIterator it(packet, header, form);
  ExtensionElement e{};
  while (it.next(e)) {
    if (!stream.encrypts_id(e.id) || e.data_size == 0) {
      continue;
    }
    std::span<std::uint8_t> data = packet.subspan(e.data_offset, e.data_size);
    if (Status s = ctr_xor(ctr, iv, e.data_offset - header.extension_body_offset(), data, data);
        !s) {
      return s;
    }
  }
  if (it.malformed()) {
    return Error::kMalformed;
  }
  return {};
}

bool rfc6904_well_formed(std::span<const std::uint8_t> packet, const RtpHeader& header) noexcept {
  ExtensionIterator it(packet, header, header.extension_form());
  ExtensionElement e{};
  while (it.next(e)) {
  }
  return !it.malformed();
}

std::uint16_t cryptex_profile(std::uint16_t profile) noexcept {
  if (profile == kOneByteExtensionProfile) {
    return kCryptexOneByteProfile;
  }
  // RFC 9335 §5.1 has no room for the two-byte form's 4 "appbits": only 0x1000 maps.
  if (profile == kTwoByteExtensionProfile) {
    return kCryptexTwoByteProfile;
  }
  return 0;
}

std::uint16_t plain_profile(std::uint16_t profile) noexcept {
  if (profile == kCryptexOneByteProfile) {
    return kOneByteExtensionProfile;
  }
  if (profile == kCryptexTwoByteProfile) {
    return kTwoByteExtensionProfile;
  }
  return 0;
}

ExtensionForm cryptex_form(std::uint16_t profile) noexcept {
  if (profile == kCryptexOneByteProfile) {
    return ExtensionForm::kOneByte;
  }
  if (profile == kCryptexTwoByteProfile) {
    return ExtensionForm::kTwoByte;
  }
  return ExtensionForm::kOther;
}

Result<std::size_t> cryptex_xor_header(crypto::AesCtr& ctr, const Iv16& iv,
                                       std::span<std::uint8_t> packet,
                                       const RtpHeader& header) noexcept {
  const std::size_t csrc_len = 4 * std::size_t{header.csrc_count};
  std::span<std::uint8_t> csrcs = packet.subspan(RtpHeader::csrc_offset(), csrc_len);
  if (Status s = ctr_xor(ctr, iv, 0, csrcs, csrcs); !s) {
    return s.error();
  }
  std::span<std::uint8_t> body =
      packet.subspan(header.extension_body_offset(), header.extension_body_size);
  if (Status s = ctr_xor(ctr, iv, csrc_len, body, body); !s) {
    return s.error();
  }
  return csrc_len + header.extension_body_size;
}

void cryptex_gather(std::uint8_t* packet, const RtpHeader& header) noexcept {
  if (header.csrc_count == 0) {
    return;
  }
  std::uint8_t preamble[kRtpExtensionPreambleSize];
  std::memcpy(preamble, packet + header.extension_offset, sizeof(preamble));
  std::memmove(packet + kRtpFixedHeaderSize + sizeof(preamble), packet + kRtpFixedHeaderSize,
               4 * std::size_t{header.csrc_count});
  std::memcpy(packet + kRtpFixedHeaderSize, preamble, sizeof(preamble));
}

void cryptex_scatter(std::uint8_t* packet, const RtpHeader& header) noexcept {
  if (header.csrc_count == 0) {
    return;
  }
  std::uint8_t preamble[kRtpExtensionPreambleSize];
  std::memcpy(preamble, packet + kRtpFixedHeaderSize, sizeof(preamble));
  std::memmove(packet + kRtpFixedHeaderSize, packet + kRtpFixedHeaderSize + sizeof(preamble),
               4 * std::size_t{header.csrc_count});
  std::memcpy(packet + header.extension_offset, preamble, sizeof(preamble));
}

}  // namespace wireseal::srtp::detail
