#pragma once
// Ratio SpMM: SDDMM → divide → SpMM as one pass over the nonzeros (FusedMM, Rahman et al.,
// IPDPS'21). For S sparse (M x N, CSR) with values v, A (M x K), B (N x K) and C (M x K), all
// dense row-major float32:
//
//   C[i,:] = Σ_{j in row i} r_j · B[c_j,:],   r_j = v_j / (A[i,:] · B[c_j,:] + eps)
//
// The ratio r is never written: each B row is read once for its dot product and its update. This
// is the inner step of Poisson/KL factorizations (LDA's E-step: counts over the model's
// probabilities of them, times the topic rows), which otherwise run an SDDMM, a division pass and
// an SpMM, reading every B row twice.
//
// With op = kTrans the same over Sᵀ, for A and C N x K and B M x K:
//
//   C[j,:] = Σ_{i: (i,j) in S} r_ij · B[i,:],   r_ij = v_ij / (A[j,:] · B[i,:] + eps)
//
// served by a transposed copy of the pattern cached in the plan (values still given in S's
// order): LDA's sufficient statistics, the ratios' Sᵀ·E[θ], in one pass.
//
// The same plans run the product form, the weight a nonzero's scale times its dot product:
//
//   C[i,:] = Σ_{j in row i} s_j (A[i,:] · B[c_j,:]) · B[c_j,:],   s_j = scale_j, or 1 unscaled
//
// which is SpMM(SDDMM(A, B, scale), B) in one pass: the operator (S ∘ A·Bᵀ)·B that ALS's and
// SFA's conjugate-gradient steps apply to each search direction (A) with the other side's
// factors (B), otherwise an SDDMM and an SpMM that each read every B row.
//
// And the residual form, the weight a value minus its scale times the dot product:
//
//   C[i,:] = Σ_{j in row i} (v_j − s_j (A[i,:] · B[c_j,:])) · B[c_j,:]
//
// which is S·B − the product form in one pass: a least-squares gradient (SFA's M-step, with v
// the ratings) or a CG solve's first residual b − A·x0 (ALS, SFA), where the right-hand side
// S·B and the product would each gather every B row.
//
//   auto p = make_ratio_spmm_plan(ctx, s, k);      // "auto" may give no plan: then run the pair
//   if (p.plan) p.run(ctx, vals, a, b, eps, c);
//   if (p.plan) p.run_product(ctx, scale, a, b, c);
//   if (p.plan) p.run_residual(ctx, vals, scale, a, b, c);
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/dense.hpp"
#include "core/error.hpp"
#include "kernels/variant.hpp"

namespace fk {

class RatioSpmmPlan {
 public:
  virtual ~RatioSpmmPlan() = default;
  // vals: nnz values in S's order (nullptr: S's own); a: M x K, b: N x K, c: M x K (overwritten).
  // All on the plan's side. eps >= 0 keeps zero dot products finite.
  virtual void run(const Context& ctx, const float* vals, DenseView<const float> a,
                   DenseView<const float> b, float eps, DenseView<float> c) = 0;
  // The product form: scale holds nnz factors in S's order, or nullptr for 1 (as the SDDMM's
  // unscaled form). a: M x K, b: N x K, c: M x K (overwritten).
  virtual void run_product(const Context& ctx, const float* scale, DenseView<const float> a,
                           DenseView<const float> b, DenseView<float> c) = 0;
  // The residual form: vals (S's order; null: S's own) and scale (S's order; null: 1).
  virtual void run_residual(const Context& ctx, const float* vals, const float* scale,
                            DenseView<const float> a, DenseView<const float> b,
                            DenseView<float> c) = 0;
};

class RatioSpmmVariant : public VariantInfo {
 public:
  // `s` is on the variant's side and must outlive the plan.
  virtual std::unique_ptr<RatioSpmmPlan> prepare(const Context& ctx, const CsrView& s,
                                                 int k) const = 0;
};

const std::vector<const RatioSpmmVariant*>& ratio_spmm_variants();
// Throws fk::Error listing the known names when `name` is not registered.
const RatioSpmmVariant& find_ratio_spmm_variant(const std::string& name);
// The fused variant `auto` runs on `device`, or nullptr where the separate SDDMM → divide → SpMM
// pair is the better choice (kernels/select.cpp).
const RatioSpmmVariant* choose_ratio_spmm_variant(DeviceKind device, const KernelProblem& problem);

struct PreparedRatioSpmm {
  std::unique_ptr<RatioSpmmPlan> plan;  // null: `auto` chose the unfused pair
  const RatioSpmmVariant* variant = nullptr;
  double prepare_seconds = 0;
  // Each throws fk::Error when there is no plan (`auto` chose the unfused pair): check `plan`;
  // run's also for an eps that is not a finite number >= 0.
  void run(const Context& ctx, const float* vals, DenseView<const float> a,
           DenseView<const float> b, float eps, DenseView<float> c) {
    FK_REQUIRE(eps >= 0 && std::isfinite(eps),
               "ratio SpMM: eps must be a finite number >= 0 (it keeps v / (a·b + eps) finite "
               "where a·b is 0), got " << eps);
    checked_plan().run(ctx, vals, a, b, eps, c);
  }
  void run_product(const Context& ctx, const float* scale, DenseView<const float> a,
                   DenseView<const float> b, DenseView<float> c) {
    checked_plan().run_product(ctx, scale, a, b, c);
  }
  void run_residual(const Context& ctx, const float* vals, const float* scale,
                    DenseView<const float> a, DenseView<const float> b, DenseView<float> c) {
    checked_plan().run_residual(ctx, vals, scale, a, b, c);
  }

 private:
  RatioSpmmPlan& checked_plan() {
    FK_REQUIRE(plan,
               "ratio SpMM run without a plan: `auto` chose the separate SDDMM, division and "
               "SpMM for this problem (PreparedRatioSpmm::plan is null; run those instead)");
    return *plan;
  }
};

// Validates the pattern, resolves `variant` ("auto" or a name; a named variant that does not apply
// is an error that says why) and prepares it. For op = kTrans the rules and checks see Sᵀ.
PreparedRatioSpmm make_ratio_spmm_plan(const Context& ctx, const CsrView& s, int k,
                                       const std::string& variant = "auto", Op op = Op::kNoTrans);

}  // namespace fk
