#pragma once
// Building blocks shared by the generators (lda_corpus, ratings, sparse). Internal to
// core/generate: apps and kernels should call the generators, not these. Everything here is a
// pure function of its inputs and the Rng it is handed, so results never depend on threads.
#include <cstdint>
#include <vector>

#include "core/random.hpp"

namespace fk::gen::detail {

// w[i] = (i + 1)^-exponent for i in [0, n): the Zipf shape by rank (exponent 0 is flat).
std::vector<double> zipf_weights(std::int64_t n, double exponent);

// A uniformly random permutation of [0, n) (Fisher-Yates driven by `rng`).
std::vector<std::int64_t> random_permutation(std::int64_t n, Rng& rng);

// Splits `total` into integers c[i] with 0 <= c[i] <= caps[i], sum c = min(total, sum caps), and
// c proportional to `weights` where no cap binds (water-filling: the entries whose share would
// pass their cap are held at the cap and the rest is shared again). Rounding is systematic in
// index order, so |c[i] - exact share| < 1 and the sum is exact. When the positive weights cannot
// absorb `total` under their caps, the rest goes evenly to the zero-weight entries.
// weights and caps have the same length; weights finite and >= 0, caps >= 0.
std::vector<std::int64_t> apportion(const std::vector<double>& weights,
                                    const std::vector<std::int64_t>& caps, std::int64_t total);

// Draws sets of distinct indices in [0, n). Weighted: each draw is proportional to the weights
// of the indices not drawn yet (sequential sampling without replacement); uniform when
// constructed without weights. One sampler per thread: it owns O(n) scratch space.
class DistinctSampler {
 public:
  // Uniform over [0, n).
  explicit DistinctSampler(std::int64_t n);
  // Weighted. `weights` (n entries, finite, >= 0) and `table` (built from the same weights)
  // must outlive the sampler; both are shared read-only between threads.
  DistinctSampler(const std::vector<double>* weights, const AliasTable* table);

  // Replaces `out` with min(count, n) distinct indices in ascending order (weighted: at most the
  // number of positive weights). Small sets draw from the alias table and reject repeats; large
  // sets, or a run of too many rejections (heavy skew), switch to exponential keys over the indices
  // not drawn yet, which gives the same distribution in O(n).
  void sample(std::int64_t count, Rng& rng, std::vector<std::int32_t>& out);
  // Uniform samplers only: min(count, limit) distinct indices in [0, limit), limit <= n, sorted.
  void sample_below(std::int64_t count, std::int64_t limit, Rng& rng,
                    std::vector<std::int32_t>& out);

 private:
  void next_stamp();
  void uniform_sample(std::int64_t count, std::int64_t limit, Rng& rng,
                      std::vector<std::int32_t>& out);
  void weighted_sample(std::int64_t count, Rng& rng, std::vector<std::int32_t>& out);
  void finish_by_keys(std::int64_t count, Rng& rng, std::vector<std::int32_t>& out);

  std::int64_t n_;
  const std::vector<double>* weights_ = nullptr;
  const AliasTable* table_ = nullptr;
  std::int64_t positive_ = 0;        // how many weights are > 0
  std::vector<std::uint32_t> mark_;  // mark_[i] == stamp_: i is in the current set
  std::uint32_t stamp_ = 0;
  std::vector<std::pair<double, std::int32_t>> keys_;  // scratch for exponential keys
};

}  // namespace fk::gen::detail
