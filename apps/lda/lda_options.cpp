#include "apps/lda/lda_options.hpp"

#include <cmath>

#include "apps/common/training_options.hpp"

namespace fk::lda {

namespace po = boost::program_options;

namespace {
// Default values shown in --help as "0.1", not "0.10000000000000001".
po::typed_value<double>* real(double* field, double value) {
  return po::value<double>(field)->default_value(value, app::format_double(value));
}
}  // namespace

void add_lda_options(app::CommandLine& cli, LdaOptions& o) {
  // clang-format off
  cli.app_options().add_options()
    ("topics", po::value<int>(&o.topics)->default_value(o.topics)->value_name("K"), "number of topics")
    ("batch-size", po::value<std::int64_t>(&o.batch_size)->default_value(o.batch_size)->value_name("N"),
     "documents per minibatch")
    ("inner-iters", po::value<int>(&o.inner_iters)->default_value(o.inner_iters)->value_name("N"),
     "E-step iterations per minibatch at most")
    ("tol", real(&o.tol, o.tol)->value_name("X"),
     "E-step stops when the mean absolute change of γ over the minibatch is below X")
    ("alpha", po::value<double>(&o.alpha)->default_value(0, "1/K")->value_name("X"),
     "symmetric document-topic Dirichlet prior α, from 1e-30 to 1e6")
    ("eta", po::value<double>(&o.eta)->default_value(0, "1/K")->value_name("X"),
     "symmetric topic-word Dirichlet prior η, from 1e-30 to 1e6")
    ("tau0", real(&o.tau0, o.tau0)->value_name("X"),
     "learning-rate offset τ0: ρ_t = (τ0 + t)^-κ after t minibatch updates (capped at 1)")
    ("kappa", real(&o.kappa, o.kappa)->value_name("X"),
     "learning-rate decay κ in (0, 1]")
    ("batch", po::bool_switch(&o.batch),
     "batch variational Bayes: one minibatch of the whole corpus per pass, ρ = 1")
    ("sddmm", po::value<std::string>(&o.sddmm)->default_value(o.sddmm)->value_name("NAME"),
     "SDDMM kernel variant (a registered name, or auto)")
    ("spmm", po::value<std::string>(&o.spmm)->default_value(o.spmm)->value_name("NAME"),
     "SpMM kernel variant (a registered name, or auto)")
    ("ratio-spmm", po::value<std::string>(&o.ratio_spmm)->default_value(o.ratio_spmm)->value_name("NAME"),
     kRatioSpmmHelp)
    ("precision", po::value<std::string>(&o.precision)->default_value(o.precision)->value_name("P"),
     app::kPrecisionHelp)
    ("holdout-frac", real(&o.holdout_frac, o.holdout_frac)->value_name("X"),
     "fraction of the documents held out (seeded) to measure the held-out log-likelihood by "
     "document completion (each held-out document's θ fitted on half its words by the same "
     "capped E-step, --inner-iters and --tol: a tighter one moves the score slightly, about 1e-3 "
     "nats per word on kos at K = 10); 0 turns it off")
    ("test", po::value<std::string>(&o.test)->value_name("FILE"),
     "held-out corpus in the training vocabulary (instead of --holdout-frac), same --format")
    ("eval-every", po::value<int>(&o.eval_every)->default_value(o.eval_every)->value_name("N"),
     "evaluate (held-out log-likelihood, perplexity, training bound) every N passes and after "
     "the last; 0: after the last pass only")
    ("top-words", po::value<int>(&o.top_words)->default_value(o.top_words)->value_name("N"),
     "words per topic in top_words.txt and top_words.csv (0: neither), and (at most 20 of them) "
     "in the topic coherence of the final model (coherence.csv, summary.json: mean UMass with +1 "
     "smoothing and mean NPMI over each topic's word pairs, from document co-occurrence in the "
     "training documents; below 2: none)")
    ("min-count", po::value<std::int64_t>(&o.min_count)->default_value(o.min_count)->value_name("N"),
     "text input: drop words seen fewer than N times in the corpus (text is split into words at "
     "every byte that is not an ASCII letter or part of a UTF-8 character, ASCII letters are "
     "lowercased; one-letter words and English stop words are "
     "dropped first, so 'w1 w2' holds no word)")
    ("max-df", real(&o.max_df, o.max_df)->value_name("X"),
     "text input: drop words found in more than this fraction of the documents")
    ("vocab", po::value<std::string>(&o.vocab)->value_name("FILE"),
     "vocabulary, one word per line: the words of UCI, Matrix Market or gen: input in column "
     "order (UCI input finds vocab.X.txt beside docword.X.txt itself; plain text names its own "
     "words)")
    ("checkpoint-every", po::value<int>(&o.checkpoint_every)->default_value(o.checkpoint_every)->value_name("N"),
     "write <out>/checkpoint every N passes (0: never)")
    ("resume", po::bool_switch(&o.resume),
     "continue from <out>/checkpoint when there is one (same configuration and input file "
     "content required); a resumed run reaches the same model as an uninterrupted one on the "
     "same device (another may round differently, as --seed says)")
    ("device-memory", real(&o.device_memory_mb, o.device_memory_mb)->value_name("MB"),
     "MiB of device memory for minibatches kept on the GPU (0: whatever is free). Minibatches "
     "beyond it stay in pinned host memory and are copied in for each use, the next one while "
     "the current one runs (on the CPU they are copied too, which only exercises that path)");
  // clang-format on
}

void finalize_lda_options(app::CommandLine& cli, LdaOptions& o) {
  using app::require_at_least;
  using app::usage_fail;
  require_at_least("topics", o.topics, 1);
  require_at_least("device-memory", o.device_memory_mb, 0.0);
  require_at_least("batch-size", o.batch_size, std::int64_t{1});
  require_at_least("inner-iters", o.inner_iters, 1);
  if (!(o.tol >= 0) || !std::isfinite(o.tol)) usage_fail("tol", "must be a finite number >= 0");
  if (cli.given("alpha")) {
    if (!(o.alpha >= kMinPrior) || !(o.alpha <= kMaxPrior))
      usage_fail("alpha", "must be a number from 1e-30 to 1e6");
  } else {
    o.alpha = 1.0 / o.topics;
  }
  if (cli.given("eta")) {
    if (!(o.eta >= kMinPrior) || !(o.eta <= kMaxPrior))
      usage_fail("eta", "must be a number from 1e-30 to 1e6");
  } else {
    o.eta = 1.0 / o.topics;
  }
  if (!(o.tau0 > 0) || !std::isfinite(o.tau0)) usage_fail("tau0", "must be a finite number > 0");
  if (!(o.kappa > 0 && o.kappa <= 1)) usage_fail("kappa", "must be in (0, 1]");
  o.batch = cli.one_of({"batch-size", "batch"},
                       "batch mode uses the whole corpus as one minibatch") == "batch";
  if (o.batch)  // ρ = 1: the learning-rate schedule would be ignored
    for (const char* name : {"tau0", "kappa"}) {
      if (cli.given_on_command_line(name)) usage_fail(name, "applies to online mode (not --batch)");
      cli.set_moot(name);
    }
  if (!(o.holdout_frac >= 0 && o.holdout_frac < 1)) usage_fail("holdout-frac", "must be in [0, 1)");
  const std::string way =
      cli.one_of({"holdout-frac", "test"}, "give one way of holding documents out");
  if (way == "test") o.holdout_frac = 0;
  if (way != "test") o.test.clear();
  // A generated corpus has its own vocabulary, not the training corpus's: refused while the
  // options are read (exit 2, naming --test), not after the training corpus is (exit 1).
  if (o.test.rfind("gen:", 0) == 0)
    usage_fail("test", "'" + o.test +
                           "': a generated corpus cannot be a held-out set (its words are not the "
                           "training corpus's); give a file, or hold documents out with "
                           "--holdout-frac");
  require_at_least("eval-every", o.eval_every, 0);
  require_at_least("top-words", o.top_words, 0);
  require_at_least("min-count", o.min_count, std::int64_t{0});
  if (!(o.max_df > 0 && o.max_df <= 1)) usage_fail("max-df", "must be in (0, 1]");
  app::check_training_options(o.checkpoint_every, o.sddmm, o.spmm);
  app::check_fused_option("ratio-spmm", o.ratio_spmm, o.spmm);
  o.precision_kind = app::check_precision(o.precision);
}

app::ResolvedConfig lda_overrides(const LdaOptions& o) {
  return {app::derived_double("alpha", o.alpha), app::derived_double("eta", o.eta),
          app::derived_double("holdout-frac", o.holdout_frac)};
}

}  // namespace fk::lda
