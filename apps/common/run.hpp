#pragma once
// The training part of every app's main: one run on the --device context, or with --compare the
// same configuration on the GPU and then on the CPU, printed side by side and written to
// compare.json (apps/common/compare.hpp).
#include <functional>
#include <string>

#include "apps/common/compare.hpp"
#include "apps/common/options.hpp"
#include "core/context.hpp"

namespace fk::app {

// Which run a training call is.
enum class RunRole {
  kOnly,         // no --compare: the --device context, output in --out
  kCpuFallback,  // --compare without a usable GPU: the CPU alone, output in --out/cpu
  kCompareGpu,   // --compare: the GPU run, output in --out/gpu
  kCompareCpu,   // --compare: the CPU run after it, output in --out/cpu
};

// Trains on `ctx` with output in `out_dir`, prints the run's own summary (the app decides from
// `role` and --quiet) and returns its record for the comparison (the label is set by the caller).
using TrainOnce = std::function<RunRecord(Context ctx, const std::string& out_dir, RunRole role)>;

// The folders a training run of `cli.app()` writes its model in (--out; with --compare also
// --out/gpu and --out/cpu, beside the --out/compare.json it writes): an earlier model that a run
// killed while moving it left split there is put back first (recover_interrupted_move); then they
// must not hold another app's model (check_no_other_app_model: UsageError naming --out), nor a
// folder in the way of a file every run writes there (model.ini, summary.json, config.ini,
// config.json, metrics.jsonl; with --compare compare.json and compare.ini in --out:
// check_no_directory_in_the_way). run_training checks first; an app calls this right after
// parsing as well, to refuse before a long data load.
void check_training_out(const CommandLine& cli);

// check_training_out(cli); then without --compare: train(Context::create(--device, --threads),
// --out, kOnly). With --compare: warns that --device is ignored when it names a device; when no GPU
// can be used warns "--compare: WHY; running the CPU only", trains on the CPU (kCpuFallback) and writes
// --out/compare.json with the reason; otherwise trains on the GPU and then on the CPU, prints
// print_comparison() to stdout (not with --quiet) and writes --out/compare.json. (Each run's
// start_training_output writes --out/compare.ini, which runs the comparison again.) `iter_name`
// names the iterations ("iter", "pass"). Each run's peak memory (core/memory.hpp) is measured from
// its start, logged at its end and kept in its RunRecord. Returns true when both devices ran.
bool run_training(const CommandLine& cli, const std::string& iter_name, const TrainOnce& train);

}  // namespace fk::app
