#pragma once
// The correctness check that runs beside the timing: the reference variants (ref.sddmm, ref.spmm:
// sequential, double accumulation) on a deterministic sample of output rows, and the error of a
// variant's output against them.
//
// Error of one output element: |out - ref| / sum_t |term_t|, where the terms are the products whose
// sum the element is (a_t * b_t * scale for SDDMM, v_j * b[c_j, t] for SpMM). That sum is the
// natural scale of float32 rounding in a dot product, so the measure does not blow up when terms
// cancel; an element with no terms must be exactly equal. A NaN or inf output counts as infinity.
#include <cstdint>
#include <vector>

#include "apps/bench/options.hpp"

#include "core/csr.hpp"
#include "core/dense.hpp"

namespace fk::bench {

// Rows of `s` whose outputs are checked: every row when s.nnz <= nnz_budget; otherwise rows spread
// evenly over the matrix (a fixed stride, so the same rows every time), plus the longest row when
// it fits, until the budget of nonzeros or `max_rows` rows is used. Sorted, no repeats.
std::vector<std::int64_t> sample_rows(const CsrView& s, std::int64_t nnz_budget, std::int64_t max_rows);

// SDDMM: s (host, with values), a (M x K) and b (N x K) on the host.
class SddmmCheck {
 public:
  SddmmCheck(const CsrView& s, DenseView<const float> a, DenseView<const float> b, std::int64_t nnz_budget);
  // out: all nnz outputs of a variant in S's order, on the host.
  double max_rel_err(const std::vector<float>& out, bool scaled) const;
  std::int64_t rows() const { return static_cast<std::int64_t>(rows_.size()); }

 private:
  std::vector<std::int64_t> rows_;
  std::vector<std::int64_t> positions_;  // per checked entry, its index in S's order
  std::vector<float> ref_scaled_, ref_unscaled_;
  std::vector<double> mag_scaled_, mag_unscaled_;
};

// SpMM: C = O · B with O = op(S) given explicitly (host, with values), b on the host
// (O.cols x K).
class SpmmCheck {
 public:
  SpmmCheck(const CsrView& o, DenseView<const float> b, std::int64_t nnz_budget);
  // The ratio SpMM's check: C = R · B with r_j = v_j / (A[i,:]·B[c_j,:] + eps), or in the
  // product form r_j = v_j (A[i,:]·B[c_j,:]), or in the residual form (unscaled)
  // r_j = v_j − A[i,:]·B[c_j,:] (a: S.rows x K, host; A and B positive, so the terms' magnitudes
  // are |r_j| B[c_j,t], at most (|v_j| + d_j) B[c_j,t] for the residual).
  SpmmCheck(const CsrView& s, DenseView<const float> a, DenseView<const float> b, float eps,
            RatioForm form, std::int64_t nnz_budget);
  // out: all O.rows x K outputs of a variant, row-major, on the host.
  double max_rel_err(const std::vector<float>& out) const;
  std::int64_t rows() const { return static_cast<std::int64_t>(rows_.size()); }

 private:
  int k_ = 0;
  std::vector<std::int64_t> rows_;
  std::vector<float> ref_;   // rows_.size() x K
  std::vector<double> mag_;  // rows_.size() x K
};

}  // namespace fk::bench
