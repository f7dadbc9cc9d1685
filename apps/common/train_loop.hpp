#pragma once
// The iteration loop that fk-als, fk-sfa and fk-gap share. Each iteration's model update is timed
// between two device synchronizations (so the time is the device's work, evaluation excluded) and
// its GFLOP/s taken from the backend's flop counter; then the iteration is evaluated when
// `evaluate_now` says so, handed to `record` (log line, metrics.jsonl, the run's result), and a
// checkpoint is written every `checkpoint_every` iterations. The report type needs the members
// iter, seconds, gflops and eval_seconds.
#include <functional>
#include <string>

#include "apps/common/output.hpp"
#include "core/context.hpp"
#include "core/timer.hpp"

namespace fk::app {

template <class Report>
struct IterationLoop {
  std::function<double()> flops;  // the backend's flops so far
  std::function<void()> update;   // one iteration of the model
  std::function<bool(int)> evaluate_now = [](int) { return true; };
  std::function<void(Report&)> evaluate;
  std::function<void(const Report&)> record;
  std::function<void(int)> checkpoint;  // after iteration `iter`
  int checkpoint_every = 0;             // 0: never

  // Runs iterations first..last (none when first > last) on ctx's device.
  void run(const Context& ctx, int first, int last) const {
    for (int it = first; it <= last; ++it) {
      const double flops0 = flops();
      ctx.synchronize();
      Stopwatch clock;
      update();
      ctx.synchronize();
      Report rep;
      rep.iter = it;
      rep.seconds = clock.seconds();
      rep.gflops = rep.seconds > 0 ? (flops() - flops0) / rep.seconds * 1e-9 : 0.0;
      if (evaluate_now(it)) {
        Stopwatch eval_clock;
        evaluate(rep);
        rep.eval_seconds = eval_clock.seconds();
      }
      record(rep);
      if (checkpoint_every > 0 && it % checkpoint_every == 0) checkpoint(it);
    }
  }
};

// The fields a metrics.jsonl line of these trainers begins with ("iter" first, as
// MetricsWriter::resume needs); the trainer adds its metrics after them.
template <class Report>
JsonObject iteration_json(const Report& r, const std::string& device_kind) {
  JsonObject j;
  j.add("iter", r.iter)
      .add("seconds", r.seconds)
      .add("eval_seconds", r.eval_seconds)
      .add("gflops", r.gflops)
      .add("device", device_kind);
  return j;
}

}  // namespace fk::app
