// omp.ratio_spmm.rows: the fused ratio SpMM on the CPU (and its product and residual forms). Rows in dynamic
// chunks over the threads; a row's nonzeros go in chunks of kChunk: the chunk's dot products
// (kernels/omp/simd.hpp, register-blocked over several B rows), their ratios (or scaled products, or residuals)
// in a small per-thread buffer, then the chunk's update of the C row, while the chunk's B rows
// are still in L1 (32 rows of K = 256 take 32 KiB). The weights never reach memory and each B
// row leaves cache at most once per use.
#include <memory>
#include <vector>

#include "kernels/omp/common.hpp"
#include "kernels/omp/omp_variants.hpp"
#include "kernels/omp/simd.hpp"

namespace fk {
namespace {

constexpr std::int64_t kChunk = 32;

class OmpRatioSpmmRowsPlan : public RatioSpmmPlan {
 public:
  OmpRatioSpmmRowsPlan(const CsrView& s, int k) : s_(s), k_(k), chunk_(omp_common::row_chunk(s.rows)) {}

  void run(const Context&, const float* vals, DenseView<const float> a, DenseView<const float> b,
           float eps, DenseView<float> c) override {
    vals = spmm_values("omp.ratio_spmm.rows", s_, vals);
    rows(a, b, c, nullptr, [&](std::int64_t j, std::int64_t n, float* w) {
      for (std::int64_t e = 0; e < n; ++e) w[e] = vals[j + e] / (w[e] + eps);
    });
  }
  void run_product(const Context&, const float* scale, DenseView<const float> a,
                   DenseView<const float> b, DenseView<float> c) override {
    rows(a, b, c, scale, [](std::int64_t, std::int64_t, float*) {});
  }
  void run_residual(const Context&, const float* vals, const float* scale, DenseView<const float> a,
                    DenseView<const float> b, DenseView<float> c) override {
    vals = spmm_values("omp.ratio_spmm.rows", s_, vals);
    rows(a, b, c, scale, [&](std::int64_t j, std::int64_t n, float* w) {
      for (std::int64_t e = 0; e < n; ++e) w[e] = vals[j + e] - w[e];
    });
  }

 private:
  // C[i,:] = Σ_j w_j B[c_j,:], a chunk at a time: w = the chunk's dot products (times scale where
  // given), then weigh(first nonzero, count, w) turns them into the weights.
  template <class Weigh>
  void rows(DenseView<const float> a, DenseView<const float> b, DenseView<float> c,
            const float* scale, const Weigh& weigh) const {
    check_ratio_spmm_operands("omp.ratio_spmm.rows", s_, k_, a, b, c);
    const std::int64_t* row_ptr = s_.row_ptr;
    const std::int32_t* col_idx = s_.col_idx;
#pragma omp parallel
    {
      float w[kChunk];
#pragma omp for schedule(dynamic, chunk_)
      for (std::int64_t i = 0; i < s_.rows; ++i) {
        const std::int64_t j0 = row_ptr[i], j1 = row_ptr[i + 1];
        if (j0 == j1) omp_simd::spmm_row(col_idx, w, 0, b.data, b.cols, k_, c.row(i), false);
        for (std::int64_t j = j0; j < j1; j += kChunk) {
          const std::int64_t n = std::min(kChunk, j1 - j);
          omp_simd::sddmm_entries(a.row(i), b.data, b.cols, k_, col_idx + j, nullptr, 0, n,
                                  scale ? scale + j : nullptr, w);
          weigh(j, n, w);
          omp_simd::spmm_row(col_idx + j, w, n, b.data, b.cols, k_, c.row(i), j > j0);
        }
      }
    }
  }

  CsrView s_;
  int k_;
  std::int64_t chunk_;
};

class OmpRatioSpmmRows : public RatioSpmmVariant {
 public:
  const char* name() const override { return "omp.ratio_spmm.rows"; }
  const char* summary() const override {
    return "OpenMP rows: a chunk's dot products, ratios and C-row update while its B rows are in L1";
  }
  Backend backend() const override { return Backend::kOmp; }
  std::unique_ptr<RatioSpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<OmpRatioSpmmRowsPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<RatioSpmmVariant> make_omp_ratio_spmm_rows() { return std::make_unique<OmpRatioSpmmRows>(); }

}  // namespace fk
