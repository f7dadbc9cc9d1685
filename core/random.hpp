#pragma once
// Seeded random numbers that give the same stream on every platform and compiler (the standard
// library's distributions do not), so `--seed` fixes every result. Generator: xoshiro256**,
// seeded through splitmix64.
#include <cmath>
#include <cstdint>
#include <vector>

namespace fk {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 42);
  // An independent stream for sub-task `index` (e.g. one per thread or per document block).
  Rng split(std::uint64_t index) const;

  std::uint64_t next_u64();
  double uniform();                                   // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  std::uint64_t below(std::uint64_t n);               // uniform integer in [0, n), unbiased
  double normal();                                    // standard normal (Box-Muller)
  double gamma(double shape);                         // Gamma(shape, 1), Marsaglia-Tsang
  std::uint64_t poisson(double mean);                 // exact for small means, normal approx above 64
  // Successes in n trials of probability p: a draw per trial up to 1024 trials; above, exact
  // (geometric gaps) while the rarer outcome's mean is at most 64, else the normal approximation.
  std::uint64_t binomial(std::uint64_t n, double p);
  void dirichlet(double alpha, std::vector<double>& out);  // symmetric; fills out.size() entries

 private:
  std::uint64_t s_[4];
  double spare_normal_ = 0;
  bool has_spare_ = false;
};

// Draws indices in [0, n) with given non-negative weights in O(1) per draw (Walker's alias method).
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights);
  std::int64_t sample(Rng& rng) const;
  std::int64_t size() const { return static_cast<std::int64_t>(prob_.size()); }

 private:
  std::vector<double> prob_;
  std::vector<std::int64_t> alias_;
};

}  // namespace fk
