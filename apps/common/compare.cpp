#include "apps/common/compare.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "apps/common/output.hpp"
#include "core/context.hpp"
#include "core/gpu_hooks.hpp"
#include "core/io/atomic_file.hpp"
#include "core/timer.hpp"

namespace fk::app {
namespace {
std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}
std::string lpad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}
// |a - b| / max(|a|, |b|), 0 when both are 0 (as printed; NaN inputs give NaN or 0).
double relative_difference(double a, double b) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return scale > 0 ? std::fabs(a - b) / scale : 0.0;
}
// The value of final metric `name` in `finals`, or NaN.
double find_final(const std::vector<std::pair<std::string, double>>& finals,
                  const std::string& name) {
  double v = NAN;
  for (const auto& [n, x] : finals)
    if (n == name) v = x;
  return v;
}
// A JSON number as JsonObject writes one (the shortest text that reads back the same), or null
// when not finite.
std::string json_number(double v) { return std::isfinite(v) ? format_double(v) : "null"; }
std::string json_array(const std::vector<double>& values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + json_number(values[i]);
  return s + "]";
}
std::string run_json(const RunRecord& r) {
  JsonObject o;
  o.add("label", r.label)
      .add("device", r.device)
      .add_raw("iter_seconds", json_array(r.iter_seconds));
  o.add_raw("median_seconds",
            r.iter_seconds.empty() ? "null" : json_number(median(r.iter_seconds)));
  add_memory_peaks(o, r.memory, r.label == "gpu");
  return o.str();
}
}  // namespace

std::string gpu_unavailable_reason() {
  if (!cuda_compiled()) return "this build has no CUDA support";
  if (cuda_device_count() == 0)
    return "no usable CUDA device (" + hooks::cuda_absence_reason() + ")";
  return {};
}

std::optional<double> median_seconds(const std::vector<double>& seconds) {
  if (seconds.empty()) return std::nullopt;
  return median(seconds);
}

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
  auto mib = [](std::optional<std::int64_t> bytes) {
    return bytes ? std::to_string(std::llround(mebibytes(*bytes))) : "-";
  };
  os << pad("peak host memory (MiB)", w0) << lpad(mib(gpu.memory.host_bytes), w)
     << lpad(mib(cpu.memory.host_bytes), w) << "\n";
  os << pad("peak GPU memory (MiB)", w0) << lpad(mib(gpu.memory.device_bytes), w) << lpad("-", w)
     << "\n";
  for (const auto& [name, gv] : gpu.finals) {
    const double cv = find_final(cpu.finals, name);
    const double rel = relative_difference(gv, cv);
    os << pad(name, w0) << lpad(fmt("%.6f", gv), w) << lpad(fmt("%.6f", cv), w) << "    "
       << (std::isfinite(rel) ? fmt("relative difference %.1e", rel) : std::string("-")) << "\n";
  }
  os.flush();
}

void write_comparison_json(const std::string& path, const std::optional<RunRecord>& gpu,
                           const RunRecord& cpu, const std::string& iter_name,
                           const std::string& gpu_unavailable) {
  // Speedups where both runs made the iteration and the GPU's time is positive, as printed.
  std::vector<double> speedups;
  double median_speedup = NAN;
  if (gpu) {
    const std::size_t n = std::min(gpu->iter_seconds.size(), cpu.iter_seconds.size());
    for (std::size_t i = 0; i < n; ++i)
      speedups.push_back(gpu->iter_seconds[i] > 0 ? cpu.iter_seconds[i] / gpu->iter_seconds[i]
                                                  : NAN);
    const double mg = median(gpu->iter_seconds), mc = median(cpu.iter_seconds);
    if (mg > 0 && mc > 0) median_speedup = mc / mg;
  }
  // Final metrics: the GPU run's in its order, then any the CPU run alone reports.
  std::string finals = "[";
  std::vector<std::string> names;
  if (gpu)
    for (const auto& f : gpu->finals) names.push_back(f.first);
  for (const auto& f : cpu.finals)
    if (std::find(names.begin(), names.end(), f.first) == names.end()) names.push_back(f.first);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double gv = gpu ? find_final(gpu->finals, names[i]) : NAN;
    const double cv = find_final(cpu.finals, names[i]);
    finals +=
        (i ? "," : "") + JsonObject()
                             .add("name", names[i])
                             .add_raw("gpu", json_number(gv))
                             .add_raw("cpu", json_number(cv))
                             .add_raw("rel_diff", json_number(std::isfinite(gv) && std::isfinite(cv)
                                                                  ? relative_difference(gv, cv)
                                                                  : NAN))
                             .str();
  }
  finals += "]";

  JsonObject o;
  o.add("iter_name", iter_name);
  if (gpu_unavailable.empty())
    o.add_null("gpu_unavailable");
  else
    o.add("gpu_unavailable", gpu_unavailable);
  o.add_raw("gpu", gpu ? run_json(*gpu) : "null").add_raw("cpu", run_json(cpu));
  o.add_raw("speedup_per_iter", gpu ? json_array(speedups) : "null");
  o.add_raw("speedup_median", json_number(median_speedup));
  o.add_raw("finals", finals);
  io::AtomicFile file(path);
  file.stream() << o.str() << "\n";
  file.commit();
}

}  // namespace fk::app
