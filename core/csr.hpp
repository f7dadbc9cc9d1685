#pragma once
// Sparse matrices on the host: CSR (the format every kernel takes) and COO (what readers build).
// Row offsets are 64-bit so that nnz may pass 2^31; column indices are 32-bit; values float.
#include <cstdint>
#include <vector>

#include "core/error.hpp"

namespace fk {

// Non-owning CSR view. All three arrays live on the same side (host for CPU kernels, device for
// CUDA kernels). row_ptr has rows + 1 entries; col_idx and vals have nnz entries. Columns within a
// row need not be sorted. vals may be null for a pattern-only matrix.
struct CsrView {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  const std::int64_t* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
  const float* vals = nullptr;
};

// Owning host CSR matrix.
struct HostCsr {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> row_ptr{0};  // rows + 1 entries
  std::vector<std::int32_t> col_idx;     // nnz entries
  std::vector<float> vals;               // nnz entries

  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }
  CsrView view() const {
    return {rows, cols, nnz(), row_ptr.data(), col_idx.data(), vals.empty() ? nullptr : vals.data()};
  }
};

// Owning host COO triplets (what file readers produce before conversion). Rows are 32-bit
// indices like the columns (every reader caps dimensions below 2^31), so a file's triplets become
// a HostCoo by moving, not by widening each row to 8 bytes beside them.
struct HostCoo {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int32_t> row;
  std::vector<std::int32_t> col;
  std::vector<float> val;

  std::int64_t nnz() const { return static_cast<std::int64_t>(row.size()); }
};

// Throws fk::Error when the structure is inconsistent (offsets not monotone, indices out of range).
void validate(const CsrView& csr);

// The CSR (rows x cols) of the entries j in [0, n) for which keep(j) holds, entry j at row
// row_of(j) (in [0, rows): the caller has checked), column col[j], value val[j] (val null: no
// values), by a stable counting sort on rows: entries keep their order within a row. The one
// builder behind the readers, coo_to_csr and fk-als's train/test split.
template <class RowOf, class Keep>
HostCsr csr_by_rows(std::int64_t rows, std::int64_t cols, std::int64_t n, RowOf row_of,
                    const std::int32_t* col, const float* val, Keep keep) {
  HostCsr out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t j = 0; j < n; ++j)
    if (keep(j)) ++out.row_ptr[static_cast<std::size_t>(row_of(j)) + 1];
  for (std::int64_t r = 0; r < rows; ++r) out.row_ptr[r + 1] += out.row_ptr[r];
  std::vector<std::int64_t> next(out.row_ptr.begin(), out.row_ptr.end() - 1);
  out.col_idx.resize(static_cast<std::size_t>(out.row_ptr.back()));
  if (val) out.vals.resize(out.col_idx.size());
  for (std::int64_t j = 0; j < n; ++j) {
    if (!keep(j)) continue;
    const std::int64_t dst = next[row_of(j)]++;
    out.col_idx[dst] = col[j];
    if (val) out.vals[dst] = val[j];
  }
  return out;
}
inline constexpr auto kEveryEntry = [](std::int64_t) { return true; };

// COO -> CSR by a stable counting sort on rows (keeps the triplets' order within a row).
// Duplicate (row, col) pairs are kept as separate entries; readers reject them earlier.
HostCsr coo_to_csr(const HostCoo& coo);

// CSR -> COO (row-major order). The CSR must have fewer than 2^31 rows (checked).
HostCoo csr_to_coo(const HostCsr& csr);

// Transpose. If `perm` is not null it receives nnz entries: perm[j] is the position in `csr` of
// the j-th entry of the result, so values can be gathered again later without re-transposing.
HostCsr transpose(const CsrView& csr, std::vector<std::int64_t>* perm = nullptr);
// The same with a 32-bit permutation (half the memory) for nnz below 2^31 (checked).
HostCsr transpose(const CsrView& csr, std::vector<std::int32_t>* perm);

// Sorts the columns within each row (values follow). Returns the matrix unchanged otherwise.
void sort_columns(HostCsr& csr);

// Row-length statistics used by the kernel selectors and the benchmarks.
struct SparseFeatures {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  double density = 0;        // nnz / (rows * cols)
  double row_mean = 0;       // mean nonzeros per row
  double row_cv = 0;         // standard deviation / mean of the row lengths
  std::int64_t row_max = 0;  // longest row
  std::int64_t empty_rows = 0;
  std::int64_t nonempty_cols = 0;
  // How far a row's columns spread: the mean, over up to kColumnSpanSampleRows evenly spaced
  // non-empty rows, of (largest - smallest column + 1) / cols. Near 0 for banded and other local
  // patterns (consecutive rows read nearby rows of B), near 1 for documents and ratings; 1 when
  // not measured (no sampled row has a nonzero).
  double col_span = 1.0;
  // How much a row's columns repeat its predecessor's: the mean, over up to
  // kNeighbourSampleRows evenly spaced rows r >= 1 where rows r and r - 1 both have nonzeros, of
  // the share of row r's first kNeighbourRowEntries entries whose column occurs among row r - 1's
  // first kNeighbourPrevEntries. Near 0.5 for banded and clustered patterns (rows that run
  // together on a GPU reuse one another's rows of B from L1), 0.002 for uniform random columns,
  // 0.02-0.16 for the report's ratings and documents; 1 when not measured.
  double neighbour_share = 1.0;
};
SparseFeatures features(const CsrView& csr);
// The row statistics of `features` from the row offsets alone (host, rows + 1 entries), without
// a look at the columns: nonempty_cols stays 0 and col_span and neighbour_share 1 (not measured).
// For patterns whose columns live elsewhere (a device pattern's offsets copied to the host, or the
// column counts of S as Sᵀ's offsets).
SparseFeatures row_features(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                            const std::int64_t* row_ptr);

// Rows sampled for SparseFeatures::col_span: row i * rows / n for i < n = min(rows, this).
constexpr std::int64_t kColumnSpanSampleRows = 4096;
// col_span of a host pattern (the device twin is in kernels/cuda/device_ops.hpp).
double sampled_column_span(const CsrView& csr);

// Rows sampled for SparseFeatures::neighbour_share: row 1 + i * (rows - 1) / n for
// i < n = min(rows - 1, this), and how many entries of the row and of its predecessor count.
constexpr std::int64_t kNeighbourSampleRows = 1024;
constexpr std::int64_t kNeighbourRowEntries = 256;
constexpr std::int64_t kNeighbourPrevEntries = 2048;
// neighbour_share of a host pattern (the device twin is in kernels/cuda/device_ops.hpp).
double sampled_neighbour_share(const CsrView& csr);

}  // namespace fk
