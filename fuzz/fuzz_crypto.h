#pragma once
// What the scripted targets need from the crypto layer: a backend chosen by the input among
// those this build and CPU offer, and a deterministic RandomSource (CBC IVs, SMB nonce salts)
// so that a crashing input replays identically and twin objects draw the same bytes.
#include <cstdint>
#include <initializer_list>
#include <span>

#include "fuzz_input.h"
#include "wireseal/crypto/backend.h"
#include "wireseal/random.h"

namespace wireseal::fuzz {

// pick_backend returns kAuto or a forced backend available for every primitive in `uses`.
inline crypto::Backend pick_backend(FuzzInput& in, std::initializer_list<crypto::Primitive> uses) {
  const crypto::Backend all[] = {crypto::Backend::kAuto, crypto::Backend::kOpenSsl,
                                 crypto::Backend::kNative, crypto::Backend::kIpsecMb};
  crypto::Backend usable[4];
  std::size_t count = 0;
  for (const crypto::Backend b : all) {
    bool ok = true;
    for (const crypto::Primitive p : uses) {
      ok = ok && crypto::is_available(p, b);
    }
    if (ok) {
      usable[count++] = b;
    }
  }
  return usable[in.below(count)];
}

// CounterRandom is a RandomSource producing a counter stream from a seed: predictable, which
// is exactly what a fuzz target wants (and what no real caller may use).
class CounterRandom {
 public:
  explicit CounterRandom(std::uint64_t seed) noexcept : state_(seed) {}
  CounterRandom(const CounterRandom&) = delete;
  CounterRandom& operator=(const CounterRandom&) = delete;
  RandomSource source() noexcept { return {&CounterRandom::fill, this}; }

 private:
  static void fill(void* self, std::span<std::uint8_t> out) noexcept {
    auto* r = static_cast<CounterRandom*>(self);
    for (std::uint8_t& b : out) {
      r->state_ = r->state_ * 6364136223846793005ull + 1442695040888963407ull;
      b = static_cast<std::uint8_t>(r->state_ >> 56);
    }
  }
  std::uint64_t state_;
};

}  // namespace wireseal::fuzz
