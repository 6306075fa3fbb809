#pragma once
// The libFuzzer entry point every target defines (declared here for -Wmissing-declarations),
// and the check targets use for the properties they assert.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace wireseal::fuzz {

// kTagsUnchecked is true in the fuzzing build (WIRESEAL_FUZZING_UNSAFE), where every tag and
// MAC verifies: properties such as "a modified message fails to verify" hold only without it.
#if defined(WIRESEAL_FUZZING_UNSAFE) && WIRESEAL_FUZZING_UNSAFE
inline constexpr bool kTagsUnchecked = true;
#else
inline constexpr bool kTagsUnchecked = false;
#endif

// require aborts (a crash to libFuzzer, a failed test to the replayer) when a property the
// target checks does not hold, naming it so the report says which one.
inline void require(bool holds, const char* property) {
  if (!holds) {
    std::fprintf(stderr, "fuzz property violated: %s\n", property);
    std::abort();
  }
}

}  // namespace wireseal::fuzz
