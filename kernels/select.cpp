// The `auto` rule tables. Each rule names the benchmark that justifies it (docs/benchmarks/).
// A rule only picks a variant that applies; the last resort on each device always applies.
#include <string>

#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
namespace {

template <typename V>
const V* first_applicable(const std::vector<const V*>& all, std::initializer_list<const char*> names,
                          const KernelProblem& p) {
  for (const char* n : names)
    for (const V* v : all)
      if (std::string(v->name()) == n && v->why_not(p).empty()) return v;
  return nullptr;
}

}  // namespace

const SddmmVariant& choose_sddmm_variant(DeviceKind device, const KernelProblem& p) {
  const auto& all = sddmm_variants();
  const SddmmVariant* v = nullptr;
  if (device == DeviceKind::kGpu) {
    v = first_applicable(all, {"cuda.sddmm.cusparse"}, p);
  } else {
    v = first_applicable(all, {"omp.sddmm.rows", "ref.sddmm"}, p);
  }
  FK_CHECK(v != nullptr, "no SDDMM variant applies on the " << to_string(device));
  return *v;
}

const SpmmVariant& choose_spmm_variant(DeviceKind device, const KernelProblem& p) {
  const auto& all = spmm_variants();
  const SpmmVariant* v = nullptr;
  if (device == DeviceKind::kGpu) {
    v = first_applicable(all, {"cuda.spmm.cusparse"}, p);
  } else {
    v = first_applicable(all, {"omp.spmm.rows", "ref.spmm"}, p);
  }
  FK_CHECK(v != nullptr, "no SpMM variant applies on the " << to_string(device));
  return *v;
}

}  // namespace fk
