// Every DTLS 1.2 handshake-message codec (wireseal/dtls/handshake/): write then parse gives
// back every field; every truncation and every trailing byte is malformed; fields outside
// their grammar's bounds are refused on both sides; short buffers say so. (The interop test
// parses OpenSSL's own messages with the same codecs.)
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "wireseal/dtls/handshake/certificate.h"
#include "wireseal/dtls/handshake/certificate_request.h"
#include "wireseal/dtls/handshake/certificate_verify.h"
#include "wireseal/dtls/handshake/client_hello.h"
#include "wireseal/dtls/handshake/client_key_exchange.h"
#include "wireseal/dtls/handshake/extensions.h"
#include "wireseal/dtls/handshake/finished.h"
#include "wireseal/dtls/handshake/hello_verify_request.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/handshake/new_session_ticket.h"
#include "wireseal/dtls/handshake/server_hello.h"
#include "wireseal/dtls/handshake/server_hello_done.h"
#include "wireseal/dtls/handshake/server_key_exchange.h"

namespace wireseal::dtls {
namespace {

using Bytes = std::vector<std::uint8_t>;
using Span = std::span<const std::uint8_t>;

Bytes bytes_of(Span s) { return Bytes(s.begin(), s.end()); }
Bytes filled(std::size_t n, std::uint8_t first) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::uint8_t>(first + i);
  }
  return b;
}
std::vector<std::uint16_t> values_of(const U16List& list) {
  std::vector<std::uint16_t> v;
  for (std::size_t i = 0; i < list.size(); ++i) {
    v.push_back(list[i]);
  }
  return v;
}

// encode runs a writer into a generous buffer, then checks that one byte less is refused.
template <class Write>
Bytes encode(Write write) {
  Bytes out(70000);
  Result<std::size_t> n = write(std::span<std::uint8_t>(out));
  EXPECT_TRUE(n) << to_string(n.error());
  if (!n) {
    return {};
  }
  out.resize(*n);
  Bytes short_buffer(*n == 0 ? 0 : *n - 1);
  if (*n != 0) {
    EXPECT_EQ(write(std::span<std::uint8_t>(short_buffer)).error(), Error::kBufferTooSmall);
  }
  return out;
}

// every_cut_fails: each strict prefix of `body` and `body` plus one byte fail to parse, except
// prefixes `allowed` says are complete messages themselves.
template <class Parse>
void every_cut_fails(const Bytes& body, Parse parse,
                     const std::function<bool(std::size_t)>& allowed = {}) {
  for (std::size_t n = 0; n < body.size(); ++n) {
    if (allowed && allowed(n)) {
      continue;
    }
    SCOPED_TRACE(n);
    EXPECT_FALSE(parse(Span(body.data(), n)));
  }
  Bytes longer = body;
  longer.push_back(0);
  EXPECT_FALSE(parse(Span(longer)));
}

// --- extensions ---

const std::array<std::uint16_t, 3> kGroups = {29, 23, 24};
const std::array<std::uint16_t, 4> kSchemes = {0x0403, 0x0503, 0x0804, 0x0401};
const std::array<std::uint16_t, 2> kProfiles = {0x0007, 0x0001};
const Bytes kHost = {'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'o', 'r', 'g'};
const Bytes kAlpn = {4, 'w', 'e', 'b', 'r', 2, 'c', '1'};
const Bytes kPointFormats = {0};
const Bytes kMki = {0xAB, 0xCD};
const Bytes kTicket = filled(40, 0x30);
const Bytes kCid = {1, 2, 3, 4};
const Bytes kRenegotiated = filled(12, 0x60);

HelloExtensions every_extension() {
  HelloExtensions e;
  e.has_server_name = true;
  e.host_name = kHost;
  e.supported_groups = kGroups;
  e.ec_point_formats = kPointFormats;
  e.signature_algorithms = kSchemes;
  e.has_use_srtp = true;
  e.srtp_profiles = kProfiles;
  e.srtp_mki = kMki;
  e.alpn_protocols = kAlpn;
  e.encrypt_then_mac = true;
  e.extended_master_secret = true;
  e.has_session_ticket = true;
  e.session_ticket = kTicket;
  e.has_connection_id = true;
  e.connection_id = kCid;
  e.has_renegotiation_info = true;
  e.renegotiated_connection = kRenegotiated;
  return e;
}

void expect_every_extension(const HelloExtensions& e) {
  EXPECT_TRUE(e.has_server_name);
  EXPECT_EQ(bytes_of(e.host_name), kHost);
  EXPECT_EQ(values_of(e.supported_groups),
            std::vector<std::uint16_t>(kGroups.begin(), kGroups.end()));
  EXPECT_EQ(bytes_of(e.ec_point_formats), kPointFormats);
  EXPECT_EQ(values_of(e.signature_algorithms),
            std::vector<std::uint16_t>(kSchemes.begin(), kSchemes.end()));
  EXPECT_TRUE(e.has_use_srtp);
  EXPECT_EQ(values_of(e.srtp_profiles),
            std::vector<std::uint16_t>(kProfiles.begin(), kProfiles.end()));
  EXPECT_EQ(bytes_of(e.srtp_mki), kMki);
  EXPECT_EQ(bytes_of(e.alpn_protocols), kAlpn);
  EXPECT_TRUE(e.encrypt_then_mac);
  EXPECT_TRUE(e.extended_master_secret);
  EXPECT_TRUE(e.has_session_ticket);
  EXPECT_EQ(bytes_of(e.session_ticket), kTicket);
  EXPECT_TRUE(e.has_connection_id);
  EXPECT_EQ(bytes_of(e.connection_id), kCid);
  EXPECT_TRUE(e.has_renegotiation_info);
  EXPECT_EQ(bytes_of(e.renegotiated_connection), kRenegotiated);
}

TEST(DtlsHelloExtensions, EveryExtensionRoundTrips) {
  const Bytes block = encode(
      [](std::span<std::uint8_t> out) { return write_hello_extensions(every_extension(), out); });
  ASSERT_GE(block.size(), 2u);
  Result<HelloExtensions> parsed = parse_hello_extensions(Span(block).subspan(2));
  ASSERT_TRUE(parsed);
  expect_every_extension(*parsed);
  EXPECT_TRUE(parsed->supported_groups.contains(23));
  EXPECT_FALSE(parsed->supported_groups.contains(25));
}

TEST(DtlsHelloExtensions, NoneWrittenIsAnEmptyBlock) {
  EXPECT_EQ(encode([](std::span<std::uint8_t> out) {
              return write_hello_extensions(HelloExtensions{}, out);
            }),
            Bytes({0, 0}));
  Result<HelloExtensions> parsed = parse_hello_extensions({});
  ASSERT_TRUE(parsed);
  EXPECT_FALSE(parsed->has_use_srtp || parsed->extended_master_secret ||
               parsed->has_renegotiation_info || parsed->has_server_name);
}

TEST(DtlsHelloExtensions, ServerAcknowledgementsAreEmpty) {
  // A server's server_name and an empty renegotiation_info (RFC 5746 initial handshake).
  HelloExtensions ack;
  ack.has_server_name = true;
  ack.has_renegotiation_info = true;
  const Bytes block =
      encode([&](std::span<std::uint8_t> out) { return write_hello_extensions(ack, out); });
  EXPECT_EQ(block, Bytes({0, 9, 0, 0, 0, 0, 0xFF, 0x01, 0, 1, 0}));
  Result<HelloExtensions> parsed = parse_hello_extensions(Span(block).subspan(2));
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->has_server_name);
  EXPECT_TRUE(parsed->host_name.empty());
  EXPECT_TRUE(parsed->has_renegotiation_info);
  EXPECT_TRUE(parsed->renegotiated_connection.empty());
}

TEST(DtlsHelloExtensions, UnknownExtensionsAreSkipped) {
  const Bytes block = {0x12, 0x34, 0, 3, 1, 2, 3, 0, 23, 0, 0, 0x12, 0x35, 0, 0};
  Result<HelloExtensions> parsed = parse_hello_extensions(block);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->extended_master_secret);
}

// extensions_of_types: one empty extension of each type.
Bytes extensions_of_types(std::uint16_t first, std::size_t count) {
  Bytes block;
  for (std::size_t i = 0; i < count; ++i) {
    const auto type = static_cast<std::uint16_t>(first + i);
    block.insert(block.end(),
                 {static_cast<std::uint8_t>(type >> 8), static_cast<std::uint8_t>(type), 0, 0});
  }
  return block;
}

// RFC 5246 §7.4.1.4: no extension type twice, known or not.
TEST(DtlsHelloExtensions, AnyExtensionTwiceIsMalformed) {
  EXPECT_EQ(parse_hello_extensions(Bytes({0, 23, 0, 0, 0, 23, 0, 0})).error(), Error::kMalformed);
  EXPECT_EQ(
      parse_hello_extensions(Bytes({0, 10, 0, 4, 0, 2, 0, 29, 0, 10, 0, 4, 0, 2, 0, 23})).error(),
      Error::kMalformed);
  EXPECT_EQ(
      parse_hello_extensions(Bytes({0x12, 0x34, 0, 1, 7, 0, 23, 0, 0, 0x12, 0x34, 0, 0})).error(),
      Error::kMalformed);
  // Unknown types are remembered up to 128 of them; one more is refused, not skipped.
  EXPECT_TRUE(parse_hello_extensions(extensions_of_types(0x4000, 128)));
  EXPECT_EQ(parse_hello_extensions(extensions_of_types(0x4000, 129)).error(), Error::kMalformed);
}

// supported_versions (a DTLS 1.3 peer's) is kept as its raw body for the flows to judge.
TEST(DtlsHelloExtensions, SupportedVersionsKeptRaw) {
  const Bytes block = {0, 43, 0, 5, 4, 0xfe, 0xfc, 0xfe, 0xfd};
  Result<HelloExtensions> parsed = parse_hello_extensions(block);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->has_supported_versions);
  EXPECT_EQ(Bytes(parsed->supported_versions.begin(), parsed->supported_versions.end()),
            Bytes({4, 0xfe, 0xfc, 0xfe, 0xfd}));
}

TEST(DtlsHelloExtensions, BadInnerSyntaxIsMalformed) {
  const std::vector<Bytes> bad = {
      {0, 23, 0, 1, 0},                  // extended_master_secret with data
      {0, 22, 0, 1, 0},                  // encrypt_then_mac with data
      {0, 10, 0, 2, 0, 0},               // supported_groups: empty list
      {0, 10, 0, 3, 0, 1, 29},           // supported_groups: odd length
      {0, 10, 0, 5, 0, 2, 0, 29, 0},     // supported_groups: a byte after the list
      {0, 11, 0, 1, 0},                  // ec_point_formats: empty list
      {0, 13, 0, 2, 0, 0},               // signature_algorithms: empty list
      {0, 14, 0, 4, 0, 2, 0, 1},         // use_srtp: no MKI length
      {0, 14, 0, 3, 0, 0, 0},            // use_srtp: no profile
      {0, 16, 0, 2, 0, 0},               // alpn: empty list
      {0, 16, 0, 4, 0, 2, 0, 1},         // alpn: an empty name
      {0, 16, 0, 5, 0, 3, 5, 'a', 'b'},  // alpn: a name past its list
      {0, 0, 0, 5, 0, 3, 0, 0, 0},       // server_name: an empty host_name
      {0, 0, 0, 2, 0, 0},                // server_name: an empty list
      {0, 54, 0, 2, 3, 1},               // connection_id: past its data
      {0xFF, 0x01, 0, 0},                // renegotiation_info: no length byte
      {0xFF, 0x01, 0, 2, 0, 0},          // renegotiation_info: a byte after it
  };
  for (const Bytes& block : bad) {
    SCOPED_TRACE(::testing::PrintToString(block));
    EXPECT_EQ(parse_hello_extensions(block).error(), Error::kMalformed);
  }
}

TEST(DtlsHelloExtensions, TwoHostNamesAreMalformedOtherNameTypesSkipped) {
  EXPECT_EQ(parse_hello_extensions(Bytes({0, 0, 0, 10, 0, 8, 0, 0, 1, 'a', 0, 0, 1, 'b'})).error(),
            Error::kMalformed);
  const Bytes future_type_first = {0, 0, 0, 10, 0, 8, 7, 0, 1, 'x', 0, 0, 1, 'a'};
  Result<HelloExtensions> other = parse_hello_extensions(future_type_first);
  ASSERT_TRUE(other);
  EXPECT_EQ(bytes_of(other->host_name), Bytes({'a'}));
}

TEST(DtlsHelloExtensions, UnencodableFieldsAreRefused) {
  Bytes out(1024);
  HelloExtensions no_profile;
  no_profile.has_use_srtp = true;
  EXPECT_EQ(write_hello_extensions(no_profile, out).error(), Error::kInvalidArgument);
  HelloExtensions bad_alpn;
  const Bytes not_a_list = {5, 'a'};
  bad_alpn.alpn_protocols = not_a_list;
  EXPECT_EQ(write_hello_extensions(bad_alpn, out).error(), Error::kInvalidArgument);
  HelloExtensions long_cid;
  const Bytes cid(256, 1);
  long_cid.has_connection_id = true;
  long_cid.connection_id = cid;
  EXPECT_EQ(write_hello_extensions(long_cid, out).error(), Error::kInvalidArgument);
}

TEST(DtlsHelloExtensions, AlpnWalkerYieldsEachName) {
  AlpnWalker walker(kAlpn);
  Span name;
  ASSERT_TRUE(walker.next(name));
  EXPECT_EQ(bytes_of(name), Bytes({'w', 'e', 'b', 'r'}));
  ASSERT_TRUE(walker.next(name));
  EXPECT_EQ(bytes_of(name), Bytes({'c', '1'}));
  EXPECT_FALSE(walker.next(name));
}

// --- hellos ---

const std::array<std::uint16_t, 3> kSuites = {0xC02B, 0xC02F, 0x00FF};
const Bytes kSessionId = filled(32, 0x90);
const Bytes kCookie = filled(20, 0xC0);
const Bytes kNullCompression = {0};

ClientHello full_client_hello(const HelloExtensions& extensions) {
  ClientHello hello;
  hello.version = 0xFEFD;
  for (std::size_t i = 0; i < hello.random.size(); ++i) {
    hello.random[i] = static_cast<std::uint8_t>(i);
  }
  hello.session_id = kSessionId;
  hello.cookie = kCookie;
  hello.cipher_suites = kSuites;
  hello.compression_methods = kNullCompression;
  hello.extensions = extensions;
  return hello;
}

TEST(DtlsClientHelloCodec, RoundTripsEveryField) {
  const ClientHello hello = full_client_hello(every_extension());
  const Bytes body =
      encode([&](std::span<std::uint8_t> out) { return write_client_hello(hello, out); });
  Result<ClientHello> parsed = parse_client_hello(body);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->version, 0xFEFDu);
  EXPECT_EQ(parsed->random, hello.random);
  EXPECT_EQ(bytes_of(parsed->session_id), kSessionId);
  EXPECT_EQ(bytes_of(parsed->cookie), kCookie);
  EXPECT_EQ(values_of(parsed->cipher_suites),
            std::vector<std::uint16_t>(kSuites.begin(), kSuites.end()));
  EXPECT_EQ(bytes_of(parsed->compression_methods), kNullCompression);
  expect_every_extension(parsed->extensions);
  EXPECT_EQ(parsed->session_id.data(), body.data() + 2 + 32 + 1);  // views, never copies
  // Every cut is malformed except the one just before the extensions vector.
  const std::size_t fixed = 2 + 32 + 33 + 21 + 8 + 2;
  every_cut_fails(body, parse_client_hello, [&](std::size_t n) { return n == fixed; });
}

TEST(DtlsClientHelloCodec, FieldBoundsOnBothSides) {
  Bytes out(4096);
  ClientHello hello = full_client_hello({});
  const Bytes long_session(33, 1);
  hello.session_id = long_session;
  EXPECT_EQ(write_client_hello(hello, out).error(), Error::kInvalidArgument);
  hello = full_client_hello({});
  hello.cipher_suites = {};
  EXPECT_EQ(write_client_hello(hello, out).error(), Error::kInvalidArgument);
  hello = full_client_hello({});
  hello.compression_methods = {};
  EXPECT_EQ(write_client_hello(hello, out).error(), Error::kInvalidArgument);

  // A 33-byte session_id and an empty compression list, parsed.
  Bytes body = {0xFE, 0xFD};
  const Bytes random(32, 0);
  body.insert(body.end(), random.begin(), random.end());
  body.push_back(33);
  body.insert(body.end(), 33, 0x11);
  const Bytes rest = {0, 0, 2, 0xC0, 0x2B, 1, 0};
  body.insert(body.end(), rest.begin(), rest.end());
  EXPECT_EQ(parse_client_hello(body).error(), Error::kMalformed);
  Bytes no_compression = {0xFE, 0xFD};
  no_compression.insert(no_compression.end(), random.begin(), random.end());
  const Bytes tail = {0, 0, 0, 2, 0xC0, 0x2B, 0};
  no_compression.insert(no_compression.end(), tail.begin(), tail.end());
  EXPECT_EQ(parse_client_hello(no_compression).error(), Error::kMalformed);
}

TEST(DtlsServerHelloCodec, RoundTripsEveryField) {
  ServerHello hello;
  hello.version = 0xFEFD;
  hello.random.fill(0x42);
  hello.session_id = kSessionId;
  hello.cipher_suite = 0xC02B;
  hello.extensions = every_extension();
  const Bytes body =
      encode([&](std::span<std::uint8_t> out) { return write_server_hello(hello, out); });
  Result<ServerHello> parsed = parse_server_hello(body);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->version, 0xFEFDu);
  EXPECT_EQ(parsed->random, hello.random);
  EXPECT_EQ(bytes_of(parsed->session_id), kSessionId);
  EXPECT_EQ(parsed->cipher_suite, 0xC02Bu);
  EXPECT_EQ(parsed->compression_method, 0u);
  expect_every_extension(parsed->extensions);
  const std::size_t fixed = 2 + 32 + 33 + 2 + 1;
  every_cut_fails(body, parse_server_hello, [&](std::size_t n) { return n == fixed; });
}

// --- the other messages ---

TEST(DtlsHelloVerifyRequestCodec, RoundTripAndCuts) {
  const HelloVerifyRequest request{0xFEFF, kCookie};
  const Bytes body =
      encode([&](std::span<std::uint8_t> out) { return write_hello_verify_request(request, out); });
  EXPECT_EQ(body.size(), 2 + 1 + kCookie.size());
  Result<HelloVerifyRequest> parsed = parse_hello_verify_request(body);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->server_version, 0xFEFFu);
  EXPECT_EQ(bytes_of(parsed->cookie), kCookie);
  every_cut_fails(body, parse_hello_verify_request);
  const Bytes too_long(256, 1);
  Bytes out(512);
  EXPECT_EQ(write_hello_verify_request({0xFEFD, too_long}, out).error(), Error::kInvalidArgument);
}

TEST(DtlsCertificateCodec, ChainRoundTripsInOrder) {
  const Bytes leaf = filled(300, 1);
  const Bytes issuer = filled(200, 7);
  const std::array<Span, 2> chain = {leaf, issuer};
  const Bytes body =
      encode([&](std::span<std::uint8_t> out) { return write_certificate(chain, out); });
  EXPECT_EQ(body.size(), 3 + 3 + 300 + 3 + 200);
  Result<Certificate> parsed = parse_certificate(body);
  ASSERT_TRUE(parsed);
  CertificateWalker walker(*parsed);
  Span der;
  ASSERT_TRUE(walker.next(der));
  EXPECT_EQ(bytes_of(der), leaf);
  ASSERT_TRUE(walker.next(der));
  EXPECT_EQ(bytes_of(der), issuer);
  EXPECT_FALSE(walker.next(der));
  every_cut_fails(body, parse_certificate);
}

TEST(DtlsCertificateCodec, EmptyListIsValidEmptyEntryIsNot) {
  EXPECT_TRUE(parse_certificate(Bytes({0, 0, 0})));
  EXPECT_EQ(parse_certificate(Bytes({0, 0, 3, 0, 0, 0})).error(), Error::kMalformed);
  Bytes out(16);
  const std::array<Span, 1> empty_entry = {Span{}};
  EXPECT_EQ(write_certificate(empty_entry, out).error(), Error::kInvalidArgument);
}

const Bytes kPoint = filled(65, 0x04);
const Bytes kSignature = filled(71, 0x30);
const Bytes kHint = {'h', 'i', 'n', 't'};

TEST(DtlsServerKeyExchangeCodec, EcdheIsSignedParams) {
  ServerKeyExchange m;
  m.named_group = 23;
  m.public_key = kPoint;
  m.signature_scheme = 0x0403;
  m.signature = kSignature;
  const Bytes body = encode([&](std::span<std::uint8_t> out) {
    return write_server_key_exchange(KeyExchange::kEcdhe, m, out);
  });
  Result<ServerKeyExchange> parsed = parse_server_key_exchange(KeyExchange::kEcdhe, body);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->named_group, 23u);
  EXPECT_EQ(bytes_of(parsed->public_key), kPoint);
  EXPECT_EQ(parsed->signature_scheme, 0x0403u);
  EXPECT_EQ(bytes_of(parsed->signature), kSignature);
  const Bytes params = encode(
      [&](std::span<std::uint8_t> out) { return write_server_ecdh_params(23, kPoint, out); });
  EXPECT_EQ(bytes_of(parsed->signed_params), params);
  EXPECT_EQ(parsed->signed_params.data(), body.data());
  EXPECT_EQ(Bytes(params.begin(), params.begin() + 4), Bytes({kNamedCurve, 0, 23, 65}));
  every_cut_fails(body, [](Span b) { return parse_server_key_exchange(KeyExchange::kEcdhe, b); });
}

TEST(DtlsServerKeyExchangeCodec, PskAndEcdhePsk) {
  ServerKeyExchange psk;
  psk.psk_identity_hint = kHint;
  const Bytes psk_body = encode([&](std::span<std::uint8_t> out) {
    return write_server_key_exchange(KeyExchange::kPsk, psk, out);
  });
  EXPECT_EQ(psk_body, Bytes({0, 4, 'h', 'i', 'n', 't'}));
  Result<ServerKeyExchange> parsed = parse_server_key_exchange(KeyExchange::kPsk, psk_body);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(bytes_of(parsed->psk_identity_hint), kHint);
  every_cut_fails(psk_body, [](Span b) { return parse_server_key_exchange(KeyExchange::kPsk, b); });

  ServerKeyExchange mixed;
  mixed.psk_identity_hint = kHint;
  mixed.named_group = 29;
  const Bytes x25519 = filled(32, 9);
  mixed.public_key = x25519;
  const Bytes mixed_body = encode([&](std::span<std::uint8_t> out) {
    return write_server_key_exchange(KeyExchange::kEcdhePsk, mixed, out);
  });
  EXPECT_EQ(mixed_body.size(), 2 + 4 + 1 + 2 + 1 + 32);  // no signature
  Result<ServerKeyExchange> parsed_mixed =
      parse_server_key_exchange(KeyExchange::kEcdhePsk, mixed_body);
  ASSERT_TRUE(parsed_mixed);
  EXPECT_EQ(bytes_of(parsed_mixed->psk_identity_hint), kHint);
  EXPECT_EQ(parsed_mixed->named_group, 29u);
  EXPECT_EQ(bytes_of(parsed_mixed->public_key), x25519);
  every_cut_fails(mixed_body,
                  [](Span b) { return parse_server_key_exchange(KeyExchange::kEcdhePsk, b); });
}

TEST(DtlsServerKeyExchangeCodec, OnlyNamedCurvesAndNonEmptyPoints) {
  // explicit_prime (1) and explicit_char2 (2) curve types are refused (RFC 8422 §5.4).
  EXPECT_FALSE(
      parse_server_key_exchange(KeyExchange::kEcdhe, Bytes({1, 0, 23, 1, 4, 4, 3, 0, 1, 0})));
  EXPECT_FALSE(parse_server_key_exchange(KeyExchange::kEcdhe, Bytes({3, 0, 23, 0, 4, 3, 0, 1, 0})));
}

TEST(DtlsClientKeyExchangeCodec, EveryKind) {
  const Bytes identity = {'c', 'l', 'i', 'e', 'n', 't'};
  for (KeyExchange kind : {KeyExchange::kEcdhe, KeyExchange::kPsk, KeyExchange::kEcdhePsk}) {
    SCOPED_TRACE(static_cast<int>(kind));
    ClientKeyExchange m;
    if (kind != KeyExchange::kEcdhe) {
      m.psk_identity = identity;
    }
    if (kind != KeyExchange::kPsk) {
      m.public_key = kPoint;
    }
    const Bytes body = encode(
        [&](std::span<std::uint8_t> out) { return write_client_key_exchange(kind, m, out); });
    Result<ClientKeyExchange> parsed = parse_client_key_exchange(kind, body);
    ASSERT_TRUE(parsed);
    EXPECT_EQ(bytes_of(parsed->psk_identity), bytes_of(m.psk_identity));
    EXPECT_EQ(bytes_of(parsed->public_key), bytes_of(m.public_key));
    every_cut_fails(body, [kind](Span b) { return parse_client_key_exchange(kind, b); });
  }
  Bytes out(8);
  EXPECT_EQ(write_client_key_exchange(KeyExchange::kEcdhe, {}, out).error(),
            Error::kInvalidArgument);  // no point
}

TEST(DtlsCertificateRequestCodec, RoundTripAndBounds) {
  const Bytes types = {kEcdsaSign, kRsaSign};
  const Bytes authorities = {0, 3, 0x30, 0x01, 0x00, 0, 2, 0x30, 0x00};
  const CertificateRequest request{types, U16List(kSchemes), authorities};
  const Bytes body =
      encode([&](std::span<std::uint8_t> out) { return write_certificate_request(request, out); });
  Result<CertificateRequest> parsed = parse_certificate_request(body);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(bytes_of(parsed->certificate_types), types);
  EXPECT_EQ(values_of(parsed->signature_algorithms),
            std::vector<std::uint16_t>(kSchemes.begin(), kSchemes.end()));
  EXPECT_EQ(bytes_of(parsed->certificate_authorities), authorities);
  every_cut_fails(body, parse_certificate_request);
  // An empty CA list is allowed; an empty name inside one is not.
  EXPECT_TRUE(parse_certificate_request(Bytes({1, 64, 0, 2, 4, 3, 0, 0})));
  EXPECT_FALSE(parse_certificate_request(Bytes({1, 64, 0, 2, 4, 3, 0, 2, 0, 0})));
  Bytes out(64);
  const Bytes bad_names = {0, 5, 1};
  EXPECT_EQ(write_certificate_request({types, U16List(kSchemes), bad_names}, out).error(),
            Error::kInvalidArgument);
}

TEST(DtlsServerHelloDoneCodec, OnlyEmpty) {
  EXPECT_TRUE(parse_server_hello_done({}));
  EXPECT_EQ(parse_server_hello_done(Bytes({0})).error(), Error::kMalformed);
}

TEST(DtlsCertificateVerifyCodec, RoundTripAndCuts) {
  const CertificateVerify verify{0x0804, kSignature};
  const Bytes body =
      encode([&](std::span<std::uint8_t> out) { return write_certificate_verify(verify, out); });
  Result<CertificateVerify> parsed = parse_certificate_verify(body);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->signature_scheme, 0x0804u);
  EXPECT_EQ(bytes_of(parsed->signature), kSignature);
  every_cut_fails(body, parse_certificate_verify);
  EXPECT_FALSE(parse_certificate_verify(Bytes({4, 3, 0, 0})));  // an empty signature
}

TEST(DtlsFinishedCodec, ExactlyTwelveBytes) {
  const Bytes verify_data = filled(12, 0xF0);
  Result<Span> parsed = parse_finished(verify_data);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->data(), verify_data.data());
  every_cut_fails(verify_data, parse_finished);
}

TEST(DtlsNewSessionTicketCodec, RoundTripAndCuts) {
  const NewSessionTicket ticket{7200, kTicket};
  const Bytes body =
      encode([&](std::span<std::uint8_t> out) { return write_new_session_ticket(ticket, out); });
  Result<NewSessionTicket> parsed = parse_new_session_ticket(body);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->lifetime_hint_seconds, 7200u);
  EXPECT_EQ(bytes_of(parsed->ticket), kTicket);
  every_cut_fails(body, parse_new_session_ticket);
  EXPECT_TRUE(parse_new_session_ticket(Bytes({0, 0, 0, 0, 0, 0})));  // no ticket issued
}

// --- fragments ---

TEST(DtlsHandshakeFragmentWriter, WholeMessagesAndFragmentsParseBack) {
  const Bytes body = filled(1000, 3);
  Bytes out(1200);
  Result<std::size_t> whole = write_handshake_fragment(11, 4, body, 0, body.size(), out);
  ASSERT_TRUE(whole);
  EXPECT_EQ(*whole, kHandshakeHeaderSize + body.size());
  HandshakeReader reader(Span(out.data(), *whole));
  Result<HandshakeFragment> f = reader.next();
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->complete());
  EXPECT_EQ(f->msg_type, 11u);
  EXPECT_EQ(f->message_seq, 4u);
  EXPECT_EQ(bytes_of(f->body), body);

  // Three fragments reassemble to the message.
  Bytes reassembled(body.size());
  for (std::size_t offset : {0u, 400u, 800u}) {
    const std::size_t len = std::min<std::size_t>(400, body.size() - offset);
    Result<std::size_t> n = write_handshake_fragment(11, 4, body, offset, len, out);
    ASSERT_TRUE(n);
    HandshakeReader part(Span(out.data(), *n));
    Result<HandshakeFragment> p = part.next();
    ASSERT_TRUE(p);
    EXPECT_EQ(p->length, body.size());
    EXPECT_EQ(p->fragment_offset, offset);
    std::copy(p->body.begin(), p->body.end(), reassembled.begin() + static_cast<long>(offset));
  }
  EXPECT_EQ(reassembled, body);

  EXPECT_EQ(write_handshake_fragment(11, 4, body, 900, 101, out).error(), Error::kInvalidArgument);
  EXPECT_EQ(write_handshake_fragment(11, 4, body, 1001, 0, out).error(), Error::kInvalidArgument);
  Bytes small(kHandshakeHeaderSize + 9);
  EXPECT_EQ(write_handshake_fragment(11, 4, body, 0, 10, small).error(), Error::kBufferTooSmall);
}

}  // namespace
}  // namespace wireseal::dtls
