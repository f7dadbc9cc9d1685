#pragma once
// Seeded ratings from a low-rank model plus noise, with power-law user and item activity:
// r_ui = clip(round_to_step(μ + b_u + b_i + p_u·q_i + ε)), observed pairs drawn with probability
// proportional to activity_u * popularity_i (both Zipf-like), no duplicate pairs.
//
// How: each user's rating count is the Zipf share of the total (at least min_user_ratings, at
// most `items`, summing exactly to `ratings`); the user's items are then drawn without
// replacement with probability proportional to item popularity. Zipf ranks are shuffled over the
// ids. μ sits at 63% of the rating range (MovieLens' mean 3.53 on 1-5), biases have a standard
// deviation of 10% of the range, and p_u·q_i one of 15% of the range. Deterministic for a given
// spec on any machine and any thread count (each user and item has its own random stream).
#include <cstdint>
#include <string>
#include <vector>

#include "core/dense.hpp"
#include "core/io/ratings.hpp"

namespace fk::gen {

// The member defaults are the "ml-100k" preset.
struct RatingsSpec {
  std::int64_t users = 943;
  std::int64_t items = 1682;
  std::int64_t ratings = 100000;
  int rank = 10;
  double noise = 0.5;                              // std of ε, in rating units
  double user_exponent = 0.38;                     // Zipf exponent of user activity by rank
  double item_exponent = 0.45;                     // Zipf exponent of item popularity by rank
  float min_rating = 1, max_rating = 5, step = 1;  // step 0 keeps real values
  std::int64_t min_user_ratings = 20;  // every user rates at least this many (MovieLens: 20)
  std::uint64_t seed = 1;
};

// Throws fk::Error naming the first value of `spec` out of range (not the memory it needs,
// which the generator checks as well): the apps make it a usage error of their gen: input.
void check_spec_values(const RatingsSpec& spec);

// Presets: "ml-100k" (943 x 1,682, 100,000), "ml-20m" (138,493 x 26,744, 20,000,263),
// "netflix" (480,189 x 17,770, 100,480,507; about 5 s and 1.3 GB on 2 cores). Exponents chosen so
// the busiest user and the most rated item hold about the share they do in the real data. Throws
// fk::Error listing the names otherwise.
RatingsSpec ratings_preset(const std::string& name);
std::vector<std::string> ratings_preset_names();

struct GeneratedRatings {
  // Ordered by user, items ascending within a user; raw ids are the decimal dense indices + 1
  // (user_ids[u] == std::to_string(u + 1)). Users rate at least min_user_ratings items each (so
  // with min_user_ratings >= 1 a CSV round trip keeps the user indices).
  io::Ratings ratings;
  HostDense<float> user_factors;  // users x rank (true model p_u)
  HostDense<float> item_factors;  // items x rank (true model q_i)
  float global_mean = 0;          // μ
  std::vector<float> user_bias;   // users entries (b_u)
  std::vector<float> item_bias;   // items entries (b_i)
};

// Throws fk::Error naming the field for a spec out of range (including ratings > users * items
// or < users * min_user_ratings). Uses OpenMP's thread count; the result does not depend on it.
// Logs progress lines above ~10M ratings.
GeneratedRatings generate_ratings(const RatingsSpec& spec);

}  // namespace fk::gen
