#pragma once
// The result model of `wireseal bench`: one row per (operation, implementation, size) with the
// per-repetition samples it came from, plus the machine it ran on. The JSON written by --out
// is exactly this model, and --compare / --load read it back.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "machine_info.h"

namespace wireseal::cli {

// kSubject is the implementation under test; every other implementation is a baseline.
inline constexpr const char* kSubject = "wireseal";

struct BenchRow {
  std::string op;                  // "crypto/aes128gcm_seal"
  std::string impl;                // "wireseal" or a baseline ("openssl")
  std::uint64_t size = 0;          // payload size in the benchmark name
  double median_ns = 0;            // median over repetitions of real time per op
  double mb_per_s = 0;             // payload bytes per op / median_ns; 1 MB = 10^6 bytes
  double bytes_per_op = 0;         // heap bytes allocated per op (median over repetitions)
  double allocs_per_op = 0;        // heap allocations per op (median over repetitions)
  double payload_bytes = 0;        // bytes processed per op (batch: all messages)
  std::vector<double> samples_ns;  // ns/op of each repetition, in run order
  std::string kernel;              // wireseal rows: the kernels that ran (bench_kernels.h)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BenchRow, op, impl, size, median_ns, mb_per_s,
                                                bytes_per_op, allocs_per_op, payload_bytes,
                                                samples_ns, kernel)

struct BenchConfig {
  int repetitions = 0;
  double min_time_s = 0;
  std::string filter;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BenchConfig, repetitions, min_time_s, filter)

struct BenchResults {
  int format_version = 1;
  MachineInfo machine;
  BenchConfig config;
  std::vector<BenchRow> rows;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BenchResults, format_version, machine, config, rows)

// load_results reads a file written by save_results; throws std::runtime_error with the path
// on a missing or malformed file.
BenchResults load_results(const std::string& path);
void save_results(const BenchResults& results, const std::string& path);

// median of `samples` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> samples);

}  // namespace wireseal::cli
