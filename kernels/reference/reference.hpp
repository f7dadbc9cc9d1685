#pragma once
// Factories of the reference variants (one per file in this folder).
#include <memory>

#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
std::unique_ptr<SddmmVariant> make_reference_sddmm();
std::unique_ptr<SpmmVariant> make_reference_spmm();
}  // namespace fk
