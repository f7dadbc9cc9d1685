// Shared host and device helpers of the CUDA SpMM variants (see spmm_common.cuh).
#include <algorithm>
#include <cstdint>

#include "core/io/parse.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk::cuda_spmm {

bool vec4_ok(int k, const void* b, const void* c) {
  return k % 4 == 0 && reinterpret_cast<std::uintptr_t>(b) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(c) % 16 == 0;
}

std::vector<std::int64_t> download_row_ptr(const CsrView& s) {
  std::vector<std::int64_t> h(static_cast<std::size_t>(s.rows) + 1);
  FK_CUDA_CHECK(
      cudaMemcpy(h.data(), s.row_ptr, h.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  return h;
}

std::vector<std::int32_t> download_col_idx(const CsrView& s) {
  std::vector<std::int32_t> h(static_cast<std::size_t>(s.nnz));
  if (s.nnz > 0)
    FK_CUDA_CHECK(
        cudaMemcpy(h.data(), s.col_idx, h.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  return h;
}

namespace {

constexpr unsigned kUnsortedRow = 1, kRepeatedNeighbours = 2;

// flags |= kUnsortedRow if some row's columns decrease, kRepeatedNeighbours if two neighbours of a
// row are equal. One warp per row.
__global__ void row_order_kernel(std::int64_t rows, const std::int64_t* __restrict__ row_ptr,
                                 const std::int32_t* __restrict__ col_idx, unsigned* flags) {
  const int lane = threadIdx.x & (kWarpSize - 1);
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x / kWarpSize);
  unsigned seen = 0;
  for (std::int64_t r = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize; r < rows;
       r += warps) {
    for (std::int64_t j = row_ptr[r] + lane; j + 1 < row_ptr[r + 1]; j += kWarpSize) {
      const std::int32_t a = col_idx[j], b = col_idx[j + 1];
      seen |= a > b ? kUnsortedRow : a == b ? kRepeatedNeighbours : 0u;
    }
  }
  seen = __reduce_or_sync(kFullMask, seen);
  if (lane == 0 && seen) atomicOr(flags, seen);
}

// The flags of row_order_kernel over all of S. Synchronizes `stream`.
unsigned row_order(const CsrView& s, cudaStream_t stream) {
  if (s.nnz < 2) return 0;
  DeviceBuffer<unsigned> flags(1);
  flags.fill_bytes(0);
  constexpr int threads = 256;
  row_order_kernel<<<grid_for(s.rows, threads / kWarpSize), threads, 0, stream>>>(
      s.rows, s.row_ptr, s.col_idx, flags.data());
  FK_CUDA_CHECK_LAUNCH();
  FK_CUDA_CHECK(cudaStreamSynchronize(stream));
  return flags.to_host()[0];
}

}  // namespace

bool rows_sorted(const CsrView& s, cudaStream_t stream) {
  return !(row_order(s, stream) & kUnsortedRow);
}

bool has_repeated_entries(const CsrView& s, cudaStream_t stream) {
  if (s.nnz < 2) return false;
  const unsigned seen = row_order(s, stream);
  if (seen & kRepeatedNeighbours) return true;
  if (!(seen & kUnsortedRow)) return false;
  HostCsr pattern;
  pattern.rows = s.rows;
  pattern.cols = s.cols;
  pattern.row_ptr = download_row_ptr(s);
  pattern.col_idx = download_col_idx(s);
  std::int64_t row = 0;
  std::int32_t col = 0;
  return io::detail::find_duplicate(pattern, row, col);
}

namespace {

constexpr int kLongThreads = 256;

// A warp per listed row, lanes along K.
__global__ void zero_rows_kernel(const std::int64_t* __restrict__ rows, std::int64_t n, int k,
                                 float* __restrict__ c) {
  const int lane = threadIdx.x & (kWarpSize - 1);
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x / kWarpSize);
  for (std::int64_t r = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / kWarpSize; r < n;
       r += warps) {
    float* crow = c + rows[r] * k;
    for (int t = lane; t < k; t += kWarpSize) crow[t] = 0.f;
  }
}

// One block per segment of a long row. The block's threads form kLongThreads / g nonzero groups of
// g lanes; lanes own V-float vectors along K (tile g * V columns), nonzero groups take every
// (kLongThreads / g)-th nonzero of the segment. Partial tiles are tree-reduced in shared memory and
// the segment's partial row is stored in partial (segments x k); sum_segments_kernel adds them.
template <int V, typename Vals>
__global__ void __launch_bounds__(kLongThreads)
    long_rows_kernel(std::int64_t num_segments, const std::int64_t* __restrict__ seg_row,
                     const std::int64_t* __restrict__ seg_begin, std::int64_t segment,
                     const std::int64_t* __restrict__ row_ptr,
                     const std::int32_t* __restrict__ col_idx, Vals vals,
                     const float* __restrict__ b, float* __restrict__ partial, int k, int g) {
  __shared__ float red[kLongThreads * V];
  const int tid = threadIdx.x;
  const int gl = tid & (g - 1);  // lane along K
  const int ng = tid / g;        // nonzero group
  const int groups = kLongThreads / g;
  for (std::int64_t sidx = blockIdx.x; sidx < num_segments; sidx += gridDim.x) {
    const std::int64_t jb = seg_begin[sidx];
    const std::int64_t row = seg_row[sidx];
    const std::int64_t je = std::min(jb + segment, row_ptr[row + 1]);
    for (int k0 = 0; k0 < k; k0 += g * V) {
      const int kk = k0 + gl * V;
      const bool active = kk < k;
      float acc[V];
#pragma unroll
      for (int v = 0; v < V; ++v) acc[v] = 0.f;
      if (active) {
        for (std::int64_t j = jb + ng; j < je; j += groups) {
          const float a = vals(j);
          float x[V];
          ldg_vec<V>(b + std::int64_t(ld_sparse(col_idx + j)) * k + kk, x);
#pragma unroll
          for (int v = 0; v < V; ++v) acc[v] = fmaf(a, x[v], acc[v]);
        }
      }
#pragma unroll
      for (int v = 0; v < V; ++v) red[tid * V + v] = acc[v];
      __syncthreads();
      for (int half = groups / 2; half > 0; half /= 2) {
        if (ng < half) {
#pragma unroll
          for (int v = 0; v < V; ++v) red[tid * V + v] += red[(tid + half * g) * V + v];
        }
        __syncthreads();
      }
      if (ng == 0 && active) {
#pragma unroll
        for (int v = 0; v < V; ++v) partial[sidx * k + kk + v] = red[tid * V + v];
      }
      __syncthreads();  // red is reused by the next tile
    }
  }
}

// C's long rows: element (i, t) of the n x k grid is the sum of column t of long row i's segments'
// partial rows (row_segs[i] .. row_segs[i + 1] - 1), in segment order, so a run gives the same bits
// every time (atomics would add them in the order the blocks finish).
__global__ void sum_segments_kernel(std::int64_t n, const std::int64_t* __restrict__ rows,
                                    const std::int64_t* __restrict__ row_segs,
                                    const float* __restrict__ partial, float* __restrict__ c,
                                    int k) {
  const std::int64_t total = n * k;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = e / k;
    const int t = static_cast<int>(e - i * k);
    float sum = 0.f;
    for (std::int64_t sg = row_segs[i]; sg < row_segs[i + 1]; ++sg) sum += partial[sg * k + t];
    c[rows[i] * k + t] = sum;
  }
}

}  // namespace

void zero_rows(const Context& ctx, const std::int64_t* rows, std::int64_t n, int k, float* c) {
  if (n == 0 || k == 0) return;
  const int threads = 256;
  zero_rows_kernel<<<grid_for(n, threads / kWarpSize), threads, 0, stream_of(ctx)>>>(rows, n, k, c);
  FK_CUDA_CHECK_LAUNCH();
}

LongRows::LongRows(const std::vector<std::int64_t>& row_ptr, std::int64_t threshold,
                   std::int64_t segment)
    : threshold_(threshold), segment_(segment) {
  FK_CHECK(segment >= 1, "long-row split needs a positive segment length");
  const std::int64_t m = static_cast<std::int64_t>(row_ptr.size()) - 1;
  if (threshold_ <= 0) {
    const std::int64_t mean = m > 0 ? (row_ptr.back() - row_ptr.front()) / m : 0;
    threshold_ = std::max(kMinThreshold, kMeanFactor * mean);
  }
  std::vector<std::int64_t> rows, row_segs{0}, seg_row, seg_begin;
  for (std::int64_t r = 0; r < m; ++r) {
    if (row_ptr[r + 1] - row_ptr[r] <= threshold_) continue;
    rows.push_back(r);
    for (std::int64_t j = row_ptr[r]; j < row_ptr[r + 1]; j += segment) {
      seg_row.push_back(r);
      seg_begin.push_back(j);
    }
    row_segs.push_back(static_cast<std::int64_t>(seg_row.size()));
  }
  rows_ = DeviceBuffer<std::int64_t>(rows);
  row_segs_ = DeviceBuffer<std::int64_t>(row_segs);
  seg_row_ = DeviceBuffer<std::int64_t>(seg_row);
  seg_begin_ = DeviceBuffer<std::int64_t>(seg_begin);
}

void LongRows::run(const Context& ctx, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                   const float* vals, const float* b, float* c, int k,
                   const std::int32_t* val_perm) const {
  if (rows_.size() == 0 || k == 0) return;
  const std::int64_t segments = seg_row_.size();
  float* partial = ctx.run_scratch(Context::kKernelScratch, segments * k);  // the context's, not the plan's
  const unsigned grid = grid_for(segments, 1);
  auto launch = [&](auto values) {
    using Vals = decltype(values);
    if (vec4_ok(k, b, c)) {
      const int g = std::min(32, pow2_ceil(k / 4));
      long_rows_kernel<4, Vals><<<grid, kLongThreads, 0, stream_of(ctx)>>>(
          segments, seg_row_.data(), seg_begin_.data(), segment_, row_ptr, col_idx, values, b,
          partial, k, g);
    } else {
      const int g = std::min(32, pow2_ceil(k));
      long_rows_kernel<1, Vals><<<grid, kLongThreads, 0, stream_of(ctx)>>>(
          segments, seg_row_.data(), seg_begin_.data(), segment_, row_ptr, col_idx, values, b,
          partial, k, g);
    }
    FK_CUDA_CHECK_LAUNCH();
  };
  if (val_perm)
    launch(PermutedValues{vals, val_perm});
  else
    launch(PlainValues{vals});
  const int threads = 256;
  sum_segments_kernel<<<grid_for(rows_.size() * k, threads), threads, 0, stream_of(ctx)>>>(
      rows_.size(), rows_.data(), row_segs_.data(), partial, c, k);
  FK_CUDA_CHECK_LAUNCH();
}

}  // namespace fk::cuda_spmm
