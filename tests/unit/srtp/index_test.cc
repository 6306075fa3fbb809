// Properties of the building blocks: the packet-index estimate against the RFC 3711 §3.3.1
// definition (the candidate among ROC-1, ROC, ROC+1 closest to the highest index), the replay
// window against a naive set model, and RTP header / extension parsing.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

#include "srtp_test_util.h"
#include "wireseal/srtp/packet_index.h"
#include "wireseal/srtp/replay_window.h"
#include "wireseal/srtp/rtp_header.h"

namespace wireseal::test {
namespace {

// closest_index is the RFC's intent stated directly: of the indices v * 2^16 + SEQ for
// v in {ROC-1, ROC, ROC+1}, the one nearest the highest index; std::nullopt when that nearest
// candidate lies outside [0, 2^48) (the estimate then has no valid answer).
std::optional<std::uint64_t> closest_index(std::uint64_t highest, std::uint16_t seq) {
  const std::int64_t roc = static_cast<std::int64_t>(highest >> 16);
  const std::int64_t h = static_cast<std::int64_t>(highest);
  std::int64_t best_v = roc;
  std::int64_t best_dist = INT64_MAX;
  for (std::int64_t v : {roc, roc - 1, roc + 1}) {
    const std::int64_t idx = v * 65536 + seq;
    const std::int64_t dist = idx > h ? idx - h : h - idx;
    if (dist < best_dist) {
      best_dist = dist;
      best_v = v;
    }
  }
  if (best_v < 0 || best_v > 0xffffffffLL) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(best_v) << 16 | seq;
}

TEST(SrtpPacketIndex, EstimateMatchesClosestCandidate) {
  std::mt19937_64 rng(42);
  int compared = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t roc = (i % 4 == 0) ? rng() % 3 : rng() % 0x100000000ull;
    const std::uint64_t highest = roc << 16 | (rng() & 0xffff);
    const auto seq = static_cast<std::uint16_t>(rng());
    const std::optional<std::uint64_t> got = srtp::estimate_packet_index(highest, seq);
    const std::optional<std::uint64_t> want = closest_index(highest, seq);
    // Exactly half-way (distance 2^15) the Appendix A thresholds keep ROC; skip those.
    const std::uint16_t s_l = static_cast<std::uint16_t>(highest);
    if (static_cast<std::uint16_t>(seq - s_l) == 0x8000) {
      continue;
    }
    ASSERT_EQ(got, want) << "highest " << highest << " seq " << seq;
    ++compared;
  }
  EXPECT_GT(compared, 190000);
}

TEST(SrtpPacketIndex, Edges) {
  EXPECT_EQ(srtp::estimate_packet_index(5, 6), 6u);
  EXPECT_EQ(srtp::estimate_packet_index(0xfffe, 1), 0x10001u);        // rollover
  EXPECT_EQ(srtp::estimate_packet_index(0x10001, 0xfffe), 0xfffeu);   // late pre-rollover
  EXPECT_FALSE(srtp::estimate_packet_index(10, 0xfff0).has_value());  // "before" index 0
  EXPECT_FALSE(srtp::estimate_packet_index(srtp::kMaxPacketIndex, 5).has_value());
}

TEST(SrtpReplayWindow, MatchesNaiveSetModel) {
  for (std::size_t size : {64u, 128u, 1024u}) {
    std::vector<std::uint64_t> words(srtp::replay_window_words(size));
    std::uint64_t highest = 0;
    bool started = false;
    srtp::ReplayWindow w(words, highest, started);
    ASSERT_EQ(w.size(), size);
    std::set<std::uint64_t> seen;
    std::uint64_t top = 0;
    std::mt19937_64 rng(size);
    std::uint64_t base = 1000;
    for (int i = 0; i < 50000; ++i) {
      base += rng() % 3;
      const std::uint64_t jitter = rng() % (2 * size + 10);
      const std::uint64_t idx =
          (rng() % 8 == 0) ? base + rng() % 5000 : (base > jitter ? base - jitter : 0);
      const bool model_fresh =
          seen.empty() || idx > top || (top - idx < size && seen.count(idx) == 0);
      ASSERT_EQ(w.is_fresh(idx), model_fresh) << "size " << size << " index " << idx;
      if (model_fresh) {
        w.mark(idx);
        seen.insert(idx);
        top = std::max(top, idx);
        base = std::max(base, idx);
      }
    }
  }
}

TEST(SrtpRtpHeader, ParsesCsrcsAndBothExtensionForms) {
  const Bytes one = {0x10, 0xaa, 0x00, 0x21, 0xbb, 0xcc, 0xf0};
  Bytes p = rtp_packet(0x01020304, 0x0506, 7, 2, &one, 0xBEDE);
  Result<srtp::RtpHeader> h = srtp::parse_rtp_header(p);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->ssrc, 0x01020304u);
  EXPECT_EQ(h->sequence, 0x0506);
  EXPECT_EQ(h->csrc_count, 2);
  EXPECT_EQ(h->extension_offset, 20u);
  EXPECT_EQ(h->extension_form(), srtp::ExtensionForm::kOneByte);
  EXPECT_EQ(h->size, 20u + 4 + 8);
  srtp::ExtensionIterator it(p, *h, h->extension_form());
  srtp::ExtensionElement e{};
  ASSERT_TRUE(it.next(e));
  EXPECT_EQ(e.id, 1);
  EXPECT_EQ(e.data_size, 1u);
  ASSERT_TRUE(it.next(e));  // padding byte skipped
  EXPECT_EQ(e.id, 2);
  EXPECT_EQ(e.data_size, 2u);
  EXPECT_FALSE(it.next(e));  // ID 15 stops the walk
  EXPECT_FALSE(it.malformed());

  const Bytes two = {0x05, 0x03, 1, 2, 3, 0x00, 0x07, 0x00};
  p = rtp_packet(1, 1, 0, 0, &two, 0x1000);
  h = srtp::parse_rtp_header(p);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->extension_form(), srtp::ExtensionForm::kTwoByte);
  srtp::ExtensionIterator it2(p, *h, h->extension_form());
  ASSERT_TRUE(it2.next(e));
  EXPECT_EQ(e.id, 5);
  EXPECT_EQ(e.data_size, 3u);
  ASSERT_TRUE(it2.next(e));
  EXPECT_EQ(e.id, 7);
  EXPECT_EQ(e.data_size, 0u);
  EXPECT_FALSE(it2.next(e));

  // Truncations are malformed.
  for (std::size_t n = 0; n < h->size; ++n) {
    EXPECT_FALSE(srtp::parse_rtp_header(std::span<const std::uint8_t>(p.data(), n))) << n;
  }
  const Bytes overrun = {0x1f, 0xaa};  // ID 1 claiming 16 bytes
  p = rtp_packet(1, 1, 0, 0, &overrun, 0xBEDE);
  h = srtp::parse_rtp_header(p);
  srtp::ExtensionIterator it3(p, *h, h->extension_form());
  EXPECT_FALSE(it3.next(e));
  EXPECT_TRUE(it3.malformed());
}

}  // namespace
}  // namespace wireseal::test
