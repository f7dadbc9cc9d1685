// cuda.sddmm.aspt: ASpT on the GPU (Hong et al., PPoPP'19, sections 4.3 and 5), engineered for Hopper.
//
// Rows are grouped into panels (consecutive rows, about `target` nonzeros each; a row longer than
// that is cut into pieces of its own). Within a panel, the columns that occur at least twice are
// "heavy": their B rows are staged in shared memory once per panel (the dense tiles of ASpT), the
// most frequent first up to the shared-memory capacity; every other nonzero reads its B row from
// global memory (the sparse remainder). One thread block takes one panel; its 8 warps split the
// panel's nonzeros into contiguous runs and walk them with A's row in registers and shuffle
// reductions (sddmm_common.cuh). K is processed in slices of at most 128 (narrower when B would not
// stay in L2, see choose_chunk), one launch per slice, so that a panel's heavy set can hold
// hundreds of B rows (K = 256 runs two launches over all panels).
//
// Preprocessing is done on the host in prepare: download the pattern, find each panel's heavy
// columns (OpenMP over panels), upload per-entry codes (a column >= 0, or ~slot for a heavy one),
// the panels, and the heavy column lists. The paper reorders each panel so that dense-tile entries
// come first; here the code of every entry is kept in S's own order instead: one generic load
// reads a heavy row from shared memory or a light one from global memory, so heavy and light
// entries of a warp step share one instruction stream without divergence, and neither the scale
// factors nor the output go through a permutation. The codes replace the column indices, so the
// run reads no more index bytes than S itself.
#include <omp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/log.hpp"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/sddmm_common.cuh"

namespace fk {
namespace {

using namespace sddmm_cuda;  // NOLINT: kernel-local helpers

constexpr int kAsptChunk = 128;                // K chunk staged per pass
constexpr int kAsptSmemBytes = 96 * 1024;      // per block: two blocks per SM
constexpr int kAsptMaxSlots = 8192;            // heavy rows per panel at most (tiny K)
constexpr int kAsptMinReuse = 2;               // a column is heavy in a panel from this many nonzeros

struct AsptPanel {
  std::int64_t e0, e1;            // entries [e0, e1)
  std::int64_t row_begin, row_end;  // rows [row_begin, row_end) containing them
  std::int64_t heavy_begin;       // into the heavy column list
  std::int32_t heavy_count;       // staged rows (0 for pieces of a long row)
  std::int32_t pad = 0;
};

struct AsptArgs {
  const std::int64_t* row_ptr;
  const std::int32_t* codes;  // nnz: column, or ~slot for a heavy column of the panel
  const AsptPanel* panels;
  std::int64_t num_panels;
  const std::int32_t* heavy_cols;
  const float* a;
  const float* b;
  int k, stride;
  int k0, kc;      // this launch's K slice
  ChunkMode mode;  // how it combines with earlier slices
  const float* scale;
  float* out;
};

template <class Cfg>
__global__ void __launch_bounds__(kWalkThreads, 2) aspt_kernel(AsptArgs p) {
  float* smem = dynamic_smem<float>();
  const int warp = threadIdx.x >> 5;
  GroupWalker<Cfg, SrcHybrid> w(p.a, p.k, SrcHybrid{p.b, p.k, p.k0, smem, p.stride});
  const MetaCodes meta{p.codes};
  const OutDirect out{p.out, p.scale};
  w.set_chunk(p.k0, p.kc);
  for (std::int64_t pi = blockIdx.x; pi < p.num_panels; pi += gridDim.x) {
    const AsptPanel pan = p.panels[pi];
    if (pan.heavy_count > 0) {  // uniform over the block
      const std::int32_t* heavy = p.heavy_cols + pan.heavy_begin;
      stage_rows<Cfg::kVec>(smem, p.stride, p.b, p.k, p.k0, p.kc, pan.heavy_count, [&](int lr) { return heavy[lr]; });
      __syncthreads();
    }
    const std::int64_t n = pan.e1 - pan.e0;
    const std::int64_t span = ((n + kWalkWarps - 1) / kWalkWarps + 31) / 32 * 32;
    const std::int64_t t0 = pan.e0 + warp * span;
    const std::int64_t t1 = t0 + span < pan.e1 ? t0 + span : pan.e1;
    if (t0 < t1) {
      const std::int64_t start_row = find_row_from(p.row_ptr, pan.row_begin, t0, pan.row_end);
      w.walk_csr(p.row_ptr, start_row, pan.row_end, t0, t1, meta, out, p.mode);
    }
    if (pan.heavy_count > 0) __syncthreads();  // before the next panel restages
  }
}

class AsptPlan : public SddmmPlan {
 public:
  AsptPlan(const Context& ctx, const CsrView& s, int k) : s_(s), k_(k) {
    if (s.nnz == 0) return;
    chunk_ = choose_chunk(k, s.cols, l2_bytes(ctx), kAsptChunk);
    stride_ = (chunk_ + 3) / 4 * 4;
    const int smem_limit = static_cast<int>(ctx.gpu().props.sharedMemPerBlockOptin);
    const int budget = std::min(kAsptSmemBytes, smem_limit);
    cap_ = std::clamp(budget / (stride_ * 4), 0, kAsptMaxSlots);
    // About 4 panels per resident block (2 per SM) balances the tail; at least 1024 nonzeros per
    // panel so that staging is amortised, at most 32768 so that big matrices still spread out.
    target_ = std::clamp<std::int64_t>(s.nnz / (std::int64_t(sm_count(ctx)) * 2 * 4), 1024, 32768);
    build(s);
  }

  void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands("cuda.sddmm.aspt", s_, k_, a, b, out);
    if (s_.nnz == 0) return;
    const bool vec = vector_path_ok(a, b, k_);
    const std::size_t smem = static_cast<std::size_t>(max_heavy_) * stride_ * sizeof(float);
    const unsigned blocks = grid_blocks(panels_.size(), 1);
    for (int k0 = 0; k0 < k_; k0 += chunk_) {
      const int kc = std::min(chunk_, k_ - k0);
      const AsptArgs p{s_.row_ptr, codes_.data(), panels_.data(), panels_.size(), heavy_.data(), a.data, b.data,
                       k_, stride_, k0, kc, chunk_mode(k0, kc, k_), s_vals, out};
      dispatch_walk_narrow(kc, vec, [&](auto cfg) {
        using Cfg = decltype(cfg);
        // The limit is raised once per kernel to the budget every plan stays within (smem <=
        // budget), not per run: the host call would be timed with the kernel
        // (kernels/cuda/prefer_l1.cuh).
        static const bool raised = [&] {
          const int optin = static_cast<int>(ctx.gpu().props.sharedMemPerBlockOptin);
          FK_CUDA_CHECK(cudaFuncSetAttribute(aspt_kernel<Cfg>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             std::min(kAsptSmemBytes, optin)));
          return true;
        }();
        (void)raised;
        aspt_kernel<Cfg><<<blocks, kWalkThreads, smem, stream_of(ctx)>>>(p);
        FK_CUDA_CHECK_LAUNCH();
      });
    }
  }

 private:
  void build(const CsrView& s) {
    std::vector<std::int64_t> rp(s.rows + 1);
    std::vector<std::int32_t> col(s.nnz);
    hooks::copy_device_to_host(rp.data(), s.row_ptr, rp.size() * sizeof(std::int64_t));
    hooks::copy_device_to_host(col.data(), s.col_idx, col.size() * sizeof(std::int32_t));

    // Panels: consecutive rows up to `target_` nonzeros; a longer row is cut into pieces.
    std::vector<AsptPanel> panels;
    for (std::int64_t r = 0; r < s.rows;) {
      const std::int64_t e0 = rp[r];
      if (rp[r + 1] - e0 > target_) {
        for (std::int64_t e = e0; e < rp[r + 1]; e += target_)
          panels.push_back({e, std::min(e + target_, rp[r + 1]), r, r + 1, 0, 0});
        ++r;
        continue;
      }
      const std::int64_t r0 = r;
      while (r < s.rows && rp[r + 1] - e0 <= target_) ++r;
      if (rp[r] > e0) panels.push_back({e0, rp[r], r0, r, 0, 0});
    }

    // Heavy columns per panel, and the codes.
    std::vector<std::int32_t> codes(col.begin(), col.end());
    std::vector<std::vector<std::int32_t>> heavy(panels.size());
    std::int64_t covered = 0;
#pragma omp parallel reduction(+ : covered)
    {
      std::vector<std::int32_t> count(s.cols, 0), slot(s.cols, -1);
      std::vector<std::int32_t> touched, chosen;
#pragma omp for schedule(dynamic, 8)
      for (std::int64_t pi = 0; pi < static_cast<std::int64_t>(panels.size()); ++pi) {
        const AsptPanel& pan = panels[pi];
        if (pan.row_end - pan.row_begin < 2 || cap_ == 0) continue;  // a single row has no reuse
        touched.clear();
        for (std::int64_t e = pan.e0; e < pan.e1; ++e)
          if (count[col[e]]++ == 0) touched.push_back(col[e]);
        chosen.clear();
        for (std::int32_t c : touched)
          if (count[c] >= kAsptMinReuse) chosen.push_back(c);
        if (static_cast<int>(chosen.size()) > cap_) {  // keep the most reused
          std::nth_element(chosen.begin(), chosen.begin() + cap_, chosen.end(), [&](std::int32_t x, std::int32_t y) {
            return count[x] != count[y] ? count[x] > count[y] : x < y;
          });
          chosen.resize(cap_);
        }
        std::sort(chosen.begin(), chosen.end());  // stage B rows in address order
        for (std::size_t i = 0; i < chosen.size(); ++i) slot[chosen[i]] = static_cast<std::int32_t>(i);
        for (std::int64_t e = pan.e0; e < pan.e1; ++e) {
          const std::int32_t sl = slot[col[e]];
          if (sl >= 0) {
            codes[e] = ~sl;
            ++covered;
          }
        }
        for (std::int32_t c : touched) count[c] = 0;
        for (std::int32_t c : chosen) slot[c] = -1;
        heavy[pi] = chosen;
      }
    }
    std::vector<std::int32_t> heavy_all;
    for (std::size_t pi = 0; pi < panels.size(); ++pi) {
      panels[pi].heavy_begin = static_cast<std::int64_t>(heavy_all.size());
      panels[pi].heavy_count = static_cast<std::int32_t>(heavy[pi].size());
      max_heavy_ = std::max(max_heavy_, panels[pi].heavy_count);
      heavy_all.insert(heavy_all.end(), heavy[pi].begin(), heavy[pi].end());
    }
    log_debug() << "cuda.sddmm.aspt: " << panels.size() << " panels, up to " << max_heavy_
                << " staged B rows per panel, heavy columns cover " << covered << " of " << s.nnz << " nonzeros";
    panels_ = DeviceBuffer<AsptPanel>(panels);
    codes_ = DeviceBuffer<std::int32_t>(codes);
    heavy_ = DeviceBuffer<std::int32_t>(heavy_all);
  }

  CsrView s_;
  int k_;
  int chunk_ = 0, stride_ = 0, cap_ = 0;
  std::int32_t max_heavy_ = 0;
  std::int64_t target_ = 0;
  DeviceBuffer<AsptPanel> panels_;
  DeviceBuffer<std::int32_t> codes_;  // nnz, S's order
  DeviceBuffer<std::int32_t> heavy_;  // heavy columns of every panel, concatenated
};

class AsptSddmm : public SddmmVariant {
 public:
  const char* name() const override { return "cuda.sddmm.aspt"; }
  const char* summary() const override {
    return "ASpT: row panels, B rows of heavy columns staged in shared memory, the rest from global memory";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::unique_ptr<SddmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<AsptPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SddmmVariant> make_cuda_sddmm_aspt() { return std::make_unique<AsptSddmm>(); }

}  // namespace fk
