#pragma once
// The CLI's side of `wireseal bench`: the benchmarks run in a child process,
// wireseal-bench-runner (bench/bench_main.cc), so that Google Benchmark, libsrtp2 and the
// counting allocator never link into this binary. These functions start it, draw the progress
// line on stderr from the results it streams back, and turn the per-repetition results into
// BenchRows (medians).
//
// The runner is found, in order: $WIRESEAL_BENCH_RUNNER; next to this executable (the build
// tree puts it there); in the install tree's libexec directory relative to this executable's
// (bin/../libexec/wireseal/).

#include <string>
#include <vector>

#include "bench_results.h"

namespace wireseal::cli {

struct RunOutcome {
  std::vector<BenchRow> rows;       // in run order
  std::vector<std::string> errors;  // "name: message" for every benchmark that failed
  std::size_t benchmarks_run = 0;
};

// selected_benchmarks lists the registered benchmark names `filter` selects, the way Google
// Benchmark's --benchmark_filter does (a regex searched in the name; a leading '-' negates).
std::vector<std::string> selected_benchmarks(const std::string& filter);

// short_profile_filter is the filter of the short profile when no --filter is given (the
// registry's subset of suites with large grids, bench/suites.cc); empty when nothing is cut.
std::string short_profile_filter();

RunOutcome run_benchmarks(const BenchConfig& config);

}  // namespace wireseal::cli
