// The GPU implementation of the LDA minibatch math: device memory, one CUDA kernel per
// elementwise step, deterministic reductions (per-block partial sums, then one block summing them
// in order), and the SDDMM/SpMM plans of the GPU context. Inside an E-step iteration the host only
// reads back one double (the γ change for the stopping test). Every launch is checked; every
// index that can pass 2^31 (nonzeros, rows·K, W·K) is 64-bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include "apps/common/device_ops.cuh"
#include "apps/lda/lda_engine.hpp"
#include "apps/lda/lda_math.hpp"
#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/device_buffer.hpp"

namespace fk::lda {
namespace {

// Launch shapes (kThreads, kWarpsPerBlock, grid_for, grid_for_rows), warp_sum and fill_kernel:
// apps/common. The reductions below keep their own fixed shapes (kReduceBlocks here is not the
// other apps'), so the model's sums add in the order they always did.
using app::device::fill_kernel;
using app::device::grid_for;
using app::device::grid_for_rows;
using app::device::kThreads;
using app::device::kWarpsPerBlock;
using app::device::warp_sum;

constexpr std::int64_t kLambdaRows = 64;  // λ rows per block in the column-sum kernels
constexpr int kReduceBlocks = 1024;       // partial sums per reduction (fixed: deterministic)
constexpr int kReduceThreads = 1024;      // the single block that sums partials

static_assert((kReduceThreads & (kReduceThreads - 1)) == 0, "tree reduction needs a power of two");

// Sums v over the block (blockDim.x == N, a power of two) into lane 0's return value.
template <int N>
__device__ double block_sum(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = N / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
    __syncthreads();
  }
  return shared[0];
}

__global__ void init_gamma_kernel(float* __restrict__ gamma, std::int64_t rows, int k,
                                  std::uint64_t key, std::uint64_t stream, std::int64_t first_doc) {
  const std::int64_t n = rows * k;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    gamma[i] = gamma100_draw(key, stream, first_doc + i / k, i % k);
}

// The warp-per-row kernels below walk a row of k floats in steps of kRowStep: in each step lane l
// takes elements base + l + 32i (i < kPerLane) and issues all its loads before using any, so a
// warp waits for one memory round trip per step instead of one per element. The γ update, written
// one element per loop turn, spent three quarters of its cycles waiting on loads (ncu, H100,
// 4096 x 256 minibatch: 36 µs; docs/benchmarks/checks/lda-minibatch). Each lane still adds its
// elements in increasing c, so the sums are the same numbers as an element-at-a-time loop's.
constexpr int kPerLane = 8;
constexpr int kRowStep = 32 * kPerLane;

// v[i] = row[base + lane + 32i] where that is < k (other entries untouched).
__device__ __forceinline__ void load_step(const float* __restrict__ row, int base, int k, int lane,
                                          float (&v)[kPerLane]) {
#pragma unroll
  for (int i = 0; i < kPerLane; ++i)
    if (base + lane + 32 * i < k) v[i] = row[base + lane + 32 * i];
}

// out[c] = exp(ψ(in[c]) − psi_of_sum(c)) for a row, `in` read step by step (psi_of_sum: ψ of
// the row's sum, or of column c's).
template <class PsiOfSum>
__device__ __forceinline__ void write_expectations(const float* __restrict__ in, int k, int lane,
                                                   PsiOfSum psi_of_sum, float* __restrict__ out) {
  for (int base = 0; base < k; base += kRowStep) {
    float v[kPerLane];
    load_step(in, base, k, lane, v);
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int c = base + lane + 32 * i;
      if (c < k) out[c] = exp_dirichlet_expectation(v[i], psi_of_sum(c));
    }
  }
}

// Σ_c row[c] over a warp (each lane's share in increasing c), in double, on every lane.
__device__ __forceinline__ double row_sum(const float* __restrict__ row, int k, int lane) {
  double sum = 0;
  for (int base = 0; base < k; base += kRowStep) {
    float v[kPerLane];
    load_step(row, base, k, lane, v);
#pragma unroll
    for (int i = 0; i < kPerLane; ++i)
      if (base + lane + 32 * i < k) sum += v[i];
  }
  return warp_sum(sum);
}

// One warp per row: Eθ = exp(ψ(γ) − ψ(Σγ)).
__global__ void expect_theta_kernel(const float* __restrict__ gamma, float* __restrict__ etheta,
                                    std::int64_t rows, int k) {
  const std::int64_t r = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (r >= rows) return;  // whole warps leave together: r is uniform within a warp
  const float* g = gamma + r * k;
  const double psi_sum = digamma(row_sum(g, k, lane));
  write_expectations(g, k, lane, [psi_sum](int) { return psi_sum; }, etheta + r * k);
}

// One warp per row: γ ← α + Eθ ∘ T, Eθ ← exp(ψ(γ) − ψ(Σγ)); row_change[r] = Σ_k |Δγ|.
__global__ void update_gamma_kernel(float alpha, const float* __restrict__ t,
                                    float* __restrict__ gamma, float* __restrict__ etheta,
                                    std::int64_t rows, int k, double* __restrict__ row_change) {
  const std::int64_t r = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (r >= rows) return;
  float* g = gamma + r * k;
  float* et = etheta + r * k;
  const float* tr = t + r * k;
  double sum = 0, change = 0;
  for (int base = 0; base < k; base += kRowStep) {
    float ev[kPerLane], tv[kPerLane], gv[kPerLane];
    load_step(et, base, k, lane, ev);
    load_step(tr, base, k, lane, tv);
    load_step(g, base, k, lane, gv);
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int c = base + lane + 32 * i;
      if (c < k) {
        const float updated = alpha + ev[i] * tv[i];
        change += fabs(static_cast<double>(updated) - static_cast<double>(gv[i]));
        g[c] = updated;
        sum += updated;
      }
    }
  }
  sum = warp_sum(sum);
  change = warp_sum(change);
  const double psi_sum = digamma(sum);
  write_expectations(g, k, lane, [psi_sum](int) { return psi_sum; }, et);
  if (lane == 0) row_change[r] = change;
}

// One warp per row: θ = γ / Σγ.
__global__ void normalize_rows_kernel(const float* __restrict__ gamma, float* __restrict__ theta,
                                      std::int64_t rows, int k) {
  const std::int64_t r = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (r >= rows) return;
  const float* g = gamma + r * k;
  const double sum = row_sum(g, k, lane);
  for (int c = lane; c < k; c += 32) theta[r * k + c] = static_cast<float>(g[c] / sum);
}

__global__ void divide_kernel(const float* __restrict__ n, float* __restrict__ p, std::int64_t nnz,
                              float eps) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < nnz;
       j += std::int64_t(gridDim.x) * blockDim.x)
    p[j] = n[j] / (p[j] + eps);
}

// The per-word kernels below give a warp to each local word w, lanes along the topics (in steps,
// as above): the word's λ row is read in order and no element pays for dividing its 64-bit index
// by K. Against a grid of one thread per element (H100, nytimes minibatches at K = 256;
// docs/benchmarks/checks/lda-minibatch): the statistics' scatter 95 against 125 µs; the E[β]
// gather 193 against 209 µs, most of which was then the double-precision digamma of every element.
__global__ void gather_expect_beta_kernel(const float* __restrict__ lambda,
                                          const std::int32_t* __restrict__ words, std::int64_t nloc,
                                          int k, const double* __restrict__ psi_colsum,
                                          float* __restrict__ out) {
  const std::int64_t w = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  if (w >= nloc) return;
  write_expectations(lambda + static_cast<std::int64_t>(words[w]) * k, k, threadIdx.x % 32,
                     [psi_colsum](int c) { return psi_colsum[c]; }, out + w * k);
}

__global__ void gather_beta_kernel(const float* __restrict__ lambda,
                                   const std::int32_t* __restrict__ words, std::int64_t nloc, int k,
                                   const double* __restrict__ colsum, float* __restrict__ out) {
  const std::int64_t w = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  if (w >= nloc) return;
  const float* row = lambda + static_cast<std::int64_t>(words[w]) * k;
  for (int c = threadIdx.x % 32; c < k; c += 32)
    out[w * k + c] = static_cast<float>(row[c] / colsum[c]);
}

// stats[words[w], c] += ebeta[w, c] * x[w, c]; a minibatch's words are distinct, so no two
// warps write the same row.
__global__ void scatter_stats_kernel(const float* __restrict__ ebeta, const float* __restrict__ x,
                                     const std::int32_t* __restrict__ words, std::int64_t nloc,
                                     int k, float* __restrict__ stats) {
  const std::int64_t w = blockIdx.x * std::int64_t(kWarpsPerBlock) + threadIdx.x / 32;
  if (w >= nloc) return;
  float* row = stats + static_cast<std::int64_t>(words[w]) * k;
  const int lane = threadIdx.x % 32;
  for (int base = 0; base < k; base += kRowStep) {
    float b[kPerLane], xv[kPerLane], sv[kPerLane];
    load_step(ebeta + w * k, base, k, lane, b);
    load_step(x + w * k, base, k, lane, xv);
    load_step(row, base, k, lane, sv);
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int c = base + lane + 32 * i;
      if (c < k) row[c] = sv[i] + b[i] * xv[i];
    }
  }
}

// Block b covers λ rows [b·kLambdaRows, …); thread c walks columns c, c + blockDim, …. With
// `update`, λ ← keep·λ + (add + mult·s), where s is stats (zeroed on the way) or, with `words`,
// one minibatch's ebeta ∘ x at its rows words[j] (ascending; 0 elsewhere), so that its statistics
// never go through the W x K buffer. partial[b·k + c] = the block's column sum (in double).
__global__ void lambda_rows_kernel(float* __restrict__ lambda, float* __restrict__ stats,
                                   std::int64_t w, int k, bool update, float keep, float add,
                                   float mult, const std::int32_t* __restrict__ words,
                                   std::int64_t nloc, const float* __restrict__ ebeta,
                                   const float* __restrict__ x, double* __restrict__ partial) {
  const std::int64_t r0 = blockIdx.x * kLambdaRows;
  const std::int64_t r1 = r0 + kLambdaRows < w ? r0 + kLambdaRows : w;
  std::int64_t first = 0;  // the first local word at or after row r0 (the same for every thread)
  if (words) {
    std::int64_t hi = nloc;
    while (first < hi) {
      const std::int64_t mid = (first + hi) / 2;
      if (words[mid] < r0) first = mid + 1;
      else hi = mid;
    }
  }
  for (int c = threadIdx.x; c < k; c += blockDim.x) {
    double acc = 0;
    std::int64_t j = first;
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t i = r * k + c;
      float v = lambda[i];
      if (update) {
        float s = 0.0f;
        if (words) {
          if (j < nloc && words[j] == r) {
            s = ebeta[j * k + c] * x[j * k + c];
            ++j;
          }
        } else {
          s = stats[i];
          stats[i] = 0.0f;
        }
        v = keep * v + (add + mult * s);
        lambda[i] = v;
      }
      acc += v;
    }
    partial[blockIdx.x * static_cast<std::int64_t>(k) + c] = acc;
  }
}

// colsum[c] = Σ_b partial[b·k + c], psi_colsum[c] = ψ(colsum[c]): one block per column, thread t
// summing partials t, t + blockDim, … and the block adding the threads' sums in a fixed tree, so
// the order is fixed. One thread per column walking all W / 64 partials took 188 µs a minibatch at
// nytimes size on an H100, about a tenth of the E-step; this takes 7 µs
// (docs/benchmarks/checks/lda-minibatch).
__global__ void finish_colsum_kernel(const double* __restrict__ partial, std::int64_t blocks, int k,
                                     double* __restrict__ colsum, double* __restrict__ psi_colsum) {
  __shared__ double shared[kThreads];
  const int c = blockIdx.x;
  double s = 0;
  for (std::int64_t b = threadIdx.x; b < blocks; b += kThreads) s += partial[b * k + c];
  const double total = block_sum<kThreads>(s, shared);
  if (threadIdx.x == 0) {
    colsum[c] = total;
    psi_colsum[c] = digamma(total);
  }
}

// partial[block] = Σ n_j log p_j over a grid-stride share of the nonzeros (p clamped above 0).
__global__ void n_log_kernel(const float* __restrict__ n, const float* __restrict__ p,
                             std::int64_t nnz, double* __restrict__ partial) {
  __shared__ double shared[kThreads];
  double acc = 0;
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < nnz;
       j += std::int64_t(gridDim.x) * blockDim.x)
    acc += static_cast<double>(n[j]) * log(fmax(static_cast<double>(p[j]), 1e-300));
  const double total = block_sum<kThreads>(acc, shared);
  if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

// out[0] = Σ in[0..n) with one block, in a fixed order.
__global__ void reduce_sum_kernel(const double* __restrict__ in, std::int64_t n,
                                  double* __restrict__ out) {
  __shared__ double shared[kReduceThreads];
  double acc = 0;
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) acc += in[i];
  const double total = block_sum<kReduceThreads>(acc, shared);
  if (threadIdx.x == 0) out[0] = total;
}

// Page-locked host memory: copies from it run asynchronously on a stream (from pageable memory
// the driver stages them through a buffer of its own and the host waits).
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::int64_t n) : size_(n) {
    if (n > 0) FK_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data_), bytes(), 0));
  }
  PinnedBuffer(const T* src, std::int64_t n) : PinnedBuffer(n) {
    if (n > 0) std::copy(src, src + n, data_);
  }
  ~PinnedBuffer() {
    if (data_)
      cudaFreeHost(data_);  // no throw from a destructor; a failure here cannot be acted on
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  const T* data() const { return data_; }
  std::int64_t size() const { return size_; }
  std::size_t bytes() const { return static_cast<std::size_t>(size_) * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::int64_t size_ = 0;
};

// A minibatch staged in pinned host memory.
struct PinnedBatch {
  std::int64_t rows = 0, cols = 0;
  PinnedBuffer<std::int64_t> row_ptr;
  PinnedBuffer<std::int32_t> col_idx, words;
  PinnedBuffer<float> vals;
};

class Event {
 public:
  Event() { FK_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Device room for one streamed minibatch. `copied` fires when its copy has landed; `released`
// when the compute work that last read it is done (a new copy waits for that).
struct DeviceSlot {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  DeviceBuffer<std::int64_t> row_ptr;
  DeviceBuffer<std::int32_t> col_idx, words;
  DeviceBuffer<float> vals;
  std::unique_ptr<Event> copied, released;
  bool in_use_before = false;  // `released` has been recorded at least once
};

// The stream that copies the next streamed minibatch while the compute stream works; it does not
// synchronize with the legacy default stream, so synchronous calls elsewhere do not stall it.
class CopyStream {
 public:
  CopyStream() { FK_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~CopyStream() { cudaStreamDestroy(s_); }
  CopyStream(const CopyStream&) = delete;
  CopyStream& operator=(const CopyStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

template <typename T>
void grow_to(DeviceBuffer<T>& buf, std::int64_t n) {
  if (buf.size() < n) buf = DeviceBuffer<T>(n);
}

template <typename T>
void copy_async(T* dst, const PinnedBuffer<T>& src, cudaStream_t s) {
  if (src.size() > 0)
    FK_CUDA_CHECK(cudaMemcpyAsync(dst, src.data(), src.bytes(), cudaMemcpyHostToDevice, s));
}

// One minibatch's statistics for the λ pass: ebeta ∘ x at rows words (lambda_rows_kernel).
struct LocalStats {
  const std::int32_t* words = nullptr;
  std::int64_t nloc = 0;
  const float *ebeta = nullptr, *x = nullptr;
};

class GpuOps {
 public:
  template <class T>
  using Buffer = DeviceBuffer<T>;
  using Csr = DeviceCsr;

  explicit GpuOps(const Context& ctx) : stream_(stream_of(ctx)) {
    FK_CUDA_CHECK(cudaSetDevice(ctx.gpu_id()));
    result_ = DeviceBuffer<double>(1);
    partial_ = DeviceBuffer<double>(kReduceBlocks);
  }

  template <class T>
  Buffer<T> alloc(std::int64_t n) const {
    return Buffer<T>(n);
  }
  template <class T>
  void upload(Buffer<T>& dst, const T* src, std::int64_t n) const {
    FK_CHECK(dst.size() >= n, "device upload out of range");
    if (n > 0)
      FK_CUDA_CHECK(
          cudaMemcpyAsync(dst.data(), src, n * sizeof(T), cudaMemcpyHostToDevice, stream_));
    FK_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `src` may be freed as soon as we return
  }
  template <class T>
  void download(const Buffer<T>& src, T* dst, std::int64_t n) const {
    FK_CHECK(src.size() >= n, "device download out of range");
    if (n > 0)
      FK_CUDA_CHECK(
          cudaMemcpyAsync(dst, src.data(), n * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    FK_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  Csr make_csr(const HostCsr& h) const { return DeviceCsr(h); }
  static CsrView view(const Csr& c) { return c.view(); }
  std::int64_t free_bytes() const {
    std::size_t free = 0, total = 0;
    FK_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return static_cast<std::int64_t>(free);
  }

  using Staged = PinnedBatch;
  using Slot = DeviceSlot;
  Staged stage(const LocalBatch& lb) const {
    PinnedBatch p;
    p.rows = lb.counts.rows;
    p.cols = lb.counts.cols;
    p.row_ptr = PinnedBuffer<std::int64_t>(lb.counts.row_ptr.data(), lb.counts.rows + 1);
    p.col_idx = PinnedBuffer<std::int32_t>(lb.counts.col_idx.data(), lb.counts.nnz());
    p.vals = PinnedBuffer<float>(lb.counts.vals.data(), lb.counts.nnz());
    p.words =
        PinnedBuffer<std::int32_t>(lb.words.data(), static_cast<std::int64_t>(lb.words.size()));
    return p;
  }
  void fetch(const Staged& b, Slot& slot) {
    if (!slot.copied) {
      slot.copied = std::make_unique<Event>();
      slot.released = std::make_unique<Event>();
    }
    const cudaStream_t cs = copy_stream_.get();
    if (slot.row_ptr.size() < b.row_ptr.size() || slot.col_idx.size() < b.col_idx.size() ||
        slot.words.size() < b.words.size()) {
      // Growing frees the old buffers: nothing may still read or write them.
      FK_CUDA_CHECK(cudaStreamSynchronize(cs));
      if (slot.in_use_before) FK_CUDA_CHECK(cudaEventSynchronize(slot.released->get()));
      grow_to(slot.row_ptr, b.row_ptr.size());
      grow_to(slot.col_idx, b.col_idx.size());
      grow_to(slot.vals, b.vals.size());
      grow_to(slot.words, b.words.size());
    }
    if (slot.in_use_before) FK_CUDA_CHECK(cudaStreamWaitEvent(cs, slot.released->get(), 0));
    copy_async(slot.row_ptr.data(), b.row_ptr, cs);
    copy_async(slot.col_idx.data(), b.col_idx, cs);
    copy_async(slot.vals.data(), b.vals, cs);
    copy_async(slot.words.data(), b.words, cs);
    FK_CUDA_CHECK(cudaEventRecord(slot.copied->get(), cs));
    slot.rows = b.rows;
    slot.cols = b.cols;
    slot.nnz = b.col_idx.size();
  }
  void await(Slot& slot) const {
    FK_CUDA_CHECK(cudaStreamWaitEvent(stream_, slot.copied->get(), 0));
  }
  void retire(Slot& slot) const {
    FK_CUDA_CHECK(cudaEventRecord(slot.released->get(), stream_));
    slot.in_use_before = true;
  }
  static CsrView slot_view(const Slot& s) {
    return {s.rows,           s.cols,           s.nnz,
            s.row_ptr.data(), s.col_idx.data(), s.nnz > 0 ? s.vals.data() : nullptr};
  }
  static const std::int32_t* slot_words(const Slot& s) { return s.words.data(); }

  void fill(const Context&, float* p, std::int64_t n, float v) const {
    if (n <= 0) return;
    fill_kernel<float><<<grid_for(n), kThreads, 0, stream_>>>(p, n, v);
    FK_CUDA_CHECK_LAUNCH();
  }

  void init_gamma(const Context&, float* gamma, std::int64_t rows, int k, std::uint64_t key,
                  std::uint64_t stream, std::int64_t first_doc) const {
    if (rows <= 0) return;
    init_gamma_kernel<<<grid_for(rows * k), kThreads, 0, stream_>>>(gamma, rows, k, key, stream,
                                                                    first_doc);
    FK_CUDA_CHECK_LAUNCH();
  }

  void expect_theta(const Context&, const float* gamma, float* etheta, std::int64_t rows,
                    int k) const {
    if (rows <= 0) return;
    expect_theta_kernel<<<grid_for_rows(rows), kThreads, 0, stream_>>>(gamma, etheta, rows, k);
    FK_CUDA_CHECK_LAUNCH();
  }

  double update_gamma(const Context&, float alpha, const float* t, float* gamma, float* etheta,
                      std::int64_t rows, int k) {
    if (rows <= 0) return 0.0;
    if (row_change_.size() < rows) row_change_ = DeviceBuffer<double>(rows);
    update_gamma_kernel<<<grid_for_rows(rows), kThreads, 0, stream_>>>(alpha, t, gamma, etheta,
                                                                       rows, k, row_change_.data());
    FK_CUDA_CHECK_LAUNCH();
    return reduce_to_host(row_change_.data(), rows);
  }

  void divide(const Context&, const float* n, float* p, std::int64_t nnz, float eps) const {
    if (nnz <= 0) return;
    divide_kernel<<<grid_for(nnz), kThreads, 0, stream_>>>(n, p, nnz, eps);
    FK_CUDA_CHECK_LAUNCH();
  }

  void gather_expect_beta(const Context&, const float* lambda, const std::int32_t* words,
                          std::int64_t nloc, int k, const double* psi_colsum, float* out) const {
    if (nloc <= 0) return;
    gather_expect_beta_kernel<<<grid_for_rows(nloc), kThreads, 0, stream_>>>(lambda, words, nloc, k,
                                                                             psi_colsum, out);
    FK_CUDA_CHECK_LAUNCH();
  }

  void gather_beta(const Context&, const float* lambda, const std::int32_t* words,
                   std::int64_t nloc, int k, const double* colsum, float* out) const {
    if (nloc <= 0) return;
    gather_beta_kernel<<<grid_for_rows(nloc), kThreads, 0, stream_>>>(lambda, words, nloc, k, colsum,
                                                                      out);
    FK_CUDA_CHECK_LAUNCH();
  }

  void scatter_stats(const Context&, const float* ebeta, const float* x, const std::int32_t* words,
                     std::int64_t nloc, int k, float* stats) const {
    if (nloc <= 0) return;
    scatter_stats_kernel<<<grid_for_rows(nloc), kThreads, 0, stream_>>>(ebeta, x, words, nloc, k,
                                                                        stats);
    FK_CUDA_CHECK_LAUNCH();
  }

  void update_lambda(const Context&, float* lambda, float* stats, std::int64_t w, int k, double rho,
                     double eta, double scale, double* colsum, double* psi_colsum) {
    lambda_pass(lambda, stats, w, k, true, static_cast<float>(1.0 - rho),
                static_cast<float>(rho * eta), static_cast<float>(rho * scale), colsum, psi_colsum);
  }

  void update_lambda_from_batch(const Context&, float* lambda, float* stats,
                                const std::int32_t* words, std::int64_t nloc, const float* ebeta,
                                const float* x, std::int64_t w, int k, double rho, double eta,
                                double scale, double* colsum, double* psi_colsum) {
    // stats (all zero) is read instead where a minibatch without words has no words array.
    lambda_pass(lambda, stats, w, k, true, static_cast<float>(1.0 - rho),
                static_cast<float>(rho * eta), static_cast<float>(rho * scale), colsum, psi_colsum,
                LocalStats{words, nloc, ebeta, x});
  }

  void column_sums(const Context&, const float* lambda, std::int64_t w, int k, double* colsum,
                   double* psi_colsum) {
    // With update == false the kernel only reads λ and never touches stats.
    lambda_pass(const_cast<float*>(lambda), nullptr, w, k, false, 1.0f, 0.0f, 0.0f, colsum,
                psi_colsum);
  }

  void normalize_rows(const Context&, const float* gamma, float* theta, std::int64_t rows,
                      int k) const {
    if (rows <= 0) return;
    normalize_rows_kernel<<<grid_for_rows(rows), kThreads, 0, stream_>>>(gamma, theta, rows, k);
    FK_CUDA_CHECK_LAUNCH();
  }

  double sum_n_log(const Context&, const float* n, const float* p, std::int64_t nnz) {
    if (nnz <= 0) return 0.0;
    const auto blocks = static_cast<unsigned>(
        std::min<std::int64_t>((nnz + kThreads - 1) / kThreads, kReduceBlocks));
    n_log_kernel<<<blocks, kThreads, 0, stream_>>>(n, p, nnz, partial_.data());
    FK_CUDA_CHECK_LAUNCH();
    return reduce_to_host(partial_.data(), blocks);
  }

 private:
  double reduce_to_host(const double* in, std::int64_t n) {
    reduce_sum_kernel<<<1, kReduceThreads, 0, stream_>>>(in, n, result_.data());
    FK_CUDA_CHECK_LAUNCH();
    double out = 0;
    FK_CUDA_CHECK(
        cudaMemcpyAsync(&out, result_.data(), sizeof(double), cudaMemcpyDeviceToHost, stream_));
    FK_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return out;
  }

  void lambda_pass(float* lambda, float* stats, std::int64_t w, int k, bool update, float keep,
                   float add, float mult, double* colsum, double* psi_colsum,
                   LocalStats local = {}) {
    const std::int64_t blocks = (w + kLambdaRows - 1) / kLambdaRows;
    if (colsum_partial_.size() < blocks * k) colsum_partial_ = DeviceBuffer<double>(blocks * k);
    if (blocks > 0) {
      lambda_rows_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream_>>>(
          lambda, stats, w, k, update, keep, add, mult, local.words, local.nloc, local.ebeta,
          local.x, colsum_partial_.data());
      FK_CUDA_CHECK_LAUNCH();
    }
    finish_colsum_kernel<<<static_cast<unsigned>(k), kThreads, 0, stream_>>>(
        colsum_partial_.data(), blocks, k, colsum, psi_colsum);
    FK_CUDA_CHECK_LAUNCH();
  }

  cudaStream_t stream_;
  CopyStream copy_stream_;
  DeviceBuffer<double> result_, partial_, row_change_, colsum_partial_;
};

}  // namespace

std::unique_ptr<LdaBackend> make_gpu_lda_backend(Context ctx, const LdaHyper& hyper) {
  FK_CHECK(ctx.is_gpu(), "the GPU LDA backend needs a GPU context");
  return std::make_unique<LdaEngine<GpuOps>>(std::move(ctx), hyper);
}

}  // namespace fk::lda
