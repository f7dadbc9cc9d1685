// cuda.sddmm.tc_v{1,2,4,8}: tensor-core SDDMM sampled at a column-vector pattern, fp16/bf16
// operands, fp32 accumulation (Chen et al., SC'21, redone for mma.sync.m16n8k16).
//
// A warp takes a run of up to 16 vectors of one block row (tc::VectorCsrDeviceView::group_*, so
// the work is balanced whatever the row lengths) and computes, operands switched so the V <= 8
// rows of the block sit in the mma's n = 8 dimension,
//     Oᵀ (16 vectors x 8 rows) = B_sel (16 vectors x K) · A_blockᵀ (K x 8 rows)
// in slices of 32 columns of K, two m16n8k16 tiles per slice. The reduction runs over K, so its
// order is free: lane (g, q) loads columns 8q .. 8q+7 of the slice with one 128-bit load from each
// of B rows g and g + 8 and from A row g, and those registers are the mma fragments as they are
// (tile 1 takes columns 8q .. 8q+3, tile 2 columns 8q+4 .. 8q+7). Each lane ends with vectors g
// and g + 8 at rows 2q and 2q + 1, adjacent in the vector layout.
#include <memory>
#include <string>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/sddmm_common.cuh"
#include "kernels/cuda/tc_common.cuh"

namespace fk {
namespace tc {
namespace {

constexpr int kWarps = 4;
constexpr int kSliceK = 32;

template <class T, int V, bool kVec8>
__global__ void __launch_bounds__(kWarps * kWarpSize)
    sddmm_kernel(VectorCsrDeviceView s, const HalfBits* __restrict__ a, const HalfBits* __restrict__ b, int k,
                 bool scaled, float* __restrict__ out) {
  const int lane = threadIdx.x % kWarpSize;
  const int g = lane / 4, q = lane % 4;
  for (std::int64_t task = std::int64_t(blockIdx.x) * kWarps + threadIdx.x / kWarpSize; task < s.groups;
       task += std::int64_t(gridDim.x) * kWarps) {
    const std::int64_t br = s.group_block[task], j0 = s.group_first[task], end = s.block_ptr[br + 1];
    const std::int64_t row = br * V + g;
    const HalfBits* arow = (g < V && row < s.rows) ? a + row * k : nullptr;
    const std::int64_t j_lo = j0 + g, j_hi = j0 + g + 8;
    const HalfBits* b_lo = j_lo < end ? b + std::int64_t(__ldg(s.col_idx + j_lo)) * k : nullptr;
    const HalfBits* b_hi = j_hi < end ? b + std::int64_t(__ldg(s.col_idx + j_hi)) * k : nullptr;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll 4
    for (int k0 = 0; k0 < k; k0 += kSliceK) {
      const int kc = k0 + 8 * q;
      const uint4 xa = load8<kVec8>(arow, kc, k);
      const uint4 x_lo = load8<kVec8>(b_lo, kc, k);
      const uint4 x_hi = load8<kVec8>(b_hi, kc, k);
      mma_16816<T>(acc, {x_lo.x, x_hi.x, x_lo.y, x_hi.y}, {xa.x, xa.y});
      mma_16816<T>(acc, {x_lo.z, x_hi.z, x_lo.w, x_hi.w}, {xa.z, xa.w});
    }
    // acc = {O[vec g][row 2q], O[g][2q+1], O[g+8][2q], O[g+8][2q+1]}; rows past M hold 0 (A row 0).
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t j = h == 0 ? j_lo : j_hi;
      if (j >= end) continue;
#pragma unroll
      for (int rr = 0; rr < 2; ++rr) {
        const int r = 2 * q + rr;
        if (r >= V) continue;
        float x = acc[2 * h + rr];
        if (scaled) {
          const HalfBits v = __ldg(s.vals + j * V + r);
          if constexpr (std::is_same_v<T, F16>)
            x *= __half2float(__ushort_as_half(v));
          else
            x *= __bfloat162float(__ushort_as_bfloat16(v));
        }
        out[j * V + r] = x;
      }
    }
  }
}

template <class T, int V>
void launch(const Context& ctx, const VectorCsrDeviceView& s, const HalfBits* a, const HalfBits* b, int k,
            bool scaled, float* out) {
  const unsigned grid = grid_for_warps(s.groups, kWarps);
  if (vec8_ok(k, a, b))
    sddmm_kernel<T, V, true><<<grid, kWarps * kWarpSize, 0, stream_of(ctx)>>>(s, a, b, k, scaled, out);
  else
    sddmm_kernel<T, V, false><<<grid, kWarps * kWarpSize, 0, stream_of(ctx)>>>(s, a, b, k, scaled, out);
  FK_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_v(const Context& ctx, const VectorCsrDeviceView& s, const HalfBits* a, const HalfBits* b, int k,
              bool scaled, float* out) {
  switch (s.v) {
    case 1: return launch<T, 1>(ctx, s, a, b, k, scaled, out);
    case 2: return launch<T, 2>(ctx, s, a, b, k, scaled, out);
    case 4: return launch<T, 4>(ctx, s, a, b, k, scaled, out);
    case 8: return launch<T, 8>(ctx, s, a, b, k, scaled, out);
    default: FK_CHECK(false, "tensor-core SDDMM: vector length " << s.v << " is not 1, 2, 4 or 8");
  }
}

}  // namespace

void sddmm(const Context& ctx, Precision precision, const VectorCsrDeviceView& s, DenseView<const HalfBits> a,
           DenseView<const HalfBits> b, bool scaled, float* out) {
  FK_CHECK(a.rows == s.rows && b.rows == s.cols && a.cols == b.cols,
           "tensor-core SDDMM: S is " << s.rows << " x " << s.cols << ", A " << a.rows << " x " << a.cols << ", B "
                                      << b.rows << " x " << b.cols);
  FK_CHECK(a.cols >= 1 && a.cols <= INT32_MAX, "tensor-core SDDMM: K = " << a.cols << " out of range");
  if (s.groups == 0) return;
  const int k = static_cast<int>(a.cols);
  with_half_type(precision, "tensor-core SDDMM",
                 [&](auto t) { launch_v<decltype(t)>(ctx, s, a.data, b.data, k, scaled, out); });
}

}  // namespace tc

namespace {

// The fp32 plan interface over tc::sddmm: each run rounds A and B to 16 bits on the device, runs
// the kernel into the vector layout, and scatters the results back to S's order, scaling there by
// S's fp32 values (so only the dot products are computed in reduced precision).
class TcSddmmPlan : public SddmmPlan {
 public:
  TcSddmmPlan(const Context& ctx, const char* name, const CsrView& s, int k, int v, Precision precision)
      : name_(name),
        s_(s),
        k_(k),
        pattern_(ctx, s, v, precision),
        a_half_(s.rows * std::int64_t(k)),
        b_half_(s.cols * std::int64_t(k)),
        vec_out_(pattern_.stored()) {}

  void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands(name_.c_str(), s_, k_, a, b, out);
    tc::round_to_half(ctx, pattern_.precision(), a.data, a.size(), a_half_.data());
    tc::round_to_half(ctx, pattern_.precision(), b.data, b.size(), b_half_.data());
    tc::sddmm(ctx, pattern_.precision(), pattern_.view(), {a_half_.data(), a.rows, a.cols},
              {b_half_.data(), b.rows, b.cols}, false, vec_out_.data());
    tc::scatter_from_vectors(ctx, vec_out_.data(), pattern_.source(), pattern_.stored(), s_vals, out);
  }

 private:
  std::string name_;
  CsrView s_;
  int k_;
  tc::EncodedPattern pattern_;
  DeviceBuffer<HalfBits> a_half_, b_half_;
  DeviceBuffer<float> vec_out_;
};

}  // namespace

std::unique_ptr<SddmmVariant> make_cuda_sddmm_tc(int v) {
  return std::make_unique<tc::TcVariant<SddmmVariant, SddmmPlan, TcSddmmPlan>>("sddmm", v);
}

}  // namespace fk
