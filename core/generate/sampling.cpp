#include "core/generate/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"

namespace fk::gen::detail {

std::vector<double> zipf_weights(std::int64_t n, double exponent) {
  FK_CHECK(n >= 0, "zipf_weights: negative size " << n);
  FK_CHECK(std::isfinite(exponent) && exponent >= 0,
           "Zipf exponent must be >= 0, got " << exponent);
  std::vector<double> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[i] = std::pow(static_cast<double>(i + 1), -exponent);
  return w;
}

std::vector<std::int64_t> random_permutation(std::int64_t n, Rng& rng) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), std::int64_t{0});
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(p[i], p[static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i + 1)))]);
  return p;
}

std::vector<std::int64_t> apportion(const std::vector<double>& weights,
                                    const std::vector<std::int64_t>& caps, std::int64_t total) {
  const std::size_t n = weights.size();
  FK_CHECK(caps.size() == n, "apportion: " << n << " weights but " << caps.size() << " caps");
  std::vector<std::int64_t> c(n, 0);
  if (total <= 0 || n == 0) return c;

  std::vector<std::size_t> active;  // entries that can take a share
  double wsum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    FK_CHECK(std::isfinite(weights[i]) && weights[i] >= 0, "apportion: bad weight " << weights[i]);
    FK_CHECK(caps[i] >= 0, "apportion: negative cap " << caps[i]);
    if (weights[i] > 0 && caps[i] > 0) {
      active.push_back(i);
      wsum += weights[i];
    }
  }
  std::int64_t remaining = total;
  std::vector<char> capped(n, 0);
  if (!active.empty()) {
    // Entry i is held at its cap when the water level remaining / wsum reaches caps[i] / w[i];
    // those with the lowest ratio bind first, so the held entries are a prefix in that order.
    // Sorting is skipped in the common case where no cap can bind at all.
    bool any_binds = false;
    for (std::size_t i : active)
      any_binds |= static_cast<double>(total) * weights[i] >= static_cast<double>(caps[i]) * wsum;
    if (any_binds) {
      std::vector<std::size_t> order = active;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const double ra = static_cast<double>(caps[a]) / weights[a];
        const double rb = static_cast<double>(caps[b]) / weights[b];
        return ra != rb ? ra < rb : a < b;
      });
      std::vector<double> suffix(order.size() + 1, 0.0);  // weight sums of order[k..]
      for (std::size_t k = order.size(); k-- > 0;) suffix[k] = suffix[k + 1] + weights[order[k]];
      for (std::size_t k = 0; k < order.size() && remaining > 0; ++k) {
        const std::size_t i = order[k];
        if (static_cast<double>(remaining) * weights[i] < static_cast<double>(caps[i]) * suffix[k])
          break;
        const std::int64_t take = std::min(caps[i], remaining);
        c[i] = take;
        remaining -= take;
        capped[i] = 1;
      }
      wsum = 0;
      for (std::size_t i : active)
        if (!capped[i]) wsum += weights[i];
    }
    // Systematic rounding of the uncapped shares in index order: each count is within 1 of its
    // share and the running total never drifts.
    if (remaining > 0 && wsum > 0) {
      const double scale = static_cast<double>(remaining) / wsum;
      double cum = 0;
      std::int64_t prev = 0, assigned = 0;
      for (std::size_t i : active) {
        if (capped[i]) continue;
        cum += weights[i] * scale;
        const std::int64_t upto =
            std::min(remaining, static_cast<std::int64_t>(std::floor(cum + 0.5)));
        const std::int64_t take = std::clamp<std::int64_t>(upto - prev, 0, caps[i]);
        prev = std::max(prev, upto);
        c[i] = take;
        assigned += take;
      }
      // Floating-point slack: settle the last few units deterministically, in index order.
      std::int64_t diff = remaining - assigned;
      for (std::size_t i : active) {
        if (diff == 0) break;
        if (capped[i]) continue;
        if (diff > 0) {
          const std::int64_t add = std::min(diff, caps[i] - c[i]);
          c[i] += add;
          diff -= add;
        } else {
          const std::int64_t sub = std::min(-diff, c[i]);
          c[i] -= sub;
          diff += sub;
        }
      }
      remaining = diff;
    }
  }
  if (remaining > 0) {  // positive weights are full: spread the rest evenly over zero weights
    std::vector<double> w2(n, 0.0);
    std::vector<std::int64_t> caps2(n, 0);
    bool any = false;
    for (std::size_t i = 0; i < n; ++i)
      if (weights[i] == 0 && caps[i] > 0) {
        w2[i] = 1.0;
        caps2[i] = caps[i];
        any = true;
      }
    if (any) {
      const std::vector<std::int64_t> extra = apportion(w2, caps2, remaining);
      for (std::size_t i = 0; i < n; ++i) c[i] += extra[i];
    }
  }
  return c;
}

DistinctSampler::DistinctSampler(std::int64_t n) : n_(n), positive_(n) {
  FK_CHECK(n >= 0 && n <= INT32_MAX, "DistinctSampler: size " << n << " outside [0, 2^31)");
  mark_.assign(static_cast<std::size_t>(n), 0);
}

DistinctSampler::DistinctSampler(const std::vector<double>* weights, const AliasTable* table)
    : n_(static_cast<std::int64_t>(weights->size())), weights_(weights), table_(table) {
  FK_CHECK(n_ <= INT32_MAX, "DistinctSampler: size " << n_ << " exceeds 2^31");
  FK_CHECK(table->size() == n_, "DistinctSampler: alias table over "
                                    << table->size() << " entries but " << n_ << " weights");
  for (double w : *weights) positive_ += w > 0;
  mark_.assign(static_cast<std::size_t>(n_), 0);
}

void DistinctSampler::next_stamp() {
  if (++stamp_ == 0) {  // wrapped after 2^32 sets: clear the marks once
    std::fill(mark_.begin(), mark_.end(), 0u);
    stamp_ = 1;
  }
}

void DistinctSampler::sample(std::int64_t count, Rng& rng, std::vector<std::int32_t>& out) {
  out.clear();
  count = std::min(count, positive_);
  if (count <= 0) return;
  next_stamp();
  if (weights_ == nullptr)
    uniform_sample(count, n_, rng, out);
  else
    weighted_sample(count, rng, out);
}

void DistinctSampler::sample_below(std::int64_t count, std::int64_t limit, Rng& rng,
                                   std::vector<std::int32_t>& out) {
  FK_CHECK(weights_ == nullptr, "DistinctSampler::sample_below needs a uniform sampler");
  FK_CHECK(limit >= 0 && limit <= n_,
           "DistinctSampler::sample_below: limit " << limit << " outside [0, " << n_ << "]");
  out.clear();
  count = std::min(count, limit);
  if (count <= 0) return;
  next_stamp();
  uniform_sample(count, limit, rng, out);
}

void DistinctSampler::uniform_sample(std::int64_t count, std::int64_t limit, Rng& rng,
                                     std::vector<std::int32_t>& out) {
  out.reserve(static_cast<std::size_t>(count));
  if (count * 4 <= limit) {  // sparse: rejection costs at most 4/3 draws per element
    while (static_cast<std::int64_t>(out.size()) < count) {
      const auto x = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(limit)));
      if (mark_[x] == stamp_) continue;
      mark_[x] = stamp_;
      out.push_back(x);
    }
    std::sort(out.begin(), out.end());
    return;
  }
  // Dense: selection sampling (Knuth's algorithm S) walks the range once, output already sorted.
  std::int64_t need = count;
  for (std::int64_t i = 0; i < limit && need > 0; ++i) {
    if (static_cast<double>(limit - i) * rng.uniform() < static_cast<double>(need)) {
      out.push_back(static_cast<std::int32_t>(i));
      --need;
    }
  }
}

void DistinctSampler::weighted_sample(std::int64_t count, Rng& rng,
                                      std::vector<std::int32_t>& out) {
  const std::vector<double>& w = *weights_;
  out.reserve(static_cast<std::size_t>(count));
  if (count == positive_) {
    for (std::int64_t i = 0; i < n_; ++i)
      if (w[i] > 0) out.push_back(static_cast<std::int32_t>(i));
    return;
  }
  if (count * 2 > positive_) {
    finish_by_keys(count, rng, out);
  } else {
    // Rejection of repeats is exact sequential sampling without replacement. Under heavy skew the
    // already-drawn mass can make it slow, so after a budget of draws the rest is finished by
    // keys over the indices not drawn yet (the same distribution, conditioned on what was drawn).
    const std::int64_t budget = 4 * count + 64;
    std::int64_t draws = 0;
    while (static_cast<std::int64_t>(out.size()) < count) {
      if (++draws > budget) {
        finish_by_keys(count, rng, out);
        break;
      }
      const std::int64_t x = table_->sample(rng);
      if (mark_[x] == stamp_ || !(w[x] > 0)) continue;
      mark_[x] = stamp_;
      out.push_back(static_cast<std::int32_t>(x));
    }
  }
  std::sort(out.begin(), out.end());
}

void DistinctSampler::finish_by_keys(std::int64_t count, Rng& rng, std::vector<std::int32_t>& out) {
  // Efraimidis-Spirakis: with E_i ~ Exp(1), the indices of the smallest E_i / w_i, in increasing
  // order, are distributed as successive weighted draws without replacement.
  const std::vector<double>& w = *weights_;
  const auto need = static_cast<std::size_t>(count - static_cast<std::int64_t>(out.size()));
  keys_.clear();
  for (std::int64_t i = 0; i < n_; ++i) {
    if (mark_[i] == stamp_ || !(w[i] > 0)) continue;
    const double e = -std::log(1.0 - rng.uniform());  // 1 - U lies in (0, 1]
    keys_.emplace_back(e / w[i], static_cast<std::int32_t>(i));
  }
  if (need < keys_.size())
    std::nth_element(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(need), keys_.end());
  for (std::size_t j = 0; j < need && j < keys_.size(); ++j) {
    mark_[keys_[j].second] = stamp_;
    out.push_back(keys_[j].second);
  }
}

}  // namespace fk::gen::detail
