// A sender never protects two packets under the same SRTP or SRTCP index, whatever the caller
// does with set_roc, remove_stream and add_stream, on the single and the batch path.
//
// The detector needs no access to indexes: protection is a deterministic function of the key,
// the index and the packet, so two protected packets with the same SSRC, sequence number and
// payload are byte-identical exactly when they were protected under the same index (for
// AES-CM and GCM that is a two-time pad or a repeated GCM nonce; for NULL a replayable tag).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "srtp_test_util.h"
#include "support/hex.h"

namespace wireseal::test {
namespace {

using srtp::Profile;
using srtp::Session;
using srtp::SessionConfig;

class SrtpIndexReuse : public ::testing::TestWithParam<Profile> {
 protected:
  Profile profile() const { return GetParam(); }
};

std::string profile_name(const ::testing::TestParamInfo<Profile>& p) {
  return std::string(srtp::info(p.param).name);
}

INSTANTIATE_TEST_SUITE_P(AllProfiles, SrtpIndexReuse, ::testing::ValuesIn(kAllProfiles),
                         profile_name);

constexpr std::uint32_t kSsrc = 0x1234;

// Ledger remembers every protected packet and fails on the first repeat.
class Ledger {
 public:
  void add(const Bytes& protected_packet) {
    if (protected_packet.empty()) {
      return;
    }
    EXPECT_TRUE(seen_.insert(to_hex(protected_packet)).second)
        << "the same index protected twice: " << to_hex(protected_packet);
  }
  std::size_t size() const { return seen_.size(); }

 private:
  std::set<std::string> seen_;
};

// try_protect protects an RTP packet of `ssrc`/`seq` with a fixed payload; empty on error.
Bytes try_protect(Session& s, std::uint32_t ssrc, std::uint16_t seq, Error* error = nullptr,
                  bool rtcp = false) {
  const Bytes plain = rtcp ? rtcp_packet(ssrc, 40) : rtp_packet(ssrc, seq, 32);
  Bytes buf(plain.size() + 64);
  std::copy(plain.begin(), plain.end(), buf.begin());
  Result<std::size_t> n =
      rtcp ? s.protect_rtcp(buf, plain.size()) : s.protect_rtp(buf, plain.size());
  if (!n) {
    if (error != nullptr) {
      *error = n.error();
    }
    return {};
  }
  buf.resize(*n);
  return buf;
}

// batch_protect protects one packet through protect_rtp_batch.
Bytes batch_protect(Session& s, std::uint32_t ssrc, std::uint16_t seq, Error* error = nullptr) {
  Bytes buf = rtp_packet(ssrc, seq, 32);
  const std::size_t n = buf.size();
  buf.resize(n + 64);
  srtp::PacketJob job{buf, n, {}};
  s.protect_rtp_batch({&job, 1});
  if (!job.status) {
    if (error != nullptr) {
      *error = job.status.error();
    }
    return {};
  }
  buf.resize(job.length);
  return buf;
}

TEST_P(SrtpIndexReuse, SetRocToTheCurrentRocDoesNotRewindTheSender) {
  const KeySet keys = make_keys(profile(), 1);
  Session tx = make_session(profile(), {keys});
  Ledger ledger;
  for (std::uint16_t seq = 1; seq <= 10; ++seq) {
    ledger.add(try_protect(tx, kSsrc, seq));
  }
  ASSERT_TRUE(tx.set_roc(kSsrc, 0));
  for (std::uint16_t seq = 1; seq <= 10; ++seq) {
    Error e{};
    EXPECT_TRUE(try_protect(tx, kSsrc, seq, &e).empty()) << seq;
    EXPECT_EQ(e, Error::kReplay);
    EXPECT_TRUE(batch_protect(tx, kSsrc, seq, &e).empty()) << seq;
    EXPECT_EQ(e, Error::kReplay);
  }
  ledger.add(try_protect(tx, kSsrc, 11));
  ledger.add(batch_protect(tx, kSsrc, 12));
  EXPECT_EQ(ledger.size(), 12u);
}

// Two Sessions of one master key (the libsrtp2 drop-in's keyings under two tag lengths or MKI
// lists): a stream given the marks its SSRC left in the other continues above them.
TEST_P(SrtpIndexReuse, AStreamStartsAboveTheMarksItLeftInAnotherSessionOfTheKey) {
  const KeySet keys = make_keys(profile(), 5);
  Session first = make_session(profile(), {keys});
  Session second = make_session(profile(), {keys});
  Ledger ledger;
  for (std::uint16_t seq = 1; seq <= 10; ++seq) {
    ledger.add(try_protect(first, kSsrc, seq));
  }
  for (int i = 0; i < 3; ++i) {
    ledger.add(try_protect(first, kSsrc, 0, nullptr, true));
  }
  EXPECT_EQ(first.sender_marks(kSsrc).rtp_next, 11u);
  ASSERT_TRUE(first.remove_stream(kSsrc));
  const srtp::SenderMarks left = first.sender_marks(kSsrc);  // kept after removal
  EXPECT_EQ(left.rtp_next, 11u);
  EXPECT_EQ(left.rtcp_next, 4u);
  EXPECT_FALSE(second.sender_marks(kSsrc).sent_anything());
  ASSERT_TRUE(second.add_stream(kSsrc, {.sent_elsewhere = left}));
  for (std::uint16_t seq = 1; seq <= 10; ++seq) {
    Error e{};
    EXPECT_TRUE(try_protect(second, kSsrc, seq, &e).empty()) << seq;
    EXPECT_EQ(e, Error::kReplay);
  }
  ledger.add(try_protect(second, kSsrc, 11));
  EXPECT_EQ(second.srtcp_index(kSsrc).value(), 4u);
  ledger.add(try_protect(second, kSsrc, 0, nullptr, true));
  EXPECT_EQ(ledger.size(), 15u);
}

TEST_P(SrtpIndexReuse, ASenderRocMovesForwardOnly) {
  const KeySet keys = make_keys(profile(), 2);
  Session tx = make_session(profile(), {keys});
  Session rx = make_session(profile(), {keys});
  ASSERT_TRUE(tx.add_stream(kSsrc, {.roc = 5}));
  ASSERT_FALSE(try_protect(tx, kSsrc, 100).empty());
  EXPECT_EQ(tx.set_roc(kSsrc, 4).error(), Error::kBadState);
  EXPECT_EQ(tx.roc(kSsrc).value(), 5u);
  // Forward works, and a receiver told the same ROC follows.
  ASSERT_TRUE(tx.set_roc(kSsrc, 9));
  ASSERT_TRUE(rx.add_stream(kSsrc, {.roc = 9}));
  const Bytes plain = rtp_packet(kSsrc, 3, 32);
  EXPECT_EQ(unprotect(rx, protect(tx, plain)), plain);
  EXPECT_EQ(tx.roc(kSsrc).value(), 9u);
  // A receiver-only stream may set any ROC (a joining receiver).
  EXPECT_TRUE(rx.set_roc(kSsrc, 1));
}

// The fuzz target found this edge: after the last sequence number of a ROC, that ROC has no
// index left, so set_roc to it is refused although roc() still reports it; the next ROC works.
TEST_P(SrtpIndexReuse, SetRocRefusesARocWhoseLastIndexWasProtected) {
  const KeySet keys = make_keys(profile(), 4);
  Session tx = make_session(profile(), {keys});
  ASSERT_TRUE(tx.add_stream(kSsrc, {.roc = 2}));
  ASSERT_FALSE(try_protect(tx, kSsrc, UINT16_MAX).empty());
  EXPECT_EQ(tx.roc(kSsrc).value(), 2u);
  EXPECT_EQ(tx.set_roc(kSsrc, 2).error(), Error::kBadState);
  ASSERT_TRUE(tx.set_roc(kSsrc, 3));
  EXPECT_FALSE(try_protect(tx, kSsrc, 0).empty());
  EXPECT_EQ(tx.roc(kSsrc).value(), 3u);
}

TEST_P(SrtpIndexReuse, ARecreatedStreamContinuesAboveTheRemovedOne) {
  const KeySet keys = make_keys(profile(), 3);
  Session tx = make_session(profile(), {keys});
  Ledger ledger;
  for (std::uint16_t seq = 0; seq < 5; ++seq) {
    ledger.add(try_protect(tx, kSsrc, seq));
  }
  ledger.add(try_protect(tx, kSsrc, 0, nullptr, true));
  ledger.add(try_protect(tx, kSsrc, 0, nullptr, true));
  ASSERT_EQ(tx.srtcp_index(kSsrc).value(), 3u);

  // Removed and re-created on the next packet: old indexes stay used.
  ASSERT_TRUE(tx.remove_stream(kSsrc));
  Error e{};
  EXPECT_TRUE(try_protect(tx, kSsrc, 4, &e).empty());
  EXPECT_EQ(e, Error::kReplay);
  EXPECT_FALSE(tx.has_stream(kSsrc));  // a refused packet creates no stream
  ledger.add(try_protect(tx, kSsrc, 5));
  EXPECT_TRUE(tx.has_stream(kSsrc));
  EXPECT_EQ(tx.srtcp_index(kSsrc).value(), 3u);
  ledger.add(try_protect(tx, kSsrc, 0, nullptr, true));

  // Removed and re-added explicitly with ROC 0: the same.
  ASSERT_TRUE(tx.remove_stream(kSsrc));
  ASSERT_TRUE(tx.add_stream(kSsrc, {}));
  EXPECT_TRUE(batch_protect(tx, kSsrc, 5, &e).empty());
  EXPECT_EQ(e, Error::kReplay);
  ledger.add(batch_protect(tx, kSsrc, 6));
  EXPECT_EQ(tx.srtcp_index(kSsrc).value(), 4u);
  EXPECT_EQ(ledger.size(), 10u);
}

TEST_P(SrtpIndexReuse, ARecreatedStreamStartsAtTheRemovedOnesRoc) {
  const KeySet keys = make_keys(profile(), 4);
  Session tx = make_session(profile(), {keys});
  ASSERT_TRUE(tx.add_stream(kSsrc, {.roc = 7}));
  ASSERT_FALSE(try_protect(tx, kSsrc, 0xFFFF).empty());
  ASSERT_TRUE(tx.remove_stream(kSsrc));
  ASSERT_TRUE(tx.add_stream(kSsrc, {.roc = 0}));
  EXPECT_EQ(tx.roc(kSsrc).value(), 8u);  // (7, 0xFFFF) was the last index: ROC 8 comes next
  Session rx = make_session(profile(), {keys});
  ASSERT_TRUE(rx.add_stream(kSsrc, {.roc = 8}));
  const Bytes plain = rtp_packet(kSsrc, 0, 32);
  EXPECT_EQ(unprotect(rx, protect(tx, plain)), plain);
}

TEST_P(SrtpIndexReuse, RemovingASenderIsRefusedWhenItsMarksCannotBeKept) {
  const KeySet keys = make_keys(profile(), 5);
  SessionConfig c;
  c.max_retired_senders = 2;
  Session tx = make_session(profile(), {keys}, c);
  for (std::uint32_t ssrc = 1; ssrc <= 3; ++ssrc) {
    ASSERT_FALSE(try_protect(tx, ssrc, 1).empty());
  }
  EXPECT_TRUE(tx.remove_stream(1));
  EXPECT_TRUE(tx.remove_stream(2));
  EXPECT_EQ(tx.remove_stream(3).error(), Error::kBadState);
  EXPECT_TRUE(tx.has_stream(3));
  // A stream that only received, or never saw a packet, leaves nothing to keep.
  ASSERT_TRUE(tx.add_stream(4, {}));
  EXPECT_TRUE(tx.remove_stream(4));
  Session rx = make_session(profile(), {keys}, c);
  for (std::uint32_t ssrc = 1; ssrc <= 3; ++ssrc) {
    ASSERT_FALSE(unprotect(rx, try_protect(tx, ssrc, 2)).empty());
    EXPECT_TRUE(rx.remove_stream(ssrc));
  }
  // SSRC 1 comes back, sends, leaves again: its entry is raised, no new room needed.
  ASSERT_FALSE(try_protect(tx, 1, 3).empty());
  EXPECT_TRUE(tx.remove_stream(1));
}

TEST_P(SrtpIndexReuse, NoSequenceOfCallsRepeatsAnIndex) {
  // A random walk over the whole stream API, seeded (the seed is printed on failure).
  const KeySet keys = make_keys(profile(), 6);
  SessionConfig c;
  c.max_streams = 4;
  c.max_retired_senders = 8;
  Session tx = make_session(profile(), {keys}, c);
  Ledger ledger;
  constexpr std::uint32_t kSeed = 20261201;
  std::mt19937 rng(kSeed);
  SCOPED_TRACE("seed " + std::to_string(kSeed));
  std::size_t sent = 0;
  for (int step = 0; step < 4000; ++step) {
    const auto ssrc = static_cast<std::uint32_t>(1 + rng() % 3);
    // Sequence numbers near a few spots, so that windows, ROC changes and wraps all meet.
    const std::uint16_t seq = static_cast<std::uint16_t>((rng() % 3) * 0x7FF0 + rng() % 40);
    const auto roc = static_cast<std::uint32_t>(rng() % 3);
    Bytes out;
    switch (rng() % 8) {
      case 0:
        (void)tx.set_roc(ssrc, roc);
        break;
      case 1:
        (void)tx.remove_stream(ssrc);
        break;
      case 2:
        (void)tx.add_stream(ssrc, {.roc = roc});
        break;
      case 3:
        out = batch_protect(tx, ssrc, seq);
        break;
      case 4:
        out = try_protect(tx, ssrc, seq, nullptr, true);
        break;
      default:
        out = try_protect(tx, ssrc, seq);
        break;
    }
    sent += out.empty() ? 0u : 1u;
    ledger.add(out);
    if (::testing::Test::HasFailure()) {
      FAIL() << "at step " << step;
    }
  }
  EXPECT_EQ(ledger.size(), sent);
  EXPECT_GT(sent, 1000u);  // the walk really protected packets
}

TEST_P(SrtpIndexReuse, PacketsBeyondOnePacketsKeystreamAreRefused) {
  // AES-CM counts 2^16 blocks in the IV's low 16 bits: 2^20 bytes after the fixed header.
  // One more would run into the index bits and reuse the next packet's keystream.
  const KeySet keys = make_keys(profile(), 7);
  Session tx = make_session(profile(), {keys});
  Session rx = make_session(profile(), {keys});
  const bool aes_cm = srtp::info(profile()).cipher == srtp::CipherKind::kAesCm;
  constexpr std::size_t kLimit = std::size_t{1} << 20;
  for (std::size_t payload : {kLimit, kLimit + 1}) {
    Bytes buf = rtp_packet(kSsrc, static_cast<std::uint16_t>(payload), payload);
    const std::size_t n = buf.size();
    buf.resize(n + 64);
    Result<std::size_t> r = tx.protect_rtp(buf, n);
    if (aes_cm && payload > kLimit) {
      EXPECT_EQ(r.error(), Error::kInvalidArgument);
      // Unprotect refuses it before authentication, too.
      buf.resize(n + tx.rtp_overhead());
      Result<std::span<std::uint8_t>> u = rx.unprotect_rtp(buf);
      EXPECT_EQ(u.error(), Error::kMalformed);
      continue;
    }
    ASSERT_TRUE(r) << payload;
    buf.resize(*r);
    EXPECT_TRUE(rx.unprotect_rtp(buf)) << payload;
  }
  Bytes rtcp = rtcp_packet(kSsrc, 8 + kLimit + 4);
  const std::size_t n = rtcp.size();
  rtcp.resize(n + 64);
  Result<std::size_t> r = tx.protect_rtcp(rtcp, n);
  EXPECT_EQ(r.has_value(), !aes_cm);
}

// ---- identical resends (StreamOptions::allow_resend, libsrtp's allow_repeat_tx)

// resend_sender is a Session whose stream kSsrc may resend its last `ring` indexes.
Session resend_sender(Profile p, const KeySet& keys, std::size_t ring = 64,
                      std::size_t replay_window = 1024) {
  SessionConfig config;
  config.replay_window = replay_window;
  Session tx = make_session(p, {keys}, config);
  EXPECT_TRUE(tx.reserve_resends(ring, 4));
  srtp::StreamOptions resend;
  resend.allow_resend = true;
  EXPECT_TRUE(tx.add_stream(kSsrc, resend));
  return tx;
}

// protect_filled protects packet `seq` of kSsrc whose payload starts at byte `fill`; on
// failure `buffer` keeps what protect left in it.
Result<std::size_t> protect_filled(Session& s, std::uint16_t seq, std::uint8_t fill, Bytes& buffer,
                                   std::uint32_t ssrc = kSsrc) {
  const Bytes plain = rtp_packet(ssrc, seq, 48, 0, nullptr, 0xBEDE, fill);
  buffer.assign(plain.size() + 64, 0xEE);
  std::copy(plain.begin(), plain.end(), buffer.begin());
  Result<std::size_t> n = s.protect_rtp(buffer, plain.size());
  if (n) {
    buffer.resize(*n);
  }
  return n;
}

TEST_P(SrtpIndexReuse, AnIdenticalResendIsTheSameBytesAndTakesNoNewIndex) {
  const KeySet keys = make_keys(profile(), 4);
  Session tx = resend_sender(profile(), keys);
  Session rx = make_session(profile(), {keys});
  std::vector<Bytes> first(21);
  for (std::uint16_t seq = 1; seq <= 20; ++seq) {
    ASSERT_TRUE(protect_filled(tx, seq, 0x5a, first[seq]));
    ASSERT_FALSE(unprotect(rx, first[seq]).empty());
  }
  const std::uint64_t used = tx.key_usage(0)->srtp_packets;
  for (const std::uint16_t seq : std::initializer_list<std::uint16_t>{5, 20, 1, 5}) {
    Bytes again;
    ASSERT_TRUE(protect_filled(tx, seq, 0x5a, again)) << seq;
    EXPECT_EQ(to_hex(again), to_hex(first[seq])) << seq;
    Error e{};
    EXPECT_TRUE(unprotect(rx, again, false, &e).empty());
    EXPECT_EQ(e, Error::kReplay);  // the receiver sees a replay, as of any duplicate
  }
  Bytes batch_again = rtp_packet(kSsrc, 7, 48);
  const std::size_t n = batch_again.size();
  batch_again.resize(n + 64);
  srtp::PacketJob job{batch_again, n, {}};
  tx.protect_rtp_batch({&job, 1});
  ASSERT_TRUE(job.status);
  batch_again.resize(job.length);
  EXPECT_EQ(to_hex(batch_again), to_hex(first[7]));
  EXPECT_EQ(tx.key_usage(0)->srtp_packets, used);
}

TEST_P(SrtpIndexReuse, AnotherPacketAtAResentIndexIsZeroedAndRefused) {
  const KeySet keys = make_keys(profile(), 5);
  Session tx = resend_sender(profile(), keys);
  Bytes first;
  ASSERT_TRUE(protect_filled(tx, 9, 0x5a, first));
  for (const std::uint8_t fill : std::initializer_list<std::uint8_t>{0x5b, 0x00}) {
    Bytes other;
    Result<std::size_t> r = protect_filled(tx, 9, fill, other);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), Error::kReplay);
    const std::size_t protected_len = first.size();
    EXPECT_EQ(
        std::count(other.begin(), other.begin() + static_cast<std::ptrdiff_t>(protected_len), 0),
        static_cast<std::ptrdiff_t>(protected_len))
        << "the refused packet's bytes must not leave protect";
  }
  // A changed header (the marker bit) is another packet too.
  Bytes marked = rtp_packet(kSsrc, 9, 48);
  marked[1] |= 0x80;
  const std::size_t n = marked.size();
  marked.resize(n + 64);
  EXPECT_EQ(tx.protect_rtp(marked, n).error(), Error::kReplay);
  Bytes again;
  ASSERT_TRUE(protect_filled(tx, 9, 0x5a, again));  // the original still resends
  EXPECT_EQ(to_hex(again), to_hex(first));
}

TEST_P(SrtpIndexReuse, ResendsReachBackOnlyAsFarAsTheRing) {
  const KeySet keys = make_keys(profile(), 6);
  Session tx = resend_sender(profile(), keys, 64);
  Bytes out;
  for (std::uint16_t seq = 1; seq <= 200; ++seq) {
    ASSERT_TRUE(protect_filled(tx, seq, 0x5a, out));
  }
  EXPECT_TRUE(protect_filled(tx, 137, 0x5a, out));  // the 64th most recent
  EXPECT_EQ(protect_filled(tx, 136, 0x5a, out).error(), Error::kReplay);
  EXPECT_EQ(protect_filled(tx, 10, 0x5a, out).error(), Error::kReplay);
  ASSERT_TRUE(tx.set_roc(kSsrc, 0));  // set_roc raises the floor: nothing below it resends
  EXPECT_EQ(protect_filled(tx, 199, 0x5a, out).error(), Error::kReplay);
}

TEST_P(SrtpIndexReuse, ResendsNeedTheStreamOptionAndAFreeRing) {
  const KeySet keys = make_keys(profile(), 7);
  Session no_room = make_session(profile(), {keys});
  srtp::StreamOptions resend;
  resend.allow_resend = true;
  ASSERT_TRUE(no_room.add_stream(kSsrc, resend));
  Bytes out;
  ASSERT_TRUE(protect_filled(no_room, 1, 0x5a, out));
  EXPECT_EQ(protect_filled(no_room, 1, 0x5a, out).error(), Error::kReplay);

  Session tx = make_session(profile(), {keys});
  ASSERT_TRUE(tx.reserve_resends(64, 1));
  EXPECT_EQ(tx.reserve_resends(128, 1).error(), Error::kBadState);
  ASSERT_TRUE(tx.add_stream(1, {}));  // not allowed to resend
  ASSERT_TRUE(protect_filled(tx, 1, 0x5a, out, 1));
  EXPECT_EQ(protect_filled(tx, 1, 0x5a, out, 1).error(), Error::kReplay);
  ASSERT_TRUE(tx.add_stream(2, resend));
  ASSERT_TRUE(tx.add_stream(3, resend));
  ASSERT_TRUE(protect_filled(tx, 1, 0x5a, out, 2));  // takes the only ring
  ASSERT_TRUE(protect_filled(tx, 1, 0x5a, out, 3));
  EXPECT_TRUE(protect_filled(tx, 1, 0x5a, out, 2));
  EXPECT_EQ(protect_filled(tx, 1, 0x5a, out, 3).error(), Error::kReplay);
  ASSERT_TRUE(tx.remove_stream(2));  // gives the ring back
  ASSERT_TRUE(tx.add_stream(4, resend));
  ASSERT_TRUE(protect_filled(tx, 1, 0x5a, out, 4));
  EXPECT_TRUE(protect_filled(tx, 1, 0x5a, out, 4));
}

}  // namespace
TEST(SrtpStreamOptions, AnSrtcpStartIndexNeverGoesBelowWhatTheKeysUsed) {
  const srtp::Profile profile = srtp::Profile::kAes128CmHmacSha1_80;
  const KeySet keys = make_keys(profile, 3);
  Session tx = make_session(profile, {keys});
  srtp::StreamOptions at_500;
  at_500.srtcp_index = 500;
  ASSERT_TRUE(tx.add_stream(kSsrc, at_500));
  EXPECT_EQ(*tx.srtcp_index(kSsrc), 500u);
  for (int i = 0; i < 3; ++i) {
    Bytes p = rtcp_packet(kSsrc, 16);
    p.resize(p.size() + tx.rtcp_overhead());
    ASSERT_TRUE(tx.protect_rtcp(p, 16));
  }
  ASSERT_TRUE(tx.remove_stream(kSsrc));
  srtp::StreamOptions at_10;
  at_10.srtcp_index = 10;
  ASSERT_TRUE(tx.add_stream(kSsrc, at_10));
  EXPECT_EQ(*tx.srtcp_index(kSsrc), 503u);  // above what the removed stream used
}

}  // namespace wireseal::test
