// fk-als's library in-process: the half-steps against closed-form ridge solutions on a tiny
// problem (explicit, with biases, implicit; CG and Cholesky), the objective decreasing, CG against
// Cholesky, recovery of a generated low-rank model, determinism, the splits, the ranking metrics,
// recommend/similar, checkpoints, and GPU against CPU (skipped without a device).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <vector>

#include "apps/als/als_backend.hpp"
#include "apps/als/als_data.hpp"
#include "apps/als/als_model.hpp"
#include "apps/als/als_trainer.hpp"
#include "apps/common/checkpoint.hpp"
#include "apps/common/memory.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/npy.hpp"
#include "core/random.hpp"
#include "tests/apps/ratings_fixture.hpp"
#include "tests/core/test_io_util.hpp"
#include "tests/test_util.hpp"

namespace fk::als {
namespace {

using test::tiny_ratings;

// Item factors (4 x K) with the given columns; the bias column, if any, is the last.
HostDense<float> tiny_items(int k) {
  const float v[4][3] = {
      {1.0f, 0.5f, 0.3f}, {0.2f, -0.3f, -0.2f}, {-0.4f, 0.8f, 0.1f}, {0.6f, 0.1f, 0.4f}};
  HostDense<float> m(4, k);
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < k; ++c) m(i, c) = v[i][c];
  return m;
}

// Closed-form user half-step in double: for every user, solve
//   (Σ w_i d_i d_iᵀ + λ n_u I [+ λ I + DᵀD for implicit]) x = Σ t_i d_i
// with d_i the design row of item i ([q_i, 1] with biases), t_i the target.
HostDense<float> closed_form_users(const AlsData& d, const HostDense<float>& items, int factors,
                                   bool biases, bool implicit, double lambda, double alpha,
                                   double mu) {
  const int k = factors + (biases ? 1 : 0);
  Eigen::MatrixXd design(items.rows(), k);
  for (std::int64_t i = 0; i < items.rows(); ++i)
    for (int c = 0; c < k; ++c) design(i, c) = (biases && c == factors) ? 1.0 : items(i, c);
  HostDense<float> out(d.users(), k);
  for (std::int64_t u = 0; u < d.users(); ++u) {
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(k, k);
    Eigen::VectorXd b = Eigen::VectorXd::Zero(k);
    if (implicit) a = design.transpose() * design + lambda * Eigen::MatrixXd::Identity(k, k);
    const std::int64_t n = d.train.row_ptr[u + 1] - d.train.row_ptr[u];
    for (std::int64_t j = d.train.row_ptr[u]; j < d.train.row_ptr[u + 1]; ++j) {
      const std::int32_t i = d.train.col_idx[j];
      const double r = d.train.vals[j];
      const Eigen::VectorXd di = design.row(i).transpose();
      if (implicit) {
        a += alpha * r * di * di.transpose();
        b += (1 + alpha * r) * di;
      } else {
        a += di * di.transpose();
        b += (r - mu - (biases ? items(i, factors) : 0.0)) * di;
      }
    }
    if (!implicit) a += lambda * static_cast<double>(n) * Eigen::MatrixXd::Identity(k, k);
    const Eigen::VectorXd x = a.llt().solve(b);
    for (int c = 0; c < k; ++c) out(u, c) = static_cast<float>(x(c));
  }
  return out;
}

AlsHyper hyper_for(int factors, bool biases, bool implicit, Solver solver, int cg_steps,
                   double mu) {
  AlsHyper h;
  h.factors = factors;
  h.biases = biases;
  h.implicit = implicit;
  h.lambda = 0.1;
  h.alpha = 2.0;
  h.solver = solver;
  h.cg_steps = cg_steps;
  h.global_mean = mu;
  return h;
}

std::vector<float> flat(const HostDense<float>& m) { return m.values(); }

struct TinyCase {
  bool biases, implicit;
  Solver solver;
};

class AlsTinyExact : public ::testing::TestWithParam<TinyCase> {};

TEST_P(AlsTinyExact, UserHalfStepEqualsClosedFormRidge) {
  const TinyCase c = GetParam();
  const AlsData d = build_als_data(tiny_ratings(), {});
  const int factors = 2, k = factors + (c.biases ? 1 : 0);
  const double mu = c.implicit ? 0.0 : d.global_mean;
  // K CG steps solve a K x K SPD system exactly (in exact arithmetic); a few more absorb rounding.
  // CG's products as the SDDMM → SpMM pair and fused (the ratio SpMM's product form).
  for (const char* fused : {"off", "omp.ratio_spmm.rows"}) {
    SCOPED_TRACE(std::string("--product-spmm ") + fused);
    AlsHyper h = hyper_for(factors, c.biases, c.implicit, c.solver, k + 3, mu);
    h.product_spmm = fused;
    auto be = make_cpu_als_backend(Context(DeviceKind::kCpu), h, d.train, d.train_t, d.test);
    const HostDense<float> items = tiny_items(k);
    // Poisoned warm start: CG must get away from it, Cholesky must ignore it.
    be->set_factors(HostDense<float>(3, k, 7.5f), items);
    be->solve_users();
    const HostDense<float> want =
        closed_form_users(d, items, factors, c.biases, c.implicit, h.lambda, h.alpha, mu);
    EXPECT_LT(test::max_rel_error(flat(be->user_factors()), flat(want)), 2e-5);
    // The items are untouched by a user half-step.
    EXPECT_EQ(flat(be->item_factors()), flat(items));
  }
}

// The item half-step, on Rᵀ and on R (Rᵀ·B through a transposed plan, targets by row): the same
// closed form with the roles of users and items swapped.
TEST_P(AlsTinyExact, ItemHalfStepEqualsClosedFormRidgeOnRtAndOnR) {
  const TinyCase c = GetParam();
  const AlsData d = build_als_data(tiny_ratings(), {});
  AlsData swapped = d;
  std::swap(swapped.train, swapped.train_t);
  std::swap(swapped.user_ids, swapped.item_ids);
  const int factors = 2, k = factors + (c.biases ? 1 : 0);
  const double mu = c.implicit ? 0.0 : d.global_mean;
  HostDense<float> users(d.users(), k);  // the users' rows of tiny_items' values
  for (std::int64_t u = 0; u < users.rows(); ++u)
    for (int col = 0; col < k; ++col) users(u, col) = tiny_items(k)(u, col);
  const HostDense<float> want =
      closed_form_users(swapped, users, factors, c.biases, c.implicit, 0.1, 2.0, mu);
  for (const bool on_r : {false, true})
    for (const char* fused : {"off", "omp.ratio_spmm.rows"}) {  // fused on Rᵀ only
      SCOPED_TRACE(std::string(on_r ? "on R" : "on Rᵀ") + ", --product-spmm " + fused);
      AlsHyper h = hyper_for(factors, c.biases, c.implicit, c.solver, k + 3, mu);
      h.items_on_r = on_r;
      h.product_spmm = fused;
      auto be = make_cpu_als_backend(Context(DeviceKind::kCpu), h, d.train, d.train_t, d.test);
      be->set_factors(users, HostDense<float>(d.items(), k, 7.5f));
      be->solve_items();
      EXPECT_LT(test::max_rel_error(flat(be->item_factors()), flat(want)), 2e-5);
      EXPECT_EQ(flat(be->user_factors()), flat(users));
    }
}

// A user and an item without training ratings (as a hold-out leaves them): implicit mode's exact
// solve gives them zero factors, the others the closed form. 64 factors: Eigen's product blocking
// (from 48 factors on) divided by the rank update's depth, 0 for such a row (SIGFPE).
TEST(AlsTrain, ImplicitCholeskyGivesRowsWithoutRatingsZeroFactors) {
  io::Ratings r = tiny_ratings();
  r.user_ids.push_back("u3");
  r.item_ids.push_back("i4");
  const AlsData d = build_als_data(r, {});
  const int k = 64;
  const AlsHyper h = hyper_for(k, false, true, Solver::kCholesky, 1, 0.0);
  auto be = make_cpu_als_backend(Context(DeviceKind::kCpu), h, d.train, d.train_t, d.test);
  HostDense<float> items(d.items(), k, 0.0f);
  Rng rng(5);
  for (std::int64_t i = 0; i < 4; ++i)
    for (int c = 0; c < k; ++c) items(i, c) = static_cast<float>(0.1 * rng.normal());
  be->set_factors(HostDense<float>(d.users(), k, 7.5f), items);
  be->solve_users();
  const HostDense<float> users = be->user_factors();
  const HostDense<float> want = closed_form_users(d, items, k, false, true, h.lambda, h.alpha, 0.0);
  EXPECT_LT(test::max_rel_error(flat(users), flat(want)), 1e-4);
  for (int c = 0; c < k; ++c) EXPECT_EQ(users(3, c), 0.0f);
  be->solve_items();
  const HostDense<float> solved = be->item_factors();
  for (int c = 0; c < k; ++c) EXPECT_EQ(solved(4, c), 0.0f);
  EXPECT_NE(solved(0, 0), 0.0f);
}

INSTANTIATE_TEST_SUITE_P(Cases, AlsTinyExact,
                         ::testing::Values(TinyCase{false, false, Solver::kCg},
                                           TinyCase{true, false, Solver::kCg},
                                           TinyCase{false, true, Solver::kCg},
                                           TinyCase{false, false, Solver::kCholesky},
                                           TinyCase{true, false, Solver::kCholesky},
                                           TinyCase{false, true, Solver::kCholesky}),
                         [](const auto& info) {
                           const TinyCase& c = info.param;
                           return std::string(c.implicit ? "Implicit"
                                              : c.biases ? "Biases"
                                                         : "Plain") +
                                  (c.solver == Solver::kCg ? "Cg" : "Cholesky");
                         });

// Clean low-rank ratings: 300 users x 200 items, half of the pairs observed (a seeded choice),
// r = 3 + b_u + b_i + p_u·q_i + ε with rank 4, N(0, 0.5²) factor entries, N(0, 0.3²) biases and
// N(0, noise²) noise; no rounding or clipping, so the generating model's error is the noise alone.
struct LowRank {
  io::Ratings ratings;
  std::vector<float> truth;  // the generating model's prediction per rating
};
LowRank low_rank(std::uint64_t seed, double noise = 0.2) {
  constexpr int kUsers = 300, kItems = 200, kRank = 4;
  Rng rng(seed);
  std::vector<double> p(kUsers * kRank), q(kItems * kRank), bu(kUsers), bi(kItems);
  for (double& v : p) v = 0.5 * rng.normal();
  for (double& v : q) v = 0.5 * rng.normal();
  for (double& v : bu) v = 0.3 * rng.normal();
  for (double& v : bi) v = 0.3 * rng.normal();
  LowRank out;
  for (int u = 0; u < kUsers; ++u) out.ratings.user_ids.push_back(std::to_string(u + 1));
  for (int i = 0; i < kItems; ++i) out.ratings.item_ids.push_back(std::to_string(i + 1));
  for (int u = 0; u < kUsers; ++u)
    for (int i = 0; i < kItems; ++i) {
      if (rng.uniform() >= 0.5) continue;
      double m = 3.0 + bu[u] + bi[i];
      for (int c = 0; c < kRank; ++c) m += p[u * kRank + c] * q[i * kRank + c];
      out.ratings.user.push_back(u);
      out.ratings.item.push_back(i);
      out.ratings.rating.push_back(static_cast<float>(m + noise * rng.normal()));
      out.truth.push_back(static_cast<float>(m));
    }
  return out;
}

struct TrainRun {
  std::vector<double> objective, train_rmse, test_rmse;
  HostDense<float> users, items;
};

TrainRun train(const AlsData& d, const AlsHyper& h, int iters, std::uint64_t seed,
               Context ctx = Context(DeviceKind::kCpu)) {
  // A named matrix: the CPU backend reads its test ratings in place, past this statement.
  const HostCsr no_test;
  auto be = make_als_backend(std::move(ctx), h, d.train, d.train_t, h.implicit ? no_test : d.test);
  HostDense<float> users, items;
  initial_factors(d, h.factors, h.biases, 0.1, seed, users, items);
  be->set_factors(users, items);
  TrainRun r;
  for (int it = 0; it < iters; ++it) {
    be->solve_users();
    be->solve_items();
    const TrainLoss loss = be->train_loss();
    r.objective.push_back(loss.objective);
    r.train_rmse.push_back(std::sqrt(loss.sse / loss.n));
    const TestErrors e = be->test_errors();
    if (e.n > 0) r.test_rmse.push_back(std::sqrt(e.sse / e.n));
  }
  r.users = be->user_factors();
  r.items = be->item_factors();
  return r;
}

TEST(AlsTrain, ObjectiveAndTrainRmseDecrease) {
  const LowRank g = low_rank(11);
  const AlsData d = build_als_data(g.ratings, holdout_mask(g.ratings.size(), 0.2, 3));
  for (const bool implicit : {false, true}) {
    for (const Solver solver : {Solver::kCg, Solver::kCholesky}) {
      SCOPED_TRACE(std::string(implicit ? "implicit " : "explicit ") + to_string(solver));
      AlsHyper h = hyper_for(6, !implicit, implicit, solver, 3, implicit ? 0.0 : d.global_mean);
      io::Ratings shifted;
      const AlsData* data = &d;
      AlsData implicit_data;
      if (implicit) {  // implicit mode needs r >= 0: use |r| as the interaction strength
        shifted = g.ratings;
        for (float& v : shifted.rating) v = std::fabs(v);
        implicit_data = build_als_data(shifted, {});
        data = &implicit_data;
      }
      const TrainRun r = train(*data, h, 8, 5);
      for (std::size_t i = 1; i < r.objective.size(); ++i)
        EXPECT_LE(r.objective[i], r.objective[i - 1] * (1 + 1e-6)) << "iteration " << i + 1;
      EXPECT_LT(r.objective.back(), 0.9 * r.objective.front());
      if (!implicit) {
        for (std::size_t i = 1; i < r.train_rmse.size(); ++i)
          EXPECT_LE(r.train_rmse[i], r.train_rmse[i - 1] * (1 + 1e-4)) << "iteration " << i + 1;
      }
    }
  }
}

// Training with CG's products and first residual fused (the ratio SpMM's product and residual
// forms) against the separate SDDMM and SpMM: explicit with biases and implicit, the items on R
// and on Rᵀ, the same model up to float rounding.
TEST(AlsTrain, FusedProductsAgreeWithThePair) {
  const LowRank g = low_rank(13, 0.5);
  const AlsData d = build_als_data(g.ratings, holdout_mask(g.ratings.size(), 0.2, 5));
  io::Ratings positive = g.ratings;
  for (float& v : positive.rating) v = std::fabs(v);
  const AlsData implicit_data = build_als_data(positive, {});
  for (const bool implicit : {false, true})
    for (const bool on_r : {false, true}) {
      SCOPED_TRACE(std::string(implicit ? "implicit" : "explicit") +
                   (on_r ? ", items on R" : ", items on Rᵀ"));
      const AlsData& data = implicit ? implicit_data : d;
      AlsHyper h = hyper_for(6, !implicit, implicit, Solver::kCg, 3, implicit ? 0.0 : d.global_mean);
      h.items_on_r = on_r;
      h.product_spmm = "off";
      const TrainRun pair = train(data, h, 5, 7);
      h.product_spmm = "omp.ratio_spmm.rows";
      const TrainRun fused = train(data, h, 5, 7);
      // Implicit CG (3 steps, not converged) carries the first residual's other rounding through
      // five iterations to about 1.5e-4 of a factor entry; a wrong term moves them by O(1).
      EXPECT_LT(test::max_rel_error(flat(fused.users), flat(pair.users)), 1e-3);
      EXPECT_LT(test::max_rel_error(flat(fused.items), flat(pair.items)), 1e-3);
      EXPECT_NEAR(fused.objective.back(), pair.objective.back(), 1e-5 * pair.objective.back());
    }
}

TEST(AlsTrain, CgMatchesCholeskyRmse) {
  const LowRank g = low_rank(12, 0.5);
  const AlsData d = build_als_data(g.ratings, holdout_mask(g.ratings.size(), 0.2, 4));
  for (const bool biases : {false, true}) {
    const TrainRun cg = train(d, hyper_for(8, biases, false, Solver::kCg, 3, d.global_mean), 10, 6);
    const TrainRun exact =
        train(d, hyper_for(8, biases, false, Solver::kCholesky, 3, d.global_mean), 10, 6);
    const double a = cg.test_rmse.back(), b = exact.test_rmse.back();
    EXPECT_LT(std::fabs(a - b) / b, 0.005)
        << "biases " << biases << ": CG " << a << ", Cholesky " << b;
    EXPECT_LT(std::fabs(cg.train_rmse.back() - exact.train_rmse.back()) / exact.train_rmse.back(),
              0.005);
  }
}

TEST(AlsTrain, RecoversGeneratedLowRankModel) {
  const LowRank g = low_rank(13, 0.2);
  const AlsData d = build_als_data(g.ratings, holdout_mask(g.ratings.size(), 0.1, 5), &g.truth);
  ASSERT_TRUE(d.true_test_rmse.has_value());
  EXPECT_NEAR(*d.true_test_rmse, 0.2, 0.02);  // the noise
  for (const Solver solver : {Solver::kCg, Solver::kCholesky}) {
    AlsHyper h = hyper_for(4, true, false, solver, 3, d.global_mean);
    h.lambda = 0.01;
    const TrainRun r = train(d, h, 15, 7);
    // ~100 ratings per user and ~150 per item for 5 parameters each: the fitted model's test
    // error may exceed the noise by a few percent of estimation error, not more.
    EXPECT_LT(r.test_rmse.back(), 1.06 * *d.true_test_rmse)
        << to_string(solver) << ", true model " << *d.true_test_rmse;
    // ... and its training error cannot go far below the noise without overfitting.
    EXPECT_GT(r.train_rmse.back(), 0.9 * *d.true_train_rmse);
  }
}

TEST(AlsTrain, SameSeedSameFactorsAnyThreadCount) {
  const LowRank g = low_rank(14);
  const AlsData d = build_als_data(g.ratings, holdout_mask(g.ratings.size(), 0.2, 6));
  const AlsHyper h = hyper_for(5, true, false, Solver::kCg, 3, d.global_mean);
  const TrainRun a = train(d, h, 3, 9, Context(DeviceKind::kCpu, 1));
  const TrainRun b = train(d, h, 3, 9, Context(DeviceKind::kCpu, 2));
  EXPECT_EQ(flat(a.users), flat(b.users));
  EXPECT_EQ(flat(a.items), flat(b.items));
  EXPECT_EQ(a.test_rmse, b.test_rmse);
  const TrainRun c = train(d, h, 3, 10, Context(DeviceKind::kCpu, 2));
  EXPECT_NE(flat(a.items), flat(c.items)) << "another seed must give another start";
}

TEST(AlsData, HoldoutMaskTakesExactlyTheFractionAndDependsOnTheSeed) {
  const std::vector<char> a = holdout_mask(1001, 0.2, 1), b = holdout_mask(1001, 0.2, 1),
                          c = holdout_mask(1001, 0.2, 2);
  EXPECT_EQ(std::count(a.begin(), a.end(), 1), 200);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const std::vector<char> none = holdout_mask(50, 0.0, 1);
  EXPECT_EQ(std::count(none.begin(), none.end(), 1), 0);
}

TEST(AlsData, MalformedRatingsNameTheLineNotTheFormat) {
  // Each file breaks the ratings pattern among the lines format detection looks at, so detection
  // calls it text; the error must still point at the bad line, not just at the format.
  test::TempDir dir;
  struct Case {
    const char* name;
    const char* text;
    int line;
    const char* says;
  };
  for (const Case& c : {Case{"bad_rating.csv", "1,2,5\n1,3,4\n2,1,abc\n", 3, "abc"},
                        Case{"short_line.csv", "user,item,rating\n1,2,5\n1,3\n", 3, ""},
                        Case{"widths.txt", "1 2 5 7\n1 3 4\n", 2, ""}}) {
    const std::string path = dir.file(c.name);
    test::write_bytes(path, c.text);
    EXPECT_TRUE(test::throws_input_error([&] { load_ratings(path, io::InputFormat::kAuto); }, path,
                                         c.line, {c.says}))
        << c.name;
  }
  // A UCI bag of words is still refused by its format.
  const std::string uci = dir.file("docword.txt");
  test::write_bytes(uci, "3\n4\n2\n1 2 3\n2 4 1\n");
  EXPECT_TRUE(test::throws_input_error([&] { load_ratings(uci, io::InputFormat::kAuto); }, uci, 0,
                                       {"looks like format 'uci'"}));
  // A format the user named is not called a guess.
  const std::string ratings = dir.file("good.csv");
  test::write_bytes(ratings, "1,2,5\n2,3,4\n");
  EXPECT_TRUE(test::throws_input_error([&] { load_ratings(ratings, io::InputFormat::kUci); },
                                       ratings, 0, {"--format uci is neither"}));
}

TEST(AlsData, MatrixMarketRatingsKeepFileOrderAndOneBasedIds) {
  // Rows out of order: the ratings are the file's entries in file order (the reader's triplets,
  // moved), users and items named by their 1-based row and column numbers, empty ones included.
  test::TempDir dir;
  const std::string path = dir.file("r.mtx");
  test::write_bytes(path,
                    "%%MatrixMarket matrix coordinate real general\n4 3 4\n3 2 4.5\n1 3 1\n"
                    "3 1 -2\n2 2 0.25\n");
  const io::Ratings r = load_ratings(path, io::InputFormat::kAuto);
  EXPECT_EQ(r.user, (std::vector<std::int32_t>{2, 0, 2, 1}));
  EXPECT_EQ(r.item, (std::vector<std::int32_t>{1, 2, 0, 1}));
  EXPECT_EQ(r.rating, (std::vector<float>{4.5f, 1, -2, 0.25f}));
  EXPECT_EQ(r.user_ids, (std::vector<std::string>{"1", "2", "3", "4"}));
  EXPECT_EQ(r.item_ids, (std::vector<std::string>{"1", "2", "3"}));
  // A rating the app refuses names the entry by its number and its row and column.
  const io::RatingCheck no_negatives = [](float v) {
    return v < 0 ? std::string("negative rating") : std::string();
  };
  EXPECT_TRUE(test::throws_input_error(
      [&] { load_ratings(path, io::InputFormat::kMtx, nullptr, no_negatives); }, path, 0,
      {"entry 3 (row 3, column 1): negative rating"}));
}

TEST(AlsData, LeaveKOutHoldsOutKPerUserWithMoreThanK) {
  const LowRank g = low_rank(15);
  const io::Ratings& r = g.ratings;
  const std::vector<char> mask = leave_k_out_mask(r, 3, 1);
  std::vector<int> total(static_cast<std::size_t>(r.users())), held(total.size());
  for (std::int64_t j = 0; j < r.size(); ++j) {
    ++total[r.user[j]];
    held[r.user[j]] += mask[j];
  }
  for (std::size_t u = 0; u < total.size(); ++u)
    EXPECT_EQ(held[u], total[u] > 3 ? 3 : 0) << "user " << u;
}

TEST(AlsData, UnseenTestUsersAndItemsAreCountedAndPredictedFinitely) {
  io::Ratings r = tiny_ratings();
  // A user (u3) and an item (i4) that only the test set has, plus one ordinary test rating.
  r.user_ids.push_back("u3");
  r.item_ids.push_back("i4");
  const int users[] = {3, 0, 1}, items[] = {0, 4, 1};
  const float vals[] = {4, 2, 3};
  std::vector<char> is_test(8, 0);
  for (int j = 0; j < 3; ++j) {
    r.user.push_back(users[j]);
    r.item.push_back(items[j]);
    r.rating.push_back(vals[j]);
    is_test.push_back(1);
  }
  const AlsData d = build_als_data(r, is_test);
  EXPECT_EQ(d.unseen_test_users, 1);
  EXPECT_EQ(d.unseen_test_items, 1);
  EXPECT_EQ(d.unseen_test_ratings, 2);
  const TrainRun run = train(d, hyper_for(2, true, false, Solver::kCg, 3, d.global_mean), 3, 1);
  ASSERT_EQ(run.test_rmse.size(), 3u);
  EXPECT_TRUE(std::isfinite(run.test_rmse.back()));
  // Never-trained rows keep zero factors and biases: they predict from μ and the known bias.
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(run.users(3, c), 0.0f);
    EXPECT_EQ(run.items(4, c), 0.0f);
  }
}

TEST(AlsRanking, MetricsOfAHandMadeRanking) {
  // One user, 5 items; scores x·y_i = y_i (1 factor): item order 4, 3, 2, 1, 0.
  HostDense<float> users(1, 1, 1.0f), items(5, 1);
  for (int i = 0; i < 5; ++i) items(i, 0) = static_cast<float>(i);
  HostCoo tr, te;
  tr.rows = te.rows = 1;
  tr.cols = te.cols = 5;
  tr.row = {0};  // item 4 was rated in training: excluded, so the ranking is 3, 2, 1, 0
  tr.col = {4};
  tr.val = {1};
  te.row = {0, 0};  // relevant: items 2 and 0
  te.col = {0, 2};
  te.val = {1, 1};
  const HostCsr train = coo_to_csr(tr), test = coo_to_csr(te);
  const RankingMetrics m = ranking_metrics(users, items, train, test, {0}, 3);
  // Top 3: 3 (miss), 2 (hit at 2), 1 (miss).
  EXPECT_NEAR(m.precision, 1.0 / 3, 1e-12);
  EXPECT_NEAR(m.map, (1.0 / 2) / 2, 1e-12);
  EXPECT_NEAR(m.ndcg, (1 / std::log2(3.0)) / (1 + 1 / std::log2(3.0)), 1e-12);
  EXPECT_EQ(m.users, 1);
}

TEST(AlsModel, SavedModelRecommendsUnratedItemsAndFindsSimilarOnes) {
  test::TempDir dir;
  const LowRank g = low_rank(16);
  const AlsData d = build_als_data(g.ratings, {});
  const AlsHyper h = hyper_for(4, true, false, Solver::kCg, 3, d.global_mean);
  const TrainRun r = train(d, h, 5, 2);
  save_als_model(dir.path(), r.users, r.items, 4, true, false, d.global_mean, d.user_ids,
                 d.item_ids, d.train);
  const AlsModel m = load_als_model(dir.path());
  ASSERT_EQ(m.user_count(), d.users());
  EXPECT_EQ(m.user_bias[7], r.users(7, 4));
  for (const std::int64_t u : {0, 17, 299}) {
    const std::vector<Scored> top = recommend(m, u, 20);
    ASSERT_EQ(top.size(), 20u);
    std::set<std::int32_t> rated(d.train.col_idx.begin() + d.train.row_ptr[u],
                                 d.train.col_idx.begin() + d.train.row_ptr[u + 1]);
    for (std::size_t t = 0; t < top.size(); ++t) {
      EXPECT_EQ(rated.count(static_cast<std::int32_t>(top[t].index)), 0u)
          << "user " << u << " rated item " << top[t].index;
      EXPECT_NEAR(top[t].score, m.score(u, top[t].index), 1e-5);
      if (t > 0) {
        EXPECT_GE(top[t - 1].score, top[t].score);
      }
    }
    // Nothing unrated scores above the last recommendation.
    for (std::int64_t i = 0; i < m.item_count(); ++i) {
      if (!rated.count(static_cast<std::int32_t>(i)) &&
          std::none_of(top.begin(), top.end(), [&](const Scored& s) { return s.index == i; })) {
        EXPECT_LE(m.score(u, i), top.back().score);
      }
    }
  }
  const std::vector<Scored> sim = similar_items(m, 3, 5);
  ASSERT_EQ(sim.size(), 5u);
  for (std::size_t t = 0; t < sim.size(); ++t) {
    EXPECT_NE(sim[t].index, 3);
    EXPECT_LE(sim[t].score, 1.0f + 1e-5f);
    if (t > 0) {
      EXPECT_GE(sim[t - 1].score, sim[t].score);
    }
  }
}

// The fingerprint a checkpoint must match: how-to-run keys left out, files by canonical path, and
// a checkpoint from before that (its input as given, relative) still accepted for the same file.
TEST(CheckpointFingerprint, FilesByCanonicalPathAndOldRelativeEntries) {
  const app::ResolvedConfig config = {{"input", "in/../in/u.data", "\"in/../in/u.data\""},
                                      {"factors", "5", "5"},
                                      {"threads", "2", "2"}};
  const app::ResolvedConfig fp = app::model_fingerprint(config, {});
  ASSERT_EQ(fp.size(), 2u) << "threads is not part of the model";
  EXPECT_EQ(fp[0].ini, (std::filesystem::current_path() / "in/u.data").string());
  app::Checkpoint ck{"ck", {{"config.input", "in/u.data", ""}, {"config.factors", "5", ""}}};
  EXPECT_NO_THROW(app::check_fingerprint(ck, fp));
  ck.state[1].ini = "6";
  EXPECT_THROW(app::check_fingerprint(ck, fp), app::UsageError);
  ck.state[1].ini = "5";
  ck.state[0].ini = "other/u.data";
  EXPECT_THROW(app::check_fingerprint(ck, fp), app::UsageError);
}

// fk-lda --vocab naming the vocab.X.txt that its UCI input reads anyway trains the same model as
// no --vocab: a checkpoint of either resumes with the other; another vocabulary file does not.
TEST(CheckpointFingerprint, AGivenFileEqualToTheImpliedOneIsLeftOut) {
  const app::ResolvedConfig implied = {{"vocab", "data/vocab.kos.txt", ""}};
  const app::ResolvedConfig without = {{"topics", "5", "5"}};
  const app::ResolvedConfig same = {{"topics", "5", "5"}, {"vocab", "./data/vocab.kos.txt", ""}};
  const app::ResolvedConfig other = {{"topics", "5", "5"}, {"vocab", "data/mine.txt", ""}};
  const app::ResolvedConfig fp_without = app::model_fingerprint(without, {}, implied);
  ASSERT_EQ(fp_without.size(), 1u);
  const app::ResolvedConfig fp_same = app::model_fingerprint(same, {}, implied);
  ASSERT_EQ(fp_same.size(), 1u) << fp_same.back().key;
  const app::ResolvedConfig fp_other = app::model_fingerprint(other, {}, implied);
  ASSERT_EQ(fp_other.size(), 2u);
  app::Checkpoint ck{"ck", {{"config.topics", "5", ""}}};
  EXPECT_NO_THROW(app::check_fingerprint(ck, fp_same));
  EXPECT_THROW(app::check_fingerprint(ck, fp_other), app::UsageError);
  // And the other way: the checkpoint of the run with another vocabulary is not resumed by a run
  // with the implied one, given or not.
  ASSERT_EQ(fp_other[1].key, "vocab");
  const app::Checkpoint saved{"ck", {{"config.topics", "5", ""}, {"config.vocab", fp_other[1].ini, ""}}};
  EXPECT_NO_THROW(app::check_fingerprint(saved, fp_other));
  EXPECT_THROW(app::check_fingerprint(saved, fp_without), app::UsageError);
  EXPECT_THROW(app::check_fingerprint(saved, fp_same), app::UsageError);
  // A checkpoint from before implied files were left out names the implied file itself: resumed
  // by a run that has it implied (given or not), refused where nothing says it is implied.
  const app::Checkpoint old{"ck", {{"config.topics", "5", ""}, {"config.vocab", "./data/vocab.kos.txt", ""}}};
  EXPECT_NO_THROW(app::check_fingerprint(old, fp_without, implied));
  EXPECT_NO_THROW(app::check_fingerprint(old, fp_same, implied));
  EXPECT_THROW(app::check_fingerprint(old, fp_without), app::UsageError);
}

// Ctrl-C while a checkpoint is written leaves no DIR.tmp: neither its finished files nor the
// one being written (the last complete checkpoint stays), and says on stderr that --resume goes
// on from that one. In a child process, its stderr into a file.
TEST(CheckpointWriter, TerminationRemovesTheStagingDirectory) {
  struct sigaction now {};
  if (::sigaction(SIGINT, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) GTEST_SKIP();
  test::TempDir dir;
  const std::string ck = dir.file("checkpoint");
  { app::CheckpointWriter first(ck); first.commit(); }
  const std::string err = dir.path() + ".err";
  const int status = test::run_in_child([&] {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::dup2(fd, STDERR_FILENO) < 0) ::_exit(3);
    app::CheckpointWriter w(ck);
    io::write_npy(w.file("lambda.npy"), HostDense<float>(2, 3));
    io::AtomicFile partial(w.file("gamma.npy"));
    partial.stream() << "partial" << std::flush;
    ::raise(SIGINT);
  });
  ASSERT_NE(status, -1);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status;
  EXPECT_EQ(test::list_dir(dir.path()), std::vector<std::string>{"checkpoint"});
  EXPECT_TRUE(app::find_checkpoint(ck).has_value());
  const std::string said = test::read_bytes(err);
  std::filesystem::remove(err);
  EXPECT_EQ(said, "interrupted: the same command with --resume goes on from the checkpoint in " +
                      ck + "\n");
}

// Test predictions μ + p·q are clamped to [clip_lo, clip_hi] for the test errors (as rating
// libraries do) and not without clipping: both checked against the errors computed here from
// factors large enough that many predictions leave the range.
TEST(AlsTrain, TestPredictionsAreClippedToTheRatingRange) {
  const LowRank g = low_rank(23);
  const AlsData d = build_als_data(g.ratings, holdout_mask(g.ratings.size(), 0.2, 9));
  ASSERT_GT(d.test.nnz(), 0);
  const int k = 3;
  Rng rng(4);
  HostDense<float> users(d.users(), k), items(d.train_t.rows, k);
  for (float& x : users.storage()) x = static_cast<float>(1.5 * rng.normal());
  for (float& x : items.storage()) x = static_cast<float>(1.5 * rng.normal());
  const double lo = d.rating_min, hi = d.rating_max;
  double sse_clipped = 0, sse_raw = 0;
  int outside = 0;
  for (std::int64_t u = 0; u < d.test.rows; ++u)
    for (std::int64_t j = d.test.row_ptr[u]; j < d.test.row_ptr[u + 1]; ++j) {
      double pred = d.global_mean;
      for (int c = 0; c < k; ++c) pred += double(users(u, c)) * items(d.test.col_idx[j], c);
      const double r = d.test.vals[j];
      sse_raw += (pred - r) * (pred - r);
      outside += pred < lo || pred > hi;
      const double clipped = std::clamp(pred, lo, hi);
      sse_clipped += (clipped - r) * (clipped - r);
    }
  ASSERT_GT(outside, 10) << "the factors must push predictions out of the range";
  for (const bool clip : {true, false}) {
    SCOPED_TRACE(clip ? "clipped" : "not clipped");
    AlsHyper h = hyper_for(k, false, false, Solver::kCg, 3, d.global_mean);
    if (clip) {
      h.clip_lo = lo;
      h.clip_hi = hi;
    }
    auto be = make_cpu_als_backend(Context(DeviceKind::kCpu), h, d.train, d.train_t, d.test);
    be->set_factors(users, items);
    const double want = clip ? sse_clipped : sse_raw;
    EXPECT_NEAR(be->test_errors().sse, want, 1e-5 * want);
  }
}

// The memory check before training counts the K x K Gram partials the CPU engines hold: 6000 rows
// of 4096 factors, 7 copies, are 688 MB and fit 80% of 1 GiB, but not with the engine's two Gram
// matrices, the two partials of 6000 rows and their total (335 MB more).
TEST(AlsTrainer, FactorMemoryCheckCountsTheGramPartials) {
  EXPECT_EQ(app::cpu_gram_matrices(app::kGramRows), 2);
  EXPECT_EQ(app::cpu_gram_matrices(app::kGramRows + 1), 3);
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory alone exceeds any small address-space limit";
#endif
  const double limit = 1 << 30;
  if (host_memory_bytes() <= 2 * limit)
    GTEST_SKIP() << "the 1 GiB limit would not lower the memory";
  const int status = test::run_in_child([&] {
    struct rlimit r {};
    r.rlim_cur = r.rlim_max = static_cast<rlim_t>(limit);
    if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(3);
    app::check_factors_fit(6000, 0, 4096, 7, "the ratings", "--factors");
    try {
      app::check_factors_fit(6000, 0, 4096, 7, "the ratings", "--factors",
                             2 + app::cpu_gram_matrices(6000));
    } catch (const Error&) {
      ::_exit(0);
    }
    ::_exit(1);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the partials were not counted; 3: setrlimit failed";
}

TEST(AlsTrainer, ResumedRunEqualsUninterruptedRun) {
  test::TempDir dir;
  const LowRank g = low_rank(17);
  const AlsData d = build_als_data(g.ratings, holdout_mask(g.ratings.size(), 0.2, 8));
  AlsOptions opt;
  opt.factors = 5;
  opt.biases = true;
  app::CommonOptions common;
  common.quiet = true;
  common.iters = 4;
  const app::ResolvedConfig config = {{"factors", "5", "5"}};
  const TrainResult full =
      train_als(opt, common, d, Context(DeviceKind::kCpu), dir.file("full"), config);
  opt.checkpoint_every = 2;
  common.iters = 2;
  train_als(opt, common, d, Context(DeviceKind::kCpu), dir.file("parts"), config);
  opt.resume = true;
  common.iters = 4;
  const TrainResult rest =
      train_als(opt, common, d, Context(DeviceKind::kCpu), dir.file("parts"), config);
  ASSERT_EQ(rest.iters.size(), 2u);
  EXPECT_EQ(rest.iters.front().iter, 3);
  EXPECT_EQ(flat(rest.users), flat(full.users));
  EXPECT_EQ(flat(rest.items), flat(full.items));
  ASSERT_TRUE(rest.last && full.last);
  EXPECT_EQ(*rest.last->test_rmse, *full.last->test_rmse);
  ASSERT_TRUE(std::filesystem::exists(dir.file("parts") + "/model.ini"));
  // A damaged state.ini is refused with its file and key, not resumed from a wrapped number, and
  // before anything in --out changes: the earlier run's model.ini and summary.json stay.
  for (const char* bad : {"zz", "-5", "99999999999999999999"}) {
    const std::string state = dir.file("parts") + "/checkpoint/state.ini";
    std::string text;
    {
      std::ifstream in(state);
      for (std::string line; std::getline(in, line);)
        text += (line.rfind("iter = ", 0) == 0 ? std::string("iter = ") + bad : line) + "\n";
    }
    std::ofstream(state) << text;
    try {
      train_als(opt, common, d, Context(DeviceKind::kCpu), dir.file("parts"), config);
      ADD_FAILURE() << "resumed from iter = " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("state.ini"), std::string::npos) << e.what();
      EXPECT_TRUE(std::filesystem::exists(dir.file("parts") + "/model.ini"));
      EXPECT_TRUE(std::filesystem::exists(dir.file("parts") + "/summary.json"));
      EXPECT_NE(std::string(e.what()).find("'iter' is not a whole number"), std::string::npos)
          << e.what();
    }
  }
}

// Float sums in another order (cuSPARSE, warp reductions) drift through 5 iterations of 3 CG
// steps; the bounds leave room for that and none for a wrong term (which moves things by O(1)).
TEST(AlsGpu, GpuAgreesWithCpu) {
  FK_REQUIRE_GPU();
  const LowRank g = low_rank(18, 0.5);
  const AlsData d = build_als_data(g.ratings, holdout_mask(g.ratings.size(), 0.2, 9));
  io::Ratings positive = g.ratings;
  for (float& v : positive.rating) v = std::fabs(v);
  const AlsData implicit_data = build_als_data(positive, {});
  for (const TinyCase c :
       {TinyCase{false, false, Solver::kCg}, TinyCase{true, false, Solver::kCg},
        TinyCase{true, false, Solver::kCholesky}, TinyCase{false, true, Solver::kCg},
        TinyCase{false, true, Solver::kCholesky}}) {
    SCOPED_TRACE(std::string(c.implicit ? "implicit "
                             : c.biases ? "biases "
                                        : "plain ") +
                 to_string(c.solver));
    const AlsData& data = c.implicit ? implicit_data : d;
    AlsHyper h = hyper_for(8, c.biases, c.implicit, c.solver, 3, c.implicit ? 0.0 : d.global_mean);
    const TrainRun cpu = train(data, h, 5, 3, Context(DeviceKind::kCpu));
    // The items' half-steps on Rᵀ and on R (where the users' rows outgrow L2, which no test
    // data does by itself).
    // And CG's products fused (auto on the GPU at this K) or as the pair.
    for (const bool on_r : {false, true})
      for (const char* fused : {"auto", "off"}) {
        SCOPED_TRACE(std::string(on_r ? "items on R" : "items on Rᵀ") + ", --product-spmm " +
                     fused);
        h.items_on_r = on_r;
        h.product_spmm = fused;
        const TrainRun gpu = train(data, h, 5, 3, Context(DeviceKind::kGpu));
        // The same run again on the GPU: bit for bit (--seed's promise holds run after run).
        const TrainRun again = train(data, h, 5, 3, Context(DeviceKind::kGpu));
        EXPECT_EQ(flat(again.users), flat(gpu.users));
        EXPECT_EQ(flat(again.items), flat(gpu.items));
        EXPECT_LT(test::max_rel_error(flat(gpu.users), flat(cpu.users)), 5e-3);
        EXPECT_LT(test::max_rel_error(flat(gpu.items), flat(cpu.items)), 5e-3);
        EXPECT_LT(std::fabs(gpu.objective.back() - cpu.objective.back()) / cpu.objective.back(),
                  5e-4);
        if (!c.implicit) {
          EXPECT_LT(std::fabs(gpu.test_rmse.back() - cpu.test_rmse.back()) / cpu.test_rmse.back(),
                    1e-3);
        }
      }
  }
}

}  // namespace
}  // namespace fk::als
