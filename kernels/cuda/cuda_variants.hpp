#pragma once
// Factories of the CUDA variants (one per .cu file in this folder). CUDA builds only.
#include <memory>

#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
// --- SDDMM variants ---
std::unique_ptr<SddmmVariant> make_cuda_sddmm_coo();       // sddmm_coo.cu
std::unique_ptr<SddmmVariant> make_cuda_sddmm_preds();     // sddmm_preds.cu
std::unique_ptr<SddmmVariant> make_cuda_sddmm_shared();    // sddmm_shared.cu
std::unique_ptr<SddmmVariant> make_cuda_sddmm_convert();   // sddmm_convert.cu
std::unique_ptr<SddmmVariant> make_cuda_sddmm_aspt();      // sddmm_aspt.cu
std::unique_ptr<SddmmVariant> make_cuda_sddmm_cusparse();  // sddmm_cusparse.cu
std::unique_ptr<SddmmVariant> make_cuda_sddmm_tc(int v);   // sddmm_tc_vector.cu (v = 1, 2, 4, 8)
// --- end SDDMM variants ---
// --- SpMM variants ---
std::unique_ptr<SpmmVariant> make_cuda_spmm_row_csc();   // spmm_row_csc.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_row_split();  // spmm_row_split.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_vdl();       // spmm_vdl.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_nnz_vsr();   // spmm_nnz_vsr.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_aspt();      // spmm_aspt.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_cusparse();  // spmm_cusparse.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_cusparse_on_transpose();  // spmm_cusparse_on_transpose.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_dense();     // spmm_dense.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_panel();     // spmm_panel.cu
std::unique_ptr<SpmmVariant> make_cuda_spmm_tc(int v);    // spmm_tc_vector.cu (v = 1, 2, 4, 8)
// --- end SpMM variants ---
std::unique_ptr<RatioSpmmVariant> make_cuda_ratio_spmm_fused();  // ratio_spmm_fused.cu

// cuSPARSE's S·B plan (the fastest non-transposed CSR algorithm, chosen in prepare), shared by
// cuda.spmm.cusparse and cuda.spmm.cusparse_on_transpose (spmm_cusparse.cu).
std::unique_ptr<SpmmPlan> make_cusparse_spmm_plan(const Context& ctx, const CsrView& s, int k);
}  // namespace fk
