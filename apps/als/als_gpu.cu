// The GPU implementation of the ALS row-wise operations: device memory, small CUDA kernels for
// the per-nonzero targets and the per-row CG scalars (one warp per row), cuBLAS for the K x K Gram
// matrix and the implicit dense term, cuSOLVER's batched Cholesky for the exact solver, and
// deterministic reductions (a fixed grid of per-block partial sums, then one block summing them
// in order). Inside a half-step the host touches no per-rating or per-row data: CG's α and β stay
// on the device. Every launch is checked; every index that can pass 2^31 (nonzeros, rows·K) is
// 64-bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "apps/als/als_engine.hpp"
#include "apps/common/subnormal.hpp"
#include "apps/common/device_ops.cuh"
#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/device_buffer.hpp"

namespace fk::als {
namespace {

constexpr int kGramTileFloats = 8192;  // shared memory of the Gram kernel: 32 KiB of design rows
constexpr std::size_t kGramChunkBytes = std::size_t{256}
                                        << 20;  // K x K matrices per cuSOLVER batch

// Launch shapes (kThreads, grid_for, grid_for_rows), warp_sum and DeviceSum: apps/common.
using namespace app::device;  // NOLINT(google-build-using-namespace)

__global__ void targets_kernel(const float* __restrict__ r, const std::int32_t* __restrict__ col,
                               std::int64_t nnz, float mu, const float* __restrict__ other_x, int k,
                               int bias_col, float* __restrict__ t) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < nnz;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    float v = r[j] - mu;
    if (bias_col >= 0) v -= other_x[std::int64_t(col[j]) * k + bias_col];
    t[j] = v;
  }
}

// One warp per row: the targets of a CSR in its own order, with the row's bias (row_targets).
__global__ void row_targets_kernel(const float* __restrict__ r,
                                   const std::int64_t* __restrict__ row_ptr, std::int64_t rows,
                                   float mu, const float* __restrict__ other_x, int k, int bias_col,
                                   float* __restrict__ t) {
  const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  if (row >= rows) return;
  const float bias = bias_col >= 0 ? other_x[row * k + bias_col] : 0.0f;
  for (std::int64_t j = row_ptr[row] + threadIdx.x % 32; j < row_ptr[row + 1]; j += 32)
    t[j] = (r[j] - mu) - bias;  // as targets rounds
}

__global__ void affine_kernel(const float* __restrict__ in, std::int64_t n, float a, float b,
                              float* __restrict__ out) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    out[j] = a * in[j] + b;
}

__global__ void make_design_kernel(const float* __restrict__ x, float* __restrict__ d,
                                   std::int64_t n, int k, int one_col) {
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < n;
       e += std::int64_t(gridDim.x) * blockDim.x)
    d[e] = (e % k == one_col) ? 1.0f : x[e];
}

// One warp per row: r = b − (y + diag∘x); p = r; rs = r·r.
__global__ void cg_init_kernel(std::int64_t rows, int k, const float* __restrict__ b,
                               const float* __restrict__ y, const float* __restrict__ x,
                               const float* __restrict__ diag, float* __restrict__ r,
                               float* __restrict__ p, float* __restrict__ rs) {
  const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;  // whole warps leave together: row is uniform within a warp
  const std::int64_t o = row * k;
  const float di = diag ? diag[row] : 0.0f;
  float acc = 0;
  for (int c = lane; c < k; c += 32) {
    const float v = b[o + c] - ((y ? y[o + c] : 0.0f) + di * x[o + c]);
    r[o + c] = v;
    p[o + c] = v;
    acc += v * v;
  }
  acc = warp_sum(acc);
  if (lane == 0) rs[row] = app::cg_dot_or_converged(acc);
}

// One warp per row, one CG step with A·p = y + diag∘p:
//   α = rs / (p·Ap); x += α p; r −= α Ap; rs' = r·r; β = rs'/rs; p = r + β p; rs = rs'.
__global__ void cg_step_kernel(std::int64_t rows, int k, float* __restrict__ x,
                               float* __restrict__ r, float* __restrict__ p,
                               const float* __restrict__ y, const float* __restrict__ diag,
                               float* __restrict__ rs) {
  const std::int64_t row = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const std::int64_t o = row * k;
  const float di = diag ? diag[row] : 0.0f;
  float pap = 0;
  for (int c = lane; c < k; c += 32) pap += p[o + c] * (y[o + c] + di * p[o + c]);
  pap = warp_sum(pap);
  const float rs_old = rs[row];
  // A zero residual (converged, or an empty row with A = 0) leaves the row as it is.
  const float alpha = (pap > 0.0f && rs_old > 0.0f) ? rs_old / pap : 0.0f;
  float acc = 0;
  for (int c = lane; c < k; c += 32) {
    x[o + c] += alpha * p[o + c];
    const float v = r[o + c] - alpha * (y[o + c] + di * p[o + c]);
    r[o + c] = v;
    acc += v * v;
  }
  const float rs_new = app::cg_dot_or_converged(warp_sum(acc));
  const float beta = rs_old > 0.0f ? rs_new / rs_old : 0.0f;
  for (int c = lane; c < k; c += 32) p[o + c] = r[o + c] + beta * p[o + c];
  if (lane == 0) rs[row] = rs_new;
}

__global__ void add_diagonal_kernel(float* __restrict__ g, int k, float v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < k) g[std::int64_t(i) * k + i] += v;
}

// One block per row of the chunk [row0, row0 + gridDim.x): A = g + Σ_j w_j d_j d_jᵀ + diag_r I
// (full symmetric K x K, so row- and column-major agree), and x_r = b_r (cuSOLVER solves in place).
// An explicit row without ratings gets A = I (b_r is 0 there, so x_r stays 0).
__global__ void build_normal_equations_kernel(
    const std::int64_t* __restrict__ row_ptr, const std::int32_t* __restrict__ col_idx,
    const float* __restrict__ w, const float* __restrict__ diag, const float* __restrict__ g,
    const float* __restrict__ d, const float* __restrict__ b, float* __restrict__ x, int k,
    std::int64_t row0, int tile, float* __restrict__ a_chunk) {
  extern __shared__ float tile_rows[];  // tile x K design rows, pre-scaled by w_j
  const std::int64_t row = row0 + blockIdx.x;
  const std::int64_t kk = std::int64_t(k) * k;
  float* a = a_chunk + std::int64_t(blockIdx.x) * kk;
  const std::int64_t j0 = row_ptr[row], j1 = row_ptr[row + 1];
  const bool identity = (g == nullptr && j0 == j1);
  for (std::int64_t e = threadIdx.x; e < kk; e += blockDim.x) {
    const int i = static_cast<int>(e / k), c = static_cast<int>(e % k);
    float v = g ? g[e] : 0.0f;
    if (i == c) v += identity ? 1.0f : (diag ? diag[row] : 0.0f);
    a[e] = v;
  }
  for (int c = threadIdx.x; c < k; c += blockDim.x) x[row * k + c] = b[row * k + c];
  for (std::int64_t t0 = j0; t0 < j1; t0 += tile) {
    const int n = static_cast<int>(min(std::int64_t(tile), j1 - t0));
    __syncthreads();  // the previous tile is consumed
    for (int e = threadIdx.x; e < n * k; e += blockDim.x) {
      const int t = e / k, c = e % k;
      const std::int64_t j = t0 + t;
      // The weight enters both factors of d dᵀ, so each gets its square root (w = c − 1 >= 0).
      const float s = w ? sqrtf(fmaxf(w[j], 0.0f)) : 1.0f;
      tile_rows[e] = s * d[std::int64_t(col_idx[j]) * k + c];
    }
    __syncthreads();
    for (std::int64_t e = threadIdx.x; e < kk; e += blockDim.x) {
      const int i = static_cast<int>(e / k), c = static_cast<int>(e % k);
      float acc = 0;
      for (int t = 0; t < n; ++t) acc += tile_rows[t * k + i] * tile_rows[t * k + c];
      a[e] += acc;
    }
  }
}

__global__ void batch_pointers_kernel(float* a_chunk, std::int64_t kk, float* x, std::int64_t row0,
                                      int k, int n, float** a_ptr, float** b_ptr) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a_ptr[i] = a_chunk + std::int64_t(i) * kk;
    b_ptr[i] = x + (row0 + i) * k;
  }
}

// flag |= (some info[i] != 0)
__global__ void any_nonzero_kernel(const int* __restrict__ info, int n, int* __restrict__ flag) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (info[i] != 0) atomicOr(flag, 1);
}

// Deterministic sums of a per-element pair: each of kReduceBlocks blocks sums a fixed grid-stride
// slice in a fixed order, then a tree in shared memory; one block then sums the partials.
struct SqAbsDiff {
  const float* t;
  const float* s;
  const float* r;  // null: e = t − s; else e = r − clamp(s + r − t, lo, hi)
  float lo, hi;
  __device__ double2 operator()(std::int64_t j) const {
    const double e = r ? double(r[j]) - double(fminf(fmaxf(s[j] + (r[j] - t[j]), lo), hi))
                       : double(t[j]) - double(s[j]);
    return make_double2(e * e, fabs(e));
  }
};
struct ImplicitObs {
  const float* cm1;
  const float* s;
  __device__ double2 operator()(std::int64_t j) const {
    const double v = s[j], c = 1.0 + cm1[j];
    return make_double2(c * (1.0 - v) * (1.0 - v) - v * v, 0.0);
  }
};
struct WeightedSq {
  const float* x;
  const float* w;
  int k;
  __device__ double2 operator()(std::int64_t e) const {
    const double v = x[e];
    return make_double2((w ? double(w[e / k]) : 1.0) * v * v, 0.0);
  }
};

// Memory, CSR and fill: app::device::DeviceOps.
class GpuOps : public DeviceOps {
 public:
  explicit GpuOps(const Context& ctx) : flag_(1) {
    FK_CHECK(ctx.is_gpu(), "the GPU ALS backend needs a GPU context");
    ctx.gpu().cublas();  // created now rather than inside the first timed half-step
  }

  void targets(const Context& ctx, const float* r, const std::int32_t* col, std::int64_t nnz,
               float mu, const float* other_x, int k, int bias_col, float* t) const {
    if (nnz == 0) return;
    targets_kernel<<<grid_for(nnz), kThreads, 0, stream_of(ctx)>>>(r, col, nnz, mu, other_x, k,
                                                                   bias_col, t);
    FK_CUDA_CHECK_LAUNCH();
  }

  void row_targets(const Context& ctx, const float* r, const std::int64_t* row_ptr,
                   std::int64_t rows, float mu, const float* other_x, int k, int bias_col,
                   float* t) const {
    if (rows == 0) return;
    row_targets_kernel<<<grid_for_rows(rows), kThreads, 0, stream_of(ctx)>>>(
        r, row_ptr, rows, mu, other_x, k, bias_col, t);
    FK_CUDA_CHECK_LAUNCH();
  }

  void affine(const Context& ctx, const float* in, std::int64_t n, float a, float b,
              float* out) const {
    if (n == 0) return;
    affine_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(in, n, a, b, out);
    FK_CUDA_CHECK_LAUNCH();
  }

  void make_design(const Context& ctx, const float* x, float* d, std::int64_t rows, int k,
                   int one_col) const {
    const std::int64_t n = rows * k;
    if (n == 0) return;
    make_design_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(x, d, n, k, one_col);
    FK_CUDA_CHECK_LAUNCH();
  }

  void cg_init(const Context& ctx, std::int64_t rows, int k, const float* b, const float* y,
               const float* x, const float* diag, float* r, float* p, float* rs) const {
    if (rows == 0) return;
    cg_init_kernel<<<grid_for_rows(rows), kThreads, 0, stream_of(ctx)>>>(rows, k, b, y, x, diag, r,
                                                                         p, rs);
    FK_CUDA_CHECK_LAUNCH();
  }

  void cg_step(const Context& ctx, std::int64_t rows, int k, float* x, float* r, float* p,
               const float* y, const float* diag, float* rs) const {
    if (rows == 0) return;
    cg_step_kernel<<<grid_for_rows(rows), kThreads, 0, stream_of(ctx)>>>(rows, k, x, r, p, y, diag,
                                                                         rs);
    FK_CUDA_CHECK_LAUNCH();
  }

  // g = dᵀd + λI. Row-major d (n x K) is column-major dᶜ (K x n), and dᵀd = dᶜ dᶜᵀ.
  void gram(const Context& ctx, const float* d, std::int64_t n, int k, float lambda,
            float* g) const {
    FK_CHECK(n <= INT32_MAX, "too many rows for cuBLAS: " << n);
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t h = ctx.gpu().cublas();
    FK_CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, k, k, static_cast<int>(n), &one, d, k,
                                d, k, &zero, g, k));
    if (lambda != 0.0f) {
      add_diagonal_kernel<<<(k + kThreads - 1) / kThreads, kThreads, 0, stream_of(ctx)>>>(g, k,
                                                                                          lambda);
      FK_CUDA_CHECK_LAUNCH();
    }
  }

  // y += p·g for row-major p, y (rows x K): column-major yᶜ += gᵀ pᶜ = g pᶜ (g is symmetric).
  void gemm_add(const Context& ctx, const float* p, std::int64_t rows, int k, const float* g,
                float* y) const {
    FK_CHECK(rows <= INT32_MAX, "too many rows for cuBLAS: " << rows);
    if (rows == 0) return;
    const float one = 1.0f;
    FK_CUBLAS_CHECK(cublasSgemm(ctx.gpu().cublas(), CUBLAS_OP_N, CUBLAS_OP_N, k,
                                static_cast<int>(rows), k, &one, g, k, p, k, &one, y, k));
  }

  // Builds the normal equations of a chunk of rows with one kernel, then cuSOLVER's batched
  // Cholesky factorizes and solves them (in place in x). Chunks bound the K x K matrices' memory.
  void exact_solve(const Context& ctx, const CsrView& s, const float* w, const float* diag,
                   const float* g, const float* d, const float* b, float* x, std::int64_t rows,
                   int k) {
    if (rows == 0) return;
    const std::int64_t kk = std::int64_t(k) * k;
    const std::int64_t chunk = std::max<std::int64_t>(
        1, std::min<std::int64_t>({rows, static_cast<std::int64_t>(kGramChunkBytes / (kk * 4)),
                                   std::int64_t{1} << 20}));
    if (a_chunk_.size() < chunk * kk) a_chunk_ = DeviceBuffer<float>(chunk * kk);
    if (a_ptr_.size() < chunk) {
      a_ptr_ = DeviceBuffer<float*>(chunk);
      b_ptr_ = DeviceBuffer<float*>(chunk);
      info_ = DeviceBuffer<int>(chunk + 1);
    }
    const int tile = std::max(1, std::min(32, kGramTileFloats / k));
    const std::size_t smem = static_cast<std::size_t>(tile) * k * sizeof(float);
    FK_CHECK(smem <= 48 * 1024, "K = " << k << " is too large for the exact solver's Gram kernel");
    cudaStream_t st = stream_of(ctx);
    cusolverDnHandle_t h = ctx.gpu().cusolver();
    FK_CUDA_CHECK(cudaMemsetAsync(flag_.data(), 0, sizeof(int), st));
    for (std::int64_t row0 = 0; row0 < rows; row0 += chunk) {
      const int n = static_cast<int>(std::min(chunk, rows - row0));
      build_normal_equations_kernel<<<n, kThreads, smem, st>>>(
          s.row_ptr, s.col_idx, w, diag, g, d, b, x, k, row0, tile, a_chunk_.data());
      FK_CUDA_CHECK_LAUNCH();
      batch_pointers_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, st>>>(
          a_chunk_.data(), kk, x, row0, k, n, a_ptr_.data(), b_ptr_.data());
      FK_CUDA_CHECK_LAUNCH();
      FK_CUSOLVER_CHECK(
          cusolverDnSpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, k, a_ptr_.data(), k, info_.data(), n));
      FK_CUSOLVER_CHECK(cusolverDnSpotrsBatched(h, CUBLAS_FILL_MODE_LOWER, k, 1, a_ptr_.data(), k,
                                                b_ptr_.data(), k, info_.data() + n, n));
      any_nonzero_kernel<<<grid_for(n + 1), kThreads, 0, st>>>(info_.data(), n + 1, flag_.data());
      FK_CUDA_CHECK_LAUNCH();
    }
    int failed = 0;
    flag_.download(&failed, 1);  // synchronous: one int per half-step
    if (failed != 0)
      throw Error(
          "some rows' normal equations are not positive definite: the factors overflowed "
          "(ratings far from unit scale? rescale them) or --lambda is too small");
  }

  std::pair<double, double> sq_abs_diff(const Context& ctx, const float* t, const float* s,
                                        const float* r, float lo, float hi, std::int64_t n) {
    const double2 sums = sum_(ctx, SqAbsDiff{t, s, r, lo, hi}, n);
    return {sums.x, sums.y};
  }
  double implicit_obs(const Context& ctx, const float* cm1, const float* s, std::int64_t n) {
    return sum_(ctx, ImplicitObs{cm1, s}, n).x;
  }
  double weighted_sq_norm(const Context& ctx, const float* x, const float* w, std::int64_t rows,
                          int k) {
    return sum_(ctx, WeightedSq{x, w, k}, rows * k).x;
  }

 private:
  DeviceSum<double2> sum_;
  DeviceBuffer<int> flag_;
  DeviceBuffer<float> a_chunk_;
  DeviceBuffer<float*> a_ptr_, b_ptr_;
  DeviceBuffer<int> info_;
};

}  // namespace

std::unique_ptr<AlsBackend> make_gpu_als_backend(Context ctx, const AlsHyper& hyper,
                                                 const HostCsr& train, const HostCsr& train_t,
                                                 const HostCsr& test) {
  FK_CHECK(ctx.is_gpu(), "the GPU ALS backend needs a GPU context");
  return std::make_unique<AlsEngine<GpuOps>>(std::move(ctx), hyper, train, train_t, test);
}

}  // namespace fk::als
