#pragma once
// Device helpers of the tensor-core variants (kernels/cuda/spmm_tc_vector.cu and
// sddmm_tc_vector.cu): the mma.sync tile, 16-bit packing and guarded 128-bit loads, plus the
// host-called conversions between the fp32 plan interface and the kernels' 16-bit operands. nvcc
// only.
//
// Both kernels use mma.sync.m16n8k16 (fp32 accumulators) with the sparse side in the n = 8
// operand: a block row has at most 8 rows, so switching the operands (the paper's LHS/RHS switch)
// wastes 8 - V of 8 columns instead of 16 - V of 16 rows.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <vector>

#include <memory>
#include <string>

#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "kernels/cuda/tc_vector.hpp"
#include "kernels/variant.hpp"

namespace fk::tc {

constexpr int kWarpSize = 32;
constexpr int kVectorsPerStep = 16;  // the mma's k: vectors (SpMM) reduced per step
constexpr std::int64_t kMaxBlocks = std::int64_t(1) << 22;

struct F16 {};   // operands are IEEE fp16
struct BF16 {};  // operands are bfloat16

// Calls f(F16{}) or f(BF16{}) for `precision`; any other precision is an fk::Error naming `what`.
template <class F>
void with_half_type(Precision precision, const char* what, F&& f) {
  if (precision == Precision::kF16)
    f(F16{});
  else if (precision == Precision::kBF16)
    f(BF16{});
  else
    FK_CHECK(false, what << " takes fp16 or bf16 operands, not " << to_string(precision));
}

// d += A·B for one m16n8k16 tile. a: A (16 x 16, row-major fragment), b: B (16 x 8, column-major
// fragment), d: D (16 x 8), all in the PTX ISA's per-lane layout.
template <class T>
__device__ __forceinline__ void mma_16816(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, F16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#else
  (void)d, (void)a, (void)b;
  __trap();  // the host side refuses GPUs older than sm_80 (tc::supported)
#endif
}

// Two 16-bit values packed as an mma register: the low halves, or the high halves, of x and y
// (x's in the low 16 bits).
__device__ __forceinline__ std::uint32_t pack_low(std::uint32_t x, std::uint32_t y) { return __byte_perm(x, y, 0x5410); }
__device__ __forceinline__ std::uint32_t pack_high(std::uint32_t x, std::uint32_t y) { return __byte_perm(x, y, 0x7632); }

// Eight 16-bit values row[kc .. kc+7] as a uint4, zeros past k (and everywhere when row is null).
// kVec8: k % 8 == 0 and row 16-byte aligned, so one 128-bit load reads all eight or none are in
// range.
template <bool kVec8>
__device__ __forceinline__ uint4 load8(const HalfBits* __restrict__ row, int kc, int k) {
  if (row == nullptr) return make_uint4(0, 0, 0, 0);
  if constexpr (kVec8) {
    return kc < k ? __ldg(reinterpret_cast<const uint4*>(row + kc)) : make_uint4(0, 0, 0, 0);
  } else {
    std::uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::uint32_t lo = kc + 2 * i < k ? __ldg(row + kc + 2 * i) : 0u;
      const std::uint32_t hi = kc + 2 * i + 1 < k ? __ldg(row + kc + 2 * i + 1) : 0u;
      w[i] = lo | (hi << 16);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
}

inline unsigned grid_for_warps(std::int64_t warps, int warps_per_block) {
  const std::int64_t blocks = (std::max<std::int64_t>(warps, 1) + warps_per_block - 1) / warps_per_block;
  return static_cast<unsigned>(std::min(blocks, kMaxBlocks));
}

// 16-byte loads and stores of the dense operands apply.
inline bool vec8_ok(int k, const void* p, const void* q) {
  return k % 8 == 0 && reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && reinterpret_cast<std::uintptr_t>(q) % 16 == 0;
}

// ---- conversions between the fp32 plan interface and the kernels' operands (tc_common.cu) -----

// dst[i] = src[i] rounded to `precision`, n elements.
void round_to_half(const Context& ctx, Precision precision, const float* src, std::int64_t n, HalfBits* dst);
// dst[i] = src[source[i]] rounded to `precision`, or 0 where source[i] < 0 (padding).
void gather_to_half(const Context& ctx, Precision precision, const float* src, const std::int32_t* source,
                    std::int64_t n, HalfBits* dst);
// out[source[i]] = vec_out[i] * (scale ? scale[source[i]] : 1) for every i with source[i] >= 0.
void scatter_from_vectors(const Context& ctx, const float* vec_out, const std::int32_t* source, std::int64_t n,
                          const float* scale, float* out);

// A plan's copy of S's pattern in the column-vector encoding: the device encoding (its values
// are reloaded from S's order each run) and the map back to S's order.
// S's pattern (on the device) encoded with vector length v, on the host. Throws fk::Error when
// `precision` is not fp16 or bf16 or the GPU lacks the mma instructions.
HostVectorCsr encode_pattern(const Context& ctx, const CsrView& s, int v, Precision precision);

class EncodedPattern {
 public:
  // s: S's pattern on the device. Throws fk::Error as encode_pattern does.
  EncodedPattern(const Context& ctx, const CsrView& s, int v, Precision precision)
      : EncodedPattern(encode_pattern(ctx, s, v, precision), precision) {}
  EncodedPattern(const HostVectorCsr& host, Precision precision);
  // Lays out `vals` (S's order, device, fp32) as the encoding's 16-bit values.
  void load_values(const Context& ctx, const float* vals);
  VectorCsrDeviceView view() const { return dev_.view(); }
  const std::int32_t* source() const { return source_.data(); }
  std::int64_t stored() const { return source_.size(); }
  Precision precision() const { return precision_; }

 private:
  Precision precision_;
  DeviceVectorCsr dev_;
  DeviceBuffer<std::int32_t> source_;
};

// The registered face of a tensor-core variant, cuda.<op>.tc_v<V>, for SpMM and SDDMM alike:
// Base is SpmmVariant or SddmmVariant, PlanBase its plan interface, and Plan the plan class,
// constructed as Plan(ctx, name, s, k, v, precision).
template <class Base, class PlanBase, class Plan>
class TcVariant : public Base {
 public:
  TcVariant(const char* op, int v) : v_(v), name_(std::string("cuda.") + op + ".tc_v" + std::to_string(v)) {}
  const char* name() const override { return name_.c_str(); }
  const char* summary() const override {
    return "tensor cores (mma.sync fp16/bf16, fp32 accumulation) on a V x 1 column-vector encoding (SC'21)";
  }
  Backend backend() const override { return Backend::kCuda; }
  bool half_precision() const override { return true; }
  std::string why_not(const KernelProblem& p) const override {
    if (p.precision == Precision::kF32) return "takes fp16 or bf16 operands (ask for --precision fp16|bf16)";
    if (p.gpu_major > 0 && p.gpu_major < 8)
      return "needs an sm_80 or newer GPU (mma.sync with fp16/bf16 operands); this one is sm_" +
             std::to_string(p.gpu_major) + "x";
    if (p.sparse.nnz > INT32_MAX) return "indexes S's nonzeros in 32 bits; S has more than 2^31 - 1";
    return {};
  }
  std::unique_ptr<PlanBase> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return prepare_at(ctx, s, k, Precision::kF32);  // refused by EncodedPattern with the reason
  }
  std::unique_ptr<PlanBase> prepare_at(const Context& ctx, const CsrView& s, int k, Precision p) const override {
    return std::make_unique<Plan>(ctx, name(), s, k, v_, p);
  }

 private:
  int v_;
  std::string name_;
};

}  // namespace fk::tc
