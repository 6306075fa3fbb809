#include "bench_compare.h"

#include <fmt/core.h>

#include <iterator>
#include <map>
#include <tuple>

#include "bench_report.h"
#include "stats.h"

namespace wireseal::cli {
namespace {

using Key = std::tuple<std::string, std::string, std::uint64_t>;

std::string percent(double delta) { return fmt::format("{:+.1f}%", delta * 100); }

std::string delta_cell(const CompareRow& r) { return r.significant() ? percent(r.delta) : "~"; }

std::string p_cell(const CompareRow& r) {
  if (!r.p) {
    return fmt::format("(n={}+{})", r.old_n, r.new_n);
  }
  return fmt::format("(p={:.3f} n={}+{})", *r.p, r.old_n, r.new_n);
}

}  // namespace

Comparison compare(const BenchResults& old_results, const BenchResults& new_results) {
  Comparison c;
  const MachineInfo& om = old_results.machine;
  const MachineInfo& nm = new_results.machine;
  if (om.cpu_model != nm.cpu_model) {
    c.warnings.push_back(fmt::format("different CPUs: '{}' vs '{}'", om.cpu_model, nm.cpu_model));
  }
  if (om.compiler != nm.compiler) {
    c.warnings.push_back(
        fmt::format("different compilers: '{}' vs '{}'", om.compiler, nm.compiler));
  }
  if (om.cpu_mask != nm.cpu_mask) {
    c.warnings.push_back(
        fmt::format("different CPU feature masks: '{}' vs '{}'", om.cpu_mask, nm.cpu_mask));
  }
  // Files written before kernels were recorded have none; only two records can disagree.
  if (!om.kernels.empty() && !nm.kernels.empty() && om.kernels != nm.kernels) {
    c.warnings.push_back(fmt::format("different kernels: '{}' vs '{}'", om.kernels, nm.kernels));
  }
  if (om.backends != nm.backends) {
    c.warnings.push_back("different backends chosen by kAuto (see the files' machine.backends)");
  }

  std::map<Key, const BenchRow*> old_rows;
  for (const BenchRow& r : old_results.rows) {
    old_rows.emplace(Key{r.op, r.impl, r.size}, &r);
  }
  std::map<std::string, std::vector<double>> ratios;  // impl -> new/old per row
  std::vector<std::string> impl_order;
  std::size_t unmatched = 0;
  for (const BenchRow& n : new_results.rows) {
    const auto it = old_rows.find(Key{n.op, n.impl, n.size});
    if (it == old_rows.end()) {
      ++unmatched;
      continue;
    }
    const BenchRow& o = *it->second;
    CompareRow row{n.op,
                   n.impl,
                   n.size,
                   o.median_ns,
                   n.median_ns,
                   0,
                   std::nullopt,
                   o.samples_ns.size(),
                   n.samples_ns.size()};
    if (o.median_ns > 0 && n.median_ns > 0) {
      row.delta = n.median_ns / o.median_ns - 1;
      if (ratios.find(n.impl) == ratios.end()) {
        impl_order.push_back(n.impl);
      }
      ratios[n.impl].push_back(n.median_ns / o.median_ns);
    }
    // With two samples per side no arrangement reaches p <= 0.05; report "~" honestly.
    if (o.samples_ns.size() >= 2 && n.samples_ns.size() >= 2) {
      row.p = mann_whitney_p(o.samples_ns, n.samples_ns);
    }
    c.rows.push_back(row);
  }
  if (unmatched > 0) {
    c.warnings.push_back(
        fmt::format("{} rows of the new file have no counterpart in the old", unmatched));
  }
  for (const std::string& impl : impl_order) {
    if (const auto g = geomean(ratios[impl])) {
      c.geomean_delta.emplace_back(impl, *g - 1);
    }
  }
  return c;
}

std::string format_comparison_table(const Comparison& c) {
  TextTable table({"operation", "size", "impl", "old ns/op", "new ns/op", "delta", "p"},
                  {false, true, false, true, true, true, false});
  for (const CompareRow& r : c.rows) {
    table.add({r.op, std::to_string(r.size), r.impl, fmt::format("{:.1f}", r.old_ns),
               fmt::format("{:.1f}", r.new_ns), delta_cell(r), p_cell(r)});
  }
  for (const auto& [impl, delta] : c.geomean_delta) {
    table.add({"geomean", "", impl, "", "", percent(delta), ""});
  }
  std::string out = table.render();
  out += fmt::format(
      "delta: change of median ns/op (negative is faster); '~': p > {} "
      "(Mann-Whitney U), no significant change\n",
      kAlpha);
  return out;
}

std::string format_comparison_csv(const Comparison& c) {
  std::string out = "operation,size,impl,old_ns_per_op,new_ns_per_op,delta,p,significant\n";
  auto back = std::back_inserter(out);
  for (const CompareRow& r : c.rows) {
    fmt::format_to(back, "{},{},{},{:.2f},{:.2f},{:.4f},{},{}\n", r.op, r.size, r.impl, r.old_ns,
                   r.new_ns, r.delta, r.p ? fmt::format("{:.4f}", *r.p) : "",
                   r.significant() ? 1 : 0);
  }
  for (const auto& [impl, delta] : c.geomean_delta) {
    fmt::format_to(back, "geomean,,{},,,{:.4f},,\n", impl, delta);
  }
  return out;
}

std::string format_comparison_json(const Comparison& c) {
  nlohmann::json j;
  j["rows"] = nlohmann::json::array();
  for (const CompareRow& r : c.rows) {
    j["rows"].push_back({{"op", r.op},
                         {"impl", r.impl},
                         {"size", r.size},
                         {"old_ns", r.old_ns},
                         {"new_ns", r.new_ns},
                         {"delta", r.delta},
                         {"p", r.p ? nlohmann::json(*r.p) : nlohmann::json(nullptr)},
                         {"significant", r.significant()}});
  }
  for (const auto& [impl, delta] : c.geomean_delta) {
    j["geomean_delta"][impl] = delta;
  }
  j["warnings"] = c.warnings;
  return j.dump(2) + "\n";
}

}  // namespace wireseal::cli
