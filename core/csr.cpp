#include "core/csr.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fk {

void validate(const CsrView& csr) {
  FK_CHECK(csr.rows >= 0 && csr.cols >= 0, "negative shape " << csr.rows << " x " << csr.cols);
  FK_CHECK(csr.cols <= INT32_MAX, "column count " << csr.cols << " exceeds 32-bit indices");
  FK_CHECK(csr.row_ptr != nullptr, "CSR without row offsets");
  FK_CHECK(csr.row_ptr[0] == 0, "CSR row offsets must start at 0");
  for (std::int64_t r = 0; r < csr.rows; ++r)
    FK_CHECK(csr.row_ptr[r] <= csr.row_ptr[r + 1], "CSR row offsets decrease at row " << r);
  FK_CHECK(csr.row_ptr[csr.rows] == csr.nnz,
           "CSR row offsets end at " << csr.row_ptr[csr.rows] << " but nnz is " << csr.nnz);
  FK_CHECK(csr.nnz == 0 || csr.col_idx != nullptr,
           "CSR with " << csr.nnz << " nonzeros but no column indices");
  for (std::int64_t j = 0; j < csr.nnz; ++j)
    FK_CHECK(csr.col_idx[j] >= 0 && csr.col_idx[j] < csr.cols,
             "CSR column index " << csr.col_idx[j] << " out of range [0, " << csr.cols << ")");
}

HostCsr coo_to_csr(const HostCoo& coo) {
  const std::int64_t nnz = coo.nnz();
  for (std::int64_t j = 0; j < nnz; ++j)
    FK_CHECK(coo.row[j] >= 0 && coo.row[j] < coo.rows, "COO row " << coo.row[j] << " out of range");
  return csr_by_rows(
      coo.rows, coo.cols, nnz, [&](std::int64_t j) { return coo.row[j]; }, coo.col.data(),
      coo.val.empty() ? nullptr : coo.val.data(), kEveryEntry);
}

HostCoo csr_to_coo(const HostCsr& csr) {
  FK_CHECK(csr.rows <= INT32_MAX,
           "csr_to_coo: " << csr.rows << " rows would not fit the COO's 32-bit row indices");
  HostCoo out;
  out.rows = csr.rows;
  out.cols = csr.cols;
  out.row.resize(csr.nnz());
  out.col = csr.col_idx;
  out.val = csr.vals;
  for (std::int64_t r = 0; r < csr.rows; ++r)
    std::fill(out.row.begin() + csr.row_ptr[r], out.row.begin() + csr.row_ptr[r + 1],
              static_cast<std::int32_t>(r));
  return out;
}

namespace {

template <class Index>
HostCsr transpose_with(const CsrView& csr, std::vector<Index>* perm) {
  HostCsr out;
  FK_CHECK(csr.rows <= INT32_MAX,
           "transpose: " << csr.rows << " rows would not fit the transpose's 32-bit column indices");
  out.rows = csr.cols;
  out.cols = csr.rows;
  out.row_ptr.assign(static_cast<std::size_t>(csr.cols) + 1, 0);
  for (std::int64_t j = 0; j < csr.nnz; ++j) ++out.row_ptr[csr.col_idx[j] + 1];
  std::partial_sum(out.row_ptr.begin(), out.row_ptr.end(), out.row_ptr.begin());
  std::vector<std::int64_t> next(out.row_ptr.begin(), out.row_ptr.end() - 1);
  out.col_idx.resize(csr.nnz);
  if (csr.vals) out.vals.resize(csr.nnz);
  if (perm) perm->resize(csr.nnz);
  for (std::int64_t r = 0; r < csr.rows; ++r) {
    for (std::int64_t j = csr.row_ptr[r]; j < csr.row_ptr[r + 1]; ++j) {
      const std::int64_t dst = next[csr.col_idx[j]]++;
      out.col_idx[dst] = static_cast<std::int32_t>(r);
      if (csr.vals) out.vals[dst] = csr.vals[j];
      if (perm) (*perm)[dst] = static_cast<Index>(j);
    }
  }
  return out;
}

}  // namespace

HostCsr transpose(const CsrView& csr, std::vector<std::int64_t>* perm) {
  return transpose_with(csr, perm);
}

HostCsr transpose(const CsrView& csr, std::vector<std::int32_t>* perm) {
  FK_CHECK(csr.nnz <= INT32_MAX,
           "transpose: " << csr.nnz << " entries would not fit a 32-bit permutation");
  return transpose_with(csr, perm);
}

void sort_columns(HostCsr& csr) {
  std::vector<std::int64_t> order;
  std::vector<std::int32_t> cols;
  std::vector<float> vals;
  for (std::int64_t r = 0; r < csr.rows; ++r) {
    const std::int64_t b = csr.row_ptr[r], e = csr.row_ptr[r + 1];
    if (std::is_sorted(csr.col_idx.begin() + b, csr.col_idx.begin() + e)) continue;
    order.resize(e - b);
    std::iota(order.begin(), order.end(), b);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int64_t x, std::int64_t y) { return csr.col_idx[x] < csr.col_idx[y]; });
    cols.resize(e - b);
    vals.resize(csr.vals.empty() ? 0 : e - b);
    for (std::int64_t i = 0; i < e - b; ++i) {
      cols[i] = csr.col_idx[order[i]];
      if (!csr.vals.empty()) vals[i] = csr.vals[order[i]];
    }
    std::copy(cols.begin(), cols.end(), csr.col_idx.begin() + b);
    if (!csr.vals.empty()) std::copy(vals.begin(), vals.end(), csr.vals.begin() + b);
  }
}

SparseFeatures row_features(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                            const std::int64_t* row_ptr) {
  SparseFeatures f;
  f.rows = rows;
  f.cols = cols;
  f.nnz = nnz;
  const double cells = static_cast<double>(rows) * static_cast<double>(cols);
  f.density = cells > 0 ? static_cast<double>(nnz) / cells : 0.0;
  f.row_mean = rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
  double sq = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t len = row_ptr[r + 1] - row_ptr[r];
    f.row_max = std::max(f.row_max, len);
    f.empty_rows += len == 0;
    const double d = static_cast<double>(len) - f.row_mean;
    sq += d * d;
  }
  f.row_cv =
      (rows > 0 && f.row_mean > 0) ? std::sqrt(sq / static_cast<double>(rows)) / f.row_mean : 0.0;
  return f;
}

SparseFeatures features(const CsrView& csr) {
  SparseFeatures f = row_features(csr.rows, csr.cols, csr.nnz, csr.row_ptr);
  std::vector<char> seen(static_cast<std::size_t>(csr.cols), 0);
  for (std::int64_t j = 0; j < csr.nnz; ++j) seen[csr.col_idx[j]] = 1;
  f.nonempty_cols = std::count(seen.begin(), seen.end(), 1);
  f.col_span = sampled_column_span(csr);
  f.neighbour_share = sampled_neighbour_share(csr);
  return f;
}

double sampled_column_span(const CsrView& csr) {
  const std::int64_t n = std::min(csr.rows, kColumnSpanSampleRows);
  double sum = 0;
  std::int64_t counted = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = i * csr.rows / n;
    const std::int64_t begin = csr.row_ptr[r], end = csr.row_ptr[r + 1];
    if (begin == end) continue;
    std::int32_t lo = csr.col_idx[begin], hi = lo;
    for (std::int64_t j = begin + 1; j < end; ++j) {
      lo = std::min(lo, csr.col_idx[j]);
      hi = std::max(hi, csr.col_idx[j]);
    }
    sum += double(hi - lo + 1) / double(csr.cols);
    ++counted;
  }
  return counted > 0 ? sum / double(counted) : 1.0;
}

double sampled_neighbour_share(const CsrView& csr) {
  const std::int64_t n = std::min(csr.rows - 1, kNeighbourSampleRows);
  double sum = 0;
  std::int64_t counted = 0;
  std::vector<std::int32_t> prev;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = 1 + i * (csr.rows - 1) / n;
    const std::int64_t p0 = csr.row_ptr[r - 1];
    const std::int64_t p1 = std::min(csr.row_ptr[r], p0 + kNeighbourPrevEntries);
    const std::int64_t r0 = csr.row_ptr[r];
    const std::int64_t r1 = std::min(csr.row_ptr[r + 1], r0 + kNeighbourRowEntries);
    if (p0 == p1 || r0 == r1) continue;
    prev.assign(csr.col_idx + p0, csr.col_idx + p1);
    std::sort(prev.begin(), prev.end());
    std::int64_t hits = 0;
    for (std::int64_t j = r0; j < r1; ++j)
      hits += std::binary_search(prev.begin(), prev.end(), csr.col_idx[j]);
    sum += double(hits) / double(r1 - r0);
    ++counted;
  }
  return counted > 0 ? sum / double(counted) : 1.0;
}

}  // namespace fk
