#include "kernels/reference/reference.hpp"
#include "kernels/registry.hpp"

namespace fk {
void register_reference_variants(Registry& r) {
  r.sddmm.push_back(make_reference_sddmm());
  r.spmm.push_back(make_reference_spmm());
  r.ratio_spmm.push_back(make_reference_ratio_spmm());
}
}  // namespace fk
