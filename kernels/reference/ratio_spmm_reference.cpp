// The ratio SpMM oracle (every form): sequential, double dot products and accumulation.
#include <memory>
#include <vector>

#include "kernels/operand_checks.hpp"
#include "kernels/reference/reference.hpp"

namespace fk {
namespace {

class ReferenceRatioSpmmPlan : public RatioSpmmPlan {
 public:
  ReferenceRatioSpmmPlan(const CsrView& s, int k) : s_(s), k_(k) {}
  void run(const Context&, const float* vals, DenseView<const float> a, DenseView<const float> b,
           float eps, DenseView<float> c) override {
    vals = spmm_values(kName, s_, vals);
    compute(a, b, c, [&](std::int64_t j, double dot) { return double(vals[j]) / (dot + double(eps)); });
  }
  void run_product(const Context&, const float* scale, DenseView<const float> a,
                   DenseView<const float> b, DenseView<float> c) override {
    compute(a, b, c, [&](std::int64_t j, double dot) { return (scale ? double(scale[j]) : 1.0) * dot; });
  }
  void run_residual(const Context&, const float* vals, const float* scale, DenseView<const float> a,
                    DenseView<const float> b, DenseView<float> c) override {
    vals = spmm_values(kName, s_, vals);
    compute(a, b, c, [&](std::int64_t j, double dot) {
      return double(vals[j]) - (scale ? double(scale[j]) : 1.0) * dot;
    });
  }

 private:
  static constexpr const char* kName = "ref.ratio_spmm";

  // c[i,:] = Σ_j weight(j, A[i,:]·B[c_j,:]) B[c_j,:], all in double.
  template <class Weight>
  void compute(DenseView<const float> a, DenseView<const float> b, DenseView<float> c,
               const Weight& weight) const {
    check_ratio_spmm_operands(kName, s_, k_, a, b, c);
    std::vector<double> acc(k_);
    for (std::int64_t i = 0; i < s_.rows; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const float* ar = a.row(i);
      for (std::int64_t j = s_.row_ptr[i]; j < s_.row_ptr[i + 1]; ++j) {
        const float* br = b.row(s_.col_idx[j]);
        double dot = 0;
        for (int t = 0; t < k_; ++t) dot += double(ar[t]) * double(br[t]);
        const double w = weight(j, dot);
        for (int t = 0; t < k_; ++t) acc[t] += w * double(br[t]);
      }
      for (int t = 0; t < k_; ++t) c(i, t) = static_cast<float>(acc[t]);
    }
  }

  CsrView s_;
  int k_;
};

class ReferenceRatioSpmm : public RatioSpmmVariant {
 public:
  const char* name() const override { return "ref.ratio_spmm"; }
  const char* summary() const override { return "sequential reference, double accumulation (the test oracle)"; }
  Backend backend() const override { return Backend::kReference; }
  std::unique_ptr<RatioSpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<ReferenceRatioSpmmPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<RatioSpmmVariant> make_reference_ratio_spmm() {
  return std::make_unique<ReferenceRatioSpmm>();
}

}  // namespace fk
