// Session behaviour for every profile: round trips (in place, out of place, RTP and RTCP, with
// CSRCs, extensions, MKI), every single-bit flip rejected, replay, ROC rollover, explicit ROC,
// stream creation and limits, drop counters, batches, sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "srtp_test_util.h"
#include "support/hex.h"

namespace wireseal::test {
namespace {

using srtp::Profile;
using srtp::Session;
using srtp::SessionConfig;

class SrtpSession : public ::testing::TestWithParam<Profile> {
 protected:
  Profile profile() const { return GetParam(); }
  const srtp::ProfileInfo& info() const { return srtp::info(GetParam()); }
};

std::string profile_name(const ::testing::TestParamInfo<Profile>& p) {
  return std::string(srtp::info(p.param).name);
}

INSTANTIATE_TEST_SUITE_P(AllProfiles, SrtpSession, ::testing::ValuesIn(kAllProfiles), profile_name);

// SrtpEncryptingSession: properties of encryption itself (header-extension encryption,
// cryptex), instantiated only for the profiles that encrypt — NULL profiles have no cipher.
class SrtpEncryptingSession : public SrtpSession {};

std::vector<Profile> encrypting_profiles() {
  std::vector<Profile> out;
  for (Profile p : kAllProfiles) {
    if (srtp::info(p).cipher != srtp::CipherKind::kNull) {
      out.push_back(p);
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(EncryptingProfiles, SrtpEncryptingSession,
                         ::testing::ValuesIn(encrypting_profiles()), profile_name);

TEST_P(SrtpSession, RtpRoundTripsAtManySizesAndShapes) {
  const KeySet keys = make_keys(profile(), 1);
  Session tx = make_session(profile(), {keys});
  Session rx = make_session(profile(), {keys});
  const Bytes ext = {0x10, 0xaa, 0x21, 0xbb, 0xcc};
  std::uint16_t seq = 100;
  for (std::size_t len : {0u, 1u, 15u, 16u, 17u, 160u, 1200u}) {
    for (std::uint8_t cc : {std::uint8_t{0}, std::uint8_t{3}}) {
      for (bool with_ext : {false, true}) {
        const Bytes plain = rtp_packet(0x1234, seq++, len, cc, with_ext ? &ext : nullptr);
        const Bytes prot = protect(tx, plain);
        ASSERT_EQ(prot.size(), plain.size() + info().rtp_tag_len);
        ASSERT_EQ(prot.size(), tx.protected_rtp_size(plain));
        if (info().cipher != srtp::CipherKind::kNull && len >= 4) {
          EXPECT_NE(Bytes(prot.end() - static_cast<long>(info().rtp_tag_len) - 4,
                          prot.end() - static_cast<long>(info().rtp_tag_len)),
                    Bytes(plain.end() - 4, plain.end()));
        }
        Error e{};
        EXPECT_EQ(to_hex(unprotect(rx, prot, false, &e)), to_hex(plain)) << to_string(e);
      }
    }
  }
}

TEST_P(SrtpSession, RtcpRoundTripsAndIndexAdvances) {
  const KeySet keys = make_keys(profile(), 2);
  Session tx = make_session(profile(), {keys});
  Session rx = make_session(profile(), {keys});
  for (std::size_t len : {8u, 12u, 28u, 200u}) {
    const Bytes plain = rtcp_packet(0x99, len);
    const Bytes prot = protect(tx, plain, true);
    ASSERT_EQ(prot.size(), tx.protected_rtcp_size(plain.size()));
    const std::size_t word_at =
        info().cipher == srtp::CipherKind::kAesGcm ? plain.size() + 16 : plain.size();
    EXPECT_EQ(prot[word_at] & 0x80, info().cipher == srtp::CipherKind::kNull ? 0 : 0x80);
    Error e{};
    EXPECT_EQ(to_hex(unprotect(rx, prot, true, &e)), to_hex(plain)) << to_string(e);
  }
  EXPECT_EQ(*tx.srtcp_index(0x99), 5u);
}

TEST_P(SrtpSession, OutOfPlaceEqualsInPlaceAndPartialOverlapIsRejected) {
  const KeySet keys = make_keys(profile(), 3);
  Session a = make_session(profile(), {keys});
  Session b = make_session(profile(), {keys});
  const Bytes plain = rtp_packet(7, 1, 100, 1);
  Bytes out(plain.size() + 32);
  Result<std::size_t> n = a.protect_rtp(plain, out);
  ASSERT_TRUE(n);
  out.resize(*n);
  EXPECT_EQ(out, protect(b, plain));
  Bytes buf(300);
  std::copy(plain.begin(), plain.end(), buf.begin() + 1);
  EXPECT_EQ(a.protect_rtp(std::span<const std::uint8_t>(buf.data() + 1, plain.size()),
                          std::span<std::uint8_t>(buf.data() + 2, 200))
                .error(),
            Error::kAliasing);
  Bytes small(plain.size() + info().rtp_tag_len - 1);
  EXPECT_EQ(a.protect_rtp(rtp_packet(7, 2, 100, 1), small).error(), Error::kBufferTooSmall);
}

TEST_P(SrtpSession, EverySingleBitFlipIsRejected) {
  const KeySet keys = make_keys(profile(), 4);
  Session tx = make_session(profile(), {keys});
  const Bytes ext = {0x10, 0xaa};
  for (bool rtcp : {false, true}) {
    const Bytes plain = rtcp ? rtcp_packet(0x42, 40) : rtp_packet(0x42, 9, 40, 1, &ext);
    const Bytes prot = protect(tx, plain, rtcp);
    for (std::size_t bit = 0; bit < prot.size() * 8; ++bit) {
      Session rx = make_session(profile(), {keys});
      Bytes bad = prot;
      bad[bit / 8] = static_cast<std::uint8_t>(bad[bit / 8] ^ (1u << (bit % 8)));
      Error e{};
      const Bytes out = unprotect(rx, bad, rtcp, &e);
      ASSERT_TRUE(out.empty()) << (rtcp ? "rtcp" : "rtp") << " bit " << bit;
      EXPECT_EQ(rx.stream_count(), 0u);  // nothing created by a forged packet
    }
  }
}

TEST_P(SrtpSession, ReplayIsRejectedAndOnlyAuthenticPacketsMoveTheWindow) {
  const KeySet keys = make_keys(profile(), 5);
  Session tx = make_session(profile(), {keys});
  Session rx = make_session(profile(), {keys});
  std::vector<Bytes> packets;
  for (std::uint16_t seq = 10; seq < 20; ++seq) {
    packets.push_back(protect(tx, rtp_packet(1, seq, 20)));
  }
  for (const Bytes& p : packets) {
    ASSERT_FALSE(unprotect(rx, p).empty());
  }
  Error e{};
  EXPECT_TRUE(unprotect(rx, packets[3], false, &e).empty());
  EXPECT_EQ(e, Error::kReplay);
  EXPECT_EQ(rx.drop_counters().replay, 1u);
  // A forged packet far ahead must not advance the window: afterwards old packets are still
  // judged against the real window.
  Session other = make_session(profile(), {keys});
  Bytes forged = protect(other, rtp_packet(1, 2000, 20));
  forged.back() ^= 1;
  EXPECT_TRUE(unprotect(rx, forged, false, &e).empty());
  EXPECT_EQ(e, Error::kAuthFailed);
  EXPECT_EQ(rx.drop_counters().auth, 1u);
  // Out-of-order inside the window is fine.
  const Bytes p22 = protect(tx, rtp_packet(1, 22, 20));
  const Bytes p21 = protect(tx, rtp_packet(1, 21, 20));
  EXPECT_FALSE(unprotect(rx, p22).empty());
  EXPECT_FALSE(unprotect(rx, p21).empty());
  // RTCP replay.
  const Bytes r = protect(tx, rtcp_packet(1, 16), true);
  EXPECT_FALSE(unprotect(rx, r, true).empty());
  EXPECT_TRUE(unprotect(rx, r, true, &e).empty());
  EXPECT_EQ(e, Error::kReplay);
  // The sender refuses to reuse an index (keystream reuse).
  Bytes again = rtp_packet(1, 15, 20);
  Bytes buf(again.size() + 64);
  std::copy(again.begin(), again.end(), buf.begin());
  EXPECT_EQ(tx.protect_rtp(buf, again.size()).error(), Error::kReplay);
  // Behind the window (128 indexes by default) is "too old", not "seen": nobody can tell.
  const Bytes p30 = protect(tx, rtp_packet(1, 30, 20));
  const Bytes p300 = protect(tx, rtp_packet(1, 300, 20));
  EXPECT_FALSE(unprotect(rx, p300).empty());
  EXPECT_TRUE(unprotect(rx, p30, false, &e).empty());
  EXPECT_EQ(e, Error::kReplayOld);
  EXPECT_EQ(rx.drop_counters().replay, 3u);
  EXPECT_EQ(tx.protect_rtp(buf, again.size()).error(), Error::kReplayOld);  // a sender's too
  std::vector<Bytes> reports;
  for (int i = 0; i < 200; ++i) {
    reports.push_back(protect(tx, rtcp_packet(1, 16), true));
  }
  EXPECT_FALSE(unprotect(rx, reports.back(), true).empty());
  EXPECT_TRUE(unprotect(rx, reports.front(), true, &e).empty());
  EXPECT_EQ(e, Error::kReplayOld);
}

TEST_P(SrtpSession, SequenceRolloverIncrementsRocOnBothSides) {
  const KeySet keys = make_keys(profile(), 6);
  Session tx = make_session(profile(), {keys});
  Session rx = make_session(profile(), {keys});
  std::uint16_t seq = 65530;
  for (int i = 0; i < 12; ++i, ++seq) {
    const Bytes plain = rtp_packet(77, seq, 30);
    EXPECT_EQ(to_hex(unprotect(rx, protect(tx, plain))), to_hex(plain)) << "seq " << seq;
  }
  EXPECT_EQ(*tx.roc(77), 1u);
  EXPECT_EQ(*rx.roc(77), 1u);
  // Reordering across the rollover: 65535 (ROC 0) arrives after 2 (ROC 1); the RFC 3711
  // estimate puts it at ROC 0, inside the window, and a second copy is a replay.
  Session tx2 = make_session(profile(), {keys});
  Session rx2 = make_session(profile(), {keys});
  const Bytes a = protect(tx2, rtp_packet(5, 65534, 10));
  const Bytes late = protect(tx2, rtp_packet(5, 65535, 10));
  const Bytes after = protect(tx2, rtp_packet(5, 2, 10));
  EXPECT_FALSE(unprotect(rx2, a).empty());
  EXPECT_FALSE(unprotect(rx2, after).empty());
  EXPECT_FALSE(unprotect(rx2, late).empty());
  Error e{};
  EXPECT_TRUE(unprotect(rx2, late, false, &e).empty());
  EXPECT_EQ(e, Error::kReplay);
  EXPECT_EQ(*rx2.roc(5), 1u);
}

TEST_P(SrtpSession, ExplicitRocLetsAReceiverJoinMidStream) {
  const KeySet keys = make_keys(profile(), 7);
  SessionConfig c;
  c.stream_defaults.roc = 5;
  Session tx = make_session(profile(), {keys}, c);
  Session rx = make_session(profile(), {keys});
  const Bytes plain = rtp_packet(3, 100, 50);
  const Bytes prot = protect(tx, plain);
  EXPECT_EQ(*tx.roc(3), 5u);
  Error e{};
  EXPECT_TRUE(unprotect(rx, prot, false, &e).empty());  // rx assumes ROC 0
  ASSERT_TRUE(rx.add_stream(3, {}));
  ASSERT_TRUE(rx.set_roc(3, 5));
  EXPECT_EQ(to_hex(unprotect(rx, prot)), to_hex(plain));
  EXPECT_EQ(*rx.roc(3), 5u);
}

TEST_P(SrtpSession, MkiSelectsTheMasterKey) {
  const KeySet k1 = make_keys(profile(), 10, 4);
  const KeySet k2 = make_keys(profile(), 20, 4);
  Session tx = make_session(profile(), {k1, k2});
  Session rx = make_session(profile(), {k1, k2});
  const Bytes p1 = rtp_packet(9, 1, 33);
  const Bytes s1 = protect(tx, p1);
  ASSERT_EQ(s1.size(), p1.size() + info().rtp_tag_len + 4);
  const std::size_t mki_at =
      info().cipher == srtp::CipherKind::kAesGcm ? p1.size() + 16 : p1.size();
  EXPECT_EQ(
      Bytes(s1.begin() + static_cast<long>(mki_at), s1.begin() + static_cast<long>(mki_at) + 4),
      k1.mki);
  ASSERT_TRUE(tx.set_active_key(9, 1));
  const Bytes p2 = rtp_packet(9, 2, 33);
  const Bytes s2 = protect(tx, p2);
  EXPECT_EQ(
      Bytes(s2.begin() + static_cast<long>(mki_at), s2.begin() + static_cast<long>(mki_at) + 4),
      k2.mki);
  EXPECT_EQ(to_hex(unprotect(rx, s1)), to_hex(p1));
  EXPECT_EQ(to_hex(unprotect(rx, s2)), to_hex(p2));
  const Bytes r = rtcp_packet(9, 24);
  EXPECT_EQ(to_hex(unprotect(rx, protect(tx, r, true), true)), to_hex(r));
  // Unknown MKI: authentication failure.
  Bytes s3 = protect(tx, rtp_packet(9, 3, 33));
  s3[mki_at] ^= 0xff;
  Error e{};
  EXPECT_TRUE(unprotect(rx, s3, false, &e).empty());
  EXPECT_EQ(e, Error::kAuthFailed);
}

TEST_P(SrtpEncryptingSession, HeaderExtensionEncryptionRoundTripsAndHidesSelectedElements) {
  const KeySet keys = make_keys(profile(), 11);
  const std::uint8_t ids[] = {1, 3};
  SessionConfig c;
  c.stream_defaults.encrypted_extension_ids = ids;
  Session tx = make_session(profile(), {keys}, c);
  Session rx = make_session(profile(), {keys}, c);
  const Bytes one = {0x10, 0xaa, 0x21, 0xbb, 0xcc, 0x30, 0xee};  // IDs 1, 2, 3
  const Bytes two = {0x01, 0x02, 0xaa, 0xbb, 0x02, 0x01, 0xcc, 0x03, 0x00};
  for (const auto& [body, profile_id] :
       {std::pair{one, std::uint16_t{0xBEDE}}, std::pair{two, std::uint16_t{0x1000}}}) {
    const Bytes plain = rtp_packet(21, static_cast<std::uint16_t>(profile_id == 0xBEDE ? 1 : 2), 20,
                                   0, &body, profile_id);
    const Bytes prot = protect(tx, plain);
    if (profile_id == 0xBEDE) {
      EXPECT_NE(prot[17], 0xaa);  // ID 1 data encrypted
      EXPECT_EQ(prot[19], 0xbb);  // ID 2 data in clear
      EXPECT_NE(prot[22], 0xee);  // ID 3 data encrypted
    } else {
      EXPECT_NE(prot[18], 0xaa);
      EXPECT_EQ(prot[22], 0xcc);
    }
    EXPECT_EQ(to_hex(unprotect(rx, prot)), to_hex(plain));
  }
}

TEST_P(SrtpEncryptingSession, CryptexRoundTripsEveryShape) {
  const KeySet keys = make_keys(profile(), 12);
  SessionConfig c;
  c.stream_defaults.cryptex = true;
  Session tx = make_session(profile(), {keys}, c);
  Session rx = make_session(profile(), {keys}, c);
  const Bytes body = {0x10, 0xaa, 0x21, 0xbb, 0xcc};
  std::uint16_t seq = 1;
  for (std::uint8_t cc : {std::uint8_t{0}, std::uint8_t{2}}) {
    for (int shape = 0; shape < 3; ++shape) {  // none, one-byte, two-byte
      const Bytes plain =
          rtp_packet(31, seq++, 25, cc, shape == 0 ? nullptr : &body, shape == 2 ? 0x1000 : 0xBEDE);
      const Bytes prot = protect(tx, plain);
      ASSERT_EQ(prot.size(), tx.protected_rtp_size(plain));
      Bytes expect = plain;
      if (shape == 0 && cc != 0) {
        // RFC 9335 §5.1: an empty 0xC0DE extension is added; the receiver keeps it as 0xBEDE.
        ASSERT_EQ(prot.size(), plain.size() + 4 + info().rtp_tag_len);
        const std::size_t at = 12 + 4u * cc;
        expect[0] |= 0x10;
        const Bytes pre = {0xBE, 0xDE, 0, 0};
        expect.insert(expect.begin() + static_cast<long>(at), pre.begin(), pre.end());
        EXPECT_EQ(prot[at], 0xC0);
        EXPECT_EQ(prot[at + 1], 0xDE);
      }
      if (cc != 0) {
        EXPECT_NE(prot[12], plain[12]);  // CSRCs hidden
      }
      EXPECT_EQ(to_hex(unprotect(rx, prot)), to_hex(expect))
          << "cc " << int{cc} << " shape " << shape;
    }
  }
  // Two-byte extension with appbits cannot be expressed under cryptex.
  Bytes buf = rtp_packet(31, seq, 10, 0, &body, 0x1003);
  buf.resize(buf.size() + 64);
  EXPECT_EQ(tx.protect_rtp(buf, buf.size() - 64).error(), Error::kInvalidArgument);
}

TEST_P(SrtpSession, AMasterKeyProtectsNoMoreThanItsLimitOverAllItsStreams) {
  // RFC 3711 §9.2 limits a master key, not a stream: two SSRCs share one budget, the single
  // and batch paths alike, and a second key (MKI) has its own.
  const KeySet k0 = make_keys(profile(), 41, 2);
  const KeySet k1 = make_keys(profile(), 42, 2);
  EXPECT_EQ(srtp::info(profile()).max_srtp_packets_per_key, std::uint64_t{1} << 48);
  EXPECT_EQ(srtp::info(profile()).max_srtcp_packets_per_key, std::uint64_t{1} << 31);
  SessionConfig c;
  c.max_srtp_packets_per_key = 5;
  c.max_srtcp_packets_per_key = 2;
  Session tx = make_session(profile(), {k0, k1}, c);
  Session rx = make_session(profile(), {k0, k1});
  for (std::uint16_t seq = 1; seq <= 3; ++seq) {
    EXPECT_FALSE(unprotect(rx, protect(tx, rtp_packet(1, seq, 20))).empty());
  }
  std::vector<Bytes> buffers(3);
  std::vector<srtp::PacketJob> jobs;
  for (std::uint16_t seq = 1; seq <= 3; ++seq) {
    const Bytes plain = rtp_packet(2, seq, 20);
    buffers[seq - 1] = plain;
    buffers[seq - 1].resize(plain.size() + 64);
    jobs.push_back(srtp::PacketJob{buffers[seq - 1], plain.size(), {}});
  }
  tx.protect_rtp_batch(jobs);
  EXPECT_TRUE(jobs[0].status);
  EXPECT_TRUE(jobs[1].status);
  ASSERT_FALSE(jobs[2].status);
  EXPECT_EQ(jobs[2].status.error(), Error::kKeyLimit);
  Bytes buf = rtp_packet(1, 4, 20);
  const std::size_t len = buf.size();
  buf.resize(len + 64);
  EXPECT_EQ(tx.protect_rtp(buf, len).error(), Error::kKeyLimit);
  EXPECT_EQ(tx.key_usage(0)->srtp_packets, 5u);
  // The other key carries on.
  ASSERT_TRUE(tx.set_active_key(1, 1));
  EXPECT_FALSE(unprotect(rx, protect(tx, rtp_packet(1, 5, 20))).empty());
  EXPECT_EQ(tx.key_usage(1)->srtp_packets, 1u);
  // SRTCP has its own budget per key.
  ASSERT_TRUE(tx.set_active_key(2, 1));
  EXPECT_FALSE(protect(tx, rtcp_packet(1, 28), true).empty());
  EXPECT_FALSE(protect(tx, rtcp_packet(2, 28), true).empty());
  Bytes rtcp = rtcp_packet(1, 28);
  rtcp.resize(28 + 64);
  EXPECT_EQ(tx.protect_rtcp(rtcp, 28).error(), Error::kKeyLimit);
  EXPECT_EQ(tx.key_usage(1)->srtcp_packets, 2u);
  EXPECT_EQ(tx.key_usage(2).error(), Error::kInvalidArgument);
}

TEST_P(SrtpSession, StreamsAreCreatedOnFirstValidPacketAndCapped) {
  const KeySet keys = make_keys(profile(), 13);
  SessionConfig c;
  c.max_streams = 3;
  Session tx = make_session(profile(), {keys});
  Session rx = make_session(profile(), {keys}, c);
  for (std::uint32_t ssrc = 1; ssrc <= 3; ++ssrc) {
    EXPECT_FALSE(unprotect(rx, protect(tx, rtp_packet(ssrc, 1, 10))).empty());
  }
  EXPECT_EQ(rx.stream_count(), 3u);
  Error e{};
  EXPECT_TRUE(unprotect(rx, protect(tx, rtp_packet(4, 1, 10)), false, &e).empty());
  EXPECT_EQ(e, Error::kTableFull);
  EXPECT_EQ(rx.drop_counters().wrong_context, 1u);
  ASSERT_TRUE(rx.remove_stream(2));
  EXPECT_FALSE(unprotect(rx, protect(tx, rtp_packet(4, 2, 10))).empty());
  EXPECT_TRUE(rx.has_stream(4));
  EXPECT_FALSE(rx.has_stream(2));

  SessionConfig strict;
  strict.create_streams_on_first_packet = false;
  Session rx2 = make_session(profile(), {keys}, strict);
  EXPECT_TRUE(unprotect(rx2, protect(tx, rtp_packet(1, 5, 10)), false, &e).empty());
  EXPECT_EQ(e, Error::kWrongContext);
  EXPECT_EQ(rx2.drop_counters().wrong_context, 1u);
  EXPECT_EQ(rx2.roc(1).error(), Error::kWrongContext);
  EXPECT_EQ(rx2.set_roc(1, 0).error(), Error::kWrongContext);
  EXPECT_EQ(rx2.remove_stream(1).error(), Error::kWrongContext);
  ASSERT_TRUE(rx2.add_stream(1, {}));
  EXPECT_EQ(rx2.add_stream(1, {}).error(), Error::kBadState);
  EXPECT_FALSE(unprotect(rx2, protect(tx, rtp_packet(1, 6, 10))).empty());
}

TEST_P(SrtpSession, MalformedPacketsAreCountedNotCrashed) {
  const KeySet keys = make_keys(profile(), 14);
  Session rx = make_session(profile(), {keys});
  Error e{};
  for (std::size_t len : {0u, 5u, 12u, 13u}) {
    Bytes junk(len, 0x80);
    EXPECT_TRUE(unprotect(rx, junk, false, &e).empty());
    EXPECT_TRUE(unprotect(rx, junk, true, &e).empty());
  }
  Bytes v1 = rtp_packet(1, 1, 40);
  v1[0] = 0x40;
  EXPECT_TRUE(unprotect(rx, v1, false, &e).empty());
  EXPECT_EQ(e, Error::kMalformed);
  EXPECT_GE(rx.drop_counters().malformed, 9u);
}

TEST_P(SrtpSession, BatchesEqualSinglePacketCalls) {
  const KeySet keys = make_keys(profile(), 15);
  Session tx = make_session(profile(), {keys});
  Session tx_ref = make_session(profile(), {keys});
  Session rx = make_session(profile(), {keys});
  std::vector<Bytes> bufs;
  std::vector<srtp::PacketJob> jobs;
  for (std::uint16_t i = 0; i < 20; ++i) {
    Bytes p = rtp_packet(i % 3, static_cast<std::uint16_t>(100 + i), 10u + 37u * i);
    const std::size_t n = p.size();
    p.resize(n + 64);
    bufs.push_back(std::move(p));
    jobs.push_back({bufs.back(), n, {}});
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].buffer = bufs[i];
  }
  std::vector<Bytes> expected;
  for (std::uint16_t i = 0; i < 20; ++i) {
    expected.push_back(
        protect(tx_ref, rtp_packet(i % 3, static_cast<std::uint16_t>(100 + i), 10u + 37u * i)));
  }
  tx.protect_rtp_batch(jobs);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_TRUE(jobs[i].status);
    EXPECT_EQ(to_hex({bufs[i].data(), jobs[i].length}), to_hex(expected[i]));
  }
  jobs[4].buffer[jobs[4].length - 1] ^= 1;  // one forged packet in the batch
  rx.unprotect_rtp_batch(jobs);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].status.has_value(), i != 4) << i;
  }
}

TEST(SrtpSessionSetup, MisuseThrows) {
  const KeySet k = make_keys(Profile::kAes128CmHmacSha1_80, 1);
  KeySet short_key = k;
  short_key.key.pop_back();
  EXPECT_THROW(make_session(Profile::kAes128CmHmacSha1_80, {short_key}), std::invalid_argument);
  EXPECT_THROW(make_session(Profile::kAes128CmHmacSha1_80, {}), std::invalid_argument);
  EXPECT_THROW(make_session(Profile::kAes128CmHmacSha1_80, {k, k}), std::invalid_argument);
  const KeySet m = make_keys(Profile::kAes128CmHmacSha1_80, 1, 2);
  EXPECT_THROW(make_session(Profile::kAes128CmHmacSha1_80, {m, m}), std::invalid_argument);
  // A second key whose MKI is shorter than mki_len: refused on its length before any MKI is
  // compared (the comparison used to read mki_len bytes of it; ASan builds saw the overrun).
  KeySet short_mki = make_keys(Profile::kAes128CmHmacSha1_80, 2, 2);
  short_mki.mki.resize(1);
  EXPECT_THROW(make_session(Profile::kAes128CmHmacSha1_80, {m, short_mki}), std::invalid_argument);
  SessionConfig c;
  c.max_streams = 0;
  EXPECT_THROW(make_session(Profile::kAes128CmHmacSha1_80, {k}, c), std::invalid_argument);
}

TEST(SrtpSessionSetup, CreateReportsMisuseInsteadOfThrowing) {
  const KeySet k = make_keys(Profile::kAes128CmHmacSha1_80, 1);
  KeySet short_key = k;
  short_key.key.pop_back();
  const srtp::MasterKey bad[] = {short_key.master()};
  SessionConfig c;
  c.keys = bad;
  EXPECT_EQ(Session::create(c).error(), Error::kInvalidArgument);
  c.keys = {};
  EXPECT_EQ(Session::create(c).error(), Error::kInvalidArgument);
  const srtp::MasterKey good[] = {k.master()};
  c.keys = good;
  Result<Session> s = Session::create(c);
  ASSERT_TRUE(s);
  EXPECT_FALSE(protect(*s, rtp_packet(7, 1, 10)).empty());
}

TEST(SrtpSessionScale, TenThousandStreamsInOneSession) {
  const Profile p = Profile::kAes128CmHmacSha1_80;
  const KeySet keys = make_keys(p, 33);
  SessionConfig c;
  c.max_streams = 10000;
  Session tx = make_session(p, {keys}, c);
  Session rx = make_session(p, {keys}, c);
  EXPECT_LE(rx.stream_state_size(), 256u);
  std::mt19937 rng(1234);
  std::vector<std::uint32_t> ssrcs;
  while (ssrcs.size() < 10000) {
    const std::uint32_t s = static_cast<std::uint32_t>(rng());
    if (std::find(ssrcs.end() - std::min<long>(static_cast<long>(ssrcs.size()), 0), ssrcs.end(),
                  s) == ssrcs.end()) {
      ssrcs.push_back(s);
    }
  }
  std::sort(ssrcs.begin(), ssrcs.end());
  ssrcs.erase(std::unique(ssrcs.begin(), ssrcs.end()), ssrcs.end());
  std::shuffle(ssrcs.begin(), ssrcs.end(), rng);
  for (int round = 0; round < 2; ++round) {
    for (std::uint32_t s : ssrcs) {
      const Bytes plain = rtp_packet(s, static_cast<std::uint16_t>(round), 20);
      ASSERT_EQ(unprotect(rx, protect(tx, plain)), plain) << s;
    }
  }
  EXPECT_EQ(rx.stream_count(), ssrcs.size());
  // Remove half, then every survivor still resolves and removed ones are gone.
  for (std::size_t i = 0; i < ssrcs.size(); i += 2) {
    ASSERT_TRUE(rx.remove_stream(ssrcs[i]));
  }
  for (std::size_t i = 0; i < ssrcs.size(); ++i) {
    ASSERT_EQ(rx.has_stream(ssrcs[i]), i % 2 == 1) << i;
  }
}

}  // namespace
}  // namespace wireseal::test
