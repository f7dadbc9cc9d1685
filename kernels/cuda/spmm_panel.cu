// cuda.spmm.panel: S·B and Sᵀ·B for K <= 4, the dense side held in shared memory panel by panel,
// S read once in its own order (no transpose).
//
// At K = 1-4 a product moves little more than S itself (8 bytes per nonzero), yet the other
// variants and cuSPARSE ran far from that floor on large matrices (H200, docs/benchmarks/latest):
// S·x on the nytimes shape took 0.36 ms against a 0.13 ms floor, because x (410 KB) does not fit in
// L1 and every miss costs a 32-byte L2 sector for 4 useful bytes; Sᵀ·x took 1.0 ms there and 1.5 ms
// on the Netflix shape (floor 0.19), because it runs on a cached transpose whose values must be
// gathered into Sᵀ's order before every run.
//
// Here S's columns are cut into P panels whose K-wide rows of the dense side fit in one thread
// block's shared memory (up to 227 KiB on sm_90: 58K columns at K = 1), and one launch per panel
// walks every row's part in that panel:
//   S·B:  the block loads B's panel rows into shared memory, and a group of g lanes per row of S
//         gathers from there (lanes along nonzeros, a shuffle tree at the end). The first panel
//         writes the row of C, later ones add to it: each row is owned by one group per launch and
//         the launches are ordered, so the sums are deterministic (LongRows' rows too: it adds
//         their segments in order).
//   Sᵀ·B: the block zeroes a panel of C's rows in shared memory, every group adds
//         vals[j] · B[row, :] into row col_idx[j] with shared-memory atomics, and the block adds
//         its panel to C with (vector) global atomics at the end. The order of the additions
//         depends on scheduling, so results may differ in the last bits from run to run.
// Blocks are persistent (as many as fit on the GPU), so C's panel is flushed once per block, and
// the panel's rows of B are loaded once per block: CTAs x N x K floats per run either way, which is
// why the variant refuses dense sides above kMaxPanels panels.
//
// When every row's columns are sorted, the plan finds where each row crosses each panel
// boundary (32-bit offsets within the row, (P - 1) x M of them), so each launch reads only its part
// of the row; otherwise every launch reads the whole row and skips the other panels' columns.
// Rows longer than LongRows' threshold are left to LongRows for S·B; for Sᵀ·B they are cut into
// chunks that whole blocks share.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 1024;
constexpr int kMaxK = 4;
// More panels read B's rows (or flush C's) once per block per panel and cut rows into ever shorter
// parts; beyond this the other variants are the better tool.
constexpr int kMaxPanels = 16;
// The shared memory a block may use when the device does not say (sm_90 allows 227 KiB).
constexpr std::int64_t kPanelBudgetFloats = 200 * 1024 / 4;
// Sᵀ·B: a long row is cut into chunks of this many nonzeros, one block per chunk.
constexpr std::int64_t kLongChunk = 8192;

// A group walks a row's part in steps of kStepNonzeros x g nonzeros, all of a step's (column,
// value) pairs requested before the first is used, so most rows cost one round trip to DRAM:
// 16-byte loads of 4 pairs when the arrays are 16-byte aligned (W = 4, two per lane per step),
// otherwise single ones (W = 1, eight per lane). Measured on an H200 at K = 1: a first version that
// requested four per lane and then walked a row's tail one load at a time ran Sᵀ·x on the netflix
// shape in 0.58 ms, predicated steps of eight in 0.45; 16-byte loads took S·x on the nytimes shape
// from 0.36 to 0.27 ms (docs/benchmarks/checks/panel).
constexpr int kStepNonzeros = 8;

// Row r's nonzeros in panel p: [begin, end). `split` holds, for p = 1 .. panels - 1, the offset
// within each row of its first nonzero at or beyond the panel's first column (panel-major); null
// when the rows are not known to be sorted, and then every panel gets the whole row.
struct RowPart {
  std::int64_t begin = 0, end = 0;
  bool long_row = false;
};
__device__ __forceinline__ RowPart row_part(std::int64_t r, int p, int panels, std::int64_t rows,
                                            std::int64_t long_threshold,
                                            const std::int64_t* __restrict__ row_ptr,
                                            const std::int32_t* __restrict__ split) {
  const std::int64_t r0 = row_ptr[r], r1 = row_ptr[r + 1];
  RowPart part{r0, r1, r1 - r0 > long_threshold};
  if (split != nullptr) {
    if (p > 0) part.begin = r0 + split[std::int64_t(p - 1) * rows + r];
    if (p < panels - 1) part.end = r0 + split[std::int64_t(p) * rows + r];
  }
  return part;
}

// split[(p - 1) * rows + r] = first offset in row r whose column is >= p * width (rows sorted).
__global__ void panel_split_kernel(std::int64_t rows, int panels, std::int64_t width,
                                   const std::int64_t* __restrict__ row_ptr,
                                   const std::int32_t* __restrict__ col_idx,
                                   std::int32_t* __restrict__ split) {
  const std::int64_t n = rows * (panels - 1);
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t r = i % rows;
    const std::int64_t bound = (i / rows + 1) * width;
    std::int64_t lo = row_ptr[r], hi = row_ptr[r + 1];
    const std::int64_t r0 = lo;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (col_idx[mid] < bound)
        lo = mid + 1;
      else
        hi = mid;
    }
    split[i] = static_cast<std::int32_t>(lo - r0);
  }
}

// W consecutive sparse entries (W = 1 or 4; p 4W-byte aligned), skipping L1 (ld_sparse).
template <int W>
__device__ __forceinline__ void ld_sparse_vec(const std::int32_t* p, std::int32_t (&x)[W]) {
  if constexpr (W == 4) {
    asm("ld.global.nc.L1::no_allocate.v4.b32 {%0, %1, %2, %3}, [%4];"
        : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3])
        : "l"(p));
  } else {
    x[0] = ld_sparse(p);
  }
}
template <int W>
__device__ __forceinline__ void ld_sparse_vec(const float* p, float (&x)[W]) {
  if constexpr (W == 4) {
    asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(x[0]), "=f"(x[1]), "=f"(x[2]), "=f"(x[3])
        : "l"(p));
  } else {
    x[0] = ld_sparse(p);
  }
}

// Calls f(column, value) for every nonzero of `part` that this lane of a g-lane group takes. The
// group reads W-aligned runs of W entries (lane gl the runs gl, gl + g, ...), kStepNonzeros / W
// runs per lane per step; entries of a run outside the part are loaded and dropped, and a run
// that would pass the arrays' end (nnz) is read entry by entry.
template <int W, typename F>
__device__ __forceinline__ void walk_part(const RowPart& part, int g, int gl, std::int64_t nnz,
                                          const std::int32_t* __restrict__ col_idx,
                                          const float* __restrict__ vals, F&& f) {
  constexpr int kRuns = kStepNonzeros / W;
  for (std::int64_t c0 = part.begin / W * W + std::int64_t(W) * gl; c0 < part.end;
       c0 += std::int64_t(W) * g * kRuns) {
    std::int32_t col[kRuns][W];
    float val[kRuns][W];
#pragma unroll
    for (int u = 0; u < kRuns; ++u) {
      const std::int64_t c = c0 + std::int64_t(W) * g * u;
      if (c < part.end && c + W <= nnz) {
        ld_sparse_vec<W>(col_idx + c, col[u]);
        ld_sparse_vec<W>(vals + c, val[u]);
      } else {
#pragma unroll
        for (int e = 0; e < W; ++e) {
          const bool in = c + e < part.end;
          col[u][e] = in ? ld_sparse(col_idx + c + e) : 0;
          val[u][e] = in ? ld_sparse(vals + c + e) : 0.f;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kRuns; ++u)
#pragma unroll
      for (int e = 0; e < W; ++e) {
        const std::int64_t j = c0 + std::int64_t(W) * g * u + e;
        if (j >= part.begin && j < part.end) f(col[u][e], val[u][e]);
      }
  }
}

// One launch per panel: columns [p0, p0 + width) of S. The panel holds K planes of `width` floats
// (panel[q * width + col]), so lanes on random columns hit random banks at every K (interleaved
// rows of K floats put every lane of a q on the same few banks).
//   kScatter = false (S·B): the panel is B's rows p0 .. p0 + width; C's rows are written by the
//     first launch and added to by later ones.
//   kScatter = true (Sᵀ·B): the panel accumulates C's rows p0 .. p0 + width (C zeroed before the
//     first launch); `chunks` lists (row, first, last) nonzero ranges of the long rows.
// Each group of g lanes walks rows r = its index, + the number of groups, ...; the next row's
// offsets are requested before the current row's nonzeros are used.
template <int K, bool kScatter, int W>
__global__ void __launch_bounds__(kThreads, 1)
    panel_kernel(std::int64_t rows, std::int64_t nnz, int g, int p, int panels, std::int64_t p0,
                 std::int64_t width, std::int64_t long_threshold,
                 const std::int64_t* __restrict__ row_ptr, const std::int32_t* __restrict__ split,
                 const std::int32_t* __restrict__ col_idx, const float* __restrict__ vals,
                 const float* __restrict__ b, const std::int64_t* __restrict__ chunks,
                 std::int64_t n_chunks, bool vec4, float* __restrict__ c) {
  extern __shared__ float panel[];
  {
    // Four loads in flight per thread: the panel comes from L2 (one copy per block).
    const std::int64_t n = width * K;
    for (std::int64_t i0 = threadIdx.x; i0 < n; i0 += 4 * kThreads) {
      float v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const std::int64_t i = i0 + u * kThreads;
        v[u] = !kScatter && i < n ? __ldg(b + p0 * K + i) : 0.f;
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const std::int64_t i = i0 + u * kThreads, col = i / K;
        if (i < n) panel[(i - col * K) * width + col] = v[u];
      }
    }
  }
  __syncthreads();
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (g - 1);
  const unsigned mask = group_mask_rt(g, lane);
  const int groups_per_block = kThreads / g;
  const std::int64_t stride = std::int64_t(gridDim.x) * groups_per_block;
  std::int64_t r = std::int64_t(blockIdx.x) * groups_per_block + threadIdx.x / g;
  RowPart cur;
  if (r < rows) cur = row_part(r, p, panels, rows, long_threshold, row_ptr, split);
  while (r < rows) {
    const std::int64_t next_r = r + stride;
    RowPart next;
    if (next_r < rows) next = row_part(next_r, p, panels, rows, long_threshold, row_ptr, split);
    if (!cur.long_row) {  // long rows: LongRows (S·B) or `chunks` (Sᵀ·B)
      float x[K];         // Sᵀ·B: B's row r; S·B: C's row r
      float prev[K];      // S·B after the first panel: C's row r so far (requested early)
#pragma unroll
      for (int q = 0; q < K; ++q) {
        x[q] = kScatter && cur.begin < cur.end ? __ldg(b + r * K + q) : 0.f;
        prev[q] = !kScatter && p > 0 && gl == 0 ? c[r * K + q] : 0.f;
      }
      walk_part<W>(cur, g, gl, nnz, col_idx, vals, [&](std::int32_t column, float val) {
        const std::uint32_t col = static_cast<std::uint32_t>(column - p0);
        if (col >= width) return;  // another panel's column
#pragma unroll
        for (int q = 0; q < K; ++q) {
          if constexpr (kScatter) {
            atomicAdd(panel + q * width + col, val * x[q]);
          } else {
            x[q] = fmaf(val, panel[q * width + col], x[q]);
          }
        }
      });
      if constexpr (!kScatter) {
        for (int off = g / 2; off > 0; off /= 2)
#pragma unroll
          for (int q = 0; q < K; ++q) x[q] += __shfl_xor_sync(mask, x[q], off);
        if (gl == 0) {
          float* out = c + r * K;
#pragma unroll
          for (int q = 0; q < K; ++q) out[q] = prev[q] + x[q];
        }
      }
    }
    cur = next;
    r = next_r;
  }
  if constexpr (kScatter) {
    // Long rows: a whole block per chunk, every column checked against the panel.
    for (std::int64_t ch = blockIdx.x; ch < n_chunks; ch += gridDim.x) {
      const std::int64_t row = chunks[3 * ch], first = chunks[3 * ch + 1],
                         last = chunks[3 * ch + 2];
      float x[K];
#pragma unroll
      for (int q = 0; q < K; ++q) x[q] = __ldg(b + row * K + q);
      for (std::int64_t j = first + threadIdx.x; j < last; j += kThreads) {
        const std::uint32_t col = static_cast<std::uint32_t>(ld_sparse(col_idx + j) - p0);
        if (col < width) {
          const float val = ld_sparse(vals + j);
#pragma unroll
          for (int q = 0; q < K; ++q) atomicAdd(panel + q * width + col, val * x[q]);
        }
      }
    }
    __syncthreads();
    // Add the block's panel to C (row-major, rows p0 ..), skipping what it never touched (exact
    // zeros).
    float* out = c + p0 * K;
    const std::int64_t n = width * K;
    auto at = [&](std::int64_t i) {
      const std::int64_t col = i / K;
      return panel[(i - col * K) * width + col];
    };
    std::int64_t i0 = 0;
    if (vec4) {  // n % 4 == 0, out 16-byte aligned
      for (std::int64_t i = std::int64_t(threadIdx.x) * 4; i < n; i += kThreads * 4) {
        const float v[4] = {at(i), at(i + 1), at(i + 2), at(i + 3)};
        if (v[0] != 0.f || v[1] != 0.f || v[2] != 0.f || v[3] != 0.f) atomic_add_vec<4>(out + i, v);
      }
      i0 = n;
    }
    for (std::int64_t i = i0 + threadIdx.x; i < n; i += kThreads)
      if (const float v = at(i); v != 0.f) atomicAdd(out + i, v);
  }
}

// Panel width (columns of S per launch) for K and a shared-memory budget in floats: the fewest
// panels, then equal widths rounded up to a multiple of 4 (so vector flushes stay aligned).
std::int64_t panel_width(std::int64_t cols, int k, std::int64_t budget_floats) {
  const std::int64_t max_width = std::max<std::int64_t>(4, budget_floats / k / 4 * 4);
  const std::int64_t panels = ceil_div(std::max<std::int64_t>(cols, 1), max_width);
  return std::min(max_width, ceil_div(ceil_div(std::max<std::int64_t>(cols, 1), panels), 4) * 4);
}

// The kernel for K, the product (scatter: Sᵀ·B) and the sparse loads (vec: 16 bytes).
template <int K>
auto panel_kernel_for(bool scatter, bool vec) {
  if (scatter) return vec ? panel_kernel<K, true, 4> : panel_kernel<K, true, 1>;
  return vec ? panel_kernel<K, false, 4> : panel_kernel<K, false, 1>;
}

template <typename F>
void dispatch_k(int k, F&& f) {
  switch (k) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 3:
      return f(std::integral_constant<int, 3>{});
    default:
      return f(std::integral_constant<int, 4>{});
  }
}

class PanelPlan : public SpmmPlan {
 public:
  PanelPlan(const Context& ctx, const CsrView& s, int k, bool transposed)
      : s_(s), k_(k), transposed_(transposed) {
    const std::vector<std::int64_t> row_ptr = download_row_ptr(s);
    long_rows_ = LongRows(row_ptr);
    const cudaDeviceProp& props = ctx.gpu().props;
    const std::int64_t budget = props.sharedMemPerBlockOptin > 0
                                    ? std::int64_t(props.sharedMemPerBlockOptin) / 4
                                    : kPanelBudgetFloats;
    width_ = panel_width(s.cols, k, budget);
    panels_ = static_cast<int>(ceil_div(std::max<std::int64_t>(s.cols, 1), width_));
    // Lanes per row: the fewest whose first step covers a row's mean part.
    const double part_mean = s.rows > 0 ? double(s.nnz) / double(s.rows) / panels_ : 0.0;
    g_ = 1;
    while (g_ < kWarpSize && double(kStepNonzeros * g_) < part_mean) g_ *= 2;
    std::int64_t row_max = 0;
    for (std::int64_t r = 0; r < s.rows; ++r)
      row_max = std::max(row_max, row_ptr[r + 1] - row_ptr[r]);
    const cudaStream_t stream = stream_of(ctx);
    if (panels_ > 1 && row_max <= std::numeric_limits<std::int32_t>::max() &&
        rows_sorted(s, stream)) {
      split_ = DeviceBuffer<std::int32_t>(s.rows * (panels_ - 1));
      panel_split_kernel<<<grid_for(s.rows * (panels_ - 1), 256), 256, 0, stream>>>(
          s.rows, panels_, width_, s.row_ptr, s.col_idx, split_.data());
      FK_CUDA_CHECK_LAUNCH();
    }
    if (transposed_) {
      std::vector<std::int64_t> chunks;
      for (std::int64_t r = 0; r < s.rows; ++r)
        if (row_ptr[r + 1] - row_ptr[r] > long_rows_.threshold())
          for (std::int64_t j = row_ptr[r]; j < row_ptr[r + 1]; j += kLongChunk)
            chunks.insert(chunks.end(), {r, j, std::min(j + kLongChunk, row_ptr[r + 1])});
      n_chunks_ = static_cast<std::int64_t>(chunks.size() / 3);
      if (n_chunks_ > 0) chunks_ = DeviceBuffer<std::int64_t>(chunks);
    }
    const std::int64_t smem = width_ * k * 4;
    int per_sm = 0;
    // The kernels may use all the shared memory a block can have: a plan's own size would shrink
    // the limit under another live plan of the same kernel with larger panels.
    const int smem_limit = std::max<int>(int(smem), int(props.sharedMemPerBlockOptin));
    dispatch_k(k, [&](auto kc) {
      for (bool vec : {false, true}) {
        const auto kernel = panel_kernel_for<kc>(transposed_, vec);
        FK_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_limit));
        FK_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem));
      }
    });
    blocks_ = static_cast<unsigned>(std::max(1, per_sm) * props.multiProcessorCount);
    blocks_ = std::min(blocks_, grid_for(s.rows, kThreads / g_));
    FK_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  void run(const Context& ctx, const float* vals, DenseView<const float> b,
           DenseView<float> c) override {
    const char* name = "cuda.spmm.panel";
    check_spmm_operands(name, s_, transposed_ ? Op::kTrans : Op::kNoTrans, k_, b, c);
    vals = spmm_values(name, s_, vals);
    const cudaStream_t stream = stream_of(ctx);
    const std::int64_t out_rows = transposed_ ? s_.cols : s_.rows;
    if (out_rows == 0 || k_ == 0) return;
    if (transposed_)
      FK_CUDA_CHECK(cudaMemsetAsync(c.data, 0, sizeof(float) * out_rows * k_, stream));
    if (s_.rows == 0 || s_.cols == 0) {
      if (!transposed_)
        FK_CUDA_CHECK(cudaMemsetAsync(c.data, 0, sizeof(float) * out_rows * k_, stream));
      return;
    }
    const std::int64_t smem = width_ * k_ * 4;
    // 16-byte loads of the sparse arrays need both 16-byte aligned (values come with each run).
    const bool vec16 = reinterpret_cast<std::uintptr_t>(s_.col_idx) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(vals) % 16 == 0;
    dispatch_k(k_, [&](auto kc) {
      constexpr int K = decltype(kc)::value;
      for (int p = 0; p < panels_; ++p) {
        const std::int64_t p0 = p * width_;
        const std::int64_t width = std::min(width_, s_.cols - p0);
        const bool vec4 =
            (width * K) % 4 == 0 && reinterpret_cast<std::uintptr_t>(c.data + p0 * K) % 16 == 0;
        panel_kernel_for<K>(transposed_, vec16)<<<blocks_, kThreads, smem, stream>>>(
            s_.rows, s_.nnz, g_, p, panels_, p0, width, long_rows_.threshold(), s_.row_ptr,
            split_.data(), s_.col_idx, vals, b.data, chunks_.data(), n_chunks_, vec4, c.data);
        FK_CUDA_CHECK_LAUNCH();
      }
    });
    if (!transposed_) long_rows_.run(ctx, s_.row_ptr, s_.col_idx, vals, b.data, c.data, k_);
  }

 private:
  CsrView s_;
  int k_;
  bool transposed_;
  std::int64_t width_ = 0;
  int panels_ = 1;
  int g_ = 1;
  unsigned blocks_ = 1;
  LongRows long_rows_;
  DeviceBuffer<std::int32_t> split_;
  DeviceBuffer<std::int64_t> chunks_;
  std::int64_t n_chunks_ = 0;
};

class PanelSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.panel"; }
  const char* summary() const override {
    return "K <= 4: the dense side in shared memory panel by panel, S read once in its own order "
           "(S·B gathers, Sᵀ·B adds with shared-memory atomics, no transpose)";
  }
  Backend backend() const override { return Backend::kCuda; }
  bool repeatable() const override { return false; }  // Sᵀ·B's atomics add in the order lanes run
  std::string why_not(const KernelProblem& p) const override {
    if (p.k > kMaxK) return "K above 4";
    // The panelled dimension is S's columns: Sᵀ's rows when the problem is transposed.
    const std::int64_t cols = p.transposed ? p.sparse.rows : p.sparse.cols;
    if (ceil_div(std::max<std::int64_t>(cols, 1), panel_width(cols, p.k, kPanelBudgetFloats)) >
        kMaxPanels)
      return "the dense side needs more than 16 shared-memory panels (N x K above about 800K "
             "floats)";
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<PanelPlan>(ctx, s, k, /*transposed=*/false);
  }
  std::unique_ptr<SpmmPlan> prepare_transposed(const Context& ctx, const CsrView& s,
                                               int k) const override {
    return std::make_unique<PanelPlan>(ctx, s, k, /*transposed=*/true);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_panel() { return std::make_unique<PanelSpmm>(); }

}  // namespace fk
