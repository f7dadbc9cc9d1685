#pragma once
// Factories of the CUDA variants (one per .cu file in this folder). CUDA builds only.
#include <memory>

#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
// --- SDDMM variants ---
// --- end SDDMM variants ---
// --- SpMM variants ---
// --- end SpMM variants ---
}  // namespace fk
