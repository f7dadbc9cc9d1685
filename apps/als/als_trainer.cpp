#include "apps/als/als_trainer.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <climits>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

#include "apps/als/als_model.hpp"
#include "apps/common/checkpoint.hpp"
#include "apps/common/compare.hpp"
#include "apps/common/memory.hpp"
#include "apps/common/output.hpp"
#include "apps/common/precision.hpp"
#include "apps/common/repeatability.hpp"
#include "apps/common/train_loop.hpp"
#include "core/build_info.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/npy.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/random.hpp"
#include "core/timer.hpp"

namespace fk::als {
namespace {

using app::fmt;

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr std::uint64_t kInitStream = 0x1417;  // the initial factors' random stream of --seed
constexpr std::uint64_t kEvalStream = 0xe7a1;  // the ranking users' sample
constexpr std::int64_t kScoreBlock = 256;      // users scored per GEMM in the ranking metrics

// Users with test items and training ratings (a seeded sample of `cap` of them when cap > 0).
std::vector<std::int64_t> ranking_users(const AlsData& d, std::int64_t cap, std::uint64_t seed) {
  std::vector<std::int64_t> all;
  for (std::int64_t u = 0; u < d.test.rows; ++u)
    if (d.test.row_ptr[u + 1] > d.test.row_ptr[u] && d.train.row_ptr[u + 1] > d.train.row_ptr[u])
      all.push_back(u);
  if (cap <= 0 || static_cast<std::int64_t>(all.size()) <= cap) return all;
  std::vector<std::int64_t> pick;
  Rng rng = Rng(seed).split(kEvalStream);
  std::int64_t want = cap;
  const std::int64_t n = static_cast<std::int64_t>(all.size());
  for (std::int64_t t = 0; t < n && want > 0; ++t)
    if (static_cast<double>(n - t) * rng.uniform() < static_cast<double>(want)) {
      pick.push_back(all[t]);
      --want;
    }
  return pick;
}

// The most ratings of one user or item: explicit mode's heaviest weight is λ times it.
std::int64_t most_ratings(const AlsData& d) {
  std::int64_t most = 0;
  for (const HostCsr* m : {&d.train, &d.train_t})
    for (std::int64_t r = 0; r < m->rows; ++r)
      most = std::max(most, m->row_ptr[r + 1] - m->row_ptr[r]);
  return most;
}

// --lambda within what the single-precision solves hold for these ratings, or a UsageError naming
// it. Its bound is not fk-sfa's fixed 1e30: a row's weight on its diagonal is λ n_r in explicit
// mode (λ in implicit mode), and the conjugate gradient's first residual for the items,
// warm-started from factors of about --init-scale, is about λ n_r · init-scale an entry; its
// squares summed over the factors and its product with λ n_r again are floats. On MovieLens 100K
// (n_r up to 575 in the training split, init-scale 0.1, 64 factors) --lambda 1e17 overflowed them
// in the first iteration, which then failed as "the objective is NaN" (exit 1). Cholesky holds the
// diagonal alone, up to about 1e36 there.
void check_lambda_fits(const AlsOptions& opt, const AlsData& data) {
  const double room = FLT_MAX / 10;  // a margin for the sums and the normal draws' tails
  const double n =
      opt.implicit ? 1.0 : static_cast<double>(std::max<std::int64_t>(most_ratings(data), 1));
  const double k = opt.factors + (opt.biases ? 1 : 0);
  const double s = opt.init_scale;
  const bool cg = opt.solver_kind == Solver::kCg;
  const double most_weight = cg ? std::min(std::sqrt(room / k) / s, std::sqrt(room / s)) : room;
  if (opt.lambda * n <= most_weight) return;
  std::string why;
  if (!opt.implicit)
    why = "λ times a user's or item's ratings, up to " +
          std::to_string(static_cast<std::int64_t>(n)) + " in " + data.source;
  if (cg)
    why += (why.empty() ? "" : ", ") + std::string("from --init-scale ") + app::format_double(s) +
           " with " + std::to_string(static_cast<int>(k)) + " factors";
  // Two significant digits, rounded down so that the value the message gives is one that fits.
  const double most = most_weight / n;
  const double unit = std::pow(10.0, std::floor(std::log10(most)) - 1);
  app::usage_fail("lambda", app::format_double(opt.lambda) + " overflows single precision in the " +
                                (cg ? "conjugate-gradient" : "Cholesky") + " solves (" + why +
                                "): at most about " + fmt("%.2g", std::floor(most / unit) * unit) +
                                " here");
}

class Trainer {
 public:
  Trainer(const AlsOptions& opt, const app::CommonOptions& common, const AlsData& data, Context ctx,
          std::string out_dir, const app::ResolvedConfig& config)
      : opt_(opt), common_(common), data_(data), out_(std::move(out_dir)), config_(config) {
    check_lambda_fits(opt, data);
    hyper_.factors = opt.factors;
    hyper_.biases = opt.biases;
    hyper_.implicit = opt.implicit;
    hyper_.lambda = opt.lambda;
    hyper_.alpha = opt.alpha;
    hyper_.solver = opt.solver_kind;
    hyper_.cg_steps = opt.cg_steps;
    hyper_.global_mean = opt.implicit ? 0.0 : data.global_mean;
    if (!opt.implicit && !opt.no_clip) {
      hyper_.clip_lo = data.rating_min;
      hyper_.clip_hi = data.rating_max;
    }
    hyper_.sddmm = opt.sddmm;
    hyper_.spmm = opt.spmm;
    hyper_.product_spmm = opt.product_spmm;
    hyper_.precision = opt.precision_kind;
    device_ = ctx.describe();
    rounding_ = app::rounding_device(ctx);
    device_kind_ = ctx.is_gpu() ? "gpu" : "cpu";
    // The factors (with the bias column) and the conjugate gradient's vectors, both sides; on the
    // CPU also the engine's two K x K Gram matrices and, in implicit mode, the partials summed into
    // them (the GPU's are in its own memory).
    const std::int64_t squares =
        ctx.is_gpu()
            ? 0
            : 2 + (opt.implicit ? app::cpu_gram_matrices(std::max(data.users(), data.items())) : 0);
    app::check_factors_fit(data.users(), data.items(), opt.factors, 7,
                           "the ratings (" + data.source + ")", "--factors", squares);
    const HostCsr none;
    be_ = make_als_backend(std::move(ctx), hyper_, data.train, data.train_t,
                           opt.implicit ? none : data.test);
    ctx_ = &be_->context();
    log_info() << "[" << device_ << "] kernels: " << be_->kernel_names() << " (plans prepared in "
               << fmt("%.3f", be_->prepare_seconds()) << " s"
               << app::precision_note(hyper_.precision, ctx_->device())
               << app::repeatability_note(be_->kernel_names())
               << app::device_memory_note(ctx_->device()) << ")";
    if (opt.implicit && data.test.nnz() > 0) {
      eval_users_ = ranking_users(data, opt.eval_users, common.seed);
      log_info() << "ranking metrics @" << opt.k << " over " << eval_users_.size() << " test users"
                 << (data.unseen_test_users > 0 ? " (" + std::to_string(data.unseen_test_users) +
                                                      " test users without training data left out)"
                                                : std::string());
    }
  }

  TrainResult run() {
    // The input files' content as the run starts (before any pass): the checkpoints record this,
    // not what the file may hold when a checkpoint is written after an edit mid-run.
    contents_ = app::input_contents(fingerprint(), opt_.resume || opt_.checkpoint_every > 0);
    const std::optional<app::Checkpoint> ck = app::start_training_output(
        {out_,
         opt_.resume,
         fingerprint(),
         config_,
         "iter",
         "iteration",
         common_.iters,
         als_run_files(),
         // So that an input named as one of the run's files in --out is refused, not replaced.
         {common_.input, opt_.test},
         rounding_,
         {{"users.npy", data_.users(), hyper_.k()}, {"items.npy", data_.items(), hyper_.k()}},
         "fk-als",
         {},
         contents_});
    int start = 0;
    if (ck) {
      start = static_cast<int>(ck->get_count("iter", INT_MAX));
      be_->set_factors(ck->array("users.npy", data_.users(), hyper_.k()),
                       ck->array("items.npy", data_.items(), hyper_.k()));
      log_info() << "resumed from " << ck->dir << " after iteration " << start;
    } else {
      HostDense<float> users, items;
      initial_factors(data_, opt_.factors, opt_.biases, opt_.init_scale, common_.seed, users,
                      items);
      be_->set_factors(users, items);
    }
    app::MetricsWriter metrics =
        app::MetricsWriter::open(out_ + "/metrics.jsonl", ck.has_value(), start);
    TrainResult result;
    result.device = device_;
    app::IterationLoop<IterReport> loop;
    loop.flops = [&] { return be_->counters().flops; };
    loop.update = [&] {
      be_->solve_users();
      be_->solve_items();
    };
    loop.evaluate = [&](IterReport& rep) { evaluate(rep); };
    std::optional<double> first_objective;
    bool warned = false;
    loop.record = [&](const IterReport& rep) {
      log_iteration(rep);
      // Every half-step minimizes the objective over its side (exactly, or by CG from the current
      // factors), so it cannot grow in exact arithmetic; growth means the single-precision solves
      // broke down (--lambda 1e-20 on a small set: train_rmse in the millions, exit 0, no word).
      // A floor of 1e-6 a rating: a fit already near exact (every rating equal) may wobble in
      // its last bits far above a first objective of 1e-13 without anything breaking down.
      if (!first_objective) first_objective = rep.objective;
      const double floor = 1e-6 * static_cast<double>(data_.train.nnz());
      if (!warned && rep.objective > 10 * *first_objective && rep.objective > floor) {
        log_warn() << "the objective grew from " << *first_objective << " to " << rep.objective
                   << " by iteration " << rep.iter
                   << ": the single-precision solves broke down; raise --lambda or rescale the "
                      "ratings";
        warned = true;
      }
      metrics.write(json(rep));
      result.iters.push_back(rep);
      result.last = rep;
    };
    loop.checkpoint = [&](int it) { write_checkpoint(it); };
    loop.checkpoint_every = opt_.checkpoint_every;
    loop.divergence_hint =
        "ratings far from unit scale (rescale them), too little regularization (raise --lambda), "
        "or "
        "a --lambda or --alpha so large that single precision overflows (lower it)";
    loop.run(*ctx_, start + 1, common_.iters);
    if (!result.last) {
      // No iteration ran (--iters 0, or resumed at the end): report the model as it is.
      IterReport rep;
      rep.iter = start;
      evaluate(rep);
      result.last = rep;
    }
    result.users = be_->user_factors();
    result.items = be_->item_factors();
    result.kernels = be_->kernel_names();
    result.prepare_seconds = be_->prepare_seconds();
    result.ranking_users = static_cast<std::int64_t>(eval_users_.size());
    save_als_model(out_, result.users, result.items, opt_.factors, opt_.biases, opt_.implicit,
                   hyper_.global_mean, data_.user_ids, data_.item_ids, data_.train);
    write_summary(result);
    app::finish_run(out_);
    return result;
  }

 private:
  void evaluate(IterReport& rep) {
    const TrainLoss loss = be_->train_loss();
    rep.objective = loss.objective;
    if (!opt_.implicit) {
      rep.train_rmse = std::sqrt(loss.sse / static_cast<double>(std::max<std::int64_t>(loss.n, 1)));
      const TestErrors e = be_->test_errors();
      if (e.n > 0) {
        rep.test_rmse = std::sqrt(e.sse / static_cast<double>(e.n));
        rep.test_mae = e.sae / static_cast<double>(e.n);
      }
    } else if (!eval_users_.empty()) {
      const RankingMetrics m = ranking_metrics(be_->user_factors(), be_->item_factors(),
                                               data_.train, data_.test, eval_users_, opt_.k);
      rep.precision_at_k = m.precision;
      rep.map_at_k = m.map;
      rep.ndcg_at_k = m.ndcg;
    }
  }

  void log_iteration(const IterReport& r) const {
    std::ostringstream os;
    os << "iter " << r.iter << "/" << common_.iters << ": " << fmt("%.4f", r.seconds) << " s ("
       << fmt("%.1f", r.gflops) << " GFLOP/s)";
    if (r.train_rmse) os << ", train_rmse " << fmt("%.4f", *r.train_rmse);
    if (r.test_rmse)
      os << ", test_rmse " << fmt("%.4f", *r.test_rmse) << ", test_mae "
         << fmt("%.4f", *r.test_mae);
    if (r.precision_at_k)
      os << ", precision@" << opt_.k << " " << fmt("%.4f", *r.precision_at_k) << ", map@" << opt_.k
         << " " << fmt("%.4f", *r.map_at_k) << ", ndcg@" << opt_.k << " "
         << fmt("%.4f", *r.ndcg_at_k);
    os << ", objective " << fmt("%.6g", r.objective) << " (eval " << fmt("%.3f", r.eval_seconds)
       << " s)";
    log_info() << os.str();
  }

  app::JsonObject json(const IterReport& r) const {
    app::JsonObject j = app::iteration_json(r, device_kind_);
    j.add("objective", r.objective);
    if (!opt_.implicit) {
      j.add("train_rmse", r.train_rmse).add("test_rmse", r.test_rmse).add("test_mae", r.test_mae);
    } else {
      j.add("k", opt_.k)
          .add("precision_at_k", r.precision_at_k)
          .add("map_at_k", r.map_at_k)
          .add("ndcg_at_k", r.ndcg_at_k);
    }
    return j;
  }

  void write_summary(const TrainResult& r) const {
    std::vector<double> secs;
    for (const IterReport& it : r.iters) secs.push_back(it.seconds);
    app::JsonObject j;
    j.add("device", device_)
        .add("build", build_commit())
        .add("mode", opt_.implicit ? "implicit" : "explicit")
        .add("solver", to_string(opt_.solver_kind))
        .add("factors", opt_.factors)
        .add("users", data_.users())
        .add("items", data_.items())
        .add("train_ratings", data_.train.nnz())
        .add("test_ratings", data_.test.nnz())
        .add("global_mean", hyper_.global_mean)
        .add("unseen_test_users", data_.unseen_test_users)
        .add("unseen_test_items", data_.unseen_test_items)
        .add("unseen_test_ratings", data_.unseen_test_ratings)
        .add("unseen_policy",
             opt_.implicit
                 ? "users left out of the ranking metrics; items stay in their users' relevant "
                   "sets with zero factors (a score of 0: almost always a miss)"
                 : "predicted from the global mean and the known biases (their factors are zero)")
        // The model's iterations (a resumed run's include the checkpoint's); the median is over
        // the ones this run made.
        .add("iterations", static_cast<std::int64_t>(r.last ? r.last->iter : 0))
        .add("iterations_this_run", static_cast<std::int64_t>(r.iters.size()))
        .add("median_iter_seconds", app::median_seconds(secs))
        .add("prepare_seconds", r.prepare_seconds)
        .add("kernels", r.kernels)
        .add("precision", to_string(hyper_.precision));
    app::add_memory_peaks(j, memory_peaks(), device_kind_ == "gpu");
    if (data_.true_train_rmse) j.add("true_train_rmse", *data_.true_train_rmse);
    if (data_.true_test_rmse) j.add("true_test_rmse", *data_.true_test_rmse);
    if (r.last) {
      j.add("objective", r.last->objective);
      if (r.last->train_rmse) j.add("train_rmse", *r.last->train_rmse);
      if (r.last->test_rmse)
        j.add("test_rmse", *r.last->test_rmse).add("test_mae", *r.last->test_mae);
      if (r.last->precision_at_k)
        j.add("k", opt_.k)
            .add("precision_at_k", *r.last->precision_at_k)
            .add("map_at_k", *r.last->map_at_k)
            .add("ndcg_at_k", *r.last->ndcg_at_k)
            .add("ranking_users", r.ranking_users);
    }
    io::AtomicFile f(out_ + "/summary.json");
    f.stream() << j.str() << "\n";
    f.commit();
  }

  std::string checkpoint_dir() const { return out_ + "/checkpoint"; }

  // What a checkpoint must match: the configuration without the options that do not change the
  // model (app::model_fingerprint's list and "k", "eval-users").
  app::ResolvedConfig fingerprint() const {
    return app::model_fingerprint(config_, {"k", "eval-users", "no-clip"});
  }

  void write_checkpoint(int iter) {
    app::save_checkpoint(checkpoint_dir(), iter, "iteration", fingerprint(), contents_, rounding_,
                         {{"users.npy", be_->user_factors()}, {"items.npy", be_->item_factors()}});
  }

  const AlsOptions& opt_;
  const app::CommonOptions& common_;
  const AlsData& data_;
  std::string out_;
  app::ResolvedConfig config_;
  AlsHyper hyper_;
  std::string device_, device_kind_;
  std::string rounding_;  // app::rounding_device: what the checkpoint records and compares
  app::InputContents contents_;  // the input files' content as the run started (checkpoints)
  std::unique_ptr<AlsBackend> be_;
  const Context* ctx_ = nullptr;
  std::vector<std::int64_t> eval_users_;
};

}  // namespace

void initial_factors(const AlsData& data, int factors, bool biases, double init_scale,
                     std::uint64_t seed, HostDense<float>& users, HostDense<float>& items) {
  const int k = factors + (biases ? 1 : 0);
  users = HostDense<float>(data.users(), k, 0.0f);
  items = HostDense<float>(data.items(), k, 0.0f);
  const Rng base = Rng(seed).split(kInitStream);
  const std::int64_t n = data.items();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    if (data.train_t.row_ptr[i + 1] == data.train_t.row_ptr[i]) continue;
    Rng rng = base.split(static_cast<std::uint64_t>(i));
    for (int c = 0; c < factors; ++c) items(i, c) = static_cast<float>(init_scale * rng.normal());
  }
}

RankingMetrics ranking_metrics(const HostDense<float>& user_factors,
                               const HostDense<float>& item_factors, const HostCsr& train,
                               const HostCsr& test, const std::vector<std::int64_t>& users, int k) {
  RankingMetrics out;
  const std::int64_t n_items = item_factors.rows();
  const std::int64_t f = item_factors.cols();
  if (users.empty() || n_items == 0) return out;
  Eigen::Map<const RowMatrix> y(item_factors.data(), n_items, f);
  const std::int64_t blocks =
      (static_cast<std::int64_t>(users.size()) + kScoreBlock - 1) / kScoreBlock;
  std::vector<double> prec(users.size()), ap(users.size()), ndcg(users.size());
  // No ranked list is longer than the items (a huge --k would allocate k discounts).
  const std::int64_t depth = std::min<std::int64_t>(k, n_items);
  std::vector<double> discount(static_cast<std::size_t>(depth) + 1);
  for (std::int64_t p = 1; p <= depth; ++p) discount[p] = 1.0 / std::log2(double(p) + 1.0);
  RowMatrix scores;
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t t0 = b * kScoreBlock;
    const std::int64_t t1 =
        std::min<std::int64_t>(static_cast<std::int64_t>(users.size()), t0 + kScoreBlock);
    RowMatrix x(t1 - t0, f);
    for (std::int64_t t = t0; t < t1; ++t)
      x.row(t - t0) = Eigen::Map<const Eigen::RowVectorXf>(user_factors.row(users[t]), f);
    scores.noalias() = x * y.transpose();  // (block users) x items
#pragma omp parallel for schedule(dynamic, 4)
    for (std::int64_t t = t0; t < t1; ++t) {
      const std::int64_t u = users[t];
      float* s = scores.data() + (t - t0) * n_items;
      for (std::int64_t j = train.row_ptr[u]; j < train.row_ptr[u + 1]; ++j)
        s[train.col_idx[j]] = -std::numeric_limits<float>::infinity();
      std::vector<std::int32_t> idx(static_cast<std::size_t>(n_items));
      for (std::int64_t i = 0; i < n_items; ++i) idx[i] = static_cast<std::int32_t>(i);
      const std::int64_t rated = train.row_ptr[u + 1] - train.row_ptr[u];
      const std::int64_t top = std::min<std::int64_t>(k, n_items - rated);
      std::partial_sort(
          idx.begin(), idx.begin() + top, idx.end(),
          [&](std::int32_t a, std::int32_t c) { return s[a] > s[c] || (s[a] == s[c] && a < c); });
      const std::int32_t* rel = test.col_idx.data() + test.row_ptr[u];
      const std::int64_t n_rel = test.row_ptr[u + 1] - test.row_ptr[u];  // sorted columns
      std::int64_t hits = 0;
      double sum_prec = 0, dcg = 0, idcg = 0;
      for (std::int64_t p = 1; p <= top; ++p)
        if (std::binary_search(rel, rel + n_rel, idx[p - 1])) {
          ++hits;
          sum_prec += static_cast<double>(hits) / static_cast<double>(p);
          dcg += discount[p];
        }
      const std::int64_t ideal = std::min<std::int64_t>(k, n_rel);
      for (std::int64_t p = 1; p <= ideal; ++p) idcg += discount[p];
      prec[t] = static_cast<double>(hits) / k;
      ap[t] = ideal > 0 ? sum_prec / static_cast<double>(ideal) : 0.0;
      ndcg[t] = idcg > 0 ? dcg / idcg : 0.0;
    }
  }
  for (std::size_t t = 0; t < users.size(); ++t) {
    out.precision += prec[t];
    out.map += ap[t];
    out.ndcg += ndcg[t];
  }
  const double n = static_cast<double>(users.size());
  out.precision /= n;
  out.map /= n;
  out.ndcg /= n;
  out.users = static_cast<std::int64_t>(users.size());
  return out;
}

TrainResult train_als(const AlsOptions& opt, const app::CommonOptions& common, const AlsData& data,
                      Context ctx, const std::string& out_dir, const app::ResolvedConfig& config) {
  Trainer t(opt, common, data, std::move(ctx), out_dir, config);
  return t.run();
}

}  // namespace fk::als
