#pragma once
// Tensor-core SpMM and SDDMM on the column-vector encoding (core/vector_csr.hpp), fp16 or bf16
// operands with fp32 accumulation (Chen et al., SC'21, redone for mma.sync on sm_80 and newer).
// These are the raw kernels on data already encoded and converted; the registered variants
// (cuda.spmm.tc_v*, cuda.sddmm.tc_v*) wrap them behind the fp32 plan interface, and the benchmark
// (bench/tc_bench.cu) times them alone. Host-callable, no CUDA headers. CUDA builds only.
#include <cstdint>

#include "core/context.hpp"
#include "core/dense.hpp"
#include "core/device_buffer.hpp"
#include "core/half.hpp"
#include "core/vector_csr.hpp"

namespace fk::tc {

// A column-vector encoding on the device, values in 16 bits (fp16 or bf16: the caller's choice).
struct VectorCsrDeviceView {
  int v = 1;
  std::int64_t rows = 0, cols = 0;          // M x N of the encoded matrix
  std::int64_t block_rows = 0, vectors = 0;
  const std::int64_t* block_ptr = nullptr;  // block_rows + 1
  const std::int32_t* col_idx = nullptr;    // vectors
  const HalfBits* vals = nullptr;           // vectors * v, vals[j * v + r]
  // SDDMM's work items: runs of up to 16 vectors of one block row (a warp's share).
  std::int64_t groups = 0;
  const std::int64_t* group_block = nullptr;  // groups: the block row of each run
  const std::int64_t* group_first = nullptr;  // groups: its first vector
};

// Owning device copy of a HostVectorCsr with its values rounded to `precision` (fp16 or bf16).
class DeviceVectorCsr {
 public:
  DeviceVectorCsr() = default;
  DeviceVectorCsr(const HostVectorCsr& host, Precision precision);
  VectorCsrDeviceView view() const;
  HalfBits* vals() { return vals_.data(); }  // to load new values in place

 private:
  int v_ = 1;
  std::int64_t rows_ = 0, cols_ = 0, block_rows_ = 0, vectors_ = 0;
  DeviceBuffer<std::int64_t> block_ptr_;
  DeviceBuffer<std::int32_t> col_idx_;
  DeviceBuffer<HalfBits> vals_;
  DeviceBuffer<std::int64_t> group_block_, group_first_;
};

// Whether ctx's GPU has the mma.sync fp16/bf16 instructions these kernels use (sm_80 or newer).
bool supported(const Context& ctx);

// C = S · B on ctx's stream. S is M x N (v in {1, 2, 4, 8}), B is N x K in `precision`, C is M x K
// fp32, all row-major device memory; C is overwritten. Any K >= 1 (16-byte loads when K % 8 == 0).
void spmm(const Context& ctx, Precision precision, const VectorCsrDeviceView& s, DenseView<const HalfBits> b,
          DenseView<float> c);

// out[j * v + r] = scale * dot(A[block * v + r, :], B[col_j, :]) for every stored value of S (vector
// layout, s.vectors * v floats; zero where block * v + r >= M). scale = S's stored value when
// `scaled`, else 1. A is M x K and B is N x K in `precision`. Any K >= 1.
void sddmm(const Context& ctx, Precision precision, const VectorCsrDeviceView& s, DenseView<const HalfBits> a,
           DenseView<const HalfBits> b, bool scaled, float* out);

}  // namespace fk::tc
