// cuda.sddmm.convert: GPU-Convert (ETH SDDMM paper, section 5). S's CSR rows are expanded to a COO
// row array on the device once, in prepare; run() is then perfectly balanced nonzero-parallel
// work: the nonzeros are cut into units of kUnitSteps warp steps (a few dozen to a few hundred
// nonzeros) dealt to warps round-robin (grid-stride), or on smaller problems into one unit per
// resident warp, and each unit is unrolled over interleaved float4 dot products (the walker in
// sddmm_common.cuh, keyed by the COO row).
//
// What it trades against PRedS: no row search and no per-warp tile, so no imbalance beyond one
// unit and no dependence on row lengths, at the price of 4 more bytes per nonzero (the row array)
// and of A being re-read at every unit (a warp's consecutive units are far apart). Neighbouring
// warps work on neighbouring units, so the A row of a long row is read from L1/L2 by all of them
// at about the same time.
#include <algorithm>
#include <memory>

#include "core/device_buffer.hpp"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/sddmm_common.cuh"

namespace fk {
namespace {

using namespace sddmm_cuda;  // NOLINT: kernel-local helpers

// Warp steps per unit of work: A is reloaded once per unit and group (at K = 256 a step is 8
// nonzeros, so a unit of 32 reads A once for every 8 B rows per group). A unit's steps run one
// after another, each a round trip to memory for its indices and B rows, so when there are fewer
// steps than the resident warps could take four at a time, units shrink (down to one step) to put
// every warp to work: on the 2-300K-nonzero DLMC layers at K = 32 a unit of four steps gave the
// kernel a ~15 us critical path against ~9 us for one thread per nonzero (cuda.sddmm.coo).
constexpr int kUnitSteps = 4;
// ... but where every resident warp would walk at most this many steps, each takes exactly one
// unit of ceil(steps / resident warps) steps: units of four dealt round-robin leave some warps one
// unit more than others once the units outnumber the warps (the 256 x 2304 DLMC layer at K = 64:
// 2304 units of four steps for 2112 warps, a critical path of 8 steps where 5 suffice).
constexpr int kOneWaveMaxSteps = 32;

struct ConvertArgs {
  const std::int32_t* rows;  // nnz COO rows
  const std::int32_t* col;   // nnz columns
  std::int64_t nnz;
  const float* a;
  const float* b;
  int k;
  int k0, kc;      // this launch's K slice
  int unit_steps;  // warp steps per unit, 1..kOneWaveMaxSteps
  ChunkMode mode;  // how it combines with earlier slices
  const float* scale;
  float* out;
};

// Blocks per SM each configuration is compiled for. The float4 configurations of K chunks up to 32
// keep one float4 of A and U = 8 of B per lane: 64 registers hold them without spilling (ptxas,
// sm_90), so four blocks (32 warps) fit an SM, twice the loads in flight of the usual two. That
// matters on small problems, whose time is a few dependent warp steps: with more resident warps
// each walks fewer of them. The K <= 64 one (two float4 of A, 16 of B) takes three blocks at 80
// registers with 16 bytes of spills: 1.03x on the small matrices of >= 100K nonzeros, up to 1.34x
// (bcsstk13), unchanged on large ones (H100, docs/benchmarks/checks/convert-occupancy). Wider
// configurations need up to 118 registers and stay at two.
template <class Cfg>
constexpr int convert_min_blocks() {
  return Cfg::kVec && Cfg::kChunk <= 32 ? 4 : Cfg::kVec && Cfg::kChunk <= 64 ? 3 : 2;
}

template <class Cfg>
__global__ void __launch_bounds__(kWalkThreads, convert_min_blocks<Cfg>()) convert_kernel(ConvertArgs p) {
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
  GroupWalker<Cfg, SrcGlobal> w(p.a, p.k, SrcGlobal{p.b, p.k, p.k0});
  const MetaCoo meta{p.rows, p.col};
  const OutDirect out{p.out, p.scale};
  const std::int64_t unit = std::int64_t(Cfg::kStep) * p.unit_steps;
  const std::int64_t units = (p.nnz + unit - 1) / unit;
  w.set_chunk(p.k0, p.kc);  // the A slice stays valid from unit to unit while the row does
  for (std::int64_t u = warp; u < units; u += warps) {
    const std::int64_t t0 = u * unit;
    const std::int64_t t1 = t0 + unit < p.nnz ? t0 + unit : p.nnz;
    w.walk_keyed(0, t0, t1, meta, out, p.mode);
  }
}

// Blocks of convert_kernel<Cfg> resident per SM (the occupancy calculator; once per
// configuration and process).
template <class Cfg>
int resident_blocks_per_sm() {
  static const int blocks = [] {
    int n = 0;
    FK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, convert_kernel<Cfg>, kWalkThreads, 0));
    return std::max(n, 1);
  }();
  return blocks;
}

class ConvertPlan : public SddmmPlan {
 public:
  ConvertPlan(const Context& ctx, const CsrView& s, int k) : s_(s), k_(k), rows_(s.nnz) {
    expand_rows(ctx, s, rows_.data());
  }

  void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands("cuda.sddmm.convert", s_, k_, a, b, out);
    if (s_.nnz == 0) return;
    const bool vec = vector_path_ok(a, b, k_);
    const int chunk = choose_chunk(k_, s_.cols, l2_bytes(ctx), walk_max_chunk(vec));
    for (int k0 = 0; k0 < k_; k0 += chunk) {
      const int kc = std::min(chunk, k_ - k0);
      dispatch_walk(kc, vec, [&](auto cfg) {
        using Cfg = decltype(cfg);
        // With units of ceil(steps / resident warps) steps every warp takes at most one unit,
        // so no warp walks more steps than the fewest possible (a floor would leave some warps
        // two units: a 1.3x slower DLMC layer at K = 64). Resident warps as the occupancy
        // calculator counts them for this configuration. Beyond kOneWaveMaxSteps per warp,
        // units of kUnitSteps dealt round-robin.
        const std::int64_t steps = (s_.nnz + Cfg::kStep - 1) / Cfg::kStep;
        const std::int64_t resident =
            std::int64_t(sm_count(ctx)) * kWalkWarps * resident_blocks_per_sm<Cfg>();
        const std::int64_t per_warp = (steps + resident - 1) / resident;
        const int unit_steps = static_cast<int>(per_warp <= kOneWaveMaxSteps ? per_warp : kUnitSteps);
        const ConvertArgs p{rows_.data(), s_.col_idx, s_.nnz, a.data,     b.data,
                            k_,           k0,         kc,     unit_steps, chunk_mode(k0, kc, k_),
                            s_vals,       out};
        const std::int64_t unit = std::int64_t(Cfg::kStep) * unit_steps;
        const std::int64_t units = (s_.nnz + unit - 1) / unit;
        // Enough blocks to fill every SM (8 blocks of 256 threads at most), never more than there
        // are units: the grid-stride loop deals the units out evenly.
        const unsigned blocks =
            std::min(grid_blocks(units, kWalkWarps), static_cast<unsigned>(sm_count(ctx)) * 8u);
        prefer_l1<convert_kernel<Cfg>>();
        convert_kernel<Cfg><<<blocks, kWalkThreads, 0, stream_of(ctx)>>>(p);
        FK_CUDA_CHECK_LAUNCH();
      });
    }
  }

 private:
  CsrView s_;
  int k_;
  DeviceBuffer<std::int32_t> rows_;  // nnz COO row indices, built on the device in prepare
};

class ConvertSddmm : public SddmmVariant {
 public:
  const char* name() const override { return "cuda.sddmm.convert"; }
  const char* summary() const override {
    return "GPU-Convert: CSR expanded to COO on the device, balanced nonzero-parallel float4 dot products";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (p.sparse.rows > INT32_MAX) return "more than 2^31-1 rows: the COO row array is 32-bit";
    return {};
  }
  std::unique_ptr<SddmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<ConvertPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SddmmVariant> make_cuda_sddmm_convert() { return std::make_unique<ConvertSddmm>(); }

}  // namespace fk
