// fk-bench: times every registered SDDMM or SpMM variant on one problem, in one process, and
// checks each against the reference. `fk-bench --help` explains the options and the columns.
#include <iostream>
#include <new>

#include "apps/bench/explain.hpp"
#include "apps/bench/options.hpp"
#include "apps/bench/problem.hpp"
#include "apps/bench/report.hpp"
#include "apps/bench/runner.hpp"
#include "core/build_info.hpp"
#include "core/context.hpp"
#include "core/gpu_hooks.hpp"
#include "core/io/standard_output.hpp"
#include "core/log.hpp"

namespace {

int run(int argc, const char* const argv[]) {
  using namespace fk::bench;
  BenchOptions options = parse_options(argc, argv);
  if (options.help) {
    std::cout << help_text();
    return 0;
  }
  if (options.version) {
    std::cout << "fk-bench (factorkit " << fk::build_commit() << ")\n";
    return 0;
  }
  if (options.list) {
    print_variant_list(std::cout);
    return 0;
  }
  if (options.explain_auto) {  // rules only: no context, no device
    // The CSV file's header is checked before the (possibly long) load, as below.
    if (!options.csv.empty()) read_appendable_csv(options.csv, explain_csv_header());
    explain_auto(options, load_matrix(options), std::cout);
    return 0;
  }
  fk::DeviceRequest request = fk::DeviceRequest::kAuto;
  try {
    request = fk::parse_device_request(options.device);
  } catch (const fk::Error& e) {
    throw UsageError(e.what());
  }
  const fk::Context ctx = fk::Context::create(request, options.threads, options.gpu);
  if (options.gpu_given && ctx.device() == fk::DeviceKind::kCpu)
    throw UsageError("--gpu " + std::to_string(options.gpu) + ": this run is on the CPU (" +
                     (request == fk::DeviceRequest::kCpu ? "--device cpu"
                      : fk::cuda_compiled()              ? "no usable CUDA device of that id"
                                                         : "this build has no CUDA support") +
                     ")");
  if (!options.tolerance_given)
    options.tolerance = default_tolerance(options.precision, ctx.device());
  // Variant names are checked before the (possibly long) load or generation of the matrix.
  const Selection selection = select_variants(options, ctx.device());
  if (!options.csv.empty()) read_appendable_csv(options.csv);  // so is the CSV file's header
  const BenchMatrix matrix = load_matrix(options);
  const RunSummary summary = run_benchmark(options, ctx, matrix, selection, std::cout);
  if (!options.csv.empty())
    std::cout << "\nwrote " << summary.rows << (summary.rows == 1 ? " row to " : " rows to ")
              << options.csv << "\n";
  if (summary.failed + summary.wrong > 0) {
    std::cerr << "fk-bench: " << summary.failed << " variant run(s) failed and " << summary.wrong
              << " exceeded the tolerance (see the table)\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const fk::io::StandardOutputWatch watch;  // a lost stdout is reported with its own cause
  try {
    const int status = run(argc, argv);
    fk::io::flush_standard_output();
    return status;
  } catch (const fk::bench::UsageError& e) {
    std::cerr << "fk-bench: error: " << e.what() << " (see fk-bench --help)\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // What the up-front check of the dense operands (runner.cpp) lets through: a matrix, or
    // operands that fit this machine's memory but not what is free of it.
    std::cerr << "fk-bench: error: out of host memory (std::bad_alloc); use a smaller matrix or "
                 "--k\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "fk-bench: error: " << e.what() << "\n";
    return 1;
  }
}
