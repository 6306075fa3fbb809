// Result<T> holds a value or an Error, and copies, moves and destroys the T it holds, never an
// Error. (Whether it should be trivially copyable for trivially copyable T is open: see
// docs/DESIGN.md, Decisions.)
#include "wireseal/result.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace wireseal::test {
namespace {

TEST(Result, HoldsAValueOrAnError) {
  const Result<std::size_t> n = std::size_t{42};
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 42u);
  const Result<std::size_t> e = Error::kMalformed;
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), Error::kMalformed);
}

TEST(Result, NonTrivialValuesAreCopiedMovedAndDestroyed) {
  Result<std::string> a = std::string(100, 'x');  // heap-allocated: leaks show under ASan
  Result<std::string> b = a;
  EXPECT_EQ(*b, *a);
  b = Result<std::string>(Error::kReplay);
  EXPECT_EQ(b.error(), Error::kReplay);
  b = a;
  EXPECT_EQ(b->size(), 100u);
  Result<std::unique_ptr<int>> p = std::make_unique<int>(7);
  Result<std::unique_ptr<int>> q = std::move(p);
  ASSERT_TRUE(q);
  EXPECT_EQ(**q, 7);
  q = Error::kBadState;
  EXPECT_EQ(q.error(), Error::kBadState);
}

}  // namespace
}  // namespace wireseal::test
