#pragma once
// Factories of the OpenMP variants (one per file in this folder).
#include <memory>

#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
// --- SDDMM variants ---
// --- end SDDMM variants ---
// --- SpMM variants ---
// --- end SpMM variants ---
}  // namespace fk
