// The handshake-message codec (wireseal/dtls/handshake/): the fragment walk of RFC 6347 §4.2.2
// and the ClientHello / ServerHello parsers, on hand-built messages, well formed and not.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "wireseal/dtls/handshake/client_hello.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/handshake/server_hello.h"

namespace wireseal::dtls {
namespace {

using Bytes = std::vector<std::uint8_t>;

void append(Bytes& out, const Bytes& more) { out.insert(out.end(), more.begin(), more.end()); }

// fragment is one handshake header plus `body`: msg_type, length, message_seq,
// fragment_offset, fragment_length (= body.size()).
Bytes fragment(std::uint8_t type, std::uint32_t length, std::uint16_t seq, std::uint32_t offset,
               const Bytes& body) {
  const auto u24 = [](std::uint32_t v) {
    return Bytes{static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 8),
                 static_cast<std::uint8_t>(v)};
  };
  Bytes out = {type};
  append(out, u24(length));
  append(out, {static_cast<std::uint8_t>(seq >> 8), static_cast<std::uint8_t>(seq)});
  append(out, u24(offset));
  append(out, u24(static_cast<std::uint32_t>(body.size())));
  append(out, body);
  return out;
}

Bytes random_of(std::uint8_t first) {
  Bytes random(kHelloRandomSize);
  for (std::size_t i = 0; i < random.size(); ++i) {
    random[i] = static_cast<std::uint8_t>(first + i);
  }
  return random;
}

// --- HandshakeReader ---

TEST(DtlsHandshakeReader, WalksEveryFragmentOfARecord) {
  Bytes record = fragment(2, 3, 1, 0, {0xA, 0xB, 0xC});
  append(record, fragment(11, 10, 2, 4, {0xD, 0xE}));
  HandshakeReader reader(record);
  Result<HandshakeFragment> first = reader.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->msg_type, 2u);
  EXPECT_EQ(first->length, 3u);
  EXPECT_EQ(first->message_seq, 1u);
  EXPECT_EQ(first->fragment_offset, 0u);
  EXPECT_EQ(Bytes(first->body.begin(), first->body.end()), Bytes({0xA, 0xB, 0xC}));
  EXPECT_TRUE(first->complete());
  EXPECT_EQ(first->body.data(), record.data() + kHandshakeHeaderSize);  // never copies
  Result<HandshakeFragment> second = reader.next();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->msg_type, 11u);
  EXPECT_EQ(second->length, 10u);
  EXPECT_EQ(second->message_seq, 2u);
  EXPECT_EQ(second->fragment_offset, 4u);
  EXPECT_FALSE(second->complete());
  EXPECT_TRUE(reader.done());
  EXPECT_EQ(reader.next().error(), Error::kBadState);
}

TEST(DtlsHandshakeReader, FragmentEndingExactlyAtItsMessageEnd) {
  const Bytes record = fragment(1, 6, 0, 4, {0x1, 0x2});
  HandshakeReader reader(record);
  EXPECT_TRUE(reader.next());
}

TEST(DtlsHandshakeReader, TruncatedHeaderIsMalformedAndEndsTheWalk) {
  Bytes record = fragment(2, 1, 0, 0, {0x1});
  const Bytes truncated(record.begin(), record.begin() + kHandshakeHeaderSize - 1);
  HandshakeReader reader(truncated);
  EXPECT_EQ(reader.next().error(), Error::kMalformed);
  EXPECT_TRUE(reader.done());
}

TEST(DtlsHandshakeReader, FragmentPastTheRecordIsMalformed) {
  Bytes record = fragment(2, 4, 0, 0, {0x1, 0x2, 0x3, 0x4});
  record.pop_back();
  HandshakeReader reader(record);
  EXPECT_EQ(reader.next().error(), Error::kMalformed);
  EXPECT_TRUE(reader.done());
}

TEST(DtlsHandshakeReader, FragmentPastItsMessageIsMalformed) {
  const Bytes record = fragment(2, 5, 0, 4, {0x1, 0x2});  // bytes 4..5 of a 5-byte message
  HandshakeReader reader(record);
  EXPECT_EQ(reader.next().error(), Error::kMalformed);
  EXPECT_TRUE(reader.done());
}

TEST(DtlsHandshakeReader, MalformedSecondFragmentKeepsTheFirst) {
  Bytes record = fragment(2, 1, 0, 0, {0x1});
  append(record, {0x0B, 0x00});  // a header cut short
  HandshakeReader reader(record);
  EXPECT_TRUE(reader.next());
  EXPECT_EQ(reader.next().error(), Error::kMalformed);
  EXPECT_TRUE(reader.done());
}

// --- ClientHello ---

// client_hello is version, random, then session_id<1>, cookie<1>, cipher_suites<2>,
// compression_methods<1> and `tail` (the extensions block, or anything else).
Bytes client_hello(const Bytes& tail) {
  Bytes body = {0xFE, 0xFD};
  append(body, random_of(0x10));
  append(body, {0x02, 0xAA, 0xBB});                    // session_id
  append(body, {0x00});                                // cookie
  append(body, {0x00, 0x04, 0xC0, 0x2B, 0xC0, 0x2F});  // cipher_suites
  append(body, {0x01, 0x00});                          // compression_methods
  append(body, tail);
  return body;
}

TEST(DtlsClientHello, WithoutExtensions) {
  Result<ClientHello> hello = parse_client_hello(client_hello({}));
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->version, 0xFEFDu);
  EXPECT_EQ(Bytes(hello->random.begin(), hello->random.end()), random_of(0x10));
}

TEST(DtlsClientHello, WithExtensions) {
  EXPECT_TRUE(parse_client_hello(client_hello({0x00, 0x04, 0x00, 0x17, 0x00, 0x00})));
}

TEST(DtlsClientHello, EveryTruncationIsMalformed) {
  const Bytes whole = client_hello({0x00, 0x04, 0x00, 0x17, 0x00, 0x00});
  for (std::size_t n = 0; n < whole.size(); ++n) {
    SCOPED_TRACE(n);
    // Cutting exactly before the extensions leaves a valid hello with none.
    const bool valid = n == whole.size() - 6;
    EXPECT_EQ(static_cast<bool>(parse_client_hello({whole.data(), n})), valid);
  }
}

TEST(DtlsClientHello, TrailingBytesAreMalformed) {
  EXPECT_EQ(parse_client_hello(client_hello({0x00, 0x00, 0x00})).error(), Error::kMalformed);
  EXPECT_EQ(parse_client_hello(client_hello({0x00})).error(), Error::kMalformed);
}

// --- ServerHello ---

// server_hello is version, random, session_id<1>, cipher_suite, compression_method, `tail`.
Bytes server_hello(const Bytes& tail) {
  Bytes body = {0xFE, 0xFD};
  append(body, random_of(0x40));
  append(body, {0x01, 0x77});  // session_id
  append(body, {0xC0, 0x2F});  // cipher_suite
  append(body, {0x00});        // compression_method
  append(body, tail);
  return body;
}

TEST(DtlsServerHello, WithoutExtensions) {
  Result<ServerHello> hello = parse_server_hello(server_hello({}));
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->version, 0xFEFDu);
  EXPECT_EQ(Bytes(hello->random.begin(), hello->random.end()), random_of(0x40));
  EXPECT_EQ(hello->cipher_suite, 0xC02Fu);
  EXPECT_FALSE(hello->extensions.encrypt_then_mac);
  EXPECT_FALSE(hello->extensions.extended_master_secret);
}

TEST(DtlsServerHello, RecordLayerExtensions) {
  // renegotiation_info (0xFF01, 1 byte), encrypt_then_mac (22), extended_master_secret (23).
  const Bytes extensions = {0x00, 0x0D, 0xFF, 0x01, 0x00, 0x01, 0x00, 0x00,
                            0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00};
  Result<ServerHello> hello = parse_server_hello(server_hello(extensions));
  ASSERT_TRUE(hello);
  EXPECT_TRUE(hello->extensions.encrypt_then_mac);
  EXPECT_TRUE(hello->extensions.extended_master_secret);

  Result<ServerHello> ems_only =
      parse_server_hello(server_hello({0x00, 0x04, 0x00, 0x17, 0x00, 0x00}));
  ASSERT_TRUE(ems_only);
  EXPECT_FALSE(ems_only->extensions.encrypt_then_mac);
  EXPECT_TRUE(ems_only->extensions.extended_master_secret);
}

TEST(DtlsServerHello, EmptyExtensionsBlock) {
  EXPECT_TRUE(parse_server_hello(server_hello({0x00, 0x00})));
}

TEST(DtlsServerHello, MalformedExtensions) {
  // An extension whose data runs past the block.
  EXPECT_EQ(parse_server_hello(server_hello({0x00, 0x04, 0x00, 0x16, 0x00, 0x01})).error(),
            Error::kMalformed);
  // A block with a stray byte after its last extension.
  EXPECT_EQ(parse_server_hello(server_hello({0x00, 0x05, 0x00, 0x16, 0x00, 0x00, 0x00})).error(),
            Error::kMalformed);
  // A block longer than the body.
  EXPECT_EQ(parse_server_hello(server_hello({0x00, 0x08, 0x00, 0x16, 0x00, 0x00})).error(),
            Error::kMalformed);
  // Bytes after the block.
  EXPECT_EQ(parse_server_hello(server_hello({0x00, 0x00, 0x00})).error(), Error::kMalformed);
  // A block length cut short.
  EXPECT_EQ(parse_server_hello(server_hello({0x00})).error(), Error::kMalformed);
}

TEST(DtlsServerHello, EveryTruncationBeforeTheExtensionsIsMalformed) {
  const Bytes whole = server_hello({});
  for (std::size_t n = 0; n < whole.size(); ++n) {
    SCOPED_TRACE(n);
    EXPECT_EQ(parse_server_hello({whole.data(), n}).error(), Error::kMalformed);
  }
}

}  // namespace
}  // namespace wireseal::dtls
