#include "apps/gap/gap_options.hpp"

#include <cmath>

#include "apps/common/training_options.hpp"

namespace fk::gap {

namespace po = boost::program_options;

void add_gap_options(app::CommandLine& cli, GapOptions& o) {
  // clang-format off
  cli.app_options().add_options()
    ("factors", po::value<int>(&o.factors)->default_value(o.factors)->value_name("K"),
     "factors (the paper's themes): Λ is words x K with columns that sum to 1, X documents x K")
    ("a", po::value<double>(&o.a)->default_value(o.a, app::format_double(o.a))->value_name("X"),
     "shape a of the Gamma(a, b) prior on every x_dk (the paper's a); must be >= 1: below 1 the "
     "MAP objective is unbounded; close to 1 favours sparse X")
    ("b", po::value<double>(&o.b)->default_value(o.b, app::format_double(o.b))->value_name("X"),
     "scale b of the Gamma(a, b) prior on every x_dk (the paper's b; prior mean a*b tokens); "
     "X is updated as (X*(ΛᵀQ) + a - 1) / (1 + 1/b)")
    ("holdout-frac", po::value<double>(&o.holdout_frac)->default_value(o.holdout_frac, app::format_double(o.holdout_frac))->value_name("P"),
     "binomial thinning: every token goes to the held-out set with probability P (seeded; a "
     "count above 1024 draws its held-out share at once, by the normal approximation where "
     "that share's mean passes 64); heldout_ll scores those tokens at the rates P/(1-P)·ΛX; in "
     "[0, 1), leaving some tokens to train on; 0: no held-out set")
    ("test", po::value<std::string>(&o.test)->value_name("FILE"),
     "separate test documents in the training vocabulary (instead of thinning): X of each is "
     "fitted with Λ fixed on half of its tokens, the other half is scored")
    ("test-iters", po::value<int>(&o.test_iters)->default_value(o.test_iters)->value_name("N"),
     "X updates of the test documents per evaluation (--test)")
    ("eval-every", po::value<int>(&o.eval_every)->default_value(o.eval_every)->value_name("N"),
     "compute the metrics (train_ll, heldout_ll, objective: one more SDDMM per matrix, and the "
     "test fit) every N iterations and after the last; 0: after the last only")
    ("top-words", po::value<int>(&o.top_words)->default_value(o.top_words)->value_name("N"),
     "words per factor in top_words.txt and top_words.csv (0: neither), and (at most 20 of them) "
     "in the topic coherence of the final model (coherence.csv, summary.json; as fk-lda's: mean "
     "UMass and NPMI of each factor's word pairs from document co-occurrence in the training "
     "counts; below 2: none)")
    ("min-count", po::value<std::int64_t>(&o.min_count)->default_value(o.min_count)->value_name("N"),
     "text input: drop words with fewer occurrences (text is split into words at every byte "
     "that is not an ASCII letter or part of a UTF-8 character, ASCII letters are lowercased; "
     "one-letter words and English stop words are dropped "
     "first)")
    ("max-df", po::value<double>(&o.max_df)->default_value(o.max_df, app::format_double(o.max_df))->value_name("X"),
     "text input: drop words in more than this fraction of the documents")
    ("vocab", po::value<std::string>(&o.vocab)->value_name("FILE"),
     "vocabulary file, one word per line, the words of UCI, Matrix Market or gen: input in "
     "column order (UCI input finds vocab.X.txt beside docword.X.txt; ratings and text input "
     "name their own columns)")
    ("update", po::value<std::string>(&o.update)->default_value(o.update)->value_name("ORDER"),
     "order of the two factor updates in an iteration: joint (X and Λ both from the old model, one "
     "SDDMM serves both; the paper's) or alternating (X first, then Λ from the new X: two "
     "SDDMMs or fused passes an iteration, and often fewer iterations to the same objective)")
    ("sddmm", po::value<std::string>(&o.sddmm)->default_value(o.sddmm)->value_name("NAME"),
     "SDDMM kernel variant (a registered name, or auto)")
    ("spmm", po::value<std::string>(&o.spmm)->default_value(o.spmm)->value_name("NAME"),
     "SpMM kernel variant (a registered name, or auto)")
    ("ratio-spmm", po::value<std::string>(&o.ratio_spmm)->default_value(o.ratio_spmm)->value_name("NAME"),
     "each of the iteration's two products with its SDDMM and division as one fused kernel that "
     "reads each factor row once (Q Λ over the counts, Qᵀ X over their transpose): auto (on a GPU "
     "where a fused variant applies, while --sddmm and --spmm are auto and auto keeps fp32 "
     "kernels: always at --precision fp32; on the CPU only with --update alternating, where it "
     "applies and pays), off (one SDDMM and two SpMMs in the joint order, two SDDMMs in the "
     "alternating one), or a registered name (omp.ratio_spmm.rows, cuda.ratio_spmm.fused)")
    ("precision", po::value<std::string>(&o.precision)->default_value(o.precision)->value_name("P"),
     app::kPrecisionHelp)
    ("checkpoint-every", po::value<int>(&o.checkpoint_every)->default_value(o.checkpoint_every)->value_name("N"),
     "write <out>/checkpoint every N iterations (0: never)")
    ("resume", po::bool_switch(&o.resume),
     "continue from <out>/checkpoint when there is one (same configuration and input file "
     "content required)");
  // clang-format on
}

void finalize_gap_options(app::CommandLine& cli, GapOptions& o) {
  using app::require_at_least;
  using app::usage_fail;
  require_at_least("factors", o.factors, 1);
  // The updates use a - 1 and 1/b in single precision: a = 1e300 (a - 1 infinite) and b = 1e-300
  // (1/b infinite, X rounded to 0) made the first objective NaN, which the run then blamed on
  // the counts. 1e30 keeps both finite with room for the products they enter.
  if (!(o.a >= 1) || !(o.a <= 1e30))
    usage_fail("a", "must be a number from 1 to 1e30 (below 1 the MAP objective has no maximum)");
  if (!(o.b >= 1e-30) || !std::isfinite(o.b)) usage_fail("b", "must be a finite number >= 1e-30");
  app::check_holdout_frac(o.holdout_frac, "tokens");
  const std::string way = cli.one_of(
      {"holdout-frac", "test"}, "give one way of holding tokens out: --holdout-frac or --test");
  if (way == "test") o.holdout_frac = 0;
  if (way != "test") {
    o.test.clear();
    if (cli.given_on_command_line("test-iters")) usage_fail("test-iters", "applies to --test only");
    cli.set_moot("test-iters");
  }
  require_at_least("test-iters", o.test_iters, 1);
  require_at_least("eval-every", o.eval_every, 0);
  require_at_least("top-words", o.top_words, 0);
  require_at_least("min-count", o.min_count,
                   std::int64_t{0});  // as fk-lda: 0 and 1 keep every word
  if (!(o.max_df > 0 && o.max_df <= 1)) usage_fail("max-df", "must be in (0, 1]");
  app::check_training_options(o.checkpoint_every, o.sddmm, o.spmm);
  if (o.update != "joint" && o.update != "alternating")
    usage_fail("update", "expected joint or alternating, got '" + o.update + "'");
  app::check_fused_option("ratio-spmm", o.ratio_spmm, o.spmm);
  o.precision_kind = app::check_precision(o.precision);
}

app::ResolvedConfig gap_overrides(const GapOptions& o) {
  return {app::derived_double("holdout-frac", o.holdout_frac)};
}

}  // namespace fk::gap
