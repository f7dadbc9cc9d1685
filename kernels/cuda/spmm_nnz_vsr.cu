// cuda.spmm.nnz_vsr: nonzero split (every warp gets the same number of nonzeros, whatever the row
// lengths) with vectorized segment reduction.
//
// A warp takes a chunk of consecutive nonzeros (up to kChunk; chunk_for) and one K tile. Its 32
// lanes are R = 32 / G nonzero slots of G lanes; the G lanes of a slot own V-float vectors along K
// (KMap). The warp loads 32 (row, col, val) triples at a time, coalesced, and walks them R at a
// time: every slot forms val * B[col, tile] for its nonzero, a segmented inclusive scan across the
// slots (shuffles keyed by row, which is sorted) sums the products of equal rows, the sum at the
// end of each row's segment is written, and the last slot's sum is carried into the next step when
// the row goes on. Large K gives R = 1 (a sequential reduction along the chunk), small K gives up
// to 32 slots and a full 5-step scan. Rows that cross a chunk boundary are finished with atomicAdd;
// run() first zeroes exactly those rows and the empty ones (never written by any warp), or all of C
// when that list is more than half the rows (one memset is then cheaper than a scattered kernel).
#include <memory>
#include <string>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 128;
constexpr std::int64_t kChunk = 512;  // nonzeros per warp item, at most
static_assert(kChunk % kWarpSize == 0, "a chunk is loaded 32 nonzeros at a time");
// A warp walks its chunk step after dependent step, so a run takes at least one chunk's time
// (about 70 us at K = 32 for 512 nonzeros on an H100, whatever the matrix: hep-th's 31K nonzeros
// took as long as 1.6M). Below kFillWarpsPerSm warps' worth of full chunks the chunks shrink
// (powers of two, down to one load of 32) until the warps fill the GPU: more rows then cross a
// chunk boundary and are finished with atomics, a cost the short runs can afford.
constexpr std::int64_t kFillWarpsPerSm = 64;
std::int64_t chunk_for(std::int64_t nnz, int sms) {
  std::int64_t chunk = kChunk;
  while (chunk > kWarpSize && ceil_div(nnz, chunk) < kFillWarpsPerSm * sms) chunk /= 2;
  return chunk;
}

// row_of[j] = row of nonzero j (a warp per row, lanes striding over it).
__global__ void fill_row_ids_kernel(std::int64_t rows, const std::int64_t* __restrict__ row_ptr,
                                    std::int32_t* __restrict__ row_of) {
  const int lane = threadIdx.x & (kWarpSize - 1);
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x / kWarpSize);
  for (std::int64_t r = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / kWarpSize; r < rows;
       r += warps) {
    const std::int64_t end = row_ptr[r + 1];
    for (std::int64_t j = row_ptr[r] + lane; j < end; j += kWarpSize)
      row_of[j] = static_cast<std::int32_t>(r);
  }
}

template <int G, int V, int T, typename Vals>
__global__ void __launch_bounds__(kThreads)
    nnz_vsr_kernel(std::int64_t nnz, int k, int num_tiles, std::int64_t chunk_len,
                   std::int64_t num_chunks, const std::int32_t* __restrict__ row_of,
                   const std::int32_t* __restrict__ col_idx, Vals vals, const float* __restrict__ b,
                   float* __restrict__ c) {
  constexpr int R = kWarpSize / G;  // nonzero slots per step
  constexpr int kTile = G * V * T;
  constexpr int U = G < 4 ? G : 4;  // steps whose B rows are loaded before the first scan
  constexpr int kWarpsPerBlock = kThreads / kWarpSize;
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (G - 1);
  const int slot = lane / G;
  for (std::int64_t chunk = std::int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarpSize;
       chunk < num_chunks; chunk += std::int64_t(gridDim.x) * kWarpsPerBlock) {
    const std::int64_t jb = chunk * chunk_len;
    const std::int64_t je = jb + chunk_len < nnz ? jb + chunk_len : nnz;
    // Only the chunk's first and last rows can be shared with a neighbouring chunk.
    const int r_first = __ldg(row_of + jb);
    const int r_last = __ldg(row_of + je - 1);
    const bool first_shared = jb > 0 && __ldg(row_of + jb - 1) == r_first;
    const bool last_shared = je < nnz && __ldg(row_of + je) == r_last;

    for (int tile = 0; tile < num_tiles; ++tile) {
      const int kbase = tile * kTile + gl * V;
      // Writes one finished (or partial, for shared rows) row sum.
      auto flush = [&](int row, const float(&sum)[T][V]) {
        const bool shared = (row == r_first && first_shared) || (row == r_last && last_shared);
        float* crow = c + std::int64_t(row) * k;
#pragma unroll
        for (int t = 0; t < T; ++t) {
          const int kk = kbase + t * G * V;
          if (kk < k) {
            if (shared) {
              atomic_add_vec<V>(crow + kk, sum[t]);
            } else {
              stcs_vec<V>(crow + kk, sum[t]);
            }
          }
        }
      };

      float carry[T][V];
#pragma unroll
      for (int t = 0; t < T; ++t)
#pragma unroll
        for (int v = 0; v < V; ++v) carry[t][v] = 0.f;
      int carry_row = -1;  // row whose partial sum `carry` holds (same value in every lane)

      for (std::int64_t j0 = jb; j0 < je; j0 += kWarpSize) {
        int my_row = -1, my_col = 0;
        float my_val = 0.f;
        if (j0 + lane < je) {
          my_row = ld_sparse(row_of + j0 + lane);
          my_col = ld_sparse(col_idx + j0 + lane);
          my_val = vals(j0 + lane);
        }
        const int n = static_cast<int>(je - j0 < kWarpSize ? je - j0 : kWarpSize);
        // Step s covers nonzeros s*R .. s*R + R - 1 of the 32 loaded; slot q takes s*R + q.
        for (int s0 = 0; s0 * R < n; s0 += U) {
          int r[U];
          float p[U][T][V];
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const int src = (s0 + u) * R + slot;  // < 32: s0 + u < G because U divides G
            r[u] = __shfl_sync(kFullMask, my_row, src);
            const int col = __shfl_sync(kFullMask, my_col, src);
            const float a = __shfl_sync(kFullMask, my_val, src);
            const float* brow = b + std::int64_t(col) * k;
#pragma unroll
            for (int t = 0; t < T; ++t) {
              const int kk = kbase + t * G * V;
              float x[V];
              if (r[u] >= 0 && kk < k) {
                ldg_vec<V>(brow + kk, x);
              } else {
#pragma unroll
                for (int v = 0; v < V; ++v) x[v] = 0.f;
              }
#pragma unroll
              for (int v = 0; v < V; ++v) p[u][t][v] = a * x[v];
            }
          }
#pragma unroll
          for (int u = 0; u < U; ++u) {
            // Segmented inclusive scan across slots: rows are non-decreasing along the slots, so
            // equal rows at distance d mean every slot between has that row too.
#pragma unroll
            for (int d = 1; d < R; d *= 2) {
              const int r_up = __shfl_up_sync(kFullMask, r[u], d * G);
              const bool take = slot >= d && r_up == r[u];
#pragma unroll
              for (int t = 0; t < T; ++t)
#pragma unroll
                for (int v = 0; v < V; ++v) {
                  const float up = __shfl_up_sync(kFullMask, p[u][t][v], d * G);
                  if (take) p[u][t][v] += up;
                }
            }
            const int r0 = R == 1 ? r[u] : __shfl_sync(kFullMask, r[u], gl);  // row of slot 0
            if (carry_row >= 0) {
              if (r[u] == carry_row) {  // the carried row continues into this step
#pragma unroll
                for (int t = 0; t < T; ++t)
#pragma unroll
                  for (int v = 0; v < V; ++v) p[u][t][v] += carry[t][v];
              } else if (carry_row != r0 && slot == 0) {  // it ended with the previous step
                flush(carry_row, carry);
              }
            }
            if constexpr (R == 1) {  // one slot: its sum simply becomes the carry
              carry_row = r[u];
#pragma unroll
              for (int t = 0; t < T; ++t)
#pragma unroll
                for (int v = 0; v < V; ++v) carry[t][v] = p[u][t][v];
            } else {
              const int r_next = __shfl_down_sync(kFullMask, r[u], G);
              if (slot < R - 1 && r[u] >= 0 && r_next != r[u]) flush(r[u], p[u]);
              // The last slot's sum may go on in the next step: every lane takes it as the carry.
              carry_row = __shfl_sync(kFullMask, r[u], (R - 1) * G + gl);
#pragma unroll
              for (int t = 0; t < T; ++t)
#pragma unroll
                for (int v = 0; v < V; ++v)
                  carry[t][v] = __shfl_sync(kFullMask, p[u][t][v], (R - 1) * G + gl);
            }
          }
        }
      }
      if (carry_row >= 0 && slot == 0) flush(carry_row, carry);
    }
  }
}

class NnzVsrPlan : public ValueReaderPlan<NnzVsrPlan> {
 public:
  NnzVsrPlan(const Context& ctx, const CsrView& s, int k)
      : ValueReaderPlan(s, k), chunk_(chunk_for(s.nnz, ctx.gpu().props.multiProcessorCount)) {
    if (s.rows == 0) return;
    const std::vector<std::int64_t> row_ptr = download_row_ptr(s);
    // Rows no warp writes plainly: empty ones, and ones whose nonzeros cross a chunk boundary.
    std::vector<std::int64_t> zero;
    for (std::int64_t r = 0; r < s.rows; ++r) {
      const std::int64_t b = row_ptr[r], e = row_ptr[r + 1];
      if (e == b || b / chunk_ != (e - 1) / chunk_) zero.push_back(r);
    }
    zero_all_ = 2 * static_cast<std::int64_t>(zero.size()) > s.rows;
    if (!zero_all_) zero_rows_ = DeviceBuffer<std::int64_t>(zero);
    if (s.nnz > 0) {
      row_of_ = DeviceBuffer<std::int32_t>(s.nnz);
      fill_row_ids_kernel<<<grid_for(s.rows, kThreads / kWarpSize), kThreads, 0, stream_of(ctx)>>>(
          s.rows, s.row_ptr, row_of_.data());
      FK_CUDA_CHECK_LAUNCH();
    }
  }

  static constexpr const char* kName = "cuda.spmm.nnz_vsr";
  static constexpr int kPermutedFromK = 1;

  template <typename Vals>
  void launch(const Context& ctx, Vals vals, DenseView<const float> b, DenseView<float> c) {
    if (s_.rows == 0) return;
    if (zero_all_) {
      FK_CUDA_CHECK(cudaMemsetAsync(c.data, 0, static_cast<std::size_t>(c.size()) * sizeof(float),
                                    stream_of(ctx)));
    } else {
      zero_rows(ctx, zero_rows_.data(), zero_rows_.size(), k_, c.data);
    }
    if (s_.nnz == 0) return;
    const std::int64_t chunks = ceil_div(s_.nnz, chunk_);
    dispatch_kmap(k_, vec4_ok(k_, b.data, c.data), [&](auto map) {
      using M = decltype(map);
      const int tiles = static_cast<int>(ceil_div(k_, M::kTile));
      prefer_l1<nnz_vsr_kernel<M::G, M::V, M::T, Vals>>();
      nnz_vsr_kernel<M::G, M::V, M::T>
          <<<grid_for(chunks, kThreads / kWarpSize), kThreads, 0, stream_of(ctx)>>>(
              s_.nnz, k_, tiles, chunk_, chunks, row_of_.data(), s_.col_idx, vals, b.data, c.data);
      FK_CUDA_CHECK_LAUNCH();
    });
  }

 private:
  std::int64_t chunk_;  // nonzeros per warp item
  bool zero_all_ = false;
  DeviceBuffer<std::int64_t> zero_rows_;
  DeviceBuffer<std::int32_t> row_of_;
};

class NnzVsrSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.nnz_vsr"; }
  const char* summary() const override {
    return "nonzero split (equal chunks per warp) with shuffle segment reduction; atomics only on "
           "rows "
           "crossing chunks";
  }
  Backend backend() const override { return Backend::kCuda; }
  bool repeatable() const override { return false; }  // those atomics add in the order warps end
  std::string why_not(const KernelProblem& p) const override {
    if (p.sparse.rows > INT32_MAX)
      return "nnz_vsr keeps a 32-bit row index per nonzero; S has " +
             std::to_string(p.sparse.rows) + " rows";
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    FK_CHECK(s.rows <= INT32_MAX,
             "cuda.spmm.nnz_vsr: " << s.rows << " rows exceed its 32-bit row index");
    return std::make_unique<NnzVsrPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_nnz_vsr() { return std::make_unique<NnzVsrSpmm>(); }

}  // namespace fk
