#pragma once
// Small device-side operations called from host code in CUDA builds (implemented in
// kernels/cuda/device_ops.cu). All pointers are device pointers; work is queued on ctx's stream.
#include <cstdint>
#include <vector>

#include "core/context.hpp"
#include "core/device_buffer.hpp"

namespace fk {

// dst[j] = src[perm[j]] for j in [0, n), for one perm (a permutation of [0, n)) used many times:
// Sᵀ·B through a cached transpose gathers S's values into Sᵀ's order before every run. In
// destination order a transpose's source positions jump across all of src, so once src outgrows
// L2 nearly every 4-byte read fetches a 32-byte sector of its own from DRAM. Built once, the gather
// can instead visit the entries window by window of 2^window_bits consecutive source positions, in
// destination order within a window: a window's reads then hit L2 after the first touch of each
// sector, and its writes come in runs, one per row of Sᵀ that the window touches. Windows are used
// when src is larger than `windowed_above_bytes` (by default twice the device's L2: below that the
// plain gather's reads mostly hit L2 already, and the windowed one cost 3% on an 80 MB source).
//
// The windows need perm's segments: consecutive ranges of j on which perm increases (a
// transpose's rows: Sᵀ keeps each row's entries in S's order), given as `segments` + 1 offsets on
// the device. A segment's entries in one window are then one run of j, found by binary search,
// and the windowed gather is a list of pieces of those runs, window by window: 16 bytes a piece
// (about 0.2 bytes an entry on the nytimes and Netflix shapes) on top of perm itself, which the
// plain gather reads too. Without segments, or where their runs would be short (fewer than
// kMinMeanRun entries on average), the gather is plain. perm is kept in 32 bits when n allows.
//
// Measured (H200, nnz_vsr's Sᵀ·B at K = 1, docs/benchmarks/checks/value-gather): the gather took
// 0.69 of 1.09 ms on the nytimes shape (69M entries, 102,660 rows of Sᵀ) and 1.29 of 1.92 ms on the
// Netflix shape (100M, 17,770); with windows of 2^23 entries (32 MiB of src) the runs were 1.00 and
// about 1.47 ms. Smaller windows gave shorter write runs (nytimes: 1.09 ms at 2^20, no gain) and
// larger ones lost L2 hits (Netflix: 1.69 ms at 2^26). Those windows were sorted (source window,
// destination) pairs, 8 bytes an entry; the runs replaced them in session 39 (checks/session-39).
class ValueGather {
 public:
  static constexpr int kDefaultWindowBits = 23;
  static constexpr std::int64_t kMinMeanRun = 4;
  static constexpr std::int64_t kPieceEntries = 128;  // a warp's 4 passes
  ValueGather() = default;
  // Takes perm (on ctx's device); the work is finished when the constructor returns. segment_ptr:
  // null (segments = 0), or segments + 1 increasing offsets on the device from 0 to n, perm
  // increasing within each segment. windowed_above_bytes < 0: twice the device's L2.
  ValueGather(const Context& ctx, DeviceBuffer<std::int64_t> perm,
              const std::int64_t* segment_ptr = nullptr, std::int64_t segments = 0,
              int window_bits = kDefaultWindowBits, std::int64_t windowed_above_bytes = -1);
  // src and dst: n floats each on ctx's device, not overlapping. Queued on ctx's stream.
  void run(const Context& ctx, const float* src, float* dst) const;
  std::int64_t size() const { return n_; }
  bool windowed() const { return windowed_; }
  std::int64_t pieces() const { return piece_begin_.size(); }
  // The source position of every entry (perm) in 32 bits, on the device, for a caller that reads
  // src through it instead of gathering (SpmmPlan::run_permuted); null where that does not pay:
  // unless src fits in a quarter of L2, its scattered reads go to DRAM in the reader's critical
  // path. Measured on an H100 (Sᵀ·B, K = 1-512, docs/benchmarks/checks/permuted-values): `auto`
  // 1.05-1.29x faster per matrix on the SuiteSparse and DLMC matrices, nips and a minibatch shape
  // of 942K nonzeros (3.8 MB of values), but up to 1.7x slower on 20M nonzeros (80 MB) before
  // this bound, which gathers there as before.
  const std::int32_t* read_through_index() const { return read_through_ ? src32_.data() : nullptr; }

 private:
  std::int64_t n_ = 0;
  bool windowed_ = false;
  bool read_through_ = false;  // read_through_index() is not null
  DeviceBuffer<std::int32_t> src32_;  // perm, n <= 2^31 - 1
  DeviceBuffer<std::int64_t> src64_;  // perm, larger n
  // Windowed: dst[j] = src[perm[j]] for j in [piece_begin_[p], piece_end_[p]), window by window.
  DeviceBuffer<std::int64_t> piece_begin_, piece_end_;
};

// The device twin of transpose() (core/csr.hpp), with the same result element for element: Sᵀ's
// row offsets, its column indices in the same order within each row (increasing position in S),
// its values gathered when s.vals is not null (else none), and, when `perm` is not null, nnz
// entries with perm[j] = position in S of the j-th entry of Sᵀ. `s` holds device pointers
// (row_ptr: rows + 1 entries, col_idx and vals: nnz entries; columns within a row may be
// unsorted). A stable radix sort of S's column indices on ctx's stream; needs about 24 bytes per
// nonzero of temporary device memory besides the result. Returns with the work finished (the
// stream is synchronized). Throws fk::Error on a CPU context, or when S has more rows than Sᵀ's
// 32-bit column indices can hold.
DeviceCsr device_transpose(const Context& ctx, const CsrView& s,
                           DeviceBuffer<std::int64_t>* perm = nullptr);

// SparseFeatures::col_span of a device pattern, equal to sampled_column_span() (core/csr.hpp) on
// a host copy: one thread block per sampled row finds its smallest and largest column, and the
// host averages the spans in the same order. Synchronizes ctx's stream.
double sampled_column_span(const Context& ctx, const CsrView& s);

// SparseFeatures::neighbour_share of a device pattern, equal to sampled_neighbour_share()
// (core/csr.hpp) on a host copy: one thread block per sampled row counts its entries found in its
// predecessor, and the host averages the shares in the same order. Synchronizes ctx's stream.
double sampled_neighbour_share(const Context& ctx, const CsrView& s);

// Sᵀ's row offsets on the host (cols + 1 entries: the prefix sums of S's column counts), counted on
// the device from `s`'s column indices, so only cols + 1 numbers cross to the host instead of the
// nnz indices (the `auto` rules for Sᵀ·B look at Sᵀ's row lengths). Synchronizes ctx's stream.
std::vector<std::int64_t> transposed_row_offsets(const Context& ctx, const CsrView& s);

// The device's L2 size in bytes.
std::int64_t l2_bytes(const Context& ctx);
// The device's compute capability, major part (9 on an H100).
int compute_major(const Context& ctx);

// Offsets of rows [first, first + rows) of a CSR's row_ptr (device), rebased to start at 0
// (rows + 1 entries on the device): the row_ptr of that row slice. Synchronizes ctx's stream.
DeviceBuffer<std::int64_t> rebased_row_offsets(const Context& ctx, const std::int64_t* row_ptr,
                                               std::int64_t first, std::int64_t rows);

// dst[i] += src[i] for i < n, on ctx's stream (device pointers).
void add_into(const Context& ctx, std::int64_t n, const float* src, float* dst);

// dst[r * dst_ld + c] = src[r * src_ld + c] for r < rows, c < cols (row-major blocks of floats), on
// ctx's stream (device pointers).
void copy_block(const Context& ctx, std::int64_t rows, std::int64_t cols, const float* src,
                std::int64_t src_ld, float* dst, std::int64_t dst_ld);

}  // namespace fk
