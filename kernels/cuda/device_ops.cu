#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>

#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/log.hpp"
#include "kernels/cuda/device_ops.hpp"

namespace fk {
namespace {

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n > 0 items.
unsigned grid_for(std::int64_t n) {
  return static_cast<unsigned>(std::min<std::int64_t>((n + kThreads - 1) / kThreads, 65535LL * 16));
}

// dst[i] = src[src_idx[i]] for every i: the plain gather.
template <typename I>
__global__ void gather_kernel(const float* __restrict__ src, const I* __restrict__ src_idx,
                              std::int64_t n, float* __restrict__ dst) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    dst[i] = src[src_idx[i]];
}

// The windowed gather: a warp per piece (grid-stride over the pieces, which come window by
// window), dst[j] = src[src_idx[j]] for j in [piece_begin[p], piece_end[p]).
template <typename I>
__global__ void gather_pieces_kernel(const float* __restrict__ src, const I* __restrict__ src_idx,
                                     const std::int64_t* __restrict__ piece_begin,
                                     const std::int64_t* __restrict__ piece_end,
                                     std::int64_t pieces, float* __restrict__ dst) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x >> 5);
  for (std::int64_t p = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) >> 5; p < pieces;
       p += warps) {
    const std::int64_t end = piece_end[p];
    for (std::int64_t j = piece_begin[p] + lane; j < end; j += 32) dst[j] = src[src_idx[j]];
  }
}

// out[i] = in[i] in a narrower type (the caller checked that every value fits).
template <typename I>
__global__ void narrow_kernel(const std::int64_t* __restrict__ in, std::int64_t n,
                              I* __restrict__ out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = static_cast<I>(in[i]);
}

// The first j in [lo, hi) with perm[j] >= x (hi when none); perm increases on [lo, hi).
__device__ std::int64_t first_at_or_above(const std::int64_t* __restrict__ perm, std::int64_t lo,
                                          std::int64_t hi, std::int64_t x) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (perm[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// For run r = w * segments + s (window w, segment s): its entries are the j of segment s whose
// source lies in window w, [run_begin[r], run_end[r]); pieces[r] = how many pieces of at most
// piece_entries cover it.
__global__ void runs_kernel(const std::int64_t* __restrict__ perm,
                            const std::int64_t* __restrict__ segment_ptr, std::int64_t segments,
                            std::int64_t windows, int window_bits, std::int64_t piece_entries,
                            std::int64_t* __restrict__ run_begin, std::int64_t* __restrict__ run_end,
                            std::int64_t* __restrict__ pieces) {
  for (std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; r < windows * segments;
       r += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t w = r / segments, s = r % segments;
    const std::int64_t lo = segment_ptr[s], hi = segment_ptr[s + 1];
    const std::int64_t begin = first_at_or_above(perm, lo, hi, w << window_bits);
    const std::int64_t end = first_at_or_above(perm, begin, hi, (w + 1) << window_bits);
    run_begin[r] = begin;
    run_end[r] = end;
    pieces[r] = (end - begin + piece_entries - 1) / piece_entries;
  }
}

// Run r's pieces from position first[r] on: consecutive spans of piece_entries, the last shorter.
__global__ void pieces_kernel(const std::int64_t* __restrict__ run_begin,
                              const std::int64_t* __restrict__ run_end,
                              const std::int64_t* __restrict__ first, std::int64_t runs,
                              std::int64_t piece_entries, std::int64_t* __restrict__ piece_begin,
                              std::int64_t* __restrict__ piece_end) {
  for (std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; r < runs;
       r += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t at = first[r];
    for (std::int64_t j = run_begin[r]; j < run_end[r]; j += piece_entries, ++at) {
      piece_begin[at] = j;
      piece_end[at] = min(j + piece_entries, run_end[r]);
    }
  }
}

// out[j] = j for j in [0, n): the original positions the sort carries along with the columns.
__global__ void iota_kernel(std::int64_t* __restrict__ out, std::int64_t n) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    out[j] = j;
}

// counts[c] += how many of the n column indices equal c (integer adds: the result does not depend
// on the order the atomics land in).
__global__ void count_columns_kernel(const std::int32_t* __restrict__ col_idx, std::int64_t n,
                                     unsigned long long* __restrict__ counts) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    atomicAdd(counts + col_idx[j], 1ull);
}

// Sᵀ's row offsets from S's column indices sorted ascending (nnz > 0 entries, all below cols):
// t_row_ptr[c] = how many of them are below c, for c in [0, cols] (a lower bound search each).
__global__ void count_below_kernel(const std::uint32_t* __restrict__ sorted_cols, std::int64_t nnz,
                                   std::int64_t cols, std::int64_t* __restrict__ t_row_ptr) {
  for (std::int64_t c = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; c <= cols;
       c += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t lo = 0, hi = nnz;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(sorted_cols[mid]) < c)
        lo = mid + 1;
      else
        hi = mid;
    }
    t_row_ptr[c] = lo;
  }
}

// For the i-th entry of Sᵀ, taken from position p = perm[i] of S: its column is the row of S that
// holds p (the last row r < rows with row_ptr[r] <= p; rows >= 1 since nnz > 0), its value
// vals[p] when S has values (t_vals is null otherwise).
__global__ void place_entries_kernel(const std::int64_t* __restrict__ row_ptr, std::int64_t rows,
                                     const float* __restrict__ vals,
                                     const std::int64_t* __restrict__ perm, std::int64_t nnz,
                                     std::int32_t* __restrict__ t_col, float* __restrict__ t_vals) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < nnz;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t p = perm[i];
    std::int64_t lo = 0, hi = rows;  // row_ptr[lo] <= p, and the row is below hi
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (row_ptr[mid] <= p)
        lo = mid;
      else
        hi = mid;
    }
    t_col[i] = static_cast<std::int32_t>(lo);
    if (t_vals) t_vals[i] = vals[p];
  }
}

// span[i] = (largest - smallest column + 1) / cols of sampled row i (row i * rows / n), or -1
// when that row is empty; one block per sampled row.
__global__ void column_span_kernel(const std::int64_t* __restrict__ row_ptr,
                                   const std::int32_t* __restrict__ col_idx, std::int64_t rows,
                                   std::int64_t cols, std::int64_t n, double* __restrict__ span) {
  __shared__ std::int32_t lo_s[32], hi_s[32];
  const std::int64_t r = std::int64_t(blockIdx.x) * rows / n;
  const std::int64_t begin = row_ptr[r], end = row_ptr[r + 1];
  std::int32_t lo = INT32_MAX, hi = -1;
  for (std::int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const std::int32_t c = col_idx[j];
    lo = min(lo, c);
    hi = max(hi, c);
  }
  for (int off = 16; off > 0; off >>= 1) {
    lo = min(lo, __shfl_down_sync(0xffffffffu, lo, off));
    hi = max(hi, __shfl_down_sync(0xffffffffu, hi, off));
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    lo_s[warp] = lo;
    hi_s[warp] = hi;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < int(blockDim.x >> 5); ++w) {
      lo = min(lo, lo_s[w]);
      hi = max(hi, hi_s[w]);
    }
    span[blockIdx.x] = begin == end ? -1.0 : double(hi - lo + 1) / double(cols);
  }
}

// For sampled row r = 1 + i * (rows - 1) / n (block i): how many of its first kNeighbourRowEntries
// entries have a column among row r - 1's first kNeighbourPrevEntries (hits[i]), and how many
// entries were looked at (looked[i]; 0 when either row is empty). The predecessor's columns sit
// in shared memory and every thread scans them for its entries: at most 256 x 2048 comparisons.
__global__ void neighbour_share_kernel(const std::int64_t* __restrict__ row_ptr,
                                       const std::int32_t* __restrict__ col_idx, std::int64_t rows,
                                       std::int64_t n, std::int32_t* __restrict__ hits,
                                       std::int32_t* __restrict__ looked) {
  __shared__ std::int32_t prev_s[kNeighbourPrevEntries];
  __shared__ int hits_s[32];
  const std::int64_t r = 1 + std::int64_t(blockIdx.x) * (rows - 1) / n;
  const std::int64_t p0 = row_ptr[r - 1];
  const int prev = int(min(row_ptr[r] - p0, kNeighbourPrevEntries));
  const std::int64_t r0 = row_ptr[r];
  const int len = int(min(row_ptr[r + 1] - r0, kNeighbourRowEntries));
  for (int j = threadIdx.x; j < prev; j += blockDim.x) prev_s[j] = col_idx[p0 + j];
  __syncthreads();
  int found = 0;
  for (int j = threadIdx.x; j < len; j += blockDim.x) {
    const std::int32_t c = col_idx[r0 + j];
    bool in_prev = false;
    for (int q = 0; q < prev && !in_prev; ++q) in_prev = prev_s[q] == c;
    found += in_prev;
  }
  for (int off = 16; off > 0; off >>= 1) found += __shfl_down_sync(0xffffffffu, found, off);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) hits_s[warp] = found;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < int(blockDim.x >> 5); ++w) found += hits_s[w];
    const bool counted = prev > 0 && len > 0;
    hits[blockIdx.x] = counted ? found : 0;
    looked[blockIdx.x] = counted ? len : 0;
  }
}

// Bits that hold every column index in [0, cols) (at least one, so that the sort has a pass).
int column_bits(std::int64_t cols) {
  int bits = 1;
  while (bits < 31 && ((cols - 1) >> bits) != 0) ++bits;
  return bits;
}

}  // namespace

ValueGather::ValueGather(const Context& ctx, DeviceBuffer<std::int64_t> perm,
                         const std::int64_t* segment_ptr, std::int64_t segments, int window_bits,
                         std::int64_t windowed_above_bytes)
    : n_(perm.size()) {
  FK_CHECK(ctx.is_gpu(), "ValueGather needs a GPU context, not " << ctx.describe());
  FK_CHECK(window_bits >= 0 && window_bits < 62,
           "ValueGather: window of 2^" << window_bits << " entries");
  FK_CHECK(segments >= 0 && (segments == 0 || segment_ptr != nullptr),
           "ValueGather: " << segments << " segments without their offsets");
  if (n_ == 0) return;
  const cudaStream_t stream = stream_of(ctx);
  if (n_ <= INT32_MAX) {
    src32_ = DeviceBuffer<std::int32_t>(n_);
    narrow_kernel<std::int32_t><<<grid_for(n_), kThreads, 0, stream>>>(perm.data(), n_, src32_.data());
    FK_CUDA_CHECK_LAUNCH();
  } else {
    src64_ = std::move(perm);
  }
  const std::int64_t* const positions = src64_.size() > 0 ? src64_.data() : perm.data();
  if (windowed_above_bytes < 0)
    windowed_above_bytes = 2 * std::int64_t(ctx.gpu().props.l2CacheSize);
  const std::int64_t windows = ((n_ - 1) >> window_bits) + 1;
  // Windows where the values outgrow the gate, there are two or more of them, and the runs are
  // long enough on average that a warp per piece does not idle (a transpose's rows: runs of 75
  // entries on the nytimes shape, 470 on Netflix's).
  windowed_ = segments > 0 && windows > 1 && n_ * std::int64_t(sizeof(float)) > windowed_above_bytes &&
              windows * segments <= n_ / kMinMeanRun;
  read_through_ = !windowed_ && src32_.size() > 0 &&
                  n_ * std::int64_t(sizeof(float)) <= std::int64_t(ctx.gpu().props.l2CacheSize) / 4;
  if (windowed_) {
    const std::int64_t runs = windows * segments;
    DeviceBuffer<std::int64_t> run_begin(runs), run_end(runs), count(runs), first(runs);
    runs_kernel<<<grid_for(runs), kThreads, 0, stream>>>(positions, segment_ptr, segments, windows,
                                                          window_bits, kPieceEntries, run_begin.data(),
                                                          run_end.data(), count.data());
    FK_CUDA_CHECK_LAUNCH();
    std::size_t temp_bytes = 0;
    FK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, count.data(), first.data(), runs, stream));
    DeviceBuffer<char> temp(static_cast<std::int64_t>(std::max<std::size_t>(temp_bytes, 16)));
    FK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), temp_bytes, count.data(), first.data(), runs, stream));
    std::int64_t last_first = 0, last_count = 0;
    FK_CUDA_CHECK(cudaMemcpyAsync(&last_first, first.data() + runs - 1, sizeof(std::int64_t),
                                  cudaMemcpyDeviceToHost, stream));
    FK_CUDA_CHECK(cudaMemcpyAsync(&last_count, count.data() + runs - 1, sizeof(std::int64_t),
                                  cudaMemcpyDeviceToHost, stream));
    FK_CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::int64_t pieces = last_first + last_count;
    piece_begin_ = DeviceBuffer<std::int64_t>(pieces);
    piece_end_ = DeviceBuffer<std::int64_t>(pieces);
    pieces_kernel<<<grid_for(runs), kThreads, 0, stream>>>(run_begin.data(), run_end.data(), first.data(), runs,
                                                           kPieceEntries, piece_begin_.data(), piece_end_.data());
    FK_CUDA_CHECK_LAUNCH();
  }
  FK_CUDA_CHECK(cudaStreamSynchronize(stream));  // perm and the temporaries are freed on return
}

void ValueGather::run(const Context& ctx, const float* src, float* dst) const {
  if (n_ == 0) return;
  const cudaStream_t stream = stream_of(ctx);
  const std::int64_t pieces = piece_begin_.size();
  auto launch = [&](const auto* src_idx) {
    using I = std::remove_const_t<std::remove_pointer_t<decltype(src_idx)>>;
    if (pieces > 0)
      gather_pieces_kernel<I><<<grid_for(pieces * 32), kThreads, 0, stream>>>(
          src, src_idx, piece_begin_.data(), piece_end_.data(), pieces, dst);
    else
      gather_kernel<I><<<grid_for(n_), kThreads, 0, stream>>>(src, src_idx, n_, dst);
  };
  if (src32_.size() > 0)
    launch(src32_.data());
  else
    launch(src64_.data());
  FK_CUDA_CHECK_LAUNCH();
}

DeviceCsr device_transpose(const Context& ctx, const CsrView& s, DeviceBuffer<std::int64_t>* perm) {
  FK_CHECK(ctx.is_gpu(), "device_transpose needs a GPU context, not " << ctx.describe());
  FK_CHECK(s.rows >= 0 && s.cols >= 0 && s.nnz >= 0, "device_transpose: invalid shape "
                                                         << s.rows << " x " << s.cols << " with "
                                                         << s.nnz << " nonzeros");
  FK_CHECK(
      s.rows <= INT32_MAX,
      "device_transpose: " << s.rows
                           << " rows of S do not fit the 32-bit column indices of its transpose");
  FK_CHECK(s.cols <= INT32_MAX, "device_transpose: " << s.cols << " columns exceed 32-bit indices");
  FK_CHECK(s.row_ptr != nullptr, "device_transpose: S without row offsets");
  FK_CHECK(s.nnz == 0 || (s.col_idx != nullptr && s.rows > 0 && s.cols > 0),
           "device_transpose: " << s.nnz << " nonzeros in a " << s.rows << " x " << s.cols
                                << " matrix without column indices or without rows/columns");
#if CUB_VERSION < 300000
  // Only CUB 3 (CUDA 13) was checked to sort more than 2^31 items (64-bit offsets when num_items
  // is 64-bit); older ones may take an int.
  FK_CHECK(s.nnz <= INT32_MAX, "device_transpose: " << s.nnz
                                                    << " nonzeros need CUB 3 or later (this is "
                                                    << CUB_VERSION << ")");
#endif
  const cudaStream_t stream = stream_of(ctx);
  const std::int64_t nnz = s.nnz;

  DeviceCsr t;
  t.rows = s.cols;
  t.cols = s.rows;
  t.row_ptr = DeviceBuffer<std::int64_t>(s.cols + 1);
  t.col_idx = DeviceBuffer<std::int32_t>(nnz);
  if (s.vals) t.vals = DeviceBuffer<float>(nnz);  // as transpose(): values only when S has them
  DeviceBuffer<std::int64_t> order;               // becomes perm

  if (nnz == 0) {
    FK_CUDA_CHECK(cudaMemsetAsync(t.row_ptr.data(), 0, t.row_ptr.bytes(), stream));
    FK_CUDA_CHECK(cudaStreamSynchronize(stream));
  } else {
    // A stable sort of (column, position) pairs by column: within a column, positions stay
    // increasing, which is the order transpose()'s counting sort gives. Columns are non-negative
    // int32, so sorting them as uint32 on their low bits is the same order.
    DeviceBuffer<std::uint32_t> keys_a(nnz), keys_b(nnz);
    DeviceBuffer<std::int64_t> pos_a(nnz), pos_b(nnz);
    FK_CUDA_CHECK(cudaMemcpyAsync(keys_a.data(), s.col_idx, keys_a.bytes(),
                                  cudaMemcpyDeviceToDevice, stream));
    iota_kernel<<<grid_for(nnz), kThreads, 0, stream>>>(pos_a.data(), nnz);
    FK_CUDA_CHECK_LAUNCH();
    cub::DoubleBuffer<std::uint32_t> keys(keys_a.data(), keys_b.data());
    cub::DoubleBuffer<std::int64_t> pos(pos_a.data(), pos_b.data());
    const int end_bit = column_bits(s.cols);
    // num_items is int64: CUB 3 then uses 64-bit offsets. The size query and the sort take the
    // same arguments, so the workspace fits.
    std::size_t temp_bytes = 0;
    FK_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, pos, nnz, 0, end_bit, stream));
    DeviceBuffer<char> temp(static_cast<std::int64_t>(std::max<std::size_t>(temp_bytes, 16)));
    FK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), temp_bytes, keys, pos, nnz, 0,
                                                  end_bit, stream));

    count_below_kernel<<<grid_for(s.cols + 1), kThreads, 0, stream>>>(keys.Current(), nnz, s.cols,
                                                                      t.row_ptr.data());
    FK_CUDA_CHECK_LAUNCH();
    place_entries_kernel<<<grid_for(nnz), kThreads, 0, stream>>>(
        s.row_ptr, s.rows, s.vals, pos.Current(), nnz, t.col_idx.data(), t.vals.data());
    FK_CUDA_CHECK_LAUNCH();
    order = pos.Current() == pos_a.data() ? std::move(pos_a) : std::move(pos_b);
    // The kernels above use the temporaries freed at the end of this scope.
    FK_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  if (perm) *perm = std::move(order);
  return t;
}

double sampled_column_span(const Context& ctx, const CsrView& s) {
  FK_CHECK(ctx.is_gpu(), "sampled_column_span needs a GPU context, not " << ctx.describe());
  const std::int64_t n = std::min(s.rows, kColumnSpanSampleRows);
  if (n == 0 || s.nnz == 0) return 1.0;
  const cudaStream_t stream = stream_of(ctx);
  DeviceBuffer<double> span(n);
  column_span_kernel<<<static_cast<unsigned>(n), 128, 0, stream>>>(s.row_ptr, s.col_idx, s.rows,
                                                                   s.cols, n, span.data());
  FK_CUDA_CHECK_LAUNCH();
  std::vector<double> host(static_cast<std::size_t>(n));
  FK_CUDA_CHECK(
      cudaMemcpyAsync(host.data(), span.data(), span.bytes(), cudaMemcpyDeviceToHost, stream));
  FK_CUDA_CHECK(cudaStreamSynchronize(stream));
  double sum = 0;
  std::int64_t counted = 0;
  for (double x : host)
    if (x >= 0) {
      sum += x;
      ++counted;
    }
  return counted > 0 ? sum / double(counted) : 1.0;
}

double sampled_neighbour_share(const Context& ctx, const CsrView& s) {
  FK_CHECK(ctx.is_gpu(), "sampled_neighbour_share needs a GPU context, not " << ctx.describe());
  const std::int64_t n = std::min(s.rows - 1, kNeighbourSampleRows);
  if (n <= 0 || s.nnz == 0) return 1.0;
  const cudaStream_t stream = stream_of(ctx);
  DeviceBuffer<std::int32_t> hits(n), looked(n);
  neighbour_share_kernel<<<static_cast<unsigned>(n), 128, 0, stream>>>(
      s.row_ptr, s.col_idx, s.rows, n, hits.data(), looked.data());
  FK_CUDA_CHECK_LAUNCH();
  std::vector<std::int32_t> h(static_cast<std::size_t>(n)), l(static_cast<std::size_t>(n));
  FK_CUDA_CHECK(
      cudaMemcpyAsync(h.data(), hits.data(), hits.bytes(), cudaMemcpyDeviceToHost, stream));
  FK_CUDA_CHECK(
      cudaMemcpyAsync(l.data(), looked.data(), looked.bytes(), cudaMemcpyDeviceToHost, stream));
  FK_CUDA_CHECK(cudaStreamSynchronize(stream));
  double sum = 0;
  std::int64_t counted = 0;
  for (std::size_t i = 0; i < h.size(); ++i)
    if (l[i] > 0) {
      sum += double(h[i]) / double(l[i]);
      ++counted;
    }
  return counted > 0 ? sum / double(counted) : 1.0;
}

std::vector<std::int64_t> transposed_row_offsets(const Context& ctx, const CsrView& s) {
  FK_CHECK(ctx.is_gpu(), "transposed_row_offsets needs a GPU context, not " << ctx.describe());
  FK_CHECK(s.cols >= 0 && s.nnz >= 0, "transposed_row_offsets: invalid shape");
  std::vector<std::int64_t> t_row_ptr(static_cast<std::size_t>(s.cols) + 1, 0);
  if (s.nnz == 0 || s.cols == 0) return t_row_ptr;
  FK_CHECK(s.col_idx != nullptr,
           "transposed_row_offsets: " << s.nnz << " nonzeros without column indices");
  const cudaStream_t stream = stream_of(ctx);
  DeviceBuffer<unsigned long long> counts(s.cols);
  FK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream));
  count_columns_kernel<<<grid_for(s.nnz), kThreads, 0, stream>>>(s.col_idx, s.nnz, counts.data());
  FK_CUDA_CHECK_LAUNCH();
  std::vector<unsigned long long> host(static_cast<std::size_t>(s.cols));
  FK_CUDA_CHECK(
      cudaMemcpyAsync(host.data(), counts.data(), counts.bytes(), cudaMemcpyDeviceToHost, stream));
  FK_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::int64_t c = 0; c < s.cols; ++c)
    t_row_ptr[c + 1] = t_row_ptr[c] + static_cast<std::int64_t>(host[c]);
  return t_row_ptr;
}

std::int64_t l2_bytes(const Context& ctx) { return ctx.gpu().props.l2CacheSize; }
int compute_major(const Context& ctx) { return ctx.gpu().props.major; }

namespace {
__global__ void rebase_kernel(const std::int64_t* __restrict__ row_ptr, std::int64_t first,
                              std::int64_t n, std::int64_t* __restrict__ out) {
  const std::int64_t base = row_ptr[first];
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = row_ptr[first + i] - base;
}

__global__ void add_into_kernel(std::int64_t n, const float* __restrict__ src,
                                float* __restrict__ dst) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    dst[i] += src[i];
}

// I: 32-bit where every index fits (64-bit division per element halved the copy's bandwidth).
template <typename I>
__global__ void copy_block_kernel(I rows, I cols, const float* __restrict__ src, I src_ld,
                                  float* __restrict__ dst, I dst_ld) {
  const I n = rows * cols;
  for (I i = I(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += I(gridDim.x) * blockDim.x) {
    const I r = i / cols, c = i - r * cols;
    dst[r * dst_ld + c] = src[r * src_ld + c];
  }
}
}  // namespace

DeviceBuffer<std::int64_t> rebased_row_offsets(const Context& ctx, const std::int64_t* row_ptr,
                                               std::int64_t first, std::int64_t rows) {
  DeviceBuffer<std::int64_t> out(rows + 1);
  const cudaStream_t stream = stream_of(ctx);
  rebase_kernel<<<grid_for(rows + 1), kThreads, 0, stream>>>(row_ptr, first, rows + 1, out.data());
  FK_CUDA_CHECK_LAUNCH();
  FK_CUDA_CHECK(cudaStreamSynchronize(stream));
  return out;
}

void add_into(const Context& ctx, std::int64_t n, const float* src, float* dst) {
  if (n <= 0) return;
  add_into_kernel<<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(n, src, dst);
  FK_CUDA_CHECK_LAUNCH();
}

void copy_block(const Context& ctx, std::int64_t rows, std::int64_t cols, const float* src,
                std::int64_t src_ld, float* dst, std::int64_t dst_ld) {
  if (rows <= 0 || cols <= 0) return;
  const cudaStream_t stream = stream_of(ctx);
  const unsigned grid = grid_for(rows * cols);
  if (rows * std::max(src_ld, dst_ld) < (std::int64_t(1) << 32) - kThreads * std::int64_t(grid))
    copy_block_kernel<std::uint32_t>
        <<<grid, kThreads, 0, stream>>>(std::uint32_t(rows), std::uint32_t(cols), src,
                                        std::uint32_t(src_ld), dst, std::uint32_t(dst_ld));
  else
    copy_block_kernel<std::int64_t>
        <<<grid, kThreads, 0, stream>>>(rows, cols, src, src_ld, dst, dst_ld);
  FK_CUDA_CHECK_LAUNCH();
}

}  // namespace fk
