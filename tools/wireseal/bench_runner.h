#pragma once
// run_benchmarks runs the registered suites in this process through Google Benchmark, with a
// progress line on stderr, and turns the per-repetition runs into BenchRows (medians).

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

RunOutcome run_benchmarks(const BenchConfig& config);

}  // namespace wireseal::cli
