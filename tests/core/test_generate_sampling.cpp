// The generators' building blocks: apportionment with caps and sampling without replacement.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "core/generate/sampling.hpp"

namespace fk {
namespace {

using gen::detail::apportion;
using gen::detail::DistinctSampler;

std::int64_t sum(const std::vector<std::int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t{0});
}

TEST(GenerateSampling, ApportionIsProportionalExactAndCapped) {
  // Hand-computed: entry 2 is held at 1, then entry 3 at 10, and the last 9 go 1:2.
  EXPECT_EQ(apportion({1, 2, 3, 4}, {10, 10, 1, 10}, 20), (std::vector<std::int64_t>{3, 6, 1, 10}));
  // No cap binds: plain proportional shares.
  EXPECT_EQ(apportion({1, 1, 2}, {100, 100, 100}, 40), (std::vector<std::int64_t>{10, 10, 20}));
  // More than the caps hold: everything fills.
  EXPECT_EQ(apportion({1, 5}, {3, 4}, 100), (std::vector<std::int64_t>{3, 4}));
  // Zero weights take only what the positive weights cannot.
  EXPECT_EQ(apportion({0, 1, 0}, {5, 2, 5}, 6), (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(apportion({0, 0}, {5, 5}, 3), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(sum(apportion({1, 2}, {5, 5}, 0)), 0);
}

TEST(GenerateSampling, ApportionRoundsWithinOneOfTheShare) {
  Rng rng(3);
  std::vector<double> w(1000);
  for (double& x : w) x = rng.uniform() < 0.1 ? 0.0 : std::pow(rng.uniform(), 4.0);
  const std::vector<std::int64_t> caps(w.size(), 1000000);
  const std::vector<std::int64_t> c = apportion(w, caps, 12345);
  EXPECT_EQ(sum(c), 12345);
  const double wsum = std::accumulate(w.begin(), w.end(), 0.0);
  for (std::size_t i = 0; i < w.size(); ++i)
    EXPECT_LT(std::fabs(c[i] - 12345 * w[i] / wsum), 1.0) << i;
}

// Exact inclusion probabilities of sequential weighted sampling without replacement (tiny n).
std::vector<double> inclusion(const std::vector<double>& w, int k) {
  std::vector<double> p(w.size(), 0.0);
  std::vector<char> taken(w.size(), 0);
  std::function<void(int, double)> rec = [&](int left, double prob) {
    if (left == 0) {
      for (std::size_t i = 0; i < w.size(); ++i)
        if (taken[i]) p[i] += prob;
      return;
    }
    double free = 0;
    for (std::size_t i = 0; i < w.size(); ++i)
      if (!taken[i]) free += w[i];
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (taken[i] || w[i] == 0) continue;
      taken[i] = 1;
      rec(left - 1, prob * w[i] / free);
      taken[i] = 0;
    }
  };
  rec(k, 1.0);
  return p;
}

// k = 2 of 6 uses alias draws with rejection, k = 4 exponential keys: both must give the
// distribution of sequential draws without replacement.
TEST(GenerateSampling, WeightedDistinctSamplesHaveTheExactInclusionProbabilities) {
  const std::vector<double> w = {8, 4, 2, 1, 1, 0};
  const AliasTable table(w);
  DistinctSampler sampler(&w, &table);
  Rng rng(17);
  std::vector<std::int32_t> out;
  for (int k : {2, 4}) {
    const std::vector<double> want = inclusion(w, k);
    std::vector<double> got(w.size(), 0.0);
    const int trials = 40000;
    for (int t = 0; t < trials; ++t) {
      sampler.sample(k, rng, out);
      ASSERT_EQ(out.size(), static_cast<std::size_t>(k));
      ASSERT_TRUE(std::is_sorted(out.begin(), out.end()));
      ASSERT_EQ(std::adjacent_find(out.begin(), out.end()), out.end());
      for (std::int32_t i : out) got[i] += 1.0 / trials;
    }
    for (std::size_t i = 0; i < w.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 0.012) << "k=" << k << " i=" << i;
  }
  sampler.sample(10, rng, out);  // more than the positive weights: all of them
  EXPECT_EQ(out, (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
}

// A very skewed table with a set large enough that rejection stalls: the keys fallback finishes it.
TEST(GenerateSampling, HeavySkewFallsBackAndStaysDistinct) {
  std::vector<double> w(2000);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::pow(i + 1.0, -3.0);
  const AliasTable table(w);
  DistinctSampler sampler(&w, &table);
  Rng rng(2);
  std::vector<std::int32_t> out;
  sampler.sample(900, rng, out);
  ASSERT_EQ(out.size(), 900u);
  EXPECT_EQ(std::adjacent_find(out.begin(), out.end()), out.end());
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end()));
  EXPECT_EQ(out[0], 0);  // the heaviest index is all but certain
}

TEST(GenerateSampling, UniformDistinctSamplesSparseAndDense) {
  DistinctSampler sampler(1000);
  Rng rng(5);
  std::vector<std::int32_t> out;
  std::vector<double> hits(1000, 0.0);
  for (int t = 0; t < 2000; ++t) {
    const int k = t % 2 ? 50 : 700;  // rejection, then selection sampling
    sampler.sample(k, rng, out);
    ASSERT_EQ(out.size(), static_cast<std::size_t>(k));
    ASSERT_TRUE(std::is_sorted(out.begin(), out.end()));
    ASSERT_EQ(std::adjacent_find(out.begin(), out.end()), out.end());
    for (std::int32_t i : out) hits[i] += 1;
  }
  // Each index is in 1000 * (0.05 + 0.7) = 750 sets on average.
  for (double h : hits) EXPECT_NEAR(h, 750, 75);
  sampler.sample_below(30, 40, rng, out);
  EXPECT_EQ(out.size(), 30u);
  EXPECT_LT(out.back(), 40);
}

}  // namespace
}  // namespace fk
