// wireseal_bench_crypto: the registered suites under Google Benchmark's own main, with all of
// its flags (--benchmark_filter, --benchmark_min_time, --benchmark_repetitions,
// --benchmark_format, --benchmark_out, ...). `wireseal bench` runs the same benchmarks.
#include <benchmark/benchmark.h>

#include "bench/suites.h"

int main(int argc, char** argv) {
  wireseal::bench::register_all_suites();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
