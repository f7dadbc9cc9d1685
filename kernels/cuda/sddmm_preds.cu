// cuda.sddmm.preds: PRedS (Yu et al.), engineered for Hopper.
//
//   VCT  1-D tiles of Ts consecutive nonzeros (in S's CSR order) per warp. Ts is chosen in prepare
//        from nnz and the SM count (at least 4 waves of the resident warps, 128..2048 entries), so
//        a row with millions of nonzeros is spread over many warps and empty rows cost nothing. The first row of every tile is found once in prepare (one bisection per tile).
//   IIR  32/G dot products interleaved per warp instruction (G lanes each); at K = 32, 8 lanes x
//        float4 per nonzero and 4 nonzeros per warp.
//   WMT  for K > 32 each lane of a group handles K/G elements (G = 8 up to K = 256, 16 up to 512,
//        32 up to 1024); partial sums are combined by shuffles (a transposing butterfly).
//   Residue: K % 4 != 0 or unaligned A/B take the scalar configuration; tile tails and K tails are
//        predicated; K is processed in slices (one launch each) beyond 1024 (vector) / 256
//        (scalar) floats, or narrower when B would not stay in L2 (choose_chunk).
// Within a tile the walker keeps A[i,:] in registers while it walks row i (sddmm_common.cuh).
#include <memory>

#include "core/device_buffer.hpp"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/sddmm_common.cuh"

namespace fk {
namespace {

using namespace sddmm_cuda;  // NOLINT: kernel-local helpers

struct PredsArgs {
  const std::int64_t* row_ptr;
  const std::int32_t* col;
  const std::int64_t* tile_rows;  // first row of each tile
  std::int64_t rows, nnz, tile, num_tiles;
  const float* a;
  const float* b;
  int k;
  int k0, kc;      // this launch's K slice
  ChunkMode mode;  // how it combines with earlier slices
  const float* scale;
  float* out;
};

// tile_rows[t] = the row of entry t * tile.
__global__ void preds_tile_rows_kernel(const std::int64_t* __restrict__ rp, std::int64_t rows, std::int64_t tile,
                                       std::int64_t num_tiles, std::int64_t* __restrict__ tile_rows) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < num_tiles; t += stride)
    tile_rows[t] = find_row(rp, rows, t * tile);
}

template <class Cfg>
__global__ void __launch_bounds__(kWalkThreads, 2) preds_kernel(PredsArgs p) {
  const std::int64_t warp = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
  GroupWalker<Cfg, SrcGlobal> w(p.a, p.k, SrcGlobal{p.b, p.k, 0});
  const MetaCodes meta{p.col};
  const OutDirect out{p.out, p.scale};
  w.set_chunk(p.k0, p.kc);
  w.src.k0 = p.k0;
  for (std::int64_t tile = warp; tile < p.num_tiles; tile += warps) {
    const std::int64_t t0 = tile * p.tile;
    const std::int64_t t1 = t0 + p.tile < p.nnz ? t0 + p.tile : p.nnz;
    w.walk_csr(p.row_ptr, p.tile_rows[tile], p.rows, t0, t1, meta, out, p.mode);
  }
}

class PredsPlan : public SddmmPlan {
 public:
  PredsPlan(const Context& ctx, const CsrView& s, int k) : s_(s), k_(k) {
    if (s.nnz == 0) return;
    // A warp takes one tile (blocks = tiles / 8). At least 4 waves of the resident warps (2
    // blocks of 8 warps per SM) keep the tail short; a tile shorter than 128 nonzeros would pay
    // its start (tile row, row search, A load: three dependent loads) too often.
    const std::int64_t resident_warps = static_cast<std::int64_t>(sm_count(ctx)) * 2 * kWalkWarps;
    std::int64_t tile = 128;
    while (tile < 2048 && tile * 2 * resident_warps * 4 <= s.nnz) tile *= 2;
    tile_ = tile;
    num_tiles_ = (s.nnz + tile - 1) / tile;
    tile_rows_ = DeviceBuffer<std::int64_t>(num_tiles_);
    const unsigned blocks = std::min(grid_blocks(num_tiles_, 256), 65535u * 16u);
    preds_tile_rows_kernel<<<blocks, 256, 0, stream_of(ctx)>>>(s.row_ptr, s.rows, tile_, num_tiles_,
                                                               tile_rows_.data());
    FK_CUDA_CHECK_LAUNCH();
  }

  void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands("cuda.sddmm.preds", s_, k_, a, b, out);
    if (s_.nnz == 0) return;
    const bool vec = vector_path_ok(a, b, k_);
    const int chunk = choose_chunk(k_, s_.cols, l2_bytes(ctx), walk_max_chunk(vec));
    const unsigned blocks = grid_blocks(num_tiles_, kWalkWarps);
    for (int k0 = 0; k0 < k_; k0 += chunk) {
      const int kc = std::min(chunk, k_ - k0);
      const PredsArgs p{s_.row_ptr, s_.col_idx, tile_rows_.data(), s_.rows, s_.nnz, tile_, num_tiles_,
                        a.data, b.data, k_, k0, kc, chunk_mode(k0, kc, k_), s_vals, out};
      dispatch_walk(kc, vec, [&](auto cfg) {
        using Cfg = decltype(cfg);
        prefer_l1<preds_kernel<Cfg>>();
        preds_kernel<Cfg><<<blocks, kWalkThreads, 0, stream_of(ctx)>>>(p);
        FK_CUDA_CHECK_LAUNCH();
      });
    }
  }

 private:
  CsrView s_;
  int k_;
  std::int64_t tile_ = 0, num_tiles_ = 0;
  DeviceBuffer<std::int64_t> tile_rows_;  // num_tiles_ first rows
};

class PredsSddmm : public SddmmVariant {
 public:
  const char* name() const override { return "cuda.sddmm.preds"; }
  const char* summary() const override {
    return "PRedS: warp per 1-D tile of nonzeros, A row in registers, interleaved float4 dot products";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::unique_ptr<SddmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<PredsPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SddmmVariant> make_cuda_sddmm_preds() { return std::make_unique<PredsSddmm>(); }

}  // namespace fk
