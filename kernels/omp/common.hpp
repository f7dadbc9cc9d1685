#pragma once
// Checks and small helpers shared by the OpenMP variants (host code only).
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/error.hpp"
#include "kernels/operand_checks.hpp"

namespace fk::omp_common {

// The thread count that work splits which decide the order of a sum (ASpT's panels,
// nnz_balanced's parts, auto's skew rule) are sized for: the processors this process may use
// (its CPU affinity), not the threads of this run, so that a CPU result does not depend on
// --threads (LDA's model differed in its 5th digit between 1 and 2 threads; cpu_rounding_setup()
// names what it does depend on). Schedules that only assign whole rows to threads may follow the
// thread count. A run with far fewer threads than processors gets smaller panels and parts than
// it needs, the price of that promise.
inline std::int64_t split_threads() { return std::max(1, omp_get_num_procs()); }

// Rows per dynamic-schedule chunk: about 16 chunks per thread so that uneven rows balance, at
// most 256 rows so that a chunk is never a large share of a short matrix.
inline std::int64_t row_chunk(std::int64_t rows) {
  const std::int64_t threads = std::max(1, omp_get_max_threads());
  return std::clamp<std::int64_t>(rows / (16 * threads), 1, 256);
}

}  // namespace fk::omp_common
