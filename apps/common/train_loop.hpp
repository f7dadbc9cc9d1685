#pragma once
// The iteration loop that fk-als, fk-sfa and fk-gap share. Each iteration's model update is timed
// between two device synchronizations (so the time is the device's work, evaluation excluded) and
// its GFLOP/s taken from the backend's flop counter; then the iteration is evaluated when
// `evaluate_now` says so, handed to `record` (log line, metrics.jsonl, the run's result), and a
// checkpoint is written every `checkpoint_every` iterations. The report type needs the members
// iter, seconds, gflops, eval_seconds and objective. An evaluated objective that is not finite
// (the factors overflowed) ends the run with an fk::Error after the iteration is recorded, so
// that no complete-looking model of NaNs is written.
#include <cmath>
#include <functional>
#include <string>

#include "apps/common/output.hpp"
#include "core/context.hpp"
#include "core/error.hpp"
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
  std::string iter_name = "iteration";  // in the divergence error
  std::string divergence_hint;          // what to change when the objective is not finite

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
      const bool evaluated = evaluate_now(it);
      if (evaluated) {
        Stopwatch eval_clock;
        evaluate(rep);
        rep.eval_seconds = eval_clock.seconds();
      }
      record(rep);
      if (evaluated && !std::isfinite(rep.objective))
        throw Error(iter_name + " " + std::to_string(it) + ": the training objective is " +
                    (std::isnan(rep.objective) ? "NaN" : "infinite") + ": the model diverged" +
                    (divergence_hint.empty() ? std::string() : "; " + divergence_hint));
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
