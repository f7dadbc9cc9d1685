// cuda.spmm.tc_v{1,2,4,8}: tensor-core SpMM on the column-vector encoding, fp16/bf16 operands,
// fp32 accumulation (Chen et al., SC'21, octet tiling redone for mma.sync.m16n8k16).
//
// A warp computes one block row (V rows of C) over a tile of 64 columns of K. Per step it takes
// 16 vectors of the block row and computes, with the operands switched so the V <= 8 sparse rows
// sit in the mma's n = 8 dimension,
//     C_tileᵀ (64 x 8) += B_selᵀ (64 x 16 vectors) · S_stepᵀ (16 vectors x 8 rows)
// as four m16n8k16 tiles. Lane (g, q) = (lane / 4, lane % 4) gathers, with one 128-bit load each,
// columns 8g .. 8g+7 of the B rows of vectors 2q, 2q+1, 2q+8 and 2q+9 — exactly the vectors its
// A fragments need — and byte permutes pair them up. The mma's M dimension is permuted so that
// tile t's rows g and g + 8 are K columns 8g + 2t and 8g + 2t + 1: then each lane's accumulators
// hold C columns 8g .. 8g+7 of rows 2q and 2q + 1, stored as two float4 pairs. No shared memory,
// no shuffles: the only traffic is the B gather every SpMM pays (from L2), two 16-bit values per
// lane per step, and C once.
//
// A warp per (block row, K tile) alone leaves the GPU mostly idle when there are few block rows
// (4096 rows at V = 8 and K = 64 are 512 warps, 4 per SM of an H200, and K = 64 ran no faster than
// K = 128), so long block rows are split: `split` warps of one thread block take every split-th
// step of the same block row and add their partial tiles through shared memory, in a fixed order
// (the result does not depend on scheduling).
#include <memory>
#include <optional>
#include <string>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"
#include "kernels/cuda/tc_common.cuh"

namespace fk {
namespace tc {
namespace {

constexpr int kWarps = 8;  // a power of two: the split of a block row divides it
constexpr int kTileK = 64;  // K columns of one warp: 8 lane groups x 8 columns

__device__ __forceinline__ std::uint32_t word(const uint4& x, int t) {
  return t == 0 ? x.x : t == 1 ? x.y : t == 2 ? x.z : x.w;
}

// A step's operands for lane (g, q) come in two stages, because the B rows' addresses depend on
// the column indices: the columns of its four vectors (2q, 2q+1, 2q+8, 2q+9 of the step; -1 past
// the block row's end) are loaded two steps ahead, the B rows and the value pairs one step ahead,
// so neither L2 round trip of a step waits on the other.
__device__ __forceinline__ void load_columns(const VectorCsrDeviceView& s, int q, std::int64_t j0, std::int64_t end,
                                             int (&col)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const std::int64_t j = j0 + 2 * q + (i & 1) + (i >> 1) * 8;
    col[i] = j < end ? __ldg(s.col_idx + j) : -1;
  }
}

template <int V, bool kVec8>
__device__ __forceinline__ void load_operands(const VectorCsrDeviceView& s, const HalfBits* __restrict__ b, int k,
                                              int kc, int g, int q, std::int64_t j0, std::int64_t end,
                                              const int (&col)[4], uint4 (&x)[4], std::uint32_t (&sv)[2]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) x[i] = load8<kVec8>(col[i] >= 0 ? b + std::int64_t(col[i]) * k : nullptr, kc, k);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::int64_t j = j0 + 2 * q + 8 * h;
    const std::uint32_t lo = (g < V && j < end) ? __ldg(s.vals + j * V + g) : 0u;
    const std::uint32_t hi = (g < V && j + 1 < end) ? __ldg(s.vals + (j + 1) * V + g) : 0u;
    sv[h] = lo | (hi << 16);
  }
}

template <class T, int V, bool kVec8>
__global__ void __launch_bounds__(kWarps * kWarpSize)
    spmm_kernel(VectorCsrDeviceView s, const HalfBits* __restrict__ b, int k, int ktiles, int split,
                float* __restrict__ c) {
  __shared__ float partial[kWarps][4][4][kWarpSize];  // lane-minor: conflict-free
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const int g = lane / 4, q = lane % 4;
  const int part = warp % split;
  // A block takes kWarps / split consecutive block rows (a panel) over one 64-column tile of K, and
  // consecutive blocks take consecutive panels on the same tile: 4-9% faster on an H100 at K = 256
  // (unchanged at K = 64) than giving one block row's tiles to the warps of a block, probably
  // because B's rows are more often still in L1 when a neighbouring warp needs them.
  const std::int64_t per_block = kWarps / split;
  const std::int64_t panels = (s.block_rows + per_block - 1) / per_block;
  // Every warp of a block runs the same iterations (the partial sums need __syncthreads).
  for (std::int64_t bt = blockIdx.x; bt < panels * ktiles; bt += gridDim.x) {
    const std::int64_t br = bt % panels * per_block + warp / split;
    const bool active = br < s.block_rows;
    const int kc = int(bt / panels) * kTileK + 8 * g;  // this lane's 8 columns
    float acc[4][4] = {};
    if (active) {
      const std::int64_t end = s.block_ptr[br + 1];
      const std::int64_t stride = std::int64_t(kVectorsPerStep) * split;
      uint4 x[4];
      std::uint32_t sv[2];
      int col[4], col_next[4];
      std::int64_t j0 = s.block_ptr[br] + std::int64_t(kVectorsPerStep) * part;
      load_columns(s, q, j0, end, col);
      load_columns(s, q, j0 + stride, end, col_next);
      if (j0 < end) load_operands<V, kVec8>(s, b, k, kc, g, q, j0, end, col, x, sv);
      for (; j0 < end; j0 += stride) {
        // Next step's gathers and the columns of the one after go out before this step's mma.
        uint4 xn[4] = {};
        std::uint32_t svn[2] = {};
        if (j0 + stride < end) {
          load_operands<V, kVec8>(s, b, k, kc, g, q, j0 + stride, end, col_next, xn, svn);
          load_columns(s, q, j0 + 2 * stride, end, col_next);
        }
#pragma unroll
        for (int t = 0; t < 4; ++t) {
          const std::uint32_t a[4] = {pack_low(word(x[0], t), word(x[1], t)), pack_high(word(x[0], t), word(x[1], t)),
                                      pack_low(word(x[2], t), word(x[3], t)), pack_high(word(x[2], t), word(x[3], t))};
          mma_16816<T>(acc[t], a, sv);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) x[i] = xn[i];
        sv[0] = svn[0], sv[1] = svn[1];
      }
    }
    if (split > 1) {  // part 0 adds the other parts' tiles, in part order
#pragma unroll
      for (int t = 0; t < 4; ++t)
#pragma unroll
        for (int e = 0; e < 4; ++e) partial[warp][t][e][lane] = acc[t][e];
      __syncthreads();
      if (part == 0)
        for (int p = 1; p < split; ++p)
#pragma unroll
          for (int t = 0; t < 4; ++t)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[t][e] += partial[warp + p][t][e][lane];
      __syncthreads();  // the next iteration overwrites `partial`
    }
    if (!active || part != 0) continue;
    // acc[t] = {C[2q][kc+2t], C[2q+1][kc+2t], C[2q][kc+2t+1], C[2q+1][kc+2t+1]}.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = 2 * q + h;
      const std::int64_t row = br * V + r;
      if (r >= V || row >= s.rows) continue;
      float out[8];
#pragma unroll
      for (int t = 0; t < 4; ++t) out[2 * t] = acc[t][h], out[2 * t + 1] = acc[t][2 + h];
      float* crow = c + row * k;
      if constexpr (kVec8) {
        if (kc < k) {
          *reinterpret_cast<float4*>(crow + kc) = make_float4(out[0], out[1], out[2], out[3]);
          *reinterpret_cast<float4*>(crow + kc + 4) = make_float4(out[4], out[5], out[6], out[7]);
        }
      } else {
#pragma unroll
        for (int i = 0; i < 8; ++i)
          if (kc + i < k) crow[kc + i] = out[i];
      }
    }
  }
}

// Warps per block row: enough that the grid has about kWarpsPerSm warps per SM, but each part
// keeps at least kMinStepsPerPart of the mean block row's 16-vector steps.
constexpr int kWarpsPerSm = 32;
constexpr double kMinStepsPerPart = 2.0;
int choose_split(const Context& ctx, const VectorCsrDeviceView& s, std::int64_t tasks) {
  const double steps = double(s.vectors) / double(std::max<std::int64_t>(s.block_rows, 1)) / kVectorsPerStep;
  const std::int64_t wanted = std::int64_t(ctx.gpu().props.multiProcessorCount) * kWarpsPerSm;
  int split = 1;
  while (split < kWarps && tasks * split < wanted && steps / (2 * split) >= kMinStepsPerPart) split *= 2;
  return split;
}

template <class T, int V>
void launch(const Context& ctx, const VectorCsrDeviceView& s, const HalfBits* b, int k, float* c) {
  const int ktiles = (k + kTileK - 1) / kTileK;
  const std::int64_t tasks = s.block_rows * ktiles;
  const int split = choose_split(ctx, s, tasks);
  const unsigned grid = grid_for_warps(tasks * split, kWarps);
  if (vec8_ok(k, b, c))
    spmm_kernel<T, V, true><<<grid, kWarps * kWarpSize, 0, stream_of(ctx)>>>(s, b, k, ktiles, split, c);
  else
    spmm_kernel<T, V, false><<<grid, kWarps * kWarpSize, 0, stream_of(ctx)>>>(s, b, k, ktiles, split, c);
  FK_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_v(const Context& ctx, const VectorCsrDeviceView& s, const HalfBits* b, int k, float* c) {
  switch (s.v) {
    case 1: return launch<T, 1>(ctx, s, b, k, c);
    case 2: return launch<T, 2>(ctx, s, b, k, c);
    case 4: return launch<T, 4>(ctx, s, b, k, c);
    case 8: return launch<T, 8>(ctx, s, b, k, c);
    default: FK_CHECK(false, "tensor-core SpMM: vector length " << s.v << " is not 1, 2, 4 or 8");
  }
}

}  // namespace

void spmm(const Context& ctx, Precision precision, const VectorCsrDeviceView& s, DenseView<const HalfBits> b,
          DenseView<float> c) {
  FK_CHECK(b.rows == s.cols && c.rows == s.rows && b.cols == c.cols,
           "tensor-core SpMM: S is " << s.rows << " x " << s.cols << ", B " << b.rows << " x " << b.cols << ", C "
                                     << c.rows << " x " << c.cols);
  FK_CHECK(b.cols >= 1 && b.cols <= INT32_MAX, "tensor-core SpMM: K = " << b.cols << " out of range");
  if (c.size() == 0) return;
  const int k = static_cast<int>(b.cols);
  with_half_type(precision, "tensor-core SpMM",
                 [&](auto t) { launch_v<decltype(t)>(ctx, s, b.data, k, c.data); });
}

}  // namespace tc

namespace {

// The fp32 plan interface over tc::spmm and tc::spmm_staged (chosen in the constructor by
// tc::staged_pays): each run lays S's values out as the chosen form's 16-bit values and rounds B,
// both on the device, then runs the kernel (C stays fp32).
class TcSpmmPlan : public SpmmPlan {
 public:
  TcSpmmPlan(const Context& ctx, const char* name, const CsrView& s, int k, int v, Precision precision)
      : name_(name), s_(s), k_(k), precision_(precision), b_half_(s.cols * std::int64_t(k)) {
    const HostVectorCsr host = tc::encode_pattern(ctx, s, v, precision);
    if (tc::staged_pays(ctx, host, k))
      staged_.emplace(host, precision);
    else
      gathered_.emplace(host, precision);
  }

  void run(const Context& ctx, const float* vals, DenseView<const float> b, DenseView<float> c) override {
    check_spmm_operands(name_.c_str(), s_, Op::kNoTrans, k_, b, c);
    const float* s_vals = spmm_values(name_.c_str(), s_, vals);
    tc::round_to_half(ctx, precision_, b.data, b.size(), b_half_.data());
    const DenseView<const HalfBits> b_half{b_half_.data(), b.rows, b.cols};
    if (staged_) {
      tc::gather_to_half(ctx, precision_, s_vals, staged_->source(), staged_->stored(), staged_->vals());
      tc::spmm_staged(ctx, precision_, staged_->view(), b_half, c);
    } else {
      gathered_->load_values(ctx, s_vals);
      tc::spmm(ctx, precision_, gathered_->view(), b_half, c);
    }
  }

 private:
  std::string name_;
  CsrView s_;
  int k_;
  Precision precision_;
  std::optional<tc::StagedVectorCsr> staged_;
  std::optional<tc::EncodedPattern> gathered_;
  DeviceBuffer<HalfBits> b_half_;
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_tc(int v) {
  return std::make_unique<tc::TcVariant<SpmmVariant, SpmmPlan, TcSpmmPlan>>("spmm", v);
}

}  // namespace fk
