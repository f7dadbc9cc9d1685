// cuda.ratio_spmm.fused: the fused ratio SpMM on the GPU (kernels/ratio_spmm.hpp).
//
// Mapping: a block of 8 warps takes 8 / P rows, P warps per row (P from the mean row length: 1,
// 2, 4 or 8), each warp a contiguous part of its row's nonzeros. A warp holds its row of A and its
// part of C's row in registers, K spread over the lanes (float4 per lane where K % 4 == 0 and the
// bases are 16-byte aligned). Per nonzero it loads the B row once, adds the lanes' products with a
// butterfly of shuffles (every lane ends with the whole dot product), forms the ratio and adds
// ratio x B row to its accumulators: one read of B per nonzero instead of the SDDMM's and the
// SpMM's two, and no ratio array in memory. Two nonzeros are in flight per step so that one's
// shuffles overlap the other's loads. The P parts of a row are added in shared memory in part
// order, so results do not depend on timing (bit-identical across runs).
//
// Bytes: 8·nnz of S, 4·K·(N' + 2M) of B, A and C, and 4·K·nnz of gathered B rows through L1/L2 (the
// SpMM's alone; the unfused pair gathers them twice). K is at most 1024 (32 floats a lane).
#include <algorithm>
#include <memory>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using cuda_spmm::ceil_div;
using cuda_spmm::kFullMask;
using cuda_spmm::kWarpSize;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarpSize;
constexpr int kMaxK = 1024;

// One lane's share of a K-wide row: with VEC, float4 groups q·32 + lane (q < NQ); without, the
// elements q·32 + lane. Positions at or past K read as 0 and are not stored.
template <int NQ, bool VEC>
struct LaneRow {
  static constexpr int kPer = VEC ? 4 : 1;
  static constexpr int kCount = NQ * kPer;
  float x[kCount];

  __device__ void zero() {
#pragma unroll
    for (int i = 0; i < kCount; ++i) x[i] = 0.0f;
  }
  __device__ void load(const float* __restrict__ row, int k, int lane) {
#pragma unroll
    for (int q = 0; q < NQ; ++q) {
      const int at = (q * kWarpSize + lane) * kPer;
      if constexpr (VEC) {
        const float4 v = at < k ? *reinterpret_cast<const float4*>(row + at) : make_float4(0, 0, 0, 0);
        x[4 * q] = v.x;
        x[4 * q + 1] = v.y;
        x[4 * q + 2] = v.z;
        x[4 * q + 3] = v.w;
      } else {
        x[q] = at < k ? row[at] : 0.0f;
      }
    }
  }
  __device__ void store(float* __restrict__ row, int k, int lane) const {
#pragma unroll
    for (int q = 0; q < NQ; ++q) {
      const int at = (q * kWarpSize + lane) * kPer;
      if (at >= k) continue;
      if constexpr (VEC)
        *reinterpret_cast<float4*>(row + at) = make_float4(x[4 * q], x[4 * q + 1], x[4 * q + 2], x[4 * q + 3]);
      else
        row[at] = x[q];
    }
  }
  __device__ float dot(const LaneRow& o) const {
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < kCount; ++i) s = fmaf(x[i], o.x[i], s);
    return s;
  }
  __device__ void axpy(float r, const LaneRow& o) {
#pragma unroll
    for (int i = 0; i < kCount; ++i) x[i] = fmaf(r, o.x[i], x[i]);
  }
};

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = kWarpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
  return v;
}

// Grid-stride over groups of kWarps / parts rows. Dynamic shared memory: kWarps x kCount x 32
// floats when parts > 1 (a warp's partial row in lane-major order).
template <int NQ, bool VEC>
__global__ void __launch_bounds__(kThreads)
    ratio_spmm_kernel(std::int64_t rows, int k, int parts, const std::int64_t* __restrict__ row_ptr,
                      const std::int32_t* __restrict__ col_idx, const float* __restrict__ vals,
                      const float* __restrict__ a, const float* __restrict__ b, float eps,
                      float* __restrict__ c) {
  using Row = LaneRow<NQ, VEC>;
  extern __shared__ float partial[];
  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int rows_per_block = kWarps / parts, part = warp % parts;
  const std::int64_t groups = (rows + rows_per_block - 1) / rows_per_block;
  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const std::int64_t row = g * rows_per_block + warp / parts;
    Row acc;
    acc.zero();
    if (row < rows) {
      Row ar;
      ar.load(a + row * k, k, lane);
      const std::int64_t j0 = row_ptr[row], len = row_ptr[row + 1] - j0;
      const std::int64_t p0 = j0 + len * part / parts, p1 = j0 + len * (part + 1) / parts;
      for (std::int64_t base = p0; base < p1; base += kWarpSize) {
        const int n = p1 - base < kWarpSize ? static_cast<int>(p1 - base) : kWarpSize;
        int my_col = 0;
        float my_val = 0.0f;
        if (lane < n) {
          my_col = col_idx[base + lane];
          my_val = vals[base + lane];
        }
        int e = 0;
        for (; e + 2 <= n; e += 2) {
          const int c0 = __shfl_sync(kFullMask, my_col, e), c1 = __shfl_sync(kFullMask, my_col, e + 1);
          const float v0 = __shfl_sync(kFullMask, my_val, e), v1 = __shfl_sync(kFullMask, my_val, e + 1);
          Row b0, b1;
          b0.load(b + std::int64_t(c0) * k, k, lane);
          b1.load(b + std::int64_t(c1) * k, k, lane);
          float d0 = ar.dot(b0), d1 = ar.dot(b1);
#pragma unroll
          for (int o = kWarpSize / 2; o > 0; o >>= 1) {
            d0 += __shfl_xor_sync(kFullMask, d0, o);
            d1 += __shfl_xor_sync(kFullMask, d1, o);
          }
          acc.axpy(v0 / (d0 + eps), b0);
          acc.axpy(v1 / (d1 + eps), b1);
        }
        if (e < n) {
          const int c0 = __shfl_sync(kFullMask, my_col, e);
          const float v0 = __shfl_sync(kFullMask, my_val, e);
          Row b0;
          b0.load(b + std::int64_t(c0) * k, k, lane);
          acc.axpy(v0 / (warp_sum(ar.dot(b0)) + eps), b0);
        }
      }
    }
    if (parts == 1) {
      if (row < rows) acc.store(c + row * k, k, lane);
      continue;
    }
    float* mine = partial + warp * Row::kCount * kWarpSize;
#pragma unroll
    for (int i = 0; i < Row::kCount; ++i) mine[i * kWarpSize + lane] = acc.x[i];
    __syncthreads();
    if (part == 0 && row < rows) {
      for (int p = 1; p < parts; ++p) {
        const float* other = mine + p * Row::kCount * kWarpSize;
#pragma unroll
        for (int i = 0; i < Row::kCount; ++i) acc.x[i] += other[i * kWarpSize + lane];
      }
      acc.store(c + row * k, k, lane);
    }
    __syncthreads();
  }
}

// Warps per row: enough that a warp's part is about 32 nonzeros or more.
int parts_for(double mean) {
  int parts = 1;
  while (parts < kWarps && mean >= 48.0 * parts) parts *= 2;
  return parts;
}

template <int NQ, bool VEC>
void launch(const Context& ctx, const CsrView& s, int k, int parts, const float* vals,
            const float* a, const float* b, float eps, float* c) {
  using Row = LaneRow<NQ, VEC>;
  const int rows_per_block = kWarps / parts;
  const std::int64_t blocks =
      std::min<std::int64_t>(ceil_div(s.rows, rows_per_block), cuda_spmm::kMaxBlocks);
  const std::size_t shared = parts > 1 ? sizeof(float) * kWarps * Row::kCount * kWarpSize : 0;
  ratio_spmm_kernel<NQ, VEC><<<static_cast<unsigned>(blocks), kThreads, shared, stream_of(ctx)>>>(
      s.rows, k, parts, s.row_ptr, s.col_idx, vals, a, b, eps, c);
  FK_CUDA_CHECK_LAUNCH();
}

class FusedRatioSpmmPlan : public RatioSpmmPlan {
 public:
  FusedRatioSpmmPlan(const CsrView& s, int k)
      : s_(s), k_(k), parts_(parts_for(s.rows > 0 ? double(s.nnz) / double(s.rows) : 0.0)) {}

  void run(const Context& ctx, const float* vals, DenseView<const float> a,
           DenseView<const float> b, float eps, DenseView<float> c) override {
    constexpr const char* kName = "cuda.ratio_spmm.fused";
    cuda_spmm::check_shapes(kName, s_, k_, b, c);
    FK_CHECK(a.rows == s_.rows && a.cols == k_,
             kName << ": A must be " << s_.rows << " x " << k_ << ", got " << a.rows << " x " << a.cols);
    vals = cuda_spmm::resolve_values(kName, s_, vals);
    if (s_.rows == 0) return;
    const bool vec = cuda_spmm::vec4_ok(k_, b.data, c.data) &&
                     reinterpret_cast<std::uintptr_t>(a.data) % 16 == 0;
    const int lanes_needed = vec ? (k_ + 3) / 4 : k_;
    const int nq = cuda_spmm::pow2_ceil(ceil_div(lanes_needed, kWarpSize));
    auto go = [&](auto nq_const, auto vec_const) {
      launch<decltype(nq_const)::value, decltype(vec_const)::value>(ctx, s_, k_, parts_, vals, a.data,
                                                                     b.data, eps, c.data);
    };
    using T = std::true_type;
    using F = std::false_type;
    if (vec) {
      switch (nq) {
        case 1: go(std::integral_constant<int, 1>{}, T{}); break;
        case 2: go(std::integral_constant<int, 2>{}, T{}); break;
        case 4: go(std::integral_constant<int, 4>{}, T{}); break;
        default: go(std::integral_constant<int, 8>{}, T{}); break;
      }
    } else {
      switch (nq) {
        case 1: go(std::integral_constant<int, 1>{}, F{}); break;
        case 2: go(std::integral_constant<int, 2>{}, F{}); break;
        case 4: go(std::integral_constant<int, 4>{}, F{}); break;
        case 8: go(std::integral_constant<int, 8>{}, F{}); break;
        case 16: go(std::integral_constant<int, 16>{}, F{}); break;
        default: go(std::integral_constant<int, 32>{}, F{}); break;
      }
    }
  }

 private:
  CsrView s_;
  int k_;
  int parts_;
};

class FusedRatioSpmm : public RatioSpmmVariant {
 public:
  const char* name() const override { return "cuda.ratio_spmm.fused"; }
  const char* summary() const override {
    return "warps per row, A and C rows in registers, each B row loaded once for its dot product "
           "and its update (FusedMM)";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (p.k > kMaxK) return "K above 1024 (a lane holds at most 32 floats of each row)";
    return {};
  }
  std::unique_ptr<RatioSpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<FusedRatioSpmmPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<RatioSpmmVariant> make_cuda_ratio_spmm_fused() {
  return std::make_unique<FusedRatioSpmm>();
}

}  // namespace fk
