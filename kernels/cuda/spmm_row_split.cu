// cuda.spmm.row_split: rows split across the lane groups of a thread block, the partial rows
// summed in shared memory in a fixed order.
//
// row_csc gives each row to one group of lanes, so a matrix of few long rows (pruned layers of
// 256-1000 rows of 200-1200 nonzeros, nips's 1500 documents of 500 words) has few groups at work
// and each one walks a long row; cuSPARSE's finer split wins there from K = 32 on. Here a thread
// block of kThreads lanes is NG = kThreads / G groups of G lanes (KMap with one vector per lane, a
// K tile of up to 128 columns, one tile per blockIdx.y), and each row gets S of them (S a power of
// two from the mean row length and the GPU's size: split_for): the S groups
// take consecutive chunks of the row (accumulate_row_chunk, as row_csc), write their partial rows
// to shared memory, and after one barrier the block adds each row's S partials in group order and
// stores the row. No atomics, so results do not depend on scheduling. A block serves NG / S rows.
// Rows longer than LongRows' threshold go to the block-split path, as in row_csc.
#include <algorithm>
#include <memory>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 256;
constexpr double kNonzerosPerGroup = 32.0;
constexpr int kSharedPercent = 16;

template <int G, int V, typename Vals>
__global__ void __launch_bounds__(kThreads)
    row_split_kernel(std::int64_t rows, int k, int split, std::int64_t long_threshold,
                     const std::int64_t* __restrict__ row_ptr,
                     const std::int32_t* __restrict__ col_idx, Vals vals,
                     const float* __restrict__ b, float* __restrict__ c) {
  constexpr int kTile = G * V;
  constexpr int kGroups = kThreads / G;
  __shared__ float partial[kGroups][kTile];
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (G - 1);
  const int group = threadIdx.x / G;
  const unsigned mask = group_mask<G>(lane);
  const int rows_per_block = kGroups / split;
  const int slot = group / split,
            part = group % split;  // this group's row in the block, chunk in the row
  const int tile0 = blockIdx.y * kTile;
  const int kbase = tile0 + gl * V;
  const std::int64_t row_blocks = (rows + rows_per_block - 1) / rows_per_block;
  for (std::int64_t rb = blockIdx.x; rb < row_blocks; rb += gridDim.x) {
    const std::int64_t row = rb * rows_per_block + slot;
    float acc[1][V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[0][v] = 0.f;
    if (row < rows) {
      const std::int64_t begin = row_ptr[row], end = row_ptr[row + 1];
      if (end - begin <= long_threshold) {
        const std::int64_t chunk = (end - begin + split - 1) / split;
        const std::int64_t b0 = begin + part * chunk;
        const std::int64_t b1 = b0 + chunk < end ? b0 + chunk : end;
        if (b0 < b1)
          accumulate_row_chunk<G, V, 1>(b0, b1, k, kbase, mask, gl, col_idx, vals, b, acc);
      }
    }
#pragma unroll
    for (int v = 0; v < V; ++v) partial[group][gl * V + v] = acc[0][v];
    __syncthreads();
    // Each output element of the block's rows: its S partials added in chunk order.
    for (int i = threadIdx.x; i < rows_per_block * kTile; i += kThreads) {
      const int q = i / kTile, col = i - q * kTile;
      const std::int64_t r = rb * rows_per_block + q;
      if (r >= rows || tile0 + col >= k) continue;
      const std::int64_t len = row_ptr[r + 1] - row_ptr[r];
      if (len > long_threshold) continue;  // LongRows writes it
      float sum = 0.f;
      for (int s = 0; s < split; ++s) sum += partial[q * split + s][col];
      __stcs(c + r * k + tile0 + col, sum);
    }
    __syncthreads();  // the next rows overwrite the partials
  }
}

// Groups per row, a power of two up to the block's `groups`. At least as many as give a group
// about kNonzerosPerGroup nonzeros (the first rule, fitted on the DLMC layers); beyond that, more
// while each group keeps kMinNonzerosPerGroup and all rows' groups (times K's tiles) still fit in
// kFillThreadsPerSm threads per SM. On few long rows the first rule left 16-65K threads walking
// 30-60 nonzeros each, step after dependent step; filling the GPU made row_split 1.46x faster
// in geometric mean over 345 problems (69 matrices, K = 32-512; H100, 2026-11-25,
// docs/benchmarks/checks/row-split-fill), never slower than the first rule, within 10% of the best
// of four settings on all but 6. Past about one such wave more groups cost more in partial sums
// than they save (0.6-0.85x at 4-8x the threads).
constexpr double kMinNonzerosPerGroup = 4.0;
constexpr std::int64_t kFillThreadsPerSm = 1024;
int split_for(double mean, std::int64_t rows, int g, int groups, int tiles, int sms) {
  int split = 1;
  while (split < groups && double(2 * split) * kNonzerosPerGroup <= mean) split *= 2;
  while (split < groups && double(2 * split) * kMinNonzerosPerGroup <= mean &&
         rows * 2 * split * g * tiles <= std::int64_t(sms) * kFillThreadsPerSm)
    split *= 2;
  return split;
}

class RowSplitPlan : public ValueReaderPlan<RowSplitPlan> {
 public:
  RowSplitPlan(const Context& ctx, const CsrView& s, int k)
      : ValueReaderPlan(s, k),
        sms_(ctx.gpu().props.multiProcessorCount),
        long_rows_(download_row_ptr(s)) {
    mean_ = s.rows > 0 ? double(s.nnz) / double(s.rows) : 0.0;
  }

  static constexpr const char* kName = "cuda.spmm.row_split";
  static constexpr int kPermutedFromK = kPermutedMinK;

  template <typename Vals>
  void launch(const Context& ctx, Vals vals, DenseView<const float> b, DenseView<float> c) {
    if (s_.rows == 0 || k_ == 0) return;
    dispatch_kmap</*kOneVector=*/true>(k_, vec4_ok(k_, b.data, c.data), [&](auto map) {
      using M = decltype(map);
      constexpr int groups = kThreads / M::G;
      const int tiles = static_cast<int>(ceil_div(k_, M::kTile));
      const int split = split_for(mean_, s_.rows, M::G, groups, tiles, sms_);
      const int rows_per_block = groups / split;
      const dim3 grid(grid_for(s_.rows, rows_per_block),
                      static_cast<unsigned>(ceil_div(k_, M::kTile)));
      // 8 blocks of 4 KiB per SM: 32 KiB of shared memory, about 14% of the H100/H200's 228 KiB.
      prefer_l1<row_split_kernel<M::G, M::V, Vals>, kSharedPercent>();
      row_split_kernel<M::G, M::V><<<grid, kThreads, 0, stream_of(ctx)>>>(
          s_.rows, k_, split, long_rows_.threshold(), s_.row_ptr, s_.col_idx, vals, b.data, c.data);
      FK_CUDA_CHECK_LAUNCH();
    });
    long_rows_.run(ctx, s_.row_ptr, s_.col_idx, vals.vals, b.data, c.data, k_, perm_of(vals));
  }

 private:
  int sms_;
  double mean_ = 0;
  LongRows long_rows_;
};

class RowSplitSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.row_split"; }
  const char* summary() const override {
    return "rows split across the lane groups of a block (lanes along K), partial rows summed in "
           "shared "
           "memory in a fixed order; for few long rows";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    // Tiles of 32 columns when float4 does not apply: grid.y stays within its 65535.
    if (std::int64_t(p.k) > std::int64_t(65535) * 32)
      return "K above 65535 tiles of 32 columns (the grid's y limit)";
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<RowSplitPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_row_split() { return std::make_unique<RowSplitSpmm>(); }

}  // namespace fk
