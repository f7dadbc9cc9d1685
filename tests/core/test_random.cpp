#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/random.hpp"

namespace fk {
namespace {

TEST(Random, SameSeedSameStream) {
  Rng a(123), b(123), c(124);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    EXPECT_EQ(x, b.next_u64());
    differs |= x != c.next_u64();
  }
  EXPECT_TRUE(differs);
}

TEST(Random, SplitStreamsDiffer) {
  Rng base(5);
  Rng s0 = base.split(0), s1 = base.split(1);
  EXPECT_NE(s0.next_u64(), s1.next_u64());
  EXPECT_EQ(base.split(3).next_u64(), base.split(3).next_u64());
}

TEST(Random, MomentsOfDistributions) {
  Rng r(1);
  const int n = 200000;
  double su = 0, sn = 0, sn2 = 0, sg = 0, sp = 0;
  for (int i = 0; i < n; ++i) {
    su += r.uniform();
    const double z = r.normal();
    sn += z;
    sn2 += z * z;
    sg += r.gamma(2.5);
    sp += double(r.poisson(3.0));
  }
  EXPECT_NEAR(su / n, 0.5, 0.01);
  EXPECT_NEAR(sn / n, 0.0, 0.01);
  EXPECT_NEAR(sn2 / n, 1.0, 0.02);
  EXPECT_NEAR(sg / n, 2.5, 0.03);
  EXPECT_NEAR(sp / n, 3.0, 0.03);
  double sgs = 0;
  for (int i = 0; i < n; ++i) sgs += r.gamma(0.3);
  EXPECT_NEAR(sgs / n, 0.3, 0.01);
}

// Binomial: a draw per trial up to 1024 trials (the same stream as counting uniform() < p), and
// above it the mean and variance of each regime: geometric gaps (exact) while the rarer
// outcome's mean is at most 64, the normal approximation beyond; p > 1/2 counts the misses.
TEST(Random, BinomialIsExactForSmallCountsAndRightOnAverageForLarge) {
  Rng a(5), b(5);
  for (std::uint64_t n : {0, 1, 7, 1024}) {
    std::uint64_t k = 0;
    for (std::uint64_t t = 0; t < n; ++t) k += b.uniform() < 0.3;
    EXPECT_EQ(a.binomial(n, 0.3), k) << n;
  }
  EXPECT_EQ(a.binomial(5000, 0.0), 0u);
  EXPECT_EQ(a.binomial(5000, 1.0), 5000u);
  struct Case {
    std::uint64_t n;
    double p;
  };
  for (const Case c : {Case{100000, 0.0002}, Case{100000, 0.9998}, Case{16777216, 0.1},
                       Case{3000, 0.7}}) {
    const int draws = 4000;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < draws; ++i) {
      const double k = static_cast<double>(a.binomial(c.n, c.p));
      ASSERT_LE(k, static_cast<double>(c.n));
      sum += k;
      sum2 += k * k;
    }
    const double mean = sum / draws, var = sum2 / draws - mean * mean;
    const double want = double(c.n) * c.p, want_var = want * (1 - c.p);
    SCOPED_TRACE("n " + std::to_string(c.n) + " p " + std::to_string(c.p));
    EXPECT_NEAR(mean, want, 5 * std::sqrt(want_var / draws));
    EXPECT_NEAR(var, want_var, 0.1 * want_var);
  }
}

TEST(Random, DirichletSumsToOne) {
  Rng r(9);
  std::vector<double> v(50);
  r.dirichlet(0.1, v);
  double s = 0;
  for (double x : v) {
    EXPECT_GE(x, 0);
    s += x;
  }
  EXPECT_NEAR(s, 1.0, 1e-12);
}

TEST(Random, AliasTableMatchesWeights) {
  Rng r(3);
  AliasTable t({1, 0, 3, 6});
  std::vector<int> count(4, 0);
  const int n = 100000;
  for (int i = 0; i < n; ++i) ++count[t.sample(r)];
  EXPECT_EQ(count[1], 0);
  EXPECT_NEAR(count[0] / double(n), 0.1, 0.01);
  EXPECT_NEAR(count[2] / double(n), 0.3, 0.01);
  EXPECT_NEAR(count[3] / double(n), 0.6, 0.01);
}

TEST(Random, BelowIsInRange) {
  Rng r(2);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(r.below(7), 7u);
  EXPECT_THROW(r.below(0), Error);
}

}  // namespace
}  // namespace fk
