#include "wireseal/dtls/hello_verifier.h"

#include <algorithm>

#include "codec.h"
#include "common/byte_cursor.h"
#include "common/ct.h"
#include "wireseal/crypto/hmac.h"
#include "wireseal/dtls/handshake/hello_verify_request.h"
#include "wireseal/dtls/handshake/message.h"
#include "wireseal/dtls/record.h"

namespace wireseal::dtls {

namespace {

// The ClientHello body split around its cookie: what the MAC covers is everything else.
struct HelloParts {
  std::span<const std::uint8_t> head;  // version, random, session_id
  std::span<const std::uint8_t> cookie;
  std::span<const std::uint8_t> tail;  // cipher suites, compression, extensions
};

bool split_hello(std::span<const std::uint8_t> body, HelloParts& parts) noexcept {
  ByteReader r(body);
  r.skip(2 + kHelloRandomSize);
  const std::span<const std::uint8_t> session_id = r.vector8();
  const std::size_t head_size = r.offset();
  parts.cookie = r.vector8();
  if (!r.ok() || session_id.size() > kMaxSessionIdSize) {
    return false;
  }
  parts.head = body.first(head_size);
  parts.tail = r.rest();
  return true;
}

// The ClientHello a datagram carries, put back together from its fragments.
struct GatheredHello {
  std::uint16_t message_seq = 0;
  std::uint64_t record_sequence = 0;  // of the record with its first fragment
  std::span<const std::uint8_t> body;
};

// take_fragment adds one fragment of the hello to `storage` (covered: how much of the body,
// from its start, is in). Fragments must follow each other in order, overlaps allowed, as
// every implementation sends them; anything else is not a hello we can check.
bool take_fragment(const HandshakeFragment& f, GatheredHello& hello,
                   std::span<std::uint8_t> storage, std::size_t& covered, bool first) noexcept {
  if (f.msg_type != static_cast<std::uint8_t>(HandshakeType::kClientHello) ||
      f.length > storage.size() || f.fragment_offset > covered ||
      (!first && (f.message_seq != hello.message_seq || f.length != hello.body.size()))) {
    return false;
  }
  if (first) {
    hello.message_seq = f.message_seq;
    hello.body = storage.first(f.length);
  }
  // In bounds: the reader keeps offset + size within f.length, which fits the storage.
  std::copy(f.body.begin(), f.body.end(), storage.subspan(f.fragment_offset).begin());
  covered = std::max<std::size_t>(covered, f.fragment_offset + f.body.size());
  return true;
}

// gather_hello reads the datagram's epoch-0 handshake records until the ClientHello they
// carry is whole. A stateless server can only check a hello it sees whole in one datagram,
// and clients fragment theirs into several records of one datagram (OpenSSL over a memory
// BIO, as aiortc runs it, writes records of about 256 bytes).
bool gather_hello(std::span<const std::uint8_t> datagram, std::span<std::uint8_t> storage,
                  GatheredHello& hello) noexcept {
  std::size_t covered = 0;
  bool first = true;
  while (!datagram.empty()) {
    const Result<RecordView> record = parse_record(datagram);
    if (!record || record->type != ContentType::kHandshake || record->epoch != 0) {
      return false;
    }
    datagram = datagram.subspan(record->record.size());
    if (first) {
      hello.record_sequence = record->sequence;
    }
    HandshakeReader reader(record->fragment);
    while (!reader.done()) {
      const Result<HandshakeFragment> fragment = reader.next();
      if (!fragment || !take_fragment(*fragment, hello, storage, covered, first)) {
        return false;
      }
      first = false;
      if (covered == hello.body.size()) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

HelloVerifier::HelloVerifier(std::span<const std::uint8_t, kSecretSize> secret) noexcept {
  std::copy(secret.begin(), secret.end(), current_.bytes.begin());
}

HelloVerifier::~HelloVerifier() {
  wireseal::detail::secure_wipe(current_.bytes.data(), current_.bytes.size());
  wireseal::detail::secure_wipe(previous_.bytes.data(), previous_.bytes.size());
}

void HelloVerifier::rotate(std::span<const std::uint8_t, kSecretSize> secret) noexcept {
  previous_ = current_;
  has_previous_ = true;
  std::copy(secret.begin(), secret.end(), current_.bytes.begin());
  current_.generation = static_cast<std::uint8_t>(previous_.generation + 1);
}

void HelloVerifier::cookie_for(const Secret& secret, std::span<const std::uint8_t> peer_address,
                               std::span<const std::uint8_t> head,
                               std::span<const std::uint8_t> tail,
                               std::span<std::uint8_t, kCookieSize> out) const noexcept {
  const crypto::Hmac mac(crypto::HashAlgorithm::kSha256, secret.bytes);
  crypto::Hmac::Stream stream = mac.begin();
  const std::array<std::uint8_t, 2> address_length{
      static_cast<std::uint8_t>(peer_address.size() >> 8),
      static_cast<std::uint8_t>(peer_address.size())};
  stream.update(address_length);
  stream.update(peer_address);
  stream.update(head);
  stream.update(tail);
  std::array<std::uint8_t, 32> digest{};
  (void)stream.finish(digest);
  out[0] = secret.generation;
  std::copy_n(digest.begin(), kCookieSize - 1, out.begin() + 1);
}

HelloVerifier::Outcome HelloVerifier::check(std::span<const std::uint8_t> peer_address,
                                            std::span<const std::uint8_t> datagram,
                                            std::span<std::uint8_t> reply) const noexcept {
  std::array<std::uint8_t, kMaxHelloSize> storage{};
  GatheredHello hello;
  HelloParts parts;
  if (!gather_hello(datagram, storage, hello) || !split_hello(hello.body, parts)) {
    return {};
  }
  std::array<std::uint8_t, kCookieSize> expected{};
  if (parts.cookie.size() == kCookieSize) {
    const Secret* secret = parts.cookie[0] == current_.generation                     ? &current_
                           : has_previous_ && parts.cookie[0] == previous_.generation ? &previous_
                                                                                      : nullptr;
    if (secret != nullptr) {
      cookie_for(*secret, peer_address, parts.head, parts.tail, expected);
      if (wireseal::detail::ct_equal(expected, parts.cookie)) {
        return {Verdict::kAccept, 0};
      }
    }
  }
  // No cookie, a stale one or a forged one: answer with a fresh cookie (RFC 6347 §4.2.1).
  cookie_for(current_, peer_address, parts.head, parts.tail, expected);
  if (reply.size() < kMaxReplySize) {
    return {};
  }
  const HelloVerifyRequest request{kDtls10Version, expected};
  std::array<std::uint8_t, 3 + kCookieSize> body{};
  const Result<std::size_t> body_size = write_hello_verify_request(request, body);
  const Result<std::size_t> message =
      body_size
          ? write_handshake_fragment(static_cast<std::uint8_t>(HandshakeType::kHelloVerifyRequest),
                                     hello.message_seq, std::span(body).first(*body_size), 0,
                                     *body_size, reply.subspan(kHeaderSize))
          : body_size;
  if (!message) {
    return {};
  }
  // §4.2.1: the reply reuses the ClientHello's record sequence number.
  write_header(ContentType::kHandshake, kDtls10Version, 0, hello.record_sequence, {},
               static_cast<std::uint16_t>(*message), reply.data());
  return {Verdict::kReply, kHeaderSize + *message};
}

}  // namespace wireseal::dtls
