// HandshakeReassembler (src/dtls/handshake/reassembler.h): messages come back whole and in
// order from fragments in any order, repeated and overlapping; disagreeing overlaps, messages
// over the cap, beyond the window or past the storage are refused, and the storage held never
// exceeds what the engine gave.
#include "dtls/handshake/reassembler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace wireseal::dtls::detail {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes message_of(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  std::iota(b.begin(), b.end(), seed);
  return b;
}

HandshakeFragment piece(std::uint8_t type, std::uint16_t seq, const Bytes& body, std::size_t offset,
                        std::size_t length) {
  return {type, static_cast<std::uint32_t>(body.size()), seq, static_cast<std::uint32_t>(offset),
          std::span(body).subspan(offset, length)};
}

Bytes bytes_of(std::span<const std::uint8_t> s) { return Bytes(s.begin(), s.end()); }

TEST(DtlsReassembler, WholeMessagesInOrder) {
  Bytes storage(4096);
  HandshakeReassembler r(storage, 2048);
  const Bytes hello = message_of(70, 1);
  EXPECT_FALSE(r.ready());
  EXPECT_EQ(r.add(piece(2, 0, hello, 0, hello.size())), FragmentOutcome::kAccepted);
  const Bytes done;
  EXPECT_EQ(r.add(piece(14, 1, done, 0, 0)), FragmentOutcome::kAccepted);
  std::optional<HandshakeMessage> m = r.ready();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->msg_type, 2u);
  EXPECT_EQ(m->message_seq, 0u);
  EXPECT_EQ(bytes_of(m->body), hello);
  r.release();
  m = r.ready();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->msg_type, 14u);
  EXPECT_TRUE(m->body.empty());
  r.release();
  EXPECT_FALSE(r.ready());
  EXPECT_EQ(r.next_seq(), 2u);
  EXPECT_EQ(r.bytes_held(), 0u);  // everything released: the storage is free again
  EXPECT_EQ(r.add(piece(2, 1, hello, 0, hello.size())), FragmentOutcome::kOld);
}

TEST(DtlsReassembler, ShuffledOverlappingRepeatedFragmentsOfAFlight) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    Bytes storage(16384);
    HandshakeReassembler r(storage, 8192);
    const std::vector<Bytes> flight = {message_of(90, 3), message_of(3000, 9), message_of(150, 5),
                                       Bytes{}};
    std::vector<HandshakeFragment> fragments;
    for (std::uint16_t seq = 0; seq < flight.size(); ++seq) {
      const Bytes& body = flight[seq];
      // Overlapping pieces of random length, every byte covered, some twice.
      std::size_t at = 0;
      do {
        const std::size_t len = std::min<std::size_t>(body.size() - at, 1 + rng() % 700);
        fragments.push_back(piece(static_cast<std::uint8_t>(11 + seq), seq, body, at, len));
        const std::size_t back = std::min<std::size_t>(len - 1, rng() % 40);
        at += len - (at + len < body.size() ? back : 0);
      } while (at < body.size());
      fragments.push_back(fragments.back());  // a duplicate
    }
    std::shuffle(fragments.begin(), fragments.end(), rng);
    std::vector<Bytes> got;
    for (const HandshakeFragment& f : fragments) {
      // A repeat of a message already released is old news (the signal to retransmit).
      const FragmentOutcome outcome = r.add(f);
      ASSERT_TRUE(outcome == FragmentOutcome::kAccepted ||
                  (outcome == FragmentOutcome::kOld && f.message_seq < r.next_seq()));
      ASSERT_LE(r.bytes_held(), storage.size());
      while (std::optional<HandshakeMessage> m = r.ready()) {
        EXPECT_EQ(m->msg_type, 11 + m->message_seq);
        got.push_back(bytes_of(m->body));
        r.release();
      }
    }
    EXPECT_EQ(got, flight);
  }
}

TEST(DtlsReassembler, DisagreeingBytesRefuseTheWholeFragment) {
  Bytes storage(1024);
  HandshakeReassembler r(storage, 512);
  const Bytes body = message_of(100, 0);
  ASSERT_EQ(r.add(piece(11, 0, body, 0, 60)), FragmentOutcome::kAccepted);
  Bytes forged = body;
  forged[55] ^= 1;
  EXPECT_EQ(r.add(piece(11, 0, forged, 50, 50)), FragmentOutcome::kInconsistent);
  EXPECT_FALSE(r.ready());  // none of the forged fragment's new bytes was kept
  ASSERT_EQ(r.add(piece(11, 0, body, 50, 50)), FragmentOutcome::kAccepted);
  ASSERT_TRUE(r.ready());
  EXPECT_EQ(bytes_of(r.ready()->body), body);
  // Another type or length for the same message_seq.
  EXPECT_EQ(r.add(piece(12, 0, body, 0, 10)), FragmentOutcome::kInconsistent);
  const Bytes longer = message_of(101, 0);
  EXPECT_EQ(r.add(piece(11, 0, longer, 0, 10)), FragmentOutcome::kInconsistent);
}

TEST(DtlsReassembler, BoundsOnSizeWindowAndStorage) {
  Bytes storage(1000);
  HandshakeReassembler r(storage, 600);
  const Bytes big = message_of(601, 0);
  EXPECT_EQ(r.add(piece(11, 0, big, 0, 10)), FragmentOutcome::kTooLarge);
  const Bytes small = message_of(10, 0);
  EXPECT_EQ(r.add(piece(11, HandshakeReassembler::kSlots, small, 0, 10)),
            FragmentOutcome::kBeyondWindow);
  const Bytes five_hundred = message_of(500, 0);
  ASSERT_EQ(r.add(piece(11, 1, five_hundred, 0, 10)), FragmentOutcome::kAccepted);
  EXPECT_EQ(r.bytes_held(), 500u + 63u);
  // 500 more bytes and their bits do not fit in the 437 left.
  EXPECT_EQ(r.add(piece(11, 2, five_hundred, 0, 10)), FragmentOutcome::kNoRoom);
  EXPECT_LE(r.bytes_held(), storage.size());
  // Flooding every message_seq of the window holds at most the storage.
  for (std::uint16_t seq = 0; seq < 100; ++seq) {
    static_cast<void>(r.add(piece(11, seq, small, 0, 10)));
    EXPECT_LE(r.bytes_held(), storage.size());
  }
}

}  // namespace
}  // namespace wireseal::dtls::detail
