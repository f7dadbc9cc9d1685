// cuda.spmm.aspt: adaptive sparse tiling (Hong et al., ASpT) on the GPU.
//
// Rows are cut into panels of P consecutive rows. Within a panel, a column that occurs in at least
// kMinHeavyCount rows is "heavy": its B row is read by several rows of the panel, so the kernel
// stages it once per panel in shared memory (a dense tile of heavy columns x K slice) and every
// heavy nonzero then reads shared memory instead of L2. The remaining, "light" nonzeros read B from
// global memory row by row, as in row_csc. K is processed in slices of at most kSlice columns so
// that up to kSmemBudget / (slice * 4) heavy columns fit in shared memory; each (panel, slice) is
// a thread block (blockIdx.y the slice), so a matrix of few panels still fills the GPU (the
// slices had run back to back in one block: 32 blocks for a 512-row DLMC layer at any K).
//
// ASpT reorders each row (heavy nonzeros first) and then needs a permutation to gather the values,
// which arrive at run time in S's order. Here the split is encoded instead: prepare() builds one
// int32 `code` per nonzero in S's order, the global column for a light nonzero and
// (local heavy index | 0x80000000) for a heavy one. Values are then read in S's order with no
// permutation or gather pass, and a single generic load serves both kinds (no divergence when the
// groups of a warp disagree).
//
// Preprocessing is on the host (pattern downloaded once): per panel a small open-addressing count
// of its columns, the kMaxHeavy most frequent columns with count >= kMinHeavyCount kept, codes
// written. Rows longer than LongRows' threshold are left out of the panels and split across blocks.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/log.hpp"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 256;
constexpr int kSlice = 32;                    // K columns per slice (max)
constexpr int kSmemBudget = 96 * 1024;        // bytes of heavy tile per block: two blocks per SM
constexpr std::int64_t kMaxHeavy = 8192;      // heavy columns per panel (bounds host work)
constexpr int kMinHeavyCount = 2;             // occurrences in a panel that make a column heavy
constexpr std::int64_t kPanelNnz = 32768;     // target nonzeros per panel
constexpr std::uint32_t kHeavyBit = 0x80000000u;
constexpr int kUnroll = 4;

template <int V>
__global__ void __launch_bounds__(kThreads)
    aspt_kernel(std::int64_t rows, int k, int slice, int g, int panel_rows, std::int64_t num_panels,
                std::int64_t long_threshold, const std::int64_t* __restrict__ row_ptr,
                const std::int32_t* __restrict__ code, const float* __restrict__ vals,
                const std::int64_t* __restrict__ heavy_ptr, const std::int32_t* __restrict__ heavy_cols,
                const float* __restrict__ b, float* __restrict__ c) {
  extern __shared__ float4 smem_raw[];  // float4 for 16-byte alignment
  float* tile = reinterpret_cast<float*>(smem_raw);  // [heavy][slice]
  __shared__ int next_row;
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (g - 1);
  const int base = lane & ~(g - 1);
  const unsigned mask = group_mask_rt(g, lane);
  const int vecs_per_row = slice / V;
  for (std::int64_t panel = blockIdx.x; panel < num_panels; panel += gridDim.x) {
    const std::int64_t r0 = panel * panel_rows;
    const int nr = static_cast<int>(rows - r0 < panel_rows ? rows - r0 : panel_rows);
    const std::int64_t h0 = heavy_ptr[panel];
    const int nh = static_cast<int>(heavy_ptr[panel + 1] - h0);
    {
      const int ks0 = blockIdx.y * slice;  // this block's K slice
      __syncthreads();  // the previous panel's readers are done with the tile and the row counter
      for (int i = threadIdx.x; i < nh * vecs_per_row; i += blockDim.x) {
        const int h = i / vecs_per_row;
        const int kk = ks0 + (i - h * vecs_per_row) * V;
        float x[V];
        if (kk < k) {
          ldg_vec<V>(b + std::int64_t(__ldg(heavy_cols + h0 + h)) * k + kk, x);
        } else {
#pragma unroll
          for (int v = 0; v < V; ++v) x[v] = 0.f;
        }
        st_vec<V>(tile + h * slice + (i - h * vecs_per_row) * V, x);
      }
      if (threadIdx.x == 0) next_row = 0;
      __syncthreads();
      const int kk = ks0 + gl * V;
      const bool active = kk < k;
      const float* tile_lane = tile + gl * V;
      const float* b_lane = b + kk;
      // Groups take the panel's rows one at a time from a shared counter (rows differ in length).
      for (;;) {
        int lr = 0;
        if (gl == 0) lr = atomicAdd(&next_row, 1);
        lr = __shfl_sync(mask, lr, base);
        if (lr >= nr) break;
        const std::int64_t row = r0 + lr;
        const std::int64_t begin = row_ptr[row];
        const std::int64_t end = row_ptr[row + 1];
        if (end - begin > long_threshold) continue;  // LongRows computes it
        float acc[V];
#pragma unroll
        for (int v = 0; v < V; ++v) acc[v] = 0.f;
        for (std::int64_t j0 = begin; j0 < end; j0 += g) {
          int my_code = 0;
          float my_val = 0.f;
          if (j0 + gl < end) {
            my_code = ld_sparse(code + j0 + gl);
            my_val = ld_sparse(vals + j0 + gl);
          }
          const int n = static_cast<int>(end - j0 < g ? end - j0 : g);
          int q = 0;
          for (; q + kUnroll <= n; q += kUnroll) {
            float a[kUnroll];
            float x[kUnroll][V];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
              const int cd = __shfl_sync(mask, my_code, base + q + u);
              a[u] = __shfl_sync(mask, my_val, base + q + u);
              const float* src = cd < 0 ? tile_lane + (cd & 0x7fffffff) * slice : b_lane + std::int64_t(cd) * k;
              if (active) {
                ld_vec<V>(src, x[u]);
              } else {
#pragma unroll
                for (int v = 0; v < V; ++v) x[u][v] = 0.f;
              }
            }
#pragma unroll
            for (int u = 0; u < kUnroll; ++u)
#pragma unroll
              for (int v = 0; v < V; ++v) acc[v] = fmaf(a[u], x[u][v], acc[v]);
          }
          for (; q < n; ++q) {
            const int cd = __shfl_sync(mask, my_code, base + q);
            const float a = __shfl_sync(mask, my_val, base + q);
            const float* src = cd < 0 ? tile_lane + (cd & 0x7fffffff) * slice : b_lane + std::int64_t(cd) * k;
            if (active) {
              float x[V];
              ld_vec<V>(src, x);
#pragma unroll
              for (int v = 0; v < V; ++v) acc[v] = fmaf(a, x[v], acc[v]);
            }
          }
        }
        if (active) stcs_vec<V>(c + row * k + kk, acc);
      }
    }
  }
}

// Counts of the columns of one panel: open addressing, sized from the panel's nonzero count, so
// host memory stays proportional to a panel rather than to N.
class ColumnCounter {
 public:
  void reset(std::int64_t expected) {
    std::size_t cap = 16;
    while (cap < static_cast<std::size_t>(2 * expected)) cap *= 2;
    keys_.assign(cap, -1);
    vals_.assign(cap, 0);
    mask_ = cap - 1;
  }
  std::int32_t& operator[](std::int32_t col) {
    std::size_t h = (static_cast<std::uint32_t>(col) * 2654435761u) & mask_;
    while (keys_[h] != -1 && keys_[h] != col) h = (h + 1) & mask_;
    keys_[h] = col;
    return vals_[h];
  }
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t h = 0; h < keys_.size(); ++h)
      if (keys_[h] != -1) f(keys_[h], vals_[h]);
  }

 private:
  std::vector<std::int32_t> keys_, vals_;
  std::size_t mask_ = 0;
};

class AsptPlan : public SpmmPlan {
 public:
  AsptPlan(const Context& ctx, const CsrView& s, int k) : s_(s), k_(k) {
    slice_ = std::min(kSlice, pow2_ceil(k));
    if (s.rows == 0) return;
    const std::vector<std::int64_t> rp = download_row_ptr(s);
    const std::vector<std::int32_t> col = download_col_idx(s);
    long_rows_ = LongRows(rp);
    const std::int64_t threshold = long_rows_.threshold();

    // Panel height: about kPanelNnz nonzeros per panel, a power of two in [16, 1024], and small
    // enough to give every SM a few panels.
    const double mean = double(s.nnz) / double(s.rows);
    std::int64_t p = 16;
    while (p < 1024 && double(2 * p) * std::max(mean, 1.0) <= double(kPanelNnz)) p *= 2;
    const std::int64_t sms = ctx.gpu().props.multiProcessorCount;
    while (p > 16 && ceil_div(s.rows, p) < 4 * sms) p /= 2;
    panel_rows_ = static_cast<int>(p);
    num_panels_ = ceil_div(s.rows, p);

    const std::int64_t max_heavy = std::min<std::int64_t>(kMaxHeavy, kSmemBudget / (slice_ * 4));
    std::vector<std::int32_t> code(col.begin(), col.end());
    std::vector<std::vector<std::int32_t>> heavy(static_cast<std::size_t>(num_panels_));
#pragma omp parallel
    {
      ColumnCounter counts;
      std::vector<std::pair<std::int32_t, std::int32_t>> cand;  // (count, column)
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t pi = 0; pi < num_panels_; ++pi) {
        const std::int64_t ra = pi * p, rb = std::min(s.rows, ra + p);
        std::int64_t panel_nnz = 0;
        for (std::int64_t r = ra; r < rb; ++r)
          if (rp[r + 1] - rp[r] <= threshold) panel_nnz += rp[r + 1] - rp[r];
        counts.reset(panel_nnz);
        for (std::int64_t r = ra; r < rb; ++r) {
          if (rp[r + 1] - rp[r] > threshold) continue;
          for (std::int64_t j = rp[r]; j < rp[r + 1]; ++j) ++counts[col[j]];
        }
        cand.clear();
        counts.for_each([&](std::int32_t c, std::int32_t n) {
          if (n >= kMinHeavyCount) cand.emplace_back(n, c);
        });
        if (static_cast<std::int64_t>(cand.size()) > max_heavy) {
          std::nth_element(cand.begin(), cand.begin() + max_heavy, cand.end(),
                           [](const auto& x, const auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
          cand.resize(static_cast<std::size_t>(max_heavy));
        }
        // Ascending columns: the tile is staged in B's address order.
        std::vector<std::int32_t>& hv = heavy[static_cast<std::size_t>(pi)];
        hv.clear();
        for (const auto& cn : cand) hv.push_back(cn.second);
        std::sort(hv.begin(), hv.end());
        // Reuse the counter as the local index map: -(h + 1) marks heavy column h.
        for (std::size_t h = 0; h < hv.size(); ++h) counts[hv[h]] = -static_cast<std::int32_t>(h) - 1;
        for (std::int64_t r = ra; r < rb; ++r) {
          if (rp[r + 1] - rp[r] > threshold) continue;
          for (std::int64_t j = rp[r]; j < rp[r + 1]; ++j) {
            const std::int32_t m = counts[col[j]];
            if (m < 0) code[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(-m - 1) | kHeavyBit);
          }
        }
      }
    }
    std::vector<std::int64_t> heavy_ptr(static_cast<std::size_t>(num_panels_) + 1, 0);
    std::vector<std::int32_t> heavy_cols;
    std::int64_t staged = 0;
    for (std::int64_t pi = 0; pi < num_panels_; ++pi) {
      const auto& hv = heavy[static_cast<std::size_t>(pi)];
      heavy_cols.insert(heavy_cols.end(), hv.begin(), hv.end());
      heavy_ptr[pi + 1] = static_cast<std::int64_t>(heavy_cols.size());
      max_panel_heavy_ = std::max<std::int64_t>(max_panel_heavy_, hv.size());
    }
    for (std::int64_t j = 0; j < s.nnz; ++j) staged += code[j] < 0;
    code_ = DeviceBuffer<std::int32_t>(code);
    heavy_ptr_ = DeviceBuffer<std::int64_t>(heavy_ptr);
    heavy_cols_ = DeviceBuffer<std::int32_t>(heavy_cols);
    log_debug() << "cuda.spmm.aspt: " << num_panels_ << " panels of " << panel_rows_ << " rows, K slice " << slice_
                << ", " << heavy_cols.size() << " staged B rows serve " << staged << " of " << s.nnz
                << " nonzeros (max " << max_panel_heavy_ << " per panel), " << long_rows_.count() << " long rows";
    smem_bytes_ = static_cast<int>(max_panel_heavy_ * slice_ * sizeof(float));
    // The limit is raised once to the budget (a limit, not an allocation), so plans with different
    // tile sizes never lower it under one another.
    static const bool raised = [] {
      FK_CUDA_CHECK(cudaFuncSetAttribute(aspt_kernel<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBudget));
      FK_CUDA_CHECK(cudaFuncSetAttribute(aspt_kernel<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBudget));
      return true;
    }();
    (void)raised;
  }

  void run(const Context& ctx, const float* vals, DenseView<const float> b, DenseView<float> c) override {
    constexpr const char* kName = "cuda.spmm.aspt";
    check_spmm_operands(kName, s_, Op::kNoTrans, k_, b, c);
    vals = spmm_values(kName, s_, vals);
    if (s_.rows == 0) return;
    const dim3 grid(grid_for(num_panels_, 1), static_cast<unsigned>(ceil_div(k_, slice_)));
    // The slice is a power of two >= 4 whenever K % 4 == 0, so float4 lanes fit it exactly.
    if (vec4_ok(k_, b.data, c.data)) {
      aspt_kernel<4><<<grid, kThreads, smem_bytes_, stream_of(ctx)>>>(
          s_.rows, k_, slice_, slice_ / 4, panel_rows_, num_panels_, long_rows_.threshold(), s_.row_ptr,
          code_.data(), vals, heavy_ptr_.data(), heavy_cols_.data(), b.data, c.data);
    } else {
      aspt_kernel<1><<<grid, kThreads, smem_bytes_, stream_of(ctx)>>>(
          s_.rows, k_, slice_, slice_, panel_rows_, num_panels_, long_rows_.threshold(), s_.row_ptr,
          code_.data(), vals, heavy_ptr_.data(), heavy_cols_.data(), b.data, c.data);
    }
    FK_CUDA_CHECK_LAUNCH();
    long_rows_.run(ctx, s_.row_ptr, s_.col_idx, vals, b.data, c.data, k_);
  }

 private:
  CsrView s_;
  int k_;
  int slice_ = 1;
  int panel_rows_ = 16;
  std::int64_t num_panels_ = 0;
  std::int64_t max_panel_heavy_ = 0;
  int smem_bytes_ = 0;
  LongRows long_rows_;
  DeviceBuffer<std::int32_t> code_;
  DeviceBuffer<std::int64_t> heavy_ptr_;
  DeviceBuffer<std::int32_t> heavy_cols_;
};

class AsptSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.aspt"; }
  const char* summary() const override {
    return "adaptive sparse tiling: per row panel, B rows of heavy columns staged in shared memory, the "
           "rest row-wise";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (std::int64_t(p.k) > std::int64_t(65535) * kSlice)
      return "K above 65535 slices of 32 (the grid's y limit)";
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<AsptPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_aspt() { return std::make_unique<AsptSpmm>(); }

}  // namespace fk
