#include "core/vector_csr.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace fk {
namespace {

// A nonzero of one block row while it is encoded. key = column * 8 + row within the block, so
// sorting by key orders by column and then row, and equal keys are duplicates.
struct Entry {
  std::uint64_t key;
  std::int64_t pos;  // position in the CSR matrix
};
constexpr int kRowBits = 3;  // up to 8 rows per block
constexpr std::uint64_t kRowMask = (1u << kRowBits) - 1;

bool valid_length(int v) { return v == 1 || v == 2 || v == 4 || v == 8; }

// The nonzeros of rows [r0, r1) (at most 8 rows), sorted by (column, row). Throws fk::Error on a
// column repeated within a row.
void sorted_entries(const CsrView& s, std::int64_t r0, std::int64_t r1, std::vector<Entry>& out) {
  out.clear();
  for (std::int64_t r = r0; r < r1; ++r)
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j)
      out.push_back({static_cast<std::uint64_t>(s.col_idx[j]) << kRowBits |
                         static_cast<std::uint64_t>(r - r0),
                     j});
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  for (std::size_t i = 1; i < out.size(); ++i)
    FK_CHECK(out[i].key != out[i - 1].key,
             "vector CSR: row " << r0 + static_cast<std::int64_t>(out[i].key & kRowMask)
                                << " has column " << (out[i].key >> kRowBits) << " more than once");
}

// Keeps the error of the lowest failing block row, so that which duplicate is reported does not
// depend on the thread count.
class FirstError {
 public:
  void record(std::int64_t block, const char* what) {
#pragma omp critical(fk_vector_csr_error)
    if (block < block_) {
      block_ = block;
      what_ = what;
    }
  }
  void rethrow() const {
    if (block_ != kNone) throw Error(what_);
  }

 private:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  std::int64_t block_ = kNone;
  std::string what_;
};

}  // namespace

double VectorEncodingStats::padding_ratio() const {
  return stored > 0 ? static_cast<double>(stored - nnz) / static_cast<double>(stored) : 0.0;
}

HostVectorCsr to_vector_csr(const CsrView& s, int v) {
  FK_CHECK(valid_length(v), "vector CSR: vector length must be 1, 2, 4 or 8, got " << v);
  validate(s);
  HostVectorCsr e;
  e.v = v;
  e.rows = s.rows;
  e.cols = s.cols;
  const std::int64_t nb = e.block_rows();
  e.block_ptr.assign(static_cast<std::size_t>(nb) + 1, 0);

  // Two passes over the block rows: the first counts each one's vectors, the second sorts again
  // and writes in place. Sorting twice costs less than gathering per-thread copies, and the
  // output cannot depend on the thread count.
  FirstError error;
#pragma omp parallel
  {
    std::vector<Entry> entries;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t b = 0; b < nb; ++b) {
      try {
        sorted_entries(s, b * v, std::min(s.rows, (b + 1) * v), entries);
      } catch (const std::exception& x) {
        error.record(b, x.what());
        continue;
      }
      std::int64_t vectors = 0;
      for (std::size_t i = 0; i < entries.size(); ++i)
        vectors += i == 0 || entries[i].key >> kRowBits != entries[i - 1].key >> kRowBits;
      e.block_ptr[b + 1] = vectors;
    }
  }
  error.rethrow();
  for (std::int64_t b = 0; b < nb; ++b) e.block_ptr[b + 1] += e.block_ptr[b];
  e.col_idx.resize(static_cast<std::size_t>(e.block_ptr[nb]));
  e.vals.assign(static_cast<std::size_t>(e.stored()), 0.0f);  // padding until a value arrives
  e.source.assign(static_cast<std::size_t>(e.stored()), -1);
#pragma omp parallel
  {
    std::vector<Entry> entries;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t b = 0; b < nb; ++b) {
      sorted_entries(s, b * v, std::min(s.rows, (b + 1) * v), entries);  // cannot throw now
      std::int64_t j = e.block_ptr[b] - 1;
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::uint64_t col = entries[i].key >> kRowBits;
        if (i == 0 || col != entries[i - 1].key >> kRowBits)
          e.col_idx[++j] = static_cast<std::int32_t>(col);  // a new column: the next vector
        const std::int64_t at = j * v + static_cast<std::int64_t>(entries[i].key & kRowMask);
        e.vals[at] = s.vals ? s.vals[entries[i].pos] : 1.0f;
        e.source[at] = entries[i].pos;
      }
    }
  }
  return e;
}

VectorEncodingStats encoding_stats(const HostVectorCsr& e) {
  VectorEncodingStats st;
  st.stored = e.stored();
  st.nnz = static_cast<std::int64_t>(
      std::count_if(e.source.begin(), e.source.end(), [](std::int64_t p) { return p >= 0; }));
  return st;
}

HostCsr to_csr(const HostVectorCsr& e) {
  const std::int64_t nb = e.block_rows();
  FK_CHECK(valid_length(e.v), "vector CSR: vector length must be 1, 2, 4 or 8, got " << e.v);
  FK_CHECK(static_cast<std::int64_t>(e.block_ptr.size()) == nb + 1 && e.block_ptr[0] == 0 &&
               e.block_ptr[nb] == e.vectors(),
           "vector CSR: block_ptr does not match " << nb << " block rows and " << e.vectors()
                                                   << " vectors");
  FK_CHECK(static_cast<std::int64_t>(e.vals.size()) == e.stored() &&
               static_cast<std::int64_t>(e.source.size()) == e.stored(),
           "vector CSR: " << e.vals.size() << " values and " << e.source.size() << " sources for "
                          << e.stored() << " stored values");
  std::int64_t n = 0;
  for (std::int64_t p : e.source) n = std::max(n, p + 1);

  HostCsr m;
  m.rows = e.rows;
  m.cols = e.cols;
  m.col_idx.resize(static_cast<std::size_t>(n));
  m.vals.resize(static_cast<std::size_t>(n));
  std::vector<std::int64_t> row_of(static_cast<std::size_t>(n), -1);
  for (std::int64_t b = 0; b < nb; ++b) {
    FK_CHECK(e.block_ptr[b] <= e.block_ptr[b + 1], "vector CSR: block_ptr decreases at " << b);
    for (std::int64_t j = e.block_ptr[b]; j < e.block_ptr[b + 1]; ++j) {
      FK_CHECK(e.col_idx[j] >= 0 && e.col_idx[j] < e.cols,
               "vector CSR: column " << e.col_idx[j] << " out of range [0, " << e.cols << ")");
      for (std::int64_t r = 0; r < e.v; ++r) {
        const std::int64_t p = e.source[j * e.v + r], row = b * e.v + r;
        if (p < 0) continue;
        FK_CHECK(row < e.rows, "vector CSR: a value of row " << row << " past the last row");
        FK_CHECK(row_of[p] < 0, "vector CSR: position " << p << " is stored twice");
        row_of[p] = row;
        m.col_idx[p] = e.col_idx[j];
        m.vals[p] = e.vals[j * e.v + r];
      }
    }
  }
  // Positions must cover [0, n) and follow the rows in order, as CSR positions do.
  m.row_ptr.assign(static_cast<std::size_t>(e.rows) + 1, 0);
  for (std::int64_t p = 0; p < n; ++p) {
    FK_CHECK(row_of[p] >= 0, "vector CSR: no value has position " << p << " of " << n);
    FK_CHECK(p == 0 || row_of[p] >= row_of[p - 1],
             "vector CSR: position " << p << " of row " << row_of[p] << " after one of row "
                                     << row_of[p - 1]);
    ++m.row_ptr[row_of[p] + 1];
  }
  for (std::int64_t r = 0; r < e.rows; ++r) m.row_ptr[r + 1] += m.row_ptr[r];
  return m;
}

int vector_length_of(const CsrView& s, double max_padding) {
  FK_CHECK(std::isfinite(max_padding) && max_padding >= 0,
           "vector_length_of: max_padding must be >= 0, got " << max_padding);
  validate(s);
  // One sort per 8-row block serves all three lengths: in (column, row) order the entries of a
  // (column, row / v) pair are contiguous, and each such pair is one vector of length v.
  const std::int64_t nb = (s.rows + 7) / 8;
  std::int64_t vec2 = 0, vec4 = 0, vec8 = 0;
  FirstError error;
#pragma omp parallel reduction(+ : vec2, vec4, vec8)
  {
    std::vector<Entry> entries;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t b = 0; b < nb; ++b) {
      try {
        sorted_entries(s, b * 8, std::min(s.rows, b * 8 + 8), entries);
      } catch (const std::exception& x) {
        error.record(b, x.what());
        continue;
      }
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::uint64_t k = entries[i].key;
        auto starts = [&](int shift) {
          return i == 0 || k >> shift != entries[i - 1].key >> shift;
        };
        vec2 += starts(1);
        vec4 += starts(2);
        vec8 += starts(3);
      }
    }
  }
  error.rethrow();
  const double limit = (1.0 + max_padding) * static_cast<double>(s.nnz);
  if (8.0 * static_cast<double>(vec8) <= limit) return 8;
  if (4.0 * static_cast<double>(vec4) <= limit) return 4;
  if (2.0 * static_cast<double>(vec2) <= limit) return 2;
  return 1;
}

}  // namespace fk
