#include "apps/sfa/sfa_app.hpp"

#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/als/als_data.hpp"
#include "apps/als/als_model.hpp"
#include "apps/common/compare.hpp"
#include "apps/common/options.hpp"
#include "apps/common/output.hpp"
#include "apps/common/run.hpp"
#include "apps/sfa/sfa_options.hpp"
#include "apps/sfa/sfa_trainer.hpp"
#include "core/io/csv.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"

namespace fk::sfa {
namespace {

namespace po = boost::program_options;

constexpr const char* kSynopsis =
    "sparse factor analysis for recommendation (Canny, SIGIR 2002): every user's factors are the "
    "posterior mean under a shared loading matrix, found for all users at once by preconditioned "
    "conjugate gradient on SDDMM + SpMM kernels; the loadings follow the residual's gradient (or "
    "the EM M-step); on a GPU or on all CPU cores";
constexpr const char* kUsage =
    "fk-sfa --input PATH [options]                 train; PATH is a ratings file (MovieLens\n"
    "                                                u::i::r::t, CSV with a header, or u.data\n"
    "                                                'u i r t'), a Matrix Market users x items\n"
    "                                                file, or gen:NAME[:key=value,...] for\n"
    "                                                generated ratings (ml-100k, ml-20m, netflix;\n"
    "                                                keys: fk-datagen ratings' options, e.g.\n"
    "                                                gen:ml-100k:users=500,seed=2)\n"
    "  fk-sfa recommend --model DIR --users ID,...   top-N items per user, excluding what the\n"
    "                                                user rated (CSV on stdout and in --out; with\n"
    "                                                -q in --out only); --users-file FILE reads\n"
    "                                                the ids one per line\n"
    "  fk-sfa similar --model DIR --item ID          the items closest to an item (cosine of\n"
    "                                                the loadings)";

using app::fmt;

void print_summary(const TrainResult& r, const SfaOptions& opt, const als::AlsData& data) {
  std::vector<double> secs;
  for (const PassReport& it : r.iters) secs.push_back(it.seconds);
  std::cout << "[" << r.device << "] ";
  if (!secs.empty()) std::cout << "median time per pass " << fmt("%.4f", median(secs)) << " s; ";
  if (r.last) {
    std::cout << "train_rmse " << fmt("%.4f", r.last->train_rmse);
    if (r.last->test_rmse)
      std::cout << ", test_rmse " << fmt("%.4f", *r.last->test_rmse) << ", test_mae "
                << fmt("%.4f", *r.last->test_mae);
  }
  if (data.true_test_rmse)
    std::cout << " (generating model: test_rmse " << fmt("%.4f", *data.true_test_rmse) << ")";
  std::cout << "\n";
  if (data.unseen_test_ratings > 0)
    std::cout << "  " << data.unseen_test_users << " test users and " << data.unseen_test_items
              << " test items had no training rating (" << data.unseen_test_ratings
              << " test ratings; "
              // The prediction is μ + m_i + x_u·Λ_i. A user without training ratings has x_u = 0:
              // its item's (shrunk) mean. An item without them has m_i = 0 and Λ_i = 0 but for
              // the offset column of ones: the global mean plus the user's offset, if any.
              << "predicted as the item's mean for a user without training ratings, and as the "
                 "global mean"
              << (opt.no_user_offset ? "" : " plus the user's offset")
              << " for an item without them)\n";
  std::cout.flush();
}

// The run for the comparison (app::run_training sets the label).
app::RunRecord record(const TrainResult& r) {
  app::RunRecord rec;
  rec.device = r.device;
  for (const PassReport& it : r.iters) rec.iter_seconds.push_back(it.seconds);
  if (r.last) {
    if (r.last->test_rmse) rec.finals.emplace_back("test_rmse", *r.last->test_rmse);
    if (r.last->test_mae) rec.finals.emplace_back("test_mae", *r.last->test_mae);
    rec.finals.emplace_back("train_rmse", r.last->train_rmse);
    rec.finals.emplace_back("objective", r.last->objective);
  }
  return rec;
}

// `recommend` and `similar` read the model through fk-als's loader (the same files).
int recommend_main(int argc, char** argv, bool similar) {
  std::string model_dir, users_text, users_file, item;
  int n = 10;
  app::CommonDefaults defaults;
  defaults.out = similar ? "out/sfa-similar" : "out/sfa-recommend";
  defaults.not_applicable = app::kTrainingOnly;
  defaults.out_help = std::string("output directory (created when missing); ") +
                      (similar ? "similar.csv" : "recommendations.csv") + " is written there";
  app::CommandLine cli(
      similar ? "fk-sfa similar" : "fk-sfa recommend",
      similar ? "the items whose loadings are closest (cosine) to an item's"
              : "top-N items for given users under a saved fk-sfa model, excluding the items "
                "each user rated in training",
      similar ? "fk-sfa similar --model DIR --item ID [--n N] [--out DIR]"
              : "fk-sfa recommend --model DIR --users ID,ID,... | --users-file FILE [--n N] "
                "[--out DIR]",
      defaults);
  cli.app_options().add_options()  //
      ("model", po::value<std::string>(&model_dir)->value_name("DIR"),
       "the --out directory of a training run")  //
      ("n", po::value<int>(&n)->default_value(n)->value_name("N"), "items to list");
  if (similar)
    cli.app_options().add_options()("item", po::value<std::string>(&item)->value_name("ID"),
                                    "raw item id");
  else
    cli.app_options().add_options()  //
        ("users", po::value<std::string>(&users_text)->value_name("ID,..."), als::kUsersHelp)  //
        ("users-file", po::value<std::string>(&users_file)->value_name("FILE"),
         als::kUsersFileHelp);
  if (!cli.parse(argc, argv, 2)) return 0;
  const app::CommonOptions& common = cli.common();
  if (model_dir.empty())
    app::usage_fail("model", "is required: the --out directory of a training run");
  app::require_at_least("n", n, 1);
  cli.reject(app::kTrainingOnly, similar ? "similar" : "recommend");
  std::vector<app::GivenId> users;
  if (similar) {
    if (item.empty()) app::usage_fail("item", "is required: a raw item id");
  } else {
    users = app::id_list_and_file("users", users_text, users_file);
    if (users.empty())
      app::usage_fail("users",
                      "is required: one or more raw user ids, comma-separated (or --users-file "
                      "FILE, one id per line)");
  }
  const char* file = similar ? "similar.csv" : "recommendations.csv";
  // A --users-file by that name in --out was replaced by the list it asked for.
  if (!users_file.empty()) app::check_outputs_are_not_inputs(common.out, {file}, {users_file});
  app::check_no_directory_in_the_way(common.out, {file});  // before the work
  const als::AlsModel model = als::load_als_model(model_dir);
  std::vector<als::ScoredList> lists;
  if (similar) {
    lists.push_back(als::similar_for(model, item, model_dir, n));
  } else {
    lists = als::recommend_for(model, users, model_dir, n);
  }
  als::write_scored_lists(common.out, file,
                          similar
                              ? std::vector<std::string>{"item", "rank", "similar_item", "cosine"}
                              : std::vector<std::string>{"user", "rank", "item", "score"},
                          lists, model, common.quiet);
  return 0;
}

}  // namespace

int sfa_main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "recommend") return recommend_main(argc, argv, false);
  if (argc >= 2 && std::string(argv[1]) == "similar") return recommend_main(argc, argv, true);
  SfaOptions opt;
  app::CommonDefaults defaults;
  defaults.out = "out/sfa";
  defaults.out_help =
      "output directory (created when missing): user_factors.npy (X) and item_factors.npy "
      "(the loadings Λ; rows as in user_ids.csv and item_ids.csv, which map them to the raw "
      "ids), user_bias.npy (the user offsets; zeros with --no-user-offset), item_bias.npy (the "
      "item offsets: each item's shrunk mean minus the global mean), item_means.npy (the shrunk "
      "means on the ratings' scale), train_pairs.npy (the training ratings' user "
      "and item rows), model.ini (what recommend and similar read), metrics.jsonl (one line per "
      "pass), summary.json (the final numbers and the run's peak memory), config.ini and "
      "config.json (the resolved configuration: run again with --config OUT/config.ini)";
  defaults.formats = als::kRatingsFormats;
  defaults.subcommand_options = als::kScoringOptions;
  defaults.iters = 20;
  app::CommandLine cli("fk-sfa", kSynopsis, kUsage, defaults);
  add_sfa_options(cli, opt);
  if (!cli.parse(argc, argv)) return 0;
  finalize_sfa_options(cli, opt);
  const app::CommonOptions& common = cli.common();
  if (common.input.empty())
    app::usage_fail("input", "is required (a ratings file, or gen:ml-100k)");
  const app::ResolvedConfig config = cli.resolved(sfa_overrides(opt));
  app::check_training_out(cli);  // before the data load (run_training checks again)

  const als::AlsData data =
      als::prepare_als_data(data_options(opt), common.input, common.format, common.seed);

  app::run_training(cli, "pass", [&](Context ctx, const std::string& out, app::RunRole) {
    const TrainResult r = train_sfa(opt, common, data, std::move(ctx), out, config);
    if (!common.quiet) print_summary(r, opt, data);
    return record(r);
  });
  return 0;
}

}  // namespace fk::sfa
