#pragma once
// The side-by-side report of one run: a row per (operation, size) with wireseal's four figures,
// the baseline's ns/op and the ratio baseline / wireseal (> 1 means wireseal is faster).

#include <optional>
#include <string>
#include <vector>

#include "bench_results.h"

namespace wireseal::cli {

struct PairedRow {
  std::string op;
  std::uint64_t size = 0;
  const BenchRow* subject = nullptr;   // wireseal, if it ran
  const BenchRow* baseline = nullptr;  // the first other implementation, if it ran
  std::optional<double> ratio() const;
};

// pair_rows groups `rows` by (op, size), keeping the order in which they first appear.
std::vector<PairedRow> pair_rows(const std::vector<BenchRow>& rows);

// format_table prints one row per (op, size) with its baseline beside it, then, when there are
// "scale/" rows, the multi-core scaling table (aggregate rate and efficiency per thread count).
std::string format_table(const std::vector<BenchRow>& rows);
std::string format_csv(const std::vector<BenchRow>& rows);

// TextTable lays out left-aligned text and right-aligned numbers in columns; shared by the
// run report and the comparison.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  void add(std::vector<std::string> cells);
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> right_;
};

}  // namespace wireseal::cli
