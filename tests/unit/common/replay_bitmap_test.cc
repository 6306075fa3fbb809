// The shared anti-replay bitmap against a model that remembers every number: random walks of
// marks and checks over every window size the protocols use, with jumps that cross words,
// wrap the ring and leave it, so the word-at-a-time clearing is checked against bit-by-bit
// truth.
#include "common/replay_bitmap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace wireseal::detail {
namespace {

class Model {
 public:
  explicit Model(std::uint64_t size) : size_(size) {}
  bool is_fresh(std::uint64_t n) const {
    if (seen_.empty() || n > highest_) {
      return true;
    }
    return highest_ - n < size_ && seen_.count(n) == 0;
  }
  void mark(std::uint64_t n) {
    if (!seen_.empty() && n <= highest_ && highest_ - n >= size_) {
      return;
    }
    seen_.insert(n);
    highest_ = std::max(highest_, n);
  }

 private:
  std::uint64_t size_;
  std::uint64_t highest_ = 0;
  std::set<std::uint64_t> seen_;
};

TEST(ReplayBitmap, RandomWalksAgreeWithAModelOfEveryNumberSeen) {
  for (std::size_t words : {1u, 2u, 4u, 16u, 512u}) {
    const std::uint64_t size = words * 64;
    SCOPED_TRACE("window " + std::to_string(size));
    std::vector<std::uint64_t> bits(words, ~std::uint64_t{0});  // garbage before the first mark
    std::uint64_t highest = 0;
    bool started = false;
    Model model(size);
    std::mt19937_64 rng(size);
    std::uint64_t cursor = rng() % 1000;
    for (int step = 0; step < 20000; ++step) {
      // Mostly small steps around the top, sometimes jumps of up to two windows, sometimes
      // far back.
      const std::uint64_t r = rng() % 100;
      if (r < 60) {
        cursor += rng() % 5;
      } else if (r < 80) {
        cursor += rng() % (2 * size + 1);
      } else if (cursor > size) {
        cursor -= rng() % (size + 8);
      }
      ASSERT_EQ(replay_is_fresh(bits, highest, started, cursor), model.is_fresh(cursor))
          << "step " << step << " n " << cursor;
      if (rng() % 4 != 0) {
        replay_mark(bits, highest, started, cursor);
        model.mark(cursor);
      }
    }
    replay_reset(bits, started);
    EXPECT_TRUE(replay_is_fresh(bits, highest, started, 0));
  }
}

TEST(ReplayBitmap, AJumpClearsExactlyTheSkippedSlots) {
  // 256-bit window: mark everything, then step forward by every distance below the size and
  // check which of the old numbers are still remembered.
  for (std::uint64_t jump = 1; jump < 256; ++jump) {
    std::vector<std::uint64_t> bits(4, 0);
    std::uint64_t highest = 0;
    bool started = false;
    for (std::uint64_t n = 1000; n < 1256; ++n) {
      replay_mark(bits, highest, started, n);
    }
    replay_mark(bits, highest, started, 1255 + jump);
    for (std::uint64_t n = 1256 + jump - 256; n < 1256; ++n) {
      ASSERT_FALSE(replay_is_fresh(bits, highest, started, n)) << jump << " " << n;
    }
    for (std::uint64_t n = 1256; n < 1255 + jump; ++n) {
      ASSERT_TRUE(replay_is_fresh(bits, highest, started, n)) << jump << " " << n;
    }
  }
}

}  // namespace
}  // namespace wireseal::detail
