#pragma once
// ByteReader and ByteWriter: bounds-checked cursors over caller buffers for every wire codec
// (DTLS handshake, SMB messages, pcap files). They never allocate, never throw and never touch
// a byte outside their span.
//
// Failure is sticky: a read or write that does not fit fails the cursor, and from then on every
// read returns 0 or an empty span and every write writes nothing. A codec therefore reads (or
// writes) a whole group of fields and checks ok() once, instead of checking each field; the
// values read from a failed reader are meaningless and must not be used.
//
// Naming: u8, u16be, u24be, u32be, u48be, u64be, u16le, u32le, u64le. A reader's u16be() reads
// one, a writer's u16be(v) writes one; the same name means the same bytes on both sides.
//
// The integer accesses use the unchecked loads and stores of common/bytes.h (one load or store
// and a byte swap) after a single bounds check.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/bytes.h"

namespace wireseal {

// ByteReader reads a message front to back.
//
// After a failure the reader holds no bytes (remaining() == 0, empty() is true), so a loop
// `while (!r.empty())` over a malformed message ends; offset() stays where the failing read
// began, for diagnostics.
class ByteReader {
 public:
  constexpr ByteReader() noexcept = default;
  constexpr explicit ByteReader(std::span<const std::uint8_t> bytes) noexcept : bytes_(bytes) {}

  // --- state ---
  constexpr bool ok() const noexcept { return ok_; }
  constexpr std::size_t remaining() const noexcept { return bytes_.size() - pos_; }
  constexpr bool empty() const noexcept { return remaining() == 0; }
  constexpr std::size_t offset() const noexcept { return pos_; }
  // done: every byte was read and no read failed -- what a parser of a whole message wants.
  constexpr bool done() const noexcept { return ok_ && empty(); }
  // rest views the unread bytes without consuming them.
  constexpr std::span<const std::uint8_t> rest() const noexcept { return bytes_.subspan(pos_); }

  // fail marks the reader failed; parsers use it for a field that was read but is invalid, so
  // one ok() check covers the bounds and the semantics of a group of fields.
  constexpr void fail() noexcept {
    ok_ = false;
    bytes_ = bytes_.first(pos_);
  }
  // expect_end fails the reader unless every byte was read; it returns ok().
  constexpr bool expect_end() noexcept {
    if (!empty()) {
      fail();
    }
    return ok_;
  }

  // --- integers ---
  constexpr std::uint8_t u8() noexcept {
    if (!fits(1)) {
      return 0;
    }
    return *advance(1);
  }
  std::uint16_t u16be() noexcept { return read<load_be16, 2>(); }
  std::uint32_t u24be() noexcept { return read<load_be24, 3>(); }
  std::uint32_t u32be() noexcept { return read<load_be32, 4>(); }
  std::uint64_t u48be() noexcept { return read<load_be48, 6>(); }
  std::uint64_t u64be() noexcept { return read<load_be64, 8>(); }
  std::uint16_t u16le() noexcept { return read<load_le16, 2>(); }
  std::uint32_t u32le() noexcept { return read<load_le32, 4>(); }
  std::uint64_t u64le() noexcept { return read<load_le64, 8>(); }

  // --- byte strings ---
  // bytes views the next n bytes (empty on failure).
  constexpr std::span<const std::uint8_t> bytes(std::size_t n) noexcept {
    if (!fits(n)) {
      return {};
    }
    return {advance(n), n};
  }
  constexpr void skip(std::size_t n) noexcept {
    if (fits(n)) {
      pos_ += n;
    }
  }
  // copy_to fills `out` with the next out.size() bytes, or with zeros on failure, so a
  // fixed-size field never keeps stale contents.
  constexpr void copy_to(std::span<std::uint8_t> out) noexcept {
    if (fits(out.size())) {
      std::copy_n(advance(out.size()), out.size(), out.data());
    } else {
      std::fill(out.begin(), out.end(), std::uint8_t{0});
    }
  }

  // vector8/16/24 view the body of a vector with a 1-, 2- or 3-byte big-endian length prefix
  // (TLS's opaque<0..2^8-1> and kin). A length running past the end fails the reader.
  constexpr std::span<const std::uint8_t> vector8() noexcept { return bytes(u8()); }
  std::span<const std::uint8_t> vector16() noexcept { return bytes(u16be()); }
  std::span<const std::uint8_t> vector24() noexcept { return bytes(u24be()); }

  // --- sub-readers ---
  // sub returns a reader over the next n bytes and advances past them. The child's failures
  // are its own (the parent stays ok when a field inside the child is malformed), but a child
  // taken from a failed parent, or asked for more than remains, starts failed.
  constexpr ByteReader sub(std::size_t n) noexcept {
    if (!ok_) {
      return failed_reader();
    }
    return sub_of(bytes(n));
  }
  constexpr ByteReader sub_vector8() noexcept { return sub_of(vector8()); }
  ByteReader sub_vector16() noexcept { return sub_of(vector16()); }
  ByteReader sub_vector24() noexcept { return sub_of(vector24()); }

 private:
  static constexpr ByteReader failed_reader() noexcept {
    ByteReader r;
    r.ok_ = false;
    return r;
  }

  // fits is the one bounds check every read goes through: true when n more bytes can be read,
  // else it fails the reader. remaining() is 0 once failed, so later reads fail here too and
  // cost one comparison.
  constexpr bool fits(std::size_t n) noexcept {
    if (n > remaining()) {
      fail();
      return false;
    }
    return true;
  }
  // advance consumes n bytes that fits() allowed and returns where they start.
  constexpr const std::uint8_t* advance(std::size_t n) noexcept {
    const std::uint8_t* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

  // read is one integer read: the loader is a template argument so the call is direct and
  // inlines to the load itself.
  template <auto Load, std::size_t N>
  auto read() noexcept -> decltype(Load(nullptr)) {
    if (!fits(N)) {
      return 0;
    }
    return Load(advance(N));
  }

  // sub_of wraps a body just read; the child is failed when that read failed (the body is then
  // empty, like a legitimately empty one, so ok() is what tells them apart).
  constexpr ByteReader sub_of(std::span<const std::uint8_t> body) const noexcept {
    return ok_ ? ByteReader(body) : failed_reader();
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

// ByteWriter fills a caller buffer front to back.
//
// A write that does not fit writes nothing and fails the writer; so does a value too wide for
// its field (u24be over 2^24 - 1, u48be over 2^48 - 1) and a vector body too long for its
// length prefix. After a failure remaining() is 0 and nothing more is written; written() still
// views the bytes written before it, which are not a complete message.
class ByteWriter {
 public:
  // VectorMark records where a length-prefixed vector's prefix was reserved; end_vector fills
  // it in once the body is written. Only ByteWriter makes one.
  class VectorMark {
    friend class ByteWriter;
    constexpr VectorMark(std::size_t prefix_at, std::size_t prefix_size) noexcept
        : prefix_at_(prefix_at), prefix_size_(prefix_size) {}
    std::size_t prefix_at_;
    std::size_t prefix_size_;
  };

  constexpr explicit ByteWriter(std::span<std::uint8_t> buffer) noexcept : buffer_(buffer) {}

  // --- state ---
  constexpr bool ok() const noexcept { return ok_; }
  // size: bytes written so far.
  constexpr std::size_t size() const noexcept { return pos_; }
  constexpr std::size_t remaining() const noexcept { return buffer_.size() - pos_; }
  constexpr std::span<std::uint8_t> written() const noexcept { return buffer_.first(pos_); }
  // fail marks the writer failed (for a caller-side check, like ByteReader::fail).
  constexpr void fail() noexcept {
    ok_ = false;
    buffer_ = buffer_.first(pos_);
  }

  // --- integers ---
  constexpr void u8(std::uint8_t v) noexcept {
    if (fits(1)) {
      *advance(1) = v;
    }
  }
  void u16be(std::uint16_t v) noexcept { write<store_be16, 2>(v); }
  void u24be(std::uint32_t v) noexcept { write_bounded<store_be24, 3>(v, kMax24); }
  void u32be(std::uint32_t v) noexcept { write<store_be32, 4>(v); }
  void u48be(std::uint64_t v) noexcept { write_bounded<store_be48, 6>(v, kMax48); }
  void u64be(std::uint64_t v) noexcept { write<store_be64, 8>(v); }
  void u16le(std::uint16_t v) noexcept { write<store_le16, 2>(v); }
  void u32le(std::uint32_t v) noexcept { write<store_le32, 4>(v); }
  void u64le(std::uint64_t v) noexcept { write<store_le64, 8>(v); }

  // --- byte strings ---
  constexpr void bytes(std::span<const std::uint8_t> data) noexcept {
    if (fits(data.size())) {
      std::copy_n(data.data(), data.size(), advance(data.size()));
    }
  }
  constexpr void zeros(std::size_t n) noexcept {
    if (fits(n)) {
      std::fill_n(advance(n), n, std::uint8_t{0});
    }
  }
  // reserve claims the next n bytes, unwritten, and returns them for the caller to fill later
  // (a tag computed over what follows); empty on failure. The caller must fill every byte.
  constexpr std::span<std::uint8_t> reserve(std::size_t n) noexcept {
    if (!fits(n)) {
      return {};
    }
    return {advance(n), n};
  }

  // --- length-prefixed vectors ---
  // begin_vector8/16/24 reserve a 1-, 2- or 3-byte big-endian length prefix; end_vector sets it
  // to the number of bytes written since, failing the writer if that does not fit the prefix.
  // Vectors nest: end the inner one first.
  VectorMark begin_vector8() noexcept { return begin_vector(1); }
  VectorMark begin_vector16() noexcept { return begin_vector(2); }
  VectorMark begin_vector24() noexcept { return begin_vector(3); }
  void end_vector(VectorMark mark) noexcept {
    if (!ok_) {
      return;  // the prefix may never have been reserved
    }
    const std::size_t length = pos_ - mark.prefix_at_ - mark.prefix_size_;
    if (length > max_for_prefix(mark.prefix_size_)) {
      fail();
      return;
    }
    std::uint8_t* prefix = buffer_.data() + mark.prefix_at_;
    if (mark.prefix_size_ == 1) {
      *prefix = static_cast<std::uint8_t>(length);
    } else if (mark.prefix_size_ == 2) {
      store_be16(prefix, static_cast<std::uint16_t>(length));
    } else {
      store_be24(prefix, static_cast<std::uint32_t>(length));
    }
  }

 private:
  static constexpr std::uint64_t kMax24 = (std::uint64_t{1} << 24) - 1;
  static constexpr std::uint64_t kMax48 = (std::uint64_t{1} << 48) - 1;

  static constexpr std::size_t max_for_prefix(std::size_t prefix_size) noexcept {
    return (std::size_t{1} << (8 * prefix_size)) - 1;
  }

  // fits and advance are ByteReader's: the one bounds check of every write (failing the
  // writer when n bytes do not fit), then the unchecked claim of bytes it allowed.
  constexpr bool fits(std::size_t n) noexcept {
    if (n > remaining()) {
      fail();
      return false;
    }
    return true;
  }
  constexpr std::uint8_t* advance(std::size_t n) noexcept {
    std::uint8_t* p = buffer_.data() + pos_;
    pos_ += n;
    return p;
  }

  // write is one integer write; like ByteReader::read, the storer is a template argument.
  template <auto Store, std::size_t N, class T>
  void write(T v) noexcept {
    if (fits(N)) {
      Store(advance(N), v);
    }
  }

  // write_bounded writes a field narrower than its C++ type; a value that would lose bits
  // fails the writer instead of being truncated on the wire.
  template <auto Store, std::size_t N, class T>
  void write_bounded(T v, std::uint64_t max) noexcept {
    if (v > max) {
      fail();
      return;
    }
    write<Store, N>(v);
  }

  VectorMark begin_vector(std::size_t prefix_size) noexcept {
    const VectorMark mark(pos_, prefix_size);
    zeros(prefix_size);  // a placeholder, so a vector never ended still has defined bytes
    return mark;
  }

  std::span<std::uint8_t> buffer_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace wireseal
