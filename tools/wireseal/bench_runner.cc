#include "bench_runner.h"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string_view>

#include "subprocess.h"

namespace wireseal::cli {
namespace {

namespace fs = std::filesystem;

// Both come from tools/wireseal/CMakeLists.txt: the runner's file name, and where the install
// puts it relative to the directory the CLI is installed in.
constexpr const char* kRunnerName = WIRESEAL_BENCH_RUNNER_NAME;
constexpr const char* kRunnerInstallDir = WIRESEAL_BENCH_RUNNER_RELATIVE_DIR;
constexpr const char* kRunnerVariable = "WIRESEAL_BENCH_RUNNER";

// The runner streams results on this descriptor; its stdout is sent to our stderr meanwhile.
constexpr int kResultsFd = 3;

bool is_executable_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

fs::path own_directory() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw std::runtime_error("cannot locate the wireseal executable: " + ec.message());
  }
  return self.parent_path();
}

fs::path find_bench_runner() {
  if (const char* forced = std::getenv(kRunnerVariable); forced != nullptr && *forced != '\0') {
    if (!is_executable_file(forced)) {
      throw std::runtime_error(
          fmt::format("{}={} is not an executable file", kRunnerVariable, forced));
    }
    return forced;
  }
  const fs::path dir = own_directory();
  const fs::path next_to_cli = dir / kRunnerName;
  const fs::path installed = (dir / kRunnerInstallDir / kRunnerName).lexically_normal();
  for (const fs::path& candidate : {next_to_cli, installed}) {
    if (is_executable_file(candidate)) {
      return candidate;
    }
  }
  throw std::runtime_error(
      fmt::format("cannot find the benchmark runner: neither {} nor {} exists (build the "
                  "wireseal_bench_runner target, or set {})",
                  next_to_cli.string(), installed.string(), kRunnerVariable));
}

// check_exit turns a failed runner into an exception; the runner said why on stderr.
void check_exit(Subprocess& runner) {
  if (const int status = runner.wait(); status != 0) {
    throw std::runtime_error(fmt::format("{} failed (exit status {})", kRunnerName, status));
  }
}

// runner_output runs the runner with `args` and returns the lines it prints on stdout.
std::vector<std::string> runner_output(const std::vector<std::string>& args) {
  Subprocess runner(find_bench_runner(), args, STDOUT_FILENO);
  std::vector<std::string> lines;
  std::string line;
  while (runner.read_line(line)) {
    lines.push_back(std::move(line));
  }
  check_exit(runner);
  return lines;
}

// registered_benchmarks lists every benchmark the runner has, in registration (run) order.
std::vector<std::string> registered_benchmarks() {
  return runner_output({"--benchmark_list_tests=true"});
}

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

// ProgressLine draws "[ done/total] seconds name" on stderr: rewritten in place on a
// terminal, one line per benchmark otherwise. It advances once per benchmark, when all its
// repetitions are done (that is when the runner reports it).
class ProgressLine {
 public:
  explicit ProgressLine(std::size_t total)
      : total_(total), tty_(isatty(fileno(stderr)) != 0), start_(Clock::now()) {}

  void advance(const std::string& name) {
    ++done_;
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

  void finish() const {
    if (tty_) {
      fmt::print(stderr, "\r\033[K");
    }
    fmt::print(stderr, "ran {} benchmarks in {:.0f} s\n", done_, elapsed_s());
  }

  std::size_t done() const { return done_; }

 private:
  using Clock = std::chrono::steady_clock;

  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  std::size_t total_;
  bool tty_;
  Clock::time_point start_;
  std::size_t done_ = 0;
};

// ResultCollector gathers the runner's result lines (protocol: bench/results_stream.h) into
// per-benchmark samples, in run order.
class ResultCollector {
 public:
  // add takes one result line and returns the benchmark's name.
  std::string add(const std::string& line) {
    try {
      const nlohmann::json result = nlohmann::json::parse(line);
      const std::string name = result.at("name").get<std::string>();
      for (const nlohmann::json& run : result.at("runs")) {
        add_sample(name, run);
      }
      if (const auto error = result.find("error"); error != result.end()) {
        errors_.push_back(fmt::format("{}: {}", name, error->get<std::string>()));
      }
      return name;
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(fmt::format("unreadable result from {}: {}", kRunnerName, e.what()));
    }
  }

  std::vector<Samples>& samples() { return samples_; }
  std::vector<std::string>& errors() { return errors_; }

 private:
  void add_sample(const std::string& name, const nlohmann::json& run) {
    auto it = index_.find(name);
    if (it == index_.end()) {
      it = index_.emplace(name, samples_.size()).first;
      samples_.push_back(Samples{parse_name(name), {}, {}, {}, {}});
    }
    Samples& s = samples_[it->second];
    s.ns.push_back(run.at("real_time_ns").get<double>());
    s.bytes.push_back(run.at("bytes_per_op").get<double>());
    s.allocs.push_back(run.at("allocs_per_op").get<double>());
    s.payload.push_back(run.at("payload_bytes").get<double>());
  }

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

// runner_arguments hands the run's settings to the runner as Google Benchmark flags.
std::vector<std::string> runner_arguments(const BenchConfig& config) {
  return {fmt::format("--benchmark_filter={}", config.filter.empty() ? "." : config.filter),
          fmt::format("--benchmark_min_time={}", config.min_time_s),
          fmt::format("--benchmark_repetitions={}", config.repetitions),
          fmt::format("--results_fd={}", kResultsFd)};
}

}  // namespace

std::vector<std::string> selected_benchmarks(const std::string& filter) {
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
  for (std::string& name : registered_benchmarks()) {
    if (std::regex_search(name, re) != negate) {
      out.push_back(std::move(name));
    }
  }
  return out;
}

std::string short_profile_filter() {
  const std::vector<std::string> lines = runner_output({"--short_profile_filter"});
  return lines.empty() ? std::string() : lines.front();
}

RunOutcome run_benchmarks(const BenchConfig& config) {
  const std::size_t total = selected_benchmarks(config.filter).size();
  if (total == 0) {
    throw std::runtime_error(fmt::format("no benchmark matches --filter '{}'", config.filter));
  }
  Subprocess runner(find_bench_runner(), runner_arguments(config), kResultsFd);
  ProgressLine progress(total);
  ResultCollector collector;
  std::string line;
  while (runner.read_line(line)) {
    progress.advance(collector.add(line));
  }
  check_exit(runner);
  progress.finish();

  RunOutcome outcome;
  outcome.benchmarks_run = progress.done();
  outcome.errors = std::move(collector.errors());
  for (Samples& s : collector.samples()) {
    outcome.rows.push_back(to_row(s));
  }
  return outcome;
}

}  // namespace wireseal::cli
