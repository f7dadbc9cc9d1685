// fk-gap's math: one iteration against a dense double-precision computation, the MAP objective
// never decreasing, recovery of the rates of a known model, the thinning split, and the GPU
// backend against the CPU one (skipped without a device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <vector>

#include "apps/common/reduce.hpp"
#include "apps/common/repeatability.hpp"
#include "apps/gap/gap_backend.hpp"
#include "apps/gap/gap_data.hpp"
#include "apps/gap/gap_trainer.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/npy.hpp"
#include "tests/apps/test_gap_util.hpp"

namespace fk::gap {
namespace {

using test::json_number;
using test::metric_series;
using test::run_gap;

// A D x W matrix from dense values (zeros left out).
HostCsr csr_from_dense(const std::vector<std::vector<double>>& f) {
  HostCsr m;
  m.rows = static_cast<std::int64_t>(f.size());
  m.cols = static_cast<std::int64_t>(f[0].size());
  for (const auto& row : f) {
    for (std::size_t w = 0; w < row.size(); ++w)
      if (row[w] != 0) {
        m.col_idx.push_back(static_cast<std::int32_t>(w));
        m.vals.push_back(static_cast<float>(row[w]));
      }
    m.row_ptr.push_back(m.nnz());
  }
  return m;
}

// One iteration on a 3 x 4 matrix (with zeros and an empty word column) against the formulas of
// gap_backend.hpp computed densely in double precision; then the evaluation sums. In both orders,
// with the separate kernels and with the fused ratio SpMMs.
struct OrderCase {
  GapUpdate update;
  const char* ratio_spmm;
};
class GapIteration : public ::testing::TestWithParam<OrderCase> {};

TEST_P(GapIteration, MatchesDenseComputation) {
  const std::vector<std::vector<double>> f = {{2, 0, 1, 0}, {0, 3, 1, 0}, {1, 1, 0, 0}};
  const int k = 2;
  const double a = 1.3, b = 5.0;
  HostDense<float> lambda(4, k), x(3, k);
  const float lam_raw[4][2] = {{0.4f, 0.1f}, {0.2f, 0.5f}, {0.3f, 0.3f}, {0.1f, 0.1f}};
  const float x_raw[3][2] = {{2.0f, 0.5f}, {0.7f, 3.0f}, {1.2f, 1.1f}};
  for (int w = 0; w < 4; ++w)
    for (int c = 0; c < k; ++c) lambda(w, c) = lam_raw[w][c];  // columns sum to 1
  for (int d = 0; d < 3; ++d)
    for (int c = 0; c < k; ++c) x(d, c) = x_raw[d][c];
  const HostCsr train = csr_from_dense(f), none;
  GapHyper h;
  h.factors = k;
  h.a = a;
  h.b = b;
  h.update = GetParam().update;
  h.ratio_spmm = GetParam().ratio_spmm;
  const bool alternating = h.update == GapUpdate::kAlternating;
  GapMatrices m;
  m.train = &train;
  m.heldout = &none;
  auto be = make_cpu_gap_backend(Context(DeviceKind::kCpu, 1), h, m);
  EXPECT_EQ(be->kernel_names().find("ratio_spmm") != std::string::npos,
            h.ratio_spmm == "omp.ratio_spmm.rows")
      << be->kernel_names();
  be->set_model(lambda, x);

  // The sums of the starting model.
  double log_rate = 0, rate_sum = 0, prior = 0;
  double r[3][4];
  for (int d = 0; d < 3; ++d)
    for (int w = 0; w < 4; ++w) {
      r[d][w] = 0;
      for (int c = 0; c < k; ++c) r[d][w] += double(x_raw[d][c]) * lam_raw[w][c];
      rate_sum += r[d][w];
      if (f[d][w] > 0) log_rate += f[d][w] * std::log(r[d][w]);
    }
  for (int d = 0; d < 3; ++d)
    for (int c = 0; c < k; ++c) prior += (a - 1) * std::log(x_raw[d][c]) - x_raw[d][c] / b;
  const ModelSums s = be->evaluate();
  EXPECT_NEAR(s.train_log_rate, log_rate, 1e-5 * std::fabs(log_rate));
  EXPECT_NEAR(s.rate_sum, rate_sum, 1e-5 * rate_sum);
  EXPECT_NEAR(s.prior, prior, 1e-5 * std::fabs(prior));
  EXPECT_FALSE(s.heldout_log_rate);

  // Q = F ./ R (zeros stay zero), T1 = Q Λ, T2 = Qᵀ X.
  double q[3][4], t1[3][2] = {}, t2[4][2] = {};
  for (int d = 0; d < 3; ++d)
    for (int w = 0; w < 4; ++w) q[d][w] = f[d][w] > 0 ? f[d][w] / r[d][w] : 0.0;
  for (int d = 0; d < 3; ++d)
    for (int w = 0; w < 4; ++w)
      for (int c = 0; c < k; ++c) {
        t1[d][c] += q[d][w] * lam_raw[w][c];
        t2[w][c] += q[d][w] * x_raw[d][c];
      }
  app::LocalReducer reducer;
  be->iterate(reducer);
  const HostDense<float> x1 = be->x(), l1 = be->lambda();
  double x_new[3][2];
  for (int d = 0; d < 3; ++d)
    for (int c = 0; c < k; ++c) {
      const double want = (x_raw[d][c] * t1[d][c] + (a - 1)) / (1.0 + 1.0 / b);
      EXPECT_NEAR(x1(d, c), want, 1e-5 * want) << "x(" << d << ", " << c << ")";
      x_new[d][c] = want;
    }
  if (alternating) {  // T2 = Q' X' with the new X and its rates
    for (auto& row : t2)
      for (double& v : row) v = 0;
    for (int d = 0; d < 3; ++d)
      for (int w = 0; w < 4; ++w) {
        if (f[d][w] == 0) continue;
        double rate = 0;
        for (int c = 0; c < k; ++c) rate += x_new[d][c] * lam_raw[w][c];
        for (int c = 0; c < k; ++c) t2[w][c] += f[d][w] / rate * x_new[d][c];
      }
  }
  for (int c = 0; c < k; ++c) {
    double col = 0;
    for (int w = 0; w < 4; ++w) col += lam_raw[w][c] * t2[w][c];
    for (int w = 0; w < 4; ++w) {
      const double want = lam_raw[w][c] * t2[w][c] / col;
      EXPECT_NEAR(l1(w, c), want, 1e-6 + 1e-5 * want) << "lambda(" << w << ", " << c << ")";
    }
    EXPECT_EQ(l1(3, c), 0.0f) << "a word without counts loses its weight";
  }
}

INSTANTIATE_TEST_SUITE_P(Orders, GapIteration,
                         ::testing::Values(OrderCase{GapUpdate::kJoint, "off"},
                                           OrderCase{GapUpdate::kJoint, "omp.ratio_spmm.rows"},
                                           OrderCase{GapUpdate::kAlternating, "off"},
                                           OrderCase{GapUpdate::kAlternating,
                                                     "omp.ratio_spmm.rows"}));

// MAP objective never decreases (gap_backend.hpp: EM with the columns of Λ normalized, a >= 1).
// Checked for a = 1 (flat prior: plain maximum likelihood) and a = 1.5, on generated corpora, in
// both orders (the alternating one is ECM: each step is its block's EM step), fused or not.
TEST(GapMath, ObjectiveNeverDecreases) {
  const std::vector<std::vector<std::string>> orders = {
      {"--update", "joint", "--ratio-spmm", "off"},
      {"--update", "joint", "--ratio-spmm", "omp.ratio_spmm.rows"},
      {"--update", "alternating", "--ratio-spmm", "off"},
      {"--update", "alternating", "--ratio-spmm", "omp.ratio_spmm.rows"}};
  for (const char* shape : {"1", "1.5"})
  for (const std::vector<std::string>& order : orders) {
    SCOPED_TRACE(order[1] + ", --ratio-spmm " + order.back());
    test::TempDir dir;
    std::vector<std::string> args = {
        "--input", "gen:default:docs=300,words=300,topics=5,length=80,seed=2", "--factors", "6",
        "--iters", "30", "--a", shape, "--b", "20", "--device", "cpu", "--out", dir.path(), "-q"};
    args.insert(args.end(), order.begin(), order.end());
    const auto r = run_gap(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<double> obj = metric_series(dir.path(), "objective");
    ASSERT_EQ(obj.size(), 30u);
    for (std::size_t i = 1; i < obj.size(); ++i)
      EXPECT_GE(obj[i], obj[i - 1] - 1e-7 * std::fabs(obj[i - 1]))
          << "a = " << shape << ", iteration " << i + 1;
    EXPECT_GT(obj.back(), obj.front() + 1e-3 * std::fabs(obj.front())) << "it moved";
  }
}

// Counts drawn from a known model (anchor words, ~200 tokens per document and factor): the fitted
// rates X Λᵀ and the factors Λ (up to the order of the factors) come back within tolerance.
TEST(GapMath, RecoversTheRatesOfAKnownModel) {
  test::TempDir dir;
  const int k = 3;
  const test::KnownModel truth = test::make_known_model(400, 60, k, 200.0, 2.0, 11);
  const std::string path = dir.file("counts.mtx");
  io::write_matrix_market(path, truth.counts);
  const auto r =
      run_gap({"--input", path, "--factors", "3", "--iters", "300", "--a", "1", "--holdout-frac",
               "0", "--device", "cpu", "--out", dir.file("out"), "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  const HostDense<float> lam = io::read_npy_f32(dir.file("out/lambda.npy"));
  const HostDense<float> x = io::read_npy_f32(dir.file("out/x.npy"));
  ASSERT_EQ(lam.rows(), 60);
  ASSERT_EQ(lam.cols(), k);
  ASSERT_EQ(x.rows(), 400);
  // Rates: relative Frobenius error of X Λᵀ.
  double err = 0, norm = 0;
  for (std::int64_t d = 0; d < 400; ++d)
    for (std::int64_t w = 0; w < 60; ++w) {
      double fit = 0, want = 0;
      for (int c = 0; c < k; ++c) {
        fit += double(x(d, c)) * lam(w, c);
        want += double(truth.x(d, c)) * truth.lambda(w, c);
      }
      err += (fit - want) * (fit - want);
      norm += want * want;
    }
  // The Poisson noise of ~200 tokens per (document, factor) leaves about 6% on its own.
  EXPECT_LT(std::sqrt(err / norm), 0.08);
  // Factors: the best matching of learned to true columns, L1 distance of the distributions.
  std::vector<int> perm(k);
  std::iota(perm.begin(), perm.end(), 0);
  double best = INFINITY;
  do {
    double worst = 0;
    for (int c = 0; c < k; ++c) {
      double l1 = 0;
      for (std::int64_t w = 0; w < 60; ++w) l1 += std::fabs(lam(w, perm[c]) - truth.lambda(w, c));
      worst = std::max(worst, l1);
    }
    best = std::min(best, worst);
  } while (std::next_permutation(perm.begin(), perm.end()));
  // Once the rates fit, EM moves Λ only slowly along the nearly flat directions that trade mass
  // between factors (0.13 after 300 iterations, 0.09 after 3000 on this model).
  EXPECT_LT(best, 0.2) << "largest L1 distance between a true and its learned factor";
}

// heldout_ll of the fitted model against the same score of the generating model, computed here
// densely from the thinned-out tokens: F_held ~ Poisson(p X Λᵀ), so the true model scores
// [Σ_held f log(p r) − p Σ_all r − Σ log f!] / held-out tokens. A wrong thinning scale or
// constant in the app would put the fitted model far from it.
TEST(GapMath, HeldOutScoreMatchesTheGeneratingModel) {
  test::TempDir dir;
  const int k = 3;
  const double p = 0.2;
  const test::KnownModel truth = test::make_known_model(300, 60, k, 100.0, 2.0, 17);
  const std::string path = dir.file("counts.mtx");
  io::write_matrix_market(path, truth.counts);
  const auto r =
      run_gap({"--input", path, "--factors", "3", "--iters", "200", "--a", "1", "--holdout-frac",
               "0.2", "--seed", "4", "--device", "cpu", "--out", dir.file("out"), "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  HostCsr train, held;
  thin_counts(truth.counts, p, 4, train, held);  // the app's split: same seed, same counts
  double sum = 0, tokens = 0, all = 0;
  for (std::int64_t d = 0; d < held.rows; ++d)
    for (std::int64_t j = held.row_ptr[d]; j < held.row_ptr[d + 1]; ++j) {
      double rate = 0;
      for (int c = 0; c < k; ++c) rate += double(truth.x(d, c)) * truth.lambda(held.col_idx[j], c);
      sum += held.vals[j] * std::log(p * rate) - std::lgamma(held.vals[j] + 1.0);
      tokens += held.vals[j];
    }
  for (std::int64_t d = 0; d < truth.x.rows(); ++d)
    for (int c = 0; c < k; ++c) all += truth.x(d, c);  // Σ_w λ_wk = 1
  const double want = (sum - p * all) / tokens;
  const std::vector<double> ll = metric_series(dir.file("out"), "heldout_ll");
  ASSERT_EQ(ll.size(), 200u);
  EXPECT_NEAR(ll.back(), want, 0.03) << "generating model: " << want;
  const auto unigram = json_number(test::slurp(dir.file("out/summary.json")), "unigram_heldout_ll");
  ASSERT_TRUE(unigram);
  EXPECT_GT(ll.back(), *unigram + 0.05);
}

TEST(GapData, ThinningSplitsEveryTokenOnceWithTheRightFraction) {
  const test::KnownModel m = test::make_known_model(200, 50, 2, 30.0, 2.0, 5);
  HostCsr train, held, train2, held2;
  thin_counts(m.counts, 0.25, 9, train, held);
  double all = 0, t = 0, h = 0;
  for (float v : m.counts.vals) all += v;
  for (float v : train.vals) t += v;
  for (float v : held.vals) h += v;
  EXPECT_EQ(t + h, all);
  EXPECT_NEAR(h / all, 0.25, 0.02);
  for (float v : train.vals) EXPECT_GT(v, 0.0f);
  for (float v : held.vals) EXPECT_GT(v, 0.0f);
  validate(train.view());
  validate(held.view());
  thin_counts(m.counts, 0.25, 9, train2, held2);  // seeded: the same split again
  EXPECT_EQ(held.vals, held2.vals);
  EXPECT_EQ(held.col_idx, held2.col_idx);
  thin_counts(m.counts, 0.25, 10, train2, held2);
  EXPECT_FALSE(held.col_idx == held2.col_idx && held.vals == held2.vals)
      << "another seed, another split";
}

// Ten iterations on a known model's thinned counts, then the model and the sums, with test
// documents (halves of a second draw) so that their fit runs too.
struct Fit {
  std::vector<float> lambda, x;
  ModelSums sums;
  std::string kernels;
};
// `device` kGpu: the first GPU; kCpu: 2 threads.
Fit fit_known_model(DeviceKind device, GapUpdate update, const std::string& ratio_spmm) {
  const test::KnownModel m = test::make_known_model(700, 300, 4, 30.0, 1.0, 21);
  const test::KnownModel t = test::make_known_model(60, 300, 4, 30.0, 1.0, 22);
  HostCsr train, held, observed, scored;
  thin_counts(m.counts, 0.1, 3, train, held);
  thin_counts(t.counts, 0.5, 4, observed, scored);
  const GapMatrices mats{&train, &held, &observed, &scored};
  GapHyper h;
  h.factors = 8;
  h.a = 1.1;
  h.b = 50;
  h.test_iters = 5;
  h.update = update;
  h.ratio_spmm = ratio_spmm;
  GapData data;
  data.train = train;
  HostDense<float> lambda, x;
  initial_model(data, h.factors, 7, lambda, x);
  auto be = make_gap_backend(
      device == DeviceKind::kGpu ? Context(DeviceKind::kGpu) : Context(DeviceKind::kCpu, 2), h,
      mats);
  be->set_model(lambda, x);
  app::LocalReducer reducer;
  for (int it = 0; it < 10; ++it) be->iterate(reducer);
  return {be->lambda().values(), be->x().values(), be->evaluate(), be->kernel_names()};
}

// Relative to the largest entry (Λ's entries are far below 1, so max_rel_error's floor of 1 would
// hide differences).
double rel_to_max(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return double(INFINITY);
    err = std::max(err, std::fabs(double(got[i]) - want[i]));
    scale = std::max(scale, std::fabs(double(want[i])));
  }
  return err / scale;
}

// The factors within `tol` of the largest entry, the sums within tol / 10.
void expect_same_fit(const Fit& got, const Fit& want, double tol) {
  EXPECT_LT(rel_to_max(got.lambda, want.lambda), tol);
  EXPECT_LT(rel_to_max(got.x, want.x), tol);
  const ModelSums &g = got.sums, &w = want.sums;
  const double t = 0.1 * tol;
  EXPECT_NEAR(g.train_log_rate, w.train_log_rate, t * std::fabs(w.train_log_rate));
  EXPECT_NEAR(g.rate_sum, w.rate_sum, t * w.rate_sum);
  EXPECT_NEAR(g.prior, w.prior, t * std::fabs(w.prior));
  ASSERT_TRUE(g.heldout_log_rate && w.heldout_log_rate);
  EXPECT_NEAR(*g.heldout_log_rate, *w.heldout_log_rate, t * std::fabs(*w.heldout_log_rate));
  ASSERT_TRUE(g.test_log_rate && w.test_log_rate);
  EXPECT_NEAR(*g.test_log_rate, *w.test_log_rate, t * std::fabs(*w.test_log_rate));
}

// The fused ratio SpMMs (T1 over F, T2 over Fᵀ, the test documents' fit) against the separate
// kernels, in each order: the same arithmetic up to float rounding in another order. The two
// orders themselves give different models.
TEST(GapMath, FusedMatchesSeparateKernels) {
  std::vector<Fit> off;
  for (const GapUpdate update : {GapUpdate::kJoint, GapUpdate::kAlternating}) {
    SCOPED_TRACE(update == GapUpdate::kJoint ? "joint" : "alternating");
    off.push_back(fit_known_model(DeviceKind::kCpu, update, "off"));
    const Fit fused = fit_known_model(DeviceKind::kCpu, update, "omp.ratio_spmm.rows");
    EXPECT_EQ(off.back().kernels.find("ratio_spmm"), std::string::npos) << off.back().kernels;
    EXPECT_NE(fused.kernels.find("omp.ratio_spmm.rows (transposed)"), std::string::npos)
        << fused.kernels;
    expect_same_fit(fused, off.back(), 1e-5);
  }
  EXPECT_GT(rel_to_max(off[0].lambda, off[1].lambda), 1e-3) << "the orders differ";
}

// The GPU backend against the CPU one (the separate kernels) in both orders, with auto's fused
// kernels on the GPU and without; and the GPU against itself.
TEST(GapMath, GpuAgreesWithCpu) {
  FK_REQUIRE_GPU();
  for (const GapUpdate update : {GapUpdate::kJoint, GapUpdate::kAlternating}) {
    const Fit cpu = fit_known_model(DeviceKind::kCpu, update, "off");
    for (const char* fused : {"auto", "off"}) {
      SCOPED_TRACE(std::string(update == GapUpdate::kJoint ? "joint, " : "alternating, ") + fused);
      const Fit gpu = fit_known_model(DeviceKind::kGpu, update, fused);
      EXPECT_EQ(gpu.kernels.find("cuda.ratio_spmm.fused") != std::string::npos,
                std::string(fused) == "auto")
          << gpu.kernels;
      expect_same_fit(gpu, cpu, 1e-3);
      // The same fit again on the GPU: bit for bit (--seed's promise holds run after run, for
      // the repeatable kernels auto must have picked).
      ASSERT_EQ(app::repeatability_note(gpu.kernels), "") << gpu.kernels;
      const Fit again = fit_known_model(DeviceKind::kGpu, update, fused);
      EXPECT_EQ(again.lambda, gpu.lambda);
      EXPECT_EQ(again.x, gpu.x);
    }
  }
}

}  // namespace
}  // namespace fk::gap
