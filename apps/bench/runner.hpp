#pragma once
// The benchmark loop: for each (K, form or op) and each selected variant, prepare, check, warm up
// and time; print a table row per variant and append the rows to the CSV.
#include <iosfwd>
#include <string>
#include <vector>

#include "apps/bench/options.hpp"
#include "apps/bench/problem.hpp"
#include "core/context.hpp"

namespace fk::bench {

// The variants to time, resolved from --variants (or the default set) for one op and device.
struct Selection {
  std::vector<std::string> names;  // the baseline first (when present), then the others, "auto" last
  std::vector<std::string> named;  // those given explicitly by --variants
  std::string baseline;            // cuda.<op>.cusparse (GPU) or omp.<op>.rows (CPU); "" if not registered
};

// Throws UsageError naming --variants for an unknown name or one that runs on the other device.
Selection select_variants(const BenchOptions& options, DeviceKind device);

struct RunSummary {
  int rows = 0;
  int failed = 0;  // variants that threw
  int wrong = 0;   // variants above the tolerance
};

// Runs everything the options ask for on `matrix` and prints to `out`.
RunSummary run_benchmark(const BenchOptions& options, const Context& ctx, const BenchMatrix& matrix,
                         const Selection& selection, std::ostream& out);

// `fk-bench --list`.
void print_variant_list(std::ostream& out);

}  // namespace fk::bench
