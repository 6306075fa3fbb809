#pragma once
// Drivers of the SHA-NI round groups, shared by SHA-1 and SHA-256 through their policy structs
// (Sha1Rounds, sha1_ni_rounds.h; Sha256Rounds, sha256_ni_rounds.h). Include only from
// translation units compiled with -msha -msse4.1.

#include <cstdint>
#include <utility>

namespace wireseal::crypto::detail {

// load_block loads a 64-byte block's four message words into the lane's schedule registers.
template <class Rounds>
[[gnu::always_inline]] inline void load_block(typename Rounds::Lane& lane,
                                              const std::uint8_t* block) noexcept {
  Rounds::template load_word<0>(lane, block);
  Rounds::template load_word<1>(lane, block);
  Rounds::template load_word<2>(lane, block);
  Rounds::template load_word<3>(lane, block);
}

// group_across runs group G for each of N lanes, loading the lane's words in the groups that
// first read them.
template <class Rounds, int N, int G>
[[gnu::always_inline]] inline void group_across(typename Rounds::Lane* lanes,
                                                const std::uint8_t* const* blocks) noexcept {
  for (int i = 0; i < N; ++i) {
    if constexpr (G < 4) {
      Rounds::template load_word<G>(lanes[i], blocks[i]);
    }
    Rounds::template group<G>(lanes[i]);
  }
}

template <class Rounds, int N, int... G>
[[gnu::always_inline]] inline void compress_groups(typename Rounds::Lane* lanes,
                                                   const std::uint8_t* const* blocks,
                                                   std::integer_sequence<int, G...>) noexcept {
  (group_across<Rounds, N, G>(lanes, blocks), ...);
}

// compress_lanes compresses one block for each of N lanes, group by group across the lanes,
// so that each group's instructions for different lanes are independent and overlap in the
// pipeline. Function templates, not lambdas, all the way down: GCC does not inline a lambda
// this large, and out of line the state goes through memory (7% slower, measured).
template <class Rounds, int N>
[[gnu::always_inline]] inline void compress_lanes(typename Rounds::Lane* lanes,
                                                  const std::uint8_t* const* blocks) noexcept {
  compress_groups<Rounds, N>(lanes, blocks, std::make_integer_sequence<int, Rounds::kGroups>{});
}

}  // namespace wireseal::crypto::detail
