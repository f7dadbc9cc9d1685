#pragma once
// Seeded ratings from a low-rank model plus noise, with power-law user and item activity:
// r_ui = clip(round_to_step(μ + b_u + b_i + p_u·q_i + ε)), observed pairs drawn with probability
// proportional to activity_u * popularity_i (both Zipf-like), no duplicate pairs.
#include <cstdint>
#include <string>
#include <vector>

#include "core/dense.hpp"
#include "core/io/ratings.hpp"

namespace fk::gen {

struct RatingsSpec {
  std::int64_t users = 943;
  std::int64_t items = 1682;
  std::int64_t ratings = 100000;
  int rank = 10;
  double noise = 0.5;            // std of ε
  double user_exponent = 0.8;    // power-law of user activity
  double item_exponent = 0.9;    // power-law of item popularity
  float min_rating = 1, max_rating = 5, step = 1;  // step 0 keeps real values
  std::uint64_t seed = 1;
};

// Presets: "ml-100k" (943 x 1,682, 100K), "ml-20m" (138,493 x 26,744, 20M),
// "netflix" (480,189 x 17,770, 100M).
RatingsSpec ratings_preset(const std::string& name);
std::vector<std::string> ratings_preset_names();

struct GeneratedRatings {
  io::Ratings ratings;          // raw ids are the decimal dense indices + 1
  HostDense<float> user_factors;  // users x rank (true model)
  HostDense<float> item_factors;  // items x rank
};

GeneratedRatings generate_ratings(const RatingsSpec& spec);

}  // namespace fk::gen
