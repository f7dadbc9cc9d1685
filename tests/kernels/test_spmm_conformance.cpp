// SpMM conformance: every registered variant (reference, OpenMP, CUDA) for C = S·B against
// ref.spmm and for C = Sᵀ·B (make_spmm_plan with Op::kTrans: natively or through the cached
// transpose) against a direct scatter in double, on the awkward problems
// (tests/kernels/problems.hpp) and the real files in ../shared/data, with values given at run time
// and S's own values, fresh random inputs and a NaN-poisoned C every run. Each variant is its own
// test (SpmmConformance/<Test>/<variant with '.' -> '_'>); CUDA variants skip without a device;
// cases the variant declares inapplicable (why_not) are skipped and reported. Tolerance: 1e-5 x
// sum_j |v_j b_j| per output element (see check_within_bound); the tensor-core variants run at
// bf16 and are checked against the reference on rounded operands with 1e-4
// (test::conformance_precision).
// A failure prints the seed: FK_TEST_SEED=<seed> replays the same inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>

#include "core/device_buffer.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/smtx.hpp"
#include "kernels/spmm.hpp"
#include "problems.hpp"

namespace fk {
namespace {

// Dense widths: SpMV (1), tiny and odd widths, around 32 (warp, 4 SIMD vectors), two tiles and far
// beyond one register block (1000 = 15 blocks of 64 + 40, a tail of 5 vectors); 70 and 100 end in a
// partial SIMD vector after a full register block's worth (kernels/omp/simd.hpp, spmm_row).
const std::vector<int> kWidths = {1, 2, 3, 5, 31, 32, 33, 64, 70, 100, 128, 1000};
const Op kOps[] = {Op::kNoTrans, Op::kTrans};

const char* op_name(Op op) { return op == Op::kNoTrans ? "S*B" : "S^T*B"; }

// Same trimming rule as the SDDMM suite: dense inputs and reference work stay small.
bool small_enough(const HostCsr& s, int k) {
  return double(s.rows + s.cols) * k <= 4e6 && double(s.nnz()) * k <= 2.5e7;
}

// The problem make_spmm_plan shows the variant's why_not for `op` (for kTrans: S's shape swapped).
KernelProblem problem_for(const HostCsr& s, int k, Op op, Precision precision) {
  KernelProblem p{features(s.view()), k};
  p.precision = precision;
  if (op == Op::kTrans) {
    p.transposed = true;
    std::swap(p.sparse.rows, p.sparse.cols);
    p.sparse.row_mean = p.sparse.rows > 0 ? double(p.sparse.nnz) / double(p.sparse.rows) : 0;
  }
  return p;
}

// One variant with its plan for op(S)·B, wherever the variant runs: host arrays for CPU
// variants, device copies of S, the values and B for CUDA variants (C is downloaded).
class SpmmRunner {
 public:
  SpmmRunner(const SpmmVariant& v, const HostCsr& s, int k, Op op, Precision precision,
             int threads = 0)
      : ctx_(device_of(v.backend()), threads), s_(s), k_(k), op_(op) {
    if (ctx_.is_gpu()) {
      dev_s_ = DeviceCsr(s);
      plan_ = make_spmm_plan(ctx_, dev_s_.view(), k, op, v.name(), precision);
    } else {
      plan_ = make_spmm_plan(ctx_, s.view(), k, op, v.name(), precision);
    }
  }
  std::int64_t out_rows() const { return op_ == Op::kNoTrans ? s_.rows : s_.cols; }

  // C = op(S)·b with `vals` (nnz values in S's order) or S's own values when null.
  std::vector<float> run(const std::vector<float>* vals, const HostDense<float>& b) {
    if (!ctx_.is_gpu()) {
      HostDense<float> c(out_rows(), k_, std::numeric_limits<float>::quiet_NaN());  // poisoned
      plan_.run(ctx_, vals ? vals->data() : nullptr, b.view(), c.view());
      return c.values();
    }
    DeviceDense<float> db(b), dc(out_rows(), k_);
    DeviceBuffer<float> dvals = vals ? DeviceBuffer<float>(*vals) : DeviceBuffer<float>();
    dc.fill_bytes(0xFF);  // all-ones bytes: NaN
    plan_.run(ctx_, vals ? dvals.data() : nullptr, db.view(), dc.view());
    ctx_.synchronize();
    return dc.to_host().values();
  }

 private:
  Context ctx_;
  const HostCsr& s_;
  int k_;
  Op op_;
  DeviceCsr dev_s_;
  PreparedSpmm plan_;
};

// want = op(S)·b with `vals` (both rounded to `precision`: test::as_operand); bound = the same with |vals| and |b| = sum_j |v_j b_j| per element.
// S·B from ref.spmm (sequential, double; its own exact case is ReferenceSpmm.TinyExactBothOps);
// Sᵀ·B scattered here in double, apart from the transposing path (CachedTransposePlan) every
// variant without a native Sᵀ·B shares.
struct Expected {
  std::vector<float> want, bound;
};
Expected reference(const HostCsr& s, int k, Op op, const std::vector<float>& given_vals,
                   const HostDense<float>& given_b, Precision precision) {
  const std::vector<float> vals = test::as_operand(given_vals, precision);
  const HostDense<float> b = test::as_operand(given_b, precision);
  Expected e;
  if (op == Op::kTrans) {
    std::vector<double> want(static_cast<std::size_t>(s.cols) * k, 0.0), bound(want.size(), 0.0);
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
        const std::size_t out = static_cast<std::size_t>(s.col_idx[j]) * k;
        for (int t = 0; t < k; ++t) {
          want[out + t] += double(vals[j]) * b(r, t);
          bound[out + t] += std::fabs(double(vals[j]) * b(r, t));
        }
      }
    e.want.assign(want.begin(), want.end());
    e.bound.assign(bound.begin(), bound.end());
    return e;
  }
  Context cpu(DeviceKind::kCpu);
  auto plan = make_spmm_plan(cpu, s.view(), k, op, "ref.spmm");
  HostDense<float> c(s.rows, k);
  plan.run(cpu, vals.data(), b.view(), c.view());
  e.want = c.values();
  HostDense<float> ab = b;
  ab.storage() = test::abs_values(b.storage());
  const std::vector<float> av = test::abs_values(vals);
  plan.run(cpu, av.data(), ab.view(), c.view());
  e.bound = c.values();
  return e;
}

// nnz random values, at least one: a run-time array is never null (null means S's own values,
// and an empty vector's data() may be null).
std::vector<float> random_values(std::int64_t nnz, Rng& rng) { return test::random_dense(std::max<std::int64_t>(nnz, 1), rng); }

using test::random_matrix;

class SpmmConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    variant_ = &find_spmm_variant(GetParam());
    if (variant_->backend() == Backend::kCuda) FK_REQUIRE_GPU();
    precision_ = test::conformance_precision(*variant_);
    tol_ = test::conformance_tolerance(precision_);
    seed_ = test::fresh_seed();
    rng_ = Rng(seed_);
  }

  // Checks both ops for each K in `widths`: one plan per (s, K, op), run with random values given
  // at run time, then with S's own values (when S has values), each with a fresh B.
  void check_problem(const std::string& name, const HostCsr& s, const std::vector<int>& widths) {
    for (int k : widths) {
      if (!small_enough(s, k)) continue;
      for (Op op : kOps) {
        if (is_oracle(op)) continue;
        const std::string why = variant_->why_not(problem_for(s, k, op, precision_));
        if (!why.empty()) {
          skipped_.push_back(name + " " + op_name(op) + " K=" + std::to_string(k) + ": " + why);
          continue;
        }
        SCOPED_TRACE(describe(name, k, op));
        try {
          SpmmRunner runner(*variant_, s, k, op, precision_);
          const std::int64_t b_rows = op == Op::kNoTrans ? s.cols : s.rows;
          {
            const std::vector<float> vals = random_values(s.nnz(), rng_);
            const HostDense<float> b = random_matrix(b_rows, k, rng_);
            const Expected e = reference(s, k, op, vals, b, precision_);
            const std::string bad = test::check_within_bound(runner.run(&vals, b), e.want, e.bound, tol_);
            EXPECT_TRUE(bad.empty()) << "run-time values: " << bad;
          }
          if (!s.vals.empty()) {
            const HostDense<float> b = random_matrix(b_rows, k, rng_);
            const Expected e = reference(s, k, op, s.vals, b, precision_);
            const std::string bad = test::check_within_bound(runner.run(nullptr, b), e.want, e.bound, tol_);
            EXPECT_TRUE(bad.empty()) << "S's own values: " << bad;
          }
        } catch (const std::exception& ex) {  // report the case and go on with the others
          ADD_FAILURE() << describe(name, k, op) << " threw: " << ex.what();
        }
        ++checked_;
      }
    }
  }

  std::string describe(const std::string& problem, int k, Op op) const {
    std::ostringstream os;
    os << GetParam() << " " << op_name(op) << " on " << problem << ", K=" << k << " (replay: FK_TEST_SEED=" << seed_
       << ")";
    return os.str();
  }

  void TearDown() override {
    if (!skipped_.empty()) {
      std::cout << "[ note ] " << GetParam() << " skipped " << skipped_.size() << " case(s) it does not apply to:";
      for (const auto& s : skipped_) std::cout << "\n           " << s;
      std::cout << '\n';
    }
  }

  bool all_skipped() const { return checked_ == 0 && !skipped_.empty(); }
  // ref.spmm's S·B is the oracle (left out: it would be checked against itself); its Sᵀ·B goes
  // through the transposing path and is checked.
  bool is_oracle(Op op) const { return op == Op::kNoTrans && GetParam() == "ref.spmm"; }

  const SpmmVariant* variant_ = nullptr;
  Precision precision_ = Precision::kF32;
  double tol_ = 1e-5;
  std::uint64_t seed_ = 0;
  Rng rng_{0};
  std::vector<std::string> skipped_;
  int checked_ = 0;
};

TEST_P(SpmmConformance, AwkwardProblems) {
  for (const auto& p : test::awkward_problems(seed_)) check_problem(p.name, p.s, kWidths);
  if (all_skipped()) GTEST_SKIP() << GetParam() << " applies to none of the awkward problems";
}

// A plan prepared once serves many runs with new values and new B (apps recompute values every
// iteration on a fixed pattern), for both ops.
TEST_P(SpmmConformance, PlanIsReusableWithNewValues) {
  for (const auto& p : test::awkward_problems(seed_)) {
    if (p.name != "power_law" && p.name != "clustered" && p.name != "long_rows_among_short") continue;
    const int k = 33;
    for (Op op : kOps) {
      if (is_oracle(op) || !variant_->why_not(problem_for(p.s, k, op, precision_)).empty()) continue;
      SCOPED_TRACE(describe(p.name, k, op));
      SpmmRunner runner(*variant_, p.s, k, op, precision_);
      for (int round = 0; round < 3; ++round) {
        const std::vector<float> vals = random_values(p.s.nnz(), rng_);
        const HostDense<float> b = random_matrix(op == Op::kNoTrans ? p.s.cols : p.s.rows, k, rng_);
        const Expected e = reference(p.s, k, op, vals, b, precision_);
        const std::string bad = test::check_within_bound(runner.run(&vals, b), e.want, e.bound, tol_);
        EXPECT_TRUE(bad.empty()) << "round " << round << ": " << bad;
      }
      ++checked_;
    }
  }
  if (checked_ == 0) GTEST_SKIP() << GetParam() << " applies to none of the reuse problems";
}

// A CPU variant's result does not depend on the thread count (the plan prepared and run on 1 and
// on 3 threads): apps promise the same model for the same seed on any --threads. Work splits that
// order a sum are sized by processors (omp_common::split_threads); nnz_balanced's parts and ASpT's
// panels followed the thread count and gave other bits.
TEST_P(SpmmConformance, ThreadCountDoesNotChangeTheBits) {
  if (variant_->backend() == Backend::kCuda) GTEST_SKIP() << "a CPU property";
  std::vector<test::Problem> problems;
  for (auto& p : test::awkward_problems(seed_))
    if (p.name == "power_law" || p.name == "long_rows_among_short" || p.name == "clustered")
      problems.push_back(std::move(p));
  // Few rows of a wide B (13 MB at K = 33, past the cache ASpT sizes for): ASpT cuts them into a
  // few panels per thread, and which columns count as heavy in a panel orders each row's sum
  // (on 1 thread two 20-row panels, all but 0.1% of the entries heavy; on 3 threads 7-row
  // panels, 80%).
  problems.push_back({"few_wide_rows", test::random_pattern(40, 100000, rng_, [&](std::int64_t) {
                        return std::int64_t(34000);
                      })});
  for (const auto& p : problems) {
    const bool wide = p.name == "few_wide_rows";  // S·B at K = 33 is its point
    for (int k : {1, 33}) {
      for (Op op : kOps) {
        if (wide && (k != 33 || op != Op::kNoTrans)) continue;
        if (!variant_->why_not(problem_for(p.s, k, op, precision_)).empty()) continue;
        SCOPED_TRACE(describe(p.name, k, op));
        const std::vector<float> vals = random_values(p.s.nnz(), rng_);
        const HostDense<float> b = random_matrix(op == Op::kNoTrans ? p.s.cols : p.s.rows, k, rng_);
        const std::vector<float> one = SpmmRunner(*variant_, p.s, k, op, precision_, 1).run(&vals, b);
        const std::vector<float> three = SpmmRunner(*variant_, p.s, k, op, precision_, 3).run(&vals, b);
        EXPECT_TRUE(one == three) << "1 and 3 threads differ";
        ++checked_;
      }
    }
  }
  if (checked_ == 0) GTEST_SKIP() << GetParam() << " applies to none of the problems";
}

// Every .mtx of ../shared/data/suitesparse (symmetric files expanded by the reader).
TEST_P(SpmmConformance, SuiteSparseFiles) {
  const std::vector<std::string> files = test::suitesparse_files();
  if (files.empty()) GTEST_SKIP() << "no Matrix Market file in ../shared/data/suitesparse";
  for (const std::string& path : files)
    check_problem(std::filesystem::path(path).filename().string(), io::read_matrix_market(path), {5, 64});
  if (all_skipped()) GTEST_SKIP() << GetParam() << " applies to none of the files";
}

// The sample of ../shared/data/dlmc (test::dlmc_sample; pattern-only .smtx: values random).
TEST_P(SpmmConformance, DlmcSample) {
  const auto sample = test::dlmc_sample();
  if (sample.empty()) GTEST_SKIP() << "no sampled DLMC file in ../shared/data/dlmc";
  for (const auto& [layer, path] : sample) check_problem(layer, io::read_smtx(path), {32, 65});
  if (all_skipped()) GTEST_SKIP() << GetParam() << " applies to none of the files";
}

INSTANTIATE_TEST_SUITE_P(Registered, SpmmConformance,
                         ::testing::ValuesIn(test::variant_names(spmm_variants())), test::test_name_of);

// The trimming in small_enough() must leave every K of kWidths on some awkward problem.
TEST(SpmmConformanceSuite, SuiteCoversEveryWidth) {
  const auto problems = test::awkward_problems(1);
  for (int k : kWidths) {
    int n = 0;
    for (const auto& p : problems) n += small_enough(p.s, k) && p.s.nnz() > 0;
    EXPECT_GE(n, 3) << "K=" << k << " runs on fewer than 3 non-empty problems";
  }
}

// CPU Sᵀ·B plans gather S's values into the transpose's order in the context's host run scratch
// (Context::run_scratch), one buffer for all of a context's plans instead of one each: two
// plans run in turn, each on its own values, give each one's result as when it ran alone.
TEST(SpmmConformanceSuite, TransposedPlansOfOneContextShareTheirGatherBuffer) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(21);
  const HostCsr s1 = test::random_pattern(300, 200, rng, [](std::int64_t r) { return 5 + r % 30; });
  const HostCsr s2 = test::random_pattern(300, 200, rng, [](std::int64_t r) { return 40 - r % 30; });
  const int k = 16;
  const HostDense<float> b = test::random_matrix(300, k, rng);
  const auto run = [&](PreparedSpmm& plan, const HostCsr& s) {
    HostDense<float> c(200, k);
    plan.run(cpu, s.vals.data(), DenseView<const float>{b.data(), 300, k}, DenseView<float>{c.data(), 200, k});
    return c.storage();
  };
  PreparedSpmm p1 = make_spmm_plan(cpu, s1.view(), k, Op::kTrans, "omp.spmm.rows");
  PreparedSpmm p2 = make_spmm_plan(cpu, s2.view(), k, Op::kTrans, "omp.spmm.rows");
  const auto first = run(p1, s1);
  const auto second = run(p2, s2);
  EXPECT_EQ(run(p1, s1), first);
  EXPECT_NE(first, second);
  Context alone(DeviceKind::kCpu);
  PreparedSpmm p2_alone = make_spmm_plan(alone, s2.view(), k, Op::kTrans, "omp.spmm.rows");
  HostDense<float> c(200, k);
  p2_alone.run(alone, s2.vals.data(), DenseView<const float>{b.data(), 300, k}, DenseView<float>{c.data(), 200, k});
  EXPECT_EQ(c.storage(), second);
}

}  // namespace
}  // namespace fk
