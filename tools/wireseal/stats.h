#pragma once
// The statistics behind `wireseal bench --compare`, in the spirit of benchstat: a two-sided
// Mann-Whitney U test on the per-repetition samples (no assumption that timings are normal,
// robust to the odd outlier a shared machine produces) and the geometric mean of ratios.

#include <optional>
#include <span>

namespace wireseal::cli {

// mann_whitney_p is the two-sided p-value that samples `x` and `y` come from the same
// distribution. Exact (by counting rank arrangements) when there are no ties and both samples
// are small; otherwise the normal approximation with tie and continuity corrections.
// nullopt when either sample is empty.
std::optional<double> mann_whitney_p(std::span<const double> x, std::span<const double> y);

// geomean of positive values; nullopt for none.
std::optional<double> geomean(std::span<const double> values);

}  // namespace wireseal::cli
