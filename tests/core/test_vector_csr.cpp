// Column-vector encoding: a hand-checked small case (unsorted columns, an empty and a partial
// block row), the exact round trip to CSR for every vector length, the vector generator's exact
// structure, thread independence and the errors.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "core/generate/sparse.hpp"
#include "core/random.hpp"
#include "core/vector_csr.hpp"
#include "tests/core/test_generate_common.hpp"

namespace fk {
namespace {

// 5 x 6, columns unsorted within rows 0 and 4, rows 2 and 3 empty:
//   row 0: (3, 1) (0, 2)
//   row 1: (1, 3) (3, 4)
//   row 4: (5, 5) (2, 6)
HostCsr five_by_six() {
  HostCsr m;
  m.rows = 5;
  m.cols = 6;
  m.row_ptr = {0, 2, 4, 4, 4, 6};
  m.col_idx = {3, 0, 1, 3, 5, 2};
  m.vals = {1, 2, 3, 4, 5, 6};
  return m;
}

void expect_same(const HostCsr& a, const HostCsr& b, const std::string& what) {
  EXPECT_EQ(a.rows, b.rows) << what;
  EXPECT_EQ(a.cols, b.cols) << what;
  EXPECT_EQ(a.row_ptr, b.row_ptr) << what;
  EXPECT_EQ(a.col_idx, b.col_idx) << what;
  EXPECT_EQ(a.vals, b.vals) << what;
}

TEST(VectorCsr, SmallCaseByHand) {
  const HostCsr s = five_by_six();
  const HostVectorCsr e = to_vector_csr(s.view(), 2);
  EXPECT_EQ(e.v, 2);
  EXPECT_EQ(e.rows, 5);
  EXPECT_EQ(e.cols, 6);
  EXPECT_EQ(e.block_rows(), 3);
  // Block row 0 (rows 0, 1): columns 0, 1, 3; block row 1 (rows 2, 3): none; block row 2
  // (row 4 and the padding row 5): columns 2, 5.
  EXPECT_EQ(e.block_ptr, (std::vector<std::int64_t>{0, 3, 3, 5}));
  EXPECT_EQ(e.col_idx, (std::vector<std::int32_t>{0, 1, 3, 2, 5}));
  EXPECT_EQ(e.vals, (std::vector<float>{2, 0, 0, 3, 1, 4, 6, 0, 5, 0}));
  EXPECT_EQ(e.source, (std::vector<std::int64_t>{1, -1, -1, 2, 0, 3, 5, -1, 4, -1}));
  EXPECT_EQ(e.vectors(), 5);
  EXPECT_EQ(e.stored(), 10);

  const VectorEncodingStats st = encoding_stats(e);
  EXPECT_EQ(st.nnz, 6);
  EXPECT_EQ(st.stored, 10);
  EXPECT_DOUBLE_EQ(st.padding_ratio(), 0.4);
  EXPECT_EQ(VectorEncodingStats{}.padding_ratio(), 0.0);

  expect_same(to_csr(e), s, "5 x 6, v = 2");
}

TEST(VectorCsr, PatternOnlyGivesOnes) {
  const HostCsr s = five_by_six();
  CsrView pattern = s.view();
  pattern.vals = nullptr;
  const HostVectorCsr e = to_vector_csr(pattern, 2);
  EXPECT_EQ(e.vals, (std::vector<float>{1, 0, 0, 1, 1, 1, 1, 0, 1, 0}));
  EXPECT_EQ(e.source, (std::vector<std::int64_t>{1, -1, -1, 2, 0, 3, 5, -1, 4, -1}));
}

TEST(VectorCsr, VectorLengthOfSmallCase) {
  const HostCsr s = five_by_six();
  // Stored values: v = 8: 5 columns x 8 = 40; v = 4: (3 + 2) x 4 = 20; v = 2: 10; nnz = 6.
  EXPECT_EQ(vector_length_of(s.view()), 1);
  EXPECT_EQ(vector_length_of(s.view(), 0.7), 2);  // 10 <= 1.7 x 6
  EXPECT_EQ(vector_length_of(s.view(), 2.4), 4);  // 20 <= 3.4 x 6
  EXPECT_EQ(vector_length_of(s.view(), 5.7), 8);  // 40 <= 6.7 x 6
  EXPECT_EQ(vector_length_of(s.view(), 5.6), 4);  // 40 > 6.6 x 6
  EXPECT_THROW(vector_length_of(s.view(), -0.1), Error);
}

// Structure any encoding must have, checked against the matrix it came from.
void check_encoding(const HostCsr& s, const HostVectorCsr& e, const std::string& what) {
  ASSERT_EQ(static_cast<std::int64_t>(e.block_ptr.size()), e.block_rows() + 1) << what;
  ASSERT_EQ(e.vals.size(), e.source.size()) << what;
  ASSERT_EQ(static_cast<std::int64_t>(e.vals.size()), e.stored()) << what;
  std::int64_t found = 0;
  for (std::int64_t b = 0; b < e.block_rows(); ++b) {
    for (std::int64_t j = e.block_ptr[b]; j < e.block_ptr[b + 1]; ++j) {
      if (j > e.block_ptr[b]) {
        ASSERT_LT(e.col_idx[j - 1], e.col_idx[j]) << what;
      }
      bool any = false;
      for (std::int64_t r = 0; r < e.v; ++r) {
        const std::int64_t i = j * e.v + r, p = e.source[i];
        if (p < 0) {
          ASSERT_EQ(e.vals[i], 0.0f) << what;
          continue;
        }
        any = true;
        ++found;
        ASSERT_GE(p, s.row_ptr[b * e.v + r]) << what;
        ASSERT_LT(p, s.row_ptr[b * e.v + r + 1]) << what;
        ASSERT_EQ(s.col_idx[p], e.col_idx[j]) << what;
        ASSERT_EQ(s.vals[p], e.vals[i]) << what;
      }
      ASSERT_TRUE(any) << what << ": a vector of padding only";
    }
  }
  EXPECT_EQ(found, s.nnz()) << what;
}

TEST(VectorCsr, RoundTripOnGeneratedMatrices) {
  for (const char* text :
       {"uniform:rows=1003,cols=700,nnz=9000,seed=2", "powerlaw:rows=997,cols=800,nnz=12000,seed=5",
        "uniform:rows=13,cols=9,nnz=117,seed=1"}) {  // completely full
    HostCsr s = gen::generate_sparse(gen::parse_sparse_spec(text));
    // Shuffle the columns of one row in three, so that the input is not sorted.
    Rng rng(7);
    for (std::int64_t r = 0; r < s.rows; r += 3)
      for (std::int64_t j = s.row_ptr[r + 1] - 1; j > s.row_ptr[r]; --j) {
        const auto k =
            s.row_ptr[r] +
            static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j - s.row_ptr[r] + 1)));
        std::swap(s.col_idx[j], s.col_idx[k]);
        std::swap(s.vals[j], s.vals[k]);
      }
    for (int v : {1, 2, 4, 8}) {
      const std::string what = std::string(text) + ", v = " + std::to_string(v);
      const HostVectorCsr e = to_vector_csr(s.view(), v);
      check_encoding(s, e, what);
      expect_same(to_csr(e), s, what);
      const VectorEncodingStats st = encoding_stats(e);
      EXPECT_EQ(st.nnz, s.nnz()) << what;
      EXPECT_EQ(st.stored, e.stored()) << what;
      if (v == 1) {
        EXPECT_EQ(st.padding_ratio(), 0.0) << what;
      }
    }
  }
}

TEST(VectorCsr, SameResultOnAnyThreadCount) {
  const HostCsr s =
      gen::generate_sparse(gen::parse_sparse_spec("powerlaw:rows=2001,cols=900,nnz=30000"));
  const HostVectorCsr one = test::with_threads(1, [&] { return to_vector_csr(s.view(), 4); });
  for (int threads : {2, 3}) {
    const HostVectorCsr many =
        test::with_threads(threads, [&] { return to_vector_csr(s.view(), 4); });
    EXPECT_EQ(many.block_ptr, one.block_ptr) << threads;
    EXPECT_EQ(many.col_idx, one.col_idx) << threads;
    EXPECT_EQ(many.vals, one.vals) << threads;
    EXPECT_EQ(many.source, one.source) << threads;
  }
}

TEST(VectorCsr, VectorGeneratorIsExactlyStructured) {
  for (int v : {2, 4, 8}) {
    const std::string text =
        "vector:rows=1600,cols=3000,nnz=24000,param=" + std::to_string(v) + ",seed=4";
    const HostCsr s = gen::generate_sparse(gen::parse_sparse_spec(text));
    EXPECT_EQ(vector_length_of(s.view()), v) << text;
    const HostVectorCsr e = to_vector_csr(s.view(), v);
    EXPECT_EQ(encoding_stats(e).padding_ratio(), 0.0) << text;
    EXPECT_EQ(e.stored(), s.nnz()) << text;
    // One length more, and padding appears.
    if (v < 8) {
      EXPECT_GT(encoding_stats(to_vector_csr(s.view(), 2 * v)).padding_ratio(), 0.3) << text;
    }
  }
  // A uniform matrix of the same size has no such structure.
  const HostCsr u =
      gen::generate_sparse(gen::parse_sparse_spec("uniform:rows=1600,cols=3000,nnz=24000"));
  EXPECT_EQ(vector_length_of(u.view()), 1);
  EXPECT_GT(encoding_stats(to_vector_csr(u.view(), 2)).padding_ratio(), 0.4);
}

TEST(VectorCsr, DuplicateColumnNamesRowAndColumn) {
  HostCsr s = five_by_six();
  s.col_idx[4] = 2;  // row 4: (2, 5) (2, 6)
  s.col_idx[3] = 1;  // row 1: (1, 3) (1, 4); the first duplicate, whatever the threads
  for (int v : {1, 2, 8}) {
    for (int threads : {1, 3}) {
      try {
        test::with_threads(threads, [&] { return to_vector_csr(s.view(), v); });
        ADD_FAILURE() << "no error, v = " << v;
      } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("row 1 has column 1"), std::string::npos) << msg;
      }
    }
    EXPECT_THROW(vector_length_of(s.view()), Error);
  }
}

TEST(VectorCsr, BadVectorLength) {
  const HostCsr s = five_by_six();
  for (int v : {0, 3, 5, 16, -2}) {
    try {
      to_vector_csr(s.view(), v);
      ADD_FAILURE() << "no error for v = " << v;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("1, 2, 4 or 8"), std::string::npos) << e.what();
    }
  }
}

TEST(VectorCsr, ToCsrRejectsBrokenSources) {
  const HostVectorCsr good = to_vector_csr(five_by_six().view(), 2);
  HostVectorCsr missing = good;
  missing.source[3] = -1;  // position 2 stored nowhere
  EXPECT_THROW(to_csr(missing), Error);
  HostVectorCsr twice = good;
  twice.source[1] = 3;  // position 3 twice
  EXPECT_THROW(to_csr(twice), Error);
  HostVectorCsr past_last_row = good;
  past_last_row.source[7] = 6;  // the padding row 5 of a 5-row matrix
  EXPECT_THROW(to_csr(past_last_row), Error);
  HostVectorCsr out_of_order = good;
  std::swap(out_of_order.source[0], out_of_order.source[6]);  // rows no longer in order
  EXPECT_THROW(to_csr(out_of_order), Error);
  // An empty encoding decodes to an empty matrix of the same shape.
  HostCsr empty;
  empty.rows = 3;
  empty.cols = 4;
  empty.row_ptr = {0, 0, 0, 0};
  const HostCsr back = to_csr(to_vector_csr(empty.view(), 4));
  expect_same(back, empty, "empty");
}

}  // namespace
}  // namespace fk
