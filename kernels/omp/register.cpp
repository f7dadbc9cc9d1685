#include "kernels/omp/omp_variants.hpp"
#include "kernels/registry.hpp"

namespace fk {
void register_omp_variants(Registry& r) {
  // --- SDDMM variants ---
  // --- end SDDMM variants ---
  // --- SpMM variants ---
  // --- end SpMM variants ---
  (void)r;
}
}  // namespace fk
