#pragma once
// render_svg draws throughput (MB/s, log10 scale) against payload size (log2 scale) as small
// multiples: one panel per operation, one line per implementation, a shared legend. Plain SVG
// 1.1 written by hand, so it needs no plotting library and opens in any browser.

#include <string>

#include "bench_results.h"

namespace wireseal::cli {

std::string render_svg(const BenchResults& results);

}  // namespace wireseal::cli
