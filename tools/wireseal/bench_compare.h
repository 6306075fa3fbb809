#pragma once
// `wireseal bench --compare OLD.json NEW.json`: per row, the change in median ns/op and whether
// it is significant (Mann-Whitney U on the repetition samples, alpha 0.05), plus a geomean line
// per implementation. The baseline's rows are compared too: a baseline that "changed" between
// two runs of the same OpenSSL measures the machine's noise, not the code.

#include <optional>
#include <string>
#include <vector>

#include "bench_results.h"

namespace wireseal::cli {

inline constexpr double kAlpha = 0.05;

struct CompareRow {
  std::string op;
  std::string impl;
  std::uint64_t size = 0;
  double old_ns = 0;
  double new_ns = 0;
  double delta = 0;         // new / old - 1
  std::optional<double> p;  // nullopt: not enough samples
  std::size_t old_n = 0, new_n = 0;
  bool significant() const { return p.has_value() && *p <= kAlpha; }
};

struct Comparison {
  std::vector<CompareRow> rows;
  std::vector<std::pair<std::string, double>> geomean_delta;  // impl -> geomean(new/old) - 1
  std::vector<std::string> warnings;  // differing machine, compiler, rows only in one file
};

Comparison compare(const BenchResults& old_results, const BenchResults& new_results);

std::string format_comparison_table(const Comparison& c);
std::string format_comparison_csv(const Comparison& c);
std::string format_comparison_json(const Comparison& c);

}  // namespace wireseal::cli
