// fk-bench's correctness check (apps/bench/check.hpp) on outputs that are wrong in the ways a
// kernel goes wrong: a nonzero left out, two K columns swapped, an element left unwritten (NaN).
// The right output (from the reference variants) must score at float rounding, each wrong one far
// above the default tolerance (1e-4). Positive operands, so no cancellation hides an error.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "apps/bench/check.hpp"
#include "core/generate/sparse.hpp"
#include "core/random.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::bench {
namespace {

constexpr double kTolerance = 1e-4;

HostDense<float> positive(std::int64_t rows, std::int64_t cols, Rng& rng) {
  HostDense<float> m(rows, cols);
  for (float& x : m.storage()) x = static_cast<float>(rng.uniform(0.5, 1.5));
  return m;
}

// The generated matrix with values in [0.5, 1.5) and its row 0 emptied.
HostCsr positive_matrix(const std::string& spec, Rng& rng) {
  HostCsr s = gen::generate_sparse(gen::parse_sparse_spec(spec));
  const std::int64_t first = s.row_ptr[1];
  s.col_idx.erase(s.col_idx.begin(), s.col_idx.begin() + first);
  for (std::int64_t& p : s.row_ptr) p = std::max<std::int64_t>(0, p - first);
  s.vals.resize(static_cast<std::size_t>(s.nnz()));
  for (float& v : s.vals) v = static_cast<float>(rng.uniform(0.5, 1.5));
  return s;
}

TEST(BenchCheck, SddmmScoresRightOutputsLowAndWrongOnesHigh) {
  Rng rng(3);
  const HostCsr s = positive_matrix("powerlaw:rows=200,cols=150,nnz=2000", rng);
  const int k = 12;
  const HostDense<float> a = positive(s.rows, k, rng), b = positive(s.cols, k, rng);
  const SddmmCheck check(s.view(), a.view(), b.view(), 1 << 20);
  EXPECT_EQ(check.rows(), s.rows);  // small: every row
  Context cpu(DeviceKind::kCpu);
  PreparedSddmm plan = make_sddmm_plan(cpu, s.view(), k, "ref.sddmm");
  std::vector<float> out(static_cast<std::size_t>(s.nnz()));
  plan.run(cpu, a.view(), b.view(), s.vals.data(), out.data());
  EXPECT_LT(check.max_rel_err(out, true), 1e-6);
  // Unscaled outputs scored as scaled (the scale left out) and the other way round.
  EXPECT_GT(check.max_rel_err(out, false), kTolerance);
  // One element's last K term left out: it is at least 1/K of the element's terms' sum / 9.
  HostDense<float> b_short = b;
  for (std::int64_t c = 0; c < s.cols; ++c) b_short(c, k - 1) = 0;
  std::vector<float> wrong(out.size());
  plan.run(cpu, a.view(), b_short.view(), s.vals.data(), wrong.data());
  EXPECT_GT(check.max_rel_err(wrong, true), 1e-3);
  // One element unwritten.
  wrong = out;
  wrong[wrong.size() / 2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isinf(check.max_rel_err(wrong, true)));
  // Two K columns of A swapped: every dot product changes unless B's columns are equal.
  HostDense<float> a_swapped = a;
  for (std::int64_t r = 0; r < s.rows; ++r) std::swap(a_swapped(r, 0), a_swapped(r, 1));
  plan.run(cpu, a_swapped.view(), b.view(), s.vals.data(), wrong.data());
  EXPECT_GT(check.max_rel_err(wrong, true), kTolerance);
}

TEST(BenchCheck, SpmmScoresRightOutputsLowAndWrongOnesHigh) {
  Rng rng(4);
  const HostCsr s = positive_matrix("powerlaw:rows=200,cols=150,nnz=2000", rng);
  const int k = 9;
  const HostDense<float> b = positive(s.cols, k, rng);
  const SpmmCheck check(s.view(), b.view(), 1 << 20);
  Context cpu(DeviceKind::kCpu);
  PreparedSpmm plan = make_spmm_plan(cpu, s.view(), k, Op::kNoTrans, "ref.spmm");
  HostDense<float> c(s.rows, k);
  plan.run(cpu, nullptr, b.view(), c.view());
  EXPECT_LT(check.max_rel_err(c.values()), 1e-6);
  // A nonzero of the longest row left out: its share of the row's terms is at least 1/(3·len).
  std::int64_t longest = 0;
  for (std::int64_t r = 1; r < s.rows; ++r)
    if (s.row_ptr[r + 1] - s.row_ptr[r] > s.row_ptr[longest + 1] - s.row_ptr[longest]) longest = r;
  std::vector<float> dropped = s.vals;
  dropped[static_cast<std::size_t>(s.row_ptr[longest])] = 0;
  HostDense<float> wrong(s.rows, k);
  plan.run(cpu, dropped.data(), b.view(), wrong.view());
  EXPECT_GT(check.max_rel_err(wrong.values()), kTolerance);
  // Two output columns swapped.
  wrong = c;
  for (std::int64_t r = 0; r < s.rows; ++r) std::swap(wrong(r, 2), wrong(r, 5));
  EXPECT_GT(check.max_rel_err(wrong.values()), kTolerance);
  // One element unwritten; and an empty row's element must be exactly 0.
  wrong = c;
  wrong(longest, 3) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isinf(check.max_rel_err(wrong.values())));
  ASSERT_EQ(s.row_ptr[1], 0);
  wrong = c;
  wrong(0, 0) = 1e-30f;
  EXPECT_TRUE(std::isinf(check.max_rel_err(wrong.values())));
}

// Building a check runs the oracle in a CPU context of its own, which must keep the benchmark's
// thread count: a default context reset it to OpenMP's, and fk-bench --threads 1 then timed its
// CPU kernels on every core while reporting one thread.
TEST(BenchCheck, ChecksKeepTheBenchmarksThreadCount) {
  Rng rng(6);
  const HostCsr s = positive_matrix("uniform:rows=60,cols=50,nnz=400", rng);
  const HostDense<float> a = positive(s.rows, 8, rng), b = positive(s.cols, 8, rng);
  const int other = Context(DeviceKind::kCpu).threads() + 1;  // not OpenMP's default
  const Context bench(DeviceKind::kCpu, other);
  ASSERT_EQ(omp_get_max_threads(), other);
  const SpmmCheck spmm(s.view(), b.view(), 1 << 20);
  EXPECT_EQ(omp_get_max_threads(), other) << "SpmmCheck";
  const SddmmCheck sddmm(s.view(), a.view(), b.view(), 1 << 20);
  EXPECT_EQ(omp_get_max_threads(), other) << "SddmmCheck";
  const SpmmCheck ratio(s.view(), a.view(), b.view(), 1e-6f, RatioForm::kRatio, 1 << 20);
  EXPECT_EQ(omp_get_max_threads(), other) << "ratio SpmmCheck";
  EXPECT_EQ(Context::cpu_keeping_threads().threads(), other);
  EXPECT_EQ(Context(DeviceKind::kCpu, 1).describe(), "CPU (1 thread)");
}

// Over budget, the sample is a fixed, sorted set of rows within the budget, with the longest row.
TEST(BenchCheck, RowSampleStaysWithinItsBudgetAndKeepsTheLongestRow) {
  Rng rng(5);
  const HostCsr s = positive_matrix("powerlaw:rows=5000,cols=3000,nnz=60000", rng);
  std::int64_t longest = 0;
  for (std::int64_t r = 1; r < s.rows; ++r)
    if (s.row_ptr[r + 1] - s.row_ptr[r] > s.row_ptr[longest + 1] - s.row_ptr[longest]) longest = r;
  const std::int64_t budget = 6000;
  const std::vector<std::int64_t> rows = sample_rows(s.view(), budget, 1 << 20);
  ASSERT_FALSE(rows.empty());
  EXPECT_LT(std::int64_t(rows.size()), s.rows);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end());
  std::int64_t nnz = 0;
  for (std::int64_t r : rows) nnz += s.row_ptr[r + 1] - s.row_ptr[r];
  EXPECT_LE(nnz, budget);
  EXPECT_TRUE(std::binary_search(rows.begin(), rows.end(), longest));
  EXPECT_EQ(sample_rows(s.view(), budget, 1 << 20), rows);
  EXPECT_LE(std::int64_t(sample_rows(s.view(), budget, 7).size()), 7);
  // A budget below every row still checks one row, the shortest non-empty one (--check-nnz 1
  // reported 'ok' after checking nothing).
  std::int64_t shortest = -1;
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const std::int64_t len = s.row_ptr[r + 1] - s.row_ptr[r];
    if (len > 0 && (shortest < 0 || len < s.row_ptr[shortest + 1] - s.row_ptr[shortest]))
      shortest = r;
  }
  ASSERT_GT(s.row_ptr[shortest + 1] - s.row_ptr[shortest], 0);
  const std::int64_t tiny = s.row_ptr[shortest + 1] - s.row_ptr[shortest] - 1;
  const std::vector<std::int64_t> few = sample_rows(s.view(), tiny, 1 << 20);
  std::int64_t few_nnz = 0;
  for (std::int64_t r : few) few_nnz += s.row_ptr[r + 1] - s.row_ptr[r];
  EXPECT_TRUE(std::binary_search(few.begin(), few.end(), shortest));
  EXPECT_EQ(few_nnz, tiny + 1) << "the shortest non-empty row and empty ones only";
}

}  // namespace
}  // namespace fk::bench
