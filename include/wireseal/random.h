#pragma once
// RandomSource: where wireseal gets unpredictable bytes (CBC record IVs, handshake randoms).
// Injected so tests and fuzzers can be deterministic; the default draws from OpenSSL's DRBG,
// which allocates only on its first use per thread.

#include <cstddef>
#include <cstdint>
#include <span>

namespace wireseal {

struct RandomSource {
  void (*fill)(void* context, std::span<std::uint8_t> out) noexcept = nullptr;
  void* context = nullptr;

  void operator()(std::span<std::uint8_t> out) const noexcept { fill(context, out); }
};

// system_random returns the OpenSSL RAND_bytes source.
RandomSource system_random() noexcept;

}  // namespace wireseal
