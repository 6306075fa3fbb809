#pragma once
// ResultsStreamReporter: how wireseal-bench-runner hands its results to `wireseal bench`.
//
// The CLI starts the runner as a child process with --results_fd=N and reads descriptor N. In
// place of Google Benchmark's console table the runner then writes one JSON object per line,
// one line per benchmark in run order, flushed as soon as the benchmark finishes (the CLI
// advances its progress line on each):
//
//   {"name": "crypto/aes128gcm_seal/wireseal/1400",
//    "runs": [{"real_time_ns": 147.2, "bytes_per_op": 0, "allocs_per_op": 0,
//              "payload_bytes": 1400}, ...],          one entry per repetition
//    "error": "operation failed"}                      only for a failed benchmark; "runs" then
//                                                      holds the repetitions before the failure
//
// Our own stream rather than Google Benchmark's JSON file: it carries per-operation figures
// computed here, where the harness's Run records are, and it is always valid JSON (Google
// Benchmark writes NaN unquoted for a counter divided by zero iterations).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <vector>

namespace wireseal::bench {

class ResultsStreamReporter final : public benchmark::BenchmarkReporter {
 public:
  // ResultsStreamReporter writes to descriptor `fd`, which it takes over (closed on
  // destruction). Throws std::system_error if `fd` cannot be opened for writing.
  explicit ResultsStreamReporter(int fd);
  ~ResultsStreamReporter() override;
  ResultsStreamReporter(const ResultsStreamReporter&) = delete;
  ResultsStreamReporter& operator=(const ResultsStreamReporter&) = delete;

  // Nothing goes to the console: the context header would land in the CLI's stderr.
  bool ReportContext(const Context& /*context*/) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override;

 private:
  std::FILE* out_;
};

}  // namespace wireseal::bench
