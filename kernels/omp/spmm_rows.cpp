// omp.spmm.rows: row-split SpMM. Rows in dynamic chunks over the threads; each C row is
// accumulated in registers (64-column blocks of K, see kernels/omp/simd.hpp) over the row's
// nonzeros and written exactly once. No preprocessing.
#include <memory>

#include "kernels/omp/common.hpp"
#include "kernels/omp/omp_variants.hpp"
#include "kernels/omp/simd.hpp"

namespace fk {
namespace {

class OmpSpmmRowsPlan : public SpmmPlan {
 public:
  OmpSpmmRowsPlan(const CsrView& s, int k) : s_(s), k_(k), chunk_(omp_common::row_chunk(s.rows)) {}

  void run(const Context&, const float* vals, DenseView<const float> b, DenseView<float> c) override {
    check_spmm_operands("omp.spmm.rows", s_, Op::kNoTrans, k_, b, c);
    vals = spmm_values("omp.spmm.rows", s_, vals);
    const std::int64_t* row_ptr = s_.row_ptr;
    const std::int32_t* col_idx = s_.col_idx;
#pragma omp parallel for schedule(dynamic, chunk_)
    for (std::int64_t i = 0; i < s_.rows; ++i) {
      const std::int64_t j0 = row_ptr[i];
      omp_simd::spmm_row(col_idx + j0, vals + j0, row_ptr[i + 1] - j0, b.data, b.cols, k_, c.row(i), false);
    }
  }

 private:
  CsrView s_;
  int k_;
  std::int64_t chunk_;
};

class OmpSpmmRows : public SpmmVariant {
 public:
  const char* name() const override { return "omp.spmm.rows"; }
  const char* summary() const override {
    return "OpenMP rows in dynamic chunks, C row accumulated in registers and written once";
  }
  Backend backend() const override { return Backend::kOmp; }
  std::unique_ptr<SpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<OmpSpmmRowsPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_omp_spmm_rows() { return std::make_unique<OmpSpmmRows>(); }

}  // namespace fk
