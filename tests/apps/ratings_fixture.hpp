#pragma once
// The tiny ratings problem the ALS and SFA tests check against hand-computed and closed-form
// solutions: 3 users x 4 items, 8 ratings (every user and item has at least one).
#include "core/io/ratings.hpp"

namespace fk::test {

inline io::Ratings tiny_ratings() {
  io::Ratings r;
  r.user_ids = {"u0", "u1", "u2"};
  r.item_ids = {"i0", "i1", "i2", "i3"};
  const int users[] = {0, 0, 0, 1, 1, 2, 2, 2};
  const int items[] = {0, 1, 3, 0, 2, 1, 2, 3};
  const float vals[] = {5, 3, 1, 4, 2, 1, 5, 4};
  for (int j = 0; j < 8; ++j) {
    r.user.push_back(users[j]);
    r.item.push_back(items[j]);
    r.rating.push_back(vals[j]);
  }
  return r;
}

}  // namespace fk::test
