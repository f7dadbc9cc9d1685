#pragma once
// Factories of the reference variants (one per file in this folder).
#include <memory>

#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
std::unique_ptr<SddmmVariant> make_reference_sddmm();
std::unique_ptr<SpmmVariant> make_reference_spmm();
std::unique_ptr<RatioSpmmVariant> make_reference_ratio_spmm();
}  // namespace fk
