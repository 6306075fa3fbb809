#pragma once
// RTP header parsing (RFC 3550 §5.1, header extensions per RFC 8285) without copying.
//
//    0                   1                   2                   3
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |V=2|P|X|  CC   |M|     PT      |       sequence number         |
//   |                           timestamp                           |
//   |                             SSRC                              |
//   |                        CSRC list (CC x 4)                     |
//   |  defined by profile (X=1)     |     length (32-bit words)     |
//   |                     header extension body                     |
//
// RtpHeader records offsets into the caller's bytes; it never owns or copies them.

#include <cstddef>
#include <cstdint>
#include <span>

#include "wireseal/result.h"

namespace wireseal::srtp {

inline constexpr std::size_t kRtpFixedHeaderSize = 12;
inline constexpr std::size_t kRtpExtensionPreambleSize = 4;  // profile + length words

// Header-extension "defined by profile" values.
inline constexpr std::uint16_t kOneByteExtensionProfile = 0xBEDE;  // RFC 8285 §4.2
inline constexpr std::uint16_t kTwoByteExtensionMask = 0xFFF0;     // RFC 8285 §4.3: 0x100X
inline constexpr std::uint16_t kTwoByteExtensionProfile = 0x1000;
inline constexpr std::uint16_t kCryptexOneByteProfile = 0xC0DE;  // RFC 9335 §5.1
inline constexpr std::uint16_t kCryptexTwoByteProfile = 0xC2DE;

// ExtensionForm is how the elements of a header extension are encoded.
enum class ExtensionForm : std::uint8_t {
  kNone,     // no extension (X = 0)
  kOneByte,  // 0xBEDE: 4-bit ID, 4-bit length - 1
  kTwoByte,  // 0x100X: 8-bit ID, 8-bit length
  kOther,    // any other profile value: opaque to wireseal
};

// RtpHeader is the parsed fixed header plus the positions of the CSRC list and extension.
struct RtpHeader {
  bool padding = false;
  bool marker = false;
  std::uint8_t csrc_count = 0;
  std::uint8_t payload_type = 0;
  std::uint16_t sequence = 0;
  std::uint32_t timestamp = 0;
  std::uint32_t ssrc = 0;
  bool has_extension = false;
  std::uint16_t extension_profile = 0;  // "defined by profile" (valid if has_extension)
  std::size_t extension_offset = 0;     // offset of the 4-byte preamble (valid if has_extension)
  std::size_t extension_body_size = 0;  // 4 * length field
  std::size_t size = 0;                 // whole header: fixed + CSRCs + extension

  // csrc_offset is where the CSRC list starts (always 12).
  static constexpr std::size_t csrc_offset() noexcept { return kRtpFixedHeaderSize; }
  // extension_body_offset is the offset of the first extension element.
  std::size_t extension_body_offset() const noexcept {
    return extension_offset + kRtpExtensionPreambleSize;
  }
  // extension_form classifies extension_profile (kNone without an extension). Cryptex
  // profiles 0xC0DE / 0xC2DE classify as kOther here; see cryptex_form().
  ExtensionForm extension_form() const noexcept;
};

// parse_rtp_header reads the RTP header at the start of `packet`. Fails with kMalformed if the
// version is not 2 or the CSRC list or extension runs past the end of `packet`. Bytes after the
// header (payload, and for SRTP the tag) are not examined.
Result<RtpHeader> parse_rtp_header(std::span<const std::uint8_t> packet) noexcept;

// ExtensionElement is one element of a one- or two-byte header extension: its ID and where its
// data lies (offset from the start of the packet, so it can address the caller's buffer).
struct ExtensionElement {
  std::uint8_t id;
  std::size_t data_offset;
  std::size_t data_size;
};

// ExtensionIterator walks the elements of an extension body (RFC 8285 §4.2/§4.3): padding
// bytes are skipped, a one-byte ID of 15 ends the walk, and an element whose data would run
// past the body ends it with malformed() set.
class ExtensionIterator {
 public:
  // ExtensionIterator reads the extension of `header` inside `packet` (the same bytes that
  // were parsed). Forms other than kOneByte / kTwoByte yield no elements. `form` overrides the
  // form derived from the profile (cryptex packets carry 0xC0DE/0xC2DE).
  ExtensionIterator(std::span<const std::uint8_t> packet, const RtpHeader& header,
                    ExtensionForm form) noexcept;

  // next stores the next element in `element` and returns true, or returns false at the end.
  bool next(ExtensionElement& element) noexcept;
  // malformed is true if the walk stopped on an element overrunning the body.
  bool malformed() const noexcept { return malformed_; }

 private:
  const std::uint8_t* packet_;
  std::size_t pos_;
  std::size_t end_;
  ExtensionForm form_;
  bool malformed_ = false;
};

}  // namespace wireseal::srtp
