#include "bench_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <string_view>
#include <utility>

namespace wireseal::cli {
namespace {

std::string ns(double v) { return v < 100 ? fmt::format("{:.1f}", v) : fmt::format("{:.0f}", v); }
std::string mbs(double v) { return fmt::format("{:.0f}", v); }
std::string count(double v) {
  // Whole numbers stay whole; fractions (an allocation every few ops) show two decimals.
  return v == static_cast<double>(static_cast<long long>(v)) ? fmt::format("{:.0f}", v)
                                                             : fmt::format("{:.2f}", v);
}

constexpr const char* kMissing = "-";

}  // namespace

std::optional<double> PairedRow::ratio() const {
  if (subject == nullptr || baseline == nullptr || subject->median_ns <= 0) {
    return std::nullopt;
  }
  return baseline->median_ns / subject->median_ns;
}

std::vector<PairedRow> pair_rows(const std::vector<BenchRow>& rows) {
  std::vector<PairedRow> out;
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> index;
  for (const BenchRow& row : rows) {
    const auto key = std::make_pair(row.op, row.size);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, out.size()).first;
      out.push_back(PairedRow{row.op, row.size, nullptr, nullptr});
    }
    PairedRow& p = out[it->second];
    if (row.impl == kSubject) {
      p.subject = &row;
    } else if (p.baseline == nullptr) {
      p.baseline = &row;
    }
  }
  // Keep each operation's sizes together and ascending, operations in first-seen order.
  std::map<std::string, std::size_t> op_order;
  for (const PairedRow& p : out) {
    op_order.emplace(p.op, op_order.size());
  }
  std::stable_sort(out.begin(), out.end(), [&op_order](const PairedRow& a, const PairedRow& b) {
    return std::make_pair(op_order.at(a.op), a.size) < std::make_pair(op_order.at(b.op), b.size);
  });
  return out;
}

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : right_(std::move(right_aligned)) {
  rows_.push_back(std::move(header));
}

void TextTable::add(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

std::string TextTable::render() const {
  std::vector<std::size_t> width(rows_.front().size(), 0);
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string& cell = i < row.size() ? row[i] : std::string();
      if (i > 0) {
        out += "  ";
      }
      out +=
          right_[i] ? fmt::format("{:>{}}", cell, width[i]) : fmt::format("{:<{}}", cell, width[i]);
    }
    while (!out.empty() && out.back() == ' ') {
      out.pop_back();
    }
    out += '\n';
  };
  line(rows_.front());
  std::size_t total = 0;
  for (const std::size_t w : width) {
    total += w + 2;
  }
  out += std::string(total - 2, '-') + '\n';
  for (std::size_t r = 1; r < rows_.size(); ++r) {
    line(rows_[r]);
  }
  return out;
}

namespace {

constexpr std::string_view kScalePrefix = "scale/";

bool is_scaling(const BenchRow& row) { return row.op.starts_with(kScalePrefix); }

// format_scaling prints the "scale/" rows: their size is the thread count and their ns/op the
// wall-clock time per operation of all threads together (bench/bench_util.h), so the
// aggregate rate is 10^9 / ns and the efficiency at N threads is ns(1) / (N * ns(N)).
std::string format_scaling(const std::vector<BenchRow>& rows) {
  std::map<std::pair<std::string, std::string>, double> one_thread;
  for (const BenchRow& r : rows) {
    if (is_scaling(r) && r.size == 1) {
      one_thread[{r.op, r.impl}] = r.median_ns;
    }
  }
  TextTable table({"multi-core scaling", "impl", "threads", "ns/op (all threads)", "kops/s",
                   "efficiency", "kernel"},
                  {false, false, true, true, true, true, false});
  for (const BenchRow& r : rows) {
    if (!is_scaling(r) || r.median_ns <= 0) {
      continue;
    }
    const auto one = one_thread.find({r.op, r.impl});
    const std::string efficiency =
        one == one_thread.end()
            ? std::string(kMissing)
            : fmt::format("{:.2f}", one->second / (static_cast<double>(r.size) * r.median_ns));
    table.add({std::string(r.op, kScalePrefix.size()), r.impl, std::to_string(r.size),
               ns(r.median_ns), fmt::format("{:.0f}", 1e6 / r.median_ns), efficiency,
               r.kernel.empty() ? std::string(kMissing) : r.kernel});
  }
  return table.render();
}

}  // namespace

std::string format_table(const std::vector<BenchRow>& all_rows) {
  std::vector<BenchRow> rows;
  bool any_scaling = false;
  for (const BenchRow& r : all_rows) {
    if (is_scaling(r)) {
      any_scaling = true;
    } else {
      rows.push_back(r);
    }
  }
  const std::vector<PairedRow> paired = pair_rows(rows);
  std::string baseline_name = "baseline";
  for (const PairedRow& p : paired) {
    if (p.baseline != nullptr) {
      baseline_name = p.baseline->impl;
      break;
    }
  }
  TextTable table({"operation", "size", "wireseal ns/op", "MB/s", "B/op", "allocs/op",
                   baseline_name + " ns/op", "ratio", "kernel"},
                  {false, true, true, true, true, true, true, true, false});
  for (const PairedRow& p : paired) {
    const BenchRow* s = p.subject;
    const auto ratio = p.ratio();
    table.add({p.op, std::to_string(p.size), s ? ns(s->median_ns) : kMissing,
               s ? mbs(s->mb_per_s) : kMissing, s ? count(s->bytes_per_op) : kMissing,
               s ? count(s->allocs_per_op) : kMissing,
               p.baseline ? ns(p.baseline->median_ns) : kMissing,
               ratio ? fmt::format("{:.2f}x", *ratio) : kMissing,
               s && !s->kernel.empty() ? s->kernel : kMissing});
  }
  std::string out = rows.empty() ? std::string() : table.render();
  if (any_scaling) {
    out += out.empty() ? "" : "\n";
    out += format_scaling(all_rows);
  }
  return out;
}

std::string format_csv(const std::vector<BenchRow>& rows) {
  std::string out =
      "operation,size,wireseal_ns_per_op,wireseal_mb_per_s,wireseal_bytes_per_op,"
      "wireseal_allocs_per_op,baseline,baseline_ns_per_op,baseline_bytes_per_op,"
      "baseline_allocs_per_op,ratio\n";
  auto back = std::back_inserter(out);
  for (const PairedRow& p : pair_rows(rows)) {
    const BenchRow* s = p.subject;
    const BenchRow* b = p.baseline;
    const auto ratio = p.ratio();
    // Names are [a-z0-9_/] only, so no field needs quoting; missing values are empty.
    fmt::format_to(
        back, "{},{},{},{},{},{},{},{},{},{},{}\n", p.op, p.size,
        s ? fmt::format("{:.2f}", s->median_ns) : "", s ? fmt::format("{:.1f}", s->mb_per_s) : "",
        s ? fmt::format("{}", s->bytes_per_op) : "", s ? fmt::format("{}", s->allocs_per_op) : "",
        b ? b->impl : "", b ? fmt::format("{:.2f}", b->median_ns) : "",
        b ? fmt::format("{}", b->bytes_per_op) : "", b ? fmt::format("{}", b->allocs_per_op) : "",
        ratio ? fmt::format("{:.3f}", *ratio) : "");
  }
  return out;
}

}  // namespace wireseal::cli
