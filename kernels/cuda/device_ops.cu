#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "kernels/cuda/device_ops.hpp"

namespace fk {
namespace {
__global__ void gather_kernel(const float* __restrict__ src, const std::int64_t* __restrict__ perm,
                              std::int64_t n, float* __restrict__ dst) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    dst[j] = src[perm[j]];
}
}  // namespace

void gather_values(const Context& ctx, const float* src, const std::int64_t* perm, std::int64_t n, float* dst) {
  if (n == 0) return;
  const int threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((n + threads - 1) / threads, 65535LL * 16);
  gather_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream_of(ctx)>>>(src, perm, n, dst);
  FK_CUDA_CHECK_LAUNCH();
}

}  // namespace fk
