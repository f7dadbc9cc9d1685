// cuda.spmm.cusparse_on_transpose: Sᵀ·B as cuSPARSE's non-transposed SpMM on the plan's cached
// transpose of S (the registry's CachedTransposePlan builds Sᵀ and hands this plan its values).
//
// Why a variant of its own: cuda.spmm.cusparse answers Sᵀ·B with CUSPARSE_OPERATION_TRANSPOSE,
// the vendor's native path and the baseline of the transposed targets, which can run far slower
// than the vendor's own S·B on the same matrix (bcsstk13 is symmetric: 28.2 µs against 11.5 at
// K = 128 on an H100, report 212b9eb). Where CSR_ALG3 is the fastest S·B kernel there is (small
// matrices of long rows at K >= 64, the large L2-bound ones), it may also be the fastest on Sᵀ,
// and `auto` can only pick it for Sᵀ·B through a name of its own.
// S·B is cuda.spmm.cusparse itself, so this variant declines it.
#include <memory>
#include <string>

#include "kernels/cuda/cuda_variants.hpp"

namespace fk {
namespace {

class CusparseOnTranspose : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.cusparse_on_transpose"; }
  const char* summary() const override {
    return "Sᵀ·B as cuSPARSE's fastest non-transposed CSR algorithm on the plan's cached transpose";
  }
  Backend backend() const override { return Backend::kCuda; }
  bool repeatable() const override { return false; }  // as cuda.spmm.cusparse's S·B
  std::string why_not(const KernelProblem& problem) const override {
    if (!problem.transposed) return "Sᵀ·B only (S·B is cuda.spmm.cusparse)";
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return make_cusparse_spmm_plan(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_cusparse_on_transpose() {
  return std::make_unique<CusparseOnTranspose>();
}

}  // namespace fk
