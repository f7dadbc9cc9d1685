// cuda.spmm.row_csc: row split, sequential reduction, coalesced sparse-row caching (GE-SpMM's CRC
// with coarse-grained warp merging).
//
// A group of G lanes computes one K tile of one row of C. The group walks the row in chunks of G
// nonzeros: lane i loads (col, val) of the chunk's i-th nonzero once, coalesced, and the chunk is
// then broadcast lane to lane with shuffles while every lane accumulates its own T vectors of V
// columns (KMap in spmm_common.cuh). So each nonzero's (col, val) is read from memory once per K
// tile, and every B row is read as one contiguous G*V*T-float segment. Four nonzeros are in flight
// per step for memory-level parallelism. Rows longer than LongRows' threshold are skipped here and
// split across blocks (LongRows, which adds the blocks' partial rows in order), so a giant row does
// not serialize on one warp.
#include <memory>
#include <type_traits>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 128;
constexpr int kMaxGridY = 65535;

// kTilesInGrid: this block computes K tile blockIdx.y of its rows (few rows: the grid spreads the
// tiles); otherwise a group runs all of a row's tiles back to back. Two instantiations rather than
// a run-time choice: with the tile loop's bounds read from gridDim, nips's 12419 transposed rows
// (tiles not in the grid) ran 1.19x slower at K = 300-512 (H100); with two, 1.00x (H200,
// 2026-11-26, docs/benchmarks/checks/row-csc-tiles).
template <int G, int V, int T, bool kTilesInGrid, typename Vals>
__global__ void __launch_bounds__(kThreads)
    row_csc_kernel(std::int64_t rows, int k, int num_tiles, std::int64_t long_threshold,
                   const std::int64_t* __restrict__ row_ptr,
                   const std::int32_t* __restrict__ col_idx, Vals vals, const float* __restrict__ b,
                   float* __restrict__ c) {
  constexpr int kTile = G * V * T;
  constexpr int kGroupsPerBlock = kThreads / G;
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (G - 1);
  const unsigned mask = group_mask<G>(lane);
  const std::int64_t stride = std::int64_t(gridDim.x) * kGroupsPerBlock;
  for (std::int64_t row = std::int64_t(blockIdx.x) * kGroupsPerBlock + threadIdx.x / G; row < rows;
       row += stride) {
    const std::int64_t begin = row_ptr[row];
    const std::int64_t end = row_ptr[row + 1];
    if (end - begin > long_threshold) continue;  // LongRows computes it
    // K tiles of one row run back to back on the same group, so the row's (col, val) are re-read
    // from L2 rather than DRAM.
    const int tile_end = kTilesInGrid ? int(blockIdx.y) + 1 : num_tiles;
    for (int tile = kTilesInGrid ? int(blockIdx.y) : 0; tile < tile_end; ++tile) {
      const int kbase = tile * kTile + gl * V;  // vector t of this lane starts at kbase + t * G * V
      float acc[T][V];
#pragma unroll
      for (int t = 0; t < T; ++t)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[t][v] = 0.f;
      accumulate_row_chunk<G, V, T>(begin, end, k, kbase, mask, gl, col_idx, vals, b, acc);
      float* crow = c + row * k;
#pragma unroll
      for (int t = 0; t < T; ++t) {
        const int kk = kbase + t * G * V;
        if (kk < k) stcs_vec<V>(crow + kk, acc[t]);
      }
    }
  }
}

class RowCscPlan : public ValueReaderPlan<RowCscPlan> {
 public:
  RowCscPlan(const Context& ctx, const CsrView& s, int k)
      : ValueReaderPlan(s, k),
        resident_threads_(std::int64_t(ctx.gpu().props.multiProcessorCount) *
                          ctx.gpu().props.maxThreadsPerMultiProcessor),
        long_rows_(download_row_ptr(s)) {}

  static constexpr const char* kName = "cuda.spmm.row_csc";
  static constexpr int kPermutedFromK = kPermutedMinK;

  template <typename Vals>
  void launch(const Context& ctx, Vals vals, DenseView<const float> b, DenseView<float> c) {
    if (s_.rows == 0) return;
    const bool vec4 = vec4_ok(k_, b.data, c.data);
    dispatch_kmap(k_, vec4, [&](auto map) {
      using M = decltype(map);
      const int tiles = static_cast<int>(ceil_div(k_, M::kTile));
      // Rows too few to fill the GPU (their groups' threads fewer than it holds resident: 2048 per
      // SM on an H100/H200): one block per K tile (grid.y) instead of a group walking the row once
      // per tile.
      const bool tiles_in_grid =
          tiles > 1 && tiles <= kMaxGridY && s_.rows * M::G < resident_threads_;
      const dim3 grid(grid_for(s_.rows, kThreads / M::G), tiles_in_grid ? tiles : 1);
      auto run = [&](auto in_grid) {
        constexpr bool kInGrid = decltype(in_grid)::value;
        prefer_l1<row_csc_kernel<M::G, M::V, M::T, kInGrid, Vals>>();
        row_csc_kernel<M::G, M::V, M::T, kInGrid>
            <<<grid, kThreads, 0, stream_of(ctx)>>>(s_.rows, k_, tiles, long_rows_.threshold(),
                                                    s_.row_ptr, s_.col_idx, vals, b.data, c.data);
      };
      if (tiles_in_grid)
        run(std::true_type{});
      else
        run(std::false_type{});
      FK_CUDA_CHECK_LAUNCH();
    });
    long_rows_.run(ctx, s_.row_ptr, s_.col_idx, vals.vals, b.data, c.data, k_, perm_of(vals));
  }

 private:
  std::int64_t resident_threads_;  // SMs x resident threads per SM
  LongRows long_rows_;
};

class RowCscSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.row_csc"; }
  const char* summary() const override {
    return "row split, lanes along K, sparse row chunks cached in registers and shuffled (GE-SpMM "
           "CRC)";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<RowCscPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_row_csc() { return std::make_unique<RowCscSpmm>(); }

}  // namespace fk
