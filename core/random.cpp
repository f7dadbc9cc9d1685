#include "core/random.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace fk {
namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
constexpr double kTwoPi = 6.283185307179586476925286766559;
}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& s : s_) s = splitmix64(x);
}

Rng Rng::split(std::uint64_t index) const {
  std::uint64_t x = s_[0] ^ rotl(s_[2], 17) ^ (index * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
  Rng r(splitmix64(x));
  return r;
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::below(std::uint64_t n) {
  FK_CHECK(n > 0, "Rng::below(0)");
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x;
  do x = next_u64();
  while (x >= limit);
  return x % n;
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_normal_ = r * std::sin(kTwoPi * u2);
  has_spare_ = true;
  return r * std::cos(kTwoPi * u2);
}

double Rng::gamma(double shape) {
  FK_CHECK(shape > 0, "gamma shape must be positive, got " << shape);
  if (shape < 1.0) {  // boost: Gamma(a) = Gamma(a + 1) * U^(1/a)
    double u = uniform();
    while (u <= 0.0) u = uniform();
    return gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (u > 0.0 && std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

std::uint64_t Rng::poisson(double mean) {
  FK_CHECK(mean >= 0, "poisson mean must be non-negative, got " << mean);
  if (mean == 0) return 0;
  if (mean > 64) {
    const double x = std::round(mean + std::sqrt(mean) * normal());
    return x < 0 ? 0 : static_cast<std::uint64_t>(x);
  }
  const double limit = std::exp(-mean);
  std::uint64_t k = 0;
  double p = uniform();
  while (p > limit) {
    ++k;
    p *= uniform();
  }
  return k;
}

std::uint64_t Rng::binomial(std::uint64_t n, double p) {
  FK_CHECK(p >= 0 && p <= 1, "binomial probability must be in [0, 1], got " << p);
  if (n <= 1024) {  // one draw per trial: exact, and the stream callers had before this method
    std::uint64_t k = 0;
    for (std::uint64_t t = 0; t < n; ++t) k += uniform() < p;
    return k;
  }
  const double q = std::min(p, 1.0 - p), trials = static_cast<double>(n);
  if (q == 0) return p == 0 ? 0 : n;
  std::uint64_t k = 0;
  if (trials * q <= 64) {
    // Exact: the gaps between successes are geometric, so the work is the successes' count.
    const double log_miss = std::log1p(-q);
    for (double at = 0;;) {
      at += std::floor(std::log1p(-uniform()) / log_miss) + 1;
      if (at > trials) break;
      ++k;
    }
  } else {
    const double x = std::round(trials * q + std::sqrt(trials * q * (1 - q)) * normal());
    k = static_cast<std::uint64_t>(std::clamp(x, 0.0, trials));
  }
  return p <= 0.5 ? k : n - k;
}

void Rng::dirichlet(double alpha, std::vector<double>& out) {
  double sum = 0;
  for (double& x : out) sum += (x = gamma(alpha));
  if (sum <= 0) {  // every draw underflowed (tiny alpha): put the mass on one coordinate
    for (double& x : out) x = 0;
    if (!out.empty()) out[below(out.size())] = 1;
    return;
  }
  for (double& x : out) x /= sum;
}

AliasTable::AliasTable(const std::vector<double>& weights) {
  const std::size_t n = weights.size();
  FK_CHECK(n > 0, "alias table needs at least one weight");
  double total = 0;
  for (double w : weights) {
    FK_CHECK(w >= 0 && std::isfinite(w), "alias table weight must be finite and non-negative");
    total += w;
  }
  FK_CHECK(total > 0, "alias table weights sum to zero");
  prob_.resize(n);
  alias_.assign(n, 0);
  std::vector<std::int64_t> small, large;
  std::vector<double> scaled(n);
  for (std::size_t i = 0; i < n; ++i) {
    scaled[i] = weights[i] * static_cast<double>(n) / total;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::int64_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const std::int64_t s = small.back(), l = large.back();
    small.pop_back();
    prob_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] = (scaled[l] + scaled[s]) - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (std::int64_t i : large) prob_[i] = 1.0;
  for (std::int64_t i : small) prob_[i] = 1.0;
}

std::int64_t AliasTable::sample(Rng& rng) const {
  const std::int64_t i = static_cast<std::int64_t>(rng.below(prob_.size()));
  return rng.uniform() < prob_[i] ? i : alias_[i];
}

}  // namespace fk
