#include "bench_runner.h"

#include <benchmark/benchmark.h>
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <regex>
#include <stdexcept>
#include <string_view>

#include "bench/bench_util.h"
#include "bench/suites.h"

namespace wireseal::cli {
namespace {

struct ParsedName {
  std::string op;  // "suite/op"
  std::string impl;
  std::uint64_t size = 0;
};

// parse_name splits "suite/op/impl/size"; Google Benchmark may append "/..." qualifiers
// (e.g. "/real_time"), which are ignored.
ParsedName parse_name(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t slash = name.find('/', start);
    const std::size_t end = slash == std::string::npos ? name.size() : slash;
    parts.push_back(name.substr(start, end - start));
    start = end + 1;
  }
  if (parts.size() < 4) {
    throw std::runtime_error("benchmark name is not suite/op/impl/size: " + name);
  }
  return ParsedName{parts[0] + "/" + parts[1], parts[2], std::stoull(parts[3])};
}

// Samples of one benchmark across repetitions.
struct Samples {
  ParsedName name;
  std::vector<double> ns, bytes, allocs, payload;
};

// CollectingReporter keeps every repetition and draws the progress line. Google Benchmark
// reports a benchmark once all its repetitions are done, so the line advances per benchmark.
class CollectingReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit CollectingReporter(std::size_t total)
      : total_(total), tty_(isatty(fileno(stderr)) != 0), start_(Clock::now()) {}

  bool ReportContext(const Context& /*context*/) override { return true; }

  void ReportRuns(const std::vector<Run>& runs) override {
    if (runs.empty()) {
      return;
    }
    // Google Benchmark calls this twice per benchmark when it repeats: once with the
    // repetitions, once with its own aggregates (mean, median, ...), which we skip: medians
    // are taken here, over the repetitions.
    if (runs.front().run_type != Run::RT_Iteration) {
      return;
    }
    const std::string name = runs.front().benchmark_name();
    for (const Run& run : runs) {
      if (run.error_occurred) {
        errors_.push_back(fmt::format("{}: {}", name, run.error_message));
        break;
      }
      add_sample(run);
    }
    ++done_;
    progress(name);
  }

  void Finalize() override {
    if (tty_) {
      fmt::print(stderr, "\r\033[K");
    }
    fmt::print(stderr, "ran {} benchmarks in {:.0f} s\n", done_, elapsed_s());
  }

  std::vector<Samples>& samples() { return samples_; }
  std::vector<std::string>& errors() { return errors_; }
  std::size_t done() const { return done_; }

 private:
  using Clock = std::chrono::steady_clock;

  void add_sample(const Run& run) {
    const std::string name = run.benchmark_name();
    auto it = index_.find(name);
    if (it == index_.end()) {
      it = index_.emplace(name, samples_.size()).first;
      samples_.push_back(Samples{parse_name(name), {}, {}, {}, {}});
    }
    Samples& s = samples_[it->second];
    const auto counter = [&run](const char* key) {
      const auto c = run.counters.find(key);
      return c == run.counters.end() ? 0.0 : c->second.value;
    };
    s.ns.push_back(run.GetAdjustedRealTime());
    s.bytes.push_back(counter("B/op"));
    s.allocs.push_back(counter("allocs/op"));
    // bytes_per_second is a rate over CPU time; times CPU time per op gives the payload per op.
    const double cpu_s_per_op =
        run.cpu_accumulated_time / static_cast<double>(run.iterations > 0 ? run.iterations : 1);
    s.payload.push_back(counter("bytes_per_second") * cpu_s_per_op);
  }

  void progress(const std::string& name) {
    const std::string line =
        fmt::format("[{:>{}}/{}] {:4.0f}s {}", done_, fmt::formatted_size("{}", total_), total_,
                    elapsed_s(), name);
    if (tty_) {
      fmt::print(stderr, "\r\033[K{}", line);
    } else {
      fmt::print(stderr, "{}\n", line);
    }
    std::fflush(stderr);
  }

  double elapsed_s() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

  std::size_t total_;
  bool tty_;
  Clock::time_point start_;
  std::size_t done_ = 0;
  std::vector<Samples> samples_;
  std::map<std::string, std::size_t> index_;
  std::vector<std::string> errors_;
};

BenchRow to_row(Samples& s) {
  BenchRow row;
  row.op = s.name.op;
  row.impl = s.name.impl;
  row.size = s.name.size;
  row.median_ns = median(s.ns);
  row.payload_bytes = median(s.payload);
  row.mb_per_s = row.median_ns > 0 ? row.payload_bytes / row.median_ns * 1e3 : 0;
  row.bytes_per_op = median(s.bytes);
  row.allocs_per_op = median(s.allocs);
  row.samples_ns = std::move(s.ns);
  return row;
}

}  // namespace

std::vector<std::string> selected_benchmarks(const std::string& filter) {
  bench::register_all_suites();
  std::string_view spec = filter;
  bool negate = false;
  if (!spec.empty() && spec.front() == '-') {
    negate = true;
    spec.remove_prefix(1);
  }
  if (spec.empty() || spec == "all") {
    spec = ".";
  }
  // Google Benchmark compiles the filter as a POSIX extended regex and searches the name.
  const std::regex re(std::string(spec), std::regex::extended);
  std::vector<std::string> out;
  for (const std::string& name : bench::registered_names()) {
    if (std::regex_search(name, re) != negate) {
      out.push_back(name);
    }
  }
  return out;
}

RunOutcome run_benchmarks(const BenchConfig& config) {
  const std::size_t total = selected_benchmarks(config.filter).size();
  if (total == 0) {
    throw std::runtime_error(fmt::format("no benchmark matches --filter '{}'", config.filter));
  }
  // Google Benchmark takes its settings as flags; hand them over as an argv.
  std::vector<std::string> args = {
      "wireseal", fmt::format("--benchmark_min_time={}", config.min_time_s),
      fmt::format("--benchmark_repetitions={}", config.repetitions)};
  std::vector<char*> argv;
  for (std::string& a : args) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  benchmark::Initialize(&argc, argv.data());

  CollectingReporter reporter(total);
  benchmark::RunSpecifiedBenchmarks(&reporter, config.filter.empty() ? "." : config.filter);

  RunOutcome outcome;
  outcome.benchmarks_run = reporter.done();
  outcome.errors = std::move(reporter.errors());
  for (Samples& s : reporter.samples()) {
    outcome.rows.push_back(to_row(s));
  }
  return outcome;
}

}  // namespace wireseal::cli
