#pragma once
// with_count turns a run-time count into a compile-time one: it calls
// f(std::integral_constant<std::size_t, N>{}) for N == count, for counts 1..Max (other counts
// call nothing). Multi-buffer kernels are templates on their lane or block count so their
// loops unroll and their state stays in registers; this is their one dispatch.

#include <cstddef>
#include <type_traits>
#include <utility>

namespace wireseal::crypto::detail {

template <std::size_t Max, class F>
inline void with_count(std::size_t count, F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (void)((count == I + 1 ? (f(std::integral_constant<std::size_t, I + 1>{}), true) : false) ||
           ...);
  }
  (std::make_index_sequence<Max>{});
}

// with_rounds is the AES kernels' one dispatch on the key size: it calls
// f(std::integral_constant<int, R>{}) for R = rounds (10, 12 or 14), so that every round loop
// unrolls and the round keys can live in registers.
template <class F>
inline decltype(auto) with_rounds(int rounds, F&& f) {
  switch (rounds) {
    case 10:
      return f(std::integral_constant<int, 10>{});
    case 12:
      return f(std::integral_constant<int, 12>{});
    default:
      return f(std::integral_constant<int, 14>{});
  }
}

}  // namespace wireseal::crypto::detail
