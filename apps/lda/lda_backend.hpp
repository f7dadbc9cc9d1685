#pragma once
// The per-minibatch math of online variational Bayes for LDA (Hoffman, Blei & Bach 2010) behind
// one interface, with a CPU implementation (lda_cpu.cpp, OpenMP) and a GPU one (lda_gpu.cu). The
// E-step runs on a whole minibatch at once through the SDDMM and SpMM kernels:
//
//   Eθ = exp(ψ(γ) − ψ(rowsum γ))        (docs x K)      Eβ = exp(ψ(λ) − ψ(colsum λ))  (words x K)
//   P  = N / (SDDMM(N, Eθ, Eβ) + eps)   (N's pattern)
//   repeat up to max_inner times:
//     γ  = α + Eθ ∘ (P · Eβ)            (SpMM)
//     Eθ = exp(ψ(γ) − ψ(rowsum γ));  P = N / (SDDMM(N, Eθ, Eβ) + eps)
//     stop when mean |Δγ| < tol
//   sstats = Eβ ∘ (Pᵀ · Eθ)              (transposed SpMM, through the plan's cached transpose)
//   λ ← (1 − ρ) λ + ρ (η + scale · sstats)
//
// (P is recomputed after each γ update, as gensim does, so the statistics use the final Eθ.)
// λ is stored words x K row-major (W x K, the transpose of the usual K x W) to match Eβ. Each
// minibatch's columns are renumbered to the words it uses (LocalBatch), so its dense operands are
// (its words x K); Eβ rows are gathered from λ per minibatch. The minibatch statistics are added
// into a W x K buffer, stats(), which is a plain sum over documents: a multi-worker run would
// all-reduce it (app::StatsReducer) before update_lambda().
//
// All per-nonzero and per-(document, topic) work stays on the backend's device; the host sees
// scalars inside an iteration (the γ change for the stopping test) and downloads γ and λ only when
// asked (evaluation, checkpoints, output).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "apps/lda/corpus.hpp"
#include "core/context.hpp"
#include "core/dense.hpp"
#include "core/half.hpp"

namespace fk::lda {

struct LdaHyper {
  int topics = 0;          // K
  std::int64_t words = 0;  // W
  double alpha = 0;        // document-topic prior
  double eta = 0;          // topic-word prior
  int max_inner = 50;      // E-step iterations at most (>= 1)
  double tol = 1e-3;       // stop the E-step when the mean |Δγ| over the minibatch is below this
  std::string sddmm = "auto", spmm = "auto";  // kernel variants (registry names or auto)
  // The E-step's fused SDDMM → divide → S·B (kernels/ratio_spmm.hpp): auto (where a fused variant
  // applies and sddmm, spmm are auto at fp32), off (the separate kernels), or a registered name.
  std::string ratio_spmm = "auto";
  // Lowest operand precision of the kTrain and kInfer minibatches' plans (--precision); the
  // held-out ones (kFit, kScore) stay fp32 unless a variant is named (app::evaluation_precision).
  Precision precision = Precision::kF32;
  // Memory for minibatches kept on the backend's device (bytes; 0: whatever is free). Minibatches
  // beyond it stay in (pinned) host memory and are copied in for each use, the copy of the next
  // one overlapped with the work on the current one.
  std::int64_t device_memory = 0;
};

// What a minibatch is used for decides which plans it gets.
enum class BatchRole {
  kTrain,  // E-step and sufficient statistics: SDDMM, SpMM and transposed-SpMM plans
  kFit,    // E-step only (held-out observed halves): SDDMM and SpMM plans
  kInfer,  // E-step only (fk-lda infer): as kFit, but its plans take --precision like kTrain's,
           // since θ is what infer computes rather than an evaluation of the model
  kScore,  // likelihood only (held-out scored halves): an SDDMM plan
};

struct EStepResult {
  int inner_iters = 0;     // γ updates made
  double mean_change = 0;  // mean |Δγ| of the last update
};

struct KernelCounters {
  std::int64_t sddmm_calls = 0, spmm_calls = 0;
  double sddmm_flops = 0, spmm_flops = 0;  // 2 · nnz · K per call
  double flops() const { return sddmm_flops + spmm_flops; }
};

class LdaBackend {
 public:
  virtual ~LdaBackend() = default;
  virtual const Context& context() const = 0;

  // Copies the minibatch to the backend's side and prepares its kernel plans (once; they are
  // reused every pass). Returns the batch id. `batch.first_doc + row` is the document's index for
  // the γ initialisation. The CPU backend reads the minibatch's counts in place (a copy doubled
  // the corpus in memory): `batch` must outlive the backend.
  virtual int add_batch(const LocalBatch& batch, BatchRole role) = 0;

  // λ (host, W x K row-major); recomputes the topic totals.
  virtual void set_lambda(const HostDense<float>& lambda) = 0;
  virtual HostDense<float> lambda() const = 0;

  // E-step on batch `id` with the current λ. γ starts from gamma100_draw(init_key, stream,
  // first_doc + row, k). For kTrain batches the statistics are added into stats(). γ stays with
  // the batch (gamma(id)).
  virtual EStepResult e_step(int id, std::uint64_t init_key, std::uint64_t stream) = 0;
  // While set, e_step calls it after each of its iterations with the iteration's number and the
  // mean absolute change of γ (what the stopping test compares with tol): progress lines inside
  // an E-step that runs long, as one minibatch of a whole corpus does (--batch). Empty: none.
  using IterationObserver = std::function<void(int iteration, double mean_change)>;
  virtual void set_iteration_observer(IterationObserver observer) = 0;

  // The W x K statistics accumulated since the last update_lambda, on the backend's side. A
  // backend may hold the last E-step's statistics back until this is called or update_lambda
  // runs (the GPU then adds them to λ directly); the sums are the same either way.
  virtual float* stats() = 0;
  // λ ← (1 − ρ) λ + ρ (η + scale · stats); stats ← 0; topic totals recomputed.
  virtual void update_lambda(double rho, double scale) = 0;

  // Σ n_dw log Σ_k θ_dk β_kw over the nonzeros of kScore batch `score_id`, with θ = γ/Σγ of kFit
  // batch `fit_id` (same rows; e_step must have run) and β = λ / colsum λ.
  virtual double completion_loglik(int fit_id, int score_id) = 0;
  // Σ n_dw log Σ_k exp(E[log θ_dk] + E[log β_kw]) over batch `id` with its stored γ and the
  // current λ: the word term of the variational bound.
  virtual double bound_word_term(int id) = 0;

  // γ of batch `id` (host, rows x K), and setting it (resume from a checkpoint).
  virtual HostDense<float> gamma(int id) const = 0;
  virtual void set_gamma(int id, const HostDense<float>& gamma) = 0;

  virtual KernelCounters counters() const = 0;
  virtual std::string kernel_names() const = 0;  // the variants the plans use
  virtual double prepare_seconds() const = 0;    // total plan preparation time
};

// The backend for ctx's device. GPU backends throw fk::Error in builds without CUDA.
std::unique_ptr<LdaBackend> make_lda_backend(Context ctx, const LdaHyper& hyper);
std::unique_ptr<LdaBackend> make_cpu_lda_backend(Context ctx,
                                                 const LdaHyper& hyper);  // lda_cpu.cpp
std::unique_ptr<LdaBackend> make_gpu_lda_backend(Context ctx, const LdaHyper& hyper);  // lda_gpu.cu

// eps added to SDDMM(N, Eθ, Eβ) before dividing (P = N / (… + eps)): keeps an entry whose
// every topic has underflowed finite without moving normal values (they are far above 1e-30).
constexpr float kPhiEps = 1e-30f;

}  // namespace fk::lda
