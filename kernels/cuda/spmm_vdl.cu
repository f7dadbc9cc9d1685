// cuda.spmm.vdl: row split, parallel reduction, vector-type dense-row loading, for small K.
//
// K <= 16: a B row is at most 64 bytes, so putting lanes along K (row_csc) leaves most of a warp
// idle. Here a group of g lanes (g a power of two chosen from the mean row length, widened on
// small grids: fill_lanes) shares one row: lane i takes nonzeros i, i + g, ..., loads each whole
// B row with float4/float2 loads (K/4 or K/2 instructions) and keeps K partial sums; a butterfly
// of warp shuffles then adds the g partial rows, and the lanes write C's row as vectors. K is a
// template constant so the partial sums stay in registers.
//
// 16 < K <= 64: one row per warp. The warp is R = 32 / G sub-groups of G lanes, each sub-group
// covering K (G lanes x float4, or 32 lanes x 1-2 floats when float4 does not apply); sub-group s
// takes nonzeros s, s + R, ... of the row, and two or one shuffle stages add the R partial rows at
// the end. row_csc instead puts 32 / G rows in a warp, which then runs as long as its longest
// row: on long, uneven rows that idles a quarter or more of the lanes (nytimes S·B at K = 32:
// 0.89 against 1.54 ms on an H200). The next 32 nonzeros' indices are loaded while the current
// ones' B rows are; docs/benchmarks/spmm-design.md has the measurements behind the two shapes.
//
// K <= 4 on fewer than 4096 rows of mean >= 64 (DNN layers, nips): a team of 32-256 lanes per row
// with eight nonzeros per lane in flight (the team kernel below), since one warp per row leaves
// such a matrix a few hundred warps that each walk a long row step after dependent step.
//
// Rows longer than LongRows' threshold go to the block-split path.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 128;
constexpr int kMaxK = 64;        // the variant
constexpr int kMaxNarrowK = 16;  // whole B rows per lane

template <int K, int V, typename Vals>
__global__ void __launch_bounds__(kThreads)
    vdl_kernel(std::int64_t rows, int g, std::int64_t long_threshold,
               const std::int64_t* __restrict__ row_ptr, const std::int32_t* __restrict__ col_idx,
               Vals vals, const float* __restrict__ b, float* __restrict__ c) {
  static_assert(K >= 1 && K <= kMaxNarrowK && K % V == 0,
                "K must be a multiple of the vector width");
  constexpr int kVecs = K / V;  // vectors per B row
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (g - 1);
  const unsigned mask = group_mask_rt(g, lane);
  const int groups_per_block = kThreads / g;
  const std::int64_t stride = std::int64_t(gridDim.x) * groups_per_block;
  for (std::int64_t row = std::int64_t(blockIdx.x) * groups_per_block + threadIdx.x / g; row < rows;
       row += stride) {
    const std::int64_t begin = row_ptr[row];
    const std::int64_t end = row_ptr[row + 1];
    if (end - begin > long_threshold) continue;  // LongRows computes it
    float acc[K];
#pragma unroll
    for (int i = 0; i < K; ++i) acc[i] = 0.f;
    std::int64_t j = begin + gl;
    // Two nonzeros per lane per step: both B rows are requested before the first FMA.
    for (; j + g < end; j += 2 * g) {
      const float a0 = vals(j);
      const float a1 = vals(j + g);
      const float* b0 = b + std::int64_t(ld_sparse(col_idx + j)) * K;
      const float* b1 = b + std::int64_t(ld_sparse(col_idx + j + g)) * K;
      float x0[kVecs][V], x1[kVecs][V];
#pragma unroll
      for (int i = 0; i < kVecs; ++i) {
        ldg_vec<V>(b0 + i * V, x0[i]);
        ldg_vec<V>(b1 + i * V, x1[i]);
      }
#pragma unroll
      for (int i = 0; i < kVecs; ++i)
#pragma unroll
        for (int v = 0; v < V; ++v)
          acc[i * V + v] = fmaf(a1, x1[i][v], fmaf(a0, x0[i][v], acc[i * V + v]));
    }
    if (j < end) {
      const float a0 = vals(j);
      const float* b0 = b + std::int64_t(ld_sparse(col_idx + j)) * K;
#pragma unroll
      for (int i = 0; i < kVecs; ++i) {
        float x[V];
        ldg_vec<V>(b0 + i * V, x);
#pragma unroll
        for (int v = 0; v < V; ++v) acc[i * V + v] = fmaf(a0, x[v], acc[i * V + v]);
      }
    }
    // Butterfly over the group (xor offsets below g never leave an aligned group).
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      if (o < g) {
#pragma unroll
        for (int i = 0; i < K; ++i) acc[i] += __shfl_xor_sync(mask, acc[i], o);
      }
    }
    // Every lane now holds the whole row; lane i % g writes vector i.
    float* crow = c + row * K;
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      if ((i & (g - 1)) == gl) {
        float x[V];
#pragma unroll
        for (int v = 0; v < V; ++v) x[v] = acc[i * V + v];
        stcs_vec<V>(crow + i * V, x);
      }
    }
  }
}

// 16 < K <= 64 (see the top of the file). Lane gl of a sub-group holds columns (t G + gl) V ..
// + V - 1 for t < T. Each iteration covers C chunks of 32 nonzeros, whose (column, value) pairs
// were loaded during the previous iteration, one pair per lane; U B rows per sub-group are loaded
// before their FMAs. kMinBlocks caps the registers (blocks per SM) for the configuration that
// must fill the GPU with warps.
template <int G, int V, int T, int C, int U, int kMinBlocks, typename Vals>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    vdl_wide_kernel(std::int64_t rows, int k, std::int64_t long_threshold,
                    const std::int64_t* __restrict__ row_ptr,
                    const std::int32_t* __restrict__ col_idx, Vals vals,
                    const float* __restrict__ b, float* __restrict__ c) {
  constexpr int R = kWarpSize / G;      // sub-groups per warp
  constexpr int kSpan = C * kWarpSize;  // nonzeros per iteration
  constexpr int kSteps = kSpan / R;     // of which each sub-group takes
  static_assert(kSteps % U == 0, "U must divide a sub-group's nonzeros per iteration");
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (G - 1);
  const int sub = lane / G;
  const std::int64_t warps = std::int64_t(gridDim.x) * (kThreads / kWarpSize);
  for (std::int64_t row = (std::int64_t(blockIdx.x) * kThreads + threadIdx.x) / kWarpSize;
       row < rows; row += warps) {
    const std::int64_t begin = row_ptr[row];
    const std::int64_t end = row_ptr[row + 1];
    if (end - begin > long_threshold) continue;  // LongRows computes it
    float acc[T][V];
#pragma unroll
    for (int t = 0; t < T; ++t)
#pragma unroll
      for (int v = 0; v < V; ++v) acc[t][v] = 0.f;
    int next_col[C];
    float next_val[C];
#pragma unroll
    for (int h = 0; h < C; ++h) {
      const std::int64_t j = begin + h * kWarpSize + lane;
      next_col[h] = j < end ? ld_sparse(col_idx + j) : 0;
      next_val[h] = j < end ? vals(j) : 0.f;
    }
    for (std::int64_t j0 = begin; j0 < end; j0 += kSpan) {
      int my_col[C];
      float my_val[C];
#pragma unroll
      for (int h = 0; h < C; ++h) {
        my_col[h] = next_col[h];
        my_val[h] = next_val[h];
        const std::int64_t j = j0 + kSpan + h * kWarpSize + lane;
        if (j < end) {
          next_col[h] = ld_sparse(col_idx + j);
          next_val[h] = vals(j);
        }
      }
      const int n = static_cast<int>(end - j0 < kSpan ? end - j0 : kSpan);
#pragma unroll
      for (int u0 = 0; u0 < kSteps; u0 += U) {
        float a[U];
        float x[U][T][V];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          // Nonzero j0 + q; its pair sits in chunk q / 32 (the same for the whole warp: sub < R
          // and R divides 32) at lane q % 32.
          const int q = (u0 + u) * R + sub;
          const int col = __shfl_sync(kFullMask, my_col[(u0 + u) * R / kWarpSize], q % kWarpSize);
          a[u] = __shfl_sync(kFullMask, my_val[(u0 + u) * R / kWarpSize], q % kWarpSize);
          const float* brow = b + std::int64_t(col) * k;
#pragma unroll
          for (int t = 0; t < T; ++t) {
            const int kk = (t * G + gl) * V;
            if (q < n && kk < k) {
              ldg_vec<V>(brow + kk, x[u][t]);
            } else {
#pragma unroll
              for (int v = 0; v < V; ++v) x[u][t][v] = 0.f;
            }
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int t = 0; t < T; ++t)
#pragma unroll
            for (int v = 0; v < V; ++v) acc[t][v] = fmaf(a[u], x[u][t][v], acc[t][v]);
      }
    }
#pragma unroll
    for (int h = G; h < kWarpSize; h *= 2)
#pragma unroll
      for (int t = 0; t < T; ++t)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[t][v] += __shfl_xor_sync(kFullMask, acc[t][v], h);
    if (sub == 0) {
      float* crow = c + row * k;
#pragma unroll
      for (int t = 0; t < T; ++t) {
        const int kk = (t * G + gl) * V;
        if (kk < k) stcs_vec<V>(crow + kk, acc[t]);
      }
    }
  }
}

// Few long rows (fewer warps than the GPU holds, each with a long list): two chunks and 16 B rows
// per sub-group in flight (nips, DLMC layers at K = 32: 1.25-1.43x over cuSPARSE against
// 1.0-1.1x with one chunk, H200). Otherwise one chunk and 8 rows in flight at <= 64 registers so
// that 8 blocks fit an SM (nytimes 0.89 ms against 1.25 ms unbounded, 80-90 registers).
constexpr std::int64_t kFewRows = 4096;
constexpr double kLongRowMean = 64.0;

template <int G, int V, int T, typename Vals>
void launch_vdl_wide(const Context& ctx, bool few_long, std::int64_t rows, int k,
                     std::int64_t long_threshold, const std::int64_t* row_ptr,
                     const std::int32_t* col_idx, Vals vals, const float* b, float* c) {
  const unsigned grid = grid_for(rows, kThreads / kWarpSize);
  if (few_long) {
    prefer_l1<vdl_wide_kernel<G, V, T, 2, 16, 1, Vals>>();
    vdl_wide_kernel<G, V, T, 2, 16, 1><<<grid, kThreads, 0, stream_of(ctx)>>>(
        rows, k, long_threshold, row_ptr, col_idx, vals, b, c);
  } else {
    prefer_l1<vdl_wide_kernel<G, V, T, 1, 8, 8, Vals>>();
    vdl_wide_kernel<G, V, T, 1, 8, 8><<<grid, kThreads, 0, stream_of(ctx)>>>(
        rows, k, long_threshold, row_ptr, col_idx, vals, b, c);
  }
  FK_CUDA_CHECK_LAUNCH();
}

// Few long rows at K <= 4 (at most kFewRows rows of mean >= kLongRowMean: DNN layers, nips). A
// group of g <= 32 lanes per row walks a row of hundreds of nonzeros in many dependent steps
// (DLMC rows of 1152 at K = 1: 16 µs against cuSPARSE's 8 on an H200), while the GPU has room
// for far more threads than such a matrix has rows. Here a team of T lanes (32..256, one or more
// whole warps) shares a row: lane t takes nonzeros t, t + T, ... kTeamLoads at a time, every
// (column, value) pair of a step and then every B row requested before the first FMA, so a row
// of up to kTeamLoads x T nonzeros costs two round trips to memory. Warp shuffles add a warp's
// partial rows, and shared memory adds the team's warps in a fixed order.
constexpr int kMaxTeamK = 4;
constexpr int kTeamBlock = 256;
constexpr int kTeamLoads = 8;

template <int K, int V, int T, typename Vals>
__global__ void __launch_bounds__(kTeamBlock)
    vdl_team_kernel(std::int64_t rows, std::int64_t long_threshold,
                    const std::int64_t* __restrict__ row_ptr,
                    const std::int32_t* __restrict__ col_idx, Vals vals,
                    const float* __restrict__ b, float* __restrict__ c) {
  static_assert(T % kWarpSize == 0 && kTeamBlock % T == 0 && K % V == 0, "team shape");
  constexpr int kRowsPerBlock = kTeamBlock / T;
  constexpr int kWarpsPerTeam = T / kWarpSize;
  constexpr int kVecs = K / V;
  __shared__ float partial[kTeamBlock / kWarpSize][K];
  const int t = threadIdx.x % T;
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int warp = threadIdx.x / kWarpSize;
  // Every thread takes the same number of trips (the barriers below).
  for (std::int64_t first = std::int64_t(blockIdx.x) * kRowsPerBlock; first < rows;
       first += std::int64_t(gridDim.x) * kRowsPerBlock) {
    const std::int64_t row = first + threadIdx.x / T;
    std::int64_t begin = 0, end = 0;
    if (row < rows) {
      begin = row_ptr[row];
      end = row_ptr[row + 1];
      if (end - begin > long_threshold) end = begin;  // LongRows computes it
    }
    float acc[K];
#pragma unroll
    for (int i = 0; i < K; ++i) acc[i] = 0.f;
    for (std::int64_t j = begin + t; j < end; j += std::int64_t(kTeamLoads) * T) {
      std::int32_t col[kTeamLoads];
      float a[kTeamLoads];
#pragma unroll
      for (int u = 0; u < kTeamLoads; ++u) {
        const std::int64_t jj = j + std::int64_t(u) * T;
        col[u] = jj < end ? ld_sparse(col_idx + jj) : 0;
        a[u] = jj < end ? vals(jj) : 0.f;
      }
      float x[kTeamLoads][kVecs][V];
#pragma unroll
      for (int u = 0; u < kTeamLoads; ++u)
#pragma unroll
        for (int i = 0; i < kVecs; ++i) {
          if (j + std::int64_t(u) * T < end) {
            ldg_vec<V>(b + std::int64_t(col[u]) * K + i * V, x[u][i]);
          } else {
#pragma unroll
            for (int v = 0; v < V; ++v) x[u][i][v] = 0.f;
          }
        }
#pragma unroll
      for (int u = 0; u < kTeamLoads; ++u)
#pragma unroll
        for (int i = 0; i < kVecs; ++i)
#pragma unroll
          for (int v = 0; v < V; ++v) acc[i * V + v] = fmaf(a[u], x[u][i][v], acc[i * V + v]);
    }
#pragma unroll
    for (int o = kWarpSize / 2; o > 0; o /= 2)
#pragma unroll
      for (int i = 0; i < K; ++i) acc[i] += __shfl_xor_sync(kFullMask, acc[i], o);
    if constexpr (kWarpsPerTeam == 1) {
      if (row < rows && lane == 0) {
        float* out = c + row * K;
#pragma unroll
        for (int i = 0; i < kVecs; ++i) {
          float y[V];
#pragma unroll
          for (int v = 0; v < V; ++v) y[v] = acc[i * V + v];
          stcs_vec<V>(out + i * V, y);
        }
      }
    } else {
      if (lane == 0) {
#pragma unroll
        for (int i = 0; i < K; ++i) partial[warp][i] = acc[i];
      }
      __syncthreads();
      if (row < rows && t < K) {  // the team's first lanes: one column of C each
        float sum = 0.f;
        const int w0 = warp - t / kWarpSize;  // the team's first warp (t < K <= 4 is in it)
#pragma unroll
        for (int w = 0; w < kWarpsPerTeam; ++w) sum += partial[w0 + w][t];
        c[row * K + t] = sum;
      }
      __syncthreads();
    }
  }
}

// Lanes per row for the team kernel: a power of two near mean / kTeamLoads, in [32, 256], but
// no more than keeps every row's team resident at once (64 registers: 4 blocks, 1024 threads per
// SM). Measured on an H100: 3000 rows of 1000 at K = 1 ran 0.75x the warp-per-row kernel with
// 128 lanes per row (three waves of teams).
constexpr std::int64_t kTeamThreadsPerSm = 1024;
int team_lanes(double mean, std::int64_t rows, int sms) {
  int lanes = kWarpSize;
  while (lanes < kTeamBlock && lanes * kTeamLoads < mean &&
         rows * 2 * lanes <= std::int64_t(sms) * kTeamThreadsPerSm)
    lanes *= 2;
  return lanes;
}

// The team kernel keeps K floats per warp in shared memory: a small carveout, still room for a
// full SM of its blocks (with the smallest one the driver sizes shared memory for one block).
constexpr int kTeamSharedPercent = 8;

template <int K, int V, int T, typename Vals>
void launch_vdl_team_t(const Context& ctx, std::int64_t rows, std::int64_t long_threshold,
                       const std::int64_t* row_ptr, const std::int32_t* col_idx, Vals vals,
                       const float* b, float* c) {
  prefer_l1<vdl_team_kernel<K, V, T, Vals>, kTeamSharedPercent>();
  vdl_team_kernel<K, V, T><<<grid_for(rows, kTeamBlock / T), kTeamBlock, 0, stream_of(ctx)>>>(
      rows, long_threshold, row_ptr, col_idx, vals, b, c);
  FK_CUDA_CHECK_LAUNCH();
}

template <int K, int V, typename Vals>
void launch_vdl_team(const Context& ctx, int lanes, std::int64_t rows, std::int64_t long_threshold,
                     const std::int64_t* row_ptr, const std::int32_t* col_idx, Vals vals,
                     const float* b, float* c) {
  switch (lanes) {
    case 32:
      return launch_vdl_team_t<K, V, 32>(ctx, rows, long_threshold, row_ptr, col_idx, vals, b, c);
    case 64:
      return launch_vdl_team_t<K, V, 64>(ctx, rows, long_threshold, row_ptr, col_idx, vals, b, c);
    case 128:
      return launch_vdl_team_t<K, V, 128>(ctx, rows, long_threshold, row_ptr, col_idx, vals, b, c);
    default:
      return launch_vdl_team_t<K, V, 256>(ctx, rows, long_threshold, row_ptr, col_idx, vals, b, c);
  }
}

template <int K, typename Vals>
void launch_vdl(const Context& ctx, int vec, int team, std::int64_t rows, int g,
                std::int64_t long_threshold, const std::int64_t* row_ptr,
                const std::int32_t* col_idx, Vals vals, const float* b, float* c) {
  if constexpr (K <= kMaxTeamK) {
    if (team > 0) {
      if constexpr (K % 4 == 0) {
        if (vec == 4)
          return launch_vdl_team<K, 4>(ctx, team, rows, long_threshold, row_ptr, col_idx, vals, b,
                                       c);
      }
      if constexpr (K % 2 == 0) {
        if (vec >= 2)
          return launch_vdl_team<K, 2>(ctx, team, rows, long_threshold, row_ptr, col_idx, vals, b,
                                       c);
      }
      return launch_vdl_team<K, 1>(ctx, team, rows, long_threshold, row_ptr, col_idx, vals, b, c);
    }
  }
  const unsigned grid = grid_for(rows, kThreads / g);
  cudaStream_t stream = stream_of(ctx);
  if constexpr (K % 4 == 0) {
    if (vec == 4) {
      prefer_l1<vdl_kernel<K, 4, Vals>>();
      vdl_kernel<K, 4>
          <<<grid, kThreads, 0, stream>>>(rows, g, long_threshold, row_ptr, col_idx, vals, b, c);
      FK_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  if constexpr (K % 2 == 0) {
    if (vec >= 2) {
      prefer_l1<vdl_kernel<K, 2, Vals>>();
      vdl_kernel<K, 2>
          <<<grid, kThreads, 0, stream>>>(rows, g, long_threshold, row_ptr, col_idx, vals, b, c);
      FK_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  prefer_l1<vdl_kernel<K, 1, Vals>>();
  vdl_kernel<K, 1>
      <<<grid, kThreads, 0, stream>>>(rows, g, long_threshold, row_ptr, col_idx, vals, b, c);
  FK_CUDA_CHECK_LAUNCH();
}

template <typename Vals, int... Ks>
void dispatch_vdl(int k, std::integer_sequence<int, Ks...>, const Context& ctx, int vec, int team,
                  std::int64_t rows, int g, std::int64_t long_threshold,
                  const std::int64_t* row_ptr, const std::int32_t* col_idx, Vals vals,
                  const float* b, float* c) {
  bool done = false;
  ((k == Ks + 1 && !done ? (launch_vdl<Ks + 1>(ctx, vec, team, rows, g, long_threshold, row_ptr,
                                               col_idx, vals, b, c),
                            done = true)
                         : false),
   ...);
  FK_CHECK(done, "cuda.spmm.vdl: no kernel for K = " << k);
}

// Lanes per row: about half the mean row length (so each lane takes >= 2 nonzeros), a power of
// two in [1, 32].
int lanes_for(const std::vector<std::int64_t>& row_ptr) {
  const std::int64_t rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  if (rows <= 0) return 1;
  const double mean = double(row_ptr.back() - row_ptr.front()) / double(rows);
  int g = 1;
  while (g < 32 && 2.0 * g * 2.0 <= mean) g *= 2;
  return g;
}

// A small matrix of short rows at one group per row leaves most of the GPU idle (hep-th: 8361 rows
// of 3.8 at g = 1 are 66 blocks of 128 threads), and such runs wait on each group's chain of
// dependent loads. So groups are widened, up to the next power of two of the mean row length,
// until the grid has kFillBlocksPerSm blocks per SM. Measured on an H200 (2026-11-26,
// docs/benchmarks/checks/vdl-fill-h200) over 12 small and medium matrices, S·B and Sᵀ·B, K = 1
// and 4: 1.15x the narrower groups in geometric mean (up to 1.82x on hep-th; slowest 0.985x);
// 2 blocks per SM gave 1.08x.
constexpr std::int64_t kFillBlocksPerSm = 8;
int fill_lanes(int g, double mean, std::int64_t rows, int sms) {
  const std::int64_t cap =
      std::min<std::int64_t>(32, pow2_ceil(static_cast<std::int64_t>(std::ceil(mean))));
  while (g < cap && ceil_div(rows, kThreads / g) < kFillBlocksPerSm * sms) g *= 2;
  return g;
}

class VdlPlan : public ValueReaderPlan<VdlPlan> {
 public:
  VdlPlan(const Context& ctx, const CsrView& s, int k) : ValueReaderPlan(s, k) {
    const std::vector<std::int64_t> row_ptr = download_row_ptr(s);
    long_rows_ = LongRows(row_ptr);
    const double mean =
        s.rows > 0 ? double(row_ptr.back() - row_ptr.front()) / double(s.rows) : 0.0;
    few_long_ = s.rows < kFewRows && mean >= kLongRowMean;
    const int sms = ctx.gpu().props.multiProcessorCount;
    g_ = fill_lanes(lanes_for(row_ptr), mean, s.rows, sms);
    team_ = few_long_ && k <= kMaxTeamK ? team_lanes(mean, s.rows, sms) : 0;
  }

  static constexpr const char* kName = "cuda.spmm.vdl";
  static constexpr int kPermutedFromK = 1;

  template <typename Vals>
  void launch(const Context& ctx, Vals vals, DenseView<const float> b, DenseView<float> c) {
    if (s_.rows == 0) return;
    const auto addr_b = reinterpret_cast<std::uintptr_t>(b.data);
    const auto addr_c = reinterpret_cast<std::uintptr_t>(c.data);
    const int vec = ((addr_b | addr_c) % 16 == 0) ? 4 : ((addr_b | addr_c) % 8 == 0) ? 2 : 1;
    if (k_ <= kMaxNarrowK) {
      dispatch_vdl(k_, std::make_integer_sequence<int, kMaxNarrowK>{}, ctx, vec, team_, s_.rows, g_,
                   long_rows_.threshold(), s_.row_ptr, s_.col_idx, vals, b.data, c.data);
    } else {
      const bool vec4 = vec == 4 && k_ % 4 == 0;
      const std::int64_t threshold = long_rows_.threshold();
      if (vec4 && k_ <= 32) {
        launch_vdl_wide<8, 4, 1>(ctx, few_long_, s_.rows, k_, threshold, s_.row_ptr, s_.col_idx,
                                 vals, b.data, c.data);
      } else if (vec4) {
        launch_vdl_wide<16, 4, 1>(ctx, few_long_, s_.rows, k_, threshold, s_.row_ptr, s_.col_idx,
                                  vals, b.data, c.data);
      } else if (k_ <= 32) {
        launch_vdl_wide<32, 1, 1>(ctx, few_long_, s_.rows, k_, threshold, s_.row_ptr, s_.col_idx,
                                  vals, b.data, c.data);
      } else {
        launch_vdl_wide<32, 1, 2>(ctx, few_long_, s_.rows, k_, threshold, s_.row_ptr, s_.col_idx,
                                  vals, b.data, c.data);
      }
    }
    long_rows_.run(ctx, s_.row_ptr, s_.col_idx, vals.vals, b.data, c.data, k_, perm_of(vals));
  }

 private:
  int g_ = 1;
  bool few_long_ = false;  // few rows, long on average: the deeper-pipelined wide kernel
  int team_ = 0;           // K <= 4 on few long rows: lanes per row of the team kernel
  LongRows long_rows_;
};

class VdlSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.vdl"; }
  const char* summary() const override {
    return "small K (<= 64): lanes or lane groups split each row's nonzeros, vector B-row loads, "
           "shuffle reduction";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (p.k > kMaxK)
      return "vdl splits a row's nonzeros over lanes holding whole B rows and is built for K <= " +
             std::to_string(kMaxK) + ", got K = " + std::to_string(p.k);
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    FK_CHECK(k >= 1 && k <= kMaxK, "cuda.spmm.vdl: K = " << k << " outside [1, " << kMaxK << "]");
    return std::make_unique<VdlPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_vdl() { return std::make_unique<VdlSpmm>(); }

}  // namespace fk
