#include "apps/common/run.hpp"

#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "apps/common/output.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"

namespace fk::app {
namespace {

// A training run builds its plans on minibatches of one data set: plans that time algorithms in
// prepare share their picks across alike minibatches (Context::share_plan_choices). lda-nytimes's
// 73 minibatches each timed three cuSPARSE algorithms, about 1 s of its startup on an H200.
Context training_context(Context ctx, const CommonOptions& common) {
  ctx.set_share_plan_choices(true);
  ctx.set_repeatable_only(common.repeatable);
  return ctx;
}

// One training run with its peak memory: measured from the run's start (so that --compare's CPU
// run does not report its GPU run's), logged at its end and kept in its record.
RunRecord train_measured(const TrainOnce& train, Context ctx, const std::string& out,
                         RunRole role) {
  const bool on_gpu = ctx.is_gpu();
  reset_memory_peaks();
  RunRecord record = train(std::move(ctx), out, role);
  record.memory = memory_peaks();
  log_info() << "peak memory: " << describe_memory_peaks(record.memory, on_gpu);
  return record;
}

}  // namespace

void check_training_out(const CommandLine& cli) {
  const CommonOptions& common = cli.common();
  // Every app's run writes these: a folder in the way of one is refused here, before the data load
  // and before --compare's GPU run; the app's own files are checked as its run starts.
  const std::vector<std::string> every_run_writes = {"model.ini", "summary.json", "config.ini",
                                                     "config.json", "metrics.jsonl"};
  // An earlier model a killed run left split is whole again before anything reads the folders.
  recover_interrupted_move(common.out);
  std::vector<std::string> runs = {common.out};  // the folders a run writes a model in
  if (common.compare) {
    runs = {common.out + "/gpu", common.out + "/cpu"};
    for (const std::string& dir : runs) recover_interrupted_move(dir);
    check_no_directory_in_the_way(common.out, {"compare.json", "compare.ini"});
    check_no_other_app_model(common.out, cli.app());
  }
  for (const std::string& dir : runs) {
    check_no_directory_in_the_way(dir, every_run_writes);
    check_no_other_app_model(dir, cli.app());
  }
}

bool run_training(const CommandLine& cli, const std::string& iter_name, const TrainOnce& train) {
  check_training_out(cli);
  const CommonOptions& common = cli.common();
  if (!common.compare) {
    train_measured(train,
                   training_context(Context::create(common.device, common.threads), common),
                   common.out, RunRole::kOnly);
    return false;
  }

  // "device = auto" (as a plain run's config.ini has it) is no conflict.
  if (cli.given("device") && common.device != DeviceRequest::kAuto)
    log_warn() << "--compare runs on both devices; --device is ignored";
  const std::string why_not = gpu_unavailable_reason();
  if (!why_not.empty()) {
    log_warn() << "--compare: " << why_not << "; running the CPU only";
    RunRecord cpu =
        train_measured(train, training_context(Context(DeviceKind::kCpu, common.threads), common),
                       common.out + "/cpu", RunRole::kCpuFallback);
    cpu.label = "cpu";
    write_comparison_json(common.out + "/compare.json", std::nullopt, cpu, iter_name, why_not);
    log_info() << "--compare: the model is in " << common.out << "/cpu, the record in "
               << common.out << "/compare.json";
    return false;
  }
  DeferredFinish together;  // a failed CPU run puts the GPU run's earlier model back too
  RunRecord gpu =
      train_measured(train, training_context(Context(DeviceKind::kGpu, common.threads), common),
                     common.out + "/gpu", RunRole::kCompareGpu);
  gpu.label = "gpu";
  RunRecord cpu =
      train_measured(train, training_context(Context(DeviceKind::kCpu, common.threads), common),
                     common.out + "/cpu", RunRole::kCompareCpu);
  cpu.label = "cpu";
  if (!common.quiet) print_comparison(std::cout, gpu, cpu, iter_name);  // -q: compare.json only
  write_comparison_json(common.out + "/compare.json", gpu, cpu, iter_name);
  together.commit();
  log_info() << "--compare: the models are in " << common.out << "/gpu and " << common.out
             << "/cpu, the comparison in " << common.out << "/compare.json";
  return true;
}

}  // namespace fk::app
