#include "bench_results.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace wireseal::cli {

BenchResults load_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw std::runtime_error("cannot open " + path);
  }
  try {
    return nlohmann::json::parse(in).get<BenchResults>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": not a wireseal bench result: " + e.what());
  }
}

void save_results(const BenchResults& results, const std::string& path) {
  std::ofstream out(path);
  out << nlohmann::json(results).dump(2) << '\n';
  if (!out) {
    throw std::runtime_error("cannot write " + path);
  }
}

double median(std::vector<double> samples) {
  if (samples.empty()) {
    return 0;
  }
  const std::size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(mid),
                   samples.end());
  const double upper = samples[mid];
  if (samples.size() % 2 == 1) {
    return upper;
  }
  const double lower =
      *std::max_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

}  // namespace wireseal::cli
