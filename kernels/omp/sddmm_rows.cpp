// omp.sddmm.rows: the baseline a user would write. Rows in dynamic chunks over the threads; each
// nonzero is one dot product over K with `#pragma omp simd reduction`. No preprocessing.
#include <memory>

#include "kernels/omp/common.hpp"
#include "kernels/omp/omp_variants.hpp"

namespace fk {
namespace {

class OmpSddmmRowsPlan : public SddmmPlan {
 public:
  OmpSddmmRowsPlan(const CsrView& s, int k) : s_(s), k_(k), chunk_(omp_common::row_chunk(s.rows)) {}

  void run(const Context&, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands("omp.sddmm.rows", s_, k_, a, b, out);
    const std::int64_t* row_ptr = s_.row_ptr;
    const std::int32_t* col_idx = s_.col_idx;
    const std::int64_t k = k_;
#pragma omp parallel for schedule(dynamic, chunk_)
    for (std::int64_t i = 0; i < s_.rows; ++i) {
      const float* ar = a.row(i);
      for (std::int64_t j = row_ptr[i]; j < row_ptr[i + 1]; ++j) {
        const float* br = b.row(col_idx[j]);
        float acc = 0;
#pragma omp simd reduction(+ : acc)
        for (std::int64_t t = 0; t < k; ++t) acc += ar[t] * br[t];
        out[j] = s_vals ? acc * s_vals[j] : acc;
      }
    }
  }

 private:
  CsrView s_;
  int k_;
  std::int64_t chunk_;
};

class OmpSddmmRows : public SddmmVariant {
 public:
  const char* name() const override { return "omp.sddmm.rows"; }
  const char* summary() const override {
    return "OpenMP rows in dynamic chunks, one SIMD dot product over K per nonzero (baseline)";
  }
  Backend backend() const override { return Backend::kOmp; }
  std::unique_ptr<SddmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<OmpSddmmRowsPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<SddmmVariant> make_omp_sddmm_rows() { return std::make_unique<OmpSddmmRows>(); }

}  // namespace fk
