#pragma once
// fk-als's own options (added to the common command line), their checks and resolution.
#include <cstdint>
#include <string>
#include <vector>

#include "apps/common/options.hpp"
#include "core/half.hpp"

namespace fk::als {

enum class Solver { kCg, kCholesky };
Solver parse_solver(const std::string& text);  // "cg" | "cholesky"; fk::Error otherwise
const char* to_string(Solver s);

// The largest confidence slope α·r that implicit mode accepts, for --alpha alone and for every
// rating. The half-steps' systems Yᵀ Y + λI + Σ α r y yᵀ are single precision, and the
// unobserved pairs' weight 1 fades beside α r: with exact solves on fk-als's split of MovieLens
// 100K (r up to 5, K = 64) the float model's scores left the double model's by 0.12 at
// α r = 1e5, 3.4 at 1e6 and 4e3 at 5e6 (preferences are 0 or 1; 10000 items: 0.02, 1.6, 34), and
// Cholesky found rows not positive definite from 2.5e6.
constexpr double kMaxConfidenceSlope = 1e5;

// --init-scale's range for initial_factors, which fk-als and fk-sfa share: from 1e-6 to 1e10,
// else a UsageError whose message says that from smaller scales `what_stays` ("factors stay at the
// global mean for iterations").
void check_init_scale(double init_scale, const std::string& what_stays);

// Options that act on the test set only (fk-als: --no-clip, --k, --eval-users; fk-sfa: --no-clip)
// when the split asked for none: `no_test_set_by` is what asked ("--holdout-frac 0"), "" when there
// is a test set. One given on the command line is then a UsageError saying so (it would be
// ignored); a config file's is moot.
void check_test_only_options(app::CommandLine& cli, const std::vector<std::string>& names,
                             const std::string& no_test_set_by);

struct AlsOptions {
  int factors = 64;           // F
  double lambda = 0.1;        // weighted-λ (explicit: λ n_u per row), plain λ (implicit)
  std::string solver = "cg";  // cg | cholesky (text as given; `solver_kind` resolved)
  Solver solver_kind = Solver::kCg;
  int cg_steps = 3;                // CG steps per half-step (after the warm-start residual)
  bool implicit = false;           // Hu, Koren & Volinsky confidence-weighted implicit feedback
  double alpha = 1;                // implicit: confidence c = 1 + α r
  bool biases = false;             // explicit: learn user and item biases
  bool no_clip = false;            // explicit: do not clip test predictions to the training range
  double init_scale = 0.1;         // standard deviation of the initial item factors
  int k = 10;                      // cut-off of the ranking metrics (implicit)
  std::int64_t eval_users = 2000;  // implicit: test users sampled for the ranking metrics (0: all)
  double holdout_frac = 0.2;       // seeded random hold-out fraction of the ratings
  int leave_k_out = 0;             // per-user hold-out (instead of --holdout-frac)
  std::string test;                // a separate test file (instead of a split)
  std::string sddmm = "auto", spmm = "auto";  // kernel variants
  std::string product_spmm = "auto";           // fused SDDMM → SpMM: auto, off or a name
  int checkpoint_every = 0;                   // iterations between checkpoints (0: none)
  bool resume = false;                        // continue from <out>/checkpoint
  // Lowest operand precision of the kernels: fp32 | bf16 | fp16 (text as given; `precision_kind`
  // resolved).
  std::string precision = "fp32";
  Precision precision_kind = Precision::kF32;
};

// Adds the training options, bound to `opt`, to cli.app_options().
void add_als_options(app::CommandLine& cli, AlsOptions& opt);
// After cli.parse(): checks every value and the combinations (one way of holding ratings out,
// --alpha only with --implicit, --biases not with --implicit) and resolves --precision; throws
// app::UsageError naming the option.
void finalize_als_options(app::CommandLine& cli, AlsOptions& opt);
// Resolved values that differ from what the command line shows (holdout-frac when another split
// was chosen).
app::ResolvedConfig als_overrides(const AlsOptions& opt);

}  // namespace fk::als
