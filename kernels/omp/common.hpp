#pragma once
// Checks and small helpers shared by the OpenMP variants (host code only).
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/error.hpp"

namespace fk::omp_common {

// The thread count that work splits which decide the order of a sum (ASpT's panels,
// nnz_balanced's parts, auto's skew rule) are sized for: the processors this process may use
// (its CPU affinity), not the threads of this run, so that a CPU result does not depend on
// --threads (LDA's model differed in its 5th digit between 1 and 2 threads; cpu_rounding_setup()
// names what it does depend on). Schedules that only assign whole rows to threads may follow the
// thread count. A run with far fewer threads than processors gets smaller panels and parts than
// it needs, the price of that promise.
inline std::int64_t split_threads() { return std::max(1, omp_get_num_procs()); }

// SDDMM operands: A is S.rows x K, B is S.cols x K (host, row-major).
inline void check_sddmm_shapes(const CsrView& s, int k, DenseView<const float> a, DenseView<const float> b,
                               const float* out, const char* variant) {
  FK_CHECK(a.rows == s.rows && b.rows == s.cols && a.cols == k && b.cols == k,
           variant << ": SDDMM shape mismatch: S " << s.rows << "x" << s.cols << ", A " << a.rows << "x" << a.cols
                   << ", B " << b.rows << "x" << b.cols << ", K " << k);
  FK_CHECK(s.nnz == 0 || (out != nullptr && a.data != nullptr && b.data != nullptr),
           variant << ": SDDMM with a null A, B or output pointer");
  const DenseView<const float> out_view{out, s.nnz, 1};
  FK_CHECK(!overlaps(out_view, a) && !overlaps(out_view, b),
           variant << ": SDDMM output shares memory with A or B");
}

// SpMM operands: B is S.cols x K, C is S.rows x K (host, row-major); returns the values to use.
inline const float* check_spmm_shapes(const CsrView& s, int k, const float* vals, DenseView<const float> b,
                                      DenseView<float> c, const char* variant) {
  if (!vals) vals = s.vals;
  FK_CHECK(s.nnz == 0 || vals != nullptr, variant << ": SpMM run without values (the pattern has none)");
  FK_CHECK(b.rows == s.cols && c.rows == s.rows && b.cols == k && c.cols == k,
           variant << ": SpMM shape mismatch: S " << s.rows << "x" << s.cols << ", B " << b.rows << "x" << b.cols
                   << ", C " << c.rows << "x" << c.cols << ", K " << k);
  FK_CHECK(c.size() == 0 || c.data != nullptr, variant << ": SpMM with a null C");
  FK_CHECK(s.nnz == 0 || b.data != nullptr, variant << ": SpMM with a null B");
  FK_CHECK(!overlaps(c, b), variant << ": C shares memory with B (C is written while B is read; "
                                       "give C its own buffer)");
  return vals;
}

// Rows per dynamic-schedule chunk: about 16 chunks per thread so that uneven rows balance, at
// most 256 rows so that a chunk is never a large share of a short matrix.
inline std::int64_t row_chunk(std::int64_t rows) {
  const std::int64_t threads = std::max(1, omp_get_max_threads());
  return std::clamp<std::int64_t>(rows / (16 * threads), 1, 256);
}

}  // namespace fk::omp_common
