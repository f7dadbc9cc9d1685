#pragma once
// fk-als input: ratings from any format core/io reads (or a seeded generator), the train/test
// split, and the matrices the trainer needs. Built once and shared by both runs of --compare.
//
// Index space: every raw user and item id that appears in the input (or in --test FILE) gets a
// model index. A user or item with no training rating keeps all-zero factors and biases, so its
// test ratings are predicted from the global mean plus whatever bias is known (the item's for an
// unseen user, and so on); they count in test_rmse and are reported separately.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/als/als_options.hpp"
#include "core/csr.hpp"
#include "core/io/format.hpp"
#include "core/io/ratings.hpp"

namespace fk::als {

struct AlsData {
  std::string source;                 // what was read, for the log
  std::vector<std::string> user_ids;  // raw id of each model user index
  std::vector<std::string> item_ids;  // raw id of each model item index
  HostCsr train;           // users x items, training ratings, columns sorted within a row
  HostCsr train_t;         // items x users, the transpose (the item half-step's pattern)
  HostCsr test;            // users x items, test ratings (nnz 0 when there is no test set)
  double global_mean = 0;  // μ of the training ratings
  float rating_min = 0, rating_max = 0;  // range of the training ratings
  // Test users / items / ratings whose user or item has no training rating.
  std::int64_t unseen_test_users = 0, unseen_test_items = 0, unseen_test_ratings = 0;
  // Generated input: the RMSE of the generating model (μ + b_u + b_i + p_u·q_i, noise-free) on
  // the training and test ratings: the floor a fitted model can reach.
  std::optional<double> true_train_rmse, true_test_rmse;

  std::int64_t users() const { return static_cast<std::int64_t>(user_ids.size()); }
  std::int64_t items() const { return static_cast<std::int64_t>(item_ids.size()); }
};

// Ratings from PATH: "gen:NAME[:key=value,...]" (fk::gen presets ml-100k, ml-20m, netflix; keys
// as fk-datagen ratings' options), a ratings file (MovieLens "::", CSV with header, whitespace
// "u i r [t]"), or a Matrix Market users x items file (raw ids are the 1-based indices). `truth`
// receives the generating model's prediction per rating for generated input. `check` vets each
// rating read from a file (InputError naming the line, or the Matrix Market entry). Throws
// InputError for unreadable files, app::UsageError for a bad gen: spec.
// The --format values load_ratings reads (the apps' help lists them).
inline const std::vector<std::string> kRatingsFormats = {"ratings", "mtx"};

io::Ratings load_ratings(const std::string& path, io::InputFormat format,
                         std::vector<float>* truth = nullptr, const io::RatingCheck& check = {});

// Reads --input (and --test), splits as the options say (seeded by common.seed), builds the
// matrices. Implicit mode requires ratings >= 0. Logs one line about the data.
AlsData prepare_als_data(const AlsOptions& opt, const std::string& input, io::InputFormat format,
                         std::uint64_t seed);

// Builds AlsData from ratings already in memory: `is_test[j]` puts rating j in the test set
// (empty: no test set). `truth` (optional, one per rating) gives the true-model RMSEs.
AlsData build_als_data(const io::Ratings& r, const std::vector<char>& is_test,
                       const std::vector<float>* truth = nullptr);

// The split masks (exposed for tests): exactly round(frac * n) ratings chosen uniformly at random;
// and per user with more than k ratings, k chosen at random.
std::vector<char> holdout_mask(std::int64_t n, double frac, std::uint64_t seed);
std::vector<char> leave_k_out_mask(const io::Ratings& r, int k, std::uint64_t seed);

}  // namespace fk::als
