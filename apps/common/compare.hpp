#pragma once
// --compare: the same configuration run on the GPU and on the CPU, printed side by side.
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/memory.hpp"

namespace fk::app {

// What one run reports for the comparison.
struct RunRecord {
  std::string label;                 // "gpu" or "cpu"
  std::string device;                // Context::describe(), e.g. "GPU 0 (NVIDIA H100)"
  std::vector<double> iter_seconds;  // wall time of every iteration this run made
  // Final quality numbers in display order, e.g. {"held-out log-likelihood", -7.91}.
  std::vector<std::pair<std::string, double>> finals;
  MemoryPeaks memory{};  // the run's peaks (run_training sets them)
};

// Empty when a CUDA GPU is usable; otherwise why not (CPU-only build, no device, no driver).
std::string gpu_unavailable_reason();

// Prints per-iteration times of both runs with the speedup, the median time per iteration, each
// run's peak memory, and each final metric with the relative difference |a - b| / max(|a|, |b|).
// `iter_name` names the iterations ("pass"). Runs without iterations print "-".
void print_comparison(std::ostream& os, const RunRecord& gpu, const RunRecord& cpu,
                      const std::string& iter_name = "iter");

// Writes the same comparison as JSON to `path` (atomically; the directory must exist), for scripts
// (scripts/report.sh): the iteration name, each run's label, device string, per-iteration seconds
// and median and peak memory (add_memory_peaks), the speedup (CPU / GPU) per iteration and of the
// medians, and every final metric of the GPU run with the CPU run's value and their relative
// difference as print_comparison computes it. `gpu` is nullopt when only the CPU ran;
// `gpu_unavailable` then says why (it is written as "gpu_unavailable", null otherwise), and "gpu"
// and the speedups are null. Non-finite numbers and missing values are null. Throws fk::Error
// naming the path when it cannot be written.
void write_comparison_json(const std::string& path, const std::optional<RunRecord>& gpu,
                           const RunRecord& cpu, const std::string& iter_name = "iter",
                           const std::string& gpu_unavailable = {});

// The median iteration time; none when no iteration ran (--iters 0, a resumed finished run), so
// that summary.json says null rather than 0 seconds.
std::optional<double> median_seconds(const std::vector<double>& seconds);

}  // namespace fk::app
