#pragma once
// SDDMM: out[j] = scale_j * dot(A[i,:], B[c,:]) for every nonzero j = (i, c) of a sparse S (M x N,
// CSR), with A (M x K) and B (N x K) dense row-major float32; scale_j = s_vals[j], or 1 for the
// unscaled form. Outputs follow S's CSR order.
//
// Plan-based: prepare once per (pattern, K, device, variant), run many times.
//
//   auto plan = make_sddmm_plan(ctx, s, k);          // "auto", or a registered name
//   plan.run(ctx, a, b, s.vals, out);                // scaled by S's values
//   plan.run(ctx, a, b, nullptr, out);               // unscaled
#include <memory>
#include <string>
#include <vector>

#include "core/dense.hpp"
#include "kernels/variant.hpp"

namespace fk {

class SddmmPlan {
 public:
  virtual ~SddmmPlan() = default;
  // a: M x K, b: N x K, s_vals: nnz scale factors in S's order or nullptr, out: nnz values.
  // All on the plan's side (host for CPU variants, device for CUDA variants). out is overwritten.
  virtual void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b,
                   const float* s_vals, float* out) = 0;
};

class SddmmVariant : public VariantInfo {
 public:
  // `s` is on the variant's side and must outlive the plan (plans keep the view, not a copy,
  // unless their preprocessing reorders it). Only S's pattern is used; values come with run().
  virtual std::unique_ptr<SddmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const = 0;
  // Plan for a problem whose operands may be rounded to `precision`. The tensor-core variants
  // override it (they need kF16 or kBF16); fp32 variants ignore the precision.
  virtual std::unique_ptr<SddmmPlan> prepare_at(const Context& ctx, const CsrView& s, int k,
                                                Precision /*precision*/) const {
    return prepare(ctx, s, k);
  }
};

// Every SDDMM variant in this build, in registration order.
const std::vector<const SddmmVariant*>& sddmm_variants();
// Throws fk::Error listing the known names when `name` is not registered.
const SddmmVariant& find_sddmm_variant(const std::string& name);
// The variant `auto` picks for this problem on this device (rule table in kernels/select.cpp).
const SddmmVariant& choose_sddmm_variant(DeviceKind device, const KernelProblem& problem);
// The K at which `auto` runs `problem` on `device`: problem.k, or on a GPU at fp32 the next
// multiple of 4 when K is not one and the work pays for copying A and B into zero-padded buffers
// (kernels/select.cpp; the plan does the copies, kernels/registry.cpp).
int auto_sddmm_width(DeviceKind device, const KernelProblem& problem);

// A prepared plan plus what was chosen and what preparing cost.
struct PreparedSddmm {
  std::unique_ptr<SddmmPlan> plan;
  const SddmmVariant* variant = nullptr;
  double prepare_seconds = 0;
  int width = 0;  // the K the kernel runs at: K, or auto_sddmm_width's (A and B copied to it)
  void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b,
           const float* s_vals, float* out) {
    FK_REQUIRE(plan,
               "SDDMM run without a plan (this PreparedSddmm was not made by make_sddmm_plan)");
    plan->run(ctx, a, b, s_vals, out);
  }
};

// Validates shapes and sides, resolves `variant` ("auto" or a name; a named variant that does not
// apply is an error that says why) and prepares it. `precision`: the lowest operand precision the
// caller accepts (fp16/bf16 let tensor-core variants round A and B; outputs stay fp32).
PreparedSddmm make_sddmm_plan(const Context& ctx, const CsrView& s, int k,
                              const std::string& variant = "auto",
                              Precision precision = Precision::kF32);

}  // namespace fk
