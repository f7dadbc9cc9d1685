#include "kernels/omp/omp_variants.hpp"
#include "kernels/registry.hpp"

namespace fk {
void register_omp_variants(Registry& r) {
  // --- SDDMM variants ---
  r.sddmm.push_back(make_omp_sddmm_rows());
  r.sddmm.push_back(make_omp_sddmm_aspt());
  // --- end SDDMM variants ---
  // --- SpMM variants ---
  r.spmm.push_back(make_omp_spmm_rows());
  r.spmm.push_back(make_omp_spmm_nnz_balanced());
  r.spmm.push_back(make_omp_spmm_aspt());
  // --- end SpMM variants ---
  r.ratio_spmm.push_back(make_omp_ratio_spmm_rows());
  (void)r;
}
}  // namespace fk
