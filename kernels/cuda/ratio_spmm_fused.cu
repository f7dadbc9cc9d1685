// cuda.ratio_spmm.fused: the fused ratio SpMM on the GPU (kernels/ratio_spmm.hpp), and its
// product and residual forms (the weight v · d or v − s · d instead of v / (d + eps); the same
// code otherwise).
//
// Mapping: a block of 8 warps takes 8 / P rows, P warps per row (P from the mean row length: 1, 2,
// 4 or 8), each warp a contiguous part of its row's nonzeros. A nonzero is handled by a group of G
// lanes (G = 4-32, the fewest that cover K in float4s, or float2s where K % 4 == 2 or a base is
// only 8-byte aligned, else floats), so a warp works on 32 / G nonzeros at once (float2s against
// floats at K % 4 == 2: 0.92x the time over 60 cases, H100, docs/benchmarks/ratio-spmm.md). The
// lanes hold the row of A and a partial row of C in registers. Per nonzero a group loads the B row
// once, adds its lanes' products with a butterfly of shuffles, forms the ratio and adds ratio x B
// row to its accumulators: one read of B per nonzero instead of the SDDMM's and the SpMM's two, and
// no ratio array in memory. Two steps are in flight so that one's shuffles overlap the other's
// loads. The groups' rows are added with shuffles, the P parts of a row in shared memory in part
// order, so results do not depend on timing (bit-identical across runs). Where a mean row is
// shorter than four of a warp's steps at K <= 128 (in float4s; G <= 16, or 16 lanes of two float4s
// from K = 65), each lane group takes a row of its own instead (group_rows).
//
// Long rows: a warp's walk over its part is a chain of dependent steps (loads, shuffles, the
// division), so one long part can outlast the rest of the kernel: a 1M x 1M power-law matrix with
// a full row ran 50x slower than the unfused pair, the transpose of an LDA minibatch (rows of mean
// 13, the longest 4096) 2.9x slower (H100, docs/benchmarks/ratio-spmm.md). A part may therefore
// take at most kMaxSteps steps (2 x 32/G nonzeros each; fewer on small problems, chain_steps; more
// where the scratch would outgrow C, LongRowSplit): longer rows are cut into segments of that many
// nonzeros, a warp each, whose partial rows go to a scratch buffer. The segments run in the
// same launch as the rows, in its first blocks, so that the long work starts first; the last
// segment of each chunk of kChunk to arrive adds the chunk, and the last chunk of each row the
// row's chunks, in a fixed order (bit-identical runs; counters, no atomic additions of values).
// Limits of 32, 64 and 32-256 steps (the last growing with nnz x K) were compared on LDA shapes,
// their transposes, ml-20m and a power-law matrix; 32 gave the best geometric mean over the pair
// (H100, docs/benchmarks/ratio-spmm.md). The first version finished the long rows in two more
// launches, which cost an untransposed LDA minibatch at K = 256 153 -> 170 µs; the arrival counters
// took it to 147 µs and the kos, nips, ml-100k and minibatch shapes both ways 0-21% faster,
// power-law within 2.5% (H100, the same file).
#include <algorithm>
#include <memory>
#include <vector>

#include "core/log.hpp"
#include "core/memory.hpp"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"
#include "kernels/ratio_segments.hpp"

namespace fk {
namespace {

using cuda_spmm::ceil_div;
using cuda_spmm::kFullMask;
using cuda_spmm::kWarpSize;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarpSize;

// P warps per row: the largest power of two up to 8 with at least 48 nonzeros per warp on a mean
// row.
constexpr int kMaxParts = 8;
static_assert(kMaxParts <= kWarps, "a row's parts are warps of one block");
int row_parts(double mean_row) {
  int parts = 1;
  while (parts < kMaxParts && mean_row >= 48.0 * parts) parts *= 2;
  return parts;
}
// parts == kGroupRows: each group of G lanes takes a row of its own (rows_per_group below).
constexpr int kGroupRows = 0;
constexpr int kMaxK = 1024;
constexpr std::int64_t kMaxSteps = 32;  // steps of a warp's walk over a part or a segment
constexpr std::int64_t kChunk = 32;     // segments the last of them to arrive adds

// One lane's share of a K-wide row when G lanes hold a row: the groups of W floats (W = 4: float4s,
// 2: float2s, 1: floats) q·G + li (q < NQ, li the lane's index in its group). Positions at or past
// K read as 0 and are not stored.
template <int G, int NQ, int W>
struct LaneRow {
  static_assert(W == 1 || W == 2 || W == 4, "floats, float2s or float4s");
  static constexpr int kPer = W;
  static constexpr int kCount = NQ * kPer;
  float x[kCount];

  __device__ void zero() {
#pragma unroll
    for (int i = 0; i < kCount; ++i) x[i] = 0.0f;
  }
  __device__ void load(const float* __restrict__ row, int k, int li) {
#pragma unroll
    for (int q = 0; q < NQ; ++q) {
      const int at = (q * G + li) * kPer;
      if constexpr (W == 4) {
        const float4 v = at < k ? *reinterpret_cast<const float4*>(row + at) : make_float4(0, 0, 0, 0);
        x[4 * q] = v.x;
        x[4 * q + 1] = v.y;
        x[4 * q + 2] = v.z;
        x[4 * q + 3] = v.w;
      } else if constexpr (W == 2) {
        const float2 v = at < k ? *reinterpret_cast<const float2*>(row + at) : make_float2(0, 0);
        x[2 * q] = v.x;
        x[2 * q + 1] = v.y;
      } else {
        x[q] = at < k ? row[at] : 0.0f;
      }
    }
  }
  __device__ void store(float* __restrict__ row, int k, int li) const {
#pragma unroll
    for (int q = 0; q < NQ; ++q) {
      const int at = (q * G + li) * kPer;
      if (at >= k) continue;
      if constexpr (W == 4)
        *reinterpret_cast<float4*>(row + at) = make_float4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]);
      else if constexpr (W == 2)
        *reinterpret_cast<float2*>(row + at) = make_float2(x[2 * q], x[2 * q + 1]);
      else
        row[at] = x[q];
    }
  }
  __device__ float dot(const LaneRow& o) const {
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < kCount; ++i) s = fmaf(x[i], o.x[i], s);
    return s;
  }
  __device__ void axpy(float r, const LaneRow& o) {
#pragma unroll
    for (int i = 0; i < kCount; ++i) x[i] = fmaf(r, o.x[i], x[i]);
  }
};

// The sum over the G lanes of each group (every lane of the group gets it).
template <int G>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int o = G / 2; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
  return v;
}

// How a nonzero's weight comes from its value(s) and its dot product d (kernels/ratio_spmm.hpp's
// three forms): the ratio v / (d + eps), the product v · d, the residual v − s · d.
enum class Edge { kRatio, kProduct, kResidual };

// A nonzero's values: v (vals[j], or 1 where vals is null: the product form unscaled) and, for
// the residual, s (scale[j], or 1).
template <Edge E>
struct EdgeValue {
  float v = 0.0f, s = 1.0f;
};
template <Edge E>
__device__ __forceinline__ EdgeValue<E> edge_value(const float* __restrict__ vals,
                                                   const float* __restrict__ scale, std::int64_t j) {
  EdgeValue<E> out;
  out.v = vals ? vals[j] : 1.0f;
  if constexpr (E == Edge::kResidual) out.s = scale ? scale[j] : 1.0f;
  return out;
}
template <Edge E>
__device__ __forceinline__ EdgeValue<E> shfl_value(const EdgeValue<E>& x, int src) {
  EdgeValue<E> out;
  out.v = __shfl_sync(kFullMask, x.v, src);
  if constexpr (E == Edge::kResidual) out.s = __shfl_sync(kFullMask, x.s, src);
  return out;
}
template <Edge E>
__device__ __forceinline__ float weight(const EdgeValue<E>& x, float d, float eps) {
  if constexpr (E == Edge::kRatio) return x.v / (d + eps);
  else if constexpr (E == Edge::kProduct) return x.v * d;
  else return x.v - x.s * d;
}

// acc += w(v0, ar·b0) · b0 + w(v1, ar·b1) · b1 for one lane group, each dot product
// summed over the group's G lanes; a row that is not there (ok false) was loaded as zeros and adds
// nothing.
template <Edge E, int G, int NQ, int W>
__device__ __forceinline__ void add_two(LaneRow<G, NQ, W>& acc, const LaneRow<G, NQ, W>& ar,
                                        const LaneRow<G, NQ, W>& b0, bool ok0, const EdgeValue<E>& v0,
                                        const LaneRow<G, NQ, W>& b1, bool ok1, const EdgeValue<E>& v1,
                                        float eps) {
  float d0 = ar.dot(b0), d1 = ar.dot(b1);
#pragma unroll
  for (int o = G / 2; o > 0; o >>= 1) {
    d0 += __shfl_xor_sync(kFullMask, d0, o);
    d1 += __shfl_xor_sync(kFullMask, d1, o);
  }
  acc.axpy(ok0 ? weight<E>(v0, d0, eps) : 0.0f, b0);
  acc.axpy(ok1 ? weight<E>(v1, d1, eps) : 0.0f, b1);
}

// acc += Σ_{j in [p0, p1)} w(vals_j, ar · B[col_j]) · B[col_j] over one warp: its 32 / G lane
// groups take consecutive nonzeros, two steps of them in flight. Each group keeps its own partial
// row (add_groups sums them).
template <Edge E, int G, int NQ, int W>
__device__ __forceinline__ void accumulate_part(LaneRow<G, NQ, W>& acc, const LaneRow<G, NQ, W>& ar,
                                                std::int64_t p0, std::int64_t p1,
                                                const std::int32_t* __restrict__ col_idx,
                                                const float* __restrict__ vals,
                                                const float* __restrict__ scale,
                                                const float* __restrict__ b, int k, float eps,
                                                int lane) {
  using Row = LaneRow<G, NQ, W>;
  constexpr int kGroups = kWarpSize / G;  // nonzeros a warp takes per step
  const int group = lane / G, li = lane % G;
  for (std::int64_t base = p0; base < p1; base += kWarpSize) {
    const int n = p1 - base < kWarpSize ? static_cast<int>(p1 - base) : kWarpSize;
    int my_col = 0;
    EdgeValue<E> my_val;
    if (lane < n) {
      my_col = col_idx[base + lane];
      my_val = edge_value<E>(vals, scale, base + lane);
    }
    if constexpr (kGroups == 1) {
      // Whole-warp rows: pairs of nonzeros without predicates, then the odd one. (The group
      // loop below, run with one group, took 1.2-1.4x as long at K = 50-100; H100.)
      int e = 0;
      for (; e + 2 <= n; e += 2) {
        const int c0 = __shfl_sync(kFullMask, my_col, e), c1 = __shfl_sync(kFullMask, my_col, e + 1);
        const EdgeValue<E> v0 = shfl_value(my_val, e), v1 = shfl_value(my_val, e + 1);
        Row b0, b1;
        b0.load(b + std::int64_t(c0) * k, k, li);
        b1.load(b + std::int64_t(c1) * k, k, li);
        float d0 = ar.dot(b0), d1 = ar.dot(b1);
#pragma unroll
        for (int o = G / 2; o > 0; o >>= 1) {
          d0 += __shfl_xor_sync(kFullMask, d0, o);
          d1 += __shfl_xor_sync(kFullMask, d1, o);
        }
        acc.axpy(weight<E>(v0, d0, eps), b0);
        acc.axpy(weight<E>(v1, d1, eps), b1);
      }
      if (e < n) {
        const int c0 = __shfl_sync(kFullMask, my_col, e);
        const EdgeValue<E> v0 = shfl_value(my_val, e);
        Row b0;
        b0.load(b + std::int64_t(c0) * k, k, li);
        acc.axpy(weight<E>(v0, group_sum<G>(ar.dot(b0)), eps), b0);
      }
    } else {
      for (int e = 0; e < n; e += 2 * kGroups) {
        // This group's two nonzeros of the step: e + group and e + kGroups + group.
        const int e0 = e + group, e1 = e + kGroups + group;
        const int c0 = __shfl_sync(kFullMask, my_col, e0 & 31), c1 = __shfl_sync(kFullMask, my_col, e1 & 31);
        const EdgeValue<E> v0 = shfl_value(my_val, e0 & 31), v1 = shfl_value(my_val, e1 & 31);
        Row b0, b1;
        if (e0 < n) b0.load(b + std::int64_t(c0) * k, k, li); else b0.zero();
        if (e1 < n) b1.load(b + std::int64_t(c1) * k, k, li); else b1.zero();
        add_two<E>(acc, ar, b0, e0 < n, v0, b1, e1 < n, v1, eps);
      }
    }
  }
}

// The sum of the groups' partial rows (lanes li of every group hold the same positions), on every
// lane.
template <int G, int NQ, int W>
__device__ __forceinline__ void add_groups(LaneRow<G, NQ, W>& acc) {
#pragma unroll
  for (int o = G; o < kWarpSize; o <<= 1)
#pragma unroll
    for (int i = 0; i < LaneRow<G, NQ, W>::kCount; ++i)
      acc.x[i] += __shfl_xor_sync(kFullMask, acc.x[i], o);
}

// The long rows' segments, as the kernel sees them. Segments come in chunks of up to kChunk
// (a chunk never spans two rows); each chunk and each long row has an arrival counter, zero
// between runs.
struct Segments {
  std::int64_t count, length;  // segments; nonzeros each (the last of a row may have fewer)
  std::int64_t partial;        // segments [0, partial) are parts of rows of several segments
  const std::int64_t *row, *begin;
  const std::int64_t* chunk_of;     // per segment: its chunk
  const std::int64_t* chunk_first;  // per chunk: its first segment (chunks + 1)
  const std::int64_t* chunk_row;    // per chunk: its long row's index in long_rows
  const std::int64_t* row_first_chunk;  // per long row: its first chunk (long rows + 1)
  const std::int64_t* long_rows;        // the long rows (rows of C)
  int* chunk_arrivals;                  // per chunk
  int* row_arrivals;                    // per long row
  float *scratch, *chunk_sums;          // segments x k, chunks x k
  unsigned blocks;  // the launch's first `blocks` blocks walk segments
};

// dst[t] = Σ_{j in [first, last)} src[j·k + t] in order, a warp with lanes along K. src was
// written by other warps of this launch: read through L2 (ld.global.cg), not a stale L1 line.
__device__ __forceinline__ void sum_rows_in_order(const float* src, std::int64_t first,
                                                  std::int64_t last, int k, int lane, float* dst) {
  for (int t = lane; t < k; t += kWarpSize) {
    float sum = 0.0f;
    for (std::int64_t j = first; j < last; ++j) sum += __ldcg(src + j * k + t);
    dst[t] = sum;
  }
}

// After a segment's partial row is in seg.scratch: the last segment of a chunk to arrive adds the
// chunk's segments (in segment order) into seg.chunk_sums, and the last chunk of a long row to
// arrive adds the row's chunks (in chunk order) into C. The order of the additions is fixed, so
// the result is the same whichever warp arrives last (bit-identical runs, as in the two-launch
// finish this replaces). The counters are reset by their last arrival for the next run. The
// pattern is the CUDA guide's "last block" reduction (__threadfence between the partial's stores
// and the counter's atomic).
__device__ __forceinline__ void arrive(const Segments& seg, std::int64_t sg, int k, int lane,
                                       float* __restrict__ c) {
  __threadfence();  // this warp's scratch stores before its arrival
  __syncwarp();
  const std::int64_t ch = seg.chunk_of[sg];
  const std::int64_t s0 = seg.chunk_first[ch], s1 = seg.chunk_first[ch + 1];
  int last = 0;
  if (lane == 0) last = atomicAdd(seg.chunk_arrivals + ch, 1) == int(s1 - s0) - 1;
  if (!__shfl_sync(kFullMask, last, 0)) return;
  __threadfence();  // the other segments' stores, seen before reading them
  sum_rows_in_order(seg.scratch, s0, s1, k, lane, seg.chunk_sums + ch * k);
  const std::int64_t i = seg.chunk_row[ch];
  const std::int64_t c0 = seg.row_first_chunk[i], c1 = seg.row_first_chunk[i + 1];
  __threadfence();
  __syncwarp();
  last = 0;
  if (lane == 0) {
    seg.chunk_arrivals[ch] = 0;
    last = atomicAdd(seg.row_arrivals + i, 1) == int(c1 - c0) - 1;
  }
  if (!__shfl_sync(kFullMask, last, 0)) return;
  __threadfence();
  sum_rows_in_order(seg.chunk_sums, c0, c1, k, lane, c + seg.long_rows[i] * k);
  if (lane == 0) seg.row_arrivals[i] = 0;
}

// Short rows at small K (kGroupRows): each group of G lanes takes a row of its own, two of its
// nonzeros a step, so that a warp works on 32 / G rows instead of idling on one row shorter than
// its step. The warp runs as many steps as its longest row needs (rows past long_row are the
// segments'); the dot products are summed within the group, the row added in order (bit-identical
// runs). Blocks from `first_block` on, 8 x 32 / G rows a block.
template <Edge E, int G, int NQ, int W>
__device__ __forceinline__ void group_rows(std::int64_t rows, int k, std::int64_t long_row,
                                           const std::int64_t* __restrict__ row_ptr,
                                           const std::int32_t* __restrict__ col_idx,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ scale, const float* __restrict__ a,
                                           const float* __restrict__ b, float eps,
                                           float* __restrict__ c, unsigned first_block) {
  using Row = LaneRow<G, NQ, W>;
  constexpr int kGroups = kWarpSize / G;
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int group = lane / G, li = lane % G;
  const std::int64_t rows_per_block = std::int64_t(kWarps) * kGroups;
  const std::int64_t row_blocks = (rows + rows_per_block - 1) / rows_per_block;
  for (std::int64_t rb = blockIdx.x - first_block; rb < row_blocks; rb += gridDim.x - first_block) {
    const std::int64_t row = rb * rows_per_block + warp * kGroups + group;
    std::int64_t j0 = 0, j1 = 0;
    bool mine_to_store = false;
    if (row < rows) {
      j0 = row_ptr[row];
      j1 = row_ptr[row + 1];
      mine_to_store = j1 - j0 <= long_row;
      if (!mine_to_store) j1 = j0;  // a long row: its segments add it
    }
    Row ar, acc;
    acc.zero();
    if (j1 > j0) ar.load(a + row * k, k, li); else ar.zero();
    int steps = static_cast<int>((j1 - j0 + 1) / 2);
#pragma unroll
    for (int o = kWarpSize / 2; o >= G; o >>= 1) steps = max(steps, __shfl_xor_sync(kFullMask, steps, o));
    for (int st = 0; st < steps; ++st) {
      const std::int64_t e0 = j0 + 2 * st, e1 = e0 + 1;
      Row b0, b1;
      EdgeValue<E> v0, v1;
      if (e0 < j1) {
        v0 = edge_value<E>(vals, scale, e0);
        b0.load(b + std::int64_t(col_idx[e0]) * k, k, li);
      } else {
        b0.zero();
      }
      if (e1 < j1) {
        v1 = edge_value<E>(vals, scale, e1);
        b1.load(b + std::int64_t(col_idx[e1]) * k, k, li);
      } else {
        b1.zero();
      }
      add_two<E>(acc, ar, b0, e0 < j1, v0, b1, e1 < j1, v1, eps);
    }
    if (mine_to_store) acc.store(c + row * k, k, li);
  }
}

// The first seg.blocks blocks give a warp to each segment of a long row (its nonzeros [begin,
// min(begin + length, row end)) into the segment's row of seg.scratch, or into C where the segment
// is the whole row); they come first so that the long rows' work starts first. The other blocks
// stride over groups of kWarps / parts rows and leave rows of more than long_row nonzeros to the
// segments. Dynamic shared memory: kWarps x
// kCount x 32 floats when parts > 1 (a warp's partial row in lane-major order). With up to 8
// floats a lane (K <= 256) the launch bounds hold it to 64 registers, 4 blocks an SM (1.03x at
// K = 256 on an H100 against the compiler's 80 registers; the same elsewhere within 2%;
// docs/benchmarks/ratio-spmm.md).
template <Edge E, int G, int NQ, int W>
__global__ void __launch_bounds__(kThreads, LaneRow<G, NQ, W>::kCount <= 8 ? 4 : 1)
    ratio_spmm_kernel(std::int64_t rows, int k, int parts, std::int64_t long_row, Segments seg,
                      const std::int64_t* __restrict__ row_ptr,
                      const std::int32_t* __restrict__ col_idx, const float* __restrict__ vals,
                      const float* __restrict__ scale, const float* __restrict__ a,
                      const float* __restrict__ b, float eps, float* __restrict__ c) {
  using Row = LaneRow<G, NQ, W>;
  extern __shared__ float partial[];
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int group = lane / G, li = lane % G;
  if (blockIdx.x < seg.blocks) {  // the whole block: no barrier below is reached by half of one
    for (std::int64_t sg = blockIdx.x * std::int64_t(kWarps) + warp; sg < seg.count;
         sg += std::int64_t(seg.blocks) * kWarps) {
      const std::int64_t row = seg.row[sg], p0 = seg.begin[sg];
      const std::int64_t p1 = min(p0 + seg.length, row_ptr[row + 1]);
      Row ar, acc;
      ar.load(a + row * k, k, li);
      acc.zero();
      accumulate_part<E>(acc, ar, p0, p1, col_idx, vals, scale, b, k, eps, lane);
      add_groups(acc);
      if (sg >= seg.partial) {  // the row's only segment: its sum is the row
        if (group == 0) acc.store(c + row * k, k, li);
        continue;
      }
      if (group == 0) acc.store(seg.scratch + sg * k, k, li);
      arrive(seg, sg, k, lane, c);
    }
    return;
  }
  if (parts == kGroupRows) {
    group_rows<E, G, NQ, W>(rows, k, long_row, row_ptr, col_idx, vals, scale, a, b, eps, c,
                            seg.blocks);
    return;
  }
  const int rows_per_block = kWarps / parts, part = warp % parts;
  const std::int64_t row_groups = (rows + rows_per_block - 1) / rows_per_block;
  for (std::int64_t rg = blockIdx.x - seg.blocks; rg < row_groups; rg += gridDim.x - seg.blocks) {
    const std::int64_t row = rg * rows_per_block + warp / parts;
    bool mine_to_store = false;  // the same for a row's parts
    Row acc;
    acc.zero();
    if (row < rows) {
      const std::int64_t j0 = row_ptr[row], len = row_ptr[row + 1] - j0;
      mine_to_store = len <= long_row;
      if (mine_to_store) {
        Row ar;
        ar.load(a + row * k, k, li);
        accumulate_part<E>(acc, ar, j0 + len * part / parts, j0 + len * (part + 1) / parts, col_idx,
                        vals, scale, b, k, eps, lane);
      }
    }
    add_groups(acc);
    if (parts == 1) {
      if (mine_to_store && group == 0) acc.store(c + row * k, k, li);
      continue;
    }
    float* mine = partial + warp * Row::kCount * kWarpSize;
#pragma unroll
    for (int i = 0; i < Row::kCount; ++i) mine[i * kWarpSize + lane] = acc.x[i];
    __syncthreads();
    if (part == 0 && mine_to_store && group == 0) {
      for (int p = 1; p < parts; ++p) {
        const float* other = mine + p * Row::kCount * kWarpSize;
#pragma unroll
        for (int i = 0; i < Row::kCount; ++i) acc.x[i] += other[i * kWarpSize + lane];
      }
      acc.store(c + row * k, k, li);
    }
    __syncthreads();
  }
}

// The long rows' segments on the device (kernels/ratio_segments.hpp plans them). Rows that fit
// one segment (in group mode, rows of 33 up to a segment's nonzeros) are stored by their warp,
// with no scratch, counters or second pass (H100: 0.99x the time in geometric mean on 72 small
// cases, down to 0.87x on transposes at K = 16 whose long rows are mostly of one segment;
// docs/benchmarks/ratio-spmm.md). The scratch takes at most as much as C or kScratchFloor bytes,
// whichever is more: with segments of 64 nonzeros at K = 256 it would take nnz x 16 bytes, 1.1 GB
// for the transpose of the nytimes corpus against its C of 105 MB (that transpose ran 23.3 ->
// 21.3 ms with the bound).
constexpr std::int64_t kScratchFloor = std::int64_t(64) << 20;
struct LongRowSplit {
  std::int64_t threshold = 0, segment = 0, partial = 0;
  DeviceBuffer<std::int64_t> rows;                // the rows of several segments
  DeviceBuffer<std::int64_t> seg_row, seg_begin;  // per segment: its row and first nonzero
  DeviceBuffer<std::int64_t> chunk_of;            // per partial segment: its chunk
  DeviceBuffer<std::int64_t> chunk_first;         // per chunk: its first segment (chunks + 1)
  DeviceBuffer<std::int64_t> chunk_row;           // per chunk: its row's index in `rows`
  DeviceBuffer<std::int64_t> row_first_chunk;     // per row of `rows`: its first chunk (+ 1)
  DeviceBuffer<int> chunk_arrivals, row_arrivals;  // zero between runs
  // A run's scratch: the partial segments' rows (partial x k floats), then the chunks' sums
  // (chunks x k), in the context's run scratch (Context::run_scratch), not held by the plan.
  std::int64_t scratch_floats = 0, chunk_sum_floats = 0;

  LongRowSplit(const CsrView& s, int k, std::int64_t threshold_, std::int64_t segment_)
      : threshold(threshold_), segment(segment_) {
    if (s.rows == 0 || s.nnz <= threshold) return;
    const RatioSegments p = plan_ratio_segments(
        cuda_spmm::download_row_ptr(s), k, threshold, segment_, kChunk,
        std::max(kScratchFloor, s.rows * k * std::int64_t(sizeof(float))));
    segment = p.segment;
    partial = p.partial;
    if (p.seg_row.empty()) return;
    seg_row = DeviceBuffer<std::int64_t>(p.seg_row);
    seg_begin = DeviceBuffer<std::int64_t>(p.seg_begin);
    if (p.rows.empty()) return;
    rows = DeviceBuffer<std::int64_t>(p.rows);
    chunk_of = DeviceBuffer<std::int64_t>(p.chunk_of);
    chunk_first = DeviceBuffer<std::int64_t>(p.chunk_first);
    chunk_row = DeviceBuffer<std::int64_t>(p.chunk_row);
    row_first_chunk = DeviceBuffer<std::int64_t>(p.row_first_chunk);
    chunk_arrivals = DeviceBuffer<int>(std::vector<int>(p.chunk_row.size(), 0));
    row_arrivals = DeviceBuffer<int>(std::vector<int>(p.rows.size(), 0));
    scratch_floats = partial * k;
    chunk_sum_floats = static_cast<std::int64_t>(p.chunk_row.size()) * k;
    log_debug() << "fused ratio SpMM: " << seg_row.size() << " segments of up to " << segment
                << " nonzeros (" << partial << " of rows of several), run scratch "
                << mebibytes((scratch_floats + chunk_sum_floats) * std::int64_t(sizeof(float)))
                << " MiB (shared by the context's plans), lists "
                << mebibytes(seg_row.bytes() + seg_begin.bytes() + rows.bytes() + chunk_of.bytes() +
                             chunk_first.bytes() + chunk_row.bytes() + row_first_chunk.bytes())
                << " MiB";
  }
};

struct Operands {
  const float *vals, *scale;  // null: 1 (the product form unscaled; the residual's scale)
  const float *a, *b;
  float eps;
  float* c;
};

template <Edge E, int G, int NQ, int W>
void launch(const Context& ctx, const CsrView& s, int k, int parts, LongRowSplit& split,
            const Operands& op) {
  using Row = LaneRow<G, NQ, W>;
  const cudaStream_t stream = stream_of(ctx);
  const int rows_per_block = parts == kGroupRows ? kWarps * (kWarpSize / G) : kWarps / parts;
  float* scratch = split.scratch_floats + split.chunk_sum_floats > 0
                       ? ctx.run_scratch(Context::kKernelScratch, split.scratch_floats + split.chunk_sum_floats)
                       : nullptr;
  const Segments seg{split.seg_row.size(),
                     split.segment,
                     split.partial,
                     split.seg_row.data(),
                     split.seg_begin.data(),
                     split.chunk_of.data(),
                     split.chunk_first.data(),
                     split.chunk_row.data(),
                     split.row_first_chunk.data(),
                     split.rows.data(),
                     split.chunk_arrivals.data(),
                     split.row_arrivals.data(),
                     scratch,
                     scratch ? scratch + split.scratch_floats : nullptr,
                     static_cast<unsigned>(std::min<std::int64_t>(ceil_div(split.seg_row.size(), kWarps),
                                                                  cuda_spmm::kMaxBlocks / 2))};
  const std::int64_t row_blocks =
      std::min<std::int64_t>(ceil_div(s.rows, rows_per_block), cuda_spmm::kMaxBlocks / 2);
  const std::size_t shared = parts > 1 ? sizeof(float) * kWarps * Row::kCount * kWarpSize : 0;
  ratio_spmm_kernel<E, G, NQ, W><<<static_cast<unsigned>(seg.blocks + row_blocks), kThreads, shared, stream>>>(
      s.rows, k, parts, split.threshold, seg, s.row_ptr, s.col_idx, op.vals, op.scale, op.a, op.b, op.eps,
      op.c);
  FK_CUDA_CHECK_LAUNCH();
}

// Lanes per nonzero G (4-32) and slices per lane NQ for K: the smallest power of two of lanes
// that covers K's float4 groups (or floats), one slice each, up to 32 lanes; beyond, 32 lanes and
// NQ slices. In group mode 17-32 float4s (or floats) take 16 lanes of two slices, so that a warp
// holds two lane groups: on 44 cases of rows of mean 1.3-13 at K = 30 and 96-128 (LDA minibatch
// transposes, uniform, banded, power-law, hep-th, delaunay_n14) 0.71x the time of a warp a row in
// geometric mean (0.51-0.93x; H100, docs/benchmarks/ratio-spmm.md).
template <Edge E, int W>
void dispatch(const Context& ctx, const CsrView& s, int k, int parts, LongRowSplit& split,
              const Operands& op) {
  const int units = (k + W - 1) / W;
  auto go = [&](auto g, auto nq) {
    launch<E, decltype(g)::value, decltype(nq)::value, W>(ctx, s, k, parts, split, op);
  };
  using One = std::integral_constant<int, 1>;
  using L32 = std::integral_constant<int, 32>;
  if (units <= 4) return go(std::integral_constant<int, 4>{}, One{});
  if (units <= 8) return go(std::integral_constant<int, 8>{}, One{});
  if (units <= 16) return go(std::integral_constant<int, 16>{}, One{});
  if (units <= 32) {
    using L16 = std::integral_constant<int, 16>;
    if (parts == kGroupRows) return go(L16{}, std::integral_constant<int, 2>{});
    return go(L32{}, One{});
  }
  if (units <= 64) return go(L32{}, std::integral_constant<int, 2>{});
  if (units <= 128) return go(L32{}, std::integral_constant<int, 4>{});
  if constexpr (W == 4) {
    return go(L32{}, std::integral_constant<int, 8>{});
  } else {
    if (units <= 256) return go(L32{}, std::integral_constant<int, 8>{});
    if constexpr (W == 2) {
      return go(L32{}, std::integral_constant<int, 16>{});
    } else {
      if (units <= 512) return go(L32{}, std::integral_constant<int, 16>{});
      return go(L32{}, std::integral_constant<int, 32>{});
    }
  }
}

// Lanes per nonzero at width k as dispatch picks them for float4 rows (K % 4 == 0), float2 rows
// (K % 4 == 2) or float rows, with several lane groups a warp (kGroupRows: at most 16 lanes, up to
// kGroupMaxUnits units) or not; 0 where group mode does not apply.
constexpr int kGroupMaxUnits = 32;
int lanes(int k, bool group) {
  const int units = k % 4 == 0 ? k / 4 : k % 2 == 0 ? k / 2 : k;
  if (group) return units <= kGroupMaxUnits ? std::min(lanes(k, false), 16) : 0;
  return units <= 4 ? 4 : units <= 8 ? 8 : units <= 16 ? 16 : 32;
}

// The nonzeros a warp takes in one step: 2 x 32 / G.
std::int64_t step_nonzeros(int k, bool group) { return 2 * (kWarpSize / lanes(k, group)); }

// Warps per row (row_parts), or kGroupRows where several lane groups fit in a warp (K <= 128 in
// float4s, K <= 32 in floats) and a mean row is shorter than four of a warp's steps. In group mode
// a lane group walks at most kGroupMaxSteps steps of its row (fewer on small problems:
// chain_steps); longer rows go to the segments. On 36 cases of rows of mean 3-20 at K = 16-64
// (H100, docs/benchmarks/ratio-spmm.md) the fused kernel took up to 2.53x the unfused pair's time
// with a warp per row and 0.33-0.98x with these settings; one step's worth instead of four left
// cases at 1.2x, 8 or 32 steps instead of 16 lost on uniform rows of mean 15 or on hep-th.
constexpr int kGroupRowsFactor = 4;
constexpr std::int64_t kGroupMaxSteps = 16;
int row_mapping(double mean_row, int k) {
  const bool groups = lanes(k, true) > 0;
  if (groups && mean_row < double(kGroupRowsFactor * step_nonzeros(k, true))) return kGroupRows;
  return row_parts(mean_row);
}

// The longest chain of steps a warp walks (a part of a row, a segment) or a lane group walks (its
// row, two nonzeros a step): kMaxSteps (kGroupMaxSteps) where the steps fill the GPU's resident
// warps that many times over, fewer on smaller problems, whose time is the longest chain's latency
// (each step waits on B rows from L2), down to kMinSteps. With the chains fixed at 32 and 16
// steps, the fused kernel lost to the unfused pair on small problems at K <= 64 by up to 1.56x;
// with them shortened it took 0.90x its old time in geometric mean (0.47-1.11x) and beat the pair
// on all 180 cases of that comparison (0.66x in geometric mean, the slowest 0.99x), LDA
// minibatches at K >= 64 and larger matrices unchanged (H100, docs/benchmarks/ratio-spmm.md).
// Shortening only the warps' chains gained 0.93x.
constexpr std::int64_t kMinSteps = 4;
std::int64_t chain_steps(std::int64_t nnz, std::int64_t step, int sms) {
  const double warp_steps = double(nnz) / double(step);
  const double resident = double(sms) * 4 * kWarps;  // 4 blocks an SM (the launch bounds)
  std::int64_t steps = kMinSteps;
  while (steps < kMaxSteps && double(steps) * resident < warp_steps) steps *= 2;
  return steps;
}

// The longest row a warp (or, with kGroupRows, a lane group: two nonzeros a step) walks itself.
std::int64_t long_row_threshold(int parts, std::int64_t step, std::int64_t steps) {
  return parts == kGroupRows ? 2 * std::min(kGroupMaxSteps, steps) : parts * steps * step;
}

class FusedRatioSpmmPlan : public RatioSpmmPlan {
 public:
  FusedRatioSpmmPlan(const CsrView& s, int k, int sms)
      : s_(s), k_(k), parts_(row_mapping(s.rows > 0 ? double(s.nnz) / double(s.rows) : 0.0, k)),
        step_(step_nonzeros(k, parts_ == kGroupRows)), steps_(chain_steps(s.nnz, step_, sms)),
        split_(s, k, long_row_threshold(parts_, step_, steps_), steps_ * step_) {}

  void run(const Context& ctx, const float* vals, DenseView<const float> a,
           DenseView<const float> b, float eps, DenseView<float> c) override {
    go<Edge::kRatio>(ctx, spmm_values(kName, s_, vals), nullptr, a, b, eps, c);
  }
  void run_product(const Context& ctx, const float* scale, DenseView<const float> a,
                   DenseView<const float> b, DenseView<float> c) override {
    go<Edge::kProduct>(ctx, scale, nullptr, a, b, 0.0f, c);
  }
  void run_residual(const Context& ctx, const float* vals, const float* scale,
                    DenseView<const float> a, DenseView<const float> b,
                    DenseView<float> c) override {
    go<Edge::kResidual>(ctx, spmm_values(kName, s_, vals), scale, a, b, 0.0f, c);
  }

 private:
  static constexpr const char* kName = "cuda.ratio_spmm.fused";

  template <Edge E>
  void go(const Context& ctx, const float* vals, const float* scale, DenseView<const float> a,
          DenseView<const float> b, float eps, DenseView<float> c) {
    check_ratio_spmm_operands(kName, s_, k_, a, b, c);
    if (s_.rows == 0) return;
    // The widest rows K and the operands' alignment allow. The plan's mapping (lane groups, chain
    // length, segments) assumed the widest K allows; narrower rows keep it (correct, only slower;
    // RatioSpmmFusedGpu.MisalignedOperands).
    const auto aligned = [&](std::uintptr_t bytes) {
      return reinterpret_cast<std::uintptr_t>(a.data) % bytes == 0 &&
             reinterpret_cast<std::uintptr_t>(b.data) % bytes == 0 &&
             reinterpret_cast<std::uintptr_t>(c.data) % bytes == 0;
    };
    const Operands op{vals, scale, a.data, b.data, eps, c.data};
    if (k_ % 4 == 0 && aligned(16))
      dispatch<E, 4>(ctx, s_, k_, parts_, split_, op);
    else if (k_ % 2 == 0 && aligned(8))
      dispatch<E, 2>(ctx, s_, k_, parts_, split_, op);
    else
      dispatch<E, 1>(ctx, s_, k_, parts_, split_, op);
  }

  CsrView s_;
  int k_;
  int parts_;
  std::int64_t step_, steps_;  // a warp's nonzeros a step; the longest chain of steps
  LongRowSplit split_;
};

class FusedRatioSpmm : public RatioSpmmVariant {
 public:
  const char* name() const override { return "cuda.ratio_spmm.fused"; }
  const char* summary() const override {
    return "warps per row, A and C rows in registers, each B row loaded once for its dot product "
           "and its update (FusedMM)";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (p.k > kMaxK) return "K above 1024 (a lane holds at most 32 floats of each row)";
    return {};
  }
  std::unique_ptr<RatioSpmmPlan> prepare(const Context& ctx, const CsrView& s,
                                        int k) const override {
    return std::make_unique<FusedRatioSpmmPlan>(s, k, ctx.gpu().props.multiProcessorCount);
  }
};

}  // namespace

std::unique_ptr<RatioSpmmVariant> make_cuda_ratio_spmm_fused() {
  return std::make_unique<FusedRatioSpmm>();
}

}  // namespace fk
