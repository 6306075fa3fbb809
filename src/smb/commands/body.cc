// What every command codec shares: the fixed StructureSize check, offset/length checks against
// the message, and UTF-16LE names (MS-SMB2 §2.2: all strings are UTF-16LE, not terminated).
#include <cstring>

#include "commands/commands.h"
#include "common/byte_cursor.h"

namespace wireseal::smb::commands {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// next_code_point decodes one UTF-8 sequence from `text` at `i`, advancing `i`; malformed or
// overlong sequences give U+FFFD and consume one byte.
char32_t next_code_point(std::string_view text, std::size_t& i) noexcept {
  const auto b0 = static_cast<unsigned char>(text[i++]);
  if (b0 < 0x80) {
    return b0;
  }
  const std::size_t extra = b0 >= 0xF0 ? 3 : b0 >= 0xE0 ? 2 : b0 >= 0xC0 ? 1 : 0;
  if (extra == 0 || b0 > 0xF4 || i + extra > text.size()) {
    return kReplacement;
  }
  char32_t cp = b0 & (0x3F >> extra);
  for (std::size_t k = 0; k < extra; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) {
      return kReplacement;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  constexpr char32_t kMinimum[4] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return kReplacement;
  }
  i += extra;
  return cp;
}

void append_utf8(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

std::size_t utf16_size(std::string_view text) noexcept {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size();) {
    n += next_code_point(text, i) >= 0x10000 ? std::size_t{4} : std::size_t{2};
  }
  return n;
}

void write_utf16(std::string_view text, std::span<std::uint8_t> out) noexcept {
  ByteWriter w(out);
  for (std::size_t i = 0; i < text.size();) {
    const char32_t cp = next_code_point(text, i);
    if (cp >= 0x10000) {
      const char32_t v = cp - 0x10000;
      w.u16le(static_cast<std::uint16_t>(0xD800 | (v >> 10)));
      w.u16le(static_cast<std::uint16_t>(0xDC00 | (v & 0x3FF)));
    } else {
      w.u16le(static_cast<std::uint16_t>(cp));
    }
  }
}

void write_path(std::string_view path, std::span<std::uint8_t> out) noexcept {
  write_utf16(path, out);
  for (std::size_t i = 0; i + 1 < out.size(); i += 2) {
    if (out[i] == '/' && out[i + 1] == 0) {
      out[i] = '\\';
    }
  }
}

std::string read_utf16(std::span<const std::uint8_t> bytes) {
  std::string out;
  ByteReader r(bytes);
  while (r.remaining() >= 2) {
    char32_t cp = r.u16le();
    if (cp >= 0xD800 && cp <= 0xDBFF && r.remaining() >= 2) {
      const char32_t low = load_le16(r.rest().data());
      if (low >= 0xDC00 && low <= 0xDFFF) {
        r.skip(2);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      }
    }
    append_utf8(cp >= 0xD800 && cp <= 0xDFFF ? kReplacement : cp, out);
  }
  return out;
}

Result<std::span<const std::uint8_t>> body_of(std::span<const std::uint8_t> message,
                                              std::uint16_t structure_size) noexcept {
  // StructureSize counts the fixed part plus one byte when a variable buffer follows, so a body
  // may be one byte shorter than it says (an empty buffer).
  const std::size_t fixed = structure_size & ~std::size_t{1};
  if (message.size() < kHeaderSize + fixed ||
      load_le16(message.data() + kHeaderSize) != structure_size) {
    return Error::kMalformed;
  }
  return message.subspan(kHeaderSize);
}

Result<std::span<const std::uint8_t>> buffer_at(std::span<const std::uint8_t> message,
                                                std::size_t offset, std::size_t length) noexcept {
  if (length == 0) {
    return std::span<const std::uint8_t>{};
  }
  if (offset < kHeaderSize || offset > message.size() || length > message.size() - offset) {
    return Error::kMalformed;
  }
  return message.subspan(offset, length);
}

Result<std::span<const std::uint8_t>> output_buffer(
    std::span<const std::uint8_t> message) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, 9);
  if (!body) {
    return body.error();
  }
  ByteReader r(*body);
  r.skip(2);
  const std::uint16_t offset = r.u16le();
  const std::uint32_t length = r.u32le();
  if (!r.ok()) {
    return Error::kMalformed;
  }
  return buffer_at(message, offset, length);
}

Result<std::size_t> encode_empty(std::span<std::uint8_t> body) noexcept {
  ByteWriter w(body);
  w.u16le(4);
  w.u16le(0);
  return w.ok() ? Result<std::size_t>(w.size()) : Error::kBufferTooSmall;
}

Status expect_structure(std::span<const std::uint8_t> message,
                        std::uint16_t structure_size) noexcept {
  const Result<std::span<const std::uint8_t>> body = body_of(message, structure_size);
  return body ? Status{} : Status{body.error()};
}

Status parse_empty(std::span<const std::uint8_t> message) noexcept {
  return expect_structure(message, 4);
}

}  // namespace wireseal::smb::commands
