// wireseal_bench_crypto: the registered suites under Google Benchmark's own main, with all of
// its flags (--benchmark_filter, --benchmark_min_time, --benchmark_repetitions,
// --benchmark_format, --benchmark_out, ...). `wireseal bench` runs the same benchmarks.
//
// One flag of our own: --iterations=N runs every benchmark exactly N iterations (Google
// Benchmark 1.7 has no flag for that), for repeatable instruction counts under callgrind.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "bench/bench_util.h"
#include "bench/suites.h"

namespace {

// take_iterations_flag removes --iterations=N from argv and returns N (0 when absent).
long long take_iterations_flag(int* argc, char** argv) {
  constexpr std::string_view kFlag = "--iterations=";
  long long n = 0;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) == kFlag) {
      n = std::strtoll(argv[i] + kFlag.size(), nullptr, 10);
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const long long iterations = take_iterations_flag(&argc, argv);
  if (iterations < 0) {
    std::fprintf(stderr, "--iterations must be positive\n");
    return 1;
  }
  wireseal::bench::set_fixed_iterations(iterations);
  wireseal::bench::register_all_suites();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
