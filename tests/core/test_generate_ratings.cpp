// Ratings generator: structure, no duplicate pairs, value range and step, determinism (seeds,
// thread counts), power-law skew, and that the ratings follow the returned low-rank model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "core/error.hpp"
#include "core/generate/ratings.hpp"
#include "tests/core/test_generate_common.hpp"

namespace fk {
namespace {

using gen::GeneratedRatings;
using gen::RatingsSpec;

RatingsSpec small_spec(std::uint64_t seed) {
  RatingsSpec s;
  s.users = 1300;  // several 256-user blocks, the last one partial
  s.items = 700;
  s.ratings = 60000;
  s.min_user_ratings = 5;
  s.seed = seed;
  return s;
}

// Ordered by user, items strictly increasing within a user (hence no duplicate pair), indices in
// range.
::testing::AssertionResult ordered_unique(const io::Ratings& r, std::int64_t users,
                                          std::int64_t items) {
  for (std::int64_t j = 0; j < r.size(); ++j) {
    if (r.user[j] < 0 || r.user[j] >= users || r.item[j] < 0 || r.item[j] >= items)
      return ::testing::AssertionFailure() << "pair " << j << " out of range";
    if (j > 0 &&
        (r.user[j] < r.user[j - 1] || (r.user[j] == r.user[j - 1] && r.item[j] <= r.item[j - 1])))
      return ::testing::AssertionFailure()
             << "pair " << j << " (" << r.user[j] << ", " << r.item[j] << ") after ("
             << r.user[j - 1] << ", " << r.item[j - 1] << ")";
  }
  return ::testing::AssertionSuccess();
}

bool same_ratings(const GeneratedRatings& a, const GeneratedRatings& b) {
  return a.ratings.user == b.ratings.user && a.ratings.item == b.ratings.item &&
         a.ratings.rating == b.ratings.rating &&
         a.user_factors.storage() == b.user_factors.storage() &&
         a.item_factors.storage() == b.item_factors.storage() && a.user_bias == b.user_bias &&
         a.item_bias == b.item_bias;
}

// Share of all ratings held by the top 1% of ids (by count).
double top_percent_share(const std::vector<std::int32_t>& ids, std::int64_t n) {
  std::vector<std::int64_t> count(static_cast<std::size_t>(n), 0);
  for (std::int32_t i : ids) ++count[i];
  std::sort(count.rbegin(), count.rend());
  const std::int64_t top = std::accumulate(
      count.begin(), count.begin() + std::max<std::int64_t>(1, n / 100), std::int64_t{0});
  return static_cast<double>(top) / static_cast<double>(ids.size());
}

TEST(GenerateRatings, Ml100kShapeRangeAndNoDuplicates) {
  const RatingsSpec spec = gen::ratings_preset("ml-100k");
  const GeneratedRatings g = gen::generate_ratings(spec);
  const io::Ratings& r = g.ratings;
  EXPECT_EQ(r.size(), 100000);
  ASSERT_EQ(r.users(), 943);
  ASSERT_EQ(r.items(), 1682);
  EXPECT_EQ(r.user_ids[0], "1");
  EXPECT_EQ(r.item_ids[1681], "1682");
  ASSERT_EQ(r.user.size(), r.rating.size());
  ASSERT_EQ(r.item.size(), r.rating.size());
  EXPECT_TRUE(ordered_unique(r, 943, 1682));
  std::set<float> values;
  for (float v : r.rating) {
    ASSERT_GE(v, 1.0f);
    ASSERT_LE(v, 5.0f);
    ASSERT_EQ(v, std::round(v));
    values.insert(v);
  }
  EXPECT_EQ(values.size(), 5u) << "every star value should occur";
  std::vector<std::int64_t> per_user(943, 0);
  for (std::int32_t u : r.user) ++per_user[u];
  EXPECT_GE(*std::min_element(per_user.begin(), per_user.end()), spec.min_user_ratings);
  EXPECT_EQ(g.user_factors.rows(), 943);
  EXPECT_EQ(g.user_factors.cols(), spec.rank);
  EXPECT_EQ(g.item_factors.rows(), 1682);
  EXPECT_EQ(g.item_factors.cols(), spec.rank);
  EXPECT_EQ(g.user_bias.size(), 943u);
  EXPECT_EQ(g.item_bias.size(), 1682u);
  // MovieLens-like mean rating.
  const double mean = std::accumulate(r.rating.begin(), r.rating.end(), 0.0) / r.size();
  EXPECT_NEAR(mean, 3.5, 0.3);
}

TEST(GenerateRatings, PresetShapes) {
  const RatingsSpec m20 = gen::ratings_preset("ml-20m"), nf = gen::ratings_preset("netflix");
  EXPECT_EQ(m20.users, 138493);
  EXPECT_EQ(m20.items, 26744);
  EXPECT_NEAR(static_cast<double>(m20.ratings), 20e6, 1e5);
  EXPECT_EQ(nf.users, 480189);
  EXPECT_EQ(nf.items, 17770);
  EXPECT_NEAR(static_cast<double>(nf.ratings), 100e6, 1e6);
  EXPECT_THROW(gen::ratings_preset("ml-1m"), Error);
}

TEST(GenerateRatings, SameSeedSameRatingsDifferentSeedDifferent) {
  const GeneratedRatings a = gen::generate_ratings(small_spec(3));
  const GeneratedRatings b = gen::generate_ratings(small_spec(3));
  const GeneratedRatings c = gen::generate_ratings(small_spec(4));
  EXPECT_TRUE(same_ratings(a, b));
  EXPECT_FALSE(same_ratings(a, c));
  EXPECT_NE(a.ratings.item, c.ratings.item);
}

TEST(GenerateRatings, IndependentOfThreadCount) {
  const RatingsSpec spec = small_spec(8);
  const GeneratedRatings one = test::with_threads(1, [&] { return gen::generate_ratings(spec); });
  const GeneratedRatings two = test::with_threads(2, [&] { return gen::generate_ratings(spec); });
  const GeneratedRatings three = test::with_threads(3, [&] { return gen::generate_ratings(spec); });
  EXPECT_TRUE(same_ratings(one, two));
  EXPECT_TRUE(same_ratings(one, three));
}

TEST(GenerateRatings, ActivityIsPowerLawAndFollowsTheExponent) {
  const GeneratedRatings g = gen::generate_ratings(gen::ratings_preset("ml-100k"));
  EXPECT_GT(top_percent_share(g.ratings.item, 1682), 0.04);  // 4x the flat share
  EXPECT_GT(top_percent_share(g.ratings.user, 943), 0.03);
  RatingsSpec flat = small_spec(2);
  flat.user_exponent = 0;
  flat.item_exponent = 0;
  const GeneratedRatings f = gen::generate_ratings(flat);
  EXPECT_LT(top_percent_share(f.ratings.item, flat.items), 0.015);
  EXPECT_LT(top_percent_share(f.ratings.user, flat.users), 0.015);
}

// Nearly complete rows and heavy skew push the item draws off the rejection path.
TEST(GenerateRatings, DenseUsersStayDistinct) {
  RatingsSpec s;
  s.users = 40;
  s.items = 60;
  s.ratings = 2000;  // 83% of all pairs
  s.min_user_ratings = 1;
  s.user_exponent = 2;
  s.item_exponent = 3;
  s.seed = 9;
  const GeneratedRatings g = gen::generate_ratings(s);
  EXPECT_EQ(g.ratings.size(), 2000);
  EXPECT_TRUE(ordered_unique(g.ratings, 40, 60));
  s.ratings = 2400;  // every pair
  const GeneratedRatings full = gen::generate_ratings(s);
  EXPECT_EQ(full.ratings.size(), 2400);
  EXPECT_TRUE(ordered_unique(full.ratings, 40, 60));
}

TEST(GenerateRatings, StepAndRange) {
  RatingsSpec s = small_spec(6);
  s.min_rating = 0.5f;
  s.max_rating = 5.0f;
  s.step = 0.5f;
  const GeneratedRatings half = gen::generate_ratings(s);
  for (float v : half.ratings.rating) {
    ASSERT_GE(v, 0.5f);
    ASSERT_LE(v, 5.0f);
    ASSERT_EQ(v * 2, std::round(v * 2)) << v;
  }
  s.step = 0;
  s.min_rating = -1;
  s.max_rating = 1;
  const GeneratedRatings real = gen::generate_ratings(s);
  std::int64_t fractional = 0;
  for (float v : real.ratings.rating) {
    ASSERT_GE(v, -1.0f);
    ASSERT_LE(v, 1.0f);
    fractional += v != std::round(v);
  }
  EXPECT_GT(fractional, real.ratings.size() / 2);
}

// The ratings follow mu + b_u + b_i + p_u.q_i plus noise: where clipping cannot reach (the
// prediction 5 noise deviations inside the range) the residual is exactly the noise, and the
// model's own spread is well above it.
TEST(GenerateRatings, RatingsFollowTheReturnedModel) {
  RatingsSpec s = small_spec(12);
  s.noise = 0.3;
  s.step = 0;  // no rounding, so only the noise (and clipping) separates rating and model
  const GeneratedRatings g = gen::generate_ratings(s);
  double se = 0, pred_sum = 0, pred_sq = 0;
  std::int64_t inside = 0;
  for (std::int64_t j = 0; j < g.ratings.size(); ++j) {
    const std::int32_t u = g.ratings.user[j], i = g.ratings.item[j];
    double pred = g.global_mean + g.user_bias[u] + g.item_bias[i];
    for (int f = 0; f < s.rank; ++f) pred += double(g.user_factors(u, f)) * g.item_factors(i, f);
    pred_sum += pred;
    pred_sq += pred * pred;
    if (pred < s.min_rating + 1.5 || pred > s.max_rating - 1.5) continue;
    se += (g.ratings.rating[j] - pred) * (g.ratings.rating[j] - pred);
    ++inside;
  }
  ASSERT_GT(inside, g.ratings.size() / 4);
  const double rmse = std::sqrt(se / inside);
  EXPECT_NEAR(rmse, 0.3, 0.01);
  const double n = static_cast<double>(g.ratings.size());
  const double pred_sd = std::sqrt(pred_sq / n - (pred_sum / n) * (pred_sum / n));
  EXPECT_GT(pred_sd, 2 * rmse);
}

TEST(GenerateRatings, BadSpecsAreErrors) {
  RatingsSpec s = small_spec(1);
  s.ratings = s.users * s.items + 1;
  EXPECT_THROW(gen::generate_ratings(s), Error);
  s = small_spec(1);
  s.ratings = s.users * s.min_user_ratings - 1;
  EXPECT_THROW(gen::generate_ratings(s), Error);
  s = small_spec(1);
  s.max_rating = s.min_rating;
  EXPECT_THROW(gen::generate_ratings(s), Error);
  s = small_spec(1);
  s.rank = 0;
  EXPECT_THROW(gen::generate_ratings(s), Error);
  try {
    gen::generate_ratings(s);
  } catch (const Error& e) {  // the reason, without a failed condition or source location
    EXPECT_EQ(std::string(e.what()), "ratings: rank must be in [1, 4096], got 0");
  }
}

}  // namespace
}  // namespace fk
