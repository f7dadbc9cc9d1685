// The GPU implementation of the GaP elementwise operations and reductions: device memory, small
// grid-stride CUDA kernels, and deterministic reductions (a fixed grid of per-block partial sums in
// double, then one block summing them in order; column sums through fixed row chunks summed in
// chunk order). Inside an iteration the host touches no per-nonzero, per-document or per-word
// data: the column sums that normalize Λ stay on the device. Every launch is checked; every index
// that can pass 2^31 (nonzeros, rows·K) is 64-bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "apps/common/device_ops.cuh"
#include "apps/common/subnormal.hpp"
#include "apps/gap/gap_engine.hpp"
#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/device_buffer.hpp"

namespace fk::gap {
namespace {

constexpr std::int64_t kColChunk = 256;  // rows per partial column sum

// Launch shapes (kThreads, grid_for) and DeviceSum: apps/common.
using namespace app::device;  // NOLINT(google-build-using-namespace)

__global__ void ratio_kernel(const float* __restrict__ f, const float* __restrict__ r,
                             std::int64_t n, float* __restrict__ q) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    q[j] = f[j] / (r[j] + kRateFloor);
}

__global__ void update_x_kernel(float* __restrict__ x, const float* __restrict__ t, std::int64_t n,
                                float am1, float inv_den) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    x[j] = app::zero_if_subnormal((x[j] * t[j] + am1) * inv_den);  // as the CPU flushes them
}

__global__ void multiply_kernel(const float* __restrict__ a, float* __restrict__ b,
                                std::int64_t n) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    b[j] = a[j] * b[j];
}

// partial[chunk · k + c] = Σ over the rows of `chunk` of m[r · k + c], rows in order. One thread
// per (chunk, column): neighbouring threads read neighbouring columns of a row (coalesced).
__global__ void col_partial_kernel(const float* __restrict__ m, std::int64_t rows, int k,
                                   std::int64_t chunks, double* __restrict__ partial) {
  const std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (e >= chunks * k) return;
  const std::int64_t chunk = e / k;
  const int c = static_cast<int>(e % k);
  const std::int64_t r0 = chunk * kColChunk, r1 = min(rows, r0 + kColChunk);
  double s = 0;
  for (std::int64_t r = r0; r < r1; ++r) s += m[r * k + c];
  partial[e] = s;
}

// out[c] = Σ_chunk partial[chunk · k + c], chunks in order.
__global__ void col_final_kernel(const double* __restrict__ partial, std::int64_t chunks, int k,
                                 double* __restrict__ out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= k) return;
  double s = 0;
  for (std::int64_t ch = 0; ch < chunks; ++ch) s += partial[ch * k + c];
  out[c] = s;
}

__global__ void normalize_cols_kernel(const float* __restrict__ t, const double* __restrict__ sums,
                                      std::int64_t n, int k, float* __restrict__ lam) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < n;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const double s = sums[e % k];
    if (s > 0) lam[e] = app::zero_if_subnormal(t[e] * static_cast<float>(1.0 / s));
  }
}

struct FLog {
  const float* f;
  const float* r;
  __device__ double operator()(std::int64_t j) const {
    return double(f[j]) * log(double(fmaxf(r[j], kRateFloor)));
  }
};
struct Prior {
  const float* x;
  float am1, inv_b;
  __device__ double operator()(std::int64_t j) const {
    const double v = x[j];
    return (am1 > 0.0f ? double(am1) * log(fmax(v, double(kRateFloor))) : 0.0) - v * double(inv_b);
  }
};

// Memory, CSR and fill: app::device::DeviceOps.
class GpuOps : public DeviceOps {
 public:
  explicit GpuOps(const Context& ctx) {
    FK_CHECK(ctx.is_gpu(), "the GPU GaP backend needs a GPU context");
  }

  void copy(const Context& ctx, const float* src, float* dst, std::int64_t n) const {
    if (n == 0) return;
    FK_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(n) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, stream_of(ctx)));
  }
  void ratio(const Context& ctx, const float* f, const float* r, std::int64_t n, float* q) const {
    if (n == 0) return;
    ratio_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(f, r, n, q);
    FK_CUDA_CHECK_LAUNCH();
  }
  void update_x(const Context& ctx, float* x, const float* t, std::int64_t n, float am1,
                float inv_den) const {
    if (n == 0) return;
    update_x_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(x, t, n, am1, inv_den);
    FK_CUDA_CHECK_LAUNCH();
  }
  void multiply(const Context& ctx, const float* a, float* b, std::int64_t n) const {
    if (n == 0) return;
    multiply_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(a, b, n);
    FK_CUDA_CHECK_LAUNCH();
  }

  // Two launches; `out` (k doubles) stays on the device.
  void col_sums(const Context& ctx, const float* m, std::int64_t rows, int k, double* out) {
    const std::int64_t chunks = std::max<std::int64_t>(1, (rows + kColChunk - 1) / kColChunk);
    if (col_partial_.size() < chunks * k) col_partial_ = DeviceBuffer<double>(chunks * k);
    cudaStream_t st = stream_of(ctx);
    const std::int64_t n = chunks * k;
    col_partial_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, st>>>(
        m, rows, k, chunks, col_partial_.data());
    FK_CUDA_CHECK_LAUNCH();
    col_final_kernel<<<(k + kThreads - 1) / kThreads, kThreads, 0, st>>>(col_partial_.data(),
                                                                         chunks, k, out);
    FK_CUDA_CHECK_LAUNCH();
  }

  void normalize_cols(const Context& ctx, const float* t, const double* sums, std::int64_t rows,
                      int k, float* lam) const {
    const std::int64_t n = rows * k;
    if (n == 0) return;
    normalize_cols_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(t, sums, n, k, lam);
    FK_CUDA_CHECK_LAUNCH();
  }

  double sum_f_log(const Context& ctx, const float* f, const float* r, std::int64_t n) {
    return sum_(ctx, FLog{f, r}, n);
  }
  double prior_sum(const Context& ctx, const float* x, std::int64_t n, float am1, float inv_b) {
    return sum_(ctx, Prior{x, am1, inv_b}, n);
  }

 private:
  DeviceSum<double> sum_;
  DeviceBuffer<double> col_partial_;
};

}  // namespace

std::unique_ptr<GapBackend> make_gpu_gap_backend(Context ctx, const GapHyper& hyper,
                                                 const GapMatrices& m) {
  FK_CHECK(ctx.is_gpu(), "the GPU GaP backend needs a GPU context");
  return std::make_unique<GapEngine<GpuOps>>(std::move(ctx), hyper, m);
}

}  // namespace fk::gap
