#pragma once
// The registry: every variant of this build, added by explicit per-backend functions (nothing
// registers itself). register_cuda_variants exists only in CUDA builds.
#include <memory>
#include <string>
#include <vector>

#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {

struct Registry {
  std::vector<std::unique_ptr<SddmmVariant>> sddmm;
  std::vector<std::unique_ptr<SpmmVariant>> spmm;
  std::vector<std::unique_ptr<RatioSpmmVariant>> ratio_spmm;
};

void register_reference_variants(Registry& r);  // kernels/reference/register.cpp
void register_omp_variants(Registry& r);        // kernels/omp/register.cpp
void register_cuda_variants(Registry& r);       // kernels/cuda/register.cu (CUDA builds only)

const Registry& registry();

// VariantInfo::repeatable() of the registered variant called `name` (any kernel); true for a name
// that is not registered.
bool variant_repeatable(const std::string& name);

}  // namespace fk
