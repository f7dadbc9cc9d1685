// The GPU implementation of the SFA row-wise operations: device memory, small CUDA kernels for
// the elementwise updates and the per-row PCG scalars (one warp per row), cuBLAS for the K x K Gram
// matrices and the products with K x K preconditioners, and deterministic reductions (a fixed grid
// of per-block partial sums, then one block summing them in order). Inside a pass the host touches
// only K x K matrices (the preconditioners) and scalars; PCG's α and β stay on the device. Every
// launch is checked; every index that can pass 2^31 (nonzeros, rows·K) is 64-bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <utility>

#include "apps/common/subnormal.hpp"
#include "apps/common/device_ops.cuh"
#include "apps/sfa/sfa_engine.hpp"
#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/device_buffer.hpp"

namespace fk::sfa {
namespace {

// Launch shapes (kThreads, grid_for, grid_for_rows), warp_sum and DeviceSum: apps/common.
using namespace app::device;  // NOLINT(google-build-using-namespace)

#define FK_SFA_GRID_STRIDE(i, n)                                                      \
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < (n); \
       i += std::int64_t(gridDim.x) * blockDim.x)

__global__ void set_column_kernel(float* __restrict__ x, std::int64_t rows, int k, int col,
                                  float v) {
  FK_SFA_GRID_STRIDE(r, rows) x[r * k + col] = v;
}

__global__ void axpby_kernel(std::int64_t n, float a, const float* __restrict__ x, float b,
                             float* __restrict__ y) {
  FK_SFA_GRID_STRIDE(i, n) y[i] = a * x[i] + b * y[i];
}

__global__ void pcg_residual_kernel(std::int64_t n, const float* __restrict__ b,
                                    const float* __restrict__ y, const float* __restrict__ x,
                                    float lam, float* __restrict__ r) {
  FK_SFA_GRID_STRIDE(i, n) r[i] = b[i] - ((y ? y[i] : 0.0f) + lam * x[i]);
}

__global__ void scale_precond_kernel(float* __restrict__ h, std::int64_t n, int k,
                                     const float* __restrict__ cnt, float a,
                                     const float* __restrict__ d, float lam) {
  FK_SFA_GRID_STRIDE(e, n) h[e] /= a * cnt[e / k] * d[e % k] + lam;
}

// One warp per row: p = z; rz = r·z.
__global__ void pcg_start_kernel(std::int64_t rows, int k, const float* __restrict__ r,
                                 const float* __restrict__ z, float* __restrict__ p,
                                 float* __restrict__ rz) {
  const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;  // row is uniform within a warp: whole warps leave together
  const std::int64_t o = row * k;
  float acc = 0;
  for (int c = lane; c < k; c += 32) {
    p[o + c] = z[o + c];
    acc += r[o + c] * z[o + c];
  }
  acc = warp_sum(acc);
  if (lane == 0) rz[row] = app::cg_dot_or_converged(acc);
}

// One warp per row: α = rz / p·(y + λp); x += αp; r −= α(y + λp).
__global__ void pcg_x_kernel(std::int64_t rows, int k, float* __restrict__ x, float* __restrict__ r,
                             const float* __restrict__ p, const float* __restrict__ y, float lam,
                             const float* __restrict__ rz) {
  const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const std::int64_t o = row * k;
  float pap = 0;
  for (int c = lane; c < k; c += 32) pap += p[o + c] * (y[o + c] + lam * p[o + c]);
  pap = warp_sum(pap);
  const float rzv = rz[row];
  // A converged row (r·z = 0) stays as it is.
  const float alpha = (pap > 0.0f && rzv > 0.0f) ? rzv / pap : 0.0f;
  for (int c = lane; c < k; c += 32) {
    x[o + c] += alpha * p[o + c];
    r[o + c] -= alpha * (y[o + c] + lam * p[o + c]);
  }
}

// One warp per row: rz' = r·z; p = z + (rz'/rz) p; rz = rz'.
__global__ void pcg_p_kernel(std::int64_t rows, int k, const float* __restrict__ r,
                             const float* __restrict__ z, float* __restrict__ p,
                             float* __restrict__ rz) {
  const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const std::int64_t o = row * k;
  float acc = 0;
  for (int c = lane; c < k; c += 32) acc += r[o + c] * z[o + c];
  const float rz_new = app::cg_dot_or_converged(warp_sum(acc));
  const float rz_old = rz[row];
  const float beta = rz_old > 0.0f ? rz_new / rz_old : 0.0f;
  for (int c = lane; c < k; c += 32) p[o + c] = z[o + c] + beta * p[o + c];
  if (lane == 0) rz[row] = rz_new;
}

// Per-element terms of the deterministic reductions.
struct SqDiff {
  const float* t;
  const float* s;
  __device__ double2 operator()(std::int64_t j) const {
    const double e = double(t[j]) - double(s[j]);
    return make_double2(e * e, 0.0);
  }
};
struct SqNorm {
  const float* x;
  __device__ double2 operator()(std::int64_t j) const {
    const double v = x[j];
    return make_double2(v * v, 0.0);
  }
};
struct TestErr {
  const float* r;
  const std::int32_t* col;
  const float* s;
  const float* means;
  float mu, lo, hi;
  __device__ double2 operator()(std::int64_t j) const {
    float pred = mu + means[col[j]] + s[j];
    if (lo < hi) pred = fminf(fmaxf(pred, lo), hi);
    const double e = double(r[j]) - double(pred);
    return make_double2(e * e, fabs(e));
  }
};

// Memory, CSR and fill: app::device::DeviceOps.
class GpuOps : public DeviceOps {
 public:
  explicit GpuOps(const Context& ctx) {
    FK_CHECK(ctx.is_gpu(), "the GPU SFA backend needs a GPU context");
    ctx.gpu().cublas();  // created now rather than inside the first timed pass
  }

  void set_column(const Context& ctx, float* x, std::int64_t rows, int k, int col, float v) const {
    if (rows == 0) return;
    FK_CHECK(col >= 0 && col < k, "column " << col << " of " << k);
    set_column_kernel<<<grid_for(rows), kThreads, 0, stream_of(ctx)>>>(x, rows, k, col, v);
    FK_CUDA_CHECK_LAUNCH();
  }

  void axpby(const Context& ctx, std::int64_t n, float a, const float* x, float b, float* y) const {
    if (n == 0) return;
    axpby_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(n, a, x, b, y);
    FK_CUDA_CHECK_LAUNCH();
  }

  // g = xᵀx. Row-major x (rows x K) is column-major xᶜ (K x rows), and xᵀx = xᶜ xᶜᵀ.
  void gram(const Context& ctx, const float* x, std::int64_t rows, int k, float* g) const {
    FK_CHECK(rows <= INT_MAX, "too many rows for cuBLAS: " << rows);
    const float one = 1.0f, zero = 0.0f;
    FK_CUBLAS_CHECK(cublasSgemm(ctx.gpu().cublas(), CUBLAS_OP_N, CUBLAS_OP_T, k, k,
                                static_cast<int>(rows), &one, x, k, x, k, &zero, g, k));
  }

  // out = a·m for row-major a, out (rows x K) and m (K x K): in column-major terms
  // outᶜ = mᶜ aᶜ, where mᶜ (m read column-major) is mᵀ, and (a m)ᵀ = mᵀ aᵀ.
  void gemm(const Context& ctx, const float* a, std::int64_t rows, int k, const float* m,
            float* out) const {
    FK_CHECK(rows <= INT_MAX, "too many rows for cuBLAS: " << rows);
    if (rows == 0) return;
    const float one = 1.0f, zero = 0.0f;
    FK_CUBLAS_CHECK(cublasSgemm(ctx.gpu().cublas(), CUBLAS_OP_N, CUBLAS_OP_N, k,
                                static_cast<int>(rows), k, &one, m, k, a, k, &zero, out, k));
  }

  void pcg_residual(const Context& ctx, std::int64_t rows, int k, const float* b, const float* y,
                    const float* x, float lam, float* r) const {
    const std::int64_t n = rows * k;
    if (n == 0) return;
    pcg_residual_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(n, b, y, x, lam, r);
    FK_CUDA_CHECK_LAUNCH();
  }

  void pcg_start(const Context& ctx, std::int64_t rows, int k, const float* r, const float* z,
                 float* p, float* rz) const {
    if (rows == 0) return;
    pcg_start_kernel<<<grid_for_rows(rows), kThreads, 0, stream_of(ctx)>>>(rows, k, r, z, p, rz);
    FK_CUDA_CHECK_LAUNCH();
  }

  void pcg_x(const Context& ctx, std::int64_t rows, int k, float* x, float* r, const float* p,
             const float* y, float lam, const float* rz) const {
    if (rows == 0) return;
    pcg_x_kernel<<<grid_for_rows(rows), kThreads, 0, stream_of(ctx)>>>(rows, k, x, r, p, y, lam,
                                                                       rz);
    FK_CUDA_CHECK_LAUNCH();
  }

  void pcg_p(const Context& ctx, std::int64_t rows, int k, const float* r, const float* z, float* p,
             float* rz) const {
    if (rows == 0) return;
    pcg_p_kernel<<<grid_for_rows(rows), kThreads, 0, stream_of(ctx)>>>(rows, k, r, z, p, rz);
    FK_CUDA_CHECK_LAUNCH();
  }

  void scale_precond(const Context& ctx, float* h, std::int64_t rows, int k, const float* cnt,
                     float a, const float* d, float lam) const {
    const std::int64_t n = rows * k;
    if (n == 0) return;
    scale_precond_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(h, n, k, cnt, a, d, lam);
    FK_CUDA_CHECK_LAUNCH();
  }

  double sq_diff(const Context& ctx, const float* t, const float* s, std::int64_t n) {
    return sum_(ctx, SqDiff{t, s}, n).x;
  }
  double sq_norm(const Context& ctx, const float* x, std::int64_t n) {
    return sum_(ctx, SqNorm{x}, n).x;
  }
  std::pair<double, double> test_err(const Context& ctx, const float* r, const std::int32_t* col,
                                     const float* s, const float* means, float mu, float lo,
                                     float hi, std::int64_t n) {
    const double2 v = sum_(ctx, TestErr{r, col, s, means, mu, lo, hi}, n);
    return {v.x, v.y};
  }

 private:
  DeviceSum<double2> sum_;
};

#undef FK_SFA_GRID_STRIDE

}  // namespace

std::unique_ptr<SfaBackend> make_gpu_sfa_backend(Context ctx, const SfaHyper& hyper,
                                                 const HostCsr& train, const HostCsr& train_t,
                                                 const HostCsr& test,
                                                 const std::vector<float>& item_means,
                                                 app::StatsReducer* reducer) {
  FK_CHECK(ctx.is_gpu(), "the GPU SFA backend needs a GPU context");
  return std::make_unique<SfaEngine<GpuOps>>(std::move(ctx), hyper, train, train_t, test,
                                             item_means, reducer);
}

}  // namespace fk::sfa
