// fk-sfa's library in-process: one E-step against the closed-form ridge solution on a tiny
// problem (with and without the user offset), the training error decreasing, recovery of a
// generated model's loading subspace, the em M-step, determinism across thread counts, the saved
// model scoring as the SFA prediction, and GPU against CPU (skipped without a device).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "apps/als/als_data.hpp"
#include "apps/als/als_model.hpp"
#include "apps/als/als_trainer.hpp"
#include "apps/sfa/sfa_backend.hpp"
#include "apps/sfa/sfa_trainer.hpp"
#include "core/generate/ratings.hpp"
#include "tests/apps/ratings_fixture.hpp"
#include "tests/test_util.hpp"

namespace fk::sfa {
namespace {

using als::AlsData;

using test::tiny_ratings;

// Loadings (4 x K); with the offset the last column is overwritten with 1 by the backend.
HostDense<float> tiny_loadings(int k) {
  const float v[4][3] = {
      {1.0f, 0.5f, 0.3f}, {0.2f, -0.3f, -0.2f}, {-0.4f, 0.8f, 0.1f}, {0.6f, 0.1f, 0.4f}};
  HostDense<float> m(4, k);
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < k; ++c) m(i, c) = v[i][c];
  return m;
}

SfaHyper hyper_for(const AlsData& d, int factors, bool offset, double lu, double lm, int cg_steps) {
  SfaHyper h;
  h.factors = factors;
  h.user_offset = offset;
  h.lambda_u = lu;
  h.lambda_m = lm;
  h.cg_steps = cg_steps;
  h.global_mean = d.global_mean;
  h.clip_lo = d.rating_min;
  h.clip_hi = d.rating_max;
  return h;
}

// Closed-form E-step in double: (λ_u I + Σ_i∈Ω_u Λ_i Λ_iᵀ) x_u = Σ_i∈Ω_u y_ui Λ_i,
// y = r − μ − m_i.
HostDense<float> closed_form_users(const AlsData& d, const HostDense<float>& lam,
                                   const std::vector<float>& means, double lambda_u) {
  const int k = static_cast<int>(lam.cols());
  HostDense<float> out(d.users(), k);
  for (std::int64_t u = 0; u < d.users(); ++u) {
    Eigen::MatrixXd a = lambda_u * Eigen::MatrixXd::Identity(k, k);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(k);
    for (std::int64_t j = d.train.row_ptr[u]; j < d.train.row_ptr[u + 1]; ++j) {
      const std::int32_t i = d.train.col_idx[j];
      Eigen::VectorXd li(k);
      for (int c = 0; c < k; ++c) li(c) = lam(i, c);
      a += li * li.transpose();
      b += (d.train.vals[j] - d.global_mean - means[i]) * li;
    }
    const Eigen::VectorXd x = a.llt().solve(b);
    for (int c = 0; c < k; ++c) out(u, c) = static_cast<float>(x(c));
  }
  return out;
}

class SfaTinyExact : public ::testing::TestWithParam<bool> {};

TEST_P(SfaTinyExact, EStepEqualsClosedFormRidge) {
  const bool offset = GetParam();
  const AlsData d = als::build_als_data(tiny_ratings(), {});
  const std::vector<float> means = item_means(d, 1.0);
  const int factors = 2, k = factors + (offset ? 1 : 0);
  // PCG solves a K x K SPD system in K steps (exact arithmetic); a few more absorb rounding.
  // CG's products as the SDDMM → SpMM pair and fused (the ratio SpMM's product form).
  for (const char* fused : {"off", "omp.ratio_spmm.rows"}) {
    SCOPED_TRACE(std::string("--product-spmm ") + fused);
    SfaHyper h = hyper_for(d, factors, offset, 0.3, 0.5, k + 3);
    h.product_spmm = fused;
    auto be = make_cpu_sfa_backend(Context(DeviceKind::kCpu), h, d.train, d.train_t, d.test, means);
    HostDense<float> lam = tiny_loadings(k);
    if (offset)
      for (int i = 0; i < 4; ++i) lam(i, factors) = 1.0f;
    // Poisoned warm start: CG must get away from it.
    be->set_factors(HostDense<float>(3, k, 7.5f), lam);
    be->user_step();
    const HostDense<float> want = closed_form_users(d, lam, means, h.lambda_u);
    EXPECT_LT(test::max_rel_error(be->user_factors().storage(), want.storage()), 2e-5);
    // The E-step leaves the model alone.
    EXPECT_EQ(be->item_factors().storage(), lam.storage());
  }
}

// Closed-form em M-step in double: for every item, over the factor columns (F of them),
// (λ_m I + Σ_u∈Ω_i x_u x_uᵀ) Λ_i = Σ_u∈Ω_i (y_ui − b_u) x_u with b_u the user's offset (or 0).
HostDense<float> closed_form_items(const AlsData& d, const HostDense<float>& x, int factors,
                                   bool offset, const std::vector<float>& means, double lambda_m) {
  const int k = static_cast<int>(x.cols());
  HostDense<float> out(d.items(), k, 1.0f);
  for (std::int64_t i = 0; i < d.items(); ++i) {
    Eigen::MatrixXd a = lambda_m * Eigen::MatrixXd::Identity(factors, factors);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(factors);
    for (std::int64_t j = d.train_t.row_ptr[i]; j < d.train_t.row_ptr[i + 1]; ++j) {
      const std::int32_t u = d.train_t.col_idx[j];
      Eigen::VectorXd xu(factors);
      for (int c = 0; c < factors; ++c) xu(c) = x(u, c);
      a += xu * xu.transpose();
      b += (d.train_t.vals[j] - d.global_mean - means[i] - (offset ? x(u, factors) : 0.0)) * xu;
    }
    const Eigen::VectorXd l = a.llt().solve(b);
    for (int c = 0; c < factors; ++c) out(i, c) = static_cast<float>(l(c));
  }
  return out;
}

TEST_P(SfaTinyExact, EmMStepEqualsClosedFormRidge) {
  const bool offset = GetParam();
  const AlsData d = als::build_als_data(tiny_ratings(), {});
  const std::vector<float> means = item_means(d, 1.0);
  const int factors = 2, k = factors + (offset ? 1 : 0);
  HostDense<float> x(3, k);
  const float xv[3][3] = {{0.7f, -0.2f, 0.4f}, {0.1f, 0.9f, -0.3f}, {-0.5f, 0.3f, 0.2f}};
  for (int u = 0; u < 3; ++u)
    for (int c = 0; c < k; ++c) x(u, c) = xv[u][c];
  // The items' products on Rᵀ and on R (Rᵀ·B through a transposed plan).
  // And CG's products as the SDDMM → SpMM pair or fused (the ratio SpMM's product form; the
  // items' on Rᵀ only).
  for (const bool on_r : {false, true})
    for (const char* fused : {"off", "omp.ratio_spmm.rows"}) {
      SCOPED_TRACE(std::string(on_r ? "on R" : "on Rᵀ") + ", --product-spmm " + fused);
      SfaHyper h = hyper_for(d, factors, offset, 0.3, 0.5, k + 3);
      h.mstep = MStep::kEm;
      h.items_on_r = on_r;
      h.product_spmm = fused;
      auto be =
          make_cpu_sfa_backend(Context(DeviceKind::kCpu), h, d.train, d.train_t, d.test, means);
      be->set_factors(x, HostDense<float>(4, k, -3.0f));  // poisoned warm start (offset column: 1)
      be->model_step();
      const HostDense<float> want = closed_form_items(d, x, factors, offset, means, h.lambda_m);
      EXPECT_LT(test::max_rel_error(be->item_factors().storage(), want.storage()), 2e-5);
      EXPECT_EQ(be->user_factors().storage(), x.storage());  // the M-step leaves X alone
    }
}

// The objective is J = Σ (y − Λ_i·x_u)² + λ_u ‖X‖² + λ_m ‖Λ‖² over the parameters: the offset
// column of Λ (1 in every row) adds no λ_m per item.
TEST_P(SfaTinyExact, ObjectiveIsErrorsPlusPriorsOfTheParameters) {
  const bool offset = GetParam();
  const AlsData d = als::build_als_data(tiny_ratings(), {});
  const std::vector<float> means = item_means(d, 1.0);
  const int factors = 2, k = factors + (offset ? 1 : 0);
  const SfaHyper h = hyper_for(d, factors, offset, 0.3, 0.5, k + 3);
  auto be = make_cpu_sfa_backend(Context(DeviceKind::kCpu), h, d.train, d.train_t, d.test, means);
  HostDense<float> x(3, k, 0.25f), lam = tiny_loadings(k);
  x(1, 0) = -0.5f;
  if (offset)
    for (int i = 0; i < 4; ++i) lam(i, factors) = 1.0f;
  be->set_factors(x, lam);
  double want = 0;
  for (std::int64_t u = 0; u < d.users(); ++u)
    for (std::int64_t j = d.train.row_ptr[u]; j < d.train.row_ptr[u + 1]; ++j) {
      const std::int32_t i = d.train.col_idx[j];
      double p = 0;
      for (int c = 0; c < k; ++c) p += double(x(u, c)) * lam(i, c);
      const double e = d.train.vals[j] - d.global_mean - means[i] - p;
      want += e * e;
    }
  for (float v : x.storage()) want += h.lambda_u * double(v) * v;
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < factors; ++c) want += h.lambda_m * double(lam(i, c)) * lam(i, c);
  EXPECT_NEAR(be->train_loss().objective, want, 1e-5 * want);
}

INSTANTIATE_TEST_SUITE_P(Offset, SfaTinyExact, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? std::string("WithUserOffset")
                                          : std::string("FactorsOnly");
                         });

// Generated ratings with the true model, split 80/20.
struct Generated {
  gen::GeneratedRatings g;
  AlsData d;
};

Generated generated(std::int64_t users, std::int64_t items, std::int64_t ratings, int rank,
                    double noise, std::uint64_t seed, bool uniform) {
  gen::RatingsSpec s;
  s.users = users;
  s.items = items;
  s.ratings = ratings;
  s.rank = rank;
  s.noise = noise;
  s.step = 0;  // real-valued ratings
  s.min_user_ratings = std::min<std::int64_t>(ratings / users, 10);
  if (uniform) s.user_exponent = s.item_exponent = 0;
  s.seed = seed;
  Generated out;
  out.g = gen::generate_ratings(s);
  const std::vector<char> mask = als::holdout_mask(out.g.ratings.size(), 0.2, seed + 7);
  out.d = als::build_als_data(out.g.ratings, mask);
  return out;
}

HostDense<float> seeded_loadings(const AlsData& d, int k, std::uint64_t seed) {
  HostDense<float> users, items;
  als::initial_factors(d, k, false, 0.1, seed, users, items);
  return items;
}

struct Trained {
  std::vector<double> train_rmse, test_rmse;
  HostDense<float> users, items;
};

Trained train(const AlsData& d, const SfaHyper& h, const std::vector<float>& means, int passes,
              Context ctx, std::uint64_t seed = 3) {
  auto be = make_sfa_backend(std::move(ctx), h, d.train, d.train_t, d.test, means);
  be->set_factors(HostDense<float>(d.users(), h.k(), 0.0f), seeded_loadings(d, h.k(), seed));
  Trained r;
  for (int p = 0; p < passes; ++p) {
    be->user_step();
    be->model_step();
    r.train_rmse.push_back(std::sqrt(be->train_loss().sse / static_cast<double>(d.train.nnz())));
    const TestErrors e = be->test_errors();
    r.test_rmse.push_back(std::sqrt(e.sse / static_cast<double>(e.n)));
  }
  r.users = be->user_factors();
  r.items = be->item_factors();
  return r;
}

// --mean-prior's shrinkage, m_i = Σ (r_ui − μ) / (n_i + prior), computed here from the raw
// ratings (every other test feeds item_means' own result to both sides).
TEST(SfaTrain, ItemMeansShrinkTowardsTheGlobalMean) {
  io::Ratings r;
  r.user_ids = {"1", "2", "3"};
  r.item_ids = {"a", "b", "c", "d"};
  r.user = {0, 1, 0, 2, 1, 2, 0};
  r.item = {0, 0, 1, 1, 2, 2, 3};
  r.rating = {4, 2, 5, 3, 1, 5, 4.5f};
  const AlsData d = als::build_als_data(r, {});
  double mu = 0;
  for (float v : r.rating) mu += v;
  mu /= static_cast<double>(r.rating.size());
  EXPECT_NEAR(d.global_mean, mu, 1e-12);
  for (const double prior : {0.0, 3.0}) {
    const std::vector<float> m = item_means(d, prior);
    ASSERT_EQ(m.size(), d.item_ids.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
      double sum = 0, n = 0;
      for (std::size_t k = 0; k < r.rating.size(); ++k)
        if (r.item_ids[static_cast<std::size_t>(r.item[k])] == d.item_ids[i]) {
          sum += r.rating[k] - mu;
          n += 1;
        }
      EXPECT_NEAR(m[i], sum / (n + prior), 1e-6) << "item " << d.item_ids[i] << " prior " << prior;
    }
  }
}

TEST(SfaTrain, TrainingErrorDecreases) {
  const Generated g = generated(300, 200, 9000, 4, 0.3, 11, false);
  const std::vector<float> means = item_means(g.d, 5.0);
  const SfaHyper h = hyper_for(g.d, 6, true, 5, 5, 3);
  const Trained r = train(g.d, h, means, 8, Context(DeviceKind::kCpu, 1));
  for (std::size_t p = 1; p < r.train_rmse.size(); ++p)
    EXPECT_LE(r.train_rmse[p], r.train_rmse[p - 1] * (1 + 1e-4)) << "pass " << p + 1;
  EXPECT_LT(r.train_rmse.back(), 0.8 * r.train_rmse.front());
  EXPECT_LT(r.test_rmse.back(), r.test_rmse.front());
}

// Principal angles between the column spaces of a (n x p) and b (n x q): the cosines, smallest
// last (singular values of Q_aᵀ Q_b).
Eigen::VectorXd subspace_cosines(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  const Eigen::MatrixXd qa = Eigen::HouseholderQR<Eigen::MatrixXd>(a).householderQ() *
                             Eigen::MatrixXd::Identity(a.rows(), a.cols());
  const Eigen::MatrixXd qb = Eigen::HouseholderQR<Eigen::MatrixXd>(b).householderQ() *
                             Eigen::MatrixXd::Identity(b.rows(), b.cols());
  return Eigen::JacobiSVD<Eigen::MatrixXd>(qa.transpose() * qb).singularValues();
}

TEST(SfaTrain, RecoversTheGeneratingSubspace) {
  // Dense-ish uniform observations of a rank-3 model with little noise: the learned loadings
  // (factor columns) must span the true item factors' space.
  const int rank = 3;
  const Generated g = generated(500, 120, 500 * 48, rank, 0.05, 5, true);
  const std::vector<float> means = item_means(g.d, 0.0);
  const SfaHyper h = hyper_for(g.d, rank, true, 0.5, 0.5, 5);
  const Trained r = train(g.d, h, means, 30, Context(DeviceKind::kCpu, 1));
  Eigen::MatrixXd learned(g.d.items(), rank), truth(g.d.items(), rank);
  for (std::int64_t i = 0; i < g.d.items(); ++i) {
    const std::int64_t raw = std::stoll(g.d.item_ids[i]) - 1;  // generator ids are index + 1
    for (int c = 0; c < rank; ++c) {
      learned(i, c) = r.items(i, c);
      truth(i, c) = g.g.item_factors(raw, c);
    }
  }
  // Item means remove each column's mean; compare the centred true factors.
  truth.rowwise() -= truth.colwise().mean();
  const Eigen::VectorXd cosines = subspace_cosines(learned, truth);
  EXPECT_GT(cosines.minCoeff(), 0.98) << "cosines of the principal angles: " << cosines.transpose();
  // And the fit approaches the noise floor.
  EXPECT_LT(r.test_rmse.back(), 0.15) << "noise 0.05";
}

TEST(SfaTrain, EmMStepFitsToo) {
  const Generated g = generated(300, 200, 9000, 4, 0.3, 13, false);
  const std::vector<float> means = item_means(g.d, 5.0);
  SfaHyper h = hyper_for(g.d, 6, false, 5, 5, 3);
  h.mstep = MStep::kEm;
  const Trained r = train(g.d, h, means, 8, Context(DeviceKind::kCpu, 1));
  EXPECT_LT(r.train_rmse.back(), 0.8 * r.train_rmse.front());
  EXPECT_LT(r.test_rmse.back(), r.test_rmse.front());
  h.user_offset = true;
  const Trained o = train(g.d, h, means, 8, Context(DeviceKind::kCpu, 1));
  EXPECT_LT(o.train_rmse.back(), 0.8 * o.train_rmse.front());
  for (std::int64_t i = 0; i < g.d.items(); ++i) ASSERT_EQ(o.items(i, 6), 1.0f) << i;
}

TEST(SfaTrain, DeterministicAcrossThreadCounts) {
  const Generated g = generated(300, 200, 9000, 4, 0.3, 17, false);
  const std::vector<float> means = item_means(g.d, 5.0);
  const SfaHyper h = hyper_for(g.d, 5, true, 5, 5, 3);
  const Trained a = train(g.d, h, means, 4, Context(DeviceKind::kCpu, 1));
  const Trained b = train(g.d, h, means, 4, Context(DeviceKind::kCpu, 2));
  EXPECT_EQ(a.users.storage(), b.users.storage());
  EXPECT_EQ(a.items.storage(), b.items.storage());
  EXPECT_EQ(a.test_rmse, b.test_rmse);
  const Trained c = train(g.d, h, means, 4, Context(DeviceKind::kCpu, 2), 4);  // another seed
  EXPECT_NE(a.items.storage(), c.items.storage());
}

// Both M-steps with the items' products on R give the model they give on Rᵀ, up to rounding.
// Training with the fused products (CG's first residual and products, the grad M-step's
// gradient: the ratio SpMM's residual and product forms) against the separate SDDMM and SpMM, the
// items on R and on Rᵀ, both M-steps: the same model up to float rounding.
TEST(SfaTrain, FusedProductsAgreeWithThePair) {
  const Generated g = generated(300, 200, 9000, 4, 0.3, 17, false);
  const std::vector<float> means = item_means(g.d, 5.0);
  for (const MStep m : {MStep::kGrad, MStep::kEm})
    for (const bool on_r : {false, true}) {
      SCOPED_TRACE(std::string(to_string(m)) + (on_r ? ", items on R" : ", items on Rᵀ"));
      SfaHyper h = hyper_for(g.d, 5, true, 5, 5, 3);
      h.mstep = m;
      h.items_on_r = on_r;
      h.product_spmm = "off";
      const Trained pair = train(g.d, h, means, 4, Context(DeviceKind::kCpu, 2));
      h.product_spmm = "omp.ratio_spmm.rows";
      const Trained fused = train(g.d, h, means, 4, Context(DeviceKind::kCpu, 2));
      EXPECT_LT(test::max_rel_error(fused.items.storage(), pair.items.storage()), 1e-4);
      EXPECT_LT(test::max_rel_error(fused.users.storage(), pair.users.storage()), 1e-4);
      EXPECT_NEAR(fused.test_rmse.back(), pair.test_rmse.back(), 1e-5 * pair.test_rmse.back());
    }
}

TEST(SfaTrain, ItemsOnRAgreesWithItemsOnRt) {
  const Generated g = generated(300, 200, 9000, 4, 0.3, 17, false);
  const std::vector<float> means = item_means(g.d, 5.0);
  for (const MStep m : {MStep::kGrad, MStep::kEm}) {
    SCOPED_TRACE(to_string(m));
    SfaHyper h = hyper_for(g.d, 5, true, 5, 5, 3);
    h.mstep = m;
    h.items_on_r = false;
    const Trained rt = train(g.d, h, means, 4, Context(DeviceKind::kCpu, 2));
    h.items_on_r = true;
    const Trained r = train(g.d, h, means, 4, Context(DeviceKind::kCpu, 2));
    EXPECT_LT(test::max_rel_error(r.items.storage(), rt.items.storage()), 1e-4);
    EXPECT_LT(test::max_rel_error(r.users.storage(), rt.users.storage()), 1e-4);
    EXPECT_NEAR(r.test_rmse.back(), rt.test_rmse.back(), 1e-5 * rt.test_rmse.back());
  }
}

TEST(SfaGpu, AgreesWithCpu) {
  FK_REQUIRE_GPU();
  const Generated g = generated(700, 400, 30000, 6, 0.4, 19, false);
  const std::vector<float> means = item_means(g.d, 5.0);
  for (const MStep m : {MStep::kGrad, MStep::kEm}) {
    SCOPED_TRACE(to_string(m));
    SfaHyper h = hyper_for(g.d, 40, m == MStep::kGrad, 5, 5, 3);  // K > 32: several lanes per row
    h.mstep = m;
    const Trained cpu = train(g.d, h, means, 5, Context(DeviceKind::kCpu, 1));
    // The items' products on Rᵀ and on R (where the users' rows outgrow L2, which no test data
    // does by itself).
    // And CG's products fused (auto on the GPU at this K) or as the pair.
    for (const bool on_r : {false, true})
      for (const char* fused : {"auto", "off"}) {
        SCOPED_TRACE(std::string(on_r ? "items on R" : "items on Rᵀ") + ", --product-spmm " +
                     fused);
        h.items_on_r = on_r;
        h.product_spmm = fused;
        const Trained gpu = train(g.d, h, means, 5, Context(DeviceKind::kGpu));
        for (std::size_t p = 0; p < cpu.test_rmse.size(); ++p) {
          EXPECT_NEAR(gpu.train_rmse[p], cpu.train_rmse[p], 1e-3 * cpu.train_rmse[p]) << p;
          EXPECT_NEAR(gpu.test_rmse[p], cpu.test_rmse[p], 1e-3 * cpu.test_rmse[p]) << p;
        }
        EXPECT_LT(test::max_rel_error(gpu.items.storage(), cpu.items.storage()), 1e-2);
        EXPECT_LT(test::max_rel_error(gpu.users.storage(), cpu.users.storage()), 1e-2);
      }
  }
}

// Both steps on the tiny problem on the GPU against the closed forms (pinpoints a GPU Ops bug).
TEST(SfaGpu, TinyStepsEqualClosedForms) {
  FK_REQUIRE_GPU();
  const AlsData d = als::build_als_data(tiny_ratings(), {});
  const std::vector<float> means = item_means(d, 1.0);
  for (const bool offset : {false, true})
    for (const bool on_r : {false, true}) {
      SCOPED_TRACE(std::string(offset ? "offset" : "factors only") + (on_r ? ", items on R" : ""));
      const int factors = 2, k = factors + (offset ? 1 : 0);
      SfaHyper h = hyper_for(d, factors, offset, 0.3, 0.5, k + 3);
      h.mstep = MStep::kEm;
      h.items_on_r = on_r;
      auto be =
          make_gpu_sfa_backend(Context(DeviceKind::kGpu), h, d.train, d.train_t, d.test, means);
      HostDense<float> lam = tiny_loadings(k);
      if (offset)
        for (int i = 0; i < 4; ++i) lam(i, factors) = 1.0f;
      be->set_factors(HostDense<float>(3, k, 7.5f), lam);
      be->user_step();
      const HostDense<float> x = be->user_factors();
      EXPECT_LT(test::max_rel_error(x.storage(), closed_form_users(d, lam, means, 0.3).storage()),
                1e-4);
      be->model_step();
      EXPECT_LT(test::max_rel_error(be->item_factors().storage(),
                                    closed_form_items(d, x, factors, offset, means, 0.5).storage()),
                1e-4);
    }
}

TEST(SfaModel, SavedModelScoresTheSfaPrediction) {
  const Generated g = generated(120, 80, 3000, 3, 0.3, 23, false);
  SfaOptions opt;
  opt.factors = 4;
  app::CommonOptions common;
  common.iters = 3;
  common.seed = 5;
  test::TempDir dir;
  const TrainResult r = train_sfa(opt, common, g.d, Context(DeviceKind::kCpu), dir.file("m"), {});
  ASSERT_EQ(r.users.cols(), opt.factors + 1);  // factors + offset
  const als::AlsModel m = als::load_als_model(dir.file("m"));
  ASSERT_EQ(m.users.cols(), opt.factors);
  for (std::int64_t u = 0; u < g.d.users(); u += 7)
    for (std::int64_t i = 0; i < g.d.items(); i += 5) {
      double want = g.d.global_mean + r.item_means[i] + r.users(u, opt.factors);
      for (int c = 0; c < opt.factors; ++c) want += double(r.users(u, c)) * r.items(i, c);
      EXPECT_NEAR(m.score(u, i), want, 1e-4) << u << "," << i;
    }
  // recommend excludes what the user rated.
  const std::vector<als::Scored> top = als::recommend(m, 0, 5);
  ASSERT_EQ(top.size(), 5u);
  for (const als::Scored& s : top)
    for (std::int64_t j = g.d.train.row_ptr[0]; j < g.d.train.row_ptr[1]; ++j)
      EXPECT_NE(s.index, g.d.train.col_idx[j]);
}

}  // namespace
}  // namespace fk::sfa
