// dtls::ReplayWindow on its own (RFC 6347 §4.1.2.6): against a model that remembers every
// sequence number ever marked, over random walks of jumps, reorderings and duplicates, for
// every window size; plus the edges (first record, the window's far end, 48-bit sequences).
#include "wireseal/dtls/replay_window.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>

namespace wireseal::test {
namespace {

using dtls::ReplayWindow;

// Model: fresh iff newer than the highest, or within `size` of it and never marked.
struct ModelWindow {
  std::size_t size;
  std::set<std::uint64_t> marked;

  bool is_fresh(std::uint64_t s) const {
    if (marked.empty() || s > *marked.rbegin()) {
      return true;
    }
    return *marked.rbegin() - s < size && marked.count(s) == 0;
  }
};

TEST(DtlsReplayWindow, SizesRoundUpToAPowerOfTwoOfAtLeast64) {
  EXPECT_EQ(ReplayWindow(1).size(), 64u);
  EXPECT_EQ(ReplayWindow(64).size(), 64u);
  EXPECT_EQ(ReplayWindow(65).size(), 128u);
  EXPECT_EQ(ReplayWindow(1024).size(), 1024u);
  EXPECT_THROW(ReplayWindow(0), std::invalid_argument);
  EXPECT_THROW(ReplayWindow(1025), std::invalid_argument);
}

TEST(DtlsReplayWindow, EdgesOfTheWindow) {
  ReplayWindow w(64);
  EXPECT_TRUE(w.is_fresh(0));
  w.mark(0);
  EXPECT_FALSE(w.is_fresh(0));
  w.mark(100);
  EXPECT_EQ(w.highest(), 100u);
  EXPECT_TRUE(w.is_fresh(37));   // 100 - 37 = 63: the window's oldest slot, unseen
  EXPECT_FALSE(w.is_fresh(36));  // 64 behind: outside
  w.mark(37);
  EXPECT_FALSE(w.is_fresh(37));
  w.mark(36);  // outside the window: ignored, and still not fresh
  EXPECT_FALSE(w.is_fresh(36));
  const std::uint64_t top = (std::uint64_t{1} << 48) - 1;  // the largest DTLS sequence number
  w.mark(top);
  EXPECT_FALSE(w.is_fresh(top));
  EXPECT_TRUE(w.is_fresh(top - 1));
  EXPECT_FALSE(w.is_fresh(100));
}

class DtlsReplayWindowWalk : public ::testing::TestWithParam<std::size_t> {};

TEST_P(DtlsReplayWindowWalk, AgreesWithTheModelOnRandomWalks) {
  ReplayWindow w(GetParam());
  ModelWindow model{w.size(), {}};
  std::mt19937_64 rng(GetParam());
  std::uint64_t next = 0;
  for (int step = 0; step < 20000; ++step) {
    std::uint64_t s = next;
    switch (rng() % 6) {
      case 0:  // a jump forward, sometimes past the whole window
        s = next + rng() % (3 * w.size());
        break;
      case 1:  // a late record, inside or just outside the window
        s = next > 0 ? next - 1 - rng() % std::min<std::uint64_t>(next, w.size() + 8) : 0;
        break;
      case 2:  // a duplicate of something recent
        s = model.marked.empty() ? 0 : *model.marked.rbegin() - rng() % 4;
        break;
      default:  // in order
        break;
    }
    ASSERT_EQ(w.is_fresh(s), model.is_fresh(s)) << "step " << step << " seq " << s;
    if (rng() % 8 != 0) {  // some records fail authentication and are never marked
      w.mark(s);
      if (model.is_fresh(s)) {
        model.marked.insert(s);
      }
      next = std::max(next, s + 1);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, DtlsReplayWindowWalk, ::testing::Values(64, 128, 256, 1024));

}  // namespace
}  // namespace wireseal::test
