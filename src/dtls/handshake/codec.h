#pragma once
// The pieces every handshake-message codec shares: reading lists of 16-bit code points, and a
// writer that tells a caller's over-long field (kInvalidArgument) from a short buffer
// (kBufferTooSmall). Internal to the dtls module.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/byte_cursor.h"
#include "wireseal/dtls/handshake/extensions.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/result.h"

namespace wireseal::dtls::detail {

// read_u16_list reads a vector16 of 16-bit values that the grammar requires to be non-empty
// (<2..2^16-2>): an odd or empty body fails the reader.
inline U16List read_u16_list(ByteReader& r) noexcept {
  const std::span<const std::uint8_t> pairs = r.vector16();
  if (pairs.empty() || pairs.size() % 2 != 0) {
    r.fail();
    return {};
  }
  return U16List::from_wire(pairs);
}

// write_handshake_header writes the 12-byte handshake header (RFC 6347 §4.2.2) that
// HandshakeReader reads: the fragment writer's and, unfragmented, the transcript's.
inline void write_handshake_header(ByteWriter& w, std::uint8_t msg_type, std::size_t length,
                                   std::uint16_t message_seq, std::size_t fragment_offset,
                                   std::size_t fragment_length) noexcept {
  w.u8(msg_type);
  w.u24be(static_cast<std::uint32_t>(length));
  w.u16be(message_seq);
  w.u24be(static_cast<std::uint32_t>(fragment_offset));
  w.u24be(static_cast<std::uint32_t>(fragment_length));
}

// MessageWriter writes a message body into a caller buffer.
class MessageWriter {
 public:
  explicit MessageWriter(std::span<std::uint8_t> out) noexcept : w_(out) {}

  ByteWriter& raw() noexcept { return w_; }
  void u8(std::uint8_t v) noexcept { w_.u8(v); }
  void u16(std::uint16_t v) noexcept { w_.u16be(v); }
  void u32(std::uint32_t v) noexcept { w_.u32be(v); }
  void bytes(std::span<const std::uint8_t> data) noexcept { w_.bytes(data); }

  // vector8/16/24 write `data` behind a 1-, 2- or 3-byte length; `min` is the grammar's
  // lower bound. Data the prefix cannot express, or shorter than `min`, is the caller's error.
  void vector8(std::span<const std::uint8_t> data, std::size_t min = 0) noexcept {
    vector(data, 1, min);
  }
  void vector16(std::span<const std::uint8_t> data, std::size_t min = 0) noexcept {
    vector(data, 2, min);
  }
  void vector24(std::span<const std::uint8_t> data, std::size_t min = 0) noexcept {
    vector(data, 3, min);
  }
  // u16_list writes a non-empty list of 16-bit values as a vector16.
  void u16_list(const U16List& list) noexcept {
    if (list.empty() || list.size() > 0x7fff) {
      reject();
      return;
    }
    w_.u16be(static_cast<std::uint16_t>(2 * list.size()));
    for (std::size_t i = 0; i < list.size(); ++i) {
      w_.u16be(list[i]);
    }
  }
  // reject records that the caller's message cannot be encoded.
  void reject() noexcept {
    bad_input_ = true;
    w_.fail();
  }

  // finish is the bytes written, or why not.
  Result<std::size_t> finish() const noexcept {
    if (bad_input_) {
      return Error::kInvalidArgument;
    }
    if (!w_.ok()) {
      return Error::kBufferTooSmall;
    }
    return w_.size();
  }

 private:
  void vector(std::span<const std::uint8_t> data, std::size_t prefix, std::size_t min) noexcept {
    if (data.size() < min || data.size() >= (std::size_t{1} << (8 * prefix))) {
      reject();
      return;
    }
    const ByteWriter::VectorMark mark = prefix == 1   ? w_.begin_vector8()
                                        : prefix == 2 ? w_.begin_vector16()
                                                      : w_.begin_vector24();
    w_.bytes(data);
    w_.end_vector(mark);
  }

  ByteWriter w_;
  bool bad_input_ = false;
};

// next_entry takes the next non-empty length-prefixed entry (a 1- or 3-byte length) off the
// front of `rest` into `entry`; false, leaving `rest` empty, at the end or at a malformed one.
// The walkers of certificate chains and ALPN lists.
inline bool next_entry(std::span<const std::uint8_t>& rest, std::size_t prefix,
                       std::span<const std::uint8_t>& entry) noexcept {
  ByteReader r(rest);
  entry = prefix == 1 ? r.vector8() : r.vector24();
  if (!r.ok() || entry.empty()) {
    rest = {};
    return false;
  }
  rest = r.rest();
  return true;
}

// The fields both hellos start with (RFC 5246 §7.4.1.2-3): version, random, session_id<0..32>.
inline void read_hello_start(ByteReader& r, std::uint16_t& version, HelloRandom& random,
                             std::span<const std::uint8_t>& session_id) noexcept {
  version = r.u16be();
  r.copy_to(random);
  session_id = r.vector8();
  if (session_id.size() > kMaxSessionIdSize) {
    r.fail();
  }
}
inline void write_hello_start(MessageWriter& w, std::uint16_t version, const HelloRandom& random,
                              std::span<const std::uint8_t> session_id) noexcept {
  w.u16(version);
  w.bytes(random);
  if (session_id.size() > kMaxSessionIdSize) {
    w.reject();
  }
  w.vector8(session_id);
}

// The hello extensions inside the hello codecs (extensions.cc): the contents of the
// extensions vector into `out`, and the vector (with its length) from `extensions`.
Status read_hello_extensions(std::span<const std::uint8_t> block, HelloExtensions& out) noexcept;
void write_hello_extensions(MessageWriter& w, const HelloExtensions& extensions) noexcept;

// read_optional_extensions reads what follows a hello's fixed fields: nothing (no extensions
// at all), or one extensions vector that ends the message.
inline Status read_optional_extensions(ByteReader& r, HelloExtensions& out) noexcept {
  if (!r.ok()) {
    return Error::kMalformed;
  }
  if (r.empty()) {
    return {};
  }
  const std::span<const std::uint8_t> block = r.vector16();
  if (!r.done()) {
    return Error::kMalformed;
  }
  return read_hello_extensions(block, out);
}

}  // namespace wireseal::dtls::detail
