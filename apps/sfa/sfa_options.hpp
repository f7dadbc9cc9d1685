#pragma once
// fk-sfa's own options (added to the common command line), their checks and resolution. The
// hyper-parameters carry the names of Canny's paper and BIDMach's SFA: λ_u (lambda-u), λ_m
// (lambda-m), the CG steps of the E-step (cg-steps), the M-step (mstep) and its learning rate.
#include <cstdint>
#include <string>

#include "apps/common/options.hpp"
#include "apps/sfa/sfa_backend.hpp"

namespace fk::sfa {

struct SfaOptions {
  int factors = 16;            // F
  double lambda_u = 10;        // prior precision of the user factors
  double lambda_m = 20;        // prior precision of the loadings
  int cg_steps = 3;            // PCG steps per E-step (and per em M-step)
  std::string mstep = "grad";  // grad | em (text as given; `mstep_kind` resolved)
  MStep mstep_kind = MStep::kGrad;
  double lrate = 0.7;           // η of the grad M-step
  double mean_prior = 5;        // item means shrunk towards μ as if by this many μ-ratings
  double init_scale = 0.1;      // standard deviation of the initial loadings
  bool no_user_offset = false;  // no per-user offset column
  bool no_clip = false;         // do not clip test predictions to the training range
  double holdout_frac = 0.2;    // seeded random hold-out fraction of the ratings
  std::string test;             // a separate test file (instead of a split)
  std::string sddmm = "auto", spmm = "auto";  // kernel variants
  std::string product_spmm = "auto";           // fused SDDMM → SpMM: auto, off or a name
  int checkpoint_every = 0;                   // passes between checkpoints (0: none)
  bool resume = false;                        // continue from <out>/checkpoint
  // Lowest operand precision of the kernels: fp32 | bf16 | fp16 (text as given; `precision_kind`
  // resolved).
  std::string precision = "fp32";
  Precision precision_kind = Precision::kF32;
};

// Adds the training options, bound to `opt`, to cli.app_options().
void add_sfa_options(app::CommandLine& cli, SfaOptions& opt);
// After cli.parse(): checks every value and the combinations and resolves --mstep and
// --precision; throws app::UsageError naming the option.
void finalize_sfa_options(app::CommandLine& cli, SfaOptions& opt);
// Resolved values that differ from what the command line shows.
app::ResolvedConfig sfa_overrides(const SfaOptions& opt);

}  // namespace fk::sfa
