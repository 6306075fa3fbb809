// Batches against the single-packet path, for every profile: the same packets through
// protect_rtp_batch / unprotect_rtp_batch (random batch sizes) and through one call per packet
// must give identical bytes, statuses, lengths, drop counters and ROCs — with several SSRCs, a
// rollover, duplicates inside and across batches, forged tags, reordering, extensions
// (RFC 6904 streams take the single path inside a batch), malformed packets and a full stream
// table. Replays must never reach the MAC: checked with a forged replay that would also fail
// authentication, which must still be counted as a replay.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "srtp_test_util.h"
#include "support/hex.h"

namespace wireseal::test {
namespace {

using srtp::PacketJob;
using srtp::Profile;
using srtp::Session;
using srtp::SessionConfig;

class SrtpBatch : public ::testing::TestWithParam<Profile> {
 protected:
  Profile profile() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(AllProfiles, SrtpBatch, ::testing::ValuesIn(kAllProfiles),
                         [](const ::testing::TestParamInfo<Profile>& p) {
                           return std::string(srtp::info(p.param).name);
                         });

struct Outcome {
  bool ok;
  Error error;
  Bytes bytes;  // the output packet on success
};

// run_single processes `packets` one by one; run_batched in batches of 1..20 (seeded).
// rtcp: the SRTCP calls instead of the SRTP ones.
std::vector<Outcome> run_single(Session& s, std::vector<Bytes> packets, bool protect_dir,
                                bool rtcp = false) {
  std::vector<Outcome> out;
  for (Bytes& p : packets) {
    const std::size_t n = p.size();
    p.resize(n + 64);
    if (protect_dir) {
      Result<std::size_t> r = rtcp ? s.protect_rtcp(p, n) : s.protect_rtp(p, n);
      out.push_back({r.has_value(), r ? Error{} : r.error(),
                     r ? Bytes(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(*r)) : Bytes{}});
    } else {
      const std::span<std::uint8_t> packet(p.data(), n);
      Result<std::span<std::uint8_t>> r = rtcp ? s.unprotect_rtcp(packet) : s.unprotect_rtp(packet);
      out.push_back(
          {r.has_value(), r ? Error{} : r.error(), r ? Bytes(r->begin(), r->end()) : Bytes{}});
    }
  }
  return out;
}

std::vector<Outcome> run_batched(Session& s, std::vector<Bytes> packets, bool protect_dir,
                                 std::uint32_t seed, bool rtcp = false) {
  std::mt19937 rng(seed);
  std::vector<Outcome> out;
  std::size_t at = 0;
  while (at < packets.size()) {
    const std::size_t n = std::min<std::size_t>(packets.size() - at, 1 + rng() % 20);
    std::vector<PacketJob> jobs(n);
    for (std::size_t i = 0; i < n; ++i) {
      Bytes& p = packets[at + i];
      const std::size_t len = p.size();
      p.resize(len + 64);
      jobs[i].buffer =
          protect_dir ? std::span<std::uint8_t>(p) : std::span<std::uint8_t>(p.data(), len);
      jobs[i].length = len;
    }
    if (rtcp) {
      protect_dir ? s.protect_rtcp_batch(jobs) : s.unprotect_rtcp_batch(jobs);
    } else {
      protect_dir ? s.protect_rtp_batch(jobs) : s.unprotect_rtp_batch(jobs);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const PacketJob& j = jobs[i];
      out.push_back({j.status.has_value(), j.status ? Error{} : j.status.error(),
                     j.status ? Bytes(j.buffer.begin(),
                                      j.buffer.begin() + static_cast<std::ptrdiff_t>(j.length))
                              : Bytes{}});
    }
    at += n;
  }
  return out;
}

void expect_same(const std::vector<Outcome>& single, const std::vector<Outcome>& batched,
                 const char* what) {
  ASSERT_EQ(single.size(), batched.size());
  for (std::size_t i = 0; i < single.size(); ++i) {
    EXPECT_EQ(single[i].ok, batched[i].ok) << what << " packet " << i;
    if (!single[i].ok) {
      EXPECT_EQ(to_string(single[i].error), std::string(to_string(batched[i].error)))
          << what << " packet " << i;
    }
    EXPECT_EQ(to_hex(single[i].bytes), to_hex(batched[i].bytes)) << what << " packet " << i;
  }
}

// expect_jobs_match: each job's status, and on success its bytes, equal the one-by-one
// receiver's outcome.
void expect_jobs_match(const std::vector<PacketJob>& jobs, const std::vector<Outcome>& ref,
                       const char* what) {
  ASSERT_EQ(jobs.size(), ref.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_EQ(jobs[i].status.has_value(), ref[i].ok) << what << " packet " << i;
    if (ref[i].ok) {
      EXPECT_EQ(to_hex({jobs[i].buffer.data(), jobs[i].length}), to_hex(ref[i].bytes)) << i;
    } else {
      EXPECT_EQ(std::string(to_string(jobs[i].status.error())), to_string(ref[i].error)) << i;
    }
  }
}

void expect_same_counters(const Session& a, const Session& b) {
  EXPECT_EQ(a.drop_counters().auth, b.drop_counters().auth);
  EXPECT_EQ(a.drop_counters().replay, b.drop_counters().replay);
  EXPECT_EQ(a.drop_counters().malformed, b.drop_counters().malformed);
  EXPECT_EQ(a.drop_counters().wrong_context, b.drop_counters().wrong_context);
  EXPECT_EQ(a.stream_count(), b.stream_count());
}

// traffic builds plain RTP packets: SSRCs 1..4 interleaved in runs, sequence numbers
// crossing 65535 -> 0, some with a one-byte extension, duplicates and a malformed packet.
std::vector<Bytes> traffic(std::uint32_t seed) {
  std::mt19937 rng(seed);
  const Bytes ext = {0x10, 0xaa, 0x21, 0xbb, 0xcc};
  std::vector<Bytes> out;
  std::uint16_t seq[5] = {0, 65500, 65520, 100, 7};
  for (std::uint32_t i = 0; i < 240; ++i) {
    const std::uint32_t ssrc = static_cast<std::uint32_t>(1 + (i / 5 + rng() % 2) % 4);
    const std::size_t len = static_cast<std::size_t>(1 + rng() % 300);
    const bool with_ext = rng() % 7 == 0;
    out.push_back(rtp_packet(ssrc, seq[ssrc]++, len, 0, with_ext ? &ext : nullptr));
    if (rng() % 23 == 0) {
      out.push_back(out.back());  // the sender repeats an index: protect must refuse it
    }
  }
  out.push_back(Bytes{0x80, 0x60, 0x00});  // malformed
  return out;
}

TEST_P(SrtpBatch, ProtectBatchEqualsSinglePath) {
  const KeySet keys = make_keys(profile(), 41);
  SessionConfig c;
  const std::uint8_t ids[] = {2};
  c.stream_defaults.encrypted_extension_ids = ids;
  Session single = make_session(profile(), {keys}, c);
  Session batched = make_session(profile(), {keys}, c);
  const std::vector<Bytes> plain = traffic(7);
  expect_same(run_single(single, plain, true), run_batched(batched, plain, true, 99), "protect");
  for (std::uint32_t ssrc = 1; ssrc <= 4; ++ssrc) {
    EXPECT_EQ(*single.roc(ssrc), *batched.roc(ssrc));
  }
}

constexpr std::size_t kRtcpHeaderBytes = 8;  // header and sender SSRC, never encrypted

// protect_all protects `plain` one by one and keeps the packets the sender accepted.
std::vector<Bytes> protect_all(Session& tx, const std::vector<Bytes>& plain, bool rtcp) {
  std::vector<Bytes> wire;
  for (const Bytes& p : plain) {
    Bytes buf = p;
    const std::size_t n = buf.size();
    buf.resize(n + 64);
    if (Result<std::size_t> r = rtcp ? tx.protect_rtcp(buf, n) : tx.protect_rtp(buf, n)) {
      buf.resize(*r);
      wire.push_back(std::move(buf));
    }
  }
  return wire;
}

// disorder is what a network and an attacker make of `wire` (seeded): forged tags (the last
// byte: under SRTCP AEAD the MKI or index word), replays of the previous packet, swaps,
// forged replays of a packet 30 back (a forged byte the replay check must see first: the
// tag's for SRTP, the encrypted body's for SRTCP, whose last bytes may be its index), a
// malformed packet at the end; for SRTCP also up to four packets held and released 150
// packets later, behind their stream's window (SRTP's index estimate would take them for
// the next ROC instead).
std::vector<Bytes> disorder(const std::vector<Bytes>& wire, std::uint32_t seed, bool rtcp) {
  std::mt19937 rng(seed);
  std::vector<Bytes> rx_in;
  std::vector<Bytes> held;
  for (std::size_t i = 0; i < wire.size(); ++i) {
    Bytes p = wire[i];
    const unsigned dice = rng() % 16;
    if (dice == 0) {
      p[p.size() - 1] ^= 0x40;
    } else if (dice == 1 && i > 0) {
      rx_in.push_back(wire[i - 1]);
    } else if (dice == 2 && i > 3) {
      std::swap(p, rx_in[rx_in.size() - 2]);
      rx_in.push_back(p);
      continue;
    } else if (dice == 3 && i > 30) {
      Bytes old = wire[i - 30];
      old[rtcp ? kRtcpHeaderBytes + 1 : old.size() - 1] ^= 1;
      rx_in.push_back(old);
    } else if (dice == 4 && rtcp && held.size() < 4) {
      held.push_back(p);
      continue;
    }
    if (i % 150 == 149 && !held.empty()) {
      rx_in.insert(rx_in.end(), held.begin(), held.end());
      held.clear();
    }
    rx_in.push_back(std::move(p));
  }
  rx_in.push_back(Bytes(5, 0x80));
  return rx_in;
}

TEST_P(SrtpBatch, UnprotectBatchEqualsSinglePathUnderReplayForgeryAndReorder) {
  const KeySet keys = make_keys(profile(), 42);
  SessionConfig c;
  const std::uint8_t ids[] = {2};
  c.stream_defaults.encrypted_extension_ids = ids;
  Session tx = make_session(profile(), {keys}, c);
  std::vector<Bytes> rx_in = disorder(protect_all(tx, traffic(8), false), 5, false);
  for (std::uint32_t batch_seed : {1u, 2u, 3u}) {
    SessionConfig rc = c;
    rc.max_streams = 3;  // SSRC 4 (or whichever comes last) is refused
    Session single = make_session(profile(), {keys}, rc);
    Session batched = make_session(profile(), {keys}, rc);
    expect_same(run_single(single, rx_in, false), run_batched(batched, rx_in, false, batch_seed),
                "unprotect");
    expect_same_counters(single, batched);
    EXPECT_GT(single.drop_counters().replay, 0u);
    EXPECT_GT(single.drop_counters().auth, 0u);
    EXPECT_GT(single.drop_counters().wrong_context, 0u);
    for (std::uint32_t ssrc = 1; ssrc <= 4; ++ssrc) {
      ASSERT_EQ(single.has_stream(ssrc), batched.has_stream(ssrc));
      if (single.has_stream(ssrc)) {
        EXPECT_EQ(*single.roc(ssrc), *batched.roc(ssrc));
      }
    }
  }
}

// A forged packet just before the rollover, then a genuine one after it, in one batch: the
// batch first guesses ROC 1 for the second (assuming the first authenticates), then must fall
// back to what a one-by-one receiver sees.
TEST_P(SrtpBatch, ProvisionalEstimateIsRedoneWhenAnEarlierPacketFails) {
  const KeySet keys = make_keys(profile(), 43);
  Session tx = make_session(profile(), {keys});
  std::vector<Bytes> wire;
  for (std::uint16_t seq :
       {std::uint16_t{65534}, std::uint16_t{65535}, std::uint16_t{0}, std::uint16_t{1}}) {
    wire.push_back(protect(tx, rtp_packet(9, seq, 40)));
  }
  wire[1][20] ^= 1;
  const std::vector<Bytes> rx_in = {wire[1], wire[2], wire[3], wire[1], wire[0]};
  Session single = make_session(profile(), {keys});
  Session batched = make_session(profile(), {keys});
  std::vector<Bytes> copy = rx_in;
  std::vector<PacketJob> jobs;
  for (Bytes& p : copy) {
    jobs.push_back({p, p.size(), {}});
  }
  batched.unprotect_rtp_batch(jobs);
  const std::vector<Outcome> ref = run_single(single, rx_in, false);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].status.has_value(), ref[i].ok) << i;
  }
  expect_same_counters(single, batched);
}

TEST_P(SrtpBatch, MkiSelectsKeysPerPacketInsideABatch) {
  const KeySet k0 = make_keys(profile(), 44, 2);
  const KeySet k1 = make_keys(profile(), 45, 2);
  Session tx = make_session(profile(), {k0, k1});
  std::vector<Bytes> wire;
  for (std::uint16_t i = 0; i < 40; ++i) {
    const std::uint32_t ssrc = 20 + i % 2;
    if (i == 10) {
      ASSERT_TRUE(tx.set_active_key(20, 1));
    }
    wire.push_back(protect(tx, rtp_packet(ssrc, static_cast<std::uint16_t>(1000 + i), 30 + i)));
  }
  Session single = make_session(profile(), {k0, k1});
  Session batched = make_session(profile(), {k0, k1});
  expect_same(run_single(single, wire, false), run_batched(batched, wire, false, 4), "mki");
  EXPECT_EQ(single.drop_counters().auth, 0u);
}

// expect_batch_matches_single: two receivers made by `make_rx` take `first` one by one; then
// one takes `batch` as one batch and the other one by one. The batch's jobs must match the
// one-by-one outcomes, and the drop counters must agree. Returns the one-by-one outcomes.
template <class MakeRx>
std::vector<Outcome> expect_batch_matches_single(MakeRx make_rx, const std::vector<Bytes>& first,
                                                 const std::vector<Bytes>& batch,
                                                 const char* what) {
  Session single = make_rx();
  Session batched = make_rx();
  run_single(single, first, false);
  run_single(batched, first, false);
  const std::vector<Outcome> ref = run_single(single, batch, false);
  std::vector<Bytes> copy = batch;
  std::vector<PacketJob> jobs;
  for (Bytes& p : copy) {
    jobs.push_back({p, p.size(), {}});
  }
  batched.unprotect_rtp_batch(jobs);
  expect_jobs_match(jobs, ref, what);
  expect_same_counters(single, batched);
  return ref;
}

// Several packets of one SSRC in one batch, each judged as a one-by-one receiver judges it
// whatever happened to the packets before it in the batch: a packet far ahead (genuine, then
// forged) followed by one that its window leaves behind, and by one just after it. AEAD
// openings decrypt in place and cannot be redone, so the batch must send the packet whose
// fate depends on the one before it down the single path.
TEST_P(SrtpBatch, LaterPacketsOfAnSsrcAreJudgedAfterTheEarlierOnes) {
  const KeySet keys = make_keys(profile(), 46);
  SessionConfig c;
  c.replay_window = 128;
  Session tx = make_session(profile(), {keys}, c);
  std::map<int, Bytes> sent;  // protected in order: a sender refuses to go back
  for (int seq : {100, 101, 102, 540, 600, 601}) {
    sent[seq] = protect(tx, rtp_packet(9, static_cast<std::uint16_t>(seq), 60));
  }
  std::vector<Bytes> wire;
  for (int seq : {100, 101, 600, 102, 601, 540}) {
    wire.push_back(sent[seq]);
  }
  for (bool forge_the_far_one : {false, true}) {
    std::vector<Bytes> rx_in = wire;
    if (forge_the_far_one) {
      rx_in[2][20] ^= 1;
    }
    const std::vector<Outcome> ref =
        expect_batch_matches_single([&] { return make_session(profile(), {keys}, c); }, {}, rx_in,
                                    forge_the_far_one ? "forged" : "genuine");
    // 102 falls behind 600's window when 600 is genuine; 540 is inside 601's.
    EXPECT_EQ(ref[3].ok, forge_the_far_one);
    EXPECT_TRUE(ref[5].ok || forge_the_far_one);
  }
}

// A run of consecutive packets of one stream takes a shortcut in a batch (its index is the
// previous packet's plus one); here are the two places where that is wrong and the batch must
// judge the packet as a one-by-one receiver would.
//  - 2^15 past the stream's highest index: with 40000 authenticated, sequence 7231 is index
//    72767 (ROC 1), but 7232 is 72768 only if 7231 authenticates; if it is forged, 7232
//    estimates to ROC 0, far behind the window (and an AEAD opening cannot be redone).
//  - After the last index, 2^48 - 1: the next sequence number has no index (the session
//    reports the sequence exhausted), whatever the packet before it was.
//  - Behind the highest index: 109 arrives late, inside the window, and 110 after it is a
//    replay, not a packet newer than everything.
//  - On a stream whose window set_roc reset, close to where it was: a forged 65535 leaves the
//    next packet, 0, at the configured ROC, not the one after it.
TEST_P(SrtpBatch, RunsOfConsecutivePacketsAreJudgedAtTheirEdges) {
  const KeySet keys = make_keys(profile(), 47);
  auto make_rx = [&] { return make_session(profile(), {keys}); };
  {
    // With a packet of another stream between the two: the run is a stream's, not the chunk's.
    Session tx = make_session(profile(), {keys});
    const Bytes start = protect(tx, rtp_packet(9, 40000, 60));
    const Bytes other_start = protect(tx, rtp_packet(10, 500, 60));
    Bytes far = protect(tx, rtp_packet(9, 7231, 60));
    const Bytes other = protect(tx, rtp_packet(10, 501, 60));
    const Bytes next = protect(tx, rtp_packet(9, 7232, 60));
    expect_batch_matches_single(make_rx, {start}, {far, next}, "2^15 genuine");
    expect_batch_matches_single(make_rx, {start, other_start}, {far, other, next},
                                "2^15 genuine, interleaved");
    far[20] ^= 1;
    expect_batch_matches_single(make_rx, {start}, {far, next}, "2^15 forged");
    expect_batch_matches_single(make_rx, {start, other_start}, {far, other, next},
                                "2^15 forged, interleaved");
  }
  {
    Session tx = make_session(profile(), {keys});
    const Bytes first = protect(tx, rtp_packet(9, 1, 60));
    ASSERT_TRUE(tx.set_roc(9, UINT32_MAX));
    std::vector<Bytes> last;
    for (std::uint16_t seq : {std::uint16_t{65533}, std::uint16_t{65534}, std::uint16_t{65535}}) {
      last.push_back(protect(tx, rtp_packet(9, seq, 60)));
    }
    Bytes past = last.back();
    past[2] = 0;  // sequence number 0: no index under ROC 2^32 - 1 follows 65535
    past[3] = 0;
    auto make_rx_at_last_roc = [&] {
      Session rx = make_rx();
      Bytes p = first;
      EXPECT_TRUE(rx.unprotect_rtp(p).has_value());
      EXPECT_TRUE(rx.set_roc(9, UINT32_MAX));
      return rx;
    };
    expect_batch_matches_single(make_rx_at_last_roc, {last[0]}, {last[1], last[2], past},
                                "last index");
  }
  {
    Session tx = make_session(profile(), {keys});
    std::vector<Bytes> sent;
    for (std::uint16_t seq = 100; seq <= 110; ++seq) {
      sent.push_back(protect(tx, rtp_packet(9, seq, 60)));
    }
    std::vector<Bytes> first = sent;
    first.erase(first.begin() + 9);  // 109 comes later
    expect_batch_matches_single(make_rx, first, {sent[9], sent[10]}, "behind the highest");
  }
  {
    Session tx = make_session(profile(), {keys});
    const Bytes first = protect(tx, rtp_packet(9, 1, 60));
    ASSERT_TRUE(tx.set_roc(9, 5));
    const Bytes near = protect(tx, rtp_packet(9, 65000, 60));
    Bytes wrap = protect(tx, rtp_packet(9, 65535, 60));
    const Bytes after = protect(tx, rtp_packet(9, 0, 60));
    wrap[20] ^= 1;
    auto make_rx_reset = [&] {
      Session rx = make_rx();
      Bytes p = first;
      EXPECT_TRUE(rx.unprotect_rtp(p).has_value());
      EXPECT_TRUE(rx.set_roc(9, 5));
      p = near;
      EXPECT_TRUE(rx.unprotect_rtp(p).has_value());
      EXPECT_TRUE(rx.set_roc(9, 5));  // the window restarts; its highest index stays 5 || 65000
      return rx;
    };
    expect_batch_matches_single(make_rx_reset, {}, {wrap, after}, "not started");
  }
}

// rtcp_traffic builds plain RTCP packets: SSRCs 1..5 in runs, 8 to 400 bytes (GCM packets past
// the batch kernel's 256 bytes take the single path inside a batch), a short one and one of
// the wrong version.
std::vector<Bytes> rtcp_traffic(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Bytes> out;
  for (std::uint32_t i = 0; i < 260; ++i) {
    const auto ssrc = static_cast<std::uint32_t>(1 + (i / 4 + rng() % 2) % 5);
    out.push_back(rtcp_packet(ssrc, 8 + 4 * static_cast<std::size_t>(rng() % 99)));
  }
  out.insert(out.begin() + 50, Bytes{0x80, 0xc8, 0x00});  // shorter than a header
  Bytes wrong_version = rtcp_packet(2, 40);
  wrong_version[0] = 0x40;
  out.insert(out.begin() + 90, wrong_version);
  return out;
}

TEST_P(SrtpBatch, SrtcpProtectBatchEqualsSinglePath) {
  const KeySet keys = make_keys(profile(), 43);
  Session single = make_session(profile(), {keys});
  Session batched = make_session(profile(), {keys});
  const std::vector<Bytes> plain = rtcp_traffic(11);
  expect_same(run_single(single, plain, true, true), run_batched(batched, plain, true, 98, true),
              "protect rtcp");
  for (std::uint32_t ssrc = 1; ssrc <= 5; ++ssrc) {
    EXPECT_EQ(*single.srtcp_index(ssrc), *batched.srtcp_index(ssrc));
  }
}

// SRTCP indices are explicit, so a batch judges each packet's replay verdict against the
// window its earlier packets left: duplicates in and across batches, forgeries (a forged far
// index must not move the window), packets moved behind a 64-wide window, a full stream table.
TEST_P(SrtpBatch, SrtcpUnprotectBatchEqualsSinglePathUnderReplayForgeryAndReorder) {
  const KeySet keys = make_keys(profile(), 44);
  Session tx = make_session(profile(), {keys});
  std::vector<Bytes> rx_in = disorder(protect_all(tx, rtcp_traffic(12), true), 6, true);
  for (std::uint32_t batch_seed : {1u, 2u, 3u}) {
    SessionConfig rc;
    rc.replay_window = 64;
    rc.max_streams = 4;  // one of the five SSRCs is refused
    Session single = make_session(profile(), {keys}, rc);
    Session batched = make_session(profile(), {keys}, rc);
    expect_same(run_single(single, rx_in, false, true),
                run_batched(batched, rx_in, false, batch_seed, true), "unprotect rtcp");
    expect_same_counters(single, batched);
    EXPECT_GT(single.drop_counters().replay, 0u);
    EXPECT_GT(single.drop_counters().auth, 0u);
    EXPECT_GT(single.drop_counters().wrong_context, 0u);
  }
}

// SRTCP's version of the test above: in one batch, a packet far ahead (genuine, then forged),
// then one that its window leaves behind, then one inside it. AEAD openings cannot be redone,
// so the batch must not open the second before the first has authenticated or failed.
TEST_P(SrtpBatch, LaterSrtcpPacketsOfAnSsrcAreJudgedAfterTheEarlierOnes) {
  const KeySet keys = make_keys(profile(), 47);
  SessionConfig c;
  c.replay_window = 64;
  Session tx = make_session(profile(), {keys}, c);
  std::vector<Bytes> sent;  // SRTCP indices 0..199
  for (int i = 0; i < 200; ++i) {
    sent.push_back(protect(tx, rtcp_packet(9, 60), true));
  }
  // The second shape replays the far packet after one below it: the replay is above the latest
  // queued index of its stream, not above the highest.
  for (const bool replay_the_far_one : {false, true}) {
    for (const bool forge_the_far_one : {false, true}) {
      std::vector<Bytes> batch = {sent[150], sent[20], sent[120]};
      if (replay_the_far_one) {
        batch = {sent[150], sent[120], sent[150]};
      }
      if (forge_the_far_one) {
        batch[0][10] ^= 1;
      }
      Session single = make_session(profile(), {keys}, c);
      Session batched = make_session(profile(), {keys}, c);
      const std::vector<Bytes> start(sent.begin(), sent.begin() + 10);  // highest index 9
      run_single(single, start, false, true);
      run_single(batched, start, false, true);
      const std::vector<Outcome> ref = run_single(single, batch, false, true);
      std::vector<PacketJob> jobs;
      for (Bytes& p : batch) {
        jobs.push_back({p, p.size(), {}});
      }
      batched.unprotect_rtcp_batch(jobs);  // the three in one call
      expect_jobs_match(jobs, ref, forge_the_far_one ? "forged" : "genuine");
      if (replay_the_far_one) {
        // The replay is refused only when the first copy authenticated.
        EXPECT_EQ(ref[2].ok, forge_the_far_one);
      } else {
        // 20 falls behind 150's window when 150 is genuine; 120 is inside it.
        EXPECT_EQ(ref[1].ok, forge_the_far_one);
        EXPECT_TRUE(ref[2].ok);
      }
      expect_same_counters(single, batched);
    }
  }
}

}  // namespace
}  // namespace wireseal::test
