#pragma once
// What the GpuOps of fk-als, fk-sfa and fk-gap share, and fk-lda's launch shapes (nvcc only): memory as DeviceBuffer, CSR
// matrices as DeviceCsr, launch shapes for grid-stride and warp-per-row kernels, a fill kernel,
// and deterministic reductions (a fixed grid of kReduceBlocks per-block partial sums in double,
// then one block summing them in order: the result does not depend on scheduling). An app's
// GpuOps derives from DeviceOps and adds its own kernels. Every launch here is checked; every
// index that can pass 2^31 is 64-bit.
//
// The kernels are templates so that several apps' libraries can include this header and be linked
// into one binary (the tests) without duplicate symbols.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/context.hpp"
#include "core/csr.hpp"
#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/device_buffer.hpp"

namespace fk::app::device {

constexpr int kThreads = 256;  // threads per block of the grid-stride and warp-per-row kernels
constexpr int kWarpsPerBlock = kThreads / 32;
constexpr std::int64_t kMaxGrid = 1 << 20;  // grid-stride kernels: at most this many blocks
constexpr int kReduceBlocks = 512;          // partial sums per reduction (fixed: deterministic)

static_assert(kThreads % 32 == 0, "warp-per-row kernels need whole warps per block");
static_assert((kThreads & (kThreads - 1)) == 0, "tree reduction needs a power of two");
static_assert((kReduceBlocks & (kReduceBlocks - 1)) == 0, "tree reduction needs a power of two");

// Blocks of kThreads for a grid-stride loop over n elements (at least 1, at most kMaxGrid).
inline unsigned grid_for(std::int64_t n) {
  return static_cast<unsigned>(
      std::max<std::int64_t>(1, std::min<std::int64_t>((n + kThreads - 1) / kThreads, kMaxGrid)));
}
// Blocks of kThreads for one warp per row.
inline unsigned grid_for_rows(std::int64_t rows) {
  return static_cast<unsigned>(
      std::max<std::int64_t>(1, (rows + kWarpsPerBlock - 1) / kWarpsPerBlock));
}

// The sum of v (float or double) over the 32 lanes of a full warp, returned to every lane.
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return __shfl_sync(0xffffffffu, v, 0);
}

// p[0, n) = v (device).
template <class T>
__global__ void fill_kernel(T* __restrict__ p, std::int64_t n, T v) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    p[i] = v;
}

// Sums of the reductions: double (one sum) or double2 (two sums at once, added componentwise).
__device__ __forceinline__ void add_to(double& a, double b) { a += b; }
__device__ __forceinline__ void add_to(double2& a, double2 b) {
  a.x += b.x;
  a.y += b.y;
}
template <class V>
__device__ __forceinline__ V zero_sum();
template <>
__device__ __forceinline__ double zero_sum<double>() {
  return 0.0;
}
template <>
__device__ __forceinline__ double2 zero_sum<double2>() {
  return make_double2(0.0, 0.0);
}

// Tree sum over the block (blockDim.x a power of two, `shared` blockDim.x elements); every
// thread gets the total.
template <class V>
__device__ V block_sum(V v, V* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) add_to(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  return shared[0];
}

// partial[block] = Σ f(j) over the block's grid-stride share of [0, n). Launched with kThreads.
template <class V, class F>
__global__ void partial_sums_kernel(F f, std::int64_t n, V* __restrict__ partial) {
  __shared__ V shared[kThreads];
  V acc = zero_sum<V>();
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    add_to(acc, f(j));
  const V total = block_sum(acc, shared);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

// *out = Σ partial[0, kReduceBlocks) in a fixed order. Launched as one block of kReduceBlocks.
template <class V>
__global__ void final_sum_kernel(const V* __restrict__ partial, V* __restrict__ out) {
  __shared__ V shared[kReduceBlocks];
  const V total = block_sum(partial[threadIdx.x], shared);
  if (threadIdx.x == 0) *out = total;
}

// Deterministic Σ_j f(j) over [0, n) on ctx's stream; V is double or double2, f a device functor
// (j → V). Owns its partial-sum workspace; the result comes back to the host synchronously.
template <class V>
class DeviceSum {
 public:
  DeviceSum() : partial_(kReduceBlocks), result_(1) {}

  template <class F>
  V operator()(const Context& ctx, F f, std::int64_t n) {
    cudaStream_t st = stream_of(ctx);
    partial_sums_kernel<V><<<kReduceBlocks, kThreads, 0, st>>>(f, n, partial_.data());
    FK_CUDA_CHECK_LAUNCH();
    final_sum_kernel<V><<<1, kReduceBlocks, 0, st>>>(partial_.data(), result_.data());
    FK_CUDA_CHECK_LAUNCH();
    V out;
    result_.download(&out, 1);  // synchronous copy (the stream is blocking)
    return out;
  }

 private:
  DeviceBuffer<V> partial_, result_;
};

// Memory, CSR and fill on the device; the base of the apps' GpuOps.
class DeviceOps {
 public:
  template <class T>
  using Buffer = DeviceBuffer<T>;
  using Csr = DeviceCsr;

  // A device buffer of n elements.
  template <class T>
  Buffer<T> alloc(std::int64_t n) const {
    return Buffer<T>(n);
  }
  // Copies n elements from host `src` into the first n of device `dst`.
  template <class T>
  void upload(Buffer<T>& dst, const T* src, std::int64_t n) const {
    dst.upload(src, n);
  }
  // Copies the first n elements of device `src` to host `dst`.
  template <class T>
  void download(const Buffer<T>& src, T* dst, std::int64_t n) const {
    src.download(dst, n);
  }
  Csr make_csr(const HostCsr& h) const { return DeviceCsr(h); }
  // `pattern`'s rows and columns with `vals` (values an engine computed), copied to the device.
  Csr make_csr(const HostCsr& pattern, std::vector<float>&& vals) const {
    HostCsr h = pattern;
    h.vals = std::move(vals);
    return DeviceCsr(h);
  }
  static CsrView view(const Csr& c) { return c.view(); }

  // p[0, n) = v; p is device memory.
  void fill(const Context& ctx, float* p, std::int64_t n, float v) const {
    if (n == 0) return;
    fill_kernel<float><<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(p, n, v);
    FK_CUDA_CHECK_LAUNCH();
  }

  // Whether the items' products of a ratings model (users x items R) run on R, as Rᵀ·B through a
  // transposed plan, rather than on Rᵀ, given the bytes of the users' rows they multiply with:
  // once those outgrow L2. There R's transpose, whose few long rows gather users' rows from DRAM,
  // ran the SDDMM 2.7x and the S·B 1.5x slower than R did its SDDMM and the transposed plan its
  // sliced Rᵀ·B (fk-als on netflix at K = 104: 0.165 -> 0.108 s an iteration on an H100); where
  // they fit, the transposed plan's value gather made R slower (fk-als 1.04-1.09x).
  // docs/benchmarks/checks/als-items-on-r.
  bool items_on_r(const Context& ctx, std::int64_t user_bytes) const {
    return user_bytes > std::int64_t(ctx.gpu().props.l2CacheSize);
  }
};

}  // namespace fk::app::device
