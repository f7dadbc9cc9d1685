#include "apps/als/als_app.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/als/als_data.hpp"
#include "apps/als/als_model.hpp"
#include "apps/als/als_options.hpp"
#include "apps/als/als_trainer.hpp"
#include "apps/common/compare.hpp"
#include "apps/common/options.hpp"
#include "apps/common/output.hpp"
#include "apps/common/run.hpp"
#include "core/io/csv.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"

namespace fk::als {
namespace {

namespace po = boost::program_options;

constexpr const char* kSynopsis =
    "matrix factorization for recommendation by alternating least squares (weighted-λ, optional "
    "biases, or implicit feedback), every half-step solved for all rows at once by conjugate "
    "gradient on SDDMM + SpMM kernels, on a GPU or on all CPU cores";
constexpr const char* kUsage =
    "fk-als --input PATH [options]                 train; PATH is a ratings file (MovieLens\n"
    "                                                u::i::r::t, CSV with a header, or u.data\n"
    "                                                'u i r t'), a Matrix Market users x items\n"
    "                                                file, or gen:NAME[:key=value,...] for "
    "generated\n"
    "                                                ratings (ml-100k, ml-20m, netflix; keys:\n"
    "                                                fk-datagen ratings' options, e.g.\n"
    "                                                gen:ml-100k:users=500,seed=2)\n"
    "  fk-als recommend --model DIR --users ID,...   top-N items per user, excluding what the "
    "user\n"
    "                                                rated (CSV on stdout and in --out; with -q\n"
    "                                                in --out only); --users-file FILE reads the\n"
    "                                                ids one per line\n"
    "  fk-als similar --model DIR --item ID          the items closest to an item (cosine of the\n"
    "                                                factors)";

using app::fmt;

void print_summary(const TrainResult& r, const AlsOptions& opt, const AlsData& data) {
  std::vector<double> secs;
  for (const IterReport& it : r.iters) secs.push_back(it.seconds);
  std::cout << "[" << r.device << "] ";
  if (!secs.empty())
    std::cout << "median time per iteration " << fmt("%.4f", median(secs)) << " s; ";
  if (r.last) {
    if (r.last->train_rmse) std::cout << "train_rmse " << fmt("%.4f", *r.last->train_rmse);
    if (r.last->test_rmse)
      std::cout << ", test_rmse " << fmt("%.4f", *r.last->test_rmse) << ", test_mae "
                << fmt("%.4f", *r.last->test_mae);
    if (r.last->precision_at_k)
      std::cout << "precision@" << opt.k << " " << fmt("%.4f", *r.last->precision_at_k) << ", map@"
                << opt.k << " " << fmt("%.4f", *r.last->map_at_k) << ", ndcg@" << opt.k << " "
                << fmt("%.4f", *r.last->ndcg_at_k) << " over " << r.ranking_users << " test users";
  }
  if (data.true_test_rmse && !opt.implicit)  // beside an RMSE only: implicit prints rankings
    std::cout << " (generating model: test_rmse " << fmt("%.4f", *data.true_test_rmse) << ")";
  std::cout << "\n";
  if (data.unseen_test_ratings > 0)
    std::cout << "  " << data.unseen_test_users << " test users and " << data.unseen_test_items
              << " test items had no training rating (" << data.unseen_test_ratings
              << " test ratings; "
              << (opt.implicit ? "such users are left out of the ranking metrics, such items "
                                 "count as misses"
                               : "predicted from the global mean and known biases")
              << ")\n";
  std::cout.flush();
}

// The run for the comparison (app::run_training sets the label).
app::RunRecord record(const TrainResult& r) {
  app::RunRecord rec;
  rec.device = r.device;
  for (const IterReport& it : r.iters) rec.iter_seconds.push_back(it.seconds);
  if (r.last) {
    if (r.last->test_rmse) rec.finals.emplace_back("test_rmse", *r.last->test_rmse);
    if (r.last->test_mae) rec.finals.emplace_back("test_mae", *r.last->test_mae);
    if (r.last->train_rmse) rec.finals.emplace_back("train_rmse", *r.last->train_rmse);
    if (r.last->precision_at_k) rec.finals.emplace_back("precision_at_k", *r.last->precision_at_k);
    if (r.last->map_at_k) rec.finals.emplace_back("map_at_k", *r.last->map_at_k);
    if (r.last->ndcg_at_k) rec.finals.emplace_back("ndcg_at_k", *r.last->ndcg_at_k);
    rec.finals.emplace_back("objective", r.last->objective);
  }
  return rec;
}

int recommend_main(int argc, char** argv) {
  std::string model_dir, users_text, users_file;
  int n = 10;
  app::CommonDefaults defaults;
  defaults.out = "out/als-recommend";
  defaults.not_applicable = app::kTrainingOnly;
  defaults.out_help = "output directory (created when missing); recommendations.csv is written there";
  app::CommandLine cli(
      "fk-als recommend",
      "top-N items for given users under a saved fk-als model, excluding the items each user "
      "rated in training",
      "fk-als recommend --model DIR --users ID,ID,... | --users-file FILE [--n N] [--out DIR]",
      defaults);
  cli.app_options().add_options()  //
      ("model", po::value<std::string>(&model_dir)->value_name("DIR"),
       "the --out directory of a training run")  //
      ("users", po::value<std::string>(&users_text)->value_name("ID,..."), kUsersHelp)  //
      ("users-file", po::value<std::string>(&users_file)->value_name("FILE"), kUsersFileHelp)  //
      ("n", po::value<int>(&n)->default_value(n)->value_name("N"), "items per user");
  if (!cli.parse(argc, argv, 2)) return 0;
  const app::CommonOptions& common = cli.common();
  if (model_dir.empty())
    app::usage_fail("model", "is required: the --out directory of a training run");
  const std::vector<app::GivenId> users = app::id_list_and_file("users", users_text, users_file);
  if (users.empty())
    app::usage_fail("users",
                    "is required: one or more raw user ids, comma-separated (or --users-file FILE, "
                    "one id per line)");
  app::require_at_least("n", n, 1);
  cli.reject(app::kTrainingOnly, "recommend");
  // A --users-file by that name in --out was replaced by the list it asked for.
  if (!users_file.empty()) app::check_outputs_are_not_inputs(common.out, {"recommendations.csv"}, {users_file});
  app::check_no_directory_in_the_way(common.out, {"recommendations.csv"});  // before the work
  const AlsModel model = load_als_model(model_dir);
  const std::vector<ScoredList> lists = recommend_for(model, users, model_dir, n);
  write_scored_lists(common.out, "recommendations.csv", {"user", "rank", "item", "score"}, lists,
                     model, common.quiet);
  return 0;
}

int similar_main(int argc, char** argv) {
  std::string model_dir, item;
  int n = 10;
  app::CommonDefaults defaults;
  defaults.out = "out/als-similar";
  defaults.not_applicable = app::kTrainingOnly;
  defaults.out_help = "output directory (created when missing); similar.csv is written there";
  app::CommandLine cli("fk-als similar",
                       "the items whose factors are closest (cosine) to an item's",
                       "fk-als similar --model DIR --item ID [--n N] [--out DIR]", defaults);
  cli.app_options().add_options()  //
      ("model", po::value<std::string>(&model_dir)->value_name("DIR"),
       "the --out directory of a training run")                                 //
      ("item", po::value<std::string>(&item)->value_name("ID"), "raw item id")  //
      ("n", po::value<int>(&n)->default_value(n)->value_name("N"), "items to list");
  if (!cli.parse(argc, argv, 2)) return 0;
  const app::CommonOptions& common = cli.common();
  if (model_dir.empty())
    app::usage_fail("model", "is required: the --out directory of a training run");
  if (item.empty()) app::usage_fail("item", "is required: a raw item id");
  app::require_at_least("n", n, 1);
  cli.reject(app::kTrainingOnly, "similar");
  app::check_no_directory_in_the_way(common.out, {"similar.csv"});  // before the work
  const AlsModel model = load_als_model(model_dir);
  write_scored_lists(common.out, "similar.csv", {"item", "rank", "similar_item", "cosine"},
                     {similar_for(model, item, model_dir, n)}, model, common.quiet);
  return 0;
}

}  // namespace

int als_main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "recommend") return recommend_main(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "similar") return similar_main(argc, argv);
  AlsOptions opt;
  app::CommonDefaults defaults;
  defaults.out = "out/als";
  defaults.out_help =
      "output directory (created when missing): user_factors.npy and item_factors.npy (rows as "
      "in user_ids.csv and item_ids.csv, which map them to the raw ids), user_bias.npy and "
      "item_bias.npy (zeros without --biases), train_pairs.npy (the training ratings' user and "
      "item rows), model.ini (what recommend and similar read), metrics.jsonl (one line per "
      "iteration), summary.json (the final numbers and the run's peak memory), config.ini and "
      "config.json (the resolved configuration: run again with --config OUT/config.ini)";
  defaults.formats = kRatingsFormats;
  defaults.subcommand_options = kScoringOptions;
  defaults.iters = 10;
  app::CommandLine cli("fk-als", kSynopsis, kUsage, defaults);
  add_als_options(cli, opt);
  if (!cli.parse(argc, argv)) return 0;
  finalize_als_options(cli, opt);
  const app::CommonOptions& common = cli.common();
  if (common.input.empty())
    app::usage_fail("input", "is required (a ratings file, or gen:ml-100k)");
  const app::ResolvedConfig config = cli.resolved(als_overrides(opt));
  app::check_training_out(cli);  // before the data load (run_training checks again)

  const AlsData data = prepare_als_data(opt, common.input, common.format, common.seed);

  app::run_training(cli, "iter", [&](Context ctx, const std::string& out, app::RunRole) {
    const TrainResult r = train_als(opt, common, data, std::move(ctx), out, config);
    if (!common.quiet) print_summary(r, opt, data);
    return record(r);
  });
  return 0;
}

}  // namespace fk::als
