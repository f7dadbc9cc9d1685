#pragma once
// fk-gap's own options (added to the common command line), their checks and resolution.
#include <cstdint>
#include <string>

#include "apps/common/options.hpp"
#include "core/half.hpp"

namespace fk::gap {

struct GapOptions {
  int factors = 20;            // K
  double a = 1.1;              // Gamma shape of the prior on X (the paper's a; >= 1)
  double b = 100;              // Gamma scale of the prior on X (the paper's b; mean a·b)
  double holdout_frac = 0.1;   // binomial thinning: each token held out with this probability
  std::string test;            // a separate test corpus (instead of thinning)
  int test_iters = 20;         // X updates of the test documents per evaluation
  int eval_every = 1;          // metrics every N iterations (0: after the last one only)
  int top_words = 10;          // words per factor in top_words.txt
  std::int64_t min_count = 5;  // text input: minimum occurrences of a word
  double max_df = 0.5;         // text input: maximum fraction of documents containing a word
  std::string vocab;           // optional vocabulary file (one word per line)
  std::string sddmm = "auto", spmm = "auto";  // kernel variants
  std::string update = "joint";               // joint | alternating (text as given)
  std::string ratio_spmm = "auto";            // alternating order's fused products
  int checkpoint_every = 0;                   // iterations between checkpoints (0: none)
  bool resume = false;                        // continue from <out>/checkpoint
  // Lowest operand precision of the kernels: fp32 | bf16 | fp16 (text as given; `precision_kind`
  // resolved).
  std::string precision = "fp32";
  Precision precision_kind = Precision::kF32;
};

// Adds the training options, bound to `opt`, to cli.app_options().
void add_gap_options(app::CommandLine& cli, GapOptions& opt);
// After cli.parse(): checks every value and the combinations and resolves --precision; throws
// app::UsageError naming the option.
void finalize_gap_options(app::CommandLine& cli, GapOptions& opt);
// Resolved values that differ from what the command line shows (holdout-frac with --test).
app::ResolvedConfig gap_overrides(const GapOptions& opt);

}  // namespace fk::gap
