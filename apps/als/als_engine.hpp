#pragma once
// The ALS half-steps written once over a device policy `Ops` that supplies memory and the
// row-wise and elementwise operations; the SDDMM/SpMM calls go through the kernels' public plans.
// als_cpu.cpp instantiates it with CpuOps (host memory, OpenMP, Eigen); als_gpu.cu with GpuOps
// (device memory, CUDA kernels, cuBLAS, cuSOLVER). Compiled by the host compiler and by nvcc, so
// it uses neither Eigen nor CUDA. See als_backend.hpp for the model and the linear systems.
//
// What Ops provides (every pointer on its side; matrices row-major, K columns):
//   template <class T> using Buffer;  Buffer<T> alloc<T>(int64 n);  upload(buf, host, n);
//   download(buf, host, n) const;  using Csr;  Csr make_csr(const HostCsr&);  static CsrView
//   view(const Csr&); fill(ctx, float* p, int64 n, float v) targets(ctx, r, col, nnz, mu, other_x,
//   k, bias_col, t)   t_j = r_j − μ − (bias_col >= 0 ?
//                                                            other_x[col_j·k + bias_col] : 0)
//   affine(ctx, in, n, a, b, out)                            out = a·in + b
//   make_design(ctx, x, d, rows, k, c)                       d = x with its column c set to 1
//   cg_init(ctx, rows, k, b, y, x, diag, r, p, rs)           r = b − (y + diag∘x); p = r; rs = r·r
//   (per row) cg_step(ctx, rows, k, x, r, p, y, diag, rs)              one CG step per row with A·p
//   = y + diag∘p gram(ctx, d, n, k, lambda, g)                            g = dᵀd + λI (k x k)
//   gemm_add(ctx, p, rows, k, g, y)                          y += p·g
//   exact_solve(ctx, s, w, diag, g, d, b, x, rows, k)        x_r = (g + Σ_j w_j d_j d_jᵀ + diag_r
//   I)⁻¹ b_r
//                                                            (w, diag, g may be null: 1, 0, 0)
//   sq_abs_diff(ctx, t, s, r, lo, hi, n) -> {Σ e², Σ |e|} with e = t − s when r is null, else
//                                            e = r − clamp(s + r − t, lo, hi) (the prediction
//                                            s + (μ + bias) clipped to the rating range)
//   implicit_obs(ctx, cm1, s, n) -> Σ (1 + cm1)(1 − s)² − s²
//   weighted_sq_norm(ctx, x, w, rows, k) -> Σ_r (w ? w_r : 1) ‖x_r‖²
// Reductions are deterministic (fixed order, independent of the thread count).
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "apps/als/als_backend.hpp"
#include "apps/common/padded.hpp"
#include "apps/common/precision.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::als {

template <class Ops>
class AlsEngine final : public AlsBackend {
 public:
  template <class T>
  using Buf = typename Ops::template Buffer<T>;

  AlsEngine(Context ctx, const AlsHyper& h, const HostCsr& train, const HostCsr& train_t,
            const HostCsr& test)
      : ctx_(std::move(ctx)), h_(h), ops_(ctx_), k_(app::padded_width(h.k())) {
    FK_CHECK(h_.factors >= 1, "ALS needs at least one factor");
    FK_CHECK(h_.lambda > 0, "ALS needs lambda > 0");
    FK_CHECK(!(h_.biases && h_.implicit), "biases are an explicit-feedback feature");
    FK_CHECK(
        train.rows == train_t.cols && train.cols == train_t.rows && train.nnz() == train_t.nnz(),
        "train_t is not the transpose of train");
    FK_CHECK(train.nnz() > 0, "ALS needs at least one training rating");
    FK_CHECK(!train.vals.empty() && !train_t.vals.empty(), "training ratings without values");
    FK_CHECK(test.nnz() == 0 ||
                 (test.rows == train.rows && test.cols == train.cols && !test.vals.empty()),
             "test ratings must be users x items like the training ratings");
    nnz_ = train.nnz();
    init_side(users_, train);
    init_side(items_, train_t);
    t_ = ops_.template alloc<float>(nnz_);
    w_ = ops_.template alloc<float>(nnz_);
    const std::int64_t rows = std::max(users_.rows, items_.rows);
    b_ = ops_.template alloc<float>(rows * k_);
    r_ = ops_.template alloc<float>(rows * k_);
    p_ = ops_.template alloc<float>(rows * k_);
    y_ = ops_.template alloc<float>(rows * k_);
    rs_ = ops_.template alloc<float>(rows);
    gram_ = ops_.template alloc<float>(std::int64_t{k_} * k_);
    gram2_ = ops_.template alloc<float>(std::int64_t{k_} * k_);
    test_nnz_ = test.nnz();
    if (test_nnz_ > 0) {
      test_csr_ = ops_.make_csr(test);
      test_t_ = ops_.template alloc<float>(test_nnz_);
      test_w_ = ops_.template alloc<float>(test_nnz_);
      // Test errors only evaluate the model: fp32 unless --sddmm names a variant.
      test_sddmm_ = make_sddmm_plan(ctx_, Ops::view(test_csr_), k_, h_.sddmm,
                                    app::evaluation_precision(h_.sddmm, h_.precision));
      note(test_sddmm_.variant->name(), test_sddmm_.prepare_seconds);
    }
  }

  const Context& context() const override { return ctx_; }

  void set_factors(const HostDense<float>& users, const HostDense<float>& items) override {
    // Stored padded_width(K) wide (apps/common/padded.hpp): the extra columns are zero.
    const HostDense<float> u = app::padded_input("user", users, users_.rows, h_.k(), k_);
    const HostDense<float> i = app::padded_input("item", items, items_.rows, h_.k(), k_);
    ops_.upload(users_.x, u.data(), u.size());
    ops_.upload(items_.x, i.data(), i.size());
    users_.design_stale = items_.design_stale = true;
  }

  HostDense<float> user_factors() const override { return download(users_); }
  HostDense<float> item_factors() const override { return download(items_); }

  void solve_users() override { solve(users_, items_); }
  void solve_items() override { solve(items_, users_); }

  TrainLoss train_loss() override {
    TrainLoss loss;
    loss.n = nnz_;
    const CsrView s = Ops::view(items_.csr);
    const DenseView<const float> xi{items_.x.data(), items_.rows, k_};
    if (!h_.implicit) {
      // In Rᵀ order: t = r − μ − b_u, SDDMM(Rᵀ, [q, b_i], [p, 1]) = q·p + b_i, so t − that is the
      // error.
      ops_.targets(ctx_, s.vals, s.col_idx, nnz_, mu(), users_.x.data(), k_, bias_col(), t_.data());
      items_.sddmm.run(ctx_, xi, {design(users_), users_.rows, k_}, nullptr, w_.data());
      count_sddmm(nnz_);
      loss.sse = ops_.sq_abs_diff(ctx_, t_.data(), w_.data(), nullptr, 0.0f, 0.0f, nnz_).first;
      loss.objective =
          loss.sse +
          ops_.weighted_sq_norm(ctx_, users_.x.data(), users_.diag.data(), users_.rows, k_) +
          ops_.weighted_sq_norm(ctx_, items_.x.data(), items_.diag.data(), items_.rows, k_);
    } else {
      // Σ_all c (p − s)² = Σ_obs [c (1 − s)² − s²] + Σ_all s², and Σ_all s² = ⟨XᵀX, YᵀY⟩.
      items_.sddmm.run(ctx_, xi, {users_.x.data(), users_.rows, k_}, nullptr, w_.data());
      count_sddmm(nnz_);
      const double obs = ops_.implicit_obs(ctx_, items_.cm1.data(), w_.data(), nnz_);
      ops_.gram(ctx_, users_.x.data(), users_.rows, k_, 0.0f, gram2_.data());
      std::vector<float> gu(static_cast<std::size_t>(k_) * k_), gi(gu.size());
      ops_.download(gram2_, gu.data(), static_cast<std::int64_t>(gu.size()));
      ops_.gram(ctx_, items_.x.data(), items_.rows, k_, 0.0f, gram2_.data());
      ops_.download(gram2_, gi.data(), static_cast<std::int64_t>(gi.size()));
      double all = 0;
      for (std::size_t e = 0; e < gu.size(); ++e) all += double(gu[e]) * gi[e];
      const double norms = ops_.weighted_sq_norm(ctx_, users_.x.data(), nullptr, users_.rows, k_) +
                           ops_.weighted_sq_norm(ctx_, items_.x.data(), nullptr, items_.rows, k_);
      loss.objective = obs + all + h_.lambda * norms;
    }
    return loss;
  }

  TestErrors test_errors() override {
    TestErrors e;
    if (test_nnz_ == 0 || h_.implicit) return e;
    // t = r − μ − b_i, SDDMM(T, [p, b_u], [q, 1]) = p·q + b_u.
    const CsrView s = Ops::view(test_csr_);
    ops_.targets(ctx_, s.vals, s.col_idx, test_nnz_, mu(), items_.x.data(), k_, bias_col(),
                 test_t_.data());
    test_sddmm_.run(ctx_, {users_.x.data(), users_.rows, k_}, {design(items_), items_.rows, k_},
                    nullptr, test_w_.data());
    count_sddmm(test_nnz_);
    // With clipping, the prediction s + (r − t) = μ + b_u + b_i + p·q is clamped to the range.
    const bool clip = h_.clip_lo < h_.clip_hi;
    const auto [sse, sae] =
        ops_.sq_abs_diff(ctx_, test_t_.data(), test_w_.data(), clip ? s.vals : nullptr,
                         static_cast<float>(h_.clip_lo), static_cast<float>(h_.clip_hi), test_nnz_);
    e.sse = sse;
    e.sae = sae;
    e.n = test_nnz_;
    return e;
  }

  KernelCounters counters() const override { return counters_; }
  double prepare_seconds() const override { return prepare_seconds_; }
  std::string kernel_names() const override {
    std::string out;
    for (const std::string& n : names_) out += (out.empty() ? "" : ", ") + n;
    return out;
  }

 private:
  // One orientation: the rows solved in a half-step (users on R, items on Rᵀ).
  struct Side {
    std::int64_t rows = 0, nnz = 0;
    typename Ops::Csr csr;  // pattern and ratings
    Buf<float> x;           // rows x K factors (augmented with the bias column)
    Buf<float> d;           // rows x K design [factors, 1] (biases only)
    Buf<float> diag;        // rows: λ n_r (explicit)
    Buf<float> cm1;         // nnz: c − 1 = α r (implicit)
    bool design_stale = true;
    // Plans hold views of csr: declared after it so they are destroyed first.
    PreparedSddmm sddmm;
    PreparedSpmm spmm;
  };

  void init_side(Side& s, const HostCsr& m) {
    s.rows = m.rows;
    s.nnz = m.nnz();
    s.csr = ops_.make_csr(m);
    s.x = ops_.template alloc<float>(s.rows * k_);
    ops_.fill(ctx_, s.x.data(), s.rows * k_, 0.0f);
    if (h_.biases) s.d = ops_.template alloc<float>(s.rows * k_);
    const CsrView v = Ops::view(s.csr);
    if (!h_.implicit) {
      std::vector<float> diag(static_cast<std::size_t>(s.rows));
      for (std::int64_t r = 0; r < s.rows; ++r)
        diag[r] =
            static_cast<float>(h_.lambda * static_cast<double>(m.row_ptr[r + 1] - m.row_ptr[r]));
      s.diag = ops_.template alloc<float>(s.rows);
      ops_.upload(s.diag, diag.data(), s.rows);
    } else {
      s.cm1 = ops_.template alloc<float>(s.nnz);
      ops_.affine(ctx_, v.vals, s.nnz, static_cast<float>(h_.alpha), 0.0f, s.cm1.data());
    }
    s.sddmm = make_sddmm_plan(ctx_, v, k_, h_.sddmm, h_.precision);
    note(s.sddmm.variant->name(), s.sddmm.prepare_seconds);
    s.spmm = make_spmm_plan(ctx_, v, k_, Op::kNoTrans, h_.spmm, h_.precision);
    note(s.spmm.variant->name(), s.spmm.prepare_seconds);
  }

  HostDense<float> download(const Side& s) const {
    HostDense<float> out(s.rows, k_);
    ops_.download(s.x, out.data(), out.size());
    return app::with_width(out, h_.k());
  }

  float mu() const { return static_cast<float>(h_.global_mean); }
  int bias_col() const { return h_.biases ? h_.factors : -1; }

  // The rows the other side's half-step multiplies with: [factors, 1] with biases, else the
  // factors.
  const float* design(Side& s) {
    if (!h_.biases) return s.x.data();
    if (s.design_stale) {
      ops_.make_design(ctx_, s.x.data(), s.d.data(), s.rows, k_, bias_col());
      s.design_stale = false;
    }
    return s.d.data();
  }

  // out = A·in for every row of `s` (the sparse part through SDDMM + SpMM; the dense part of the
  // explicit systems, λ n_r in, is added by the CG kernels through `diag`).
  void apply(Side& s, DenseView<const float> dv, const float* in, float* out) {
    const DenseView<const float> in_view{in, s.rows, k_};
    s.sddmm.run(ctx_, in_view, dv, h_.implicit ? s.cm1.data() : nullptr, w_.data());
    s.spmm.run(ctx_, w_.data(), dv, DenseView<float>{out, s.rows, k_});
    count_sddmm(s.nnz);
    count_spmm(s.nnz);
    if (h_.implicit) ops_.gemm_add(ctx_, in, s.rows, k_, gram_.data(), out);
  }

  void solve(Side& s, Side& o) {
    const float* d = design(o);
    const DenseView<const float> dv{d, o.rows, k_};
    const CsrView v = Ops::view(s.csr);
    if (!h_.implicit) {
      ops_.targets(ctx_, v.vals, v.col_idx, s.nnz, mu(), o.x.data(), k_, bias_col(), t_.data());
    } else {
      ops_.affine(ctx_, s.cm1.data(), s.nnz, 1.0f, 1.0f, t_.data());  // c = 1 + (c − 1)
      ops_.gram(ctx_, d, o.rows, k_, static_cast<float>(h_.lambda), gram_.data());
    }
    s.spmm.run(ctx_, t_.data(), dv, DenseView<float>{b_.data(), s.rows, k_});
    count_spmm(s.nnz);
    const float* diag = h_.implicit ? nullptr : s.diag.data();
    if (h_.solver == Solver::kCholesky) {
      ops_.exact_solve(ctx_, v, h_.implicit ? s.cm1.data() : nullptr, diag,
                       h_.implicit ? gram_.data() : nullptr, d, b_.data(), s.x.data(), s.rows, k_);
    } else {
      apply(s, dv, s.x.data(), y_.data());
      ops_.cg_init(ctx_, s.rows, k_, b_.data(), y_.data(), s.x.data(), diag, r_.data(), p_.data(),
                   rs_.data());
      for (int step = 0; step < h_.cg_steps; ++step) {
        apply(s, dv, p_.data(), y_.data());
        ops_.cg_step(ctx_, s.rows, k_, s.x.data(), r_.data(), p_.data(), y_.data(), diag,
                     rs_.data());
      }
    }
    s.design_stale = true;
  }

  void note(const std::string& name, double seconds) {
    names_.insert(name);
    prepare_seconds_ += seconds;
  }
  void count_sddmm(std::int64_t nnz) {
    ++counters_.sddmm_calls;
    counters_.flops +=
        2.0 * static_cast<double>(nnz) * h_.k();  // useful flops, padding not counted
  }
  void count_spmm(std::int64_t nnz) {
    ++counters_.spmm_calls;
    counters_.flops +=
        2.0 * static_cast<double>(nnz) * h_.k();  // useful flops, padding not counted
  }

  Context ctx_;
  AlsHyper h_;
  Ops ops_;
  int k_;  // stored columns: padded_width(h_.k())
  std::int64_t nnz_ = 0, test_nnz_ = 0;
  Side users_, items_;
  Buf<float> t_, w_;  // nnz: targets / right-hand-side values, SDDMM output
  Buf<float> b_, r_, p_, y_,
      rs_;  // CG: right-hand side, residual, direction, A·p (rows x K); r·r (rows)
  Buf<float> gram_, gram2_;  // K x K
  typename Ops::Csr test_csr_;
  Buf<float> test_t_, test_w_;
  PreparedSddmm test_sddmm_;
  std::set<std::string> names_;
  double prepare_seconds_ = 0;
  KernelCounters counters_;
};

}  // namespace fk::als
