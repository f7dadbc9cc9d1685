#include "apps/sfa/sfa_options.hpp"

#include <cmath>

#include "apps/als/als_options.hpp"
#include "apps/common/training_options.hpp"

namespace fk::sfa {

namespace po = boost::program_options;

void add_sfa_options(app::CommandLine& cli, SfaOptions& o) {
  using app::format_double;
  // clang-format off
  cli.app_options().add_options()
    ("factors", po::value<int>(&o.factors)->default_value(o.factors)->value_name("F"),
     "latent factors per user (the columns of the loading matrix Λ)")
    ("lambda-u", po::value<double>(&o.lambda_u)->default_value(o.lambda_u, format_double(o.lambda_u))->value_name("X"),
     "λ_u: prior precision of the user factors, > 0 and at most 1e30 (larger overflows single "
     "precision); every user solves (λ_u I + Λᵀ T_u Λ) x_u = Λᵀ T_u y_u (E-step)")
    ("lambda-m", po::value<double>(&o.lambda_m)->default_value(o.lambda_m, format_double(o.lambda_m))->value_name("X"),
     "λ_m: prior precision of the loadings Λ (the model), > 0 and at most 1e30; the M-step's "
     "gradient is X·Rᵀ − λ_m Λ with R the residual")
    ("cg-steps", po::value<int>(&o.cg_steps)->default_value(o.cg_steps)->value_name("N"),
     "preconditioned conjugate-gradient steps per E-step (warm-started from the previous pass; "
     "also per M-step with --mstep em)")
    ("mstep", po::value<std::string>(&o.mstep)->default_value(o.mstep)->value_name("NAME"),
     "grad: Λ += lrate · (X·Rᵀ − λ_m Λ) preconditioned per item by (n_i/U XᵀX + λ_m I)⁻¹ "
     "(BIDMach's SFA steps along the same gradient, with ADAGrad); em: the paper's EM M-step for the mean loadings, every item's "
     "ridge system (λ_m I + Xᵀ T_i X) Λ_i = Xᵀ T_i y_i by preconditioned CG")
    ("lrate", po::value<double>(&o.lrate)->default_value(o.lrate, format_double(o.lrate))->value_name("X"),
     "learning rate η of --mstep grad (1 is a full step on the approximate curvature, the items' "
     "average: a step may overshoot and the objective rise, which the run warns about); with "
     "--mstep em an error on the command line, ignored in a config file (so that a config's value "
     "does not stop a command-line --mstep em)")
    ("mean-prior", po::value<double>(&o.mean_prior)->default_value(o.mean_prior, format_double(o.mean_prior))->value_name("X"),
     "the item means that centre the ratings are shrunk towards the global mean as if every item "
     "had X more ratings equal to it (0: plain means)")
    ("init-scale", po::value<double>(&o.init_scale)->default_value(o.init_scale, format_double(o.init_scale))->value_name("X"),
     "standard deviation of the seeded random initial loadings (user factors start at 0), from "
     "1e-6 (smaller ones start too near the fixed point at zero, the item means, which costs "
     "passes) to 1e10")
    ("no-user-offset", po::bool_switch(&o.no_user_offset),
     "no per-user offset: by default Λ carries a constant column of ones, so that every user's "
     "factors include an offset (a user bias under the prior λ_u) on top of the global and item "
     "means that centre the ratings")
    ("no-clip", po::bool_switch(&o.no_clip),
     "report test errors of unclipped predictions (by default predictions are clipped to the "
     "range of the training ratings, e.g. 1..5)")
    ("holdout-frac", po::value<double>(&o.holdout_frac)->default_value(o.holdout_frac, format_double(o.holdout_frac))->value_name("X"),
     "fraction of the ratings held out for testing (a seeded random choice), in [0, 1) and "
     "leaving at least one rating to train on; 0: no test set")
    ("test", po::value<std::string>(&o.test)->value_name("FILE"),
     "test ratings file (same formats as --input) instead of a split; ids are matched by raw id")
    ("sddmm", po::value<std::string>(&o.sddmm)->default_value(o.sddmm)->value_name("NAME"),
     "SDDMM kernel variant (a registered name, or auto)")
    ("spmm", po::value<std::string>(&o.spmm)->default_value(o.spmm)->value_name("NAME"),
     "SpMM kernel variant (a registered name, or auto)")
    ("product-spmm", po::value<std::string>(&o.product_spmm)->default_value(o.product_spmm)->value_name("NAME"),
     "the conjugate-gradient products (R ∘ X·Yᵀ)·Y and first residuals and the grad M-step's gradient as one "
     "fused kernel each instead of an SDDMM and an SpMM, reading each row of the other side's "
     "factors once: auto (where a fused variant applies and "
     "pays, while --sddmm and --spmm are auto and auto keeps fp32 kernels: always at --precision fp32), off (the separate "
     "kernels), or a registered name (omp.ratio_spmm.rows, cuda.ratio_spmm.fused)")
    ("precision", po::value<std::string>(&o.precision)->default_value(o.precision)->value_name("P"),
     app::kPrecisionHelp)
    ("checkpoint-every", po::value<int>(&o.checkpoint_every)->default_value(o.checkpoint_every)->value_name("N"),
     "write <out>/checkpoint every N passes (0: never)")
    ("resume", po::bool_switch(&o.resume),
     "continue from <out>/checkpoint when there is one (same configuration and input file "
     "content required); the result equals an uninterrupted run on the same device (another "
     "may round differently, as --seed says)");
  // clang-format on
}

namespace {
void require_positive(const std::string& name, double v) {
  if (!(v > 0) || !std::isfinite(v)) app::usage_fail(name, "must be a finite number > 0");
}
// The model is single precision: a prior weight past 1e30 overflowed in the first pass, and the
// run failed blaming the ratings' scale or too little regularization.
void require_in(const std::string& name, double v, double most, const char* range) {
  if (!(v > 0) || !(v <= most)) app::usage_fail(name, std::string("must be a number ") + range);
}
}  // namespace

void finalize_sfa_options(app::CommandLine& cli, SfaOptions& o) {
  using app::require_at_least;
  using app::usage_fail;
  require_at_least("factors", o.factors, 1);
  require_in("lambda-u", o.lambda_u, 1e30, "> 0 and at most 1e30");
  require_in("lambda-m", o.lambda_m, 1e30, "> 0 and at most 1e30");
  require_at_least("cg-steps", o.cg_steps, 1);
  try {
    o.mstep_kind = parse_mstep(o.mstep);
  } catch (const Error&) {
    usage_fail("mstep", "expected grad or em, got '" + o.mstep + "'");
  }
  require_positive("lrate", o.lrate);
  // A config file's lrate does not stop a command-line --mstep em (em has no learning rate).
  if (o.mstep_kind != MStep::kGrad) {
    if (cli.given_on_command_line("lrate")) usage_fail("lrate", "applies to --mstep grad only");
    cli.set_moot("lrate");
  }
  if (!(o.mean_prior >= 0) || !std::isfinite(o.mean_prior))
    usage_fail("mean-prior", "must be a finite number >= 0");
  als::check_init_scale(o.init_scale, "loadings stay at the item means for passes");
  app::check_holdout_frac(o.holdout_frac, "ratings");
  const std::string way = cli.one_of(
      {"holdout-frac", "test"}, "give one way of holding ratings out: --holdout-frac or --test");
  if (way == "test") o.holdout_frac = 0;
  if (way != "test") o.test.clear();
  // --no-clip changes the test errors only: with no test set it would be ignored in silence.
  als::check_test_only_options(cli, {"no-clip"}, o.test.empty() && o.holdout_frac == 0 ? "--holdout-frac 0" : "");
  app::check_training_options(o.checkpoint_every, o.sddmm, o.spmm);
  app::check_fused_option("product-spmm", o.product_spmm, o.spmm);
  o.precision_kind = app::check_precision(o.precision);
}

app::ResolvedConfig sfa_overrides(const SfaOptions& o) {
  return {app::derived_double("holdout-frac", o.holdout_frac)};
}

}  // namespace fk::sfa
