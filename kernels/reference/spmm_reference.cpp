// The SpMM oracle: sequential, double accumulation. C = S · B.
#include <memory>
#include <vector>

#include "kernels/operand_checks.hpp"
#include "kernels/reference/reference.hpp"

namespace fk {
namespace {

class ReferenceSpmmPlan : public SpmmPlan {
 public:
  ReferenceSpmmPlan(const CsrView& s, int k) : s_(s), k_(k) {}
  void run(const Context&, const float* vals, DenseView<const float> b, DenseView<float> c) override {
    check_spmm_operands("ref.spmm", s_, Op::kNoTrans, k_, b, c);
    vals = spmm_values("ref.spmm", s_, vals);
    std::vector<double> acc(k_);
    for (std::int64_t i = 0; i < s_.rows; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::int64_t j = s_.row_ptr[i]; j < s_.row_ptr[i + 1]; ++j) {
        const float* br = b.row(s_.col_idx[j]);
        for (int t = 0; t < k_; ++t) acc[t] += double(vals[j]) * double(br[t]);
      }
      for (int t = 0; t < k_; ++t) c(i, t) = static_cast<float>(acc[t]);
    }
  }

 private:
  CsrView s_;
  int k_;
};

class ReferenceSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "ref.spmm"; }
  const char* summary() const override { return "sequential reference, double accumulation (the test oracle)"; }
  Backend backend() const override { return Backend::kReference; }
  std::unique_ptr<SpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<ReferenceSpmmPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_reference_spmm() { return std::make_unique<ReferenceSpmm>(); }

}  // namespace fk
