#pragma once
// The LDA E-step and λ update written once, over a device policy `Ops` that supplies memory and
// the elementwise/reduction operations; the SDDMM/SpMM calls go through the kernels' public plans.
// lda_cpu.cpp instantiates it with CpuOps (host memory, OpenMP); lda_gpu.cu with GpuOps (device
// memory, CUDA kernels). This header is compiled by both the host compiler and nvcc, so it uses
// no Eigen and no CUDA.
//
// What Ops provides (all pointers on its side; matrices row-major):
//   template <class T> using Buffer;               owning array: data(), size(), default/move
//   template <class T> Buffer<T> alloc(int64 n);
//   template <class T> void upload(Buffer<T>&, const T* host, int64 n);
//   template <class T> void download(const Buffer<T>&, T* host, int64 n) const;
//   using Csr;  Csr make_csr(const HostCsr&);  static CsrView view(const Csr&);
//   std::int64_t free_bytes() const;               memory left for minibatch data
//   using Staged;  Staged stage(const LocalBatch&);  a host copy the device can copy from
//                                                  asynchronously (pinned memory on the GPU)
//   using Slot;                                    device room for one staged minibatch
//   void fetch(const Staged&, Slot&);              starts copying into the slot once the work
//                                                  that last read it is done; returns at once
//   void await(Slot&);                             work issued later waits for the slot's copy
//   void retire(Slot&);                            marks the end of the work that reads the slot
//   static CsrView slot_view(const Slot&);  static const int32* slot_words(const Slot&);
//   void fill(ctx, float* p, int64 n, float v);
//   void init_gamma(ctx, float* gamma, int64 rows, int k, u64 key, u64 stream, int64 first_doc);
//   void expect_theta(ctx, const float* gamma, float* etheta, int64 rows, int k);
//   double update_gamma(ctx, float alpha, const float* t, float* gamma, float* etheta, int64 rows,
//   int k);
//        γ ← α + Eθ ∘ T, Eθ ← exp(ψ(γ) − ψ(rowsum γ)); returns Σ |Δγ|
//   void divide(ctx, const float* n, float* p, int64 nnz, float eps);   p ← n / (p + eps)
//   void gather_expect_beta(ctx, const float* lambda, const int32* words, int64 nloc, int k,
//                           const double* psi_colsum, float* out);       out ← exp(ψ(λ[words]) −
//                           ψ(colsum))
//   void gather_beta(ctx, const float* lambda, const int32* words, int64 nloc, int k,
//                    const double* colsum, float* out);                  out ← λ[words] / colsum
//   void scatter_stats(ctx, const float* ebeta, const float* x, const int32* words, int64 nloc,
//                      int k, float* stats);                             stats[words] += ebeta ∘ x
//   void update_lambda(ctx, float* lambda, float* stats, int64 w, int k, double rho, double eta,
//                      double scale, double* colsum, double* psi_colsum); also zeroes stats
//   void update_lambda_from_batch(ctx, float* lambda, float* stats, const int32* words, int64 nloc,
//                                 const float* ebeta, const float* x, int64 w, int k, double rho,
//                                 double eta, double scale, double* colsum, double* psi_colsum);
//        the same with stats (zero on entry and on exit) plus ebeta ∘ x at rows words
//   void column_sums(ctx, const float* lambda, int64 w, int k, double* colsum, double* psi_colsum);
//   void normalize_rows(ctx, const float* gamma, float* theta, int64 rows, int k);
//   double sum_n_log(ctx, const float* n, const float* p, int64 nnz);   Σ n log p (p clamped > 0)
// Reductions must be deterministic (fixed order, independent of the thread count).
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "apps/common/precision.hpp"
#include "apps/common/training_options.hpp"
#include "apps/lda/lda_backend.hpp"
#include "core/log.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::lda {

template <class Ops>
class LdaEngine final : public LdaBackend {
 public:
  template <class T>
  using Buf = typename Ops::template Buffer<T>;

  LdaEngine(Context ctx, const LdaHyper& h) : ctx_(std::move(ctx)), h_(h), ops_(ctx_) {
    FK_CHECK(h_.topics >= 1 && h_.words >= 1, "LDA needs K >= 1 and W >= 1");
    FK_CHECK(h_.max_inner >= 1, "LDA needs at least one E-step iteration");
    const std::int64_t wk = h_.words * h_.topics;
    lambda_ = ops_.template alloc<float>(wk);
    stats_ = ops_.template alloc<float>(wk);
    ops_.fill(ctx_, stats_.data(), wk, 0.0f);
    colsum_ = ops_.template alloc<double>(h_.topics);
    psi_colsum_ = ops_.template alloc<double>(h_.topics);
  }

  const Context& context() const override { return ctx_; }

  int add_batch(const LocalBatch& lb, BatchRole role) override {
    flush_pending_stats();  // ebeta_ and xt_ may grow below
    auto b = std::make_unique<Batch>();
    b->id = static_cast<int>(batches_.size());
    b->role = role;
    b->rows = lb.counts.rows;
    b->nloc = static_cast<std::int64_t>(lb.words.size());
    b->nnz = lb.counts.nnz();
    b->first_doc = lb.first_doc;
    const int k = h_.topics;
    grow(etheta_, b->rows * k);
    grow(t_, b->rows * k);
    grow(p_, b->nnz);
    grow(ebeta_, b->nloc * k);
    if (role == BatchRole::kTrain) grow(xt_, b->nloc * k);
    if (role != BatchRole::kScore) b->gamma = ops_.template alloc<float>(b->rows * k);
    // Keep the minibatch on the device when it fits (with room for the dense work buffers and
    // within --device-memory); otherwise stage it in host memory and copy it in for each use.
    const double bytes = batch_bytes(*b);
    const bool within_limit =
        h_.device_memory <= 0 || resident_bytes_ + bytes <= static_cast<double>(h_.device_memory);
    b->resident = within_limit && static_cast<double>(ops_.free_bytes()) > bytes + kHeadroom;
    if (b->resident) {
      resident_bytes_ += bytes;
      upload(*b, lb);
      prepare_plans(*b, Ops::view(b->csr));
    } else {
      if (streamed_ == 0)
        log_info() << (within_limit ? "device memory is full" : "--device-memory reached")
                   << ": minibatches from #" << b->id
                   << " on are streamed from pinned host memory (the next one copied while the "
                      "current one runs; plans re-prepared at each use)";
      ++streamed_;
      b->staged = ops_.stage(lb);
    }
    batches_.push_back(std::move(b));
    return static_cast<int>(batches_.size()) - 1;
  }

  void set_lambda(const HostDense<float>& lambda) override {
    FK_CHECK(lambda.rows() == h_.words && lambda.cols() == h_.topics,
             "λ must be " << h_.words << " x " << h_.topics << ", got " << lambda.rows() << " x "
                          << lambda.cols());
    ops_.upload(lambda_, lambda.data(), lambda.size());
    ops_.column_sums(ctx_, lambda_.data(), h_.words, h_.topics, colsum_.data(), psi_colsum_.data());
  }

  HostDense<float> lambda() const override {
    HostDense<float> out(h_.words, h_.topics);
    ops_.download(lambda_, out.data(), out.size());
    return out;
  }

  EStepResult e_step(int id, std::uint64_t init_key, std::uint64_t stream) override {
    flush_pending_stats();  // ebeta_ and xt_ are about to be overwritten
    Batch& b = batch(id);
    FK_CHECK(b.role != BatchRole::kScore, "E-step on a scoring-only minibatch");
    const int k = h_.topics;
    const auto alpha = static_cast<float>(h_.alpha);
    EStepResult r;
    if (b.rows == 0) return r;
    Use use(*this, b);
    float* g = b.gamma.data();
    float* et = etheta_.data();
    ops_.init_gamma(ctx_, g, b.rows, k, init_key, stream, b.first_doc);
    ops_.expect_theta(ctx_, g, et, b.rows, k);
    b.has_gamma = true;
    if (b.nnz == 0) {  // no words at all: nothing pulls γ away from the prior
      ops_.fill(ctx_, t_.data(), b.rows * k, 0.0f);
      ops_.update_gamma(ctx_, alpha, t_.data(), g, et, b.rows, k);
      return r;
    }
    const DenseView<const float> et_view{et, b.rows, k};
    const DenseView<const float> eb_view{ebeta_.data(), b.nloc, k};
    ops_.gather_expect_beta(ctx_, lambda_.data(), words(b), b.nloc, k, psi_colsum_.data(),
                            ebeta_.data());
    const DenseView<float> t_view{t_.data(), b.rows, k};
    // T ← (N / (Eθ·Eβᵀ + eps)) · Eβ: fused in one pass, or the ratio P kept from the last update
    // (formed once before the loop) times Eβ.
    const bool fused = b.fused.plan != nullptr;
    if (!fused) ratio(b, et_view, eb_view);
    for (int it = 1; it <= h_.max_inner; ++it) {
      if (fused) {
        b.fused.run(ctx_, csr(b).vals, et_view, eb_view, kPhiEps, t_view);
        count_sddmm(b);
      } else {
        b.spmm.run(ctx_, p_.data(), eb_view, t_view);
      }
      count_spmm(b);
      const double change = ops_.update_gamma(ctx_, alpha, t_.data(), g, et, b.rows, k);
      if (!fused) ratio(b, et_view, eb_view);
      r.inner_iters = it;
      r.mean_change = change / static_cast<double>(b.rows * k);
      if (observer_) observer_(it, r.mean_change);
      if (r.mean_change < h_.tol) break;
    }
    if (b.role == BatchRole::kTrain) {
      // X ← (N / (Eθ·Eβᵀ + eps))ᵀ · Eθ with the final Eθ: the ratio SpMM over Nᵀ (A = Eβ, B = Eθ)
      // in one pass, or P formed again (the fused loop never wrote it) and Sᵀ·B on it.
      const DenseView<float> xt_view{xt_.data(), b.nloc, k};
      if (b.fused_t.plan) {
        b.fused_t.run(ctx_, csr(b).vals, eb_view, et_view, kPhiEps, xt_view);
        count_sddmm(b);
      } else {
        if (fused) ratio(b, et_view, eb_view);
        b.spmm_t.run(ctx_, p_.data(), et_view, xt_view);
      }
      count_spmm(b);
      pending_stats_ = &b;  // Eβ ∘ X, in ebeta_ and xt_: added to stats_ or to λ (update_lambda)
      if (!b.resident) flush_pending_stats();  // a streamed batch's words do not stay put
    }
    return r;
  }

  void set_iteration_observer(IterationObserver observer) override {
    observer_ = std::move(observer);
  }

  float* stats() override {
    flush_pending_stats();
    return stats_.data();
  }

  void update_lambda(double rho, double scale) override {
    if (pending_stats_ && stats_zero_) {
      // One minibatch's statistics and nothing else: added to its rows of λ in the pass that
      // decays every row, without the W x K buffer's scatter, read and zeroing (the same
      // arithmetic, so the same λ).
      const Batch& b = *pending_stats_;
      ops_.update_lambda_from_batch(ctx_, lambda_.data(), stats_.data(), words(b), b.nloc,
                                    ebeta_.data(), xt_.data(), h_.words, h_.topics, rho, h_.eta,
                                    scale, colsum_.data(), psi_colsum_.data());
      pending_stats_ = nullptr;
      return;
    }
    flush_pending_stats();
    ops_.update_lambda(ctx_, lambda_.data(), stats_.data(), h_.words, h_.topics, rho, h_.eta, scale,
                       colsum_.data(), psi_colsum_.data());
    stats_zero_ = true;
  }

  double completion_loglik(int fit_id, int score_id) override {
    flush_pending_stats();  // ebeta_ is about to be overwritten
    Batch& f = batch(fit_id);
    Batch& s = batch(score_id);
    FK_CHECK(f.rows == s.rows, "held-out halves with different document counts");
    FK_CHECK(s.role == BatchRole::kScore && (f.has_gamma || f.rows == 0),
             "completion needs a fitted minibatch");
    if (s.nnz == 0) return 0.0;
    Use use(*this, s);
    const int k = h_.topics;
    ops_.normalize_rows(ctx_, f.gamma.data(), etheta_.data(), f.rows, k);
    ops_.gather_beta(ctx_, lambda_.data(), words(s), s.nloc, k, colsum_.data(), ebeta_.data());
    s.sddmm.run(ctx_, DenseView<const float>{etheta_.data(), s.rows, k},
                DenseView<const float>{ebeta_.data(), s.nloc, k}, nullptr, p_.data());
    count_sddmm(s);
    return ops_.sum_n_log(ctx_, csr(s).vals, p_.data(), s.nnz);
  }

  double bound_word_term(int id) override {
    flush_pending_stats();  // ebeta_ is about to be overwritten
    Batch& b = batch(id);
    FK_CHECK(b.has_gamma || b.rows == 0, "bound of a minibatch without γ");
    if (b.nnz == 0) return 0.0;
    Use use(*this, b);
    const int k = h_.topics;
    ops_.expect_theta(ctx_, b.gamma.data(), etheta_.data(), b.rows, k);
    ops_.gather_expect_beta(ctx_, lambda_.data(), words(b), b.nloc, k, psi_colsum_.data(),
                            ebeta_.data());
    b.sddmm.run(ctx_, DenseView<const float>{etheta_.data(), b.rows, k},
                DenseView<const float>{ebeta_.data(), b.nloc, k}, nullptr, p_.data());
    count_sddmm(b);
    return ops_.sum_n_log(ctx_, csr(b).vals, p_.data(), b.nnz);
  }

  HostDense<float> gamma(int id) const override {
    const Batch& b = *batches_.at(static_cast<std::size_t>(id));
    HostDense<float> out(b.rows, h_.topics);
    if (b.rows > 0 && b.role != BatchRole::kScore) ops_.download(b.gamma, out.data(), out.size());
    return out;
  }

  void set_gamma(int id, const HostDense<float>& gamma) override {
    Batch& b = batch(id);
    FK_CHECK(b.role != BatchRole::kScore && gamma.rows() == b.rows && gamma.cols() == h_.topics,
             "γ of the wrong shape for minibatch " << id);
    ops_.upload(b.gamma, gamma.data(), gamma.size());
    b.has_gamma = true;
  }

  KernelCounters counters() const override { return counters_; }
  double prepare_seconds() const override { return prepare_seconds_; }
  std::string kernel_names() const override {
    std::string out;
    for (const std::string& n : names_) out += (out.empty() ? "" : ", ") + n;
    return out;
  }

 private:
  struct Batch {
    int id = 0;
    BatchRole role = BatchRole::kTrain;
    std::int64_t rows = 0, nloc = 0, nnz = 0, first_doc = 0;
    bool resident = true;
    bool has_gamma = false;
    int slot = -1;                // streamed: the slot it occupies while in use
    typename Ops::Staged staged;  // streamed: the host copy
    typename Ops::Csr csr;        // resident: the pattern and counts
    Buf<std::int32_t> words;      // resident: local column -> word id
    Buf<float> gamma;             // rows x K, always on the device
    // Plans hold views of csr: declared after it so they are destroyed first.
    PreparedSddmm sddmm;
    PreparedSpmm spmm, spmm_t;
    PreparedRatioSpmm fused;  // the E-step's SDDMM → divide → S·B in one kernel (then no spmm)
    PreparedRatioSpmm fused_t;  // the statistics' SDDMM → divide → Sᵀ·B (then no spmm_t)
  };

  // Brings a streamed batch onto the device for one use (with plans) and lets go of it after.
  class Use {
   public:
    Use(LdaEngine& e, Batch& b) : e_(e), b_(b) {
      if (!b_.resident) e_.begin_streamed_use(b_);
    }
    ~Use() {
      if (!b_.resident) e_.end_streamed_use(b_);
    }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

   private:
    LdaEngine& e_;
    Batch& b_;
  };

  Batch& batch(int id) {
    FK_CHECK(id >= 0 && id < static_cast<int>(batches_.size()), "no minibatch " << id);
    return *batches_[static_cast<std::size_t>(id)];
  }

  template <class T>
  void grow(Buf<T>& buf, std::int64_t n) {
    if (static_cast<std::int64_t>(buf.size()) < n) buf = ops_.template alloc<T>(n);
  }

  // Bytes a resident minibatch needs: CSR, word map, and the plans' copies (a transposed pattern
  // with its permutation for kTrain, and room for variants' own preprocessing).
  double batch_bytes(const Batch& b) const {
    double per_nnz = 8 + 8;  // the CSR and the SDDMM plan's preprocessing
    if (b.role != BatchRole::kScore) per_nnz += 8;
    if (b.role == BatchRole::kTrain) per_nnz += 24;
    return per_nnz * static_cast<double>(b.nnz) + 16.0 * static_cast<double>(b.rows + b.nloc);
  }

  CsrView csr(const Batch& b) const {
    return b.resident ? Ops::view(b.csr) : Ops::slot_view(slots_[b.slot]);
  }
  // The last training E-step's statistics, while they are still only in ebeta_ and xt_.
  void flush_pending_stats() {
    if (!pending_stats_) return;
    const Batch& b = *pending_stats_;
    ops_.scatter_stats(ctx_, ebeta_.data(), xt_.data(), words(b), b.nloc, h_.topics, stats_.data());
    pending_stats_ = nullptr;
    stats_zero_ = false;
  }

  const std::int32_t* words(const Batch& b) const {
    return b.resident ? b.words.data() : Ops::slot_words(slots_[b.slot]);
  }

  void upload(Batch& b, const LocalBatch& lb) {
    b.csr = ops_.make_csr(lb.counts);
    b.words = ops_.template alloc<std::int32_t>(b.nloc);
    ops_.upload(b.words, lb.words.data(), b.nloc);
  }

  // Streamed batches take turns in two slots: while one is in use, the copy of the streamed batch
  // that comes next in id order (the order of a training pass) goes into the other, so the copy
  // overlaps this batch's work. A batch that was not guessed is copied when it is needed.
  void begin_streamed_use(Batch& b) {
    int s = slot_batch_[0] == b.id ? 0 : slot_batch_[1] == b.id ? 1 : -1;
    if (s < 0) {
      s = slot_batch_[0] == next_streamed(b.id) ? 1 : 0;  // keep a prefetched successor
      ops_.fetch(b.staged, slots_[s]);
      slot_batch_[s] = b.id;
    }
    ops_.await(slots_[s]);
    b.slot = s;
    const int next = next_streamed(b.id);
    if (next != b.id && slot_batch_[1 - s] != next) {
      ops_.fetch(batches_[static_cast<std::size_t>(next)]->staged, slots_[1 - s]);
      slot_batch_[1 - s] = next;
    }
    prepare_plans(b, Ops::slot_view(slots_[s]));
  }

  void end_streamed_use(Batch& b) {
    b.sddmm = PreparedSddmm{};
    b.spmm = PreparedSpmm{};
    b.fused = PreparedRatioSpmm{};
    b.fused_t = PreparedRatioSpmm{};
    b.spmm_t = PreparedSpmm{};
    ops_.retire(slots_[b.slot]);
    b.slot = -1;
  }

  // The streamed batch after `id` in id order, wrapping around (`id` itself when it is the only
  // one).
  int next_streamed(int id) const {
    const int n = static_cast<int>(batches_.size());
    for (int step = 1; step <= n; ++step) {
      const int j = (id + step) % n;
      if (!batches_[static_cast<std::size_t>(j)]->resident) return j;
    }
    return -1;
  }

  void prepare_plans(Batch& b, const CsrView& v) {
    if (b.nnz == 0) return;  // nothing to prepare: the kernels are never called on it
    const int k = h_.topics;
    // Training and inference minibatches take --precision: their E-step is the work asked for.
    // Held-out ones only evaluate the model: fp32 unless a variant is named.
    const bool train = b.role == BatchRole::kTrain;
    const bool asked = train || b.role == BatchRole::kInfer;
    const Precision sddmm_p =
        asked ? h_.precision : app::evaluation_precision(h_.sddmm, h_.precision);
    const Precision spmm_p =
        asked ? h_.precision : app::evaluation_precision(h_.spmm, h_.precision);
    b.sddmm = make_sddmm_plan(ctx_, v, k, h_.sddmm, sddmm_p);
    note(b.sddmm.variant->name(), b.sddmm.prepare_seconds);
    // The fused kernels as app::fused_allowed says (the SDDMM plan made above tells whether auto
    // went to 16 bits).
    const bool fused_allowed = app::fused_allowed(h_.ratio_spmm, h_.sddmm, h_.spmm,
                                                  b.sddmm.variant->half_precision());
    if (b.role != BatchRole::kScore) {
      if (fused_allowed) b.fused = make_ratio_spmm_plan(ctx_, v, k, h_.ratio_spmm);
      if (b.fused.plan) {
        note(b.fused.variant->name(), b.fused.prepare_seconds);
      } else {
        b.spmm = make_spmm_plan(ctx_, v, k, Op::kNoTrans, h_.spmm, spmm_p);
        note(b.spmm.variant->name(), b.spmm.prepare_seconds);
      }
    }
    if (train) {
      if (fused_allowed) b.fused_t = make_ratio_spmm_plan(ctx_, v, k, h_.ratio_spmm, Op::kTrans);
      if (b.fused_t.plan) {
        note(std::string(b.fused_t.variant->name()) + " (transposed)", b.fused_t.prepare_seconds);
      } else {
        b.spmm_t = make_spmm_plan(ctx_, v, k, Op::kTrans, h_.spmm, spmm_p);
        note(std::string(b.spmm_t.variant->name()) + " (transposed)", b.spmm_t.prepare_seconds);
      }
    }
  }

  void note(const std::string& name, double seconds) {
    names_.insert(name);
    prepare_seconds_ += seconds;
  }

  // p ← N / (SDDMM(N, Eθ, Eβ) + eps)
  void ratio(Batch& b, DenseView<const float> et, DenseView<const float> eb) {
    b.sddmm.run(ctx_, et, eb, nullptr, p_.data());
    count_sddmm(b);
    ops_.divide(ctx_, csr(b).vals, p_.data(), b.nnz, kPhiEps);
  }
  void count_sddmm(const Batch& b) {
    ++counters_.sddmm_calls;
    counters_.sddmm_flops += 2.0 * static_cast<double>(b.nnz) * h_.topics;
  }
  void count_spmm(const Batch& b) {
    ++counters_.spmm_calls;
    counters_.spmm_flops += 2.0 * static_cast<double>(b.nnz) * h_.topics;
  }

  Context ctx_;
  LdaHyper h_;
  Ops ops_;
  Buf<float> lambda_, stats_;               // W x K
  IterationObserver observer_;               // set_iteration_observer
  const Batch* pending_stats_ = nullptr;     // see e_step and update_lambda
  bool stats_zero_ = true;                   // stats_ holds no statistics
  Buf<double> colsum_, psi_colsum_;         // K: Σ_w λ_wk and ψ of it
  Buf<float> etheta_, t_, p_, ebeta_, xt_;  // scratch sized for the largest minibatch
  std::vector<std::unique_ptr<Batch>> batches_;
  // Room left beside resident minibatches for the dense work buffers and the streaming slots.
  static constexpr double kHeadroom = 256.0 * (1 << 20);
  double resident_bytes_ = 0;
  typename Ops::Slot slots_[2];
  int slot_batch_[2] = {-1, -1};  // which streamed batch each slot holds (or is being copied)
  std::set<std::string> names_;
  double prepare_seconds_ = 0;
  std::int64_t streamed_ = 0;
  KernelCounters counters_;
};

}  // namespace fk::lda
