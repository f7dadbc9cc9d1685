// Synthetic sparse matrices: spec parsing, exact nnz, sorted unique columns, determinism (seeds,
// thread counts), and the shape each kind promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/generate/sparse.hpp"
#include "tests/core/test_generate_common.hpp"

namespace fk {
namespace {

using gen::SparseKind;
using gen::SparseSpec;

const char* const kSpecs[] = {
    "uniform:rows=1500,cols=900,nnz=20000,seed=3",
    "powerlaw:rows=1500,cols=900,nnz=20000,seed=3",
    "powerlaw:rows=600,cols=400,nnz=60000,param=1.6,seed=4",  // skewed and dense: huge rows capped
    "powerlaw:rows=1500,cols=900,nnz=20000,param=0,seed=3",   // exponent 0: equal rows, uniform
    "banded:rows=1500,cols=900,nnz=20000,seed=3",
    "banded:rows=300,cols=1200,nnz=3000,param=40,seed=3",  // wide and short
    "banded:rows=1500,cols=900,nnz=1000,param=1,seed=3",   // the narrowest band: one column
    "clustered:rows=1500,cols=900,nnz=20000,seed=3",
    "clustered:rows=1000,cols=5000,nnz=8000,param=16,seed=5",
    // One row per cluster.
    "clustered:rows=1000,cols=5000,nnz=8000,param=1,seed=5",
    "uniform:rows=2000,cols=50,nnz=300,seed=1",  // mostly empty rows
    "uniform:rows=20,cols=30,nnz=600,seed=1",    // completely full
    "vector:rows=1500,cols=900,nnz=20000,seed=3",
    "vector:rows=1000,cols=5000,nnz=8000,param=8,seed=5",
    "vector:rows=40,cols=30,nnz=1200,param=2,seed=1",  // completely full
};

TEST(GenerateSparse, ExactNnzSortedUniqueColumnsAndValueRange) {
  for (const char* text : kSpecs) {
    const SparseSpec spec = gen::parse_sparse_spec(text);
    const HostCsr m = gen::generate_sparse(spec);
    EXPECT_EQ(m.rows, spec.rows) << text;
    EXPECT_EQ(m.cols, spec.cols) << text;
    EXPECT_EQ(m.nnz(), spec.nnz) << text;
    EXPECT_TRUE(test::sorted_unique_csr(m)) << text;
    ASSERT_EQ(m.vals.size(), m.col_idx.size()) << text;
    for (float v : m.vals) {
      ASSERT_GE(v, 0.5f) << text;
      ASSERT_LT(v, 1.5f) << text;
    }
  }
}

TEST(GenerateSparse, DeterministicAcrossSeedsAndThreadCounts) {
  for (const char* text : kSpecs) {
    const SparseSpec spec = gen::parse_sparse_spec(text);
    const HostCsr one = test::with_threads(1, [&] { return gen::generate_sparse(spec); });
    const HostCsr two = test::with_threads(2, [&] { return gen::generate_sparse(spec); });
    const HostCsr three = test::with_threads(3, [&] { return gen::generate_sparse(spec); });
    EXPECT_TRUE(test::same_csr(one, two)) << text;
    EXPECT_TRUE(test::same_csr(one, three)) << text;
    SparseSpec other = spec;
    other.seed += 1;
    EXPECT_FALSE(test::same_csr(one, gen::generate_sparse(other))) << text;
  }
}

std::vector<std::int64_t> row_lengths(const HostCsr& m) {
  std::vector<std::int64_t> len(static_cast<std::size_t>(m.rows));
  for (std::int64_t r = 0; r < m.rows; ++r) len[r] = m.row_ptr[r + 1] - m.row_ptr[r];
  return len;
}

TEST(GenerateSparse, PowerLawHasHugeRowsAndSkewedColumnsUniformDoesNot) {
  const HostCsr p =
      gen::generate_sparse(gen::parse_sparse_spec("powerlaw:rows=4000,cols=4000,nnz=40000"));
  const HostCsr u =
      gen::generate_sparse(gen::parse_sparse_spec("uniform:rows=4000,cols=4000,nnz=40000"));
  const std::vector<std::int64_t> lp = row_lengths(p), lu = row_lengths(u);
  EXPECT_GT(*std::max_element(lp.begin(), lp.end()), 50 * 10);  // mean is 10
  EXPECT_LT(*std::max_element(lu.begin(), lu.end()), 3 * 10);
  // The longest power-law row is not simply row 0: ranks are shuffled.
  EXPECT_NE(std::max_element(lp.begin(), lp.end()) - lp.begin(), 0);
  auto top_col_share = [](const HostCsr& m) {
    std::vector<std::int64_t> c(static_cast<std::size_t>(m.cols), 0);
    for (std::int32_t j : m.col_idx) ++c[j];
    std::sort(c.rbegin(), c.rend());
    std::int64_t top = 0;
    for (std::int64_t i = 0; i < m.cols / 100; ++i) top += c[i];
    return static_cast<double>(top) / static_cast<double>(m.nnz());
  };
  EXPECT_GT(top_col_share(p), 0.2);
  EXPECT_LT(top_col_share(u), 0.02);
}

// An explicit param 0 is a value, not "not given": powerlaw's exponent 0 gives every row the same
// length (within 1) and uniform columns, where the default exponent 1 gives huge rows.
TEST(GenerateSparse, PowerLawExponentZeroIsHonouredNotTheDefault) {
  const SparseSpec zero = gen::parse_sparse_spec("powerlaw:rows=4000,cols=4000,nnz=40000,param=0");
  ASSERT_TRUE(zero.param.has_value());
  EXPECT_EQ(*zero.param, 0.0);
  const HostCsr z = gen::generate_sparse(zero);
  const std::vector<std::int64_t> lz = row_lengths(z);
  EXPECT_EQ(*std::min_element(lz.begin(), lz.end()), 10);  // nnz / rows = 10 exactly
  EXPECT_EQ(*std::max_element(lz.begin(), lz.end()), 10);
  std::vector<std::int64_t> per_col(static_cast<std::size_t>(z.cols), 0);
  for (std::int32_t c : z.col_idx) ++per_col[c];
  EXPECT_LT(*std::max_element(per_col.begin(), per_col.end()), 3 * 10);  // no popular columns
  const HostCsr d =
      gen::generate_sparse(gen::parse_sparse_spec("powerlaw:rows=4000,cols=4000,nnz=40000"));
  EXPECT_FALSE(test::same_csr(z, d));
  // Not given is the default exponent: the same matrix as param=1, under a shorter label.
  EXPECT_TRUE(test::same_csr(d, gen::generate_sparse(gen::parse_sparse_spec(
                                    "powerlaw:rows=4000,cols=4000,nnz=40000,param=1"))));
}

TEST(GenerateSparse, BandedEntriesStayInTheBand) {
  const SparseSpec spec = gen::parse_sparse_spec("banded:rows=500,cols=2000,nnz=9000,param=41");
  const HostCsr m = gen::generate_sparse(spec);
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const double center = (r + 0.5) * 2000.0 / 500.0;
    for (std::int64_t j = m.row_ptr[r]; j < m.row_ptr[r + 1]; ++j)
      ASSERT_LE(std::fabs(m.col_idx[j] - center), 21.0)
          << "row " << r << " column " << m.col_idx[j];
  }
  EXPECT_THROW(
      gen::generate_sparse(gen::parse_sparse_spec("banded:rows=100,cols=100,nnz=2000,param=5")),
      Error);
}

// Rows of a cluster share columns: a 32-row group touches far fewer distinct columns than 32
// uniform rows of the same lengths would.
TEST(GenerateSparse, ClusteredRowsShareColumns) {
  auto distinct_per_group = [](const HostCsr& m) {
    double total = 0;
    for (std::int64_t g = 0; g < m.rows / 32; ++g) {
      std::set<std::int32_t> cols(m.col_idx.begin() + m.row_ptr[g * 32],
                                  m.col_idx.begin() + m.row_ptr[g * 32 + 32]);
      total += static_cast<double>(cols.size());
    }
    return total / static_cast<double>(m.rows / 32);
  };
  const double clustered = distinct_per_group(
      gen::generate_sparse(gen::parse_sparse_spec("clustered:rows=3200,cols=20000,nnz=64000")));
  const double uniform = distinct_per_group(
      gen::generate_sparse(gen::parse_sparse_spec("uniform:rows=3200,cols=20000,nnz=64000")));
  EXPECT_LT(clustered, 0.4 * uniform) << clustered << " vs " << uniform;
}

// Every block of V rows has one column set; the sets themselves look uniform.
TEST(GenerateSparse, VectorBlocksShareExactlyOneColumnSet) {
  for (int v : {0, 2, 4, 8}) {  // 0: no param given, the default 4
    const std::string text = "vector:rows=4000,cols=4000,nnz=40000" +
                             (v > 0 ? ",param=" + std::to_string(v) : std::string());
    const HostCsr m = gen::generate_sparse(gen::parse_sparse_spec(text));
    const std::int64_t V = v > 0 ? v : 4;
    const auto row = [&](std::int64_t r) {
      return std::vector<std::int32_t>(m.col_idx.begin() + m.row_ptr[r],
                                       m.col_idx.begin() + m.row_ptr[r + 1]);
    };
    std::int64_t longest = 0, differs = 0;
    for (std::int64_t b = 0; b < m.rows / V; ++b) {
      for (std::int64_t r = b * V + 1; r < (b + 1) * V; ++r)
        ASSERT_EQ(row(r), row(b * V)) << text << ": row " << r;
      longest = std::max(longest, m.row_ptr[b * V + 1] - m.row_ptr[b * V]);
      differs += b > 0 && row(b * V) != row(b * V - V);
    }
    EXPECT_EQ(differs, m.rows / V - 1) << text;  // not one set repeated down the matrix
    EXPECT_LT(longest, 3 * 10) << text;          // Poisson lengths around the mean of 10
    std::vector<std::int64_t> per_col(static_cast<std::size_t>(m.cols), 0);
    for (std::int32_t c : m.col_idx) ++per_col[c];
    std::sort(per_col.rbegin(), per_col.rend());
    std::int64_t top = 0;
    for (std::int64_t i = 0; i < m.cols / 100; ++i) top += per_col[i];
    EXPECT_LT(static_cast<double>(top) / static_cast<double>(m.nnz()), 0.02 * V) << text;
  }
}

TEST(GenerateSparse, SpecRoundTrip) {
  for (const char* text : kSpecs) {
    const SparseSpec a = gen::parse_sparse_spec(text);
    const SparseSpec b = gen::parse_sparse_spec(gen::to_string(a));
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(a.cols, b.cols);
    EXPECT_EQ(a.nnz, b.nnz);
    EXPECT_EQ(a.param, b.param);
    EXPECT_EQ(a.seed, b.seed);
  }
  SparseSpec odd;
  odd.kind = SparseKind::kPowerLaw;
  odd.param = 0.1 + 0.2;  // not a short decimal
  EXPECT_EQ(gen::parse_sparse_spec(gen::to_string(odd)).param, odd.param);
  const SparseSpec sci = gen::parse_sparse_spec("clustered:nnz=2e5,cols=1e4,rows=20000");
  EXPECT_EQ(sci.nnz, 200000);
  EXPECT_EQ(sci.cols, 10000);
  EXPECT_EQ(sci.kind, SparseKind::kBlockClustered);
  EXPECT_EQ(sci.seed, 1u);
  const SparseSpec vec = gen::parse_sparse_spec("vector:rows=8,cols=8,nnz=16");
  EXPECT_EQ(vec.kind, SparseKind::kColumnVector);
  EXPECT_FALSE(vec.param.has_value());
  EXPECT_EQ(gen::to_string(vec), "vector:rows=8,cols=8,nnz=16,seed=1");
  // A param given is kept in the label (fk-datagen's and fk-bench's), 0 included.
  const SparseSpec zero = gen::parse_sparse_spec("powerlaw:rows=8,cols=8,nnz=16,param=0");
  EXPECT_EQ(gen::to_string(zero), "powerlaw:rows=8,cols=8,nnz=16,param=0,seed=1");
  EXPECT_EQ(gen::parse_sparse_spec(gen::to_string(zero)).param, std::optional<double>(0.0));
}

TEST(GenerateSparse, BadSpecsNameTheProblem) {
  const std::pair<const char*, const char*> bad[] = {
      {"diagonal:rows=10,cols=10,nnz=5", "diagonal"},
      {"uniform rows=10", "':'"},
      {"uniform:rows=10,cols=10", "nnz"},
      {"uniform:rows=10,cols=ten,nnz=5", "ten"},
      {"uniform:rows=10,cols=10,nnz=5,colour=red", "colour"},
      {"uniform:rows=10,rows=11,cols=10,nnz=5", "twice"},
      {"uniform:rows=10,cols=10,nnz=101", "exceeds"},
      {"uniform:rows=10,cols=10,nnz=5,param=2", "param"},
      {"banded:rows=10,cols=10,nnz=5,param=2.5", "param"},
      {"powerlaw:rows=10,cols=10,nnz=5,param=-1", "must be in [0, 5], got -1"},
      {"powerlaw:rows=10,cols=10,nnz=5,param=5.5", "must be in [0, 5], got 5.5"},
      {"powerlaw:rows=10,cols=10,nnz=5,param=nan", "bad value 'nan' for param"},
      {"uniform:rows=10,cols=10,nnz=5,param=0", "uniform takes no param"},
      // 0 was once read as "not given" and silently took the default; now it is out of range.
      {"banded:rows=10,cols=10,nnz=5,param=0", "whole number in [1, 21]"},
      {"banded:rows=10,cols=10,nnz=5,param=22", "whole number in [1, 21]"},
      {"clustered:rows=10,cols=10,nnz=5,param=0", "whole number in [1, 10]"},
      {"clustered:rows=10,cols=10,nnz=5,param=11", "whole number in [1, 10]"},
      {"clustered:rows=10,cols=10,nnz=5,param=1.5", "whole number in [1, 10]"},
      {"vector:rows=12,cols=10,nnz=8,param=0", "2, 4 or 8"},
      {"uniform:rows=0,cols=10,nnz=0", "rows"},
      {"uniform:rows=10,cols=1.5,nnz=5", "1.5"},
      {"uniform:rows=10,cols=10,nnz", "key=value"},
      {"vector:rows=10,cols=10,nnz=8", "multiples of 4"},  // rows
      {"vector:rows=12,cols=10,nnz=6", "multiples of 4"},  // nnz
      {"vector:rows=12,cols=10,nnz=8,param=8", "multiples of 8"},
      {"vector:rows=12,cols=10,nnz=6,param=3", "2, 4 or 8"},
      {"vector:rows=12,cols=10,nnz=6,param=1", "2, 4 or 8"},
      {"vector:rows=32,cols=10,nnz=32,param=16", "2, 4 or 8"},
      {"vector:rows=8,cols=2,nnz=20", "exceeds"},
  };
  for (const auto& [text, needle] : bad) {
    try {
      gen::parse_sparse_spec(text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
          << text << " -> " << e.what();
      // A user's mistake reads as one: no failed condition or source file in the message.
      EXPECT_EQ(std::string(e.what()).find("failed at"), std::string::npos)
          << text << " -> " << e.what();
    }
  }
}

}  // namespace
}  // namespace fk
