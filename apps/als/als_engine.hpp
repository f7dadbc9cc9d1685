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
//   row_targets(ctx, r, row_ptr, rows, mu, other_x, k, bias_col, t)   the same with the bias of
//                                                            each nonzero's row instead of column
//   affine(ctx, in, n, a, b, out)                            out = a·in + b
//   items_on_r(ctx, user_bytes) -> whether the items' half-steps run on R, given the bytes of
//                                  the users' rows they multiply with (K floats a user)
//   make_design(ctx, x, d, rows, k, c)                       d = x with its column c set to 1
//   cg_init(ctx, rows, k, b, y, x, diag, r, p, rs)           r = b − (y + diag∘x); p = r; rs = r·r
//                                                            (y, diag null: 0)
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
#include "apps/common/training_options.hpp"
#include "kernels/ratio_spmm.hpp"
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
    items_on_r_ = h_.items_on_r.value_or(
        ops_.items_on_r(ctx_, train.rows * std::int64_t{k_} * std::int64_t(sizeof(float))));
    init_side(users_, train);
    init_side(items_, train_t);
    // The users' products and the training loss run on R; the items' on R as Rᵀ·B through a
    // transposed plan where items_on_r_, else on Rᵀ (items_.csr). A CG solve's sparse products
    // (its first residual and apply) run fused where app::fused_allowed and the rules say; a side
    // with a fused plan needs no SpMM plan (nor, on Rᵀ, an SDDMM plan). The SDDMM plan on R also
    // serves the training loss and the items' pair on R.
    const CsrView r = Ops::view(users_.csr);
    sddmm_ = make_sddmm_plan(ctx_, r, k_, h_.sddmm, h_.precision);
    note(sddmm_.variant->name(), sddmm_.prepare_seconds);
    const bool fused = h_.solver == Solver::kCg &&
                       app::fused_allowed(h_.product_spmm, h_.sddmm, h_.spmm,
                                          sddmm_.variant->half_precision());
    if (fused) product_ = make_product_plan(r);
    if (!product_.plan) {
      spmm_ = make_spmm_plan(ctx_, r, k_, Op::kNoTrans, h_.spmm, h_.precision);
      note(spmm_.variant->name(), spmm_.prepare_seconds);
    }
    const CsrView rt = Ops::view(items_.csr);
    if (fused)
      items_product_ = items_on_r_ ? make_product_plan(r, Op::kTrans) : make_product_plan(rt);
    if (!items_product_.plan) {
      if (items_on_r_) {
        items_spmm_ = make_spmm_plan(ctx_, r, k_, Op::kTrans, h_.spmm, h_.precision);
        note(items_spmm_.variant->name() + std::string(" (transposed)"),
             items_spmm_.prepare_seconds);
      } else {
        items_sddmm_ = make_sddmm_plan(ctx_, rt, k_, h_.sddmm, h_.precision);
        note(items_sddmm_.variant->name(), items_sddmm_.prepare_seconds);
        items_spmm_ = make_spmm_plan(ctx_, rt, k_, Op::kNoTrans, h_.spmm, h_.precision);
        note(items_spmm_.variant->name(), items_spmm_.prepare_seconds);
      }
    }
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
    const CsrView s = Ops::view(users_.csr);
    const DenseView<const float> xu{users_.x.data(), users_.rows, k_};
    if (!h_.implicit) {
      // t = r − μ − b_i, SDDMM(R, [p, b_u], [q, 1]) = p·q + b_u, so t − that is the error.
      ops_.targets(ctx_, s.vals, s.col_idx, nnz_, mu(), items_.x.data(), k_, bias_col(), t_.data());
      sddmm_.run(ctx_, xu, {design(items_), items_.rows, k_}, nullptr, w_.data());
      count_sddmm(nnz_);
      loss.sse = ops_.sq_abs_diff(ctx_, t_.data(), w_.data(), nullptr, 0.0f, 0.0f, nnz_).first;
      loss.objective =
          loss.sse +
          ops_.weighted_sq_norm(ctx_, users_.x.data(), users_.diag.data(), users_.rows, k_) +
          ops_.weighted_sq_norm(ctx_, items_.x.data(), items_.diag.data(), items_.rows, k_);
    } else {
      // Σ_all c (p − s)² = Σ_obs [c (1 − s)² − s²] + Σ_all s², and Σ_all s² = ⟨XᵀX, YᵀY⟩.
      sddmm_.run(ctx_, xu, {items_.x.data(), items_.rows, k_}, nullptr, w_.data());
      count_sddmm(nnz_);
      const double obs = ops_.implicit_obs(ctx_, users_.cm1.data(), w_.data(), nnz_);
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
    Buf<float> cm1;         // nnz: c − 1 = α r (implicit; the items' only where read: on Rᵀ)
    bool design_stale = true;
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
    } else if (is_users(s) || !items_on_r_ || h_.solver == Solver::kCholesky) {
      s.cm1 = ops_.template alloc<float>(s.nnz);
      ops_.affine(ctx_, v.vals, s.nnz, static_cast<float>(h_.alpha), 0.0f, s.cm1.data());
    }
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

  bool is_users(const Side& s) const { return &s == &users_; }

  // Where a side's half-step runs its sparse products: on R for the users, on R or Rᵀ for the
  // items (items_on_r_). `swapped`: the side's rows are the pattern's columns (the items on R).
  struct Products {
    CsrView pattern;
    PreparedSddmm* sddmm;
    PreparedSpmm* spmm;        // Σ over the pattern's rows (or, swapped, its columns)
    PreparedRatioSpmm* fused;  // the two in one pass (swapped: over Rᵀ); no plan: the pair
    const float* cm1;          // implicit: c − 1 in the pattern's order
    bool swapped;
  };
  Products products(Side& s) {
    if (is_users(s))
      return {Ops::view(users_.csr), &sddmm_, &spmm_, &product_, users_.cm1.data(), false};
    if (items_on_r_)
      return {Ops::view(users_.csr), &sddmm_, &items_spmm_, &items_product_, users_.cm1.data(),
              true};
    return {Ops::view(items_.csr), &items_sddmm_, &items_spmm_, &items_product_,
            items_.cm1.data(), false};
  }

  // The fused product plan over a pattern (op = kTrans: over its transpose, the items on R), or
  // none where auto sends it to the pair.
  PreparedRatioSpmm make_product_plan(const CsrView& pattern, Op op = Op::kNoTrans) {
    PreparedRatioSpmm p = make_ratio_spmm_plan(ctx_, pattern, k_, h_.product_spmm, op);
    if (p.plan)
      note(p.variant->name() + std::string(op == Op::kTrans ? " (product, transposed)" : " (product)"),
           p.prepare_seconds);
    return p;
  }

  // out = A·in for every row of `s` (the sparse part through SDDMM + SpMM; the dense part of the
  // explicit systems, λ n_r in, is added by the CG kernels through `diag`). The SDDMM gives, per
  // rating, c − 1 (implicit) or 1 times the dot product of its user's and item's rows: `in` holds
  // one of the two, the other side's design rows `dv` the other.
  void apply(Side& s, DenseView<const float> dv, const float* in, float* out) {
    const Products p = products(s);
    const DenseView<const float> in_view{in, s.rows, k_};
    const float* scale = h_.implicit ? p.cm1 : nullptr;
    const DenseView<float> out_view{out, s.rows, k_};
    if (p.fused && p.fused->plan) {
      p.fused->run_product(ctx_, scale, in_view, dv, out_view);
    } else {
      if (p.swapped)
        p.sddmm->run(ctx_, dv, in_view, scale, w_.data());
      else
        p.sddmm->run(ctx_, in_view, dv, scale, w_.data());
      p.spmm->run(ctx_, w_.data(), dv, out_view);
    }
    count_sddmm(nnz_);
    count_spmm(nnz_);
    if (h_.implicit) ops_.gemm_add(ctx_, in, s.rows, k_, gram_.data(), out);
  }

  void solve(Side& s, Side& o) {
    const float* d = design(o);
    const DenseView<const float> dv{d, o.rows, k_};
    const CsrView v = Ops::view(s.csr);
    const Products p = products(s);
    // The right-hand side Σ t·(the other side's design rows) with t in the pattern's order:
    // r − μ − the other side's bias, or c = 1 + (c − 1) in implicit mode.
    if (h_.implicit) {
      ops_.affine(ctx_, p.cm1, nnz_, 1.0f, 1.0f, t_.data());
      ops_.gram(ctx_, d, o.rows, k_, static_cast<float>(h_.lambda), gram_.data());
    } else if (p.swapped) {  // the other side (users) is the pattern's rows
      ops_.row_targets(ctx_, p.pattern.vals, p.pattern.row_ptr, p.pattern.rows, mu(), o.x.data(),
                       k_, bias_col(), t_.data());
    } else {
      ops_.targets(ctx_, p.pattern.vals, p.pattern.col_idx, nnz_, mu(), o.x.data(), k_, bias_col(),
                   t_.data());
    }
    const float* diag = h_.implicit ? nullptr : s.diag.data();
    const DenseView<float> b_view{b_.data(), s.rows, k_};
    if (h_.solver == Solver::kCholesky) {
      p.spmm->run(ctx_, t_.data(), dv, b_view);
      count_spmm(nnz_);
      ops_.exact_solve(ctx_, v, h_.implicit ? s.cm1.data() : nullptr, diag,
                       h_.implicit ? gram_.data() : nullptr, d, b_.data(), s.x.data(), s.rows, k_);
    } else {
      if (p.fused && p.fused->plan) {
        // The right-hand side less the sparse part of A·x in one pass (the residual form:
        // Σ (t − s·(x·y)) y, s = c − 1 or 1); the dense rest comes in through y = x·G (implicit)
        // or diag (explicit) in cg_init.
        p.fused->run_residual(ctx_, t_.data(), h_.implicit ? p.cm1 : nullptr,
                              {s.x.data(), s.rows, k_}, dv, b_view);
        count_sddmm(nnz_);
        count_spmm(nnz_);
        if (h_.implicit) {
          ops_.fill(ctx_, y_.data(), s.rows * k_, 0.0f);
          ops_.gemm_add(ctx_, s.x.data(), s.rows, k_, gram_.data(), y_.data());
        }
      } else {
        p.spmm->run(ctx_, t_.data(), dv, b_view);
        count_spmm(nnz_);
        apply(s, dv, s.x.data(), y_.data());
      }
      // Explicit and fused, the sparse part of A·x is in b already and the dense part is diag: no y.
      const bool no_y = !h_.implicit && p.fused && p.fused->plan;
      ops_.cg_init(ctx_, s.rows, k_, b_.data(), no_y ? nullptr : y_.data(), s.x.data(), diag,
                   r_.data(), p_.data(), rs_.data());
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
  // Whether the items' half-steps run on R (Rᵀ·B through a transposed plan) rather than on Rᵀ:
  // AlsHyper::items_on_r, else Ops::items_on_r (apps/common) from the users' rows of B.
  bool items_on_r_ = false;
  // Plans hold views of users_.csr (R) or items_.csr (Rᵀ), so they are declared after them:
  // SDDMM and S·B over R (the users' half-steps and the loss); the items' SpMM (Rᵀ·B over R, or
  // S·B over Rᵀ) and, on Rᵀ, their SDDMM.
  PreparedSddmm sddmm_, items_sddmm_;
  PreparedSpmm spmm_, items_spmm_;
  PreparedRatioSpmm product_, items_product_;  // CG's fused residual and products (none: the pair)
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
