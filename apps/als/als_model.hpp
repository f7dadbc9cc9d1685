#pragma once
// A trained fk-als model on disk (the --out directory of a training run) and what is done with
// it: top-N recommendations for a user and the items closest to an item.
//
// Files: user_factors.npy (users x F), item_factors.npy (items x F), user_bias.npy and
// item_bias.npy (zeros without --biases), user_ids.csv and item_ids.csv ("index,id": model index
// and raw id), train_pairs.npy (training ratings x 2 int32: user index, item index; what
// `recommend` excludes), model.ini (app, factors, biases, implicit, global_mean, users, items).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "apps/common/options.hpp"
#include "core/csr.hpp"
#include "core/dense.hpp"

namespace fk::als {

struct AlsModel {
  HostDense<float> users;  // users x F
  HostDense<float> items;  // items x F
  std::vector<float> user_bias, item_bias;
  double global_mean = 0;  // μ (0 in implicit mode)
  bool implicit = false, biases = false;
  std::vector<std::string> user_ids, item_ids;
  HostCsr rated;  // users x items pattern of the training ratings (no values), columns sorted

  std::int64_t user_count() const { return users.rows(); }
  std::int64_t item_count() const { return items.rows(); }
  // Model index of a raw item id as typed, else without the blanks at its ends, or -1.
  std::int64_t item_index(const std::string& raw) const;
  // The score ranking uses: μ + b_u + b_i + p·q (explicit), p·q (implicit).
  float score(std::int64_t user, std::int64_t item) const;
};

// The files a training run of fk-als writes in its --out folder: the model's (above) and the run's
// (metrics.jsonl, summary.json, config.ini/json); fk-sfa writes item_means.npy besides.
inline std::vector<std::string> als_run_files() {
  return {"user_factors.npy", "item_factors.npy", "user_bias.npy",   "item_bias.npy",
          "user_ids.csv",     "item_ids.csv",     "train_pairs.npy", "model.ini",
          "summary.json",     "metrics.jsonl",    "config.ini",      "config.json"};
}

// Splits augmented factors (rows x (F + 1) with the bias last when `biases`) and writes every file;
// model.ini names `app_name`, the app that trained it (fk-sfa saves its model in this form too), in
// its first line and its `app` key (app::model_app reads it).
void save_als_model(const std::string& dir, const HostDense<float>& users_aug,
                    const HostDense<float>& items_aug, int factors, bool biases, bool implicit,
                    double global_mean, const std::vector<std::string>& user_ids,
                    const std::vector<std::string>& item_ids, const HostCsr& train,
                    const std::string& app_name = "fk-als");

// Reads a saved model; InputError naming the file for anything missing or inconsistent.
AlsModel load_als_model(const std::string& dir);

struct Scored {
  std::int64_t index = 0;  // item index
  float score = 0;
};

// The n best-scored items for `user` among those the user did not rate in training, best first
// (ties: lower index first).
std::vector<Scored> recommend(const AlsModel& m, std::int64_t user, int n);

// The n items with the highest cosine similarity of their factors to `item`'s, excluding the item
// itself and items with all-zero factors (never trained). Empty when `item` has zero factors.
std::vector<Scored> similar_items(const AlsModel& m, std::int64_t item, int n);

// One ranked list of the recommend/similar outputs: whom it is for (a raw user or item id) and
// its items, best first.
using ScoredList = std::pair<std::string, std::vector<Scored>>;

// The options of recommend and similar (fk-als and fk-sfa), for the training command's hint when
// one is given to it (CommonDefaults::subcommand_options).
inline const std::vector<std::pair<std::string, std::string>> kScoringOptions = {
    {"model", "recommend"},
    {"users", "recommend"},
    {"users-file", "recommend"},
    {"item", "similar"},
    {"n", "recommend"}};

// recommend's --users and --users-file help (fk-als and fk-sfa).
inline constexpr const char* kUsersHelp =
    "raw user ids, comma-separated, blanks around each dropped (an id that holds a comma, as a "
    "quoted CSV field of the ratings can: use --users-file)";
inline constexpr const char* kUsersFileHelp =
    "raw user ids, one per line, each as in the ratings file (commas and blanks inside are part "
    "of the id; an id the model lacks is looked up again without the blanks at its ends); with "
    "--users, both lists are used";

// The recommend lists of the `users` a user gave (fk-als/fk-sfa recommend): a UsageError naming
// the option and file line of an id that is not in the model (saved in `model_dir`). A user
// without training ratings is warned about; its list ranks the items by their biases, or is empty
// in a model without biases (where every item scores alike).
std::vector<ScoredList> recommend_for(const AlsModel& m, const std::vector<app::GivenId>& users,
                                      const std::string& model_dir, int n);

// The similar list of the `item` a user gave (fk-als/fk-sfa similar), warning when the item has
// none; a UsageError naming --item when it is not in the model.
ScoredList similar_for(const AlsModel& m, const std::string& item, const std::string& model_dir,
                       int n);

// Creates `dir` and writes `dir`/`file` as CSV: `header` (four names), then for every list and
// rank: whom it is for, the rank from 1, the item's raw id and the score as %.6g. Unless `quiet`,
// prints the same lines to stdout.
void write_scored_lists(const std::string& dir, const std::string& file,
                        const std::vector<std::string>& header,
                        const std::vector<ScoredList>& lists, const AlsModel& model, bool quiet);

}  // namespace fk::als
