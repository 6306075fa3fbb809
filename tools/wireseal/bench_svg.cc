#include "bench_svg.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

namespace wireseal::cli {
namespace {

constexpr int kColumns = 4;
constexpr double kPanelW = 300;
constexpr double kPanelH = 210;
constexpr double kPlotLeft = 56;  // room for the y tick labels and the rotated axis label
constexpr double kPlotRight = 12;
constexpr double kPlotTop = 26;  // room for the panel title
constexpr double kPlotBottom = 36;
constexpr double kHeaderH = 78;
constexpr double kFooterH = 34;
constexpr double kMargin = 16;

// Line colour and dash per implementation: wireseal solid blue, baselines dashed, so the plot
// survives greyscale printing.
struct Style {
  const char* color;
  const char* dash;
};
Style style_for(std::size_t index) {
  constexpr Style kStyles[] = {
      {"#1f77b4", "none"}, {"#e6550d", "6,3"}, {"#2ca02c", "2,2"}, {"#9467bd", "8,2,2,2"}};
  return kStyles[index % std::size(kStyles)];
}

std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string size_label(double bytes) {
  if (bytes >= 1024 && std::fmod(bytes, 1024) == 0) {
    return fmt::format("{}K", bytes / 1024);
  }
  return fmt::format("{}", bytes);
}

std::string rate_label(double mbs) {
  if (mbs >= 1000) {
    return fmt::format("{}k", mbs / 1000);
  }
  return fmt::format("{}", mbs);
}

using Series = std::vector<std::pair<double, double>>;  // (size, MB/s), ascending size

struct Panel {
  std::string op;
  std::map<std::string, Series> lines;  // impl -> series
};

}  // namespace

std::string render_svg(const BenchResults& results) {
  // Group rows into panels (operations in first-seen order) and collect implementations with
  // wireseal first.
  std::vector<Panel> panels;
  std::vector<std::string> impls = {kSubject};
  double min_size = 0;
  double max_size = 0;
  for (const BenchRow& row : results.rows) {
    if (row.mb_per_s <= 0) {
      continue;
    }
    auto it = std::find_if(panels.begin(), panels.end(),
                           [&row](const Panel& p) { return p.op == row.op; });
    if (it == panels.end()) {
      panels.push_back(Panel{row.op, {}});
      it = std::prev(panels.end());
    }
    const auto size = static_cast<double>(row.size);
    it->lines[row.impl].emplace_back(size, row.mb_per_s);
    if (std::find(impls.begin(), impls.end(), row.impl) == impls.end()) {
      impls.push_back(row.impl);
    }
    min_size = min_size == 0 ? size : std::min(min_size, size);
    max_size = std::max(max_size, size);
  }
  if (max_size <= min_size) {
    max_size = min_size * 2 + 1;
  }

  const std::size_t columns =
      std::min<std::size_t>(kColumns, std::max<std::size_t>(1, panels.size()));
  const std::size_t rows = (panels.size() + columns - 1) / columns;
  const double width = kMargin * 2 + static_cast<double>(columns) * kPanelW;
  const double height = kHeaderH + static_cast<double>(rows) * kPanelH + kFooterH + kMargin;

  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                 "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Helvetica, Arial, "
                 "sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
                 width, height);
  const MachineInfo& m = results.machine;
  fmt::format_to(o,
                 "<text x=\"{}\" y=\"28\" font-size=\"18\" font-weight=\"bold\">wireseal "
                 "throughput vs baseline (higher is better)</text>\n",
                 kMargin);
  fmt::format_to(o,
                 "<text x=\"{}\" y=\"48\" font-size=\"12\" fill=\"#555\">{}, {} cores, {}, "
                 "wireseal {}; median of {} repetitions</text>\n",
                 kMargin, escape(m.cpu_model), m.cores, escape(m.date), escape(m.wireseal_version),
                 results.config.repetitions);
  // Legend.
  double lx = kMargin;
  for (std::size_t i = 0; i < impls.size(); ++i) {
    const Style s = style_for(i);
    fmt::format_to(o,
                   "<line x1=\"{0}\" y1=\"64\" x2=\"{1}\" y2=\"64\" stroke=\"{2}\" "
                   "stroke-width=\"2.5\" stroke-dasharray=\"{3}\"/>"
                   "<circle cx=\"{4}\" cy=\"64\" r=\"3\" fill=\"{2}\"/>"
                   "<text x=\"{5}\" y=\"68\" font-size=\"13\">{6}</text>\n",
                   lx, lx + 30, s.color, s.dash, lx + 15, lx + 36, escape(impls[i]));
    lx += 50 + 8 * static_cast<double>(impls[i].size());
  }

  const double plot_w = kPanelW - kPlotLeft - kPlotRight;
  const double plot_h = kPanelH - kPlotTop - kPlotBottom;
  const double lx_min = std::log2(min_size);
  const double lx_max = std::log2(max_size);
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const Panel& panel = panels[p];
    const double px = kMargin + static_cast<double>(p % columns) * kPanelW + kPlotLeft;
    const double py = kHeaderH + static_cast<double>(p / columns) * kPanelH + kPlotTop;
    // y range: whole decades around this panel's data, at least one decade.
    double lo = 1e300;
    double hi = 0;
    for (const auto& [impl, series] : panel.lines) {
      for (const auto& [size, mbs] : series) {
        lo = std::min(lo, mbs);
        hi = std::max(hi, mbs);
      }
    }
    const double ly_min = std::floor(std::log10(lo));
    double ly_max = std::ceil(std::log10(hi));
    if (ly_max <= ly_min) {
      ly_max = ly_min + 1;
    }
    const auto x_of = [&](double size) {
      return px + (std::log2(size) - lx_min) / (lx_max - lx_min) * plot_w;
    };
    const auto y_of = [&](double mbs) {
      return py + plot_h - (std::log10(mbs) - ly_min) / (ly_max - ly_min) * plot_h;
    };

    fmt::format_to(o,
                   "<g>\n<text x=\"{}\" y=\"{}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
                   px, py - 9, escape(panel.op));
    fmt::format_to(o,
                   "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" "
                   "stroke=\"#999\"/>\n",
                   px, py, plot_w, plot_h);
    // Decade grid lines and labels, with lighter 2x and 5x lines in between.
    for (double d = ly_min; d <= ly_max + 1e-9; d += 1) {
      const double base = std::pow(10.0, d);
      const double y = y_of(base);
      fmt::format_to(o,
                     "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ccc\"/>"
                     "<text x=\"{3}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\">{5}"
                     "</text>\n",
                     px, y, px + plot_w, px - 5, y + 4, rate_label(base));
      for (const double k : {2.0, 5.0}) {
        if (d + std::log10(k) < ly_max) {
          fmt::format_to(o,
                         "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" "
                         "stroke=\"#eee\"/>\n",
                         px, y_of(base * k), px + plot_w);
        }
      }
    }
    // Size ticks at powers of four (16, 64, 256, 1K, ...), which stay legible at this width.
    for (double s = std::exp2(std::ceil(lx_min / 2) * 2); s <= max_size; s *= 4) {
      const double x = x_of(s);
      fmt::format_to(
          o,
          "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e4e4e4\"/>"
          "<text x=\"{0:.1f}\" y=\"{3}\" font-size=\"11\" text-anchor=\"middle\">{4}"
          "</text>\n",
          x, py, py + plot_h, py + plot_h + 14, size_label(s));
    }
    fmt::format_to(o,
                   "<text transform=\"translate({},{:.1f}) rotate(-90)\" font-size=\"11\" "
                   "text-anchor=\"middle\" fill=\"#555\">MB/s</text>\n",
                   px - 42, py + plot_h / 2);
    fmt::format_to(o,
                   "<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\" "
                   "fill=\"#555\">payload bytes</text>\n",
                   px + plot_w / 2, py + plot_h + 28);
    for (std::size_t i = 0; i < impls.size(); ++i) {
      const auto it = panel.lines.find(impls[i]);
      if (it == panel.lines.end()) {
        continue;
      }
      Series series = it->second;
      std::sort(series.begin(), series.end());
      const Style s = style_for(i);
      std::string points;
      for (const auto& [size, mbs] : series) {
        points += fmt::format("{:.1f},{:.1f} ", x_of(size), y_of(mbs));
      }
      fmt::format_to(o,
                     "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
                     "stroke-dasharray=\"{}\"/>\n",
                     points, s.color, s.dash);
      for (const auto& [size, mbs] : series) {
        fmt::format_to(o,
                       "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\">"
                       "<title>{} {} {} B: {:.0f} MB/s</title></circle>\n",
                       x_of(size), y_of(mbs), s.color, escape(panel.op), escape(impls[i]), size,
                       mbs);
      }
    }
    fmt::format_to(o, "</g>\n");
  }
  fmt::format_to(o,
                 "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#555\">x: payload size per "
                 "operation in bytes (log2 scale); y: throughput in MB/s = 10^6 bytes/s (log10 "
                 "scale, per-panel range)</text>\n",
                 kMargin, height - kMargin - 6);
  out += "</svg>\n";
  return out;
}

}  // namespace wireseal::cli
