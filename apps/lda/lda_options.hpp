#pragma once
// fk-lda's own options (added to the common command line) and their resolution and checks.
#include <cstdint>
#include <string>

#include "apps/common/options.hpp"
#include "core/half.hpp"

namespace fk::lda {

// The largest Dirichlet prior α or η accepted (a training option or a saved model's): beyond it the
// E-step's digamma terms leave single precision (α = 1e39 gave NaN θ); real priors are near 1/K.
inline constexpr double kMaxPrior = 1e6;
// The smallest one: below about 1.4e-45 a prior rounds to 0 in single precision and the E-step's
// digamma(0) made the first pass NaN (α = 1e-46 failed as 'the model diverged'); 1e-30 keeps it a
// normal float with room for α·K and the like.
inline constexpr double kMinPrior = 1e-30;

// --ratio-spmm's help: kRatioSpmmHelp for training (the E-step and the statistics),
// kInferRatioSpmmHelp for infer (the E-step alone).
#define FK_RATIO_SPMM_CHOICES                                                                     \
  " as one fused kernel each, reading each topic row once: auto (where a fused variant applies "  \
  "and pays, while --sddmm and --spmm are auto and auto keeps fp32 kernels: always at "           \
  "--precision fp32), off (the separate kernels), or a registered name for both "                \
  "(omp.ratio_spmm.rows, cuda.ratio_spmm.fused)"
inline constexpr const char* kRatioSpmmHelp =
    "the E-step's SDDMM, division and SpMM (and training's statistics: SDDMM, division and "
    "transposed SpMM)" FK_RATIO_SPMM_CHOICES;
inline constexpr const char* kInferRatioSpmmHelp =
    "the E-step's SDDMM, division and SpMM" FK_RATIO_SPMM_CHOICES;
#undef FK_RATIO_SPMM_CHOICES

struct LdaOptions {
  int topics = 100;                // K (gensim's num_topics default)
  std::int64_t batch_size = 2000;  // documents per minibatch (gensim's chunksize)
  int inner_iters = 50;            // E-step iterations at most (gensim's iterations)
  double tol = 1e-3;               // E-step stop: mean |Δγ| (gensim's gamma_threshold)
  double alpha = 0;                // resolved: 1/K unless given
  double eta = 0;                  // resolved: 1/K unless given
  double tau0 = 1.0;               // learning-rate offset (gensim's offset)
  double kappa = 0.5;              // learning-rate decay (gensim's decay)
  bool batch = false;              // batch VB: one minibatch = the whole corpus, ρ = 1
  std::string sddmm = "auto", spmm = "auto";
  std::string ratio_spmm = "auto";  // the E-step's fused kernel: auto, off or a variant name
  double holdout_frac = 0.1;  // documents held out for evaluation
  std::string test;           // a separate held-out corpus instead of the split
  int eval_every = 1;         // evaluate every N passes (0: after the last pass only)
  int top_words = 10;
  std::int64_t min_count = 5;  // text input: minimum occurrences of a word
  double max_df = 0.5;         // text input: maximum fraction of documents containing a word
  std::string vocab;           // optional vocabulary file (one word per line)
  int checkpoint_every = 0;    // passes between checkpoints (0: none)
  bool resume = false;         // continue from <out>/checkpoint when it exists
  double device_memory_mb = 0;  // MiB for resident minibatches (0: whatever is free)
  // Lowest operand precision of the kernels: fp32 | bf16 | fp16 (text as given; `precision_kind`
  // resolved).
  std::string precision = "fp32";
  Precision precision_kind = Precision::kF32;
};

// Adds the training options, bound to `opt`, to cli.app_options().
void add_lda_options(app::CommandLine& cli, LdaOptions& opt);
// After cli.parse(): resolves α and η (1/K unless given) and --precision and checks every value;
// throws app::UsageError naming the option.
void finalize_lda_options(app::CommandLine& cli, LdaOptions& opt);
// The resolved values that differ from what the command line shows (α, η).
app::ResolvedConfig lda_overrides(const LdaOptions& opt);

}  // namespace fk::lda
