// Small kernels shared by the CUDA SDDMM plans (declared in kernels/cuda/sddmm_common.cuh).
#include "kernels/cuda/sddmm_common.cuh"

namespace fk::sddmm_cuda {
namespace {

// One warp per row writes the row's index over its range of entries: coalesced stores, and a
// row with millions of entries is simply a longer loop for its warp (this runs once, in prepare).
__global__ void expand_rows_kernel(const std::int64_t* __restrict__ rp, std::int64_t rows,
                                   std::int32_t* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (std::int64_t r = warp; r < rows; r += warps) {
    const std::int64_t end = rp[r + 1];
    for (std::int64_t j = rp[r] + lane; j < end; j += 32) out[j] = static_cast<std::int32_t>(r);
  }
}

__global__ void scale_kernel(const float* __restrict__ scale, std::int64_t n, float* __restrict__ out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < n; j += stride)
    out[j] *= scale[j];
}

}  // namespace

void expand_rows(const Context& ctx, const CsrView& s, std::int32_t* rows) {
  if (s.nnz == 0 || s.rows == 0) return;
  FK_CHECK(s.rows <= INT32_MAX, "COO row expansion: " << s.rows << " rows do not fit 32-bit row indices");
  const int threads = 256;
  const unsigned blocks = grid_blocks(s.rows, threads / 32);
  expand_rows_kernel<<<std::min(blocks, 65535u * 8u), threads, 0, stream_of(ctx)>>>(s.row_ptr, s.rows, rows);
  FK_CUDA_CHECK_LAUNCH();
}

void scale_values(const Context& ctx, const float* scale, std::int64_t n, float* out) {
  if (n == 0) return;
  const int threads = 256;
  const unsigned blocks = std::min(grid_blocks(n, threads), static_cast<unsigned>(sm_count(ctx)) * 16u);
  scale_kernel<<<blocks, threads, 0, stream_of(ctx)>>>(scale, n, out);
  FK_CUDA_CHECK_LAUNCH();
}

}  // namespace fk::sddmm_cuda
