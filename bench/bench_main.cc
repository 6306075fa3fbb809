// wireseal-bench-runner: the registered suites under Google Benchmark's own main, with all of
// its flags (--benchmark_filter, --benchmark_min_time, --benchmark_repetitions,
// --benchmark_format, --benchmark_out, --benchmark_list_tests, ...). It is the only binary
// that links the suites, Google Benchmark, libsrtp2 and the counting allocator;
// `wireseal bench` runs it as a child process (tools/wireseal/bench_runner.cc).
//
// Flags of our own, taken out before Google Benchmark parses the rest:
//   --iterations=N        every benchmark runs exactly N iterations (Google Benchmark 1.7 has
//                         no flag for that), for repeatable instruction counts under callgrind
//   --short_profile_filter  print the filter of `wireseal bench`'s short profile and exit
//   --results_fd=N        instead of the console table, stream the results as JSON lines to
//                         descriptor N (the protocol is in bench/results_stream.h)
#include <benchmark/benchmark.h>

#include <charconv>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "bench/bench_util.h"
#include "bench/results_stream.h"
#include "bench/suites.h"

namespace {

struct RunnerFlags {
  long long iterations = 0;  // 0: Google Benchmark's time-based choice
  bool print_short_profile_filter = false;
  std::optional<int> results_fd;
};

// take_flag removes every "--name" and "--name=value" from argv and returns the last value
// ("" for the bare form), or nullopt when the flag is absent.
std::optional<std::string> take_flag(int* argc, char** argv, std::string_view name) {
  std::optional<std::string> value;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == name) {
      value = "";
    } else if (arg.substr(0, name.size()) == name && arg.size() > name.size() &&
               arg[name.size()] == '=') {
      value = std::string(arg.substr(name.size() + 1));
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return value;
}

// parse_count reads a whole non-negative decimal number; nullopt for anything else.
template <class Int>
std::optional<Int> parse_count(const std::string& text) {
  Int n{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc() || ptr != end || n < 0) {
    return std::nullopt;
  }
  return n;
}

// take_runner_flags removes our flags from argv; nullopt (after a message) when one is invalid.
std::optional<RunnerFlags> take_runner_flags(int* argc, char** argv) {
  RunnerFlags flags;
  if (const auto v = take_flag(argc, argv, "--iterations")) {
    const auto n = parse_count<long long>(*v);
    if (!n) {
      std::fprintf(stderr, "--iterations must be a non-negative number\n");
      return std::nullopt;
    }
    flags.iterations = *n;
  }
  flags.print_short_profile_filter = take_flag(argc, argv, "--short_profile_filter").has_value();
  if (const auto v = take_flag(argc, argv, "--results_fd")) {
    flags.results_fd = parse_count<int>(*v);
    if (!flags.results_fd) {
      std::fprintf(stderr, "--results_fd must be a descriptor number\n");
      return std::nullopt;
    }
  }
  return flags;
}

void run_benchmarks(const RunnerFlags& flags) {
  if (flags.results_fd) {
    wireseal::bench::ResultsStreamReporter reporter(*flags.results_fd);
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<RunnerFlags> flags = take_runner_flags(&argc, argv);
  if (!flags) {
    return 1;
  }
  wireseal::bench::set_fixed_iterations(flags->iterations);
  wireseal::bench::register_all_suites();
  if (flags->print_short_profile_filter) {
    std::printf("%s\n", wireseal::bench::short_profile_filter().c_str());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  try {
    run_benchmarks(*flags);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wireseal-bench-runner: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
