// cuda.spmm.col_chunks: row panels walked in chunks of their columns, each chunk's B rows staged
// in shared memory.
//
// Why: on large matrices whose B outgrows L1 (nytimes, netflix, ml-20m at K >= 32) every other
// kernel, cuSPARSE's included, gathers one B row per nonzero through L2 and is bound by L2's
// bandwidth (docs/benchmarks/checks/large-l2-ncu): L1 keeps a third of the gathers at best. Yet a
// panel of 512 consecutive rows uses each of its distinct columns 3-6 times on those matrices
// (nytimes 3.7, netflix 6.1, ml-20m 3.3; 1024 rows: 5.3, 12.1, 5.7). So a thread block takes a
// panel and a 32-column slice of K, and goes through the panel's distinct columns (sorted) in
// chunks of kChunk: it copies the chunk's B rows (128 bytes each) into shared memory once, and
// every row of the panel then adds the nonzeros that fall in the chunk, reading B from shared
// memory. Each distinct (panel, column) crosses L2 once per slice instead of once per nonzero; the
// shared-memory reads (one 128-byte row per nonzero and slice) are what bound it then.
//
// Layout (prepare, on the host): per panel its distinct columns in ascending order (chunk c holds
// entries [c * kChunk, (c + 1) * kChunk)); per nonzero a 16-bit index into its chunk; and per panel
// a table seg[c][r] of where row r's nonzeros of chunk c begin (relative to the panel's first
// nonzero; seg[chunks][r] is the row's end). With a row's columns sorted its chunks are
// non-decreasing, so each (row, chunk) is a contiguous run of S's own order and the values are read
// in place. Rows whose columns are not sorted are walked in sorted order through a permutation of
// their positions (`order_`, only built when some row needs it).
//
// Threads: 1024 per block (one block per SM: the double-buffered chunk takes 192 KiB). A group of
// G = 32 / V lanes owns R = kPanelRows / groups rows of the panel (rows g, g + groups, ...) and
// keeps their C slices in registers (V floats per lane per row) across all chunks. Per chunk the
// group walks its rows' segments one after another as one list: G (index, value) pairs at a time,
// each tagged with its row, loaded coalesced and shuffled lane to lane as row_csc does; a running
// sum goes into its row's registers when the row changes.
//
// Measured slower than cuSPARSE's CSR_ALG3 on every large problem (0.25-0.57x, H100;
// docs/benchmarks/checks/col-chunks): about 20 warp instructions per nonzero and 32-column slice.
// The next chunk's copy (cp.async) runs while this one is walked. Rows longer than LongRows'
// threshold are left out of the panels (their C rows are written as zero here and then computed
// by LongRows), so a giant row neither serializes a group nor floods the panel's columns.
#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "kernels/cuda/cp_async.cuh"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 1024;
constexpr int kPanelRows =
    512;  // rows per panel: 3-6 uses of each distinct column on the large matrices
constexpr int kSlice = 32;   // K columns per block (128-byte B rows in shared memory)
constexpr int kChunk = 768;  // distinct columns per chunk: two chunk buffers take 192 KiB
constexpr int kSmemBytes = 2 * kChunk * kSlice * static_cast<int>(sizeof(float));

// V floats from shared memory at a 32-bit shared-window address (a generic pointer costs an
// address conversion per load on sm_90).
template <int V>
__device__ __forceinline__ void lds_vec(unsigned addr, float (&x)[V]) {
  if constexpr (V == 4) {
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(x[0]), "=f"(x[1]), "=f"(x[2]), "=f"(x[3])
                 : "r"(addr));
  } else {
    static_assert(V == 1, "vector width must be 1 or 4");
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(x[0]) : "r"(addr));
  }
}

// One block per (panel, 32-column slice of K). V = 4: K % 4 == 0 with 16-byte aligned B and C
// (groups of 8 lanes, float4 each); V = 1 otherwise (whole warps, one float per lane).
template <int V>
__global__ void __launch_bounds__(kThreads, 1)
    col_chunks_kernel(std::int64_t rows, int k, const std::int64_t* __restrict__ row_ptr,
                      const std::int64_t* __restrict__ col_base,
                      const std::int32_t* __restrict__ cols,
                      const std::int64_t* __restrict__ seg_base,
                      const std::int32_t* __restrict__ seg, const std::uint16_t* __restrict__ code,
                      const std::int32_t* __restrict__ order,
                      const std::int32_t* __restrict__ row_at, const float* __restrict__ vals,
                      const float* __restrict__ b, float* __restrict__ c) {
  constexpr int G = kSlice / V;            // lanes per row
  constexpr int kGroups = kThreads / G;    // row groups per block
  constexpr int R = kPanelRows / kGroups;  // rows per group
  constexpr int kPieces = kSlice / V;      // copies per staged B row
  static_assert(R <= G && (R & (R - 1)) == 0, "a group's lanes hold its rows' segment bounds");
  extern __shared__ float4 smem_raw[];                    // float4 for 16-byte alignment
  float* chunk_buf = reinterpret_cast<float*>(smem_raw);  // [2][kChunk][kSlice]
  const unsigned chunk_smem = static_cast<unsigned>(__cvta_generic_to_shared(chunk_buf));

  const std::int64_t panel = blockIdx.x;
  const int ks0 = blockIdx.y * kSlice;
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (G - 1);
  const int gbase = lane & ~(G - 1);
  const int group = threadIdx.x / G;
  const int kk = ks0 + gl * V;
  const bool active = kk < k;

  const std::int64_t r0 = panel * kPanelRows;
  const std::int64_t base = row_ptr[r0];
  const std::int64_t cb = col_base[panel];
  const int ncols = static_cast<int>(col_base[panel + 1] - cb);
  const int nchunks = (ncols + kChunk - 1) / kChunk;
  const std::int32_t* pseg = seg + seg_base[panel];

  // Copies chunk ch's B rows (this slice's columns of them) into buffer ch & 1.
  // Thread t copies piece t % kPieces of staged rows t / kPieces, t / kPieces + kThreads / kPieces,
  // ...
  const int piece = threadIdx.x % kPieces;
  const bool piece_in_k = ks0 + piece * V < k;  // pieces past K are zero-filled, never stored
  const float* b_piece = b + (piece_in_k ? ks0 + piece * V : 0);
  auto stage = [&](int ch) {
    float* dst = chunk_buf + (ch & 1) * (kChunk * kSlice) + piece * V;
    const std::int32_t* chunk_cols = cols + cb + ch * kChunk;
    const int n = min(kChunk, ncols - ch * kChunk);
    for (int h = threadIdx.x / kPieces; h < n; h += kThreads / kPieces) {
      const std::int64_t col = piece_in_k ? __ldg(chunk_cols + h) : 0;
      cp_async<V * 4>(dst + h * kSlice, b_piece + col * k, piece_in_k);
    }
    cp_async_commit();
  };

  float acc[R][V];
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[i][v] = 0.f;

  // Lane i of a group holds the segment bounds of the group's row i (lanes past R repeat them).
  const int my_row = (gl & (R - 1)) * kGroups + group;
  int seg_e = nchunks > 0 ? __ldg(pseg + my_row) : 0;
  int seg_e_next = nchunks > 0 ? __ldg(pseg + kPanelRows + my_row) : 0;
  if (nchunks > 0) stage(0);
  for (int ch = 0; ch < nchunks; ++ch) {
    if (ch + 1 < nchunks) {
      stage(ch + 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();  // chunk ch has landed for every thread's copies
    const unsigned chunk_lane = chunk_smem + unsigned(((ch & 1) * (kChunk * kSlice) + gl * V) * 4);
    // Row i's segment is [seg[ch][i], seg[ch + 1][i]); lane i of the group holds row i's bounds,
    // and the next chunk's end is loaded now, a chunk ahead of its use.
    const int seg_s = seg_e;
    seg_e = seg_e_next;
    if (ch + 1 < nchunks) seg_e_next = __ldg(pseg + std::int64_t(ch + 2) * kPanelRows + my_row);
    // The first G nonzeros of every row are loaded before any is used, so the rows' load
    // latencies overlap.
    int cd[R];
    float vv[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int s0 = __shfl_sync(kFullMask, seg_s, gbase + i);
      const int e0 = __shfl_sync(kFullMask, seg_e, gbase + i);
      cd[i] = 0;
      vv[i] = 0.f;
      if (s0 + gl < e0) {
        const std::int64_t pos = base + s0 + gl;
        cd[i] = __ldg(code + pos);
        vv[i] = ld_sparse(vals + (order ? base + ld_sparse(order + pos) : pos));
      }
    }
    // Every lane walks every row slot the same number of steps, the longest segment of the warp's
    // groups (warp-uniform bounds: full-warp shuffles need no convergence checks); a group past
    // its own segment's end adds nothing.
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const int s0 = __shfl_sync(kFullMask, seg_s, gbase + i);
      const int len = __shfl_sync(kFullMask, seg_e, gbase + i) - s0;
      const int longest = __reduce_max_sync(kFullMask, len);
      for (int b0 = 0; b0 < longest; b0 += G) {
        int my_code = cd[i];
        float my_val = vv[i];
        if (b0 > 0) {  // segments longer than G: the next G of them
          my_code = 0;
          my_val = 0.f;
          if (b0 + gl < len) {
            const std::int64_t pos = base + s0 + b0 + gl;
            my_code = __ldg(code + pos);
            my_val = ld_sparse(vals + (order ? base + ld_sparse(order + pos) : pos));
          }
        }
        const int n = longest - b0 < G ? longest - b0 : G;
#pragma unroll 2
        for (int q = 0; q < n; ++q) {
          const int c0 = __shfl_sync(kFullMask, my_code, gbase + q);
          const float a = __shfl_sync(kFullMask, my_val, gbase + q);
          float x[V];
          lds_vec<V>(chunk_lane + unsigned(c0 * kSlice * 4), x);
          if (b0 + q < len)
#pragma unroll
            for (int v = 0; v < V; ++v) acc[i][v] = fmaf(a, x[v], acc[i][v]);
        }
      }
    }
    __syncthreads();  // every group is done with buffer ch & 1 before chunk ch + 2 overwrites it
  }
  if (!active) return;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const std::int64_t row = r0 + __ldg(row_at + r0 + i * kGroups + group);
    if (row < rows) stcs_vec<V>(c + row * k + kk, acc[i]);
  }
}

// The plan's host-made layout (see the file comment).
struct ChunkLayout {
  std::vector<std::int64_t> col_base{0};  // per panel + 1: where its distinct columns start
  std::vector<std::int32_t> cols;         // the panels' distinct columns, ascending per panel
  std::vector<std::int64_t> seg_base{
      0};                         // per panel + 1: where its (chunks + 1) x kPanelRows table starts
  std::vector<std::int32_t> seg;  // seg[c][r]: row r's first nonzero of chunk c (panel-relative)
  std::vector<std::uint16_t> code;   // per nonzero in walk order: its index in its chunk
  std::vector<std::int32_t> order;   // walk order -> S's order (panel-relative); empty when sorted
  std::vector<std::int32_t> row_at;  // per panel and position: the panel-local row walked there
  std::int64_t max_chunks = 0;
};

ChunkLayout build_layout(const std::vector<std::int64_t>& rp, const std::vector<std::int32_t>& col,
                         std::int64_t rows, std::int64_t ncols, std::int64_t threshold) {
  const std::int64_t panels = ceil_div(rows, kPanelRows);
  const std::int64_t nnz = rp[rows];
  bool sorted = true;
  for (std::int64_t r = 0; r < rows && sorted; ++r)
    for (std::int64_t j = rp[r] + 1; j < rp[r + 1]; ++j)
      if (col[j] < col[j - 1]) {
        sorted = false;
        break;
      }
  ChunkLayout L;
  std::vector<std::vector<std::int32_t>> pcols(static_cast<std::size_t>(panels));
  std::vector<std::vector<std::int32_t>> pseg(static_cast<std::size_t>(panels));
  L.code.assign(static_cast<std::size_t>(nnz), 0);
  L.row_at.assign(static_cast<std::size_t>(panels * kPanelRows), 0);
  if (!sorted) L.order.assign(static_cast<std::size_t>(nnz), 0);
  std::int64_t longest_panel = 0;
#pragma omp parallel reduction(max : longest_panel)
  {
    std::vector<std::int32_t> local(static_cast<std::size_t>(ncols),
                                    -1);  // column -> index in panel
    std::vector<std::int32_t> walk;       // a row's positions, sorted
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t ra = p * kPanelRows, rb = std::min(rows, ra + kPanelRows);
      const std::int64_t pbase = rp[ra];
      longest_panel = std::max(longest_panel, rp[rb] - pbase);
      auto& pc = pcols[static_cast<std::size_t>(p)];
      for (std::int64_t r = ra; r < rb; ++r)
        if (rp[r + 1] - rp[r] <= threshold)
          for (std::int64_t j = rp[r]; j < rp[r + 1]; ++j)
            if (local[static_cast<std::size_t>(col[j])] < 0) {
              local[static_cast<std::size_t>(col[j])] = 0;
              pc.push_back(col[j]);
            }
      std::sort(pc.begin(), pc.end());
      for (std::size_t h = 0; h < pc.size(); ++h)
        local[static_cast<std::size_t>(pc[h])] = static_cast<std::int32_t>(h);
      const std::int64_t chunks = ceil_div(static_cast<std::int64_t>(pc.size()), kChunk);
      auto& ps = pseg[static_cast<std::size_t>(p)];
      ps.assign(static_cast<std::size_t>((chunks + 1) * kPanelRows), 0);
      // Rows take positions in order of length, so that the groups that walk together (positions
      // 4w .. 4w + 3 of a slot: one warp) have about equal segments, and every warp gets one
      // such quadruple per slot.
      auto len_of = [&](std::int64_t i) {
        const std::int64_t r = ra + i;
        return r < rb && rp[r + 1] - rp[r] <= threshold ? rp[r + 1] - rp[r] : std::int64_t(0);
      };
      std::int32_t* pos_row = L.row_at.data() + p * kPanelRows;
      std::iota(pos_row, pos_row + kPanelRows, std::int32_t(0));
      std::stable_sort(pos_row, pos_row + kPanelRows,
                       [&](std::int32_t x, std::int32_t y) { return len_of(x) > len_of(y); });
      for (std::int64_t i = 0; i < kPanelRows; ++i) {  // i: the position (the table's column)
        const std::int64_t r = ra + pos_row[i];
        const std::int64_t begin = r < rb ? rp[r] : rp[rb];
        const std::int64_t end = begin + len_of(pos_row[i]);
        walk.resize(static_cast<std::size_t>(end - begin));
        std::iota(walk.begin(), walk.end(), static_cast<std::int32_t>(0));
        if (!sorted)
          std::stable_sort(walk.begin(), walk.end(), [&](std::int32_t x, std::int32_t y) {
            return col[begin + x] < col[begin + y];
          });
        std::int64_t ch = 0;
        for (std::size_t q = 0; q < walk.size(); ++q) {
          const std::int32_t h = local[static_cast<std::size_t>(col[begin + walk[q]])];
          while (ch <= h / kChunk)
            ps[static_cast<std::size_t>(ch++ * kPanelRows + i)] =
                static_cast<std::int32_t>(begin - pbase + q);
          const std::int64_t pos = begin + static_cast<std::int64_t>(q);
          L.code[static_cast<std::size_t>(pos)] = static_cast<std::uint16_t>(h % kChunk);
          if (!sorted)
            L.order[static_cast<std::size_t>(pos)] =
                static_cast<std::int32_t>(begin - pbase + walk[q]);
        }
        while (ch <= chunks)
          ps[static_cast<std::size_t>(ch++ * kPanelRows + i)] =
              static_cast<std::int32_t>(end - pbase);
      }
      for (const std::int32_t cc : pc) local[static_cast<std::size_t>(cc)] = -1;
    }
  }
  // Panel-relative positions are 32-bit.
  FK_REQUIRE(longest_panel < INT32_MAX, "cuda.spmm.col_chunks: a panel of "
                                            << kPanelRows << " rows holds " << longest_panel
                                            << " nonzeros, more than 32-bit offsets reach");
  for (std::int64_t p = 0; p < panels; ++p) {
    const auto& pc = pcols[static_cast<std::size_t>(p)];
    L.cols.insert(L.cols.end(), pc.begin(), pc.end());
    L.col_base.push_back(static_cast<std::int64_t>(L.cols.size()));
    const auto& ps = pseg[static_cast<std::size_t>(p)];
    L.seg.insert(L.seg.end(), ps.begin(), ps.end());
    L.seg_base.push_back(static_cast<std::int64_t>(L.seg.size()));
    L.max_chunks = std::max(L.max_chunks, ceil_div(static_cast<std::int64_t>(pc.size()), kChunk));
  }
  return L;
}

class ColChunksPlan : public SpmmPlan {
 public:
  ColChunksPlan(const CsrView& s, int k) : s_(s), k_(k) {
    if (s.rows == 0) return;
    const std::vector<std::int64_t> rp = download_row_ptr(s);
    const std::vector<std::int32_t> col = download_col_idx(s);
    long_rows_ = LongRows(rp);
    const ChunkLayout L = build_layout(rp, col, s.rows, s.cols, long_rows_.threshold());
    panels_ = ceil_div(s.rows, kPanelRows);
    col_base_ = DeviceBuffer<std::int64_t>(L.col_base);
    cols_ = DeviceBuffer<std::int32_t>(L.cols);
    seg_base_ = DeviceBuffer<std::int64_t>(L.seg_base);
    seg_ = DeviceBuffer<std::int32_t>(L.seg);
    code_ = DeviceBuffer<std::uint16_t>(L.code);
    if (!L.order.empty()) order_ = DeviceBuffer<std::int32_t>(L.order);
    row_at_ = DeviceBuffer<std::int32_t>(L.row_at);
    log_debug() << "cuda.spmm.col_chunks: " << panels_ << " panels of " << kPanelRows << " rows, "
                << L.cols.size() << " distinct (panel, column) pairs for " << s.nnz
                << " nonzeros, up to " << L.max_chunks << " chunks of " << kChunk << " a panel, "
                << long_rows_.count() << " long rows"
                << (L.order.empty() ? "" : ", unsorted rows walked through a permutation");
    static const bool raised = [] {
      FK_CUDA_CHECK(cudaFuncSetAttribute(col_chunks_kernel<1>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
      FK_CUDA_CHECK(cudaFuncSetAttribute(col_chunks_kernel<4>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
      return true;
    }();
    (void)raised;
  }

  void run(const Context& ctx, const float* vals, DenseView<const float> b,
           DenseView<float> c) override {
    constexpr const char* kName = "cuda.spmm.col_chunks";
    check_shapes(kName, s_, k_, b, c);
    vals = resolve_values(kName, s_, vals);
    if (s_.rows == 0) return;
    const dim3 grid(static_cast<unsigned>(panels_), static_cast<unsigned>(ceil_div(k_, kSlice)));
    auto launch = [&](auto kernel) {
      kernel<<<grid, kThreads, kSmemBytes, stream_of(ctx)>>>(
          s_.rows, k_, s_.row_ptr, col_base_.data(), cols_.data(), seg_base_.data(), seg_.data(),
          code_.data(), order_.size() ? order_.data() : nullptr, row_at_.data(), vals, b.data,
          c.data);
    };
    if (vec4_ok(k_, b.data, c.data)) {
      launch(col_chunks_kernel<4>);
    } else {
      launch(col_chunks_kernel<1>);
    }
    FK_CUDA_CHECK_LAUNCH();
    long_rows_.run(ctx, s_.row_ptr, s_.col_idx, vals, b.data, c.data, k_);
  }

 private:
  CsrView s_;
  int k_;
  std::int64_t panels_ = 0;
  LongRows long_rows_;
  DeviceBuffer<std::int64_t> col_base_, seg_base_;
  DeviceBuffer<std::int32_t> cols_, seg_, order_, row_at_;
  DeviceBuffer<std::uint16_t> code_;
};

class ColChunksSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.col_chunks"; }
  const char* summary() const override {
    return "row panels of 512 walked in chunks of their distinct columns, each chunk's B rows "
           "staged in shared "
           "memory once per panel";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (std::int64_t(p.k) > std::int64_t(65535) * kSlice)
      return "K above 65535 slices of 32 (the grid's y limit)";
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<ColChunksPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_col_chunks() {
  return std::make_unique<ColChunksSpmm>();
}

}  // namespace fk
