#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/registry.hpp"

namespace fk {
void register_cuda_variants(Registry& r) {
  // --- SDDMM variants ---
  r.sddmm.push_back(make_cuda_sddmm_coo());
  r.sddmm.push_back(make_cuda_sddmm_preds());
  r.sddmm.push_back(make_cuda_sddmm_shared());
  r.sddmm.push_back(make_cuda_sddmm_convert());
  r.sddmm.push_back(make_cuda_sddmm_aspt());
  r.sddmm.push_back(make_cuda_sddmm_cusparse());
  for (int v : {1, 2, 4, 8}) r.sddmm.push_back(make_cuda_sddmm_tc(v));
  // --- end SDDMM variants ---
  // --- SpMM variants ---
  r.spmm.push_back(make_cuda_spmm_row_csc());
  r.spmm.push_back(make_cuda_spmm_row_split());
  r.spmm.push_back(make_cuda_spmm_vdl());
  r.spmm.push_back(make_cuda_spmm_nnz_vsr());
  r.spmm.push_back(make_cuda_spmm_aspt());
  r.spmm.push_back(make_cuda_spmm_cusparse());
  r.spmm.push_back(make_cuda_spmm_cusparse_on_transpose());
  r.spmm.push_back(make_cuda_spmm_dense());
  r.spmm.push_back(make_cuda_spmm_panel());
  for (int v : {1, 2, 4, 8}) r.spmm.push_back(make_cuda_spmm_tc(v));
  // --- end SpMM variants ---
  r.ratio_spmm.push_back(make_cuda_ratio_spmm_fused());
  (void)r;
}
}  // namespace fk
