#pragma once
// Helpers shared by the generator tests (tests/core/test_generate_*.cpp).
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>

#include "core/csr.hpp"

namespace fk::test {

// Runs fn() with OpenMP limited to `threads`, restoring the previous setting.
template <typename Fn>
auto with_threads(int threads, Fn&& fn) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  struct Restore {
    int n;
    ~Restore() { omp_set_num_threads(n); }
  } restore{before};
  return fn();
}

// Valid CSR whose columns strictly increase within every row (sorted, no duplicates).
inline ::testing::AssertionResult sorted_unique_csr(const HostCsr& m) {
  try {
    validate(m.view());
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << e.what();
  }
  if (!m.vals.empty() && static_cast<std::int64_t>(m.vals.size()) != m.nnz())
    return ::testing::AssertionFailure()
           << m.vals.size() << " values for " << m.nnz() << " entries";
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (std::int64_t j = m.row_ptr[r] + 1; j < m.row_ptr[r + 1]; ++j)
      if (m.col_idx[j - 1] >= m.col_idx[j])
        return ::testing::AssertionFailure()
               << "row " << r << ": column " << m.col_idx[j - 1] << " then " << m.col_idx[j];
  return ::testing::AssertionSuccess();
}

inline bool same_csr(const HostCsr& a, const HostCsr& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.vals == b.vals;
}

}  // namespace fk::test
