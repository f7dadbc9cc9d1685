#pragma once
// Tensor-core SpMM and SDDMM on the column-vector encoding (core/vector_csr.hpp), fp16 or bf16
// operands with fp32 accumulation (Chen et al., SC'21, redone for mma.sync on sm_80 and newer).
// These are the raw kernels on data already encoded and converted; the registered variants
// (cuda.spmm.tc_v*, cuda.sddmm.tc_v*) wrap them behind the fp32 plan interface, and the benchmark
// (bench/tc_bench.cu) times them alone. Host-callable, no CUDA headers. CUDA builds only.
#include <cstdint>
#include <vector>

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

// The staged SpMM's form of an encoding (kernels/cuda/spmm_tc_staged.cu): each block row's vectors
// dealt into steps of 16 slots (kernels/tc_steps.hpp), with their columns and 16-bit values laid
// out in the order the kernel's lanes load them.
struct StagedVectorCsrView {
  int v = 1;
  std::int64_t rows = 0, cols = 0, block_rows = 0;
  const std::int64_t* step_ptr = nullptr;   // block_rows + 1, in steps
  // StagedVectorCsr::kParts + 1 cuts of the block rows into parts of about equal steps, which the
  // kernel's warps share out: the first block row of each part, and its first step.
  const std::int64_t* part_block_row = nullptr;
  const std::int32_t* part_step = nullptr;
  // steps x 16: each slot's staged row r as 2r + (bit 2 of r), r = c for column c and r = cols (a
  // zero row) for an empty slot
  const std::uint16_t* step_rows = nullptr;
  const HalfBits* step_vals = nullptr;       // steps x v x 16: the values of each slot, row by row
};

// The map from each stored value of an encoding to its entry of S (HostVectorCsr::source: -1 for
// padding) on the device in 32 bits, 4 bytes a stored value less than the host's 64: the variants
// refuse S of more nonzeros (TcVariant::why_not), and this throws fk::Error for them.
DeviceBuffer<std::int32_t> device_source_map(const std::vector<std::int64_t>& source);

class StagedVectorCsr {
 public:
  static constexpr std::int64_t kParts = 16384;  // more than any GPU's warps in the staged kernel

  StagedVectorCsr() = default;
  // `host`'s values rounded to `precision` (fp16 or bf16).
  StagedVectorCsr(const HostVectorCsr& host, Precision precision);
  StagedVectorCsrView view() const;
  HalfBits* vals() { return step_vals_.data(); }  // to load new values in place
  // Per value of step_vals: the position of that entry in the CSR matrix `host` was encoded from
  // (HostVectorCsr::source), or -1 for padding.
  const std::int32_t* source() const { return source_.data(); }
  std::int64_t stored() const { return source_.size(); }

 private:
  int v_ = 1;
  std::int64_t rows_ = 0, cols_ = 0, block_rows_ = 0;
  DeviceBuffer<std::int64_t> step_ptr_, part_block_row_;
  DeviceBuffer<std::int32_t> part_step_;
  DeviceBuffer<std::uint16_t> step_rows_;
  DeviceBuffer<HalfBits> step_vals_;
  DeviceBuffer<std::int32_t> source_;  // 32-bit (tc::device_source_map)
};

// Whether ctx's GPU has the mma.sync fp16/bf16 instructions these kernels use (sm_80 or newer).
bool supported(const Context& ctx);

// C = S · B on ctx's stream. S is M x N (v in {1, 2, 4, 8}), B is N x K in `precision`, C is M x K
// fp32, all row-major device memory; C is overwritten. Any K >= 1 (16-byte loads when K % 8 == 0).
void spmm(const Context& ctx, Precision precision, const VectorCsrDeviceView& s, DenseView<const HalfBits> b,
          DenseView<float> c);

// Whether a 16-column slice of B with `cols` rows (plus a zero row) fits in one block's shared
// memory on ctx's GPU beside the rings of at least 8 warps (whose size grows with v), as
// spmm_staged needs.
bool staged_fits(const Context& ctx, std::int64_t cols, int v);

// Whether the plans of cuda.spmm.tc_v* run the staged kernel on `e` at this K: where B's slice fits,
// S has at least kStagedMinRows rows (with fewer block rows than that the slice's warps run short of
// work), its steps fit the kernel's 32-bit offsets (staged_indexes_fit), and the work, stored vectors x 16-column slices of K, is at least kStagedWorkPerColumn x N
// (every SM copies the N rows of its slice, so the copy's cost grows with N and must be paid back).
// Set on an H200 on tc_bench's default set and a first out-of-sample set (139 of 150 problems within
// 10% of the faster kernel), then checked on a second one: 21 of 24, worst 1.18x
// (docs/benchmarks/tensor-core.md).
constexpr double kStagedWorkPerColumn = 150;
constexpr std::int64_t kStagedMinRows = 1000;
bool staged_pays(const Context& ctx, const HostVectorCsr& e, int k);

// spmm's result through the staged kernel: the same contract, S in its staged form. Throws
// fk::Error when B's slice does not fit (staged_fits).
void spmm_staged(const Context& ctx, Precision precision, const StagedVectorCsrView& s, DenseView<const HalfBits> b,
                 DenseView<float> c);

// out[j * v + r] = scale * dot(A[block * v + r, :], B[col_j, :]) for every stored value of S (vector
// layout, s.vectors * v floats; zero where block * v + r >= M). scale = S's stored value when
// `scaled`, else 1. A is M x K and B is N x K in `precision`. Any K >= 1.
void sddmm(const Context& ctx, Precision precision, const VectorCsrDeviceView& s, DenseView<const HalfBits> a,
           DenseView<const HalfBits> b, bool scaled, float* out);

}  // namespace fk::tc
