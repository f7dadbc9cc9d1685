#pragma once
// Small device-side operations called from host code in CUDA builds (implemented in
// kernels/cuda/device_ops.cu). All pointers are device pointers; work is queued on ctx's stream.
#include <cstdint>

#include "core/context.hpp"

namespace fk {

// dst[j] = src[perm[j]] for j in [0, n).
void gather_values(const Context& ctx, const float* src, const std::int64_t* perm, std::int64_t n, float* dst);

}  // namespace fk
