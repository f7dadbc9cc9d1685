#pragma once
// The seam for data-parallel training. An app's minibatch produces model statistics that are sums
// over its documents/rows (fk-lda's sufficient statistics, fk-sfa's M-step gradient and Gram
// matrix, fk-gap's Λ statistics); a run spread over several workers would sum them across workers
// (an all-reduce, e.g. NCCL or MPI) before the model update, and every worker would then apply the
// same update. fk-lda, fk-sfa and fk-gap call a StatsReducer at exactly that point (fk-als has no
// such seam); a single-process run uses LocalReducer, which leaves the data as it is.
#include <cstdint>

#include "core/context.hpp"

namespace fk::app {

class StatsReducer {
 public:
  virtual ~StatsReducer() = default;
  // Sums `n` floats elementwise across workers, in place. `data` is on ctx's side (device memory
  // for a GPU context, host memory for a CPU one).
  virtual void sum(const Context& ctx, float* data, std::int64_t n) = 0;
  // Sums `n` host doubles across workers, in place (counts, objective terms).
  virtual void sum_host(double* data, std::int64_t n) = 0;
  virtual int workers() const = 0;
};

// One worker: the sums are already complete.
class LocalReducer final : public StatsReducer {
 public:
  void sum(const Context&, float*, std::int64_t) override {}
  void sum_host(double*, std::int64_t) override {}
  int workers() const override { return 1; }
};

}  // namespace fk::app
