#pragma once
// The device-side half of fk-gap: the GaP model (Canny, "GaP: a factor model for discrete data",
// SIGIR 2004), its EM iteration and the sums its metrics need, behind one interface with a CPU
// implementation (gap_cpu.cpp: OpenMP) and a GPU one (gap_gpu.cu: CUDA kernels). The math is
// written once in gap_engine.hpp.
//
// Model. Counts F (documents x words) with f_dw ~ Poisson(r_dw), r_dw = Σ_k x_dk λ_wk, and a
// Gamma(a, b) prior (shape a, scale b: density x^(a−1) e^(−x/b) / (Γ(a) b^a)) on every x_dk.
// The columns of Λ are distributions over the words (Σ_w λ_wk = 1, the paper's normalization), so
// x_dk is the expected number of tokens of document d that come from factor k. MAP objective:
//   J(Λ, X) = Σ_dw [f_dw log r_dw − r_dw − log f_dw!] + Σ_dk [(a−1) log x_dk − x_dk/b
//             − a log b − log Γ(a)].
//
// Layout. Our kernels: SDDMM out_j = dot(A[row_j,:], B[col_j,:]) over a CSR S (M x N) with A (M x
// K) and B (N x K) row-major; SpMM C = S·B, or Sᵀ·B through a plan prepared with Op::kTrans. The
// paper's F is words x documents with Λ words x K and X K x documents; we store
//   F  documents x words CSR (D x W, one row per document, only the f > 0 entries),
//   X  documents x K row-major (the paper's Xᵀ),   Λ  words x K row-major (the paper's Λ),
// so that, with Q = F ./ R at F's nonzeros,
//   R at the nonzeros = SDDMM(F, X, Λ)           (A = X: D x K, B = Λ: W x K)
//   "Λᵀ Q" of the paper = SpMM(Q, Λ)            (D x K, one row per document)
//   "Q Xᵀ" of the paper = Qᵀ · X                (W x K, the transposed SpMM plan on F's pattern)
// and the rates at F's zeros enter only through Σ_dw r_dw = Σ_k (Σ_w λ_wk)(Σ_d x_dk), a product
// of two K-vectors: nothing dense D x W is ever formed. Plans are prepared once per pattern.
//
// One iteration (one SDDMM, two SpMMs; every step uses the old Λ and X):
//   Q  = F ./ SDDMM(F, X, Λ)
//   T1 = SpMM(Q, Λ),  T2 = Qᵀ X                     (T2 is a sum over documents: StatsReducer)
// or, where --ratio-spmm gives fused plans, two ratio SpMMs that never store R or Q and read each
// row of Λ (of X) once for its dot product and its update: T1 over F (A = X, B = Λ), T2 over Fᵀ
// (A = Λ, B = X). Twice the dot products, fewer bytes: 1.25x faster on nytimes on an H100.
//   X ← (X ∘ T1 + (a − 1)) / (Σ_w λ_wk + 1/b) = (X ∘ T1 + (a − 1)) / (1 + 1/b)
//   Λ ← Λ ∘ T2, then every column divided by its sum.
// With --update alternating, T2 is formed after the X step from the new X (Q again from the new
// rates): two SDDMMs an iteration, or the same two fused ratio SpMMs as above, the second from the
// new X. Each step is the EM step of its block with the other fixed (ECM), so J still never
// decreases. On kos (K = 50, a = 1.3) it reached the joint order's J in 0.73-0.85 of the
// iterations, on the nytimes shape in as many (docs/benchmarks/checks/gap-alternating). T2 stays
// a sum over documents.
// The paper writes the Λ step as Λ ∘ (Q Xᵀ) ./ rowsum X followed by the normalization; the
// division by rowsum X is one number per column, which the normalization removes, so it is left
// out. A column whose sum is 0 (its factor has no weight in any document) keeps its old values.
//
// Why J never decreases (a >= 1). This is EM with the latent split of every count f_dw over the
// factors, φ_dwk = x_dk λ_wk / r_dw computed from the old (Λ, X). Jensen gives
//   J(Λ', X') >= Σ_dwk f_dw φ_dwk [log λ'_wk + log x'_dk] − Σ_dk x'_dk (Σ_w λ'_wk)
//                + prior(X') + const,  with equality at the old (Λ, X).
// With the columns of Λ' constrained to sum to 1 the bound separates into a Λ' part (maximized by
// λ'_wk ∝ Σ_d f_dw φ_dwk = λ_wk (QᵀX)_wk, the normalized Λ ∘ T2) and one concave part per x'_dk,
//   c log x' − x' (1 + 1/b)  with c = x_dk (Λᵀ Q)_dk + a − 1 >= 0,
// maximized by x' = c / (1 + 1/b). Both maxima are taken from the same Q, so one SDDMM per
// iteration suffices and J(new) >= bound(new) >= bound(old) = J(old). For a < 1 the objective is
// unbounded (x → 0 sends (a−1) log x to +∞) and c may be negative, so a < 1 is refused.
//
// Evaluation. Every sum is deterministic (fixed order, independent of the thread count). The
// backend returns raw sums; gap_trainer.cpp turns them into per-token log-likelihoods:
//   train_ll   = [Σ_train f log r − Σ_all r − Σ log f!] / training tokens,
//   heldout_ll (binomial thinning with probability p, F_held ~ Poisson(p/(1−p) r)):
//              [Σ_held f log(p/(1−p) r) − p/(1−p) Σ_all r − Σ log f!] / held-out tokens,
//   test       (--test: X of the test documents fitted with Λ fixed on the observed halves, the
//              other halves scored with the same rates): [Σ_scored f log r − Σ_all r − Σ log f!]
//              / scored tokens.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "apps/common/reduce.hpp"
#include "core/context.hpp"
#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/half.hpp"

namespace fk::gap {

// The order of the two factor updates in an iteration (--update).
enum class GapUpdate {
  kJoint,        // X and Λ both from the old model: one SDDMM serves both products (the paper's)
  kAlternating,  // X first, then Λ from the new X (Gauss-Seidel): two SDDMMs (or fused passes)
};

struct GapHyper {
  int factors = 0;      // K
  double a = 1.1;       // Gamma shape (>= 1)
  double b = 100;       // Gamma scale (> 0)
  int test_iters = 20;  // X updates of the test documents per evaluation (--test)
  std::string sddmm = "auto", spmm = "auto";
  GapUpdate update = GapUpdate::kJoint;
  // Each product as one fused ratio SpMM (kernels/ratio_spmm.hpp): auto, off or a variant name
  // (app::fused_allowed decides with sddmm, spmm and the precision).
  std::string ratio_spmm = "auto";
  // Lowest operand precision of the training plans (--precision); the held-out and test plans
  // stay fp32 unless a variant is named (app::evaluation_precision).
  Precision precision = Precision::kF32;
};

// Raw sums of the current model (see above).
struct ModelSums {
  double train_log_rate = 0;  // Σ_train f log r over the training nonzeros
  double rate_sum = 0;        // Σ_all (d, w) r_dw = Σ_k (colsum Λ)_k (colsum X)_k
  double prior = 0;           // Σ_dk (a−1) log x_dk − x_dk / b (normalizing constant left out)
  std::optional<double> heldout_log_rate;  // Σ_held f log r (when there is a held-out set)
  std::optional<double> test_log_rate;     // Σ_scored f log r_test (when there are test halves)
  std::optional<double> test_rate_sum;     // Σ_all r_test of the fitted test documents
};

struct KernelCounters {
  std::int64_t sddmm_calls = 0, spmm_calls = 0;
  double flops = 0;  // 2 · nnz · K per SDDMM or SpMM call (a fused ratio SpMM counts as both)
};

// Rates below this are taken as this inside log, and added before dividing (Q = F ./ (R + floor),
// the fused ratio SpMM's eps): keeps an entry whose every factor underflowed finite without
// moving normal values (in float, r + 1e-30 == r for every r above about 1e-23).
constexpr float kRateFloor = 1e-30f;

class GapBackend {
 public:
  virtual ~GapBackend() = default;
  virtual const Context& context() const = 0;

  // The model on the host: Λ words x K and X documents x K, row-major. Λ's columns must sum to 1.
  virtual void set_model(const HostDense<float>& lambda, const HostDense<float>& x) = 0;
  virtual HostDense<float> lambda() const = 0;
  virtual HostDense<float> x() const = 0;

  // One EM iteration (above). `reducer` sums the Λ statistics T2 (W x K, on the backend's side)
  // across workers before the Λ update.
  virtual void iterate(app::StatsReducer& reducer) = 0;
  // The sums of the current model; fits the test documents first when there are any.
  virtual ModelSums evaluate() = 0;

  virtual KernelCounters counters() const = 0;
  virtual std::string kernel_names() const = 0;  // the variants the plans use
  virtual double prepare_seconds() const = 0;    // plan preparation, paid once
};

// All matrices on the host (D x W counts with f > 0 only; a GPU backend copies what it needs, the
// CPU backend reads them in place, so they must outlive it):
// `train` the training counts; `heldout` (same shape, may have no nonzeros) the held-out tokens;
// `test_observed` and `test_scored` (T x W, may have no rows) the halves of the test documents.
// GPU backends throw fk::Error in builds without CUDA.
struct GapMatrices {
  const HostCsr* train = nullptr;
  const HostCsr* heldout = nullptr;
  const HostCsr* test_observed = nullptr;
  const HostCsr* test_scored = nullptr;
};
std::unique_ptr<GapBackend> make_gap_backend(Context ctx, const GapHyper& hyper,
                                             const GapMatrices& m);
std::unique_ptr<GapBackend> make_cpu_gap_backend(Context ctx, const GapHyper& hyper,
                                                 const GapMatrices& m);  // gap_cpu.cpp
std::unique_ptr<GapBackend> make_gpu_gap_backend(Context ctx, const GapHyper& hyper,
                                                 const GapMatrices& m);  // gap_gpu.cu

}  // namespace fk::gap
