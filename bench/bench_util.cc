#include "bench/bench_util.h"

#include <sched.h>

#include <algorithm>
#include <string>

namespace wireseal::bench {
namespace {

std::vector<std::string>& names() {
  static std::vector<std::string> all;
  return all;
}

std::int64_t g_fixed_iterations = 0;

}  // namespace

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes out(n);
  std::uint32_t x = 0x9e3779b9u ^ seed;
  for (std::uint8_t& b : out) {
    // xorshift32: cheap, deterministic, no zero runs.
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return out;
}

std::string benchmark_name(std::string_view suite, std::string_view op, std::string_view impl,
                           std::size_t size) {
  std::string name;
  name.reserve(suite.size() + op.size() + impl.size() + 16);
  name.append(suite).append("/").append(op).append("/").append(impl).append("/");
  name.append(std::to_string(size));
  return name;
}

const std::vector<std::string>& registered_names() { return names(); }

void set_fixed_iterations(std::int64_t n) { g_fixed_iterations = n; }

int scaling_threads() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const int cores = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
  return std::max(cores, 2);
}

namespace detail {

std::int64_t fixed_iterations() { return g_fixed_iterations; }

void note_registered(std::string name) { names().push_back(std::move(name)); }

void report_figures(benchmark::State& state, std::size_t payload_bytes,
                    const test::AllocStats& before, const test::AllocStats& after) {
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(iterations * static_cast<std::int64_t>(payload_bytes));
  // kAvgIterations divides by the iteration count when the run is reported: per-op figures.
  state.counters["B/op"] = benchmark::Counter(static_cast<double>(after.bytes - before.bytes),
                                              benchmark::Counter::kAvgIterations);
  state.counters["allocs/op"] = benchmark::Counter(static_cast<double>(after.count - before.count),
                                                   benchmark::Counter::kAvgIterations);
}

}  // namespace detail
}  // namespace wireseal::bench
