#include "apps/gap/gap_app.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "apps/common/compare.hpp"
#include "apps/common/options.hpp"
#include "apps/common/output.hpp"
#include "apps/common/run.hpp"
#include "apps/gap/gap_data.hpp"
#include "apps/gap/gap_options.hpp"
#include "apps/gap/gap_trainer.hpp"
#include "apps/lda/corpus.hpp"
#include "apps/lda/lda_trainer.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"

namespace fk::gap {
namespace {

constexpr const char* kSynopsis =
    "Gamma-Poisson factorization (GaP, Canny 2004) of a count matrix F ~ Poisson(ΛX) with a "
    "Gamma(a, b) prior on X, by its EM iteration on SDDMM + SpMM kernels, on a GPU or on all CPU "
    "cores";
constexpr const char* kUsage =
    "fk-gap --input PATH [options]   PATH is a UCI docword.X.txt[.gz] (vocab.X.txt beside it is\n"
    "                                  used), a Matrix Market documents x words file, plain text\n"
    "                                  (one document per line), a ratings file (users x items,\n"
    "                                  ratings taken as counts), or gen:NAME[:key=value,...] for "
    "a\n"
    "                                  generated corpus (default, kos, nips, nytimes; keys:\n"
    "                                  fk-datagen lda's options, e.g. gen:kos:docs=500,seed=2)";

using app::fmt;

void print_summary(const TrainResult& r, const GapOptions& opt, const GapData& data,
                   bool show_factors) {
  std::vector<double> secs;
  for (const IterReport& it : r.iters) secs.push_back(it.seconds);
  std::cout << "[" << r.device << "] ";
  if (!secs.empty())
    std::cout << "median time per iteration " << fmt("%.4f", median(secs)) << " s; ";
  if (r.last) {
    std::cout << "train_ll " << fmt("%.4f", r.last->train_ll);
    if (r.last->heldout_ll) std::cout << ", heldout_ll " << fmt("%.4f", *r.last->heldout_ll);
    std::cout << " per token; objective " << fmt("%.8g", r.last->objective);
  }
  std::cout << "\n";
  if (data.unigram_heldout_ll) {
    std::cout << "  unigram baseline: heldout_ll " << fmt("%.4f", *data.unigram_heldout_ll)
              << " per token";
    if (r.last && r.last->heldout_ll)
      std::cout << " (GaP minus unigram: "
                << fmt("%+.4f", *r.last->heldout_ll - *data.unigram_heldout_ll)
                << " nats per token)";
    std::cout << "\n";
  }
  if (r.coherence)
    std::cout << "  topic coherence (top " << r.coherence->words
              << " words, training counts): " << lda::coherence_scores(*r.coherence) << "\n";
  if (show_factors && opt.top_words > 0) {
    const std::vector<std::vector<std::string>> words =
        lda::top_words(r.lambda, std::min(opt.top_words, 10), data.vocab);
    for (std::size_t k = 0; k < std::min<std::size_t>(words.size(), 5); ++k) {
      std::cout << "  factor " << k << ":";
      for (const std::string& w : words[k]) std::cout << ' ' << w;
      std::cout << "\n";
    }
  }
  std::cout.flush();
}

// The run for the comparison (app::run_training sets the label).
app::RunRecord record(const TrainResult& r) {
  app::RunRecord rec;
  rec.device = r.device;
  for (const IterReport& it : r.iters) rec.iter_seconds.push_back(it.seconds);
  if (r.last) {
    if (r.last->heldout_ll) rec.finals.emplace_back("heldout_ll", *r.last->heldout_ll);
    rec.finals.emplace_back("train_ll", r.last->train_ll);
    rec.finals.emplace_back("objective", r.last->objective);
  }
  if (r.coherence) {
    rec.finals.emplace_back("topic coherence, UMass", r.coherence->mean_umass);
    rec.finals.emplace_back("topic coherence, NPMI", r.coherence->mean_npmi);
  }
  return rec;
}

}  // namespace

int gap_main(int argc, char** argv) {
  GapOptions opt;
  app::CommonDefaults defaults;
  defaults.out = "out/gap";
  defaults.out_help =
      std::string(
          "output directory (created when missing): lambda.npy (words x factors, each column a "
          "distribution over the words), x.npy (documents x factors, the MAP X), top_words.txt "
          "(each factor's most probable words, to read) and top_words.csv (the same with their "
          "probabilities, one row per word: for programs), coherence.csv, vocab.txt (the words, "
          "or a ratings file's item ids, in lambda.npy's row order; ") +
      lda::kUnnamedWordsHelp +
      "), doc_ids.txt (a ratings file's user ids in x.npy's row order: the order users first "
      "appear; other inputs' rows are their documents in input order), heldout.mtx (with "
      "--holdout-frac: the thinned held-out tokens heldout_ll scores, documents x words in x.npy's "
      "and lambda.npy's row orders: for ratings, row i and column j are line i of doc_ids.txt and "
      "line j of vocab.txt, not the file's user and item ids; the input less them and summary.json's unscored_tokens, held out from words or documents left "
      "without training tokens, was trained on), model.ini, metrics.jsonl "
      "(one line per iteration), "
      "summary.json (the final numbers and the run's peak memory), config.ini and config.json "
      "(the resolved configuration: run again with --config OUT/config.ini)";
  defaults.formats = lda::kCorpusFormats;
  defaults.formats.push_back("ratings");  // read as counts (gap_data.cpp)
  defaults.iters = 50;
  app::CommandLine cli("fk-gap", kSynopsis, kUsage, defaults);
  add_gap_options(cli, opt);
  if (!cli.parse(argc, argv)) return 0;
  finalize_gap_options(cli, opt);
  const app::CommonOptions& common = cli.common();
  if (common.input.empty())
    app::usage_fail("input", "is required (a count matrix file, or gen:default)");
  // The text filters went unused without a word for a count matrix (UCI, Matrix Market, ratings,
  // gen:), whose columns are kept as given: refused as fk-lda refuses them. A config file's value
  // is moot (config.ini records both for every run).
  for (const char* name : {"min-count", "max-df"})
    if (cli.given_on_command_line(name) && !lda::is_text_input(common.input, common.format))
      app::usage_fail(name, "applies to plain-text input (one document per line), which " +
                                common.input + " is not; its columns are kept as they are");
  const app::ResolvedConfig config = cli.resolved(gap_overrides(opt));
  app::check_training_out(cli);  // before the data load (run_training checks again)

  const GapData data = prepare_gap_data(opt, common.input, common.format, common.seed);

  app::run_training(cli, "iter", [&](Context ctx, const std::string& out, app::RunRole role) {
    const TrainResult r = train_gap(opt, common, data, std::move(ctx), out, config);
    const bool alone = role == app::RunRole::kOnly || role == app::RunRole::kCpuFallback;
    if (!common.quiet) print_summary(r, opt, data, alone);
    return record(r);
  });
  return 0;
}

}  // namespace fk::gap
