// The SDDMM oracle: sequential, double accumulation, no tricks. Every other variant is tested
// against it.
#include <memory>

#include "kernels/operand_checks.hpp"
#include "kernels/reference/reference.hpp"

namespace fk {
namespace {

class ReferenceSddmmPlan : public SddmmPlan {
 public:
  ReferenceSddmmPlan(const CsrView& s, int k) : s_(s), k_(k) {}
  void run(const Context&, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands("ref.sddmm", s_, k_, a, b, out);
    for (std::int64_t i = 0; i < s_.rows; ++i) {
      for (std::int64_t j = s_.row_ptr[i]; j < s_.row_ptr[i + 1]; ++j) {
        const float* ar = a.row(i);
        const float* br = b.row(s_.col_idx[j]);
        double acc = 0;
        for (int t = 0; t < k_; ++t) acc += double(ar[t]) * double(br[t]);
        out[j] = static_cast<float>(s_vals ? acc * s_vals[j] : acc);
      }
    }
  }

 private:
  CsrView s_;
  int k_;
};

class ReferenceSddmm : public SddmmVariant {
 public:
  const char* name() const override { return "ref.sddmm"; }
  const char* summary() const override { return "sequential reference, double accumulation (the test oracle)"; }
  Backend backend() const override { return Backend::kReference; }
  std::unique_ptr<SddmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<ReferenceSddmmPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<SddmmVariant> make_reference_sddmm() { return std::make_unique<ReferenceSddmm>(); }

}  // namespace fk
