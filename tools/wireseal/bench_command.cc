// `wireseal bench`: run the benchmark suites against their baselines and print one side-by-side
// table; save (--out), plot (--svg) or re-render (--load) results; compare two runs
// (--compare). See docs/BENCHMARKING.md.
#include <fmt/core.h>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_compare.h"
#include "bench_kernels.h"
#include "bench_report.h"
#include "bench_results.h"
#include "bench_runner.h"
#include "bench_svg.h"
#include "subcommand.h"

namespace wireseal::cli {
namespace {

// Profiles. short: about a minute for all suites on a 2-core machine, with five repetitions so
// --compare's Mann-Whitney test can reach p < 0.05 (with three per side it never can: the
// smallest two-sided p for 3+3 samples is 0.1). full: for numbers that go into a commit message.
struct Profile {
  int repetitions;
  double min_time_s;
};
constexpr Profile kShort{5, 0.025};
constexpr Profile kFull{10, 0.2};

struct Options {
  std::string profile = "short";
  int repetitions = 0;    // 0: the profile's
  double min_time_s = 0;  // 0: the profile's
  std::string filter;
  std::string format = "table";
  std::string out_path;
  std::string svg_path;
  std::string load_path;
  std::vector<std::string> compare_paths;
  bool list = false;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) {
    throw std::runtime_error("cannot write " + path);
  }
}

int run_compare(const Options& opt) {
  const Comparison c =
      compare(load_results(opt.compare_paths[0]), load_results(opt.compare_paths[1]));
  for (const std::string& w : c.warnings) {
    fmt::print(stderr, "warning: {}\n", w);
  }
  if (opt.format == "json") {
    fmt::print("{}", format_comparison_json(c));
  } else if (opt.format == "csv") {
    fmt::print("{}", format_comparison_csv(c));
  } else {
    fmt::print("{}", format_comparison_table(c));
  }
  return c.rows.empty() ? 1 : 0;
}

// effective_filter: an explicit --filter, or in the short profile the registry's subset that
// keeps large grids (dtls/) within the profile's time budget (the runner knows it: the subsets
// live with the suites); --profile full runs everything.
std::string effective_filter(const Options& opt) {
  if (!opt.filter.empty() || opt.profile != "short") {
    return opt.filter;
  }
  return short_profile_filter();
}

int run_bench(const Options& opt) {
  if (!opt.compare_paths.empty()) {
    return run_compare(opt);
  }
  if (opt.list) {
    for (const std::string& name : selected_benchmarks(effective_filter(opt))) {
      fmt::print("{}\n", name);
    }
    return 0;
  }

  BenchResults results;
  std::vector<std::string> errors;
  if (!opt.load_path.empty()) {
    results = load_results(opt.load_path);
  } else {
    const Profile profile = opt.profile == "full" ? kFull : kShort;
    results.machine = collect_machine_info();
    results.config.repetitions = opt.repetitions > 0 ? opt.repetitions : profile.repetitions;
    results.config.min_time_s = opt.min_time_s > 0 ? opt.min_time_s : profile.min_time_s;
    results.config.filter = effective_filter(opt);
    RunOutcome outcome = run_benchmarks(results.config);
    results.rows = std::move(outcome.rows);
    errors = std::move(outcome.errors);
    for (BenchRow& row : results.rows) {
      if (row.impl == kSubject) {
        row.kernel = row_kernel(row.op, row.size);
      }
    }
  }

  if (opt.format == "json") {
    fmt::print("{}\n", nlohmann::json(results).dump(2));
  } else if (opt.format == "csv") {
    fmt::print("{}", format_csv(results.rows));
  } else {
    fmt::print("cpu: {} ({} cores); kernels: {}\n\n", results.machine.cpu_model,
               results.machine.cores, results.machine.kernels);
    fmt::print("{}", format_table(results.rows));
  }
  if (!opt.out_path.empty()) {
    save_results(results, opt.out_path);
    fmt::print(stderr, "wrote {}\n", opt.out_path);
  }
  if (!opt.svg_path.empty()) {
    write_file(opt.svg_path, render_svg(results));
    fmt::print(stderr, "wrote {}\n", opt.svg_path);
  }
  for (const std::string& e : errors) {
    fmt::print(stderr, "FAILED {}\n", e);
  }
  if (!errors.empty() || results.rows.empty()) {
    fmt::print(stderr, "wireseal bench: {} benchmark(s) failed\n", errors.size());
    return 1;
  }
  return 0;
}

}  // namespace

Run set_up_bench(CLI::App& command) {
  auto opt = std::make_shared<Options>();
  command.footer(
      "Prints one table of medians over the repetitions: wireseal ns/op, MB/s, B/op, allocs/op, "
      "the baseline's ns/op and ratio = baseline ns / wireseal ns (> 1: wireseal is faster). "
      "Progress goes to stderr. Benchmark names are suite/op/impl/size, e.g. "
      "crypto/aes128gcm_seal/openssl/1400.\n\nExamples:\n"
      "  wireseal bench --out base.json\n"
      "  wireseal bench --filter 'gcm_(seal|open)/.*/1400$' --profile full\n"
      "  wireseal bench --compare base.json new.json\n"
      "  wireseal bench --load base.json --svg throughput.svg\n"
      "See docs/BENCHMARKING.md.");
  command
      .add_option(
          "--profile", opt->profile,
          fmt::format("short: {} repetitions x {} s min time (about a minute; without "
                      "--filter only a subset of the dtls/ grid); full: {} x {} s",
                      kShort.repetitions, kShort.min_time_s, kFull.repetitions, kFull.min_time_s))
      ->check(CLI::IsMember({"short", "full"}))
      ->capture_default_str();
  command
      .add_option("--repetitions", opt->repetitions,
                  "Repetitions per benchmark (overrides the profile)")
      ->check(CLI::Range(1, 1000));
  command
      .add_option("--min-time", opt->min_time_s,
                  "Minimum seconds per repetition (overrides the profile)")
      ->check(CLI::Range(0.0001, 60.0));
  command.add_option("--filter", opt->filter,
                     "Regex selecting benchmarks by name, suite/op/impl/size (as "
                     "--benchmark_filter; a leading '-' excludes)");
  command.add_option("--format", opt->format, "Output on stdout")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  command.add_option("--out", opt->out_path,
                     "Write the results as JSON (rows, samples, machine) for --compare/--load");
  command.add_option("--svg", opt->svg_path, "Write an SVG plot of MB/s against payload size");
  command.add_option("--load", opt->load_path, "Report a saved --out file instead of running")
      ->check(CLI::ExistingFile);
  command
      .add_option("--compare", opt->compare_paths,
                  "Compare two --out files: OLD.json NEW.json (Mann-Whitney U per row)")
      ->expected(2)
      ->check(CLI::ExistingFile);
  command.add_flag("--list", opt->list, "List the benchmarks the filter selects, then exit");
  command.get_option("--compare")->excludes("--load");
  return [opt] { return run_bench(*opt); };
}

}  // namespace wireseal::cli
