#include "apps/lda/lda_app.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "apps/common/compare.hpp"
#include "apps/common/options.hpp"
#include "apps/common/output.hpp"
#include "apps/common/run.hpp"
#include "apps/common/training_options.hpp"
#include "apps/lda/corpus.hpp"
#include "apps/lda/lda_options.hpp"
#include "apps/lda/lda_trainer.hpp"
#include "core/io/npy.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"

namespace fk::lda {
namespace {

constexpr const char* kSynopsis =
    "LDA topic models by online variational Bayes (Hoffman, Blei & Bach 2010), the E-step of a "
    "whole minibatch through SDDMM + SpMM kernels, on a GPU or on all CPU cores";
constexpr const char* kUsage =
    "fk-lda --input PATH [options]          train; PATH is a UCI docword.X.txt[.gz] (vocab.X.txt\n"
    "                                         beside it is used), a Matrix Market documents x "
    "words\n"
    "                                         file, plain text (one document per line), or\n"
    "                                         gen:NAME[:key=value,...] for a generated corpus\n"
    "                                         (default, kos, nips, nytimes; keys: the\n"
    "                                         options of fk-datagen lda, e.g.\n"
    "                                         gen:kos:docs=500,seed=2)\n"
    "  fk-lda infer --model DIR --input FILE  θ of new documents under a saved model (DIR is the\n"
    "                                         --out of a training run); writes theta.npy to --out";

using app::fmt;

// The first five topics' most probable words (at most ten each).
void print_top_words(const HostDense<float>& lambda, const LdaOptions& opt,
                     const std::vector<std::string>& vocab) {
  const std::vector<std::vector<std::string>> words =
      top_words(lambda, std::min(opt.top_words, 10), vocab);
  for (std::size_t t = 0; t < std::min<std::size_t>(words.size(), 5); ++t) {
    std::cout << "  topic " << t << ":";
    for (const std::string& w : words[t]) std::cout << ' ' << w;
    std::cout << "\n";
  }
}

void print_summary(const TrainResult& r, const LdaOptions& opt,
                   const std::vector<std::string>& vocab, bool show_topics) {
  std::vector<double> secs;
  for (const PassReport& p : r.passes) secs.push_back(p.seconds);
  std::cout << "[" << r.device << "] ";
  if (!secs.empty()) std::cout << "median time per pass " << fmt("%.4f", median(secs)) << " s; ";
  if (r.heldout_ll)
    std::cout << "held-out log-likelihood " << fmt("%.4f", *r.heldout_ll)
              << " per word (perplexity " << fmt("%.1f", *r.perplexity) << "); ";
  if (r.train_bound) std::cout << "training bound " << fmt("%.4f", *r.train_bound) << " per word";
  std::cout << "\n";
  if (r.coherence)
    std::cout << "  topic coherence (top " << r.coherence->words
              << " words, training documents): " << coherence_scores(*r.coherence)
              << (r.true_coherence ? " (the generator's true topics: " +
                                         coherence_scores(*r.true_coherence) + ")"
                                   : std::string())
              << "\n";
  if (show_topics && opt.top_words > 0) {
    print_top_words(r.lambda, opt, vocab);
  }
  std::cout.flush();
}

// The run for the comparison (app::run_training sets the label).
app::RunRecord record(const TrainResult& r) {
  app::RunRecord rec;
  rec.device = r.device;
  for (const PassReport& p : r.passes) rec.iter_seconds.push_back(p.seconds);
  if (r.heldout_ll) rec.finals.emplace_back("held-out log-likelihood", *r.heldout_ll);
  if (r.train_bound) rec.finals.emplace_back("training bound per word", *r.train_bound);
  if (r.coherence) {
    rec.finals.emplace_back("topic coherence, UMass", r.coherence->mean_umass);
    rec.finals.emplace_back("topic coherence, NPMI", r.coherence->mean_npmi);
  }
  return rec;
}

int infer_main(int argc, char** argv) {
  std::string model_dir;
  int inner_iters = 0;
  double tol = -1;
  std::int64_t batch_size = 2000;
  std::string sddmm = "auto", spmm = "auto", ratio_spmm = "auto";
  std::string precision = "fp32";
  // The shared --precision help, and what it means here: infer's E-step is its work, not an
  // evaluation, so its plans take the precision under auto too (BatchRole::kInfer).
  const std::string precision_help =
      std::string(app::kPrecisionKernelsHelp) +
      ". Here the E-step that computes θ takes it as training's does; theta.npy is fp32";
  app::CommonDefaults defaults;
  defaults.out = "out/lda-infer";
  defaults.formats = kCorpusFormats;
  defaults.not_applicable = {"iters", "compare"};
  defaults.out_help =
      "output directory (created when missing); theta.npy and the resolved configuration are "
      "written there";
  // infer draws only the starting γ of each document (kInferGammaStream): no split, no gen:.
  defaults.seed_use =
      "Here it seeds only each document's starting point for the E-step (γ drawn from "
      "Gamma(100, 1/100), as training does): θ depends on it as far as the E-step stops short "
      "of converging (--tol, --inner-iters), so another seed gives a slightly different θ, the "
      "less so the smaller --tol";
  app::CommandLine cli("fk-lda infer",
                       "θ (documents x topics) of new documents under a saved fk-lda model",
                       "fk-lda infer --model DIR --input FILE [--out DIR] [options]", defaults);
  namespace po = boost::program_options;
  cli.app_options().add_options()  //
      ("model", po::value<std::string>(&model_dir)->value_name("DIR"),
       "the --out directory of a training run")  //
      ("inner-iters", po::value<int>(&inner_iters)->value_name("N"),
       "E-step iterations at most (default: the model's)")  //
      ("tol", po::value<double>(&tol)->value_name("X"),
       "E-step tolerance (default: the model's)")  //
      ("batch-size",
       po::value<std::int64_t>(&batch_size)->default_value(batch_size)->value_name("N"),
       "documents per minibatch")  //
      ("sddmm", po::value<std::string>(&sddmm)->default_value(sddmm)->value_name("NAME"),
       "SDDMM kernel variant")  //
      ("spmm", po::value<std::string>(&spmm)->default_value(spmm)->value_name("NAME"),
       "SpMM kernel variant")  //
      ("ratio-spmm",
       po::value<std::string>(&ratio_spmm)->default_value(ratio_spmm)->value_name("NAME"),
       kInferRatioSpmmHelp)  //
      ("precision", po::value<std::string>(&precision)->default_value(precision)->value_name("P"),
       precision_help.c_str());
  if (!cli.parse(argc, argv, 2)) return 0;
  const app::CommonOptions& common = cli.common();
  if (model_dir.empty())
    app::usage_fail("model", "is required: the --out directory of a training run");
  if (common.input.empty())
    app::usage_fail("input", "is required: the documents to infer topics for");
  // A bad value of --input, as training's bad gen: specs are (exit 2), found before the model is
  // read: it was exit 1 without naming the option, after the model was loaded.
  if (common.input.rfind("gen:", 0) == 0)
    app::usage_fail("input", "'" + common.input +
                                 "': a generated corpus has its own words, not the model's; give "
                                 "a file of documents");
  if (common.compare) app::usage_fail("compare", "does not apply to infer");
  if (cli.given("iters"))
    app::usage_fail("iters", "does not apply to infer (the E-step uses --inner-iters)");
  app::require_at_least("batch-size", batch_size, std::int64_t{1});
  if (cli.given("inner-iters")) app::require_at_least("inner-iters", inner_iters, 1);
  if (cli.given("tol") && !(tol >= 0 && std::isfinite(tol)))
    app::usage_fail("tol", "must be a finite number >= 0");
  {
    // infer writes theta.npy and its own config.ini: a training run's folder (the --model one, most
    // likely) would lose the configuration that --config and --resume read.
    std::string source;
    const std::string holder = app::model_app(common.out, &source);
    if (!holder.empty())
      app::usage_fail("out", common.out + " holds an " + holder + " training run (" + source +
                                 "), whose config.ini infer would replace; choose another --out");
  }
  {
    // Before any work: an --input in --out under one of these names was replaced by infer's file
    // (exit 0, the documents lost), and a folder by one of them failed the command only after
    // theta.npy was written.
    const std::vector<std::string> files = {"theta.npy", "config.ini", "config.json"};
    app::check_outputs_are_not_inputs(common.out, files, {common.input});
    app::check_no_directory_in_the_way(common.out, files);
  }
  app::check_kernel_variants(sddmm, spmm);
  app::check_fused_option("ratio-spmm", ratio_spmm, spmm);
  const Precision precision_kind = app::check_precision(precision);

  const LdaModel model = load_lda_model(model_dir);
  const Corpus docs =
      load_corpus_in_vocab(common.input, common.format, model.vocab, model.lambda.rows(),
                           VocabOf::kModel);
  log_info() << "infer: " << docs.source;
  Context ctx = Context::create(common.device, common.threads);
  ctx.set_repeatable_only(common.repeatable);
  const std::string device = ctx.describe();
  Stopwatch clock;
  const HostDense<float> theta =
      infer_topics(model, docs.counts, std::move(ctx), batch_size, common.seed,
                   cli.given("inner-iters") ? inner_iters : model.inner_iters,
                   cli.given("tol") ? tol : model.tol, sddmm, spmm, precision_kind, ratio_spmm);
  const double seconds = clock.seconds();
  for (std::int64_t i = 0; i < theta.size(); ++i)  // a model past what it checks above
    if (!std::isfinite(theta.data()[i]))
      throw Error("θ of document " + std::to_string(i / theta.cols()) +
                  " is not finite under the model in " + model_dir +
                  " (its priors or topics out of range?); nothing was written");
  app::ensure_output_dir(common.out);
  io::write_npy(common.out + "/theta.npy", theta);
  app::write_resolved_config(common.out, cli.resolved(), "", "fk-lda infer");
  if (!common.quiet)
    std::cout << "[" << device << "] θ of " << theta.rows() << " documents x " << theta.cols()
              << " topics in " << fmt("%.3f", seconds) << " s: " << common.out << "/theta.npy"
              << std::endl;
  return 0;
}

}  // namespace

int lda_main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "infer") return infer_main(argc, argv);
  LdaOptions opt;
  app::CommonDefaults defaults;
  defaults.out = "out/lda";
  defaults.out_help =
      std::string(
          "output directory (created when missing): lambda.npy (topics x words, the variational "
          "Dirichlet parameters λ), topics.npy (λ's rows normalised: each topic's word "
          "probabilities), doc_topics.npy (training documents x topics, normalised γ; rows in "
          "the order of train_doc_ids.npy, the documents' rows in the input, written when some "
          "are held out), top_words.txt (each topic's most probable words, to read) and "
          "top_words.csv (the same with their probabilities, one row per word: for programs), "
          "coherence.csv, vocab.txt (the words in lambda.npy's column order; ") +
      kUnnamedWordsHelp + "), model.ini (what infer reads), "
      "metrics.jsonl (one line per pass: seconds, tokens/s, GFLOP/s, mean E-step iterations, rho "
      "of the pass's last update, held-out log-likelihood and perplexity, training bound), "
      "summary.json (the final numbers and the run's peak memory), config.ini and config.json "
      "(the resolved configuration: run again with --config OUT/config.ini)";
  defaults.formats = kCorpusFormats;
  defaults.subcommand_options = {{"model", "infer"}};
  defaults.iters = 10;
  app::CommandLine cli("fk-lda", kSynopsis, kUsage, defaults);
  add_lda_options(cli, opt);
  if (!cli.parse(argc, argv)) return 0;
  finalize_lda_options(cli, opt);
  const app::CommonOptions& common = cli.common();
  if (common.input.empty()) app::usage_fail("input", "is required (a corpus file, or gen:default)");
  // The text filters were ignored without a word for other input (UCI, Matrix Market, gen:),
  // whose columns are the vocabulary as given. A config file's value is moot (config.ini
  // records them for every run).
  for (const char* name : {"min-count", "max-df"})
    if (cli.given_on_command_line(name) && !is_text_input(common.input, common.format))
      app::usage_fail(name, "applies to plain-text input (one document per line), which " +
                                common.input + " is not; its words are kept as they are");
  const app::ResolvedConfig config = cli.resolved(lda_overrides(opt));
  app::check_training_out(cli);  // before the data load (run_training checks again)

  const LdaData data = prepare_lda_data(opt, common);

  std::optional<TrainResult> gpu;  // kept for its top words after the comparison
  const bool compared =
      app::run_training(cli, "pass", [&](Context ctx, const std::string& out, app::RunRole role) {
        TrainResult r = train_lda(opt, common, data, std::move(ctx), out, config);
        const bool alone = role == app::RunRole::kOnly || role == app::RunRole::kCpuFallback;
        if (!common.quiet) print_summary(r, opt, data.vocab, alone);  // -q: nothing on stdout
        app::RunRecord rec = record(r);
        if (role == app::RunRole::kCompareGpu) gpu = std::move(r);
        return rec;
      });
  if (!compared) return 0;
  if (!common.quiet) {
    std::cout << "\ntop words (GPU model):\n";
    print_top_words(gpu->lambda, opt, data.vocab);
  }
  return 0;
}

}  // namespace fk::lda
