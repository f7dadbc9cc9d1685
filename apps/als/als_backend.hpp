#pragma once
// The device-side half of fk-als: factors, the ratings in both orientations, and the half-steps,
// behind one interface with a CPU implementation (als_cpu.cpp: OpenMP + Eigen) and a GPU one
// (als_gpu.cu: CUDA kernels, cuBLAS, cuSOLVER). The math is written once in als_engine.hpp.
//
// Model. Explicit: r̂_ui = μ + b_u + b_i + p_u·q_i (b = 0 without --biases), objective
//   J = Σ_(u,i)∈Ω (r_ui − r̂_ui)² + λ Σ_u n_u (‖p_u‖² + b_u²) + λ Σ_i n_i (‖q_i‖² + b_i²)
// (weighted-λ, Zhou et al. 2008). The factors are stored augmented, K = F + 1 columns with
// biases: X_u = [p_u, b_u], X_i = [q_i, b_i], and the half-step for the users solves, for every u,
//   (Σ_i∈Ω_u d_i d_iᵀ + λ n_u I) X_u = Σ_i∈Ω_u (r_ui − μ − b_i) d_i,   d_i = [q_i, 1]
// (the items' "design" rows); the item half-step is the same with the roles swapped. Without
// biases K = F, d_i = q_i and the targets are r_ui − μ.
// Implicit (Hu, Koren & Volinsky 2008): c_ui = 1 + α r_ui on observed pairs, preference 1 there
// and 0 elsewhere, J = Σ_all c_ui (p_ui − x_u·y_i)² + λ (Σ‖x_u‖² + Σ‖y_i‖²), and
//   (YᵀY + λI + Σ_i∈Ω_u (c_ui − 1) y_i y_iᵀ) x_u = Σ_i∈Ω_u c_ui y_i.
//
// Solvers. CG: batched conjugate gradient over all rows at once, matrix-free: the sparse part of
// A·P is SDDMM(S, P, D) (scaled by c − 1 in implicit mode) followed by SpMM(S, ·, D); the dense
// part is λ n_u P (explicit) or P·(DᵀD + λI) (implicit, one GEMM). Warm-started from the current
// factors; one residual product plus `cg_steps` steps. Cholesky: every row's K x K system built
// and factorized exactly.
//
// The item half-step runs on Rᵀ built once on the host (train_t), with its own plans, rather than
// on plans with Op::kTrans: a kTrans SpMM plan gathers the values through a permutation on every
// run (an extra random-access pass over the nonzeros per CG step) and there is no transposed
// SDDMM; with Rᵀ both kernels read and write the item half-step's values in one order and rows are
// written once (no atomics), for one more copy of the pattern. Measured on this 2-core machine
// (OpenMP `auto`, K = 65, best of 30): Rᵀ·P through a kTrans plan on R took 0.223 ms against
// 0.200 ms on Rᵀ for MovieLens-100K's shape, and 1048 ms against 728 ms for MovieLens-20M's.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "apps/als/als_options.hpp"
#include "core/context.hpp"
#include "core/csr.hpp"
#include "core/dense.hpp"

namespace fk::als {

struct AlsHyper {
  int factors = 0;  // F
  bool biases = false;
  bool implicit = false;
  double lambda = 0.05;
  double alpha = 40;  // implicit only
  Solver solver = Solver::kCg;
  int cg_steps = 3;
  double global_mean = 0;  // μ subtracted from every rating (explicit; 0 in implicit mode)
  // Test predictions are clipped to [clip_lo, clip_hi] (the training ratings' range) when
  // clip_lo < clip_hi, as rating-prediction libraries do; the training error is never clipped.
  double clip_lo = 0, clip_hi = 0;
  std::string sddmm = "auto", spmm = "auto";
  // The CG products' fused SDDMM → SpMM (kernels/ratio_spmm.hpp, the product form) on the sides
  // that run on their own pattern: auto (where app::fused_allowed and the rules say), off, or a
  // variant's name.
  std::string product_spmm = "auto";
  // Lowest operand precision of the training plans (--precision); test plans stay fp32 unless a
  // variant is named (app::evaluation_precision).
  Precision precision = Precision::kF32;
  // Where the items' half-steps run their products: unset, as the backend's device decides (the
  // engine's Ops::items_on_r); true on R (Rᵀ·B through a transposed plan), false on Rᵀ. The tests
  // set it to run both ways on either device.
  std::optional<bool> items_on_r;

  int k() const { return factors + (biases ? 1 : 0); }  // stored columns per row
};

// Training objective J of the current factors (see above) and, in explicit mode, the sum of
// squared training errors.
struct TrainLoss {
  double objective = 0;
  double sse = 0;      // explicit only
  std::int64_t n = 0;  // training ratings
};

// Test errors of the current factors (explicit mode; predictions clipped as AlsHyper says).
struct TestErrors {
  double sse = 0, sae = 0;  // Σ e², Σ |e|
  std::int64_t n = 0;       // test ratings (0: no test set)
};

struct KernelCounters {
  std::int64_t sddmm_calls = 0, spmm_calls = 0;
  double flops = 0;  // 2 · nnz · K per SDDMM or SpMM call
};

class AlsBackend {
 public:
  virtual ~AlsBackend() = default;
  virtual const Context& context() const = 0;

  // Factors on the host: users x K and items x K row-major, augmented as above.
  virtual void set_factors(const HostDense<float>& users, const HostDense<float>& items) = 0;
  virtual HostDense<float> user_factors() const = 0;
  virtual HostDense<float> item_factors() const = 0;

  virtual void solve_users() = 0;  // half-step: every user's row with the items fixed
  virtual void solve_items() = 0;  // half-step: every item's row with the users fixed

  virtual TrainLoss train_loss() = 0;
  virtual TestErrors test_errors() = 0;

  virtual KernelCounters counters() const = 0;
  virtual std::string kernel_names() const = 0;  // the variants the plans use
  virtual double prepare_seconds() const = 0;    // plan preparation, paid once
};

// `train` (users x items) and `train_t` (its transpose) hold the training ratings; `test`
// (users x items, may have no nonzeros) the test ratings. All host; a GPU backend copies what it
// needs to its side, the CPU backend reads them in place: they must outlive the backend. GPU
// backends throw fk::Error in builds without CUDA.
std::unique_ptr<AlsBackend> make_als_backend(Context ctx, const AlsHyper& hyper,
                                             const HostCsr& train, const HostCsr& train_t,
                                             const HostCsr& test);
std::unique_ptr<AlsBackend> make_cpu_als_backend(Context ctx, const AlsHyper& hyper,
                                                 const HostCsr& train, const HostCsr& train_t,
                                                 const HostCsr& test);  // als_cpu.cpp
std::unique_ptr<AlsBackend> make_gpu_als_backend(Context ctx, const AlsHyper& hyper,
                                                 const HostCsr& train, const HostCsr& train_t,
                                                 const HostCsr& test);  // als_gpu.cu

}  // namespace fk::als
