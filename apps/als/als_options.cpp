#include "apps/als/als_options.hpp"

#include <cmath>

#include "apps/common/training_options.hpp"

namespace fk::als {

namespace po = boost::program_options;

Solver parse_solver(const std::string& text) {
  if (text == "cg") return Solver::kCg;
  if (text == "cholesky") return Solver::kCholesky;
  throw Error("unknown solver '" + text + "' (expected cg or cholesky)");
}

const char* to_string(Solver s) { return s == Solver::kCg ? "cg" : "cholesky"; }

void add_als_options(app::CommandLine& cli, AlsOptions& o) {
  // clang-format off
  cli.app_options().add_options()
    ("factors", po::value<int>(&o.factors)->default_value(o.factors)->value_name("F"),
     "latent factors per user and item")
    ("lambda", po::value<double>(&o.lambda)->default_value(o.lambda, app::format_double(o.lambda))->value_name("X"),
     "regularization: explicit mode weights it by each row's rating count (λ n_u, Zhou et al. "
     "2008); implicit mode uses it as is (Hu et al. 2008); > 0 and small enough that the "
     "single-precision solves do not overflow (a larger one is refused, with the bound for the "
     "ratings)")
    ("solver", po::value<std::string>(&o.solver)->default_value(o.solver)->value_name("NAME"),
     "cg: batched conjugate gradient, matrix-free through SDDMM + SpMM, warm-started; "
     "cholesky: exact per-row normal equations (reference, small factors)")
    ("cg-steps", po::value<int>(&o.cg_steps)->default_value(o.cg_steps)->value_name("N"),
     "conjugate-gradient steps per half-step (--solver cg; ignored by cholesky, so that a config "
     "file's value does not stop a command-line --solver cholesky)")
    ("implicit", po::bool_switch(&o.implicit),
     "implicit feedback: every rating r is an observed interaction with confidence 1 + alpha*r "
     "and preference 1; unobserved pairs have preference 0 (Hu, Koren & Volinsky 2008)")
    ("alpha", po::value<double>(&o.alpha)->default_value(o.alpha, app::format_double(o.alpha))->value_name("X"),
     "implicit mode: confidence slope α in c = 1 + α r; α and α r for every rating at most 1e5 "
     "(single precision; rescale large counts, e.g. r = log(1 + count))")
    ("biases", po::bool_switch(&o.biases),
     "explicit mode: learn a bias per user and per item (regularized like the factors); the "
     "global mean is always subtracted")
    ("no-clip", po::bool_switch(&o.no_clip),
     "explicit mode: report test errors of unclipped predictions (by default predictions are "
     "clipped to the range of the training ratings, e.g. 1..5, as rating-prediction libraries do)")
    ("init-scale", po::value<double>(&o.init_scale)->default_value(o.init_scale, app::format_double(o.init_scale))->value_name("X"),
     "standard deviation of the seeded random initial item factors, from 1e-6 (smaller ones "
     "start too near the fixed point at zero, the global mean, which costs iterations) to 1e10")
    ("k", po::value<int>(&o.k)->default_value(o.k)->value_name("N"),
     "cut-off of the ranking metrics precision@k, MAP@k and NDCG@k (implicit mode)")
    ("eval-users", po::value<std::int64_t>(&o.eval_users)->default_value(o.eval_users)->value_name("N"),
     "implicit mode: test users (a seeded sample) the ranking metrics are computed on; 0: all")
    ("holdout-frac", po::value<double>(&o.holdout_frac)->default_value(o.holdout_frac, app::format_double(o.holdout_frac))->value_name("X"),
     "fraction of the ratings held out for testing (a seeded random choice), in [0, 1) and "
     "leaving at least one rating to train on; 0: no test set")
    ("leave-k-out", po::value<int>(&o.leave_k_out)->default_value(o.leave_k_out)->value_name("N"),
     "hold out N random ratings of every user who has more than N (instead of --holdout-frac)")
    ("test", po::value<std::string>(&o.test)->value_name("FILE"),
     "test ratings file (same formats as --input) instead of a split; ids are matched by raw id")
    ("sddmm", po::value<std::string>(&o.sddmm)->default_value(o.sddmm)->value_name("NAME"),
     "SDDMM kernel variant (a registered name, or auto)")
    ("spmm", po::value<std::string>(&o.spmm)->default_value(o.spmm)->value_name("NAME"),
     "SpMM kernel variant (a registered name, or auto)")
    ("product-spmm", po::value<std::string>(&o.product_spmm)->default_value(o.product_spmm)->value_name("NAME"),
     "the conjugate-gradient products (R ∘ X·Yᵀ)·Y and first residuals as one "
     "fused kernel each instead of an SDDMM and an SpMM, reading each row of the other side's "
     "factors once: auto (where a fused variant applies and "
     "pays, while --sddmm and --spmm are auto and auto keeps fp32 kernels: always at --precision fp32), off (the separate "
     "kernels), or a registered name (omp.ratio_spmm.rows, cuda.ratio_spmm.fused)")
    ("precision", po::value<std::string>(&o.precision)->default_value(o.precision)->value_name("P"),
     app::kPrecisionHelp)
    ("checkpoint-every", po::value<int>(&o.checkpoint_every)->default_value(o.checkpoint_every)->value_name("N"),
     "write <out>/checkpoint every N iterations (0: never)")
    ("resume", po::bool_switch(&o.resume),
     "continue from <out>/checkpoint when there is one (same configuration and input file "
     "content required)");
  // clang-format on
}

void check_init_scale(double init_scale, const std::string& what_stays) {
  // The starting factors perturb the fixed point at zero, which the solves leave by a roughly
  // constant factor an iteration: on MovieLens 100K fk-als's train RMSE left the global mean at
  // iteration 1 from 0.1, 4 from 1e-6, 6 from 1e-10, 11 from 1e-20 and never from 1e-30 (CG's r·r
  // underflows single precision, so the solve cannot move); fk-sfa's left the item means at pass
  // 1, 8, about 12, 25 and never. From 1e20 the first iteration overflowed to a NaN, blamed on the
  // ratings.
  if (!(init_scale >= 1e-6) || !(init_scale <= 1e10))
    app::usage_fail("init-scale", "must be a number from 1e-6 to 1e10 (from smaller ones the " +
                                      what_stays +
                                      ", or for good; larger ones overflow single precision)");
}

void check_test_only_options(app::CommandLine& cli, const std::vector<std::string>& names,
                             const std::string& no_test_set_by) {
  if (no_test_set_by.empty()) return;
  for (const std::string& name : names) {
    if (cli.given_on_command_line(name))
      app::usage_fail(name, "applies to the test set only, and " + no_test_set_by +
                                " holds no ratings out");
    cli.set_moot(name);
  }
}

void finalize_als_options(app::CommandLine& cli, AlsOptions& o) {
  using app::require_at_least;
  using app::usage_fail;
  require_at_least("factors", o.factors, 1);
  if (!(o.lambda > 0) || !std::isfinite(o.lambda))
    usage_fail("lambda", "must be a finite number > 0");
  try {
    o.solver_kind = parse_solver(o.solver);
  } catch (const Error&) {
    usage_fail("solver", "expected cg or cholesky, got '" + o.solver + "'");
  }
  // cholesky ignores --cg-steps, as its help says (a config file's cg-steps does not stop it).
  // Moot there, so that neither the written config.ini nor a checkpoint holds it: --resume
  // refused a cholesky checkpoint over a cg-steps value that never changed the model.
  if (o.solver_kind == Solver::kCg)
    require_at_least("cg-steps", o.cg_steps, 1);
  else
    cli.set_moot("cg-steps");
  if (!(o.alpha > 0) || !(o.alpha <= kMaxConfidenceSlope))
    usage_fail("alpha",
               "must be a number > 0 and at most 1e5 (past it single precision loses the "
               "unobserved pairs beside the confidences; rescale the ratings instead)");
  // Each mode's own options: given on the command line in the other mode they are an error (they
  // would be ignored); a config file's are moot (every written config.ini has them).
  for (const char* name : {"alpha", "k", "eval-users"})
    if (!o.implicit) {
      if (cli.given_on_command_line(name)) usage_fail(name, "applies to --implicit only");
      cli.set_moot(name);
    }
  if (o.implicit) {
    if (cli.given_on_command_line("no-clip")) usage_fail("no-clip", "applies to explicit mode only");
    cli.set_moot("no-clip");
  }
  if (o.biases && o.implicit) {
    // A config file's biases (als-ml100k.ini has them) give way to a command-line --implicit.
    if (cli.given_on_command_line("biases") || !cli.given_on_command_line("implicit"))
      usage_fail("biases", "conflicts with --implicit (implicit mode has no rating scale to bias)");
    o.biases = false;
    cli.set_moot("biases");
  }
  check_init_scale(o.init_scale, "factors stay at the global mean for iterations");
  require_at_least("k", o.k, 1);
  require_at_least("eval-users", o.eval_users, std::int64_t{0});
  app::check_holdout_frac(o.holdout_frac, "ratings");
  require_at_least("leave-k-out", o.leave_k_out, 0);
  const std::string way =
      cli.one_of({"holdout-frac", "leave-k-out", "test"},
                 "give one way of holding ratings out: --holdout-frac, --leave-k-out or --test");
  if (way != "holdout-frac" && !way.empty()) o.holdout_frac = 0;
  if (way != "leave-k-out") o.leave_k_out = 0;
  if (way != "test") o.test.clear();
  // Test errors and ranking metrics are all these options change: with no test set they would be
  // ignored in silence.
  check_test_only_options(
      cli, o.implicit ? std::vector<std::string>{"k", "eval-users"} : std::vector<std::string>{"no-clip"},
      !o.test.empty() || o.leave_k_out > 0 || o.holdout_frac > 0
          ? ""
          : way == "leave-k-out" ? "--leave-k-out 0" : "--holdout-frac 0");
  app::check_training_options(o.checkpoint_every, o.sddmm, o.spmm);
  app::check_fused_option("product-spmm", o.product_spmm,
                          o.solver_kind == Solver::kCg ? o.spmm : std::string("auto"));
  if (o.solver_kind == Solver::kCholesky) {  // no CG products to fuse; a config file's is moot
    if (cli.given_on_command_line("product-spmm") && o.product_spmm != "auto")
      usage_fail("product-spmm", "applies to --solver cg only");
    cli.set_moot("product-spmm");
  }
  o.precision_kind = app::check_precision(o.precision);
}

app::ResolvedConfig als_overrides(const AlsOptions& o) {
  return {app::derived_double("holdout-frac", o.holdout_frac)};
}

}  // namespace fk::als
