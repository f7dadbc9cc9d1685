#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../kernels/problems.hpp"
#include "core/csr.hpp"
#include "core/random.hpp"

namespace fk {
namespace {

// [[1 0 2], [0 0 0], [0 3 0]]
HostCsr small() {
  HostCsr m;
  m.rows = 3;
  m.cols = 3;
  m.row_ptr = {0, 2, 2, 3};
  m.col_idx = {0, 2, 1};
  m.vals = {1, 2, 3};
  return m;
}

TEST(Csr, TransposeSmallExact) {
  std::vector<std::int64_t> perm;
  HostCsr t = transpose(small().view(), &perm);
  EXPECT_EQ(t.rows, 3);
  EXPECT_EQ(t.row_ptr, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(t.col_idx, (std::vector<std::int32_t>{0, 2, 0}));
  EXPECT_EQ(t.vals, (std::vector<float>{1, 3, 2}));
  EXPECT_EQ(perm, (std::vector<std::int64_t>{0, 2, 1}));
}

TEST(Csr, TransposeWith32BitPermutationIsTheSame) {
  for (auto& p : test::awkward_problems(7)) {
    std::vector<std::int64_t> perm64;
    std::vector<std::int32_t> perm32;
    const HostCsr a = transpose(p.s.view(), &perm64), b = transpose(p.s.view(), &perm32);
    EXPECT_EQ(a.row_ptr, b.row_ptr) << p.name;
    EXPECT_EQ(a.col_idx, b.col_idx) << p.name;
    EXPECT_EQ(a.vals, b.vals) << p.name;
    EXPECT_EQ(perm64, std::vector<std::int64_t>(perm32.begin(), perm32.end())) << p.name;
  }
}

TEST(Csr, TransposeTwiceIsIdentityOnRandomPatterns) {
  for (auto& p : test::awkward_problems(7)) {
    HostCsr s = p.s;
    sort_columns(s);
    HostCsr tt = transpose(transpose(s.view()).view());
    EXPECT_EQ(tt.row_ptr, s.row_ptr) << p.name;
    EXPECT_EQ(tt.col_idx, s.col_idx) << p.name;
    EXPECT_EQ(tt.vals, s.vals) << p.name;
    validate(tt.view());
  }
}

TEST(Csr, CooRoundTrip) {
  HostCsr m = small();
  HostCoo coo = csr_to_coo(m);
  EXPECT_EQ(coo.row, (std::vector<std::int32_t>{0, 0, 2}));
  HostCsr back = coo_to_csr(coo);
  EXPECT_EQ(back.row_ptr, m.row_ptr);
  EXPECT_EQ(back.col_idx, m.col_idx);
  EXPECT_EQ(back.vals, m.vals);
}

TEST(Csr, CooToCsrRejectsRowOutOfRange) {
  HostCoo coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row = {0, 2};
  coo.col = {0, 0};
  coo.val = {1, 1};
  EXPECT_THROW(coo_to_csr(coo), Error);
}

TEST(Csr, ValidateCatchesBadStructure) {
  HostCsr m = small();
  m.col_idx[1] = 3;
  EXPECT_THROW(validate(m.view()), Error);
  m = small();
  m.row_ptr[2] = 1;
  EXPECT_THROW(validate(m.view()), Error);
}

TEST(Csr, SortColumnsKeepsValuesWithTheirColumns) {
  HostCsr m;
  m.rows = 1;
  m.cols = 5;
  m.row_ptr = {0, 3};
  m.col_idx = {4, 0, 2};
  m.vals = {40, 0, 20};
  sort_columns(m);
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 2, 4}));
  EXPECT_EQ(m.vals, (std::vector<float>{0, 20, 40}));
}

TEST(Csr, Features) {
  SparseFeatures f = features(small().view());
  EXPECT_EQ(f.nnz, 3);
  EXPECT_EQ(f.empty_rows, 1);
  EXPECT_EQ(f.row_max, 2);
  EXPECT_EQ(f.nonempty_cols, 3);
  EXPECT_DOUBLE_EQ(f.row_mean, 1.0);
  EXPECT_NEAR(f.row_cv, std::sqrt(2.0 / 3.0), 1e-12);
  EXPECT_NEAR(f.col_span, (3.0 / 3.0 + 1.0 / 3.0) / 2.0, 1e-12);  // rows 0 and 2; row 1 is empty
}

// From the offsets alone: the row statistics features() gives, the column ones left unmeasured.
TEST(Csr, RowFeaturesFromOffsetsOnly) {
  const HostCsr m = small();
  const SparseFeatures all = features(m.view());
  const SparseFeatures f = row_features(m.rows, m.cols, m.nnz(), m.row_ptr.data());
  EXPECT_EQ(f.rows, all.rows);
  EXPECT_EQ(f.cols, all.cols);
  EXPECT_EQ(f.nnz, all.nnz);
  EXPECT_EQ(f.empty_rows, all.empty_rows);
  EXPECT_EQ(f.row_max, all.row_max);
  EXPECT_DOUBLE_EQ(f.density, all.density);
  EXPECT_DOUBLE_EQ(f.row_mean, all.row_mean);
  EXPECT_DOUBLE_EQ(f.row_cv, all.row_cv);
  EXPECT_EQ(f.nonempty_cols, 0);
  EXPECT_EQ(f.col_span, 1.0);
  EXPECT_EQ(f.neighbour_share, 1.0);
}

// The column span: 5 / 10000 for a band of 5 (rows far from the edges), 1 for rows that reach
// both ends, and 1 (not measured) when no sampled row has a nonzero. 10000 rows: the sample is
// every 10000 / 4096-th row.
TEST(Csr, ColumnSpan) {
  const std::int64_t n = 10000;
  HostCsr band = test::regular_pattern(n, n, 5, [&](std::int64_t r, std::int64_t j) {
    return std::min(std::max<std::int64_t>(r - 2, 0), n - 5) + j;
  });
  EXPECT_NEAR(sampled_column_span(band.view()), 5.0 / double(n), 1e-12);
  HostCsr ends =
      test::regular_pattern(n, 300, 2, [](std::int64_t, std::int64_t j) { return j * 299; });
  EXPECT_DOUBLE_EQ(sampled_column_span(ends.view()), 1.0);
  const HostCsr empty = test::regular_pattern(50, 7, 0, [](std::int64_t, std::int64_t) { return 0; });
  EXPECT_DOUBLE_EQ(sampled_column_span(empty.view()), 1.0);
}

// The neighbour share: rows 1 and 3 of {0-3}, {2-5}, {}, {7}: row 1 finds 2 of its 4 columns in
// row 0; row 2 is empty and row 3's predecessor is, so neither counts.
TEST(Csr, NeighbourShareSmallExact) {
  HostCsr m;
  m.rows = 4;
  m.cols = 8;
  m.row_ptr = {0, 4, 8, 8, 9};
  m.col_idx = {3, 1, 0, 2, 5, 2, 4, 3, 7};  // unsorted rows are fine
  EXPECT_DOUBLE_EQ(sampled_neighbour_share(m.view()), 0.5);
  EXPECT_DOUBLE_EQ(features(m.view()).neighbour_share, 0.5);
}

// Only a row's first kNeighbourRowEntries entries count, looked up among its predecessor's first
// kNeighbourPrevEntries: row 1 holds 2000-2299 and row 0 0-2999, so 2000-2255 are looked up and
// 2000-2047 found. A band of 5 finds 4 of 5 (rows far from the edges), disjoint rows none, and
// one row or no nonzeros measure nothing (1).
TEST(Csr, NeighbourShareCapsAndShapes) {
  HostCsr capped = test::regular_pattern(2, 4000, 3000, [](std::int64_t r, std::int64_t j) {
    return r == 0 ? j : (j < 300 ? 2000 + j : 3700 + (j - 300) % 300);
  });
  capped.row_ptr = {0, 3000, 3300};
  capped.col_idx.resize(3300);
  EXPECT_DOUBLE_EQ(sampled_neighbour_share(capped.view()), 48.0 / 256.0);
  const std::int64_t n = 5000;
  HostCsr band = test::regular_pattern(n, n + 4, 5, [](std::int64_t r, std::int64_t j) { return r + j; });
  EXPECT_NEAR(sampled_neighbour_share(band.view()), 0.8, 1e-12);
  HostCsr disjoint = test::regular_pattern(n, 2 * n, 2, [](std::int64_t r, std::int64_t j) { return 2 * r + j; });
  EXPECT_DOUBLE_EQ(sampled_neighbour_share(disjoint.view()), 0.0);
  HostCsr one = test::regular_pattern(1, 10, 3, [](std::int64_t, std::int64_t j) { return j; });
  EXPECT_DOUBLE_EQ(sampled_neighbour_share(one.view()), 1.0);
  const HostCsr empty = test::regular_pattern(50, 7, 0, [](std::int64_t, std::int64_t) { return 0; });
  EXPECT_DOUBLE_EQ(sampled_neighbour_share(empty.view()), 1.0);
}

}  // namespace
}  // namespace fk
