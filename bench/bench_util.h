#pragma once
// Shared helpers of the benchmark suites: the payload sizes, deterministic buffers, and
// register_op, which registers one (operation, implementation, size) benchmark and makes every
// suite report the same four figures (ns/op, MB/s, B/op, allocs/op).
//
// Names are "suite/operation/implementation/size", e.g. "crypto/aes128gcm_seal/openssl/1400",
// so the CLI can pair an implementation with its baseline row by row.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/alloc_counter.h"

namespace wireseal::bench {

// The payload sizes every primitive runs at: tiny (a DTLS alert, an SRTCP report), typical
// audio and MTU-sized packets, and bulk (SMB I/O).
inline constexpr std::size_t kSizes[] = {16, 64, 256, 1024, 1400, 8192, 65536};

// Implementation names. Every operation has the library and at least one baseline.
inline constexpr std::string_view kWireseal = "wireseal";
inline constexpr std::string_view kOpenSsl = "openssl";

using Bytes = std::vector<std::uint8_t>;

// pattern returns `n` deterministic, non-trivial bytes (so runs are reproducible and no
// backend can shortcut on zeros).
Bytes pattern(std::size_t n, std::uint8_t seed);

// benchmark_name builds "suite/op/impl/size".
std::string benchmark_name(std::string_view suite, std::string_view op, std::string_view impl,
                           std::size_t size);

// registered_names lists every benchmark registered through register_op, in registration
// (and so run) order; the short profile's filter is built from their suite prefixes.
const std::vector<std::string>& registered_names();

// Timed is what a suite's fixture factory returns: the operation to time (a callable returning
// true on success) and the payload bytes it processes per call (for MB/s).
template <class Op>
struct Timed {
  Op op;
  std::size_t payload_bytes;
};
template <class Op>
Timed<Op> timed(Op op, std::size_t payload_bytes) {
  return Timed<Op>{std::move(op), payload_bytes};
}

// set_fixed_iterations makes benchmarks registered afterwards run exactly `n` iterations
// (0: Google Benchmark's time-based choice). Fixed counts make instruction counts under
// callgrind repeatable; Google Benchmark then appends "/iterations:n" to the names.
void set_fixed_iterations(std::int64_t n);

namespace detail {
std::int64_t fixed_iterations();
void note_registered(std::string name);
// report_figures sets bytes processed and the allocation counters from the counts taken
// around the timed loop.
void report_figures(benchmark::State& state, std::size_t payload_bytes,
                    const test::AllocStats& before, const test::AllocStats& after);
}  // namespace detail

// run_timed times `t.op` in the benchmark loop. One untimed call first checks that the
// operation works and lets any lazily allocated state (OpenSSL's, ours) settle, so B/op and
// allocs/op report the steady state a long-lived connection sees.
template <class Op>
void run_timed(benchmark::State& state, Timed<Op>& t) {
  if (!t.op()) {
    state.SkipWithError("operation failed before timing");
    return;
  }
  const test::AllocStats before = test::alloc_stats();
  for (auto _ : state) {
    if (!t.op()) [[unlikely]] {
      state.SkipWithError("operation failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  const test::AllocStats after = test::alloc_stats();
  detail::report_figures(state, t.payload_bytes, before, after);
}

// register_named registers one benchmark under `name` with the harness's common settings
// (nanoseconds, the fixed iteration count if one was set) and records the name for the
// runner. Every suite registers through it.
// `threads` > 0 runs the body in that many threads at once (Google Benchmark's Threads), each
// timing its own loop, with wall-clock time reported (the "scale/" rows).
template <class Body>
void register_named(std::string name, Body body, int threads = 0) {
  benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(name.c_str(), std::move(body));
  b->Unit(benchmark::kNanosecond);
  if (threads > 0) {
    b->Threads(threads)->UseRealTime();
  }
  if (detail::fixed_iterations() > 0) {
    b->Iterations(detail::fixed_iterations());
  }
  detail::note_registered(std::move(name));
}

// Multi-core scaling: the operations below also run as "scale/<suite>_<op>_<size>/<impl>/<N>"
// for N = 1 .. the core count, N threads at once, each building its own fixture (its own
// session, sealer or channel, keys and buffers: nothing shared, nothing written by two
// threads). ns/op is per operation per thread, so N threads do N * 10^9 / ns operations a
// second, and the scaling efficiency at N is ns(1) / ns(N) (`wireseal bench` prints both).
struct ScalingCase {
  std::string_view suite;
  std::string_view op;
  std::size_t size;
};
inline constexpr ScalingCase kScalingCases[] = {
    {"srtp", "aes128cm_sha1_80_protect", 1200},  // an SFU's per-packet work
    {"dtls", "aes128gcm_encrypt", 1400},         // a DTLS data channel's record
    {"smb", "transform_seal_gcm128", 65536},     // an SMB channel's encrypted I/O
};

// scaling_threads is the largest N: the cores this process may run on (at least 2, so the
// rows exist on any machine).
int scaling_threads();

template <class Make>
void register_scaling(std::string_view suite, std::string_view op, std::string_view impl, Make make,
                      std::size_t size) {
  const std::string scaled_op =
      std::string(suite) + "_" + std::string(op) + "_" + std::to_string(size);
  for (int n = 1; n <= scaling_threads(); ++n) {
    register_named(
        benchmark_name("scale", scaled_op, impl, static_cast<std::size_t>(n)),
        [make, size](benchmark::State& state) {
          try {
            auto t = make(size);  // this thread's own fixture
            run_timed(state, t);
          } catch (const std::exception& e) {
            state.SkipWithError(e.what());
          }
        },
        n);
  }
}

// register_op registers "suite/op/impl/size" for each size. `make(size)` builds the fixture
// (keys, buffers) outside the timed region and returns a Timed; it may throw, which skips the
// benchmark with the exception's message instead of ending the whole run.
template <class Make>
void register_op(std::string_view suite, std::string_view op, std::string_view impl, Make make,
                 std::span<const std::size_t> sizes = kSizes) {
  for (const std::size_t size : sizes) {
    register_named(benchmark_name(suite, op, impl, size), [make, size](benchmark::State& state) {
      try {
        auto t = make(size);
        run_timed(state, t);
      } catch (const std::exception& e) {
        state.SkipWithError(e.what());
      }
    });
  }
  for (const ScalingCase& c : kScalingCases) {
    if (c.suite == suite && c.op == op &&
        std::find(sizes.begin(), sizes.end(), c.size) != sizes.end()) {
      register_scaling(suite, op, impl, make, c.size);
    }
  }
}

// pin keeps the compiler from discarding or hoisting work on a buffer: the bytes are treated as
// read and written by something it cannot see.
inline void pin(Bytes& bytes) {
  std::uint8_t* p = bytes.data();
  // The "memory" clobber in DoNotOptimize makes the pointed-to bytes escape as well.
  benchmark::DoNotOptimize(p);
}

}  // namespace wireseal::bench
