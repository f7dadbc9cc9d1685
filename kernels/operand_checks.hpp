#pragma once
// The checks every plan's run() makes on its operands before it reads or writes any of them: the
// shapes, no null pointer where data is needed, and no output sharing memory with an input (rows
// written early would be read again later, so C = S·B into B's own buffer gives garbage, not an
// in-place product). Pointers are compared, never dereferenced, so the same checks serve host
// and device operands, and every variant refuses a misuse with the same words.
#include <cstdint>

#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/error.hpp"
#include "kernels/variant.hpp"

namespace fk {

// SDDMM: A is S.rows x K, B is S.cols x K, out holds S.nnz floats. out == S's values (scaling in
// place) is allowed: each output is written after its own value is read.
inline void check_sddmm_operands(const char* variant, const CsrView& s, int k,
                                 DenseView<const float> a, DenseView<const float> b,
                                 const float* out) {
  FK_CHECK(a.rows == s.rows && b.rows == s.cols && a.cols == k && b.cols == k,
           variant << ": SDDMM shape mismatch: S " << s.rows << "x" << s.cols << ", A " << a.rows
                   << "x" << a.cols << ", B " << b.rows << "x" << b.cols << ", K " << k);
  FK_CHECK(s.nnz == 0 || (a.data != nullptr && b.data != nullptr && out != nullptr),
           variant << ": SDDMM with a null A, B or output pointer");
  const DenseView<const float> out_view{out, s.nnz, 1};
  FK_CHECK(!overlaps(out_view, a) && !overlaps(out_view, b),
           variant << ": SDDMM output shares memory with A or B");
}

// SpMM C = op(S)·B: B is op(S).cols x K, C is op(S).rows x K.
inline void check_spmm_operands(const char* variant, const CsrView& s, Op op, int k,
                                DenseView<const float> b, DenseView<float> c) {
  const bool trans = op == Op::kTrans;
  const std::int64_t b_rows = trans ? s.rows : s.cols, c_rows = trans ? s.cols : s.rows;
  FK_CHECK(b.rows == b_rows && c.rows == c_rows && b.cols == k && c.cols == k,
           variant << ": " << (trans ? "Sᵀ·B" : "S·B") << " shape mismatch: S " << s.rows << "x"
                   << s.cols << ", B " << b.rows << "x" << b.cols << ", C " << c.rows << "x"
                   << c.cols << ", K " << k);
  FK_CHECK(c.size() == 0 || c.data != nullptr, variant << ": SpMM with a null C");
  FK_CHECK(s.nnz == 0 || b.data != nullptr, variant << ": SpMM with a null B");
  FK_CHECK(!overlaps(c, b), variant << ": C shares memory with B (C is written while B is read; "
                                       "give C its own buffer)");
}

// Ratio SpMM C = Σ w(A_i·B_j) B_j over S's nonzeros: A and C are S.rows x K, B is S.cols x K; C
// must not share memory with A or B.
inline void check_ratio_spmm_operands(const char* variant, const CsrView& s, int k,
                                      DenseView<const float> a, DenseView<const float> b,
                                      DenseView<float> c) {
  FK_CHECK(a.rows == s.rows && b.rows == s.cols && c.rows == s.rows && a.cols == k && b.cols == k &&
               c.cols == k,
           variant << ": ratio SpMM shape mismatch: S " << s.rows << "x" << s.cols << ", A "
                   << a.rows << "x" << a.cols << ", B " << b.rows << "x" << b.cols << ", C "
                   << c.rows << "x" << c.cols << ", K " << k);
  FK_CHECK((s.nnz == 0 || (a.data != nullptr && b.data != nullptr)) &&
               (c.size() == 0 || c.data != nullptr),
           variant << ": ratio SpMM with a null A, B or C");
  FK_CHECK(!overlaps(c, a) && !overlaps(c, b),
           variant << ": C shares memory with A or B (C is written while they are read; give C "
                      "its own buffer)");
}

// The values an SpMM multiplies with: `vals` when given, else S's own (an error when S has none).
inline const float* spmm_values(const char* variant, const CsrView& s, const float* vals) {
  if (!vals) vals = s.vals;
  FK_CHECK(vals != nullptr || s.nnz == 0,
           variant << ": SpMM run without values: the pattern has none and none were given");
  return vals;
}

}  // namespace fk
