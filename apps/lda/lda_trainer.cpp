#include "apps/lda/lda_trainer.hpp"

#include <math.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>

#include "apps/common/checkpoint.hpp"
#include "apps/common/compare.hpp"
#include "apps/common/memory.hpp"
#include "apps/common/output.hpp"
#include "apps/common/precision.hpp"
#include "apps/common/repeatability.hpp"
#include "apps/lda/lda_math.hpp"
#include "core/build_info.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/csv.hpp"
#include "core/io/npy.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/progress.hpp"
#include "core/random.hpp"
#include "core/timer.hpp"

namespace fk::lda {
namespace {

// Sub-streams of --seed (fk::Rng::split): each use of randomness has its own, so adding one never
// shifts another.
constexpr std::uint64_t kTrainGammaStream = 1;  // γ initialisation of training documents (per pass)
constexpr std::uint64_t kEvalGammaStream = 2;   // γ initialisation of held-out fits
constexpr std::uint64_t kLambdaStream = 3;      // λ initialisation
constexpr std::uint64_t kInferGammaStream = 4;  // γ initialisation in `fk-lda infer`

std::uint64_t key_for(std::uint64_t seed, std::uint64_t stream) {
  return Rng(seed).split(stream).next_u64();
}

// log Γ(x) without the global `signgam` that std::lgamma writes (threads call this).
double log_gamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

// Progress lines during a training pass: one every so many seconds at most.
constexpr double kProgressSeconds = 10.0;

// Lines from inside an E-step, at most one every `interval` seconds, where the minibatch line
// cannot come: a pass of one minibatch (--batch, or a corpus under --batch-size) is one E-step,
// minutes long on a large corpus on a few cores, and printed nothing until it ended. On while
// the object lives and `on` holds; silent under -q (log level), as Progress is.
class EStepProgress {
 public:
  EStepProgress(LdaBackend& be, bool on, std::string what, int max_inner, double tol,
                double interval)
      : be_(be), what_(std::move(what)), max_inner_(max_inner), tol_(tol), interval_(interval) {
    if (!on) return;
    be_.set_iteration_observer([this](int it, double change) { report(it, change); });
  }
  ~EStepProgress() { be_.set_iteration_observer({}); }
  EStepProgress(const EStepProgress&) = delete;
  EStepProgress& operator=(const EStepProgress&) = delete;

 private:
  void report(int it, double change) {
    const double t = clock_.seconds();
    if (t - last_ < interval_) return;
    last_ = t;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  ": E-step iteration %d (at most %d), mean change of gamma %.3g (stops below "
                  "%.3g), %.3g s an iteration",
                  it, max_inner_, change, tol_, t / it);
    log_info() << what_ << buf;
  }

  LdaBackend& be_;
  std::string what_;
  int max_inner_;
  double tol_, interval_, last_ = 0;
  Stopwatch clock_;
};

constexpr std::int64_t kBoundChunk = 1024;

// Σ_d [ Σ_k (α − γ_dk) E[log θ_dk] + log Γ(γ_dk) − log Γ(α) ] + log Γ(Kα) − log Γ(Σ_k γ_dk)
double bound_doc_terms(const HostDense<float>& gamma, double alpha) {
  const std::int64_t rows = gamma.rows();
  const int k = static_cast<int>(gamma.cols());
  const std::int64_t chunks = (rows + kBoundChunk - 1) / kBoundChunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks), 0.0);
  const double lg_alpha = log_gamma(alpha), lg_sum_alpha = log_gamma(alpha * k);
#pragma omp parallel for schedule(static)
  for (std::int64_t ch = 0; ch < chunks; ++ch) {
    double s = 0;
    for (std::int64_t r = ch * kBoundChunk; r < std::min(rows, (ch + 1) * kBoundChunk); ++r) {
      const float* g = gamma.row(r);
      double sum = 0;
      for (int c = 0; c < k; ++c) sum += g[c];
      const double psi_sum = digamma(sum);
      for (int c = 0; c < k; ++c) {
        const double e_log_theta = digamma(g[c]) - psi_sum;
        s += (alpha - g[c]) * e_log_theta + log_gamma(g[c]) - lg_alpha;
      }
      s += lg_sum_alpha - log_gamma(sum);
    }
    partial[ch] = s;
  }
  return std::accumulate(partial.begin(), partial.end(), 0.0);
}

// Σ_wk [ (η − λ_wk) E[log β_wk] + log Γ(λ_wk) − log Γ(η) ] + Σ_k [ log Γ(Wη) − log Γ(Σ_w λ_wk) ]
double bound_topic_terms(const HostDense<float>& lambda, double eta) {
  const std::int64_t w = lambda.rows();
  const int k = static_cast<int>(lambda.cols());
  std::vector<double> colsum(static_cast<std::size_t>(k), 0.0);
  for (std::int64_t r = 0; r < w; ++r)
    for (int c = 0; c < k; ++c) colsum[c] += lambda(r, c);
  std::vector<double> psi(static_cast<std::size_t>(k));
  for (int c = 0; c < k; ++c) psi[c] = digamma(colsum[c]);
  const std::int64_t chunks = (w + kBoundChunk - 1) / kBoundChunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks), 0.0);
  const double lg_eta = log_gamma(eta);
#pragma omp parallel for schedule(static)
  for (std::int64_t ch = 0; ch < chunks; ++ch) {
    double s = 0;
    for (std::int64_t r = ch * kBoundChunk; r < std::min(w, (ch + 1) * kBoundChunk); ++r)
      for (int c = 0; c < k; ++c) {
        const double l = lambda(r, c);
        s += (eta - l) * (digamma(l) - psi[c]) + log_gamma(l) - lg_eta;
      }
    partial[ch] = s;
  }
  double total = std::accumulate(partial.begin(), partial.end(), 0.0);
  const double lg_sum_eta = log_gamma(eta * static_cast<double>(w));
  for (int c = 0; c < k; ++c) total += lg_sum_eta - log_gamma(colsum[c]);
  return total;
}

HostDense<float> initial_lambda(std::int64_t words, int k, std::uint64_t seed) {
  HostDense<float> lambda(words, k);
  const std::uint64_t key = key_for(seed, kLambdaStream);
#pragma omp parallel for schedule(static)
  for (std::int64_t w = 0; w < words; ++w)
    for (int c = 0; c < k; ++c) lambda(w, c) = gamma100_draw(key, 0, w, c);
  return lambda;
}

// Rows of every batch's γ stacked (documents in corpus order), optionally normalised.
HostDense<float> stacked_gamma(const LdaBackend& be, const std::vector<int>& ids, std::int64_t docs,
                               int k, bool normalise) {
  HostDense<float> out(docs, k);
  std::int64_t row = 0;
  for (int id : ids) {
    const HostDense<float> g = be.gamma(id);
    std::copy(g.data(), g.data() + g.size(), out.row(row));
    row += g.rows();
  }
  FK_CHECK(row == docs, "γ rows " << row << " != documents " << docs);
  if (normalise) {
    for (std::int64_t r = 0; r < docs; ++r) {
      double s = 0;
      for (int c = 0; c < k; ++c) s += out(r, c);
      for (int c = 0; c < k; ++c) out(r, c) = static_cast<float>(out(r, c) / s);
    }
  }
  return out;
}

HostDense<float> topics_by_words(const HostDense<float>& lambda, bool normalise) {
  const std::int64_t w = lambda.rows();
  const auto k = lambda.cols();
  std::vector<double> colsum(static_cast<std::size_t>(k), 0.0);
  for (std::int64_t r = 0; r < w; ++r)
    for (std::int64_t c = 0; c < k; ++c) colsum[c] += lambda(r, c);
  HostDense<float> out(k, w);
  for (std::int64_t r = 0; r < w; ++r)
    for (std::int64_t c = 0; c < k; ++c)
      out(c, r) = normalise ? static_cast<float>(lambda(r, c) / colsum[c]) : lambda(r, c);
  return out;
}

struct Evaluation {
  std::optional<double> heldout_ll, perplexity, train_bound;
};

class Trainer {
 public:
  Trainer(const LdaOptions& opt, const app::CommonOptions& common, const LdaData& data, Context ctx,
          std::string out_dir, const app::ResolvedConfig& config, app::StatsReducer* reducer)
      : opt_(opt),
        common_(common),
        data_(data),
        out_(std::move(out_dir)),
        config_(config),
        // Once, from the input as read: a checkpoint written later must not need the file again.
        implied_{{"vocab", implied_vocab(common.input, common.format), ""}},
        reducer_(reducer ? reducer : &local_reducer_) {
    device_ = ctx.describe();
    rounding_ = app::rounding_device(ctx);
    device_kind_ = to_string(ctx.device());
    LdaHyper h;
    h.topics = opt.topics;
    h.words = data.words;
    h.alpha = opt.alpha;
    h.eta = opt.eta;
    h.max_inner = opt.inner_iters;
    h.tol = opt.tol;
    h.sddmm = opt.sddmm;
    h.spmm = opt.spmm;
    h.ratio_spmm = opt.ratio_spmm;
    h.precision = opt.precision_kind;
    h.device_memory = static_cast<std::int64_t>(opt.device_memory_mb * (1 << 20));
    // λ and its two companions (K x W), γ and θ (documents x K), and as many again for the
    // copies the model files are written from: a CPU run of --topics 20000 on 300 documents
    // peaked at 1.8x the three arrays.
    app::check_factors_fit(data.train_docs + data.heldout_docs, data.words, opt.topics, 6,
                           "the corpus (" + data.source + ")", "--topics");
    be_ = make_lda_backend(std::move(ctx), h);
    for (const LocalBatch& b : data.train_batches)
      train_ids_.push_back(be_->add_batch(b, BatchRole::kTrain));
    for (std::size_t i = 0; i < data.eval_fit.size(); ++i) {
      fit_ids_.push_back(be_->add_batch(data.eval_fit[i], BatchRole::kFit));
      score_ids_.push_back(be_->add_batch(data.eval_score[i], BatchRole::kScore));
    }
    log_info() << device_ << ": " << train_ids_.size() << " training and " << fit_ids_.size()
               << " held-out minibatches, plans prepared in " << be_->prepare_seconds()
               << " s (kernels: " << be_->kernel_names()
               << app::precision_note(h.precision, be_->context().device())
               << app::repeatability_note(be_->kernel_names())
               << app::device_memory_note(be_->context().device()) << ")";
  }

  TrainResult run() {
    // The input files' content as the run starts (before any pass): the checkpoints record this,
    // not what the file may hold when a checkpoint is written after an edit mid-run.
    contents_ = app::input_contents(fingerprint(), opt_.resume || opt_.checkpoint_every > 0);
    const std::optional<app::Checkpoint> ck = app::start_training_output(
        {out_, opt_.resume, fingerprint(), config_, "pass", "pass", common_.iters,
         {"topics.npy", "lambda.npy", "doc_topics.npy", "train_doc_ids.npy", "top_words.txt",
          "top_words.csv", "coherence.csv", "vocab.txt", "model.ini", "summary.json",
          "metrics.jsonl", "config.ini", "config.json"},
         data_.input_files, rounding_,
         {{"lambda.npy", data_.words, opt_.topics}, {"gamma.npy", data_.train_docs, opt_.topics}},
         "fk-lda", implied_, contents_});
    const int k = opt_.topics;
    int start_pass = 0;
    std::int64_t updates = 0;
    bool have_gamma = false;
    if (ck) {
      start_pass = static_cast<int>(ck->get_count("pass", INT_MAX));
      updates = ck->get_count("updates", INT64_MAX);
      be_->set_lambda(ck->array("lambda.npy", data_.words, k));
      const HostDense<float> gamma = ck->array("gamma.npy", data_.train_docs, k);
      std::int64_t row = 0;
      for (std::size_t i = 0; i < train_ids_.size(); ++i) {
        const std::int64_t rows = data_.train_batches[i].counts.rows;
        HostDense<float> g(rows, k);
        std::copy(gamma.row(row), gamma.row(row) + rows * k, g.data());
        be_->set_gamma(train_ids_[i], g);
        row += rows;
      }
      have_gamma = true;
      log_info() << "resumed from " << ck->dir << " after pass " << start_pass;
    } else {
      be_->set_lambda(initial_lambda(data_.words, k, common_.seed));
    }
    app::MetricsWriter metrics =
        app::MetricsWriter::open(out_ + "/metrics.jsonl", ck.has_value(), start_pass);

    TrainResult result;
    result.device = device_;
    const Context& ctx = be_->context();
    const std::uint64_t train_key = key_for(common_.seed, kTrainGammaStream);
    const std::int64_t wk = data_.words * k;
    Evaluation last;
    bool evaluated_final = false;
    for (int pass = start_pass + 1; pass <= common_.iters; ++pass) {
      const KernelCounters before = be_->counters();
      Stopwatch clock;
      double inner = 0, rho = 1;
      {
        // A pass over a large corpus on a few CPU cores takes minutes: a line every 10 s inside it,
        // from inside the E-step where the pass is one minibatch. For the minibatches only: the
        // held-out fits after the pass are E-steps too.
        const std::string what = "pass " + std::to_string(pass);
        Progress progress(what + ": minibatches", static_cast<std::int64_t>(train_ids_.size()),
                          kProgressSeconds);
        const EStepProgress estep_lines(*be_, train_ids_.size() == 1, what, opt_.inner_iters,
                                        opt_.tol, kProgressSeconds);
        for (std::size_t i = 0; i < train_ids_.size(); ++i) {
          progress.update(static_cast<std::int64_t>(i));  // silent under -q (log level)
          const EStepResult r =
              be_->e_step(train_ids_[i], train_key, static_cast<std::uint64_t>(pass));
          inner += r.inner_iters;
          // The minibatch statistics are a plain sum over workers. With one worker nothing is
          // summed, and the backend may add them to λ without writing them out (LdaEngine).
          if (reducer_->workers() > 1) reducer_->sum(ctx, be_->stats(), wk);
          double batch_docs = static_cast<double>(data_.train_batches[i].counts.rows);
          reducer_->sum_host(&batch_docs, 1);
          const double scale =
              batch_docs > 0 ? static_cast<double>(data_.train_docs) / batch_docs : 0.0;
          rho =
              opt_.batch
                  ? 1.0
                  : std::min(1.0, std::pow(opt_.tau0 + static_cast<double>(updates), -opt_.kappa));
          be_->update_lambda(rho, scale);
          ++updates;
        }
      }
      ctx.synchronize();
      have_gamma = true;
      PassReport rep;
      rep.pass = pass;
      rep.seconds = clock.seconds();
      rep.tokens_per_s = rep.seconds > 0 ? data_.train_tokens / rep.seconds : 0;
      rep.gflops =
          rep.seconds > 0 ? (be_->counters().flops() - before.flops()) / rep.seconds / 1e9 : 0;
      rep.mean_inner = train_ids_.empty() ? 0 : inner / static_cast<double>(train_ids_.size());
      const bool eval_now =
          pass == common_.iters || (opt_.eval_every > 0 && pass % opt_.eval_every == 0);
      if (eval_now) {
        last = evaluate(true);
        rep.heldout_ll = last.heldout_ll;
        rep.perplexity = last.perplexity;
        rep.train_bound = last.train_bound;
        evaluated_final = pass == common_.iters;
      }
      metrics.write(app::JsonObject()
                        .add("iter", pass)
                        .add("seconds", rep.seconds)
                        .add("device", device_kind_)
                        .add("tokens_per_s", rep.tokens_per_s)
                        .add("gflops", rep.gflops)
                        .add("mean_inner_iters", rep.mean_inner)
                        .add("rho", rho)
                        .add("heldout_ll", rep.heldout_ll)
                        .add("perplexity", rep.perplexity)
                        .add("train_bound", rep.train_bound));
      print_pass(rep);
      result.passes.push_back(rep);
      if (eval_now) check_finite(last, "pass " + std::to_string(pass));
      if (opt_.checkpoint_every > 0 && pass % opt_.checkpoint_every == 0)
        write_checkpoint(pass, updates);
    }
    if (!evaluated_final) last = evaluate(have_gamma);
    check_finite(last, "the final model");
    result.heldout_ll = last.heldout_ll;
    result.perplexity = last.perplexity;
    result.train_bound = last.train_bound;
    result.lambda = be_->lambda();
    result.doc_topics = have_gamma
                            ? stacked_gamma(*be_, train_ids_, data_.train_docs, k, true)
                            : HostDense<float>(data_.train_docs, k, 1.0f / static_cast<float>(k));
    result.kernels = be_->kernel_names();
    result.prepare_seconds = be_->prepare_seconds();
    write_outputs(result);
    // After the model is saved (the coherence's cost grows with the words' pairs), before the
    // summary, which holds it.
    result.coherence = score_topics(result.lambda, opt_.top_words, training_documents(),
                                    data_.vocab, "the model's topics (training documents)",
                                    out_ + "/coherence.csv");
    if (result.coherence && data_.true_topics) result.true_coherence = true_topics_coherence();
    write_summary(result);
    app::finish_run(out_);
    return result;
  }

 private:
  std::string checkpoint_dir() const { return out_ + "/checkpoint"; }

  // A model that diverged (extreme counts can overflow the statistics) is not saved as if it had
  // trained: the training bound and held-out likelihood cover every topic-word entry in use.
  static void check_finite(const Evaluation& e, const std::string& what) {
    for (const std::optional<double>& v : {e.train_bound, e.heldout_ll})
      if (v && !std::isfinite(*v))
        throw Error(what + ": the training bound or held-out likelihood is " +
                    (std::isnan(*v) ? "NaN" : "infinite") +
                    ": the model diverged (no model file was written)");
  }

  Evaluation evaluate(bool with_bound) {
    Evaluation e;
    if (!fit_ids_.empty() && data_.eval_tokens > 0) {
      const std::uint64_t key = key_for(common_.seed, kEvalGammaStream);
      double ll = 0;
      for (std::size_t i = 0; i < fit_ids_.size(); ++i) {
        be_->e_step(fit_ids_[i], key, 0);
        ll += be_->completion_loglik(fit_ids_[i], score_ids_[i]);
      }
      e.heldout_ll = ll / data_.eval_tokens;
      e.perplexity = std::exp(-*e.heldout_ll);
    }
    if (with_bound && data_.train_tokens > 0) {
      double bound = 0;
      for (int id : train_ids_) {
        bound += be_->bound_word_term(id);
        bound += bound_doc_terms(be_->gamma(id), opt_.alpha);
      }
      bound += bound_topic_terms(be_->lambda(), opt_.eta);
      e.train_bound = bound / data_.train_tokens;
    }
    return e;
  }

  void print_pass(const PassReport& r) const {
    if (common_.quiet) return;
    char buf[512];
    int n = std::snprintf(buf, sizeof buf,
                          "[%s] pass %d/%d  %.4f s  %.3g tokens/s  %.1f GFLOP/s  inner %.1f",
                          device_kind_.c_str(), r.pass, common_.iters, r.seconds, r.tokens_per_s,
                          r.gflops, r.mean_inner);
    if (r.heldout_ll)
      n += std::snprintf(buf + n, sizeof buf - n, "  heldout ll %.4f  perplexity %.1f",
                         *r.heldout_ll, *r.perplexity);
    if (r.train_bound) std::snprintf(buf + n, sizeof buf - n, "  bound %.4f", *r.train_bound);
    std::cout << buf << std::endl;
  }

  // What a checkpoint must match: the configuration without the options that do not change the
  // model (app::model_fingerprint's list and "eval-every", "top-words", "device-memory"); a
  // --vocab naming the file a UCI input reads anyway is the run without it.
  app::ResolvedConfig fingerprint() const {
    return app::model_fingerprint(config_, {"eval-every", "top-words", "device-memory"}, implied_);
  }

  void write_checkpoint(int pass, std::int64_t updates) {
    Stopwatch clock;
    app::CheckpointWriter w(checkpoint_dir());
    io::write_npy(w.file("lambda.npy"), be_->lambda());
    io::write_npy(w.file("gamma.npy"),
                  stacked_gamma(*be_, train_ids_, data_.train_docs, opt_.topics, false));
    w.set("pass", std::to_string(pass));
    w.set("updates", std::to_string(updates));
    w.set(app::kCheckpointDeviceKey, rounding_);
    w.set_fingerprint(fingerprint());
    w.set_input_contents(contents_);
    w.commit();
    log_info() << "checkpoint after pass " << pass << " written to " << checkpoint_dir() << " in "
               << clock.seconds() << " s";
  }

  std::vector<DocumentBlock> training_documents() const {
    std::vector<DocumentBlock> blocks;
    for (const LocalBatch& b : data_.train_batches) blocks.push_back({&b.counts, &b.words});
    return blocks;
  }

  // The coherence of a generated corpus's true topics (K_true x W), scored as the model's: the
  // reference learned topics are measured against.
  std::optional<TopicCoherence> true_topics_coherence() const {
    const HostDense<float>& truth = *data_.true_topics;
    HostDense<float> by_word(truth.cols(), truth.rows());
    for (std::int64_t t = 0; t < truth.rows(); ++t)
      for (std::int64_t w = 0; w < truth.cols(); ++w) by_word(w, t) = truth(t, w);
    return score_topics(by_word, opt_.top_words, training_documents(), data_.vocab,
                        "the generator's true topics");
  }

  void write_outputs(const TrainResult& r) const {
    const int k = opt_.topics;
    io::write_npy(out_ + "/topics.npy", topics_by_words(r.lambda, true));
    io::write_npy(out_ + "/lambda.npy", topics_by_words(r.lambda, false));
    io::write_npy(out_ + "/doc_topics.npy", r.doc_topics);
    if (static_cast<std::int64_t>(data_.train_ids.size()) == data_.train_docs &&
        data_.heldout_docs > 0 && opt_.test.empty()) {
      std::vector<std::int32_t> ids(data_.train_ids.begin(), data_.train_ids.end());
      io::write_npy(out_ + "/train_doc_ids.npy", ids);
    } else {
      app::remove_stale_output(out_ + "/train_doc_ids.npy");
    }
    if (opt_.top_words > 0) {  // as fk-gap: --top-words 0 asks for no list
      write_top_words(out_, r.lambda, opt_.top_words, data_.vocab, "topic");
    } else {
      app::remove_stale_output(out_ + "/top_words.txt");
      app::remove_stale_output(out_ + "/top_words.csv");
    }
    if (data_.vocab.empty()) {
      app::remove_stale_output(out_ + "/vocab.txt");
    } else {
      io::AtomicFile f(out_ + "/vocab.txt");
      for (const std::string& w : data_.vocab) f.stream() << w << '\n';
      f.commit();
    }
    // model.ini after the model's files: infer requires it, and a run that stops before it
    // leaves none. summary.json (write_summary) comes after it.
    {
      io::AtomicFile f(out_ + "/model.ini");
      f.stream() << "# fk-lda model: lambda.npy is topics x words (the variational λ)\n"
                 << app::kModelAppKey << " = fk-lda\ntopics = " << k << "\nwords = " << data_.words
                 << "\nalpha = " << app::format_double(opt_.alpha)
                 << "\neta = " << app::format_double(opt_.eta)
                 << "\ninner-iters = " << opt_.inner_iters
                 << "\ntol = " << app::format_double(opt_.tol)
                 << "\nvocab = " << (data_.vocab.empty() ? "no" : "yes") << "\n";
      f.commit();
    }
  }

  void write_summary(const TrainResult& r) const {
    std::vector<double> secs;
    for (const PassReport& p : r.passes) secs.push_back(p.seconds);
    app::JsonObject j;
    j.add("device", device_)
        .add("build", build_commit())
        .add("topics", opt_.topics)
        .add("words", data_.words)
        .add("train_documents", data_.train_docs)
        .add("heldout_documents", data_.heldout_docs)
        .add("train_tokens", data_.train_tokens)
        .add("scored_heldout_tokens", data_.eval_tokens)
        // The model's passes (a resumed run's include the checkpoint's); the median is over the
        // ones this run made.
        .add("passes", common_.iters)
        .add("passes_this_run", static_cast<std::int64_t>(r.passes.size()))
        .add("median_pass_seconds", app::median_seconds(secs))
        .add("prepare_seconds", r.prepare_seconds)
        .add("kernels", r.kernels)
        .add("precision", to_string(opt_.precision_kind))
        .add("heldout_ll", r.heldout_ll)
        .add("perplexity", r.perplexity)
        .add("train_bound", r.train_bound);
    app::add_memory_peaks(j, memory_peaks(), device_kind_ == "gpu");
    if (r.coherence) {
      j.add("coherence_words", r.coherence->words)
          .add("coherence_umass", r.coherence->mean_umass)
          .add("coherence_npmi", r.coherence->mean_npmi)
          .add("coherence_undefined_topics", r.coherence->undefined);
    }
    if (r.true_coherence) {
      j.add("true_topics_coherence_umass", r.true_coherence->mean_umass)
          .add("true_topics_coherence_npmi", r.true_coherence->mean_npmi);
    }
    io::AtomicFile f(out_ + "/summary.json");
    f.stream() << j.str() << "\n";
    f.commit();
  }

  const LdaOptions& opt_;
  const app::CommonOptions& common_;
  const LdaData& data_;
  std::string out_;
  app::ResolvedConfig config_;
  app::ResolvedConfig implied_;  // the vocabulary the input reads without --vocab (fingerprint)
  app::LocalReducer local_reducer_;
  app::StatsReducer* reducer_;
  std::string device_, device_kind_;
  std::string rounding_;  // app::rounding_device: what the checkpoint records and compares
  app::InputContents contents_;  // the input files' content as the run started (checkpoints)
  std::unique_ptr<LdaBackend> be_;
  std::vector<int> train_ids_, fit_ids_, score_ids_;
};

}  // namespace

LdaData prepare_lda_data(const LdaOptions& opt, const app::CommonOptions& common) {
  Stopwatch clock;
  TextOptions text;
  text.min_count = opt.min_count;
  text.max_df = opt.max_df;
  Corpus corpus = load_corpus(common.input, common.format, text, opt.vocab);
  // Splitting and batching a large corpus takes seconds (nytimes: about 8 s on 2 cores): say so.
  if (corpus.counts.nnz() >= 5'000'000)
    log_info() << "corpus read (" << corpus.counts.rows << " documents, " << corpus.counts.nnz()
               << " nonzeros); splitting it into training and held-out minibatches";
  LdaData d;
  d.words = corpus.counts.cols;
  d.source = corpus.source;
  d.true_topics = std::move(corpus.true_topics);
  d.input_files = corpus.files;
  HostCsr train, heldout;
  if (!opt.test.empty()) {
    Corpus test = load_corpus_in_vocab(opt.test, common.format, corpus.vocab, d.words,
                                       VocabOf::kTrainingCorpus);
    d.input_files.insert(d.input_files.end(), test.files.begin(), test.files.end());
    heldout = std::move(test.counts);
    train = std::move(corpus.counts);
    d.train_ids.resize(static_cast<std::size_t>(train.rows));
    std::iota(d.train_ids.begin(), d.train_ids.end(), 0);
  } else {
    const DocumentSplit split = split_documents(corpus.counts.rows, opt.holdout_frac, common.seed);
    if (split.heldout.empty()) {
      train = std::move(corpus.counts);
    } else {
      train = select_rows(corpus.counts, split.train);
      heldout = select_rows(corpus.counts, split.heldout);
    }
    d.train_ids = split.train;
  }
  d.vocab = std::move(corpus.vocab);
  d.train_docs = train.rows;
  d.train_tokens = total_tokens(train);
  // The corpus has tokens (load_corpus), but the seeded split may hold out every document that
  // has any: the run then trained on nothing, saved its random initial topics and exited 0.
  if (d.train_tokens == 0)
    throw InputError(common.input, 0,
                     "the held-out split (--holdout-frac " + app::format_double(opt.holdout_frac) +
                         ", --seed " + std::to_string(common.seed) + ") left the " +
                         std::to_string(train.rows) +
                         " training documents without a word: every document with words was "
                         "held out; lower --holdout-frac or choose another --seed");
  const std::int64_t batch = opt.batch ? std::max<std::int64_t>(train.rows, 1) : opt.batch_size;
  d.train_batches = make_batches(train, batch);
  d.heldout_docs = heldout.rows;
  if (heldout.rows > 0) {
    HostCsr observed, scored;
    completion_halves(heldout, observed, scored);
    d.eval_tokens = total_tokens(scored);
    const std::int64_t eval_batch =
        opt.batch ? std::max<std::int64_t>(heldout.rows, 1) : opt.batch_size;
    d.eval_fit = make_batches(observed, eval_batch);
    d.eval_score = make_batches(scored, eval_batch);
  }
  std::ostringstream os;
  os << "data: " << d.source << "; W = " << d.words << "; training " << d.train_docs
     << " documents (" << static_cast<std::int64_t>(d.train_tokens) << " tokens, " << train.nnz()
     << " nonzeros) in " << d.train_batches.size() << " minibatch"
     << (d.train_batches.size() == 1 ? "" : "es");
  if (d.heldout_docs > 0)
    os << "; held out " << d.heldout_docs << " documents ("
       << static_cast<std::int64_t>(d.eval_tokens) << " tokens scored by document completion)";
  os << "; read in " << clock.seconds() << " s";
  log_info() << os.str();
  if (d.train_docs == 0) throw Error("no training documents");
  return d;
}

TrainResult train_lda(const LdaOptions& opt, const app::CommonOptions& common, const LdaData& data,
                      Context ctx, const std::string& out_dir, const app::ResolvedConfig& config,
                      app::StatsReducer* reducer) {
  Trainer t(opt, common, data, std::move(ctx), out_dir, config, reducer);
  return t.run();
}

std::vector<std::vector<std::int64_t>> top_word_ids(const HostDense<float>& lambda, int words) {
  const std::int64_t w = lambda.rows(), k = lambda.cols();
  const auto n = static_cast<std::size_t>(std::clamp<std::int64_t>(words, 0, w));
  // One pass over λ in its row-major order (a pass per topic would read all of it K times), each
  // topic keeping its n best so far in a heap whose top is the worst of them.
  using Entry = std::pair<float, std::int64_t>;
  auto better = [](const Entry& a, const Entry& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  std::vector<std::vector<Entry>> heaps(static_cast<std::size_t>(k));
  for (auto& h : heaps) h.reserve(n);
  for (std::int64_t r = 0; r < w && n > 0; ++r) {
    const float* row = lambda.row(r);
    for (std::int64_t t = 0; t < k; ++t) {
      std::vector<Entry>& h = heaps[t];
      const Entry e{row[t], r};
      if (h.size() < n) {
        h.push_back(e);
        std::push_heap(h.begin(), h.end(), better);
      } else if (better(e, h.front())) {
        std::pop_heap(h.begin(), h.end(), better);
        h.back() = e;
        std::push_heap(h.begin(), h.end(), better);
      }
    }
  }
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(k));
  for (std::int64_t t = 0; t < k; ++t) {
    std::sort(heaps[t].begin(), heaps[t].end(), better);
    for (const Entry& e : heaps[t]) out[t].push_back(e.second);
  }
  return out;
}

std::vector<std::vector<std::string>> word_names(const std::vector<std::vector<std::int64_t>>& ids,
                                                 const std::vector<std::string>& vocab,
                                                 std::int64_t words) {
  const bool named = static_cast<std::int64_t>(vocab.size()) == words;
  std::vector<std::vector<std::string>> out;
  for (const std::vector<std::int64_t>& list : ids) {
    out.emplace_back();
    for (std::int64_t id : list) out.back().push_back(named ? vocab[id] : "w" + std::to_string(id));
  }
  return out;
}

std::vector<std::vector<std::string>> top_words(const HostDense<float>& lambda, int words,
                                                const std::vector<std::string>& vocab) {
  return word_names(top_word_ids(lambda, words), vocab, lambda.rows());
}

void write_top_words(const std::string& dir, const HostDense<float>& lambda, int words,
                     const std::vector<std::string>& vocab, const std::string& unit) {
  const std::vector<std::vector<std::int64_t>> ids = top_word_ids(lambda, words);
  const std::vector<std::vector<std::string>> names = word_names(ids, vocab, lambda.rows());
  std::vector<double> column_sum(static_cast<std::size_t>(lambda.cols()), 0.0);
  for (std::int64_t w = 0; w < lambda.rows(); ++w)
    for (std::int64_t t = 0; t < lambda.cols(); ++t) column_sum[t] += lambda.row(w)[t];
  io::AtomicFile text(dir + "/top_words.txt");
  io::CsvWriter csv(dir + "/top_words.csv", {unit, "rank", "word", "weight"});
  for (std::size_t t = 0; t < ids.size(); ++t) {
    text.stream() << unit << ' ' << t << ":";
    for (std::size_t r = 0; r < ids[t].size(); ++r) {
      text.stream() << ' ' << names[t][r];
      char weight[32];
      std::snprintf(weight, sizeof weight, "%.9g",
                    column_sum[t] > 0 ? lambda.row(ids[t][r])[t] / column_sum[t] : 0.0);
      csv.row({std::to_string(t), std::to_string(r + 1), names[t][r], weight});
    }
    text.stream() << '\n';
  }
  text.commit();
  csv.commit();
}

LdaModel load_lda_model(const std::string& dir) {
  const std::string ini = dir + "/model.ini";
  if (!std::filesystem::is_regular_file(ini))
    throw InputError(ini, 0,
                     "no model here (expected the --out directory of an fk-lda training run)" +
                         app::missing_model_hint(dir));
  if (const std::string owner = app::model_app(dir); !owner.empty() && owner != "fk-lda")
    throw InputError(ini, 0,
                     "this is an " + owner +
                         " model, not an fk-lda one; give the --out directory "
                         "of an fk-lda training run");
  const app::ResolvedConfig kv = app::read_key_values(ini);
  auto get = [&](const std::string& key) {
    const auto v = app::find_value(kv, key);
    if (!v) throw InputError(ini, 0, "missing '" + key + "'");
    return *v;
  };
  auto number = [&](const std::string& key) {
    const std::string text = get(key);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
      throw InputError(ini, 0, "'" + key + "' must be a positive number, found '" + text + "'");
    return v;
  };
  // A count (topics, words, inner-iters): a whole number that fits the type it is read into.
  auto count = [&](const std::string& key, double most) {
    const double v = number(key);
    if (v != std::floor(v) || v > most)
      throw InputError(ini, 0,
                       "'" + key + "' must be a whole number up to " + app::format_double(most) +
                           ", found '" + get(key) + "'");
    return v;
  };
  LdaModel m;
  const int k = static_cast<int>(count("topics", INT_MAX));
  const auto w = static_cast<std::int64_t>(count("words", 9007199254740992.0));
  const HostDense<float> topics_words = io::read_npy_f32(dir + "/lambda.npy");
  if (topics_words.rows() != k || topics_words.cols() != w)
    throw InputError(
        dir + "/lambda.npy", 0,
        "expected " + std::to_string(k) + " x " + std::to_string(w) + " as model.ini says");
  // λ is a Dirichlet parameter: every entry positive and finite (training keeps it >= η > 0).
  for (std::int64_t i = 0; i < topics_words.size(); ++i) {
    const float v = topics_words.data()[i];
    if (!(v > 0) || !std::isfinite(v))
      throw InputError(dir + "/lambda.npy", 0,
                       "entry (" + std::to_string(i / w) + ", " + std::to_string(i % w) + ") is " +
                           app::format_double(v) +
                           "; a topic-word parameter must be positive and finite");
  }
  m.lambda = HostDense<float>(w, k);
  for (int c = 0; c < k; ++c)
    for (std::int64_t r = 0; r < w; ++r) m.lambda(r, c) = topics_words(c, r);
  m.alpha = number("alpha");
  m.eta = number("eta");
  for (const auto& [key, v] : {std::pair<const char*, double>{"alpha", m.alpha}, {"eta", m.eta}})
    if (!(v >= kMinPrior && v <= kMaxPrior))
      throw InputError(
          ini, 0, "'" + std::string(key) + "' must be from 1e-30 to 1e6, found '" + get(key) + "'");
  m.inner_iters = static_cast<int>(count("inner-iters", INT_MAX));
  {
    const std::string tol = get("tol");
    char* end = nullptr;
    m.tol = std::strtod(tol.c_str(), &end);
    if (tol.empty() || *end != '\0' || !std::isfinite(m.tol) || m.tol < 0)
      throw InputError(ini, 0, "'tol' must be a number >= 0, found '" + tol + "'");
  }
  const std::string has_vocab = get("vocab");
  if (has_vocab != "yes" && has_vocab != "no")
    throw InputError(ini, 0, "'vocab' must be yes or no, found '" + has_vocab + "'");
  if (has_vocab == "yes") {
    std::ifstream in(dir + "/vocab.txt");
    if (!in) throw InputError(dir + "/vocab.txt", 0, "cannot open the model's vocabulary");
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved with CRLF
      m.vocab.push_back(line);
    }
    if (static_cast<std::int64_t>(m.vocab.size()) != w)
      throw InputError(
          dir + "/vocab.txt", 0,
          "has " + std::to_string(m.vocab.size()) + " words, the model " + std::to_string(w));
  }
  return m;
}

HostDense<float> infer_topics(const LdaModel& model, const HostCsr& docs, Context ctx,
                              std::int64_t batch_size, std::uint64_t seed, int inner_iters,
                              double tol, const std::string& sddmm, const std::string& spmm,
                              Precision precision, const std::string& ratio_spmm,
                              double progress_seconds) {
  LdaHyper h;
  h.topics = static_cast<int>(model.lambda.cols());
  h.words = model.lambda.rows();
  h.alpha = model.alpha;
  h.eta = model.eta;
  h.max_inner = inner_iters;
  h.tol = tol;
  h.sddmm = sddmm;
  h.spmm = spmm;
  h.ratio_spmm = ratio_spmm;
  h.precision = precision;
  FK_CHECK(docs.cols == h.words, "documents have " << docs.cols << " words, the model " << h.words);
  const std::vector<LocalBatch> batches = make_batches(docs, batch_size);  // outlive the backend
  auto be = make_lda_backend(std::move(ctx), h);
  be->set_lambda(model.lambda);
  std::vector<int> ids;
  for (const LocalBatch& b : batches) ids.push_back(be->add_batch(b, BatchRole::kInfer));
  log_info() << be->context().describe() << ": " << ids.size()
             << (ids.size() == 1 ? " minibatch" : " minibatches") << ", plans prepared in "
             << be->prepare_seconds() << " s (kernels: " << be->kernel_names()
             << app::precision_note(precision, be->context().device())
             << app::repeatability_note(be->kernel_names()) << ")";
  const std::uint64_t key = key_for(seed, kInferGammaStream);
  // Documents of a nytimes-sized corpus take minutes on a few CPU cores, which passed without a
  // line: one every progress_seconds, as a training pass gives.
  Progress progress("infer: minibatches", static_cast<std::int64_t>(ids.size()), progress_seconds);
  const EStepProgress estep_lines(*be, ids.size() == 1, "infer", inner_iters, tol,
                                  progress_seconds);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    progress.update(static_cast<std::int64_t>(i));  // silent under -q (log level)
    be->e_step(ids[i], key, 0);
  }
  return stacked_gamma(*be, ids, docs.rows, h.topics, true);
}

}  // namespace fk::lda
