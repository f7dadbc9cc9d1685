#pragma once
// SpMM: C = op(S) · B with S sparse (M x N, CSR), op(S) = S or Sᵀ, B dense row-major float32 and
// C dense row-major float32 (overwritten). K = B.cols may be 1 (SpMV).
//   op = kNoTrans: B is N x K, C is M x K.
//   op = kTrans:   B is M x K, C is N x K. Served by a transposed copy of the pattern cached in the
//                  plan (with the permutation that maps its entries back to S's order), unless a
//                  variant transposes natively.
// Values are given at run time, in S's CSR order, so one plan serves every set of values on the
// same pattern (apps recompute values each iteration).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dense.hpp"
#include "kernels/variant.hpp"

namespace fk {

class SpmmPlan {
 public:
  virtual ~SpmmPlan() = default;
  // vals: nnz values in S's order (nullptr: S's own values, which must then exist).
  // b, c as described above; all on the plan's side.
  virtual void run(const Context& ctx, const float* vals, DenseView<const float> b,
                   DenseView<float> c) = 0;
  // The same with the value of S's entry j read as vals[perm[j]] (perm: nnz positions into vals,
  // both on the plan's side): how Sᵀ·B from a cached transpose hands a plan on Sᵀ the values in
  // S's order without gathering them first. Returns false, having done nothing, where the plan
  // has no such path (the default); the caller then gathers the values and calls run().
  virtual bool run_permuted(const Context& /*ctx*/, const float* /*vals*/,
                            const std::int32_t* /*perm*/, DenseView<const float> /*b*/,
                            DenseView<float> /*c*/) {
    return false;
  }
};

class SpmmVariant : public VariantInfo {
 public:
  // Plan for C = S · B. `s` is on the variant's side and must outlive the plan.
  virtual std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const = 0;
  // Plan for a problem whose operands may be rounded to `precision`. The tensor-core variants
  // override it (they need kF16 or kBF16); fp32 variants ignore the precision.
  virtual std::unique_ptr<SpmmPlan> prepare_at(const Context& ctx, const CsrView& s, int k,
                                               Precision /*precision*/) const {
    return prepare(ctx, s, k);
  }
  // Plan for C = Sᵀ · B computed natively; nullptr means "use the cached transpose".
  virtual std::unique_ptr<SpmmPlan> prepare_transposed(const Context& /*ctx*/, const CsrView& /*s*/,
                                                       int /*k*/) const {
    return nullptr;
  }
};

const std::vector<const SpmmVariant*>& spmm_variants();
const SpmmVariant& find_spmm_variant(const std::string& name);
const SpmmVariant& choose_spmm_variant(DeviceKind device, const KernelProblem& problem);
// The K at which `auto` runs `problem` on `device`: problem.k, or on a GPU at fp32 for Sᵀ·B the
// next multiple of 4 when K is not one and the work pays for copying B and C through zero-padded
// buffers (kernels/select.cpp; the plan does the copies, kernels/registry.cpp).
int auto_spmm_width(DeviceKind device, const KernelProblem& problem);

struct PreparedSpmm {
  std::unique_ptr<SpmmPlan> plan;
  const SpmmVariant* variant = nullptr;
  Op op = Op::kNoTrans;
  double prepare_seconds = 0;
  int width = 0;  // the K the kernel runs at: K, or auto_spmm_width's (B and C copied to it)
  void run(const Context& ctx, const float* vals, DenseView<const float> b,
           DenseView<float> c) {
    FK_REQUIRE(plan, "SpMM run without a plan (this PreparedSpmm was not made by make_spmm_plan)");
    plan->run(ctx, vals, b, c);
  }
};

// For op = kTrans the problem the rules and checks see is Sᵀ's. `precision` is the lowest operand
// precision the caller accepts (fp16/bf16 let `auto` and named tensor-core variants round B and
// S's values; outputs stay fp32).
PreparedSpmm make_spmm_plan(const Context& ctx, const CsrView& s, int k, Op op = Op::kNoTrans,
                            const std::string& variant = "auto",
                            Precision precision = Precision::kF32);

}  // namespace fk
