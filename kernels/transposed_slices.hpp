#pragma once
// How a GPU Sᵀ·B plan cuts S into row slices (SlicedTransposePlan, kernels/registry.cpp), in one
// place for the plan and for the `auto` rule that counts on it (kernels/select.cpp).
//
// Sᵀ·B gathers a row of B (S's rows x K floats) per nonzero of Sᵀ. When B outgrows L2 those
// gathers come from DRAM; slices of S whose rows of B fill a third of L2 keep them in L2, for the
// price of adding C up once per slice (about three passes over C, Sᵀ's rows x K) and one run of the
// inner kernel per slice. So: only where B outgrows L2, at most kMaxTransposedSlices slices (each
// run of nnz_vsr has a fixed cost: 123 slices of a uniform 2M x 20000 at K = 256 ran 0.84x
// cuSPARSE on an H200, docs/benchmarks/checks/sliced-transpose), and only when Sᵀ's rows average
// at least kSliceMinMeanPerExtraSlice per extra slice (their gathers 4x the passes over C).
#include <algorithm>
#include <cstdint>

namespace fk {

constexpr std::int64_t kMaxTransposedSlices = 64;
constexpr double kSliceMinMeanPerExtraSlice = 12.0;

// Rows of S per slice for Sᵀ·B with B of s_rows x k floats, Sᵀ's rows of mean length t_mean and an
// L2 of l2_bytes; 0 when one cached transpose should serve.
inline std::int64_t transposed_slice_rows(std::int64_t s_rows, int k, double t_mean, std::int64_t l2_bytes) {
  const std::int64_t row_bytes = std::int64_t(k) * std::int64_t(sizeof(float));
  if (s_rows <= 0 || k <= 0 || s_rows * row_bytes <= l2_bytes) return 0;
  const std::int64_t slice_rows = std::max<std::int64_t>(1, l2_bytes / 3 / row_bytes);
  const std::int64_t slices = (s_rows + slice_rows - 1) / slice_rows;
  if (slices > kMaxTransposedSlices) return 0;
  return t_mean >= kSliceMinMeanPerExtraSlice * double(slices - 1) ? slice_rows : 0;
}

}  // namespace fk
