#include "apps/sfa/sfa_trainer.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "apps/als/als_model.hpp"
#include "apps/als/als_trainer.hpp"
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
#include "core/timer.hpp"

namespace fk::sfa {
namespace {

using app::fmt;

// [m | extra]: rows x (F + 1) with `extra` (or zeros) as the last column.
HostDense<float> augment(const HostDense<float>& m, const std::vector<float>* extra) {
  HostDense<float> out(m.rows(), m.cols() + 1, 0.0f);
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    std::copy(m.row(r), m.row(r) + m.cols(), out.row(r));
    if (extra) out(r, m.cols()) = (*extra)[static_cast<std::size_t>(r)];
  }
  return out;
}

// Removes column `col` (Λ's constant offset column) of m.
HostDense<float> drop_offset_column(const HostDense<float>& m, int col) {
  HostDense<float> out(m.rows(), m.cols() - 1);
  for (std::int64_t r = 0; r < m.rows(); ++r)
    for (std::int64_t c = 0, o = 0; c < m.cols(); ++c)
      if (c != col) out(r, o++) = m(r, c);
  return out;
}

class Trainer {
 public:
  Trainer(const SfaOptions& opt, const app::CommonOptions& common, const als::AlsData& data,
          Context ctx, std::string out_dir, const app::ResolvedConfig& config)
      : opt_(opt), common_(common), data_(data), out_(std::move(out_dir)), config_(config) {
    hyper_.factors = opt.factors;
    hyper_.lambda_u = opt.lambda_u;
    hyper_.lambda_m = opt.lambda_m;
    hyper_.cg_steps = opt.cg_steps;
    hyper_.mstep = opt.mstep_kind;
    hyper_.lrate = opt.lrate;
    hyper_.user_offset = !opt.no_user_offset;
    hyper_.global_mean = data.global_mean;
    if (!opt.no_clip) {
      hyper_.clip_lo = data.rating_min;
      hyper_.clip_hi = data.rating_max;
    }
    hyper_.sddmm = opt.sddmm;
    hyper_.spmm = opt.spmm;
    hyper_.product_spmm = opt.product_spmm;
    hyper_.precision = opt.precision_kind;
    means_ = item_means(data, opt.mean_prior);
    device_ = ctx.describe();
    rounding_ = app::rounding_device(ctx);
    device_kind_ = ctx.is_gpu() ? "gpu" : "cpu";
    // On the CPU also the engine's four K x K matrices (XᵀX, the preconditioner, the eigenvectors
    // and their transpose) and the partials summed into XᵀX (the GPU's are in its own memory).
    const std::int64_t squares =
        ctx.is_gpu() ? 0 : 4 + app::cpu_gram_matrices(std::max(data.users(), data.items()));
    app::check_factors_fit(data.users(), data.items(), opt.factors, 7,
                           "the ratings (" + data.source + ")", "--factors", squares);
    be_ = make_sfa_backend(std::move(ctx), hyper_, data.train, data.train_t, data.test, means_);
    ctx_ = &be_->context();
    log_info() << "[" << device_ << "] kernels: " << be_->kernel_names() << " (plans prepared in "
               << fmt("%.3f", be_->prepare_seconds()) << " s"
               << app::precision_note(hyper_.precision, ctx_->device())
               << app::repeatability_note(be_->kernel_names())
               << app::device_memory_note(ctx_->device()) << ")";
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
         "pass",
         common_.iters,
         run_files(),
         // So that an input named as one of the run's files in --out is refused, not replaced.
         {common_.input, opt_.test},
         rounding_,
         {{"users.npy", data_.users(), hyper_.k()}, {"items.npy", data_.items(), hyper_.k()}},
         "fk-sfa",
         {},
         contents_});
    int start = 0;
    if (ck) {
      start = static_cast<int>(ck->get_count("iter", INT_MAX));
      be_->set_factors(ck->array("users.npy", data_.users(), hyper_.k()),
                       ck->array("items.npy", data_.items(), hyper_.k()));
      log_info() << "resumed from " << ck->dir << " after pass " << start;
    } else {
      // ALS's seeded initialisation: users 0, rated items N(0, init_scale²) (the offset column is
      // set to 1 by the backend).
      HostDense<float> users, items;
      als::initial_factors(data_, opt_.factors, hyper_.user_offset, opt_.init_scale, common_.seed,
                           users, items);
      be_->set_factors(users, items);
    }
    app::MetricsWriter metrics =
        app::MetricsWriter::open(out_ + "/metrics.jsonl", ck.has_value(), start);
    TrainResult result;
    result.device = device_;
    app::IterationLoop<PassReport> loop;
    loop.flops = [&] { return be_->counters().flops; };
    loop.update = [&] {
      be_->user_step();
      be_->model_step();
    };
    loop.evaluate = [&](PassReport& rep) { evaluate(rep); };
    std::optional<double> first_objective;
    std::optional<PassReport> previous;
    bool warned = false, warned_rise = false;
    loop.record = [&](const PassReport& rep) {
      log_pass(rep);
      // The objective falls pass by pass unless a grad M-step's learning rate is too large: its
      // curvature, n_i/U XᵀX per item, is only the average of the items' true ones, so a step can
      // overshoot (ml-100k with --no-user-offset at the default --lrate rises 0.2% after pass 21).
      // A rise under 1e-6 is float32 rounding near convergence, not worth a warning.
      if (!first_objective) first_objective = rep.objective;
      if (!warned && (!std::isfinite(rep.objective) || rep.objective > 10 * *first_objective)) {
        log_warn() << "the objective grew from " << *first_objective << " to " << rep.objective
                   << " by pass " << rep.iter << ": training diverges"
                   << (hyper_.mstep == MStep::kGrad ? "; lower --lrate" : "");
        warned = true;
      } else if (!warned_rise && previous && rep.objective > previous->objective * (1 + 1e-6)) {
        log_warn() << "the objective rose from " << previous->objective << " (pass "
                   << previous->iter << ") to " << rep.objective << " (pass " << rep.iter << ")"
                   << (hyper_.mstep == MStep::kGrad
                           ? ": the grad M-step overshoots; a lower --lrate or --mstep em falls "
                             "every pass"
                           : "");
        warned_rise = true;
      }
      previous = rep;
      metrics.write(json(rep));
      result.iters.push_back(rep);
      result.last = rep;
    };
    loop.checkpoint = [&](int it) { write_checkpoint(it); };
    loop.checkpoint_every = opt_.checkpoint_every;
    loop.iter_name = "pass";
    loop.divergence_hint =
        "ratings far from unit scale (rescale them), too little regularization (raise --lambda-u, "
        "--lambda-m) "
        "or, with --mstep grad, too large a step (lower --lrate)";
    loop.run(*ctx_, start + 1, common_.iters);
    if (!result.last) {
      PassReport rep;  // no pass ran (--iters 0, or resumed at the end): the model as it is
      rep.iter = start;
      evaluate(rep);
      result.last = rep;
    }
    result.users = be_->user_factors();
    result.items = be_->item_factors();
    result.item_means = means_;
    result.kernels = be_->kernel_names();
    result.prepare_seconds = be_->prepare_seconds();
    // fk-als's model: users [factors, offset (or 0)], items [loadings, item mean].
    HostDense<float> users_aug = hyper_.user_offset ? result.users : augment(result.users, nullptr);
    HostDense<float> items_aug = augment(result.items, &means_);
    if (hyper_.user_offset) items_aug = drop_offset_column(items_aug, opt_.factors);
    // item_bias.npy (in save_als_model) holds the offsets m_i; item_means.npy the shrunk means
    // themselves, on the ratings' scale. Before model.ini, which comes last.
    std::vector<float> shrunk_means(means_.size());
    for (std::size_t i = 0; i < means_.size(); ++i)
      shrunk_means[i] = static_cast<float>(data_.global_mean + double(means_[i]));
    io::write_npy(out_ + "/item_means.npy", shrunk_means);
    als::save_als_model(out_, users_aug, items_aug, opt_.factors, /*biases=*/true,
                        /*implicit=*/false, data_.global_mean, data_.user_ids, data_.item_ids,
                        data_.train, "fk-sfa");
    write_summary(result);
    app::finish_run(out_);
    return result;
  }

 private:
  void evaluate(PassReport& rep) {
    const TrainLoss loss = be_->train_loss();
    rep.objective = loss.objective;
    rep.train_rmse = std::sqrt(loss.sse / static_cast<double>(std::max<std::int64_t>(loss.n, 1)));
    const TestErrors e = be_->test_errors();
    if (e.n > 0) {
      rep.test_rmse = std::sqrt(e.sse / static_cast<double>(e.n));
      rep.test_mae = e.sae / static_cast<double>(e.n);
    }
  }

  void log_pass(const PassReport& r) const {
    std::ostringstream os;
    os << "pass " << r.iter << "/" << common_.iters << ": " << fmt("%.4f", r.seconds) << " s ("
       << fmt("%.1f", r.gflops) << " GFLOP/s), train_rmse " << fmt("%.4f", r.train_rmse);
    if (r.test_rmse)
      os << ", test_rmse " << fmt("%.4f", *r.test_rmse) << ", test_mae "
         << fmt("%.4f", *r.test_mae);
    os << ", objective " << fmt("%.6g", r.objective) << " (eval " << fmt("%.3f", r.eval_seconds)
       << " s)";
    log_info() << os.str();
  }

  app::JsonObject json(const PassReport& r) const {
    app::JsonObject j = app::iteration_json(r, device_kind_);
    j.add("objective", r.objective)
        .add("train_rmse", r.train_rmse)
        .add("test_rmse", r.test_rmse)
        .add("test_mae", r.test_mae);
    return j;
  }

  void write_summary(const TrainResult& r) const {
    std::vector<double> secs;
    for (const PassReport& it : r.iters) secs.push_back(it.seconds);
    app::JsonObject j;
    j.add("device", device_)
        .add("build", build_commit())
        .add("mstep", to_string(opt_.mstep_kind))
        .add("factors", opt_.factors)
        .add("users", data_.users())
        .add("items", data_.items())
        .add("train_ratings", data_.train.nnz())
        .add("test_ratings", data_.test.nnz())
        .add("global_mean", data_.global_mean)
        .add("unseen_test_users", data_.unseen_test_users)
        .add("unseen_test_items", data_.unseen_test_items)
        .add("unseen_test_ratings", data_.unseen_test_ratings)
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
      j.add("objective", r.last->objective).add("train_rmse", r.last->train_rmse);
      if (r.last->test_rmse)
        j.add("test_rmse", *r.last->test_rmse).add("test_mae", *r.last->test_mae);
    }
    io::AtomicFile f(out_ + "/summary.json");
    f.stream() << j.str() << "\n";
    f.commit();
  }

  std::string checkpoint_dir() const { return out_ + "/checkpoint"; }
  static std::vector<std::string> run_files() {
    std::vector<std::string> names = als::als_run_files();
    names.push_back("item_means.npy");
    return names;
  }

  // What a checkpoint must match: the configuration without the options that do not change the
  // model (app::model_fingerprint's list).
  // no-clip changes only the reported test errors.
  app::ResolvedConfig fingerprint() const { return app::model_fingerprint(config_, {"no-clip"}); }

  // X and Λ are the whole state of a pass (the preconditioners are recomputed from them), so a
  // resumed run repeats the uninterrupted one exactly.
  void write_checkpoint(int iter) {
    app::save_checkpoint(checkpoint_dir(), iter, "pass", fingerprint(), contents_, rounding_,
                         {{"users.npy", be_->user_factors()}, {"items.npy", be_->item_factors()}});
  }

  const SfaOptions& opt_;
  const app::CommonOptions& common_;
  const als::AlsData& data_;
  std::string out_;
  app::ResolvedConfig config_;
  SfaHyper hyper_;
  std::vector<float> means_;
  std::string device_, device_kind_;
  std::string rounding_;  // app::rounding_device: what the checkpoint records and compares
  app::InputContents contents_;  // the input files' content as the run started (checkpoints)
  std::unique_ptr<SfaBackend> be_;
  const Context* ctx_ = nullptr;
};

}  // namespace

std::vector<float> item_means(const als::AlsData& data, double prior) {
  const HostCsr& t = data.train_t;
  std::vector<float> m(static_cast<std::size_t>(t.rows), 0.0f);
  for (std::int64_t i = 0; i < t.rows; ++i) {
    double sum = 0;
    for (std::int64_t j = t.row_ptr[i]; j < t.row_ptr[i + 1]; ++j)
      sum += t.vals[j] - data.global_mean;
    const double n = static_cast<double>(t.row_ptr[i + 1] - t.row_ptr[i]);
    if (n > 0) m[i] = static_cast<float>(sum / (n + prior));
  }
  return m;
}

als::AlsOptions data_options(const SfaOptions& opt) {
  als::AlsOptions a;
  a.holdout_frac = opt.holdout_frac;
  a.leave_k_out = 0;
  a.test = opt.test;
  a.implicit = false;
  return a;
}

TrainResult train_sfa(const SfaOptions& opt, const app::CommonOptions& common,
                      const als::AlsData& data, Context ctx, const std::string& out_dir,
                      const app::ResolvedConfig& config) {
  Trainer t(opt, common, data, std::move(ctx), out_dir, config);
  return t.run();
}

}  // namespace fk::sfa
