// ByteReader / ByteWriter (common/byte_cursor.h) and the endian helpers they stand on
// (common/bytes.h): every width in both byte orders against literal bytes, length-prefixed
// vectors, sub-readers, sticky failure, and every read and write at every offset of small
// buffers. The buffers are heap blocks of exactly the size under test, so a sanitizer build
// would also catch a single byte read or written past the end.
#include "common/byte_cursor.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "common/bytes.h"

namespace wireseal {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::array<std::uint8_t, 8> kCounting = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};

std::span<const std::uint8_t> counting_first(std::size_t n) {
  return std::span<const std::uint8_t>(kCounting).first(n);
}

// --- common/bytes.h ---

TEST(Bytes, LittleEndianLoadsAgainstLiteralBytes) {
  EXPECT_EQ(load_le16(kCounting.data()), 0x0201u);
  EXPECT_EQ(load_le32(kCounting.data()), 0x04030201u);
  EXPECT_EQ(load_le64(kCounting.data()), 0x0807060504030201u);
}

TEST(Bytes, LittleEndianStoresAgainstLiteralBytes) {
  std::array<std::uint8_t, 8> b{};
  store_le16(b.data(), 0x0201);
  EXPECT_EQ(Bytes(b.begin(), b.begin() + 2), Bytes({0x01, 0x02}));
  store_le32(b.data(), 0x04030201);
  EXPECT_EQ(Bytes(b.begin(), b.begin() + 4), Bytes({0x01, 0x02, 0x03, 0x04}));
  store_le64(b.data(), 0x0807060504030201);
  EXPECT_EQ(Bytes(b.begin(), b.end()), Bytes(kCounting.begin(), kCounting.end()));
}

TEST(Bytes, TwentyFourBitBigEndian) {
  EXPECT_EQ(load_be24(kCounting.data()), 0x010203u);
  std::array<std::uint8_t, 4> b = {0xAA, 0xAA, 0xAA, 0xAA};
  store_be24(b.data(), 0xFF010203);  // only the low 24 bits are stored
  EXPECT_EQ(Bytes(b.begin(), b.end()), Bytes({0x01, 0x02, 0x03, 0xAA}));
}

TEST(Bytes, NamedFunctionsAreTheEndianTemplates) {
  const std::uint8_t* p = kCounting.data();
  EXPECT_EQ((load<std::endian::big, std::uint16_t>(p)), 0x0102u);
  EXPECT_EQ((load<std::endian::big, std::uint64_t>(p)), load_be64(p));
  EXPECT_EQ((load<std::endian::little, std::uint32_t>(p)), load_le32(p));
  std::array<std::uint8_t, 8> a{};
  std::array<std::uint8_t, 8> b{};
  store<std::endian::big>(a.data(), std::uint64_t{0x0102030405060708});
  store_be64(b.data(), 0x0102030405060708);
  EXPECT_EQ(a, b);
  store<std::endian::little>(a.data(), std::uint16_t{0x0102});
  store_le16(b.data(), 0x0102);
  EXPECT_EQ(a, b);
}

// --- ByteReader: values ---

TEST(ByteReader, EveryWidthAgainstLiteralBytes) {
  const auto read_first = [](auto read) {
    ByteReader r(kCounting);
    const auto v = read(r);
    EXPECT_TRUE(r.ok());
    return v;
  };
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u8(); }), 0x01u);
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u16be(); }), 0x0102u);
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u24be(); }), 0x010203u);
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u32be(); }), 0x01020304u);
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u48be(); }), 0x010203040506u);
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u64be(); }), 0x0102030405060708u);
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u16le(); }), 0x0201u);
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u32le(); }), 0x04030201u);
  EXPECT_EQ(read_first([](ByteReader& r) { return r.u64le(); }), 0x0807060504030201u);
}

TEST(ByteReader, ReadsAdvanceFrontToBack) {
  ByteReader r(kCounting);
  EXPECT_EQ(r.u8(), 0x01u);
  EXPECT_EQ(r.u16le(), 0x0302u);
  EXPECT_EQ(r.u24be(), 0x040506u);
  EXPECT_EQ(r.offset(), 6u);
  EXPECT_EQ(r.remaining(), 2u);
  EXPECT_EQ(Bytes(r.rest().begin(), r.rest().end()), Bytes({0x07, 0x08}));
  EXPECT_EQ(r.offset(), 6u);  // rest() does not consume
  EXPECT_FALSE(r.done());
  EXPECT_EQ(r.u16be(), 0x0708u);
  EXPECT_TRUE(r.empty());
  EXPECT_TRUE(r.done());
  EXPECT_TRUE(r.expect_end());
}

TEST(ByteReader, BytesSkipAndCopy) {
  ByteReader r(kCounting);
  const std::span<const std::uint8_t> first = r.bytes(3);
  EXPECT_EQ(first.data(), kCounting.data());  // a view, not a copy
  EXPECT_EQ(first.size(), 3u);
  r.skip(2);
  std::array<std::uint8_t, 2> out{};
  r.copy_to(out);
  EXPECT_EQ(out, (std::array<std::uint8_t, 2>{0x06, 0x07}));
  EXPECT_TRUE(r.bytes(0).empty());
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.remaining(), 1u);
}

TEST(ByteReader, CopyToZeroFillsOnFailure) {
  ByteReader r(counting_first(3));
  std::array<std::uint8_t, 4> out = {0xAA, 0xAA, 0xAA, 0xAA};
  r.copy_to(out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(out, (std::array<std::uint8_t, 4>{}));
}

TEST(ByteReader, ExpectEndFailsWithBytesLeft) {
  ByteReader r(kCounting);
  r.skip(7);
  EXPECT_FALSE(r.expect_end());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.u8(), 0u);  // the byte left is no longer readable
}

TEST(ByteReader, DefaultConstructedIsEmptyAndOk) {
  ByteReader r;
  EXPECT_TRUE(r.done());
  EXPECT_TRUE(r.bytes(0).empty());
  ByteReader child = r.sub(0);
  EXPECT_TRUE(child.done());
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.u8(), 0u);
  EXPECT_FALSE(r.ok());
}

// --- ByteReader: sticky failure ---

TEST(ByteReader, FailureIsSticky) {
  ByteReader r(counting_first(3));
  EXPECT_EQ(r.u32be(), 0u);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.offset(), 0u);  // where the failing read began
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(r.empty());
  EXPECT_TRUE(r.rest().empty());
  // Each of these would fit the three bytes the failed read left unread.
  EXPECT_EQ(r.u8(), 0u);
  EXPECT_EQ(r.u16be(), 0u);
  EXPECT_EQ(r.u16le(), 0u);
  EXPECT_EQ(r.u24be(), 0u);
  EXPECT_TRUE(r.bytes(1).empty());
  EXPECT_TRUE(r.vector8().empty());
  EXPECT_FALSE(r.sub(0).ok());
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.done());
  EXPECT_FALSE(r.expect_end());
}

TEST(ByteReader, FailMarksASemanticError) {
  ByteReader r(kCounting);
  EXPECT_EQ(r.u8(), 0x01u);
  r.fail();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.offset(), 1u);
  EXPECT_EQ(r.u8(), 0u);
}

// --- ByteReader: vectors ---

TEST(ByteReader, VectorsOfEachPrefixWidth) {
  const Bytes v8 = {0x02, 0xAA, 0xBB, 0xCC};
  ByteReader a(v8);
  const std::span<const std::uint8_t> body8 = a.vector8();
  EXPECT_EQ(Bytes(body8.begin(), body8.end()), Bytes({0xAA, 0xBB}));
  EXPECT_EQ(a.remaining(), 1u);
  EXPECT_TRUE(a.ok());

  const Bytes v16 = {0x00, 0x03, 0x01, 0x02, 0x03};
  ByteReader b(v16);
  const std::span<const std::uint8_t> body16 = b.vector16();
  EXPECT_EQ(Bytes(body16.begin(), body16.end()), Bytes({0x01, 0x02, 0x03}));
  EXPECT_TRUE(b.done());

  const Bytes v24 = {0x00, 0x00, 0x01, 0x7F};
  ByteReader c(v24);
  const std::span<const std::uint8_t> body24 = c.vector24();
  EXPECT_EQ(Bytes(body24.begin(), body24.end()), Bytes({0x7F}));
  EXPECT_TRUE(c.done());

  const Bytes empty_vector = {0x00, 0x00};
  ByteReader d(empty_vector);
  EXPECT_TRUE(d.vector16().empty());
  EXPECT_TRUE(d.done());
}

TEST(ByteReader, VectorLengthPastTheEndFails) {
  const Bytes v8 = {0x04, 0xAA, 0xBB, 0xCC};  // claims 4, has 3
  ByteReader a(v8);
  EXPECT_TRUE(a.vector8().empty());
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.offset(), 1u);  // the prefix was read, the body was not

  const Bytes v16 = {0x01, 0x00, 0xAA};  // claims 256
  ByteReader b(v16);
  EXPECT_TRUE(b.vector16().empty());
  EXPECT_FALSE(b.ok());

  const Bytes v24 = {0xFF, 0xFF, 0xFF, 0xAA};  // claims 2^24 - 1
  ByteReader c(v24);
  EXPECT_TRUE(c.vector24().empty());
  EXPECT_FALSE(c.ok());

  const Bytes truncated_prefix = {0x00};  // a 2-byte prefix cut after one byte
  ByteReader d(truncated_prefix);
  EXPECT_TRUE(d.vector16().empty());
  EXPECT_FALSE(d.ok());
}

// --- ByteReader: sub-readers ---

TEST(ByteReader, SubReaderFailuresAreItsOwn) {
  ByteReader parent(kCounting);
  ByteReader child = parent.sub(3);
  EXPECT_EQ(parent.offset(), 3u);  // the parent is past the child's bytes
  EXPECT_EQ(child.u16be(), 0x0102u);
  EXPECT_EQ(child.u16be(), 0u);  // one byte left in the child
  EXPECT_FALSE(child.ok());
  EXPECT_TRUE(parent.ok());
  EXPECT_EQ(parent.u8(), 0x04u);  // the child never reads the parent's bytes
}

TEST(ByteReader, SubReaderPastTheEndFailsBoth) {
  ByteReader parent(kCounting);
  ByteReader child = parent.sub(9);
  EXPECT_FALSE(parent.ok());
  EXPECT_FALSE(child.ok());
  EXPECT_TRUE(child.empty());
}

TEST(ByteReader, SubVectorsOfEachPrefixWidth) {
  const Bytes message = {0x02, 0x11, 0x22,              // vector8
                         0x00, 0x01, 0x33,              // vector16
                         0x00, 0x00, 0x02, 0x44, 0x55,  // vector24
                         0x66};
  ByteReader r(message);
  ByteReader a = r.sub_vector8();
  ByteReader b = r.sub_vector16();
  ByteReader c = r.sub_vector24();
  EXPECT_EQ(a.u16be(), 0x1122u);
  EXPECT_TRUE(a.done());
  EXPECT_EQ(b.u8(), 0x33u);
  EXPECT_TRUE(b.done());
  EXPECT_EQ(c.u16le(), 0x5544u);
  EXPECT_TRUE(c.done());
  EXPECT_EQ(r.u8(), 0x66u);
  EXPECT_TRUE(r.done());
}

TEST(ByteReader, SubVectorPastTheEndIsFailed) {
  const Bytes message = {0x05, 0x11};
  ByteReader r(message);
  ByteReader child = r.sub_vector8();
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(child.ok());
  EXPECT_FALSE(child.expect_end());  // an empty failed child must not pass for a good one
}

TEST(ByteReader, SubReaderOfAFailedParentIsFailed) {
  ByteReader r(counting_first(1));
  EXPECT_EQ(r.u16be(), 0u);
  EXPECT_FALSE(r.sub(0).ok());
  EXPECT_FALSE(r.sub_vector8().ok());
}

// --- ByteWriter ---

Bytes written_bytes(const ByteWriter& w) { return Bytes(w.written().begin(), w.written().end()); }

TEST(ByteWriter, EveryWidthAgainstLiteralBytes) {
  std::array<std::uint8_t, 64> buffer{};
  ByteWriter w(buffer);
  w.u8(0x01);
  w.u16be(0x0102);
  w.u24be(0x010203);
  w.u32be(0x01020304);
  w.u48be(0x010203040506);
  w.u64be(0x0102030405060708);
  w.u16le(0x0201);
  w.u32le(0x04030201);
  w.u64le(0x0807060504030201);
  ASSERT_TRUE(w.ok());
  const Bytes expected = {0x01,                                            // u8
                          0x01, 0x02,                                      // u16be
                          0x01, 0x02, 0x03,                                // u24be
                          0x01, 0x02, 0x03, 0x04,                          // u32be
                          0x01, 0x02, 0x03, 0x04, 0x05, 0x06,              // u48be
                          0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // u64be
                          0x01, 0x02,                                      // u16le
                          0x01, 0x02, 0x03, 0x04,                          // u32le
                          0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  EXPECT_EQ(written_bytes(w), expected);
  EXPECT_EQ(w.size(), expected.size());
  EXPECT_EQ(w.remaining(), buffer.size() - expected.size());
  EXPECT_EQ(w.written().data(), buffer.data());
}

TEST(ByteWriter, BytesZerosAndReserve) {
  std::array<std::uint8_t, 8> buffer;
  buffer.fill(0xEE);
  ByteWriter w(buffer);
  const std::array<std::uint8_t, 2> data = {0x12, 0x34};
  w.bytes(data);
  w.zeros(2);
  const std::span<std::uint8_t> tag = w.reserve(3);
  ASSERT_EQ(tag.size(), 3u);
  EXPECT_EQ(tag.data(), buffer.data() + 4);
  EXPECT_EQ(tag[0], 0xEEu);  // reserve leaves the bytes for the caller
  tag[0] = tag[1] = tag[2] = 0x77;
  w.u8(0x99);
  EXPECT_TRUE(w.ok());
  EXPECT_EQ(w.remaining(), 0u);
  EXPECT_EQ(written_bytes(w), Bytes({0x12, 0x34, 0x00, 0x00, 0x77, 0x77, 0x77, 0x99}));
}

TEST(ByteWriter, OverflowWritesNothingAndIsSticky) {
  std::array<std::uint8_t, 5> buffer;
  buffer.fill(0xEE);
  ByteWriter w(buffer);
  w.u16be(0x0102);
  w.u32le(0x03040506);  // 4 bytes into the 3 left
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(w.size(), 2u);
  EXPECT_EQ(w.remaining(), 0u);
  // Each of these would fit the three bytes the failed write left.
  w.u8(0xAA);
  w.u16le(0xAAAA);
  w.zeros(1);
  EXPECT_TRUE(w.reserve(1).empty());
  const std::array<std::uint8_t, 1> one = {0xAA};
  w.bytes(one);
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(buffer, (std::array<std::uint8_t, 5>{0x01, 0x02, 0xEE, 0xEE, 0xEE}));
  EXPECT_EQ(written_bytes(w), Bytes({0x01, 0x02}));
}

TEST(ByteWriter, ValueTooWideForItsFieldFails) {
  std::array<std::uint8_t, 16> buffer{};
  ByteWriter a(buffer);
  a.u24be(0x01000000);
  EXPECT_FALSE(a.ok());
  EXPECT_EQ(a.size(), 0u);

  ByteWriter b(buffer);
  b.u48be(std::uint64_t{1} << 48);
  EXPECT_FALSE(b.ok());
  EXPECT_EQ(b.size(), 0u);

  ByteWriter c(buffer);
  c.u24be(0xFFFFFF);
  c.u48be((std::uint64_t{1} << 48) - 1);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(written_bytes(c), Bytes(9, 0xFF));
}

TEST(ByteWriter, FailMarksACallerError) {
  std::array<std::uint8_t, 4> buffer{};
  ByteWriter w(buffer);
  w.u8(1);
  w.fail();
  w.u8(2);
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(written_bytes(w), Bytes({0x01}));
  EXPECT_EQ(buffer[1], 0u);
}

// --- ByteWriter: back-patched vectors ---

TEST(ByteWriter, VectorsOfEachPrefixWidth) {
  std::array<std::uint8_t, 32> buffer{};
  ByteWriter w(buffer);
  const auto v8 = w.begin_vector8();
  w.u16be(0x1122);
  w.end_vector(v8);
  const auto v16 = w.begin_vector16();
  w.u8(0x33);
  w.end_vector(v16);
  const auto v24 = w.begin_vector24();
  w.end_vector(v24);  // empty
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(written_bytes(w), Bytes({0x02, 0x11, 0x22, 0x00, 0x01, 0x33, 0x00, 0x00, 0x00}));
}

TEST(ByteWriter, NestedVectors) {
  std::array<std::uint8_t, 32> buffer{};
  ByteWriter w(buffer);
  const auto outer = w.begin_vector16();
  w.u16be(0x0017);  // an extension type
  const auto inner = w.begin_vector16();
  w.u8(0xAB);
  w.end_vector(inner);
  w.end_vector(outer);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(written_bytes(w), Bytes({0x00, 0x05, 0x00, 0x17, 0x00, 0x01, 0xAB}));

  ByteReader r(w.written());
  ByteReader extensions = r.sub_vector16();
  EXPECT_EQ(extensions.u16be(), 0x0017u);
  const std::span<const std::uint8_t> body = extensions.vector16();
  EXPECT_EQ(Bytes(body.begin(), body.end()), Bytes({0xAB}));
  EXPECT_TRUE(extensions.done());
  EXPECT_TRUE(r.done());
}

TEST(ByteWriter, VectorLongerThanItsPrefixFails) {
  const auto fill_vector = [](std::size_t prefix, std::size_t body) {
    std::vector<std::uint8_t> buffer(prefix + body);
    ByteWriter w(buffer);
    const auto mark = prefix == 1   ? w.begin_vector8()
                      : prefix == 2 ? w.begin_vector16()
                                    : w.begin_vector24();
    w.zeros(body);
    EXPECT_TRUE(w.ok());
    w.end_vector(mark);
    if (w.ok()) {  // the prefix holds the body's length
      ByteReader r(w.written());
      EXPECT_EQ(prefix == 1   ? r.vector8().size()
                : prefix == 2 ? r.vector16().size()
                              : r.vector24().size(),
                body);
      EXPECT_TRUE(r.done());
    }
    return w.ok();
  };
  EXPECT_TRUE(fill_vector(1, 255));
  EXPECT_FALSE(fill_vector(1, 256));
  EXPECT_TRUE(fill_vector(2, 65535));
  EXPECT_FALSE(fill_vector(2, 65536));
  EXPECT_TRUE(fill_vector(3, (std::size_t{1} << 24) - 1));
  EXPECT_FALSE(fill_vector(3, std::size_t{1} << 24));
}

TEST(ByteWriter, VectorBeginThatDoesNotFitFails) {
  std::array<std::uint8_t, 1> buffer = {0xEE};
  ByteWriter w(buffer);
  const auto mark = w.begin_vector16();
  EXPECT_FALSE(w.ok());
  w.end_vector(mark);  // harmless on a failed writer
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(buffer[0], 0xEEu);
}

// --- every offset near the end of small buffers ---

struct ReadOp {
  const char* name;
  std::size_t width;
  bool big_endian;
  std::uint64_t (*read)(ByteReader&);
};

constexpr ReadOp kReadOps[] = {
    {"u8", 1, true, [](ByteReader& r) -> std::uint64_t { return r.u8(); }},
    {"u16be", 2, true, [](ByteReader& r) -> std::uint64_t { return r.u16be(); }},
    {"u24be", 3, true, [](ByteReader& r) -> std::uint64_t { return r.u24be(); }},
    {"u32be", 4, true, [](ByteReader& r) -> std::uint64_t { return r.u32be(); }},
    {"u48be", 6, true, [](ByteReader& r) -> std::uint64_t { return r.u48be(); }},
    {"u64be", 8, true, [](ByteReader& r) -> std::uint64_t { return r.u64be(); }},
    {"u16le", 2, false, [](ByteReader& r) -> std::uint64_t { return r.u16le(); }},
    {"u32le", 4, false, [](ByteReader& r) -> std::uint64_t { return r.u32le(); }},
    {"u64le", 8, false, [](ByteReader& r) -> std::uint64_t { return r.u64le(); }},
};

// expected_value assembles `width` bytes one at a time: the definition the loads must meet.
std::uint64_t expected_value(const std::uint8_t* p, std::size_t width, bool big_endian) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i) {
    const std::size_t byte = big_endian ? i : width - 1 - i;
    v = v << 8 | p[byte];
  }
  return v;
}

// exact_buffer is a heap block of exactly n distinct bytes (a vector's storage: ASan knows its
// size), so any access outside it is a heap overflow a sanitizer reports.
Bytes exact_buffer(std::size_t n) {
  Bytes bytes(n);
  std::iota(bytes.begin(), bytes.end(), std::uint8_t{0xA0});
  return bytes;
}

TEST(ByteReader, EveryWidthAtEveryOffsetOfSmallBuffers) {
  for (std::size_t n = 0; n <= 16; ++n) {
    Bytes buffer = exact_buffer(n);
    for (const ReadOp& op : kReadOps) {
      for (std::size_t start = 0; start <= n; ++start) {
        SCOPED_TRACE(testing::Message() << op.name << " at " << start << " of " << n);
        ByteReader r(buffer);
        r.skip(start);
        ASSERT_TRUE(r.ok());
        const std::uint64_t v = op.read(r);
        if (start + op.width <= n) {
          EXPECT_TRUE(r.ok());
          EXPECT_EQ(v, expected_value(buffer.data() + start, op.width, op.big_endian));
          EXPECT_EQ(r.offset(), start + op.width);
        } else {
          EXPECT_FALSE(r.ok());
          EXPECT_EQ(v, 0u);
          EXPECT_EQ(r.offset(), start);
          EXPECT_EQ(r.remaining(), 0u);
          EXPECT_EQ(op.read(r), 0u);  // and it stays failed
        }
      }
    }
  }
}

TEST(ByteReader, EveryLengthAtEveryOffsetOfSmallBuffers) {
  for (std::size_t n = 0; n <= 16; ++n) {
    Bytes buffer = exact_buffer(n);
    for (std::size_t start = 0; start <= n; ++start) {
      for (std::size_t length = 0; length <= n + 1; ++length) {
        SCOPED_TRACE(testing::Message() << length << " bytes at " << start << " of " << n);
        const bool fits = start + length <= n;
        ByteReader r(buffer);
        r.skip(start);
        const std::span<const std::uint8_t> view = r.bytes(length);
        EXPECT_EQ(r.ok(), fits);
        EXPECT_EQ(view.size(), fits ? length : 0);

        ByteReader s(buffer);
        s.skip(start);
        ByteReader child = s.sub(length);
        EXPECT_EQ(s.ok(), fits);
        EXPECT_EQ(child.ok(), fits);
        EXPECT_EQ(child.remaining(), fits ? length : 0);
      }
    }
  }
}

// Every vector whose prefix starts at every offset, claiming every length up to past the end.
TEST(ByteReader, EveryVectorAtEveryOffsetOfSmallBuffers) {
  for (std::size_t n = 0; n <= 16; ++n) {
    for (std::size_t prefix = 1; prefix <= 3; ++prefix) {
      for (std::size_t start = 0; start <= n; ++start) {
        for (std::size_t length = 0; length <= n; ++length) {
          SCOPED_TRACE(testing::Message() << "prefix " << prefix << " at " << start << " length "
                                          << length << " of " << n);
          Bytes buffer = exact_buffer(n);
          const bool prefix_fits = start + prefix <= n;
          if (prefix_fits) {
            for (std::size_t i = 0; i < prefix; ++i) {  // the low `prefix` bytes, big-endian
              buffer.data()[start + i] =
                  static_cast<std::uint8_t>(length >> (8 * (prefix - 1 - i)));
            }
          }
          const bool fits = prefix_fits && start + prefix + length <= n;
          ByteReader r(buffer);
          r.skip(start);
          const std::span<const std::uint8_t> body = prefix == 1   ? r.vector8()
                                                     : prefix == 2 ? r.vector16()
                                                                   : r.vector24();
          EXPECT_EQ(r.ok(), fits);
          EXPECT_EQ(body.size(), fits ? length : 0);
          if (fits) {
            EXPECT_EQ(body.data(), buffer.data() + start + prefix);
          }
        }
      }
    }
  }
}

// A WriteOp is one write (which writes all of its bytes or none), or a vector: several
// writes, of which those before the one that does not fit do land.
struct WriteOp {
  const char* name;
  std::size_t width;
  void (*write)(ByteWriter&);
  bool single_write = true;
};

constexpr WriteOp kWriteOps[] = {
    {"u8", 1, [](ByteWriter& w) { w.u8(0x5A); }},
    {"u16be", 2, [](ByteWriter& w) { w.u16be(0x5A5A); }},
    {"u24be", 3, [](ByteWriter& w) { w.u24be(0x5A5A5A); }},
    {"u32be", 4, [](ByteWriter& w) { w.u32be(0x5A5A5A5A); }},
    {"u48be", 6, [](ByteWriter& w) { w.u48be(0x5A5A5A5A5A5A); }},
    {"u64be", 8, [](ByteWriter& w) { w.u64be(0x5A5A5A5A5A5A5A5A); }},
    {"u16le", 2, [](ByteWriter& w) { w.u16le(0x5A5A); }},
    {"u32le", 4, [](ByteWriter& w) { w.u32le(0x5A5A5A5A); }},
    {"u64le", 8, [](ByteWriter& w) { w.u64le(0x5A5A5A5A5A5A5A5A); }},
    {"zeros(5)", 5, [](ByteWriter& w) { w.zeros(5); }},
    {"reserve(7)", 7, [](ByteWriter& w) { static_cast<void>(w.reserve(7)); }},
    {"vector8 of 2", 3,
     [](ByteWriter& w) {
       const auto mark = w.begin_vector8();
       w.u16be(0x5A5A);
       w.end_vector(mark);
     },
     false},
    {"vector24 of 1", 4,
     [](ByteWriter& w) {
       const auto mark = w.begin_vector24();
       w.u8(0x5A);
       w.end_vector(mark);
     },
     false},
};

TEST(ByteWriter, EveryWidthAtEveryOffsetOfSmallBuffers) {
  for (std::size_t n = 0; n <= 16; ++n) {
    for (const WriteOp& op : kWriteOps) {
      for (std::size_t start = 0; start <= n; ++start) {
        SCOPED_TRACE(testing::Message() << op.name << " at " << start << " of " << n);
        Bytes buffer = exact_buffer(n);
        const Bytes before(buffer.data(), buffer.data() + n);
        ByteWriter w(buffer);
        w.reserve(start);  // leaves the first `start` bytes as they are
        ASSERT_TRUE(w.ok());
        op.write(w);
        const Bytes after(buffer.data(), buffer.data() + n);
        if (start + op.width <= n) {
          EXPECT_TRUE(w.ok());
          EXPECT_EQ(w.size(), start + op.width);
          // Nothing outside the field changed.
          EXPECT_EQ(Bytes(after.begin(), after.begin() + static_cast<std::ptrdiff_t>(start)),
                    Bytes(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(start)));
          const auto field_end = static_cast<std::ptrdiff_t>(start + op.width);
          EXPECT_EQ(Bytes(after.begin() + field_end, after.end()),
                    Bytes(before.begin() + field_end, before.end()));
        } else if (op.single_write) {
          EXPECT_FALSE(w.ok());
          EXPECT_EQ(w.size(), start);
          EXPECT_EQ(after, before);  // a write that does not fit writes nothing
        } else {
          EXPECT_FALSE(w.ok());
          EXPECT_LT(w.size(), start + op.width);
          EXPECT_EQ(Bytes(after.begin(), after.begin() + static_cast<std::ptrdiff_t>(start)),
                    Bytes(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(start)));
        }
      }
    }
  }
}

// --- compile time ---

constexpr bool reads_at_compile_time() {
  constexpr std::array<std::uint8_t, 4> bytes = {0x02, 0xAA, 0xBB, 0xCC};
  ByteReader r(bytes);
  ByteReader body = r.sub_vector8();
  return body.bytes(2).size() == 2 && body.done() && r.u8() == 0xCC && r.done() && r.u8() == 0 &&
         !r.ok();
}
static_assert(reads_at_compile_time());

constexpr bool writes_at_compile_time() {
  std::array<std::uint8_t, 3> buffer{};
  ByteWriter w(buffer);
  w.u8(1);
  w.zeros(1);
  w.u8(2);
  w.u8(3);  // one too many
  return !w.ok() && w.size() == 3 && buffer[0] == 1 && buffer[2] == 2;
}
static_assert(writes_at_compile_time());

}  // namespace
}  // namespace wireseal
