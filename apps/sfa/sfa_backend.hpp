#pragma once
// The device-side half of fk-sfa: user factors X, the model Λ, the centred ratings in both
// orientations and the two steps of a pass, behind one interface with a CPU implementation
// (sfa_cpu.cpp: OpenMP + Eigen) and a GPU one (sfa_gpu.cu: CUDA kernels + cuBLAS). The math is
// written once in sfa_engine.hpp.
//
// Model (Canny, "Collaborative filtering with privacy via factor analysis", SIGIR 2002). User u's
// ratings, centred by the global mean μ and the item means m_i, are y_u = T_u (Λ x_u + noise),
// where Λ (items x F) is the factor-loading matrix shared by everyone, x_u (F) the user's factors
// and T_u selects the items u rated. The prediction is r̂_ui = μ + m_i + Λ_i·x_u.
//
// E-step (user_step): for every user, the posterior mean of x_u under the prior N(0, I/λ_u),
//   (λ_u I + Λᵀ T_u Λ) x_u = Λᵀ T_u y_u,
// by a preconditioned conjugate gradient run for all users at once and warm-started from the
// previous pass. The matrix-vector product for the directions P (users x F) is
//   SpMM(SDDMM(R, P, Λ), Λ) + λ_u P      (R: users x items pattern of the training ratings),
// and the preconditioner is one K x K matrix shared by all users, (c ΛᵀΛ + λ_u I)⁻¹, recomputed
// every pass (see the comment at its construction in sfa_engine.hpp for c).
//
// M-step (model_step), two choices:
//  - grad (default; BIDMach's SFA also steps along this gradient, there with ADAGrad over
//    minibatches, here with a curvature preconditioner over full passes): the residual
//    E = S − DDS(Λ, X, S) on
//    the training pattern and the gradient of the log posterior with respect to Λ,
//      G = Eᵀ X − λ_m Λ            (a transposed SpMM: items x F),
//    followed by Λ += η G H⁻¹ with a per-item curvature H_i = (n_i / U) XᵀX + λ_m I (n_i the
//    item's ratings, U the users with ratings). Every H_i shares XᵀX's eigenvectors, so the
//    preconditioning is two K x K GEMMs around a per-element scaling. η = --lrate. With the user
//    offset, Λ's constant column is held: its gradient is dropped and the curvature restricted
//    to the factor columns.
//  - em: the paper's EM M-step for the mean loading of every item, the ridge problem
//      (λ_m I + Xᵀ T_i X) Λ_i = Xᵀ T_i y_i,
//    solved by the same preconditioned CG as the E-step on Rᵀ (the posterior covariance term of
//    the paper's M-step is left out: it is O(K²) per user). With the user offset only the factor
//    columns are solved for (the offset column stays 1): the preconditioner is restricted to
//    them, so the CG directions never touch the offset column.
//
// Objective reported: J = Σ_(u,i)∈Ω (y_ui − Λ_i·x_u)² + λ_u ‖X‖² + λ_m ‖Λ‖², where ‖Λ‖ leaves
// out the user offset's column (fixed at 1, no parameter).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/common/reduce.hpp"
#include "core/context.hpp"
#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/half.hpp"

namespace fk::sfa {

enum class MStep { kGrad, kEm };
MStep parse_mstep(const std::string& text);  // "grad" | "em"; fk::Error otherwise
const char* to_string(MStep m);

struct SfaHyper {
  int factors = 0;  // F (= K, the stored columns)
  double lambda_u = 1;
  double lambda_m = 1;
  int cg_steps = 5;  // PCG steps per E-step (and per em M-step)
  MStep mstep = MStep::kGrad;
  double lrate = 1;  // η of the grad M-step
  // A per-user offset: Λ gets a last column fixed at 1, so x_u's last entry is the user's offset
  // (a user bias, with the prior λ_u like the factors). K = F + 1 then.
  bool user_offset = true;
  double global_mean = 0;  // μ
  // Test predictions are clipped to [clip_lo, clip_hi] when clip_lo < clip_hi.
  double clip_lo = 0, clip_hi = 0;
  std::string sddmm = "auto", spmm = "auto";
  // The CG products' fused SDDMM → SpMM (kernels/ratio_spmm.hpp, the product form) on the sides
  // that run on their own pattern: auto (where app::fused_allowed and the rules say), off, or a
  // variant's name.
  std::string product_spmm = "auto";
  // Lowest operand precision of the training plans (--precision); test plans stay fp32 unless a
  // variant is named (app::evaluation_precision).
  Precision precision = Precision::kF32;
  // Where the items' products run: unset, as the backend's device decides (Ops::items_on_r,
  // apps/common); true on R (Rᵀ·B through a transposed plan), false on Rᵀ. The tests set it to
  // run both ways on either device.
  std::optional<bool> items_on_r;

  int k() const { return factors + (user_offset ? 1 : 0); }  // stored columns of X and Λ
};

struct TrainLoss {
  double objective = 0;
  double sse = 0;      // Σ (y − Λ_i·x_u)² over the training ratings
  std::int64_t n = 0;  // training ratings
};

struct TestErrors {
  double sse = 0, sae = 0;  // Σ e², Σ |e| of clipped predictions
  std::int64_t n = 0;       // test ratings (0: no test set)
};

struct KernelCounters {
  std::int64_t sddmm_calls = 0, spmm_calls = 0;
  double flops = 0;  // 2 · nnz · K per SDDMM or SpMM call
};

class SfaBackend {
 public:
  virtual ~SfaBackend() = default;
  virtual const Context& context() const = 0;

  // Host factors: users x K (X) and items x K (Λ), row-major; with the user offset the last
  // column of X holds the offsets and that of Λ is 1.
  virtual void set_factors(const HostDense<float>& users, const HostDense<float>& items) = 0;
  virtual HostDense<float> user_factors() const = 0;
  virtual HostDense<float> item_factors() const = 0;

  virtual void user_step() = 0;   // E-step: every user's x_u by PCG
  virtual void model_step() = 0;  // M-step: Λ (grad or em)

  virtual TrainLoss train_loss() = 0;
  virtual TestErrors test_errors() = 0;

  virtual KernelCounters counters() const = 0;
  virtual std::string kernel_names() const = 0;
  virtual double prepare_seconds() const = 0;
};

// `train` (users x items, raw ratings), `train_t` (its transpose), `test` (users x items raw
// ratings, may have no nonzeros) and `item_means` (items entries: m_i) are all host; the backend
// centres the ratings (y = r − μ − m_i) and copies what it needs to its side (the CPU backend
// reads `test` in place: it must outlive the backend). `reducer` (may be
// null: a single worker) sums the model statistics across workers; it must outlive the backend.
// GPU backends throw fk::Error in builds without CUDA.
std::unique_ptr<SfaBackend> make_sfa_backend(Context ctx, const SfaHyper& hyper,
                                             const HostCsr& train, const HostCsr& train_t,
                                             const HostCsr& test,
                                             const std::vector<float>& item_means,
                                             app::StatsReducer* reducer = nullptr);
std::unique_ptr<SfaBackend> make_cpu_sfa_backend(Context ctx, const SfaHyper& hyper,
                                                 const HostCsr& train, const HostCsr& train_t,
                                                 const HostCsr& test,
                                                 const std::vector<float>& item_means,
                                                 app::StatsReducer* reducer = nullptr);
std::unique_ptr<SfaBackend> make_gpu_sfa_backend(Context ctx, const SfaHyper& hyper,
                                                 const HostCsr& train, const HostCsr& train_t,
                                                 const HostCsr& test,
                                                 const std::vector<float>& item_means,
                                                 app::StatsReducer* reducer = nullptr);

// Host K x K helpers (sfa_host_math.cpp, Eigen in double; the engine calls them on both devices
// with K x K matrices only). All row-major, k*k floats.
// out = (c·g[:m,:m] + λ I)⁻¹ for the leading m x m block of a symmetric positive semi-definite
// k x k g (m <= k), padded to k x k with zeros: a preconditioner that leaves the last k − m
// coordinates of every CG direction at 0.
void preconditioner_inverse(const std::vector<float>& g, int k, int m, double c, double lambda,
                            std::vector<float>& out);
// g[:m,:m] = V diag(d) Vᵀ for the leading m x m block of a symmetric k x k g (m <= k), padded
// to k x k with the identity (d = 0 there): v and vt (k*k) and d (k), eigenvalues clamped at 0.
void symmetric_eigen(const std::vector<float>& g, int k, int m, std::vector<float>& v,
                     std::vector<float>& vt, std::vector<float>& d);

}  // namespace fk::sfa
