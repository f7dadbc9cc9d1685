#pragma once
// Small device-side operations called from host code in CUDA builds (implemented in
// kernels/cuda/device_ops.cu). All pointers are device pointers; work is queued on ctx's stream.
#include <cstdint>
#include <vector>

#include "core/context.hpp"
#include "core/device_buffer.hpp"

namespace fk {

// dst[j] = src[perm[j]] for j in [0, n).
void gather_values(const Context& ctx, const float* src, const std::int64_t* perm, std::int64_t n, float* dst);

// The device twin of transpose() (core/csr.hpp), with the same result element for element: Sᵀ's
// row offsets, its column indices in the same order within each row (increasing position in S),
// its values gathered when s.vals is not null (else none), and, when `perm` is not null, nnz
// entries with perm[j] = position in S of the j-th entry of Sᵀ. `s` holds device pointers
// (row_ptr: rows + 1 entries, col_idx and vals: nnz entries; columns within a row may be
// unsorted). A stable radix sort of S's column indices on ctx's stream; needs about 24 bytes per
// nonzero of temporary device memory besides the result. Returns with the work finished (the
// stream is synchronized). Throws fk::Error on a CPU context, or when S has more rows than Sᵀ's
// 32-bit column indices can hold.
DeviceCsr device_transpose(const Context& ctx, const CsrView& s, DeviceBuffer<std::int64_t>* perm = nullptr);

// Sᵀ's row offsets on the host (cols + 1 entries: the prefix sums of S's column counts), counted on
// the device from `s`'s column indices, so only cols + 1 numbers cross to the host instead of the
// nnz indices (the `auto` rules for Sᵀ·B look at Sᵀ's row lengths). Synchronizes ctx's stream.
std::vector<std::int64_t> transposed_row_offsets(const Context& ctx, const CsrView& s);

}  // namespace fk
