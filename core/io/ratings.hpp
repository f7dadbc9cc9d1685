#pragma once
// Ratings files: MovieLens "user::item::rating::timestamp" (ratings.dat), CSV with a header line
// (userId,movieId,rating[,timestamp]), or tab/space separated "user item rating [timestamp]"
// (u.data); plain or gzip. The first non-blank line fixes the dialect ("::" present -> MovieLens,
// a comma -> CSV, else blanks) and the field count (3 or 4) every line must have; a CSV's first
// line is its header when its rating column is not a number (a headerless CSV also reads).
// Raw ids are arbitrary tokens (any length; CSV quoting is undone) mapped to dense indices in
// order of first appearance; the maps are kept so outputs can use the raw ids. Ratings must be
// finite numbers that fit a float (negative ratings are allowed: some scales, e.g. Jester's, have
// them); a timestamp, when present, must be an integer. A repeated (user, item) pair, an empty id,
// a wrong field count, or a file without ratings is one fk::InputError "file:line: what".
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/csr.hpp"

namespace fk::io {

struct Ratings {
  std::vector<std::int32_t> user;  // dense user index per rating
  std::vector<std::int32_t> item;  // dense item index per rating
  std::vector<float> rating;
  std::vector<std::string> user_ids;  // raw id of each dense user index
  std::vector<std::string> item_ids;  // raw id of each dense item index

  std::int64_t size() const { return static_cast<std::int64_t>(rating.size()); }
  std::int64_t users() const { return static_cast<std::int64_t>(user_ids.size()); }
  std::int64_t items() const { return static_cast<std::int64_t>(item_ids.size()); }
  // users x items CSR of the ratings (in file order within a user).
  HostCsr to_csr() const;
};

// A check of each rating as it is read: what is wrong with it, or "" (the reader then fails with
// the file, the line and that text).
using RatingCheck = std::function<std::string(float rating)>;

Ratings read_ratings(const std::string& path, const RatingCheck& check = {});
// CSV "user,item,rating" with a header, raw ids (atomically).
void write_ratings_csv(const std::string& path, const Ratings& r);

}  // namespace fk::io
