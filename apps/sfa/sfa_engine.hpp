#pragma once
// The SFA steps written once over a device policy `Ops`; the SDDMM/SpMM calls go through the
// kernels' public plans, prepared once. sfa_cpu.cpp instantiates it with CpuOps (host memory,
// OpenMP, Eigen), sfa_gpu.cu with GpuOps (device memory, CUDA kernels, cuBLAS). Compiled by the
// host compiler and by nvcc, so it uses neither Eigen nor CUDA. Inside a pass the host handles
// only scalars and K x K matrices (the preconditioners). See sfa_backend.hpp for the model.
//
// What Ops provides (every pointer on its side; matrices row-major with k columns):
//   template <class T> using Buffer;  Buffer<T> alloc<T>(n);  upload(buf, host, n);
//   download(buf, host, n) const;  using Csr;  Csr make_csr(const HostCsr&);  static view(Csr)
//   Csr make_csr(pattern, std::vector<float>&& vals)  pattern's rows and columns, these values
//   fill(ctx, p, n, v)
//   set_column(ctx, x, rows, k, col, v)            x[r, col] = v for every row
//   axpby(ctx, n, a, x, b, y)                      y = a·x + b·y
//   gram(ctx, x, rows, k, g)                       g = xᵀx (k x k)
//   gemm(ctx, a, rows, k, m, out)                  out = a·m (m: k x k row-major), out ≠ a
//   pcg_residual(ctx, rows, k, b, y, x, lam, r)    r = b − (y + λ x)   (y null: 0)
//   pcg_start(ctx, rows, k, r, z, p, rz)           p = z; rz = r·z (per row)
//   pcg_x(ctx, rows, k, x, r, p, y, lam, rz)       α = rz / p·(y + λp); x += αp; r −= α(y + λp)
//   pcg_p(ctx, rows, k, r, z, p, rz)               rz' = r·z; p = z + (rz'/rz) p; rz = rz'
//   scale_precond(ctx, h, rows, k, cnt, a, d, lam) h_rc /= a·cnt_r·d_c + λ
//   sq_diff(ctx, t, s, n) -> Σ (t − s)²
//   sq_norm(ctx, x, n) -> Σ x²
//   items_on_r(ctx, user_bytes) -> whether the items' products run on R (apps/common)
//   test_err(ctx, r, col, s, means, mu, lo, hi, n) -> {Σ e², Σ |e|}, e = r − pred,
//       pred = μ + means[col] + s, clamped to [lo, hi] when lo < hi
// Reductions are deterministic (fixed order, independent of the thread count).
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "apps/common/padded.hpp"
#include "apps/common/precision.hpp"
#include "apps/common/training_options.hpp"
#include "apps/sfa/sfa_backend.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::sfa {

template <class Ops>
class SfaEngine final : public SfaBackend {
 public:
  template <class T>
  using Buf = typename Ops::template Buffer<T>;

  SfaEngine(Context ctx, const SfaHyper& h, const HostCsr& train, const HostCsr& train_t,
            const HostCsr& test, const std::vector<float>& item_means, app::StatsReducer* reducer)
      : ctx_(std::move(ctx)), h_(h), ops_(ctx_), k_(app::padded_width(h.k())), reducer_(reducer) {
    FK_CHECK(h_.factors >= 1, "SFA needs at least one factor");
    FK_CHECK(h_.lambda_u > 0 && h_.lambda_m > 0, "SFA needs lambda_u > 0 and lambda_m > 0");
    FK_CHECK(h_.cg_steps >= 1, "SFA needs at least one CG step");
    FK_CHECK(
        train.rows == train_t.cols && train.cols == train_t.rows && train.nnz() == train_t.nnz(),
        "train_t is not the transpose of train");
    FK_CHECK(train.nnz() > 0, "SFA needs at least one training rating");
    FK_CHECK(!train.vals.empty() && !train_t.vals.empty(), "training ratings without values");
    FK_CHECK(static_cast<std::int64_t>(item_means.size()) == train.cols,
             "item_means has " << item_means.size() << " entries for " << train.cols << " items");
    FK_CHECK(test.nnz() == 0 ||
                 (test.rows == train.rows && test.cols == train.cols && !test.vals.empty()),
             "test ratings must be users x items like the training ratings");
    if (!reducer_) reducer_ = &local_;
    nnz_ = train.nnz();
    items_on_r_ = h_.items_on_r.value_or(
        ops_.items_on_r(ctx_, train.rows * std::int64_t{k_} * std::int64_t(sizeof(float))));
    init_side(users_, train, item_means, false, true);
    init_side(items_, train_t, item_means, true, !items_on_r_);
    if (items_on_r_) {  // the items' fused plan over R's transpose, else the transposed SpMM
      if (fused_allowed()) {
        items_.product =
            make_ratio_spmm_plan(ctx_, Ops::view(users_.csr), k_, h_.product_spmm, Op::kTrans);
        if (items_.product.plan)
          note(items_.product.variant->name() + std::string(" (product, transposed)"),
               items_.product.prepare_seconds);
      }
      if (!items_.product.plan) {
        items_spmm_t_ =
            make_spmm_plan(ctx_, Ops::view(users_.csr), k_, Op::kTrans, h_.spmm, h_.precision);
        note(items_spmm_t_.variant->name() + std::string(" (transposed)"),
             items_spmm_t_.prepare_seconds);
      }
    }
    w_ = ops_.template alloc<float>(nnz_);
    const std::int64_t rows = std::max(users_.rows, items_.rows);
    b_ = ops_.template alloc<float>(rows * k_);
    r_ = ops_.template alloc<float>(rows * k_);
    z_ = ops_.template alloc<float>(rows * k_);
    p_ = ops_.template alloc<float>(rows * k_);
    y_ = ops_.template alloc<float>(rows * k_);
    rz_ = ops_.template alloc<float>(rows);
    const std::int64_t kk = std::int64_t{k_} * k_;
    gram_ = ops_.template alloc<float>(kk);
    minv_ = ops_.template alloc<float>(kk);
    v_ = ops_.template alloc<float>(kk);
    vt_ = ops_.template alloc<float>(kk);
    eig_ = ops_.template alloc<float>(k_);
    // Per-item rating counts (the grad M-step's curvature) and the users that have ratings.
    std::vector<float> counts(static_cast<std::size_t>(items_.rows));
    for (std::int64_t i = 0; i < items_.rows; ++i)
      counts[i] = static_cast<float>(train_t.row_ptr[i + 1] - train_t.row_ptr[i]);
    counts_ = ops_.template alloc<float>(items_.rows);
    ops_.upload(counts_, counts.data(), items_.rows);
    for (std::int64_t u = 0; u < train.rows; ++u)
      active_users_ += train.row_ptr[u + 1] > train.row_ptr[u] ? 1 : 0;
    // c: the average fraction of the items a user rates (nnz / (users · items), over the users
    // and items that have ratings). For a user whose n_u rated items were a random subset,
    // E[Λᵀ T_u Λ] = (n_u / items) ΛᵀΛ, so c ΛᵀΛ is the average user's Λᵀ T_u Λ and
    // (c ΛᵀΛ + λ_u I)⁻¹ the inverse of the average system matrix: exact for an average user, and
    // the spread of n_u around the mean is what CG then has to take care of. (A fixed constant,
    // as in BIDMach's SFA, is right for one data set only: on ml-100k c = 0.05, on Netflix
    // 0.012, on ml-20m 0.005.) The em M-step uses the same argument for items with the users'
    // factors: the average fraction of users rating an item is the same density.
    std::int64_t active_items = 0;
    for (std::int64_t i = 0; i < items_.rows; ++i) active_items += counts[i] > 0 ? 1 : 0;
    density_ = static_cast<double>(nnz_) /
               (static_cast<double>(active_users_) * static_cast<double>(active_items));
    means_ = ops_.template alloc<float>(items_.rows);
    ops_.upload(means_, item_means.data(), items_.rows);
    test_nnz_ = test.nnz();
    if (test_nnz_ > 0) {
      test_csr_ = ops_.make_csr(test);
      test_s_ = ops_.template alloc<float>(test_nnz_);
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
    if (h_.user_offset) ops_.set_column(ctx_, items_.x.data(), items_.rows, k_, h_.factors, 1.0f);
  }

  HostDense<float> user_factors() const override { return download(users_); }
  HostDense<float> item_factors() const override { return download(items_); }

  void user_step() override {
    // The shared preconditioner (c ΛᵀΛ + λ_u I)⁻¹ of this pass: K x K through the host.
    set_preconditioner(items_, density_, h_.lambda_u, k_);
    solve(users_, items_, static_cast<float>(h_.lambda_u));
  }

  void model_step() override {
    if (h_.mstep == MStep::kEm) {
      // Only the factor columns are unknowns: with the preconditioner restricted to them every
      // CG direction is 0 in the offset column, which therefore stays at 1.
      set_preconditioner(users_, density_, h_.lambda_m, h_.factors);
      solve(items_, users_, static_cast<float>(h_.lambda_m));
      return;
    }
    const std::int64_t n = items_.rows * k_;
    const DenseView<const float> xu{users_.x.data(), users_.rows, k_};
    const DenseView<const float> lam{items_.x.data(), items_.rows, k_};
    // G = Eᵀ X − λ_m Λ with the residual E = Y − DDS(Λ, X), a sum over users: the statistic a
    // multi-worker run all-reduces. Eᵀ X in one pass where the items have a fused plan (the
    // residual form), else E in the order of the pattern the items' products run on, then Eᵀ X.
    if (items_.product.plan) {
      items_.product.run_residual(ctx_, nullptr, nullptr, lam, xu, {b_.data(), items_.rows, k_});
      count_sddmm(nnz_);
      count_spmm(nnz_);
    } else {
      items_sddmm(lam, xu, w_.data());
      ops_.axpby(ctx_, nnz_, 1.0f, items_ratings(), -1.0f, w_.data());
      items_spmm(w_.data(), xu, b_.data());
    }
    ops_.axpby(ctx_, n, -static_cast<float>(h_.lambda_m), items_.x.data(), 1.0f, b_.data());
    // The offset column of Λ is constant: no gradient (and, below, no curvature) there.
    if (h_.user_offset) ops_.set_column(ctx_, b_.data(), items_.rows, k_, h_.factors, 0.0f);
    reducer_->sum(ctx_, b_.data(), n);
    // Curvature: XᵀX (also a sum over users), eigendecomposed on the host.
    ops_.gram(ctx_, users_.x.data(), users_.rows, k_, gram_.data());
    reducer_->sum(ctx_, gram_.data(), std::int64_t{k_} * k_);
    std::vector<float> g(static_cast<std::size_t>(k_) * k_), v, vt, d;
    ops_.download(gram_, g.data(), static_cast<std::int64_t>(g.size()));
    symmetric_eigen(g, k_, h_.factors, v, vt, d);
    ops_.upload(v_, v.data(), static_cast<std::int64_t>(v.size()));
    ops_.upload(vt_, vt.data(), static_cast<std::int64_t>(vt.size()));
    ops_.upload(eig_, d.data(), k_);
    // Λ += η G V diag(1 / (n_i/U d + λ_m)) Vᵀ.
    ops_.gemm(ctx_, b_.data(), items_.rows, k_, v_.data(), z_.data());
    ops_.scale_precond(ctx_, z_.data(), items_.rows, k_, counts_.data(),
                       static_cast<float>(1.0 / static_cast<double>(active_users_)), eig_.data(),
                       static_cast<float>(h_.lambda_m));
    ops_.gemm(ctx_, z_.data(), items_.rows, k_, vt_.data(), y_.data());
    ops_.axpby(ctx_, n, static_cast<float>(h_.lrate), y_.data(), 1.0f, items_.x.data());
  }

  TrainLoss train_loss() override {
    TrainLoss loss;
    loss.n = nnz_;
    const CsrView s = Ops::view(users_.csr);
    users_.sddmm.run(ctx_, {users_.x.data(), users_.rows, k_}, {items_.x.data(), items_.rows, k_},
                     nullptr, w_.data());
    count_sddmm(nnz_);
    loss.sse = ops_.sq_diff(ctx_, s.vals, w_.data(), nnz_);
    // The offset column of Λ is 1 in every row, not a parameter: its λ_m·(items) is left out.
    const double fixed = h_.user_offset ? static_cast<double>(items_.rows) : 0.0;
    loss.objective = loss.sse +
                     h_.lambda_u * ops_.sq_norm(ctx_, users_.x.data(), users_.rows * k_) +
                     h_.lambda_m * (ops_.sq_norm(ctx_, items_.x.data(), items_.rows * k_) - fixed);
    return loss;
  }

  TestErrors test_errors() override {
    TestErrors e;
    if (test_nnz_ == 0) return e;
    const CsrView s = Ops::view(test_csr_);
    test_sddmm_.run(ctx_, {users_.x.data(), users_.rows, k_}, {items_.x.data(), items_.rows, k_},
                    nullptr, test_s_.data());
    count_sddmm(test_nnz_);
    const auto [sse, sae] = ops_.test_err(
        ctx_, s.vals, s.col_idx, test_s_.data(), means_.data(), static_cast<float>(h_.global_mean),
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
  // One orientation: users on R (rows solved by the E-step), items on Rᵀ (the model; their
  // products run on R instead where items_on_r_).
  struct Side {
    std::int64_t rows = 0, nnz = 0;
    typename Ops::Csr csr;  // pattern and centred ratings y
    Buf<float> x;           // rows x K: X or Λ
    bool is_items = false;
    // Plans hold views of csr: declared after it so they are destroyed first. The items' are
    // not prepared where their products run on R.
    PreparedSddmm sddmm;
    PreparedSpmm spmm;
    PreparedRatioSpmm product;  // the solves' (and the gradient's) SDDMM → SpMM fused (no
                                // plan: the pair; the items' on R: a plan over R's transpose)
  };

  void init_side(Side& s, const HostCsr& m, const std::vector<float>& means, bool is_items,
                 bool plans) {
    s.rows = m.rows;
    s.nnz = m.nnz();
    s.is_items = is_items;
    std::vector<float> y(m.vals.size());
    const float mu = static_cast<float>(h_.global_mean);
    for (std::int64_t r = 0; r < m.rows; ++r)
      for (std::int64_t j = m.row_ptr[r]; j < m.row_ptr[r + 1]; ++j)
        y[j] = m.vals[j] - mu - means[is_items ? r : m.col_idx[j]];
    // m's pattern with y: on the host read in place (a copy of m took 4 bytes a rating more on
    // each side), on the GPU copied with y to the device.
    s.csr = ops_.make_csr(m, std::move(y));
    s.x = ops_.template alloc<float>(s.rows * k_);
    ops_.fill(ctx_, s.x.data(), s.rows * k_, 0.0f);
    if (!plans) return;
    // The users' SDDMM plan also serves the loss, the test errors and the items' pair on R. A
    // side's fused plan (its solves and, for the items, the gradient) leaves its SpMM plan (and
    // the items' SDDMM plan) unused, so those are made only without one. Whether to fuse follows
    // the users' SDDMM plan (app::fused_allowed), made first.
    const CsrView v = Ops::view(s.csr);
    if (!is_items) {
      s.sddmm = make_sddmm_plan(ctx_, v, k_, h_.sddmm, h_.precision);
      note(s.sddmm.variant->name(), s.sddmm.prepare_seconds);
    }
    if (fused_allowed()) {
      s.product = make_ratio_spmm_plan(ctx_, v, k_, h_.product_spmm);
      if (s.product.plan)
        note(s.product.variant->name() + std::string(" (product)"), s.product.prepare_seconds);
    }
    if (s.product.plan) return;
    if (is_items) {
      s.sddmm = make_sddmm_plan(ctx_, v, k_, h_.sddmm, h_.precision);
      note(s.sddmm.variant->name(), s.sddmm.prepare_seconds);
    }
    s.spmm = make_spmm_plan(ctx_, v, k_, Op::kNoTrans, h_.spmm, h_.precision);
    note(s.spmm.variant->name(), s.spmm.prepare_seconds);
  }
  bool fused_allowed() const {
    return app::fused_allowed(h_.product_spmm, h_.sddmm, h_.spmm,
                              users_.sddmm.variant->half_precision());
  }

  HostDense<float> download(const Side& s) const {
    HostDense<float> out(s.rows, k_);
    ops_.download(s.x, out.data(), out.size());
    return app::with_width(out, h_.k());
  }

  // minv_ = (c·OᵀO + λ I)⁻¹ with O the other side's factors (the rows the solve multiplies by),
  // over the leading m columns (zero beyond: those coordinates are held).
  void set_preconditioner(Side& other, double c, double lambda, int m) {
    ops_.gram(ctx_, other.x.data(), other.rows, k_, gram_.data());
    if (other.is_items == false) reducer_->sum(ctx_, gram_.data(), std::int64_t{k_} * k_);
    std::vector<float> g(static_cast<std::size_t>(k_) * k_), minv;
    ops_.download(gram_, g.data(), static_cast<std::int64_t>(g.size()));
    preconditioner_inverse(g, k_, m, c, lambda, minv);
    ops_.upload(minv_, minv.data(), static_cast<std::int64_t>(minv.size()));
  }

  // The items' products on R where items_on_r_ (the users' SDDMM plan with its operands swapped,
  // Rᵀ·B through a transposed plan), else on Rᵀ: out = λ_i · x_u for every rating in that
  // pattern's order (items_ratings() gives the centred ratings in it), and
  // out_i = Σ over item i's ratings of vals · x_u.
  const float* items_ratings() const {
    return Ops::view(items_on_r_ ? users_.csr : items_.csr).vals;
  }
  void items_sddmm(DenseView<const float> lam, DenseView<const float> xu, float* out) {
    if (items_on_r_)
      users_.sddmm.run(ctx_, xu, lam, nullptr, out);
    else
      items_.sddmm.run(ctx_, lam, xu, nullptr, out);
    count_sddmm(nnz_);
  }
  void items_spmm(const float* vals, DenseView<const float> xu, float* out) {
    (items_on_r_ ? items_spmm_t_ : items_.spmm).run(ctx_, vals, xu, {out, items_.rows, k_});
    count_spmm(nnz_);
  }

  // y = (the sparse part of A) · in for every row of `s`: SDDMM then SpMM, or the two fused
  // where the side has a product plan (the items' on R: over R's transpose).
  void apply(Side& s, DenseView<const float> ov, const float* in, float* out) {
    const DenseView<const float> in_view{in, s.rows, k_};
    if (s.product.plan) {
      s.product.run_product(ctx_, nullptr, in_view, ov, DenseView<float>{out, s.rows, k_});
      count_sddmm(s.nnz);
      count_spmm(s.nnz);
      if (s.is_items) reducer_->sum(ctx_, out, s.rows * k_);
    } else if (s.is_items) {
      items_sddmm(in_view, ov, w_.data());
      items_spmm(w_.data(), ov, out);
      // Item rows sum over users: a multi-worker run all-reduces every product.
      reducer_->sum(ctx_, out, s.rows * k_);
    } else {
      s.sddmm.run(ctx_, in_view, ov, nullptr, w_.data());
      s.spmm.run(ctx_, w_.data(), ov, DenseView<float>{out, s.rows, k_});
      count_sddmm(s.nnz);
      count_spmm(s.nnz);
    }
  }

  // Preconditioned CG on (λ I + Oᵀ T_r O) x_r = Oᵀ T_r y_r for every row r of `s`, warm-started
  // from s.x, with the preconditioner in minv_.
  void solve(Side& s, Side& o, float lambda) {
    const DenseView<const float> ov{o.x.data(), o.rows, k_};
    if (s.product.plan) {
      // The right-hand side less the sparse part of A·x in one pass (the residual form over the
      // side's ratings: Σ (y − x·o) o); pcg_residual adds the λx term (no y).
      s.product.run_residual(ctx_, nullptr, nullptr, {s.x.data(), s.rows, k_}, ov,
                             {b_.data(), s.rows, k_});
      count_sddmm(nnz_);
      count_spmm(nnz_);
      if (s.is_items) reducer_->sum(ctx_, b_.data(), s.rows * k_);
    } else {
      if (s.is_items) {
        items_spmm(items_ratings(), ov, b_.data());
        reducer_->sum(ctx_, b_.data(), s.rows * k_);
      } else {
        s.spmm.run(ctx_, Ops::view(s.csr).vals, ov, DenseView<float>{b_.data(), s.rows, k_});
        count_spmm(s.nnz);
      }
      apply(s, ov, s.x.data(), y_.data());
    }
    ops_.pcg_residual(ctx_, s.rows, k_, b_.data(), s.product.plan ? nullptr : y_.data(),
                      s.x.data(), lambda, r_.data());
    ops_.gemm(ctx_, r_.data(), s.rows, k_, minv_.data(), z_.data());
    ops_.pcg_start(ctx_, s.rows, k_, r_.data(), z_.data(), p_.data(), rz_.data());
    for (int step = 0; step < h_.cg_steps; ++step) {
      apply(s, ov, p_.data(), y_.data());
      ops_.pcg_x(ctx_, s.rows, k_, s.x.data(), r_.data(), p_.data(), y_.data(), lambda, rz_.data());
      if (step + 1 == h_.cg_steps) break;  // the next direction would not be used
      ops_.gemm(ctx_, r_.data(), s.rows, k_, minv_.data(), z_.data());
      ops_.pcg_p(ctx_, s.rows, k_, r_.data(), z_.data(), p_.data(), rz_.data());
    }
  }

  void note(const std::string& name, double seconds) {
    names_.insert(name);
    prepare_seconds_ += seconds;
  }
  void count_sddmm(std::int64_t nnz) {
    ++counters_.sddmm_calls;
    counters_.flops +=
        2.0 * static_cast<double>(nnz) * h_.k();  // useful flops: padding not counted
  }
  void count_spmm(std::int64_t nnz) {
    ++counters_.spmm_calls;
    counters_.flops +=
        2.0 * static_cast<double>(nnz) * h_.k();  // useful flops: padding not counted
  }

  Context ctx_;
  SfaHyper h_;
  Ops ops_;
  int k_;
  app::LocalReducer local_;
  app::StatsReducer* reducer_;
  std::int64_t nnz_ = 0, test_nnz_ = 0, active_users_ = 0;
  double density_ = 0;
  Side users_, items_;
  // Whether the items' products run on R (SfaHyper::items_on_r, else Ops::items_on_r), and there
  // their Rᵀ·B plan (a view of users_.csr, so declared after it).
  bool items_on_r_ = false;
  PreparedSpmm items_spmm_t_;
  Buf<float> w_;                     // nnz: SDDMM output / residual
  Buf<float> b_, r_, z_, p_, y_;     // rows x K: right-hand side or gradient, PCG vectors, A·p
  Buf<float> rz_;                    // rows: r·z
  Buf<float> gram_, minv_, v_, vt_;  // K x K
  Buf<float> eig_;                   // K
  Buf<float> counts_, means_;        // items
  typename Ops::Csr test_csr_;
  Buf<float> test_s_;
  PreparedSddmm test_sddmm_;
  std::set<std::string> names_;
  double prepare_seconds_ = 0;
  KernelCounters counters_;
};

}  // namespace fk::sfa
