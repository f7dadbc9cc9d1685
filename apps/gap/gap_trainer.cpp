#include "apps/gap/gap_trainer.hpp"

#include <math.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "apps/common/checkpoint.hpp"
#include "apps/common/compare.hpp"
#include "apps/common/memory.hpp"
#include "apps/common/output.hpp"
#include "apps/common/precision.hpp"
#include "apps/common/repeatability.hpp"
#include "apps/common/train_loop.hpp"
#include "apps/lda/coherence.hpp"
#include "apps/lda/lda_trainer.hpp"
#include "core/build_info.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/npy.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/random.hpp"
#include "core/timer.hpp"

namespace fk::gap {
namespace {

using app::fmt;

constexpr std::uint64_t kLambdaStream = 0x6a91;  // initial Λ's random stream of --seed
constexpr std::uint64_t kXStream = 0x6a92;       // initial X's

double log_gamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

class Trainer {
 public:
  Trainer(const GapOptions& opt, const app::CommonOptions& common, const GapData& data, Context ctx,
          std::string out_dir, const app::ResolvedConfig& config, app::StatsReducer* reducer)
      : opt_(opt),
        common_(common),
        data_(data),
        out_(std::move(out_dir)),
        config_(config),
        // Once, from the input as read: a checkpoint written later must not need the file again.
        implied_{{"vocab", lda::implied_vocab(common.input, common.format), ""}},
        reducer_(reducer ? reducer : &local_reducer_) {
    GapHyper h;
    h.factors = opt.factors;
    h.a = opt.a;
    h.b = opt.b;
    h.test_iters = opt.test_iters;
    h.sddmm = opt.sddmm;
    h.spmm = opt.spmm;
    h.update = opt.update == "alternating" ? GapUpdate::kAlternating : GapUpdate::kJoint;
    h.ratio_spmm = opt.ratio_spmm;
    h.precision = opt.precision_kind;
    device_ = ctx.describe();
    rounding_ = app::rounding_device(ctx);
    device_kind_ = ctx.is_gpu() ? "gpu" : "cpu";
    GapMatrices m;
    m.train = &data.train;
    m.heldout = &data.heldout;
    m.test_observed = &data.test_observed;
    m.test_scored = &data.test_scored;
    // Λ, X and their statistics, and the copies the model files are written from (a CPU run of
    // --factors 20000 on 300 documents peaked at 1.6x three arrays); beside them the top-words
    // files and the coherence, made at the end: --factors 100000000 on a 3 x 4 file trained for
    // 8 minutes and was then killed for memory while writing them.
    app::check_factors_fit(data.docs(), data.words(), opt.factors, 6,
                           "the data (" + data.source + ")", "--factors", 0,
                           lda::top_words_bytes_per_topic(data.words(), opt.top_words),
                           "--top-words");
    be_ = make_gap_backend(std::move(ctx), h, m);
    log_info() << "[" << device_ << "] kernels: " << be_->kernel_names() << " (plans prepared in "
               << fmt("%.3f", be_->prepare_seconds()) << " s"
               << app::precision_note(h.precision, be_->context().device())
               << app::repeatability_note(be_->kernel_names())
               << app::device_memory_note(be_->context().device()) << ")";
    if (data.unigram_heldout_ll)
      log_info() << "unigram baseline: heldout_ll " << fmt("%.4f", *data.unigram_heldout_ll)
                 << ", train_ll " << fmt("%.4f", data.unigram_train_ll) << " per token";
  }

  TrainResult run() {
    // The input files' content as the run starts (before any pass): the checkpoints record this,
    // not what the file may hold when a checkpoint is written after an edit mid-run.
    contents_ = app::input_contents(fingerprint(), opt_.resume || opt_.checkpoint_every > 0);
    const std::optional<app::Checkpoint> ck = app::start_training_output(
        {out_, opt_.resume, fingerprint(), config_, "iter", "iteration", common_.iters,
         {"lambda.npy", "x.npy", "top_words.txt", "top_words.csv", "coherence.csv", "vocab.txt",
          "doc_ids.txt", "heldout.mtx", "model.ini", "summary.json", "metrics.jsonl", "config.ini", "config.json"},
         data_.input_files, rounding_,
         {{"lambda.npy", data_.words(), opt_.factors}, {"x.npy", data_.docs(), opt_.factors}},
         "fk-gap", implied_, contents_});
    int start = 0;
    if (ck) {
      start = static_cast<int>(ck->get_count("iter", INT_MAX));
      be_->set_model(ck->array("lambda.npy", data_.words(), opt_.factors),
                     ck->array("x.npy", data_.docs(), opt_.factors));
      log_info() << "resumed from " << ck->dir << " after iteration " << start;
    } else {
      HostDense<float> lambda, x;
      initial_model(data_, opt_.factors, common_.seed, lambda, x);
      be_->set_model(lambda, x);
    }
    app::MetricsWriter metrics =
        app::MetricsWriter::open(out_ + "/metrics.jsonl", ck.has_value(), start);
    TrainResult result;
    result.device = device_;
    app::IterationLoop<IterReport> loop;
    loop.flops = [&] { return be_->counters().flops; };
    loop.update = [&] { be_->iterate(*reducer_); };
    loop.evaluate_now = [&](int it) {
      return it == common_.iters || (opt_.eval_every > 0 && it % opt_.eval_every == 0);
    };
    loop.evaluate = [&](IterReport& rep) { evaluate(rep); };
    loop.record = [&](const IterReport& rep) {
      log_iteration(rep);
      metrics.write(json(rep));
      result.iters.push_back(rep);
      result.last = rep;
    };
    loop.checkpoint = [&](int it) { write_checkpoint(it); };
    loop.checkpoint_every = opt_.checkpoint_every;
    loop.divergence_hint = "counts too large for single precision (rescale them)";
    loop.run(be_->context(), start + 1, common_.iters);
    if (!result.last) {
      IterReport rep;  // no iteration ran (--iters 0, or resumed at the end): the model as it is
      rep.iter = start;
      evaluate(rep);
      result.last = rep;
    }
    result.lambda = be_->lambda();
    result.x = be_->x();
    result.kernels = be_->kernel_names();
    result.prepare_seconds = be_->prepare_seconds();
    write_model(result);
    // After the model is saved (the coherence's cost grows with the words' pairs), before the
    // summary, which holds it.
    result.coherence =
        lda::score_topics(result.lambda, opt_.top_words, {{&data_.train, nullptr}}, data_.vocab,
                          "the factors (training counts)", out_ + "/coherence.csv", "factor");
    write_summary(result);
    app::finish_run(out_);
    return result;
  }

 private:
  void evaluate(IterReport& rep) {
    rep.evaluated = true;
    const ModelSums s = be_->evaluate();
    rep.objective = map_objective(s, data_, opt_.a, opt_.b, opt_.factors);
    rep.train_ll = (s.train_log_rate - s.rate_sum - data_.train_log_fact) / data_.train_tokens;
    if (s.heldout_log_rate && data_.heldout_tokens > 0) {
      const double p = data_.holdout_frac, ratio = p / (1.0 - p);
      rep.heldout_ll = (*s.heldout_log_rate + data_.heldout_tokens * std::log(ratio) -
                        ratio * s.rate_sum - data_.heldout_log_fact) /
                       data_.heldout_tokens;
    } else if (s.test_log_rate && data_.test_tokens > 0) {
      rep.heldout_ll =
          (*s.test_log_rate - *s.test_rate_sum - data_.test_log_fact) / data_.test_tokens;
    }
  }

  void log_iteration(const IterReport& r) const {
    std::ostringstream os;
    os << "[" << device_kind_ << "] iter " << r.iter << "/" << common_.iters << ": "
       << fmt("%.4f", r.seconds) << " s (" << fmt("%.1f", r.gflops) << " GFLOP/s)";
    if (r.evaluated) {
      os << ", train_ll " << fmt("%.4f", r.train_ll);
      if (r.heldout_ll) os << ", heldout_ll " << fmt("%.4f", *r.heldout_ll);
      os << ", objective " << fmt("%.8g", r.objective) << " (eval " << fmt("%.3f", r.eval_seconds)
         << " s)";
    }
    log_info() << os.str();
  }

  app::JsonObject json(const IterReport& r) const {
    app::JsonObject j = app::iteration_json(r, device_kind_);
    if (r.evaluated)
      j.add("train_ll", r.train_ll).add("heldout_ll", r.heldout_ll).add("objective", r.objective);
    else
      j.add_null("train_ll").add_null("heldout_ll").add_null("objective");
    return j;
  }

  // The model's files, model.ini last (write_summary's summary.json comes after it).
  void write_model(const TrainResult& r) const {
    io::write_npy(out_ + "/lambda.npy", r.lambda);
    io::write_npy(out_ + "/x.npy", r.x);
    if (opt_.top_words > 0) {
      lda::write_top_words(out_, r.lambda, opt_.top_words, data_.vocab, "factor");
    } else {
      app::remove_stale_output(out_ + "/top_words.txt");
      app::remove_stale_output(out_ + "/top_words.csv");
    }
    if (!data_.vocab.empty()) {
      io::AtomicFile f(out_ + "/vocab.txt");
      for (const std::string& w : data_.vocab) f.stream() << w << '\n';
      f.commit();
    } else {
      app::remove_stale_output(out_ + "/vocab.txt");
    }
    if (!data_.doc_ids.empty()) {  // x.npy's rows by name (ratings: users in first-seen order)
      io::AtomicFile f(out_ + "/doc_ids.txt");
      for (const std::string& id : data_.doc_ids) f.stream() << id << '\n';
      f.commit();
    } else {
      app::remove_stale_output(out_ + "/doc_ids.txt");
    }
    // The thinned held-out tokens heldout_ll scores (the input less them is what was trained on),
    // so that the split can be scored again elsewhere.
    if (data_.heldout.nnz() > 0)
      io::write_matrix_market(out_ + "/heldout.mtx", data_.heldout);
    else
      app::remove_stale_output(out_ + "/heldout.mtx");
    // model.ini after the arrays (then summary.json): it says whose folder this is, so that
    // another app's run refuses to mix its files in (app::check_no_other_app_model).
    {
      io::AtomicFile f(out_ + "/model.ini");
      f.stream() << "# fk-gap model: lambda.npy is words x factors (each column a distribution "
                    "over the words), x.npy documents x factors (rows named in doc_ids.txt when "
                    "present)\n"
                 << app::kModelAppKey << " = fk-gap\nfactors = " << opt_.factors
                 << "\nwords = " << data_.words() << "\ndocuments = " << data_.docs()
                 << "\nvocab = " << (data_.vocab.empty() ? "no" : "yes") << "\n";
      f.commit();
    }
  }

  void write_summary(const TrainResult& r) const {
    std::vector<double> secs;
    for (const IterReport& it : r.iters) secs.push_back(it.seconds);
    app::JsonObject j;
    j.add("device", device_)
        .add("build", build_commit())
        .add("factors", opt_.factors)
        .add("a", opt_.a)
        .add("b", opt_.b)
        .add("documents", data_.docs())
        .add("words", data_.words())
        .add("train_tokens", data_.train_tokens)
        .add("heldout_tokens", data_.holdout_frac > 0 ? data_.heldout_tokens : data_.test_tokens)
        .add("heldout",
             data_.holdout_frac > 0
                 ? "binomial thinning"
                 : (data_.test_tokens > 0 ? "test documents, completion halves" : "none"))
        .add("holdout_frac", data_.holdout_frac)
        .add("unscored_tokens", data_.unscored_tokens)
        // The model's iterations (a resumed run's include the checkpoint's); the median is over
        // the ones this run made.
        .add("iterations", static_cast<std::int64_t>(r.last ? r.last->iter : 0))
        .add("iterations_this_run", static_cast<std::int64_t>(r.iters.size()))
        .add("median_iter_seconds", app::median_seconds(secs))
        .add("prepare_seconds", r.prepare_seconds)
        .add("kernels", r.kernels)
        .add("precision", to_string(opt_.precision_kind))
        .add("unigram_train_ll", data_.unigram_train_ll)
        .add("unigram_heldout_ll", data_.unigram_heldout_ll);
    app::add_memory_peaks(j, memory_peaks(), device_kind_ == "gpu");
    if (r.last) {
      j.add("objective", r.last->objective)
          .add("train_ll", r.last->train_ll)
          .add("heldout_ll", r.last->heldout_ll);
      if (r.last->heldout_ll && data_.unigram_heldout_ll)
        j.add("heldout_ll_gain_over_unigram", *r.last->heldout_ll - *data_.unigram_heldout_ll);
    }
    if (r.coherence) {
      j.add("coherence_words", r.coherence->words)
          .add("coherence_umass", r.coherence->mean_umass)
          .add("coherence_npmi", r.coherence->mean_npmi)
          .add("coherence_undefined_factors", r.coherence->undefined);
    }
    io::AtomicFile f(out_ + "/summary.json");
    f.stream() << j.str() << "\n";
    f.commit();
  }

  std::string checkpoint_dir() const { return out_ + "/checkpoint"; }

  // What a checkpoint must match: the configuration without the options that do not change the
  // model (app::model_fingerprint's list and "top-words", "test-iters", "eval-every"); a --vocab
  // naming the file a UCI input reads anyway is the run without it.
  app::ResolvedConfig fingerprint() const {
    return app::model_fingerprint(config_, {"top-words", "test-iters", "eval-every"}, implied_);
  }

  void write_checkpoint(int iter) {
    app::save_checkpoint(checkpoint_dir(), iter, "iteration", fingerprint(), contents_, rounding_,
                         {{"lambda.npy", be_->lambda()}, {"x.npy", be_->x()}});
  }

  const GapOptions& opt_;
  const app::CommonOptions& common_;
  const GapData& data_;
  std::string out_;
  app::ResolvedConfig config_;
  app::ResolvedConfig implied_;  // the vocabulary the input reads without --vocab (fingerprint)
  app::LocalReducer local_reducer_;
  app::StatsReducer* reducer_;
  std::string device_, device_kind_;
  std::string rounding_;  // app::rounding_device: what the checkpoint records and compares
  app::InputContents contents_;  // the input files' content as the run started (checkpoints)
  std::unique_ptr<GapBackend> be_;
};

}  // namespace

void initial_model(const GapData& data, int factors, std::uint64_t seed, HostDense<float>& lambda,
                   HostDense<float>& x) {
  const HostCsr& f = data.train;
  const int k = factors;
  std::vector<double> count(static_cast<std::size_t>(f.cols), 0.0);
  for (std::int64_t j = 0; j < f.nnz(); ++j) count[f.col_idx[j]] += f.vals[j];
  HostDense<double> lam(f.cols, k);
  const Rng lbase = Rng(seed).split(kLambdaStream), xbase = Rng(seed).split(kXStream);
#pragma omp parallel for schedule(static)
  for (std::int64_t w = 0; w < f.cols; ++w) {
    Rng rng = lbase.split(static_cast<std::uint64_t>(w));
    for (int c = 0; c < k; ++c) lam(w, c) = (count[w] + 1.0) * (0.5 + rng.uniform());
  }
  std::vector<double> colsum(static_cast<std::size_t>(k), 0.0);
  for (std::int64_t w = 0; w < f.cols; ++w)
    for (int c = 0; c < k; ++c) colsum[c] += lam(w, c);
  lambda = HostDense<float>(f.cols, k);
  for (std::int64_t w = 0; w < f.cols; ++w)
    for (int c = 0; c < k; ++c) lambda(w, c) = static_cast<float>(lam(w, c) / colsum[c]);
  x = HostDense<float>(f.rows, k);
#pragma omp parallel for schedule(static)
  for (std::int64_t d = 0; d < f.rows; ++d) {
    double len = 0;
    for (std::int64_t j = f.row_ptr[d]; j < f.row_ptr[d + 1]; ++j) len += f.vals[j];
    Rng rng = xbase.split(static_cast<std::uint64_t>(d));
    for (int c = 0; c < k; ++c)
      x(d, c) = static_cast<float>(std::max(len, 1.0) / k * (0.5 + rng.uniform()));
  }
}

double map_objective(const ModelSums& s, const GapData& data, double a, double b, int factors) {
  const double cells = static_cast<double>(data.docs()) * factors;
  return s.train_log_rate - s.rate_sum - data.train_log_fact + s.prior -
         cells * (a * std::log(b) + log_gamma(a));
}

TrainResult train_gap(const GapOptions& opt, const app::CommonOptions& common, const GapData& data,
                      Context ctx, const std::string& out_dir, const app::ResolvedConfig& config,
                      app::StatsReducer* reducer) {
  Trainer t(opt, common, data, std::move(ctx), out_dir, config, reducer);
  return t.run();
}

}  // namespace fk::gap
