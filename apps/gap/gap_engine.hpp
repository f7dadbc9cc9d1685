#pragma once
// The GaP iteration and evaluation written once over a device policy `Ops` that supplies memory
// and the elementwise operations and reductions; the SDDMM/SpMM calls go through the kernels'
// public plans. gap_cpu.cpp instantiates it with CpuOps (host memory, OpenMP), gap_gpu.cu with
// GpuOps (device memory, CUDA kernels). Compiled by the host compiler and by nvcc, so it uses
// neither Eigen nor CUDA. See gap_backend.hpp for the model, the layout and the updates.
//
// What Ops provides (every pointer on its side; matrices row-major with K columns):
//   template <class T> using Buffer;  Buffer<T> alloc<T>(int64 n);  upload(buf, host, n);
//   download(buf, host, n) const;  using Csr;  Csr make_csr(const HostCsr&);  static CsrView
//   view(const Csr&);
//   copy(ctx, src, dst, n)                      dst = src
//   ratio(ctx, f, r, n, q)                      q = f / (r + kRateFloor)
//   update_x(ctx, x, t, n, am1, inv_den)        x = (x · t + am1) · inv_den
//   multiply(ctx, a, b, n)                      b = a · b
//   col_sums(ctx, m, rows, k, out)              out[c] = Σ_r m[r·k + c] (out: k doubles)
//   normalize_cols(ctx, t, sums, rows, k, lam)  lam = sums_c > 0 ? t / sums_c : lam
//   sum_f_log(ctx, f, r, n) -> Σ f log max(r, kRateFloor)
//   prior_sum(ctx, x, n, am1, inv_b) -> Σ (am1 > 0 ? am1 log x : 0) − x · inv_b
// Reductions are deterministic (fixed order, independent of the thread count).
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "apps/common/precision.hpp"
#include "apps/common/training_options.hpp"
#include "apps/gap/gap_backend.hpp"
#include "core/error.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::gap {

template <class Ops>
class GapEngine final : public GapBackend {
 public:
  template <class T>
  using Buf = typename Ops::template Buffer<T>;

  GapEngine(Context ctx, const GapHyper& h, const GapMatrices& m)
      : ctx_(std::move(ctx)), h_(h), ops_(ctx_), k_(h.factors) {
    FK_CHECK(h_.factors >= 1, "GaP needs at least one factor");
    FK_CHECK(h_.a >= 1,
             "GaP needs the Gamma shape a >= 1 (the MAP objective is unbounded below 1)");
    FK_CHECK(h_.b > 0, "GaP needs the Gamma scale b > 0");
    FK_CHECK(m.train && m.train->nnz() > 0 && !m.train->vals.empty(),
             "GaP needs training counts with at least one nonzero");
    const HostCsr& f = *m.train;
    docs_ = f.rows;
    words_ = f.cols;
    train_.init(*this, f, true, true, true);
    x_ = ops_.template alloc<float>(docs_ * k_);
    lambda_ = ops_.template alloc<float>(words_ * k_);
    t1_ = ops_.template alloc<float>(docs_ * k_);
    t2_ = ops_.template alloc<float>(words_ * k_);
    sums_ = ops_.template alloc<double>(k_);
    if (m.heldout && m.heldout->nnz() > 0) {
      FK_CHECK(m.heldout->rows == docs_ && m.heldout->cols == words_,
               "held-out counts must be " << docs_ << " x " << words_);
      heldout_.init(*this, *m.heldout, false, false, false);
    }
    if (m.test_observed && m.test_scored && m.test_scored->nnz() > 0) {
      const HostCsr& o = *m.test_observed;
      FK_CHECK(o.cols == words_ && m.test_scored->cols == words_ && o.rows == m.test_scored->rows,
               "test halves must both be documents x " << words_);
      test_docs_ = o.rows;
      test_obs_.init(*this, o, true, false, false);
      test_scored_.init(*this, *m.test_scored, false, false, false);
      test_x_ = ops_.template alloc<float>(test_docs_ * k_);
      test_t1_ = ops_.template alloc<float>(test_docs_ * k_);
      // Every test document starts from its observed length spread evenly over the factors.
      std::vector<float> init(static_cast<std::size_t>(test_docs_ * k_));
      for (std::int64_t d = 0; d < test_docs_; ++d) {
        double len = 0;
        for (std::int64_t j = o.row_ptr[d]; j < o.row_ptr[d + 1]; ++j) len += o.vals[j];
        std::fill(init.begin() + d * k_, init.begin() + (d + 1) * k_,
                  static_cast<float>(std::max(len, 1.0) / k_));
      }
      test_x_init_ = ops_.template alloc<float>(test_docs_ * k_);
      ops_.upload(test_x_init_, init.data(), test_docs_ * k_);
    }
  }

  const Context& context() const override { return ctx_; }

  void set_model(const HostDense<float>& lambda, const HostDense<float>& x) override {
    FK_CHECK(lambda.rows() == words_ && lambda.cols() == k_,
             "Λ must be " << words_ << " x " << k_ << ", got " << lambda.rows() << " x "
                          << lambda.cols());
    FK_CHECK(x.rows() == docs_ && x.cols() == k_,
             "X must be " << docs_ << " x " << k_ << ", got " << x.rows() << " x " << x.cols());
    ops_.upload(lambda_, lambda.data(), lambda.size());
    ops_.upload(x_, x.data(), x.size());
  }

  HostDense<float> lambda() const override {
    HostDense<float> out(words_, k_);
    ops_.download(lambda_, out.data(), out.size());
    return out;
  }
  HostDense<float> x() const override {
    HostDense<float> out(docs_, k_);
    ops_.download(x_, out.data(), out.size());
    return out;
  }

  void iterate(app::StatsReducer& reducer) override {
    const DenseView<const float> xv{x_.data(), docs_, k_}, lv{lambda_.data(), words_, k_};
    const DenseView<float> t1v{t1_.data(), docs_, k_}, t2v{t2_.data(), words_, k_};
    const float am1 = static_cast<float>(h_.a - 1.0);
    const float inv_den = static_cast<float>(1.0 / (1.0 + 1.0 / h_.b));
    if (h_.update == GapUpdate::kJoint) {
      // T1 = Q Λ (the paper's Λᵀ Q), T2 = Qᵀ X (the paper's Q Xᵀ), Q = F ./ R at F's nonzeros,
      // both from the old model: a fused pass each where planned, else from Q formed once.
      if (!train_.fused.plan || !train_.fused_t.plan) form_ratio(train_, xv, lv);
      if (train_.fused.plan) {
        fit_step(train_, xv, lv, t1v);
      } else {
        train_.spmm.run(ctx_, train_.q.data(), lv, t1v);
        count(train_.nnz, false);
      }
      t2_step(xv, lv, t2v);
      reducer.sum(ctx_, t2_.data(), words_ * k_);  // a sum over documents
      // X ← (X ∘ T1 + (a − 1)) / (colsum Λ + 1/b), colsum Λ = 1.
      ops_.update_x(ctx_, x_.data(), t1_.data(), docs_ * k_, am1, inv_den);
    } else {
      // X first (T1 from the old model), then T2 = Qᵀ X from the new X: the rates change in
      // between, so each product forms its own ratios (one fused pass each where planned).
      fit_step(train_, xv, lv, t1v);
      ops_.update_x(ctx_, x_.data(), t1_.data(), docs_ * k_, am1, inv_den);
      if (!train_.fused_t.plan) form_ratio(train_, xv, lv);
      t2_step(xv, lv, t2v);
      reducer.sum(ctx_, t2_.data(), words_ * k_);  // a sum over documents, as in the joint order
    }
    // Λ ← normalize_columns(Λ ∘ T2).
    ops_.multiply(ctx_, lambda_.data(), t2_.data(), words_ * k_);
    ops_.col_sums(ctx_, t2_.data(), words_, k_, sums_.data());
    ops_.normalize_cols(ctx_, t2_.data(), sums_.data(), words_, k_, lambda_.data());
  }

  ModelSums evaluate() override {
    ModelSums s;
    const DenseView<const float> xv{x_.data(), docs_, k_}, lv{lambda_.data(), words_, k_};
    rates(train_, xv, lv);
    s.train_log_rate = ops_.sum_f_log(ctx_, train_.f(), train_.r.data(), train_.nnz);
    const std::vector<double> lsum = col_sums(lambda_.data(), words_);
    s.rate_sum = dot(lsum, col_sums(x_.data(), docs_));
    s.prior = ops_.prior_sum(ctx_, x_.data(), docs_ * k_, static_cast<float>(h_.a - 1.0),
                             static_cast<float>(1.0 / h_.b));
    if (heldout_.nnz > 0) {
      rates(heldout_, xv, lv);
      s.heldout_log_rate = ops_.sum_f_log(ctx_, heldout_.f(), heldout_.r.data(), heldout_.nnz);
    }
    if (test_scored_.nnz > 0) {
      // X of the test documents with Λ fixed: the X half of the iteration, from a fixed start.
      const DenseView<const float> tv{test_x_.data(), test_docs_, k_};
      ops_.copy(ctx_, test_x_init_.data(), test_x_.data(), test_docs_ * k_);
      const float inv_den = static_cast<float>(1.0 / (1.0 + 1.0 / h_.b));
      for (int it = 0; it < h_.test_iters && test_obs_.nnz > 0; ++it) {
        fit_step(test_obs_, tv, lv, DenseView<float>{test_t1_.data(), test_docs_, k_});
        ops_.update_x(ctx_, test_x_.data(), test_t1_.data(), test_docs_ * k_,
                      static_cast<float>(h_.a - 1.0), inv_den);
      }
      rates(test_scored_, tv, lv);
      s.test_log_rate =
          ops_.sum_f_log(ctx_, test_scored_.f(), test_scored_.r.data(), test_scored_.nnz);
      s.test_rate_sum = dot(lsum, col_sums(test_x_.data(), test_docs_));
    }
    return s;
  }

  KernelCounters counters() const override { return counters_; }
  double prepare_seconds() const override { return prepare_seconds_; }
  std::string kernel_names() const override {
    std::string out;
    for (const std::string& n : names_) out += (out.empty() ? "" : ", ") + n;
    return out;
  }

 private:
  // One count matrix on the backend's side with its plans and per-nonzero buffers.
  struct Counts {
    std::int64_t nnz = 0;
    typename Ops::Csr csr;
    Buf<float> r, q;  // nnz: rates at the nonzeros, F ./ R (q where a ratio is formed)
    // Plans hold views of csr: declared after it so they are destroyed first. A product with a
    // fused ratio SpMM plan (T1: fused, T2: fused_t) has no SpMM plan. Fused, the joint order's
    // products each form the dot products again, and still read fewer bytes than an SDDMM and two
    // SpMMs (nytimes on an H100: docs/benchmarks/checks/gap-alternating).
    PreparedSddmm sddmm;
    PreparedSpmm spmm, spmm_t;
    PreparedRatioSpmm fused, fused_t;

    const float* f() const { return Ops::view(csr).vals; }
    // `fit`: T1 = Q Λ is formed on it (training, the test documents' observed halves);
    // `transposed`: T2 = Qᵀ X too (training). `training`: the training counts, whose plans take
    // --precision; the held-out and test ones only evaluate the model and stay fp32 unless a
    // variant is named.
    void init(GapEngine& e, const HostCsr& m, bool fit, bool transposed, bool training) {
      nnz = m.nnz();
      FK_CHECK(static_cast<std::int64_t>(m.vals.size()) == nnz, "counts without values");
      csr = e.ops_.make_csr(m);
      r = e.ops_.template alloc<float>(nnz);
      const CsrView v = Ops::view(csr);
      const Precision p = e.h_.precision;
      sddmm = make_sddmm_plan(e.ctx_, v, e.k_, e.h_.sddmm,
                              training ? p : app::evaluation_precision(e.h_.sddmm, p));
      e.note(sddmm.variant->name(), sddmm.prepare_seconds);
      const Precision spmm_p = training ? p : app::evaluation_precision(e.h_.spmm, p);
      // Under auto the joint order fuses on a GPU only: there fewer bytes pay for forming the dot
      // products twice (nytimes, H100: 0.0294 -> 0.0235 s an iteration), while on the CPU, whose
      // caches keep the factor rows, the second pass of dot products costs more (kos, 2 cores,
      // K = 64-128: 1.12-1.15x slower). The alternating order forms them twice either way.
      const bool joint_cpu_auto = e.h_.update == GapUpdate::kJoint && !e.ctx_.is_gpu() &&
                                  e.h_.ratio_spmm == "auto";
      const bool fusable = !joint_cpu_auto && app::fused_allowed(e.h_.ratio_spmm, e.h_.sddmm,
                                                                 e.h_.spmm,
                                                                 sddmm.variant->half_precision());
      if (fit) {
        if (fusable) fused = make_ratio_spmm_plan(e.ctx_, v, e.k_, e.h_.ratio_spmm);
        if (fused.plan) {
          e.note(fused.variant->name(), fused.prepare_seconds);
        } else {
          spmm = make_spmm_plan(e.ctx_, v, e.k_, Op::kNoTrans, e.h_.spmm, spmm_p);
          e.note(spmm.variant->name(), spmm.prepare_seconds);
        }
      }
      if (transposed) {
        if (fusable) fused_t = make_ratio_spmm_plan(e.ctx_, v, e.k_, e.h_.ratio_spmm, Op::kTrans);
        if (fused_t.plan) {
          e.note(fused_t.variant->name() + std::string(" (transposed)"), fused_t.prepare_seconds);
        } else {
          spmm_t = make_spmm_plan(e.ctx_, v, e.k_, Op::kTrans, e.h_.spmm, spmm_p);
          e.note(spmm_t.variant->name() + std::string(" (transposed)"), spmm_t.prepare_seconds);
        }
      }
      if ((fit && !fused.plan) || (transposed && !fused_t.plan))
        q = e.ops_.template alloc<float>(nnz);
    }
  };

  // c.r = R at c's nonzeros = SDDMM(c, X, Λ).
  void rates(Counts& c, DenseView<const float> x, DenseView<const float> lambda) {
    c.sddmm.run(ctx_, x, lambda, nullptr, c.r.data());
    count(c.nnz, true);
  }
  // c.q = F ./ (R + kRateFloor) at c's nonzeros.
  void form_ratio(Counts& c, DenseView<const float> x, DenseView<const float> lambda) {
    rates(c, x, lambda);
    ops_.ratio(ctx_, c.f(), c.r.data(), c.nnz, c.q.data());
  }
  // T2 = (F ./ (X Λᵀ + kRateFloor))ᵀ X over the training counts: one fused pass over Fᵀ, or from
  // train_.q (formed by the caller) through the transposed SpMM plan.
  void t2_step(DenseView<const float> x, DenseView<const float> lambda, DenseView<float> t2) {
    if (train_.fused_t.plan) {
      train_.fused_t.run(ctx_, nullptr, lambda, x, kRateFloor, t2);
      count(train_.nnz, true);
    } else {
      train_.spmm_t.run(ctx_, train_.q.data(), x, t2);
    }
    count(train_.nnz, false);
  }
  // t = (F ./ (X Λᵀ + kRateFloor)) Λ over c: one fused pass, or Q formed in c.q and an SpMM.
  void fit_step(Counts& c, DenseView<const float> x, DenseView<const float> lambda,
                DenseView<float> t) {
    if (c.fused.plan) {
      c.fused.run(ctx_, nullptr, x, lambda, kRateFloor, t);
      count(c.nnz, true);
    } else {
      form_ratio(c, x, lambda);
      c.spmm.run(ctx_, c.q.data(), lambda, t);
    }
    count(c.nnz, false);
  }

  // Column sums of a rows x K matrix on the backend's side, as K host doubles.
  std::vector<double> col_sums(const float* m, std::int64_t rows) {
    std::vector<double> out(static_cast<std::size_t>(k_));
    ops_.col_sums(ctx_, m, rows, k_, sums_.data());
    ops_.download(sums_, out.data(), k_);
    return out;
  }
  static double dot(const std::vector<double>& u, const std::vector<double>& v) {
    double s = 0;
    for (std::size_t i = 0; i < u.size(); ++i) s += u[i] * v[i];
    return s;
  }

  void note(const std::string& name, double seconds) {
    names_.insert(name);
    prepare_seconds_ += seconds;
  }
  void count(std::int64_t nnz, bool sddmm) {
    ++(sddmm ? counters_.sddmm_calls : counters_.spmm_calls);
    counters_.flops += 2.0 * static_cast<double>(nnz) * k_;
  }

  Context ctx_;
  GapHyper h_;
  Ops ops_;
  int k_;
  std::int64_t docs_ = 0, words_ = 0, test_docs_ = 0;
  Buf<float> x_, lambda_;                      // D x K, W x K
  Buf<float> t1_, t2_;                         // D x K, W x K
  Buf<double> sums_;                           // K
  Buf<float> test_x_, test_x_init_, test_t1_;  // test documents x K
  Counts train_, heldout_, test_obs_, test_scored_;
  std::set<std::string> names_;
  double prepare_seconds_ = 0;
  KernelCounters counters_;
};

}  // namespace fk::gap
