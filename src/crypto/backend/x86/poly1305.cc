// Poly1305's final reduction (poly1305.h; the rest is inline there so the ChaCha20 kernel can
// interleave it with its rounds).
#include "backend/x86/poly1305.h"

namespace wireseal::crypto::detail {

void poly1305_finish(const Poly1305State& st, std::uint8_t tag[16]) noexcept {
  using u128 = Poly1305Wide;
  // Full reduction: g = h + 5 - 2^130 = h - p; keep it when not negative (bit 130 of h + 5
  // set), selected by mask. h < 2^130 + 2^128, so one subtraction is enough.
  u128 t = u128{st.h0} + 5;
  const auto g0 = static_cast<std::uint64_t>(t);
  t = u128{st.h1} + static_cast<std::uint64_t>(t >> 64);
  const auto g1 = static_cast<std::uint64_t>(t);
  const std::uint64_t g2 = st.h2 + static_cast<std::uint64_t>(t >> 64);
  const std::uint64_t use_g = 0 - (g2 >> 2);
  const std::uint64_t m0 = (st.h0 & ~use_g) | (g0 & use_g);
  const std::uint64_t m1 = (st.h1 & ~use_g) | (g1 & use_g);
  // tag = (h + s) mod 2^128
  t = u128{m0} + st.pad0;
  store_le64(tag, static_cast<std::uint64_t>(t));
  store_le64(tag + 8, m1 + st.pad1 + static_cast<std::uint64_t>(t >> 64));
}

}  // namespace wireseal::crypto::detail
