// SDDMM conformance: every registered variant (OpenMP, CUDA) against ref.sddmm on the
// awkward problems (tests/kernels/problems.hpp) and on the real files in ../shared/data, both the
// scaled and the unscaled form, with fresh random inputs and a NaN-poisoned output every run.
// Each variant is its own test (SddmmConformance/<Test>/<variant with '.' -> '_'>); CUDA variants
// skip without a device; a case the variant declares inapplicable (why_not) is skipped and
// reported. Tolerance: 1e-5 x sum_t |a_t b_t s| per output (see check_within_bound); the
// tensor-core variants at bf16, against the reference on rounded A and B with 1e-4
// (test::conformance_precision).
// A failure prints the seed: FK_TEST_SEED=<seed> replays the same inputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>

#include "core/device_buffer.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/smtx.hpp"
#include "kernels/sddmm.hpp"
#include "problems.hpp"

namespace fk {
namespace {

// Dense widths every variant is checked with: 1 and tiny, odd, around warp and SIMD multiples,
// and beyond one tile (the kernel's K loop runs more than once).
// 2, 5, 31: dot products that end in a partial SIMD vector of every length from 1 to 7.
const std::vector<int> kWidths = {1, 2, 3, 5, 17, 31, 32, 33, 64, 100, 128, 256, 512, 1000};

// A (problem, K) case is run when its dense inputs and reference work stay small, so that the
// whole suite stays fast; every K still runs on several problems (see SuiteCoversEveryWidth).
bool small_enough(const HostCsr& s, int k) {
  return double(s.rows + s.cols) * k <= 4e6 && double(s.nnz()) * k <= 2.5e7;
}

// One variant with its plan on S, wherever the variant runs: host arrays for CPU variants,
// device copies of S, A, B and the scales for CUDA variants (the result is downloaded).
class SddmmRunner {
 public:
  SddmmRunner(const SddmmVariant& v, const HostCsr& s, int k, Precision precision, int threads = 0)
      : ctx_(device_of(v.backend()), threads), s_(s), k_(k) {
    if (ctx_.is_gpu()) {
      dev_s_ = DeviceCsr(s);
      plan_ = make_sddmm_plan(ctx_, dev_s_.view(), k, v.name(), precision);
    } else {
      plan_ = make_sddmm_plan(ctx_, s.view(), k, v.name(), precision);
    }
  }

  // out = SDDMM(a, b) scaled by `scale` (nnz values in S's order) or unscaled when null.
  std::vector<float> run(const HostDense<float>& a, const HostDense<float>& b, const std::vector<float>* scale) {
    const std::int64_t nnz = s_.nnz();
    if (!ctx_.is_gpu()) {
      std::vector<float> out(nnz, std::numeric_limits<float>::quiet_NaN());  // poisoned
      plan_.run(ctx_, a.view(), b.view(), scale ? scale->data() : nullptr, out.data());
      return out;
    }
    DeviceDense<float> da(a), db(b);
    DeviceBuffer<float> dscale = scale ? DeviceBuffer<float>(*scale) : DeviceBuffer<float>();
    DeviceBuffer<float> dout(nnz);
    dout.fill_bytes(0xFF);  // all-ones bytes: NaN
    plan_.run(ctx_, da.view(), db.view(), scale ? dscale.data() : nullptr, dout.data());
    ctx_.synchronize();
    return dout.to_host();
  }

 private:
  Context ctx_;
  const HostCsr& s_;
  int k_;
  DeviceCsr dev_s_;
  PreparedSddmm plan_;
};

// want = ref.sddmm(a, b, scale), A and B rounded to `precision` (test::as_operand); bound = ref.sddmm(|a|, |b|, |scale|) = sum_t |a_t b_t s|.
struct Expected {
  std::vector<float> want, bound;
};
Expected reference(const HostCsr& s, int k, const HostDense<float>& given_a,
                   const HostDense<float>& given_b, const std::vector<float>* scale,
                   Precision precision) {
  const HostDense<float> a = test::as_operand(given_a, precision), b = test::as_operand(given_b, precision);
  Context cpu(DeviceKind::kCpu);
  auto plan = make_sddmm_plan(cpu, s.view(), k, "ref.sddmm");
  Expected e{std::vector<float>(s.nnz()), std::vector<float>(s.nnz())};
  plan.run(cpu, a.view(), b.view(), scale ? scale->data() : nullptr, e.want.data());
  HostDense<float> aa = a, ab = b;
  aa.storage() = test::abs_values(a.storage());
  ab.storage() = test::abs_values(b.storage());
  const std::vector<float> as = scale ? test::abs_values(*scale) : std::vector<float>();
  plan.run(cpu, aa.view(), ab.view(), scale ? as.data() : nullptr, e.bound.data());
  return e;
}

using test::random_matrix;

class SddmmConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    variant_ = &find_sddmm_variant(GetParam());
    if (variant_->backend() == Backend::kCuda) FK_REQUIRE_GPU();
    precision_ = test::conformance_precision(*variant_);
    tol_ = test::conformance_tolerance(precision_);
    seed_ = test::fresh_seed();
    rng_ = Rng(seed_);
  }

  // Checks the variant on `s` for each K in `widths` (skipping cases that are too large or that
  // the variant does not apply to): one plan per (s, K), run unscaled, then scaled with S's
  // values (or random scales when S has none), each with fresh A and B.
  void check_problem(const std::string& name, const HostCsr& s, const std::vector<int>& widths) {
    for (int k : widths) {
      if (!small_enough(s, k)) continue;
      const std::string why = variant_->why_not(problem(s, k));
      if (!why.empty()) {
        skipped_.push_back(name + " K=" + std::to_string(k) + ": " + why);
        continue;
      }
      SCOPED_TRACE(describe(name, k));
      try {
        SddmmRunner runner(*variant_, s, k, precision_);
        const std::vector<float> scale = s.vals.empty() ? test::random_dense(s.nnz(), rng_) : s.vals;
        for (const std::vector<float>* sc : {static_cast<const std::vector<float>*>(nullptr), &scale}) {
          const HostDense<float> a = random_matrix(s.rows, k, rng_), b = random_matrix(s.cols, k, rng_);
          const Expected e = reference(s, k, a, b, sc, precision_);
          const std::string bad = test::check_within_bound(runner.run(a, b, sc), e.want, e.bound, tol_);
          EXPECT_TRUE(bad.empty()) << (sc ? "scaled: " : "unscaled: ") << bad;
        }
      } catch (const std::exception& ex) {  // report the case and go on with the others
        ADD_FAILURE() << describe(name, k) << " threw: " << ex.what();
      }
      ++checked_;
    }
  }

  KernelProblem problem(const HostCsr& s, int k) const {
    KernelProblem p{features(s.view()), k};
    p.precision = precision_;
    return p;
  }

  std::string describe(const std::string& problem, int k) const {
    std::ostringstream os;
    os << GetParam() << " on " << problem << ", K=" << k << " (replay: FK_TEST_SEED=" << seed_ << ")";
    return os.str();
  }

  void TearDown() override {
    if (!skipped_.empty()) {
      std::cout << "[ note ] " << GetParam() << " skipped " << skipped_.size() << " case(s) it does not apply to:";
      for (const auto& s : skipped_) std::cout << "\n           " << s;
      std::cout << '\n';
    }
  }

  // GTEST_SKIP()s (from the test body) when every case was inapplicable, so that a variant that
  // applies to nothing shows as skipped, not as passed.
  bool all_skipped() const { return checked_ == 0 && !skipped_.empty(); }

  const SddmmVariant* variant_ = nullptr;
  Precision precision_ = Precision::kF32;
  double tol_ = 1e-5;
  std::uint64_t seed_ = 0;
  Rng rng_{0};
  std::vector<std::string> skipped_;
  int checked_ = 0;
};

TEST_P(SddmmConformance, AwkwardProblems) {
  for (const auto& p : test::awkward_problems(seed_)) check_problem(p.name, p.s, kWidths);
  if (all_skipped()) GTEST_SKIP() << GetParam() << " applies to none of the awkward problems";
}

// A plan prepared once serves many runs: new A, B and scale vectors each time, and the unscaled
// form after the scaled one, on the same plan.
TEST_P(SddmmConformance, PlanIsReusableWithNewValuesAndScales) {
  for (const auto& p : test::awkward_problems(seed_)) {
    if (p.name != "power_law" && p.name != "clustered" && p.name != "one_dense_row") continue;
    const int k = 33;
    if (!variant_->why_not(problem(p.s, k)).empty()) continue;
    SCOPED_TRACE(describe(p.name, k));
    SddmmRunner runner(*variant_, p.s, k, precision_);
    for (int round = 0; round < 3; ++round) {
      const HostDense<float> a = random_matrix(p.s.rows, k, rng_), b = random_matrix(p.s.cols, k, rng_);
      const std::vector<float> scale = test::random_dense(p.s.nnz(), rng_);  // a different scale vector each round
      const std::vector<float>* sc = round == 1 ? nullptr : &scale;
      const Expected e = reference(p.s, k, a, b, sc, precision_);
      const std::string bad = test::check_within_bound(runner.run(a, b, sc), e.want, e.bound, tol_);
      EXPECT_TRUE(bad.empty()) << "round " << round << ": " << bad;
    }
    ++checked_;
  }
  if (checked_ == 0) GTEST_SKIP() << GetParam() << " applies to none of the reuse problems";
}

// A CPU variant's result does not depend on the thread count (plans prepared and run on 1 and on 3
// threads), as the apps promise. omp.sddmm.aspt cut long rows into segments sized by the thread
// count, and its entries in groups of 8, 4 and 1 round differently: a segment that did not start
// on a row's group of 8 changed bits (98 of 201,500 here, found by a review).
TEST_P(SddmmConformance, ThreadCountDoesNotChangeTheBits) {
  if (variant_->backend() == Backend::kCuda) GTEST_SKIP() << "a CPU property";
  std::vector<test::Problem> problems;
  for (auto& p : test::awkward_problems(seed_))
    if (p.name == "power_law" || p.name == "one_dense_row") problems.push_back(std::move(p));
  // One row of 200,000 among five short ones: long enough to be cut into segments.
  problems.push_back({"one_very_long_row", test::random_pattern(6, 250000, rng_, [](std::int64_t r) {
                        return std::int64_t(r == 2 ? 200000 : 300);
                      })});
  const int k = 16;
  for (const auto& p : problems) {
    if (!variant_->why_not(problem(p.s, k)).empty()) continue;
    SCOPED_TRACE(describe(p.name, k));
    const HostDense<float> a = random_matrix(p.s.rows, k, rng_), b = random_matrix(p.s.cols, k, rng_);
    const std::vector<float> one = SddmmRunner(*variant_, p.s, k, precision_, 1).run(a, b, nullptr);
    const std::vector<float> three = SddmmRunner(*variant_, p.s, k, precision_, 3).run(a, b, nullptr);
    EXPECT_TRUE(one == three) << "1 and 3 threads differ";
    ++checked_;
  }
  if (checked_ == 0) GTEST_SKIP() << GetParam() << " applies to none of the problems";
}

// Every .mtx of ../shared/data/suitesparse (symmetric files expanded by the reader).
TEST_P(SddmmConformance, SuiteSparseFiles) {
  const std::vector<std::string> files = test::suitesparse_files();
  if (files.empty()) GTEST_SKIP() << "no Matrix Market file in ../shared/data/suitesparse";
  for (const std::string& path : files)
    check_problem(std::filesystem::path(path).filename().string(), io::read_matrix_market(path), {17, 64});
  if (all_skipped()) GTEST_SKIP() << GetParam() << " applies to none of the files";
}

// The sample of ../shared/data/dlmc (test::dlmc_sample; pattern-only .smtx: the scales are random).
TEST_P(SddmmConformance, DlmcSample) {
  const auto sample = test::dlmc_sample();
  if (sample.empty()) GTEST_SKIP() << "no sampled DLMC file in ../shared/data/dlmc";
  for (const auto& [layer, path] : sample) check_problem(layer, io::read_smtx(path), {33, 64});
  if (all_skipped()) GTEST_SKIP() << GetParam() << " applies to none of the files";
}

// Every variant but the oracle, ref.sddmm (ReferenceSddmm.TinyExact checks it).
INSTANTIATE_TEST_SUITE_P(Registered, SddmmConformance,
                         ::testing::ValuesIn(test::variant_names(sddmm_variants(), "ref.sddmm")),
                         test::test_name_of);

// The trimming in small_enough() must leave every K of kWidths on some awkward problem.
TEST(SddmmConformanceSuite, SuiteCoversEveryWidth) {
  const auto problems = test::awkward_problems(1);
  for (int k : kWidths) {
    int n = 0;
    for (const auto& p : problems) n += small_enough(p.s, k) && p.s.nnz() > 0;
    EXPECT_GE(n, 3) << "K=" << k << " runs on fewer than 3 non-empty problems";
  }
}

}  // namespace
}  // namespace fk
