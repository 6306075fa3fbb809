// Result<T> holds a value or an Error, and copies, moves and destroys the T it holds, never an
// Error. It is trivially copyable when T is, so the packet paths' Result<std::size_t>
// is returned in registers, and a scalar's Result is two whole words with no padding, so that
// GCC does not build it from narrow stores and reload it wide (docs/DESIGN.md, Decisions).
#include "wireseal/result.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

namespace wireseal::test {
namespace {

static_assert(std::is_trivially_copyable_v<Result<std::size_t>>);
static_assert(std::is_trivially_copyable_v<Result<std::span<std::uint8_t>>>);
static_assert(std::is_trivially_copyable_v<Result<std::span<const std::uint8_t>>>);
static_assert(std::is_trivially_copyable_v<Status>);
static_assert(!std::is_trivially_copyable_v<Result<std::string>>);
static_assert(!std::is_trivially_copyable_v<Result<std::unique_ptr<int>>>);
static_assert(std::is_nothrow_move_constructible_v<Result<std::string>>);
static_assert(sizeof(Result<std::size_t>) == 2 * sizeof(std::size_t));
static_assert(sizeof(Result<std::uint32_t>) == 8);
static_assert(sizeof(Result<std::uint16_t>) == 4);
static_assert(sizeof(Status) == 1);

TEST(Result, HoldsAValueOrAnError) {
  const Result<std::size_t> n = std::size_t{42};
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 42u);
  const Result<std::size_t> e = Error::kMalformed;
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), Error::kMalformed);
}

TEST(Result, EveryErrorSurvivesEveryTagWidth) {
  for (int e = static_cast<int>(Error::kBufferTooSmall); e <= static_cast<int>(Error::kClosed);
       ++e) {
    const auto error = static_cast<Error>(e);
    const Result<std::uint64_t> wide = error;
    const Result<std::uint16_t> narrow = error;
    const Result<std::uint8_t> byte = error;
    const Status status = error;
    EXPECT_FALSE(wide || narrow || byte || status);
    EXPECT_EQ(wide.error(), error);
    EXPECT_EQ(narrow.error(), error);
    EXPECT_EQ(byte.error(), error);
    EXPECT_EQ(status.error(), error);
  }
  const Result<std::uint8_t> zero = std::uint8_t{0};
  ASSERT_TRUE(zero);
  EXPECT_EQ(*zero, 0);
  EXPECT_TRUE(Status{});
}

TEST(Result, TriviallyCopyableResultsCopyTheValueOrTheError) {
  std::array<std::uint8_t, 4> buf{};
  Result<std::span<std::uint8_t>> a = std::span<std::uint8_t>(buf);
  Result<std::span<std::uint8_t>> b = Error::kAuthFailed;
  b = a;
  ASSERT_TRUE(b);
  EXPECT_EQ(b->data(), buf.data());
  EXPECT_EQ(b->size(), 4u);
  a = Error::kReplay;
  const Result<std::span<std::uint8_t>> c = a;
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error(), Error::kReplay);
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

TEST(Error, EveryErrorHasANameAndAnOrigin) {
  // Peer errors are about the input bytes; everything else is the caller's to fix.
  const Error peer[] = {Error::kMalformed,    Error::kAuthFailed, Error::kReplay,
                        Error::kWrongContext, Error::kTimedOut,   Error::kPeerAlert,
                        Error::kPeerRefused,  Error::kClosed};
  const Error caller[] = {Error::kBufferTooSmall,    Error::kAliasing,  Error::kInvalidArgument,
                          Error::kSequenceExhausted, Error::kKeyLimit,  Error::kUnsupported,
                          Error::kBadState,          Error::kTableFull, Error::kOutOfMemory};
  for (Error e : peer) {
    EXPECT_EQ(error_origin(e), ErrorOrigin::kPeer) << to_string(e);
    EXPECT_STRNE(to_string(e), "unknown error");
  }
  for (Error e : caller) {
    EXPECT_EQ(error_origin(e), ErrorOrigin::kCaller) << to_string(e);
    EXPECT_STRNE(to_string(e), "unknown error");
  }
  EXPECT_EQ(std::size(peer) + std::size(caller), static_cast<std::size_t>(Error::kClosed));
}

TEST(DropCounters, CountEachReasonInItsOwnCounter) {
  DropCounters d;
  d.count(Error::kAuthFailed);
  d.count(Error::kReplay);
  d.count(Error::kReplay);
  d.count(Error::kWrongContext);
  d.count(Error::kTableFull);
  d.count(Error::kMalformed);
  d.count(Error::kBufferTooSmall);
  EXPECT_EQ(d.auth, 1u);
  EXPECT_EQ(d.replay, 2u);
  EXPECT_EQ(d.wrong_context, 2u);
  EXPECT_EQ(d.malformed, 2u);
  EXPECT_EQ(d.total(), 7u);
}

}  // namespace
}  // namespace wireseal::test
