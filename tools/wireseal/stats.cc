#include "stats.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace wireseal::cli {
namespace {

// u_distribution returns, for sample sizes n and m, how many of the C(n+m, n) equally likely
// rank arrangements give each U = 0..n*m, via f(n, m, u) = f(n-1, m, u-m) + f(n, m-1, u).
std::vector<double> u_distribution(std::size_t n, std::size_t m) {
  // table[i][j] is the distribution for sizes (i, j); built row by row.
  std::vector<std::vector<std::vector<double>>> table(n + 1,
                                                      std::vector<std::vector<double>>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) {
    for (std::size_t j = 0; j <= m; ++j) {
      std::vector<double>& f = table[i][j];
      f.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        f[0] = 1;
        continue;
      }
      // The largest of all values is from x (adds j to U) or from y (adds nothing).
      const std::vector<double>& from_x = table[i - 1][j];
      const std::vector<double>& from_y = table[i][j - 1];
      for (std::size_t u = 0; u < from_x.size(); ++u) {
        f[u + j] += from_x[u];
      }
      for (std::size_t u = 0; u < from_y.size(); ++u) {
        f[u] += from_y[u];
      }
    }
  }
  return table[n][m];
}

}  // namespace

std::optional<double> mann_whitney_p(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = x.size();
  const std::size_t m = y.size();
  if (n == 0 || m == 0) {
    return std::nullopt;
  }
  // Rank the pooled samples, giving tied values their average rank.
  std::vector<std::pair<double, bool>> pooled;  // (value, is_from_x)
  for (const double v : x) {
    pooled.emplace_back(v, true);
  }
  for (const double v : y) {
    pooled.emplace_back(v, false);
  }
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_x = 0;
  double tie_term = 0;  // sum of t^3 - t over tie groups
  bool ties = false;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) {
      ++j;
    }
    const auto t = static_cast<double>(j - i);
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second) {
        rank_sum_x += avg_rank;
      }
    }
    if (j - i > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const auto nd = static_cast<double>(n);
  const auto md = static_cast<double>(m);
  const double u = rank_sum_x - nd * (nd + 1) / 2;
  const double mean = nd * md / 2;

  if (!ties && n <= 20 && m <= 20) {
    const std::vector<double> dist = u_distribution(n, m);
    double total = 0;
    for (const double c : dist) {
      total += c;
    }
    // Two-sided: twice the smaller tail at the observed U (U is symmetric about n*m/2).
    const auto u_index = static_cast<std::size_t>(std::llround(std::min(u, nd * md - u)));
    double tail = 0;
    for (std::size_t k = 0; k <= u_index; ++k) {
      tail += dist[k];
    }
    return std::min(1.0, 2 * tail / total);
  }

  const double nm = nd + md;
  const double variance = nd * md / 12 * ((nm + 1) - tie_term / (nm * (nm - 1)));
  if (variance <= 0) {
    return 1.0;  // every value identical: no evidence of a difference
  }
  const double z = (std::abs(u - mean) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

std::optional<double> geomean(std::span<const double> values) {
  double log_sum = 0;
  std::size_t n = 0;
  for (const double v : values) {
    if (v > 0) {
      log_sum += std::log(v);
      ++n;
    }
  }
  if (n == 0) {
    return std::nullopt;
  }
  return std::exp(log_sum / static_cast<double>(n));
}

}  // namespace wireseal::cli
