#include "core/generate/ratings.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>

#include "core/error.hpp"
#include "core/generate/presets.hpp"
#include "core/generate/sampling.hpp"
#include "core/memory.hpp"
#include "core/parallel_errors.hpp"
#include "core/progress.hpp"
#include "core/random.hpp"

namespace fk::gen {
namespace {

using detail::apportion;
using detail::DistinctSampler;
using detail::random_permutation;
using detail::zipf_weights;

// Stream layout under Rng(seed). Changing it changes every generated data set.
constexpr std::uint64_t kUserRankStream = 0, kItemRankStream = 1, kUserModelStream = 2,
                        kItemModelStream = 3, kUserDrawStream = 4;
constexpr std::int64_t kUserBlock = 256;  // users per parallel work item
constexpr std::int64_t kProgressRatings = 10000000;

// Model scales as fractions of the rating range (see the header).
constexpr double kMeanAt = 0.63, kBiasSd = 0.10, kInteractionSd = 0.15;

using Preset = NamedPreset<RatingsSpec>;

RatingsSpec make(std::int64_t users, std::int64_t items, std::int64_t ratings, double user_exp,
                 double item_exp, std::int64_t min_user) {
  RatingsSpec s;
  s.users = users;
  s.items = items;
  s.ratings = ratings;
  s.user_exponent = user_exp;
  s.item_exponent = item_exp;
  s.min_user_ratings = min_user;
  return s;
}

// Exponents set so the busiest user and the most rated item get about their real share
// (real / generated with seed 1): ml-100k 737 / 746 and 583 / 573 ratings; ml-20m 9,254 / 9,439
// and 67,310 / 68,053; netflix 17,653 / 17,584 and 232,944 / 212,294. A Zipf law by rank cannot
// also match the real long tail (users and items with a handful of ratings); the least active
// generated user has ~130 in netflix.
const Preset kPresets[] = {
    {"ml-100k", make(943, 1682, 100000, 0.38, 0.45, 20)},
    {"ml-20m", make(138493, 26744, 20000263, 0.41, 0.56, 20)},
    {"netflix", make(480189, 17770, 100480507, 0.375, 0.47, 1)},
};

}  // namespace

void check_spec_values(const RatingsSpec& s) {
  FK_REQUIRE(s.users >= 1 && s.users <= std::numeric_limits<std::int32_t>::max(),
             "ratings: users must be in [1, 2^31), got " << s.users);
  FK_REQUIRE(s.items >= 1 && s.items <= std::numeric_limits<std::int32_t>::max(),
             "ratings: items must be in [1, 2^31), got " << s.items);
  FK_REQUIRE(s.ratings >= 0, "ratings: ratings must be >= 0, got " << s.ratings);
  FK_REQUIRE(
      static_cast<double>(s.ratings) <= static_cast<double>(s.users) * static_cast<double>(s.items),
      "ratings: " << s.ratings << " ratings do not fit in " << s.users << " users x " << s.items
                  << " items without duplicates");
  FK_REQUIRE(s.min_user_ratings >= 0 && s.min_user_ratings <= s.items,
             "ratings: min-user-ratings must be in [0, items], got " << s.min_user_ratings);
  FK_REQUIRE(static_cast<double>(s.ratings) >=
                 static_cast<double>(s.users) * static_cast<double>(s.min_user_ratings),
             "ratings: " << s.ratings << " ratings are fewer than users x min-user-ratings = "
                         << s.users << " x " << s.min_user_ratings);
  FK_REQUIRE(s.rank >= 1 && s.rank <= 4096, "ratings: rank must be in [1, 4096], got " << s.rank);
  FK_REQUIRE(std::isfinite(s.noise) && s.noise >= 0,
             "ratings: noise must be >= 0, got " << s.noise);
  FK_REQUIRE(std::isfinite(s.user_exponent) && s.user_exponent >= 0 && s.user_exponent <= 5,
             "ratings: user-exponent must be in [0, 5], got " << s.user_exponent);
  FK_REQUIRE(std::isfinite(s.item_exponent) && s.item_exponent >= 0 && s.item_exponent <= 5,
             "ratings: item-exponent must be in [0, 5], got " << s.item_exponent);
  FK_REQUIRE(
      std::isfinite(s.min_rating) && std::isfinite(s.max_rating) && s.min_rating < s.max_rating,
      "ratings: need min-rating < max-rating, got " << s.min_rating << " and " << s.max_rating);
  FK_REQUIRE(std::isfinite(s.step) && s.step >= 0 && s.step <= s.max_rating - s.min_rating,
             "ratings: step must be in [0, max-rating - min-rating], got " << s.step);
}

namespace {

// The memory the ratings take, checked after their values.
void check_spec_memory(const RatingsSpec& s) {
  // Each rating's user, item and value (twice while they are ordered); per user and per item
  // the Zipf weights, ranks and counts or alias table (about 48 bytes), the true factors and bias
  // (4 x (rank + 1)) and the id string (about 40); per item and thread a sampler's mark.
  const double per_id = 88.0 + 4.0 * s.rank;
  const double bytes = 24.0 * static_cast<double>(s.ratings) +
                       per_id * (static_cast<double>(s.users) + 1) +
                       (per_id + 4.0 * omp_get_max_threads()) * static_cast<double>(s.items);
  FK_REQUIRE(fits_in_memory(bytes), "ratings: " << s.users << " users, " << s.items << " items and "
                                                << s.ratings << " ratings need "
                                                << memory_shortfall(bytes));
}

// Zipf weight of each id's (shuffled) rank.
std::vector<double> shuffled_zipf(std::int64_t n, double exponent, Rng rng) {
  const std::vector<std::int64_t> rank_of = random_permutation(n, rng);
  const std::vector<double> z = zipf_weights(n, exponent);
  std::vector<double> w(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[i] = z[rank_of[i]];
  return w;
}

// Bias then factors of one user or item, from its own stream.
void draw_model(Rng rng, double bias_sd, double factor_sd, float& bias, float* factors, int rank) {
  bias = static_cast<float>(bias_sd * rng.normal());
  for (int f = 0; f < rank; ++f) factors[f] = static_cast<float>(factor_sd * rng.normal());
}

}  // namespace

std::vector<std::string> ratings_preset_names() { return preset_names(kPresets); }

RatingsSpec ratings_preset(const std::string& name) {
  return find_preset(kPresets, name, "ratings");
}

GeneratedRatings generate_ratings(const RatingsSpec& spec) {
  check_spec_values(spec);
  check_spec_memory(spec);
  const std::int64_t U = spec.users, I = spec.items, N = spec.ratings;
  const int R = spec.rank;
  const Rng root(spec.seed);
  const double range = static_cast<double>(spec.max_rating) - spec.min_rating;

  // Per-user counts: min_user_ratings each, the rest shared by activity, capped at `items`.
  const std::vector<double> activity =
      shuffled_zipf(U, spec.user_exponent, root.split(kUserRankStream));
  const std::vector<double> popularity =
      shuffled_zipf(I, spec.item_exponent, root.split(kItemRankStream));
  const std::int64_t floor = spec.min_user_ratings;
  std::vector<std::int64_t> per_user = apportion(
      activity, std::vector<std::int64_t>(static_cast<std::size_t>(U), I - floor), N - U * floor);
  std::vector<std::int64_t> offset(static_cast<std::size_t>(U) + 1, 0);
  for (std::int64_t u = 0; u < U; ++u) offset[u + 1] = offset[u] + per_user[u] + floor;
  FK_CHECK(offset[U] == N, "ratings: internal error, apportioned " << offset[U] << " of " << N);
  std::vector<std::int64_t>().swap(per_user);

  // The true model.
  GeneratedRatings out;
  out.global_mean = static_cast<float>(spec.min_rating + kMeanAt * range);
  out.user_factors = HostDense<float>(U, R);
  out.item_factors = HostDense<float>(I, R);
  out.user_bias.assign(static_cast<std::size_t>(U), 0.f);
  out.item_bias.assign(static_cast<std::size_t>(I), 0.f);
  // Entries N(0, s^2) make p·q have variance rank * s^4.
  const double factor_sd = std::sqrt(kInteractionSd * range / std::sqrt(static_cast<double>(R)));
  const Rng user_model = root.split(kUserModelStream), item_model = root.split(kItemModelStream);
#pragma omp parallel for schedule(static)
  for (std::int64_t u = 0; u < U; ++u)
    draw_model(user_model.split(static_cast<std::uint64_t>(u)), kBiasSd * range, factor_sd,
               out.user_bias[u], out.user_factors.row(u), R);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < I; ++i)
    draw_model(item_model.split(static_cast<std::uint64_t>(i)), kBiasSd * range, factor_sd,
               out.item_bias[i], out.item_factors.row(i), R);

  // Observed pairs and their ratings, each user writing its own slice.
  io::Ratings& r = out.ratings;
  r.user.resize(static_cast<std::size_t>(N));
  r.item.resize(static_cast<std::size_t>(N));
  r.rating.resize(static_cast<std::size_t>(N));
  const AliasTable item_table(popularity);
  const Rng draw_root = root.split(kUserDrawStream);
  const std::int64_t nblocks = (U + kUserBlock - 1) / kUserBlock;
  std::optional<Progress> progress;
  if (N >= kProgressRatings) progress.emplace("generating ratings", N);
  std::atomic<std::int64_t> done{0};
  ParallelErrors errors;
  const double lo = spec.min_rating, hi = spec.max_rating, step = spec.step, mu = out.global_mean;
#pragma omp parallel
  {
    std::optional<DistinctSampler> sampler;
    errors.run([&] { sampler.emplace(&popularity, &item_table); });
    std::vector<std::int32_t> items;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < nblocks; ++b) {
      errors.run(b, [&] {
        const std::int64_t u0 = b * kUserBlock, u1 = std::min(U, u0 + kUserBlock);
        for (std::int64_t u = u0; u < u1; ++u) {
          Rng rng = draw_root.split(static_cast<std::uint64_t>(u));
          const std::int64_t n = offset[u + 1] - offset[u];
          sampler->sample(n, rng, items);
          FK_CHECK(static_cast<std::int64_t>(items.size()) == n,
                   "ratings: internal error, drew " << items.size() << " of " << n << " items");
          const float* pu = out.user_factors.row(u);
          const double bu = out.user_bias[u];
          for (std::int64_t j = 0; j < n; ++j) {
            const std::int32_t i = items[j];
            const float* qi = out.item_factors.row(i);
            double dot = 0;
            for (int f = 0; f < R; ++f) dot += static_cast<double>(pu[f]) * qi[f];
            double v = mu + bu + out.item_bias[i] + dot + spec.noise * rng.normal();
            if (step > 0) v = lo + std::round((v - lo) / step) * step;
            v = std::clamp(v, lo, hi);
            const std::int64_t at = offset[u] + j;
            r.user[at] = static_cast<std::int32_t>(u);
            r.item[at] = i;
            r.rating[at] = static_cast<float>(v);
          }
        }
        const std::int64_t now = done += offset[u1] - offset[u0];
        if (progress && omp_get_thread_num() == 0) progress->update(now);
      });
    }
  }
  errors.rethrow();
  if (progress) progress->finish();

  r.user_ids.reserve(static_cast<std::size_t>(U));
  for (std::int64_t u = 0; u < U; ++u) r.user_ids.push_back(std::to_string(u + 1));
  r.item_ids.reserve(static_cast<std::size_t>(I));
  for (std::int64_t i = 0; i < I; ++i) r.item_ids.push_back(std::to_string(i + 1));
  return out;
}

}  // namespace fk::gen
