#include "apps/common/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "core/context.hpp"
#include "core/gpu_hooks.hpp"
#include "core/timer.hpp"

namespace fk::app {
namespace {
std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}
std::string lpad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}
}  // namespace

std::string gpu_unavailable_reason() {
  if (!cuda_compiled()) return "this build has no CUDA support";
  if (cuda_device_count() == 0)
    return "no usable CUDA device (" + hooks::cuda_absence_reason() + ")";
  return {};
}

double median_seconds(const std::vector<double>& seconds) { return median(seconds); }

void print_comparison(std::ostream& os, const RunRecord& gpu, const RunRecord& cpu,
                      const std::string& iter_name) {
  const std::size_t w0 = 26, w = 16;
  os << "\n"
     << pad("", w0) << lpad(gpu.label, w) << lpad(cpu.label, w) << lpad("speedup", w) << "\n";
  os << pad("device", w0) << "  " << gpu.device << "  |  " << cpu.device << "\n";
  const std::size_t n = std::max(gpu.iter_seconds.size(), cpu.iter_seconds.size());
  auto cell = [](const std::vector<double>& v, std::size_t i) {
    return i < v.size() ? fmt("%.4f", v[i]) : std::string("-");
  };
  for (std::size_t i = 0; i < n; ++i) {
    std::string speed = "-";
    if (i < gpu.iter_seconds.size() && i < cpu.iter_seconds.size() && gpu.iter_seconds[i] > 0)
      speed = fmt("%.1fx", cpu.iter_seconds[i] / gpu.iter_seconds[i]);
    os << pad(iter_name + " " + std::to_string(i + 1) + " time (s)", w0)
       << lpad(cell(gpu.iter_seconds, i), w) << lpad(cell(cpu.iter_seconds, i), w) << lpad(speed, w)
       << "\n";
  }
  const double mg = median(gpu.iter_seconds), mc = median(cpu.iter_seconds);
  os << pad("median " + iter_name + " time (s)", w0)
     << lpad(gpu.iter_seconds.empty() ? "-" : fmt("%.4f", mg), w)
     << lpad(cpu.iter_seconds.empty() ? "-" : fmt("%.4f", mc), w)
     << lpad(mg > 0 && mc > 0 ? fmt("%.1fx", mc / mg) : std::string("-"), w) << "\n";
  for (const auto& [name, gv] : gpu.finals) {
    double cv = NAN;
    for (const auto& [n2, v] : cpu.finals)
      if (n2 == name) cv = v;
    const double scale = std::max(std::fabs(gv), std::fabs(cv));
    const double rel = scale > 0 ? std::fabs(gv - cv) / scale : 0.0;
    os << pad(name, w0) << lpad(fmt("%.6f", gv), w) << lpad(fmt("%.6f", cv), w) << "    "
       << (std::isfinite(rel) ? fmt("relative difference %.1e", rel) : std::string("-")) << "\n";
  }
  os.flush();
}

}  // namespace fk::app
