#pragma once
// Factories of the OpenMP variants (one per file in this folder).
#include <memory>

#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
// --- SDDMM variants ---
namespace aspt {
struct AsptParams;  // kernels/omp/aspt_tiling.hpp
}
std::unique_ptr<SddmmVariant> make_omp_sddmm_rows();
std::unique_ptr<SddmmVariant> make_omp_sddmm_aspt();
// The same variant with explicit tiling parameters (zero fields are still chosen automatically);
// for benchmarks and tests, not registered.
std::unique_ptr<SddmmVariant> make_omp_sddmm_aspt_with(const aspt::AsptParams& params);
// --- end SDDMM variants ---
// --- SpMM variants ---
std::unique_ptr<SpmmVariant> make_omp_spmm_rows();
std::unique_ptr<SpmmVariant> make_omp_spmm_nnz_balanced();
std::unique_ptr<SpmmVariant> make_omp_spmm_aspt();
std::unique_ptr<SpmmVariant> make_omp_spmm_aspt_with(const aspt::AsptParams& params);  // see above
// --- end SpMM variants ---
std::unique_ptr<RatioSpmmVariant> make_omp_ratio_spmm_rows();
}  // namespace fk
