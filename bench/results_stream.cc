#include "bench/results_stream.h"

#include <cerrno>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

namespace wireseal::bench {
namespace {

// A value the CLI can always parse: a counter that came out NaN or infinite is reported as 0.
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

double counter(const benchmark::BenchmarkReporter::Run& run, const char* key) {
  const auto c = run.counters.find(key);
  return c == run.counters.end() ? 0.0 : c->second.value;
}

// repetition_figures turns one repetition into the per-operation figures of the protocol.
nlohmann::json repetition_figures(const benchmark::BenchmarkReporter::Run& run) {
  // GetAdjustedRealTime is per iteration in the benchmark's unit (every suite registers ns).
  const double ns_per_unit = 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
  // bytes_per_second is a rate over CPU time, or over wall-clock time for the threaded
  // "scale/" rows (UseRealTime, every thread's operations counted); times the same time per op
  // gives the payload per op.
  const double iterations = static_cast<double>(run.iterations > 0 ? run.iterations : 1);
  const double cpu_s_per_op = run.threads > 1 ? run.real_accumulated_time / iterations
                                              : run.cpu_accumulated_time / iterations;
  return {
      {"real_time_ns", finite_or_zero(run.GetAdjustedRealTime() * ns_per_unit)},
      {"bytes_per_op", finite_or_zero(counter(run, "B/op"))},
      {"allocs_per_op", finite_or_zero(counter(run, "allocs/op"))},
      {"payload_bytes", finite_or_zero(counter(run, "bytes_per_second") * cpu_s_per_op)},
  };
}

}  // namespace

ResultsStreamReporter::ResultsStreamReporter(int fd) : out_(fdopen(fd, "w")) {
  if (out_ == nullptr) {
    throw std::system_error(errno, std::generic_category(), "--results_fd=" + std::to_string(fd));
  }
}

ResultsStreamReporter::~ResultsStreamReporter() { std::fclose(out_); }

void ResultsStreamReporter::ReportRuns(const std::vector<Run>& runs) {
  // With repetitions Google Benchmark reports each benchmark twice: its repetitions, then its
  // own aggregates (mean, median, ...), which are skipped: the CLI takes medians itself.
  if (runs.empty() || runs.front().run_type != Run::RT_Iteration) {
    return;
  }
  nlohmann::json line = {{"name", runs.front().benchmark_name()},
                         {"runs", nlohmann::json::array()}};
  for (const Run& run : runs) {
    if (run.error_occurred) {
      line["error"] = run.error_message;
      break;
    }
    line["runs"].push_back(repetition_figures(run));
  }
  // An error message is free text; replace rather than throw on bytes that are not UTF-8.
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
}

}  // namespace wireseal::bench
