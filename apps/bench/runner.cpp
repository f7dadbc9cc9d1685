#include "apps/bench/runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <memory>
#include <ostream>
#include <sstream>
#include <utility>

#include "apps/bench/check.hpp"
#include "apps/bench/report.hpp"
#include "apps/bench/timing.hpp"
#include "core/build_info.hpp"
#include "core/device_buffer.hpp"
#include "core/memory.hpp"
#include "core/random.hpp"
#include "core/timer.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"
#if FK_WITH_CUDA
#include "apps/bench/gpu_timing.hpp"
#endif

namespace fk::bench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// ref.* is sequential: by default it is timed only while 2*nnz*K stays near a second per run.
constexpr double kReferenceDefaultMaxNnzK = 2e8;
// The CPU flush buffer: 2x the last-level cache, at most this much.
constexpr std::int64_t kCpuFlushMaxBytes = std::int64_t(512) << 20;

// ---- data on the context's side ---------------------------------------------------------------

// `n` floats in host memory (CPU context) or device memory (GPU context).
class Floats {
 public:
  Floats(const Context& ctx, std::int64_t n) : gpu_(ctx.is_gpu()) {
    if (gpu_) {
      dev_ = DeviceBuffer<float>(n);
    } else {
      host_.assign(static_cast<std::size_t>(n), 0.0f);
    }
  }
  // A copy of n host floats.
  Floats(const Context& ctx, const float* values, std::int64_t n) : Floats(ctx, n) {
    if (gpu_) {
      dev_.upload(values, n);
    } else if (n > 0) {
      std::copy(values, values + n, host_.begin());
    }
  }
  Floats(const Context& ctx, const std::vector<float>& values)
      : Floats(ctx, values.data(), static_cast<std::int64_t>(values.size())) {}
  float* data() { return gpu_ ? dev_.data() : host_.data(); }
  std::int64_t size() const { return gpu_ ? dev_.size() : static_cast<std::int64_t>(host_.size()); }
  // Every element NaN (0xFF bytes are a NaN), so an element a variant never writes fails the check.
  void poison() {
    if (gpu_) {
      dev_.fill_bytes(0xFF);
    } else {
      std::fill(host_.begin(), host_.end(), std::numeric_limits<float>::quiet_NaN());
    }
  }
  // A copy of the values on the host (downloaded on the GPU; the caller synchronizes the context first).
  std::vector<float> fetch() {
    if (!gpu_) return std::vector<float>(host_.begin(), host_.end());
    std::vector<float> out(static_cast<std::size_t>(dev_.size()));
    dev_.download(out.data(), dev_.size());
    return out;
  }

 private:
  bool gpu_;
  AlignedVector<float> host_;  // 64-byte aligned, as the apps' HostDense operands are
  DeviceBuffer<float> dev_;
};

// A dense row-major operand on the context's side.
class Dense {
 public:
  Dense(const Context& ctx, const HostDense<float>& host)
      : rows_(host.rows()), cols_(host.cols()), values_(ctx, host.data(), host.size()) {}
  DenseView<const float> view() { return {values_.data(), rows_, cols_}; }

 private:
  std::int64_t rows_, cols_;
  Floats values_;
};

// S on the context's side (the host matrix itself on the CPU, a device copy on the GPU). Even a
// matrix without nonzeros hands the kernels a values pointer (nullptr means "S's own values" to
// SpMM plans, and the plans reject it when there are none).
class SideCsr {
 public:
  // `host` must outlive this object on the CPU (the view points into it).
  SideCsr(const Context& ctx, const HostCsr& host) {
    if (ctx.is_gpu()) {
      dev_.rows = host.rows;
      dev_.cols = host.cols;
      dev_.row_ptr = DeviceBuffer<std::int64_t>(host.row_ptr);
      dev_.col_idx = DeviceBuffer<std::int32_t>(host.col_idx);
      dev_.vals = DeviceBuffer<float>(host.vals.empty() ? std::vector<float>{0.0f} : host.vals);
      view_ = dev_.view();
    } else {
      view_ = host.view();
      if (!view_.vals) view_.vals = &kNoValue;
    }
  }
  const CsrView& view() const { return view_; }
  const float* vals() const { return view_.vals; }

 private:
  static constexpr float kNoValue = 0.0f;
  DeviceCsr dev_;
  CsrView view_;
};

// Uniform [-1, 1) entries, the same for any thread count: each block of rows has its own stream.
HostDense<float> random_dense(std::int64_t rows, std::int64_t cols, std::uint64_t seed, std::uint64_t tag) {
  HostDense<float> m(rows, cols);
  const Rng base(seed * 0x9e3779b97f4a7c15ULL + tag);
  const std::int64_t kBlock = 1024;
  const std::int64_t blocks = (rows + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (std::int64_t blk = 0; blk < blocks; ++blk) {
    Rng rng = base.split(static_cast<std::uint64_t>(blk));
    const std::int64_t end = std::min(rows, (blk + 1) * kBlock);
    for (std::int64_t r = blk * kBlock; r < end; ++r)
      for (std::int64_t c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.uniform(-1.0, 1.0));
  }
  return m;
}

// ---- one (op, form, K) case behind one interface ------------------------------------------------

class Case {
 public:
  virtual ~Case() = default;
  // Empty when the registered variant `name` applies to this case's problem, else why not.
  virtual std::string why_not(const std::string& name) const = 0;
  // Prepares "auto" or a registered variant; returns the name of what was prepared.
  virtual std::string prepare(const std::string& name, double& prepare_seconds) = 0;
  virtual void poison() = 0;
  virtual void run() = 0;  // queues one run of the prepared plan on the context's stream
  virtual double check() = 0;  // waits for the context, returns max_rel_err of the output
  virtual void release() = 0;  // drops the plan (and its workspace)
  // A case holds two plans, in slots 0 and 1 (so two variants can be timed run by run in turn);
  // prepare, run and release act on the selected slot.
  void select(int slot) { slot_ = slot; }

 protected:
  int slot_ = 0;
};

class SddmmCase : public Case {
 public:
  SddmmCase(const Context& ctx, const SideCsr& s, Dense& a, Dense& b, bool scaled, const KernelProblem& problem,
            const SddmmCheck& check)
      : ctx_(ctx), s_(s), a_(a), b_(b), scaled_(scaled), k_(problem.k), problem_(problem), check_(check),
        out_(ctx, s.view().nnz) {}
  std::string why_not(const std::string& name) const override { return find_sddmm_variant(name).why_not(problem_); }
  std::string prepare(const std::string& name, double& prepare_seconds) override {
    plans_[slot_] = make_sddmm_plan(ctx_, s_.view(), k_, name, problem_.precision);
    prepare_seconds = plans_[slot_].prepare_seconds;
    return plans_[slot_].variant->name();
  }
  void poison() override { out_.poison(); }
  void run() override { plans_[slot_].run(ctx_, a_.view(), b_.view(), scaled_ ? s_.vals() : nullptr, out_.data()); }
  double check() override {
    ctx_.synchronize();
    return check_.max_rel_err(out_.fetch(), scaled_);
  }
  void release() override { plans_[slot_] = PreparedSddmm{}; }

 private:
  const Context& ctx_;
  const SideCsr& s_;
  Dense& a_;
  Dense& b_;
  bool scaled_;
  int k_;
  KernelProblem problem_;
  const SddmmCheck& check_;
  Floats out_;
  PreparedSddmm plans_[2];
};

class SpmmCase : public Case {
 public:
  SpmmCase(const Context& ctx, const SideCsr& s, Op op, std::int64_t out_rows, Dense& b, int k,
           const KernelProblem& problem, const SpmmCheck& check)
      : ctx_(ctx), s_(s), op_(op), out_rows_(out_rows), b_(b), k_(k), problem_(problem), check_(check),
        out_(ctx, out_rows * k) {}
  std::string why_not(const std::string& name) const override { return find_spmm_variant(name).why_not(problem_); }
  std::string prepare(const std::string& name, double& prepare_seconds) override {
    plans_[slot_] = make_spmm_plan(ctx_, s_.view(), k_, op_, name, problem_.precision);
    prepare_seconds = plans_[slot_].prepare_seconds;
    return plans_[slot_].variant->name();
  }
  void poison() override { out_.poison(); }
  void run() override { plans_[slot_].run(ctx_, s_.vals(), b_.view(), DenseView<float>{out_.data(), out_rows_, k_}); }
  double check() override {
    ctx_.synchronize();
    return check_.max_rel_err(out_.fetch());
  }
  void release() override { plans_[slot_] = PreparedSpmm{}; }

 private:
  const Context& ctx_;
  const SideCsr& s_;
  Op op_;
  std::int64_t out_rows_;
  Dense& b_;
  int k_;
  KernelProblem problem_;
  const SpmmCheck& check_;
  Floats out_;
  PreparedSpmm plans_[2];
};

// The ratio SpMM (kernels/ratio_spmm.hpp) of a registered variant or auto, and its unfused baseline
// kPair: auto's SDDMM into nnz ratios, their division, auto's S·B on them (what an app runs without
// the fused kernel; for op = kTrans the SDDMM on S with the operands' roles swapped and auto's
// Sᵀ·B). `auto` where no fused variant applies is the pair too. The product form (weights S's
// values times the dot products): the pair is the scaled SDDMM and the SpMM; the residual form
// (S's values minus the dot products): the unscaled SDDMM, the subtraction and the SpMM.
constexpr const char* kPair = "pair";
constexpr float kRatioEps = 1e-30f;

class RatioSpmmCase : public Case {
 public:
  // op = kTrans: A and C have S's columns as rows, B S's rows; `problem` describes Sᵀ.
  RatioSpmmCase(const Context& ctx, const SideCsr& s, Op op, RatioForm form, Dense& a, Dense& b,
                const KernelProblem& problem, const SpmmCheck& check)
      : ctx_(ctx), s_(s), op_(op), form_(form), a_(a), b_(b), k_(problem.k), problem_(problem),
        check_(check),
        out_rows_(op == Op::kTrans ? s.view().cols : s.view().rows), out_(ctx, out_rows_ * problem.k),
        ratios_(ctx, s.view().nnz) {}
  std::string why_not(const std::string& name) const override {
    return name == kPair ? std::string() : find_ratio_spmm_variant(name).why_not(problem_);
  }
  std::string prepare(const std::string& name, double& prepare_seconds) override {
    Plans& p = plans_[slot_];
    p = Plans{};
    if (name != kPair) {
      p.fused = make_ratio_spmm_plan(ctx_, s_.view(), k_, name, op_);
      if (p.fused.plan) {
        prepare_seconds = p.fused.prepare_seconds;
        return p.fused.variant->name();
      }
    }
    p.sddmm = make_sddmm_plan(ctx_, s_.view(), k_);
    p.spmm = make_spmm_plan(ctx_, s_.view(), k_, op_);
    prepare_seconds = p.sddmm.prepare_seconds + p.spmm.prepare_seconds;
    return std::string(kPair) + ":" + p.sddmm.variant->name() + "+" + p.spmm.variant->name();
  }
  void poison() override { out_.poison(); }
  void run() override {
    Plans& p = plans_[slot_];
    const DenseView<float> c{out_.data(), out_rows_, k_};
    if (p.fused.plan) {
      if (form_ == RatioForm::kProduct)
        p.fused.run_product(ctx_, s_.vals(), a_.view(), b_.view(), c);
      else if (form_ == RatioForm::kResidual)
        p.fused.run_residual(ctx_, s_.vals(), nullptr, a_.view(), b_.view(), c);
      else
        p.fused.run(ctx_, s_.vals(), a_.view(), b_.view(), kRatioEps, c);
      return;
    }
    // The dot product of nonzero (i, j) is A[i]·B[j], or A[j]·B[i] over Sᵀ: SDDMM(S, B, A).
    const float* scale = form_ == RatioForm::kProduct ? s_.vals() : nullptr;
    if (op_ == Op::kTrans)
      p.sddmm.run(ctx_, b_.view(), a_.view(), scale, ratios_.data());
    else
      p.sddmm.run(ctx_, a_.view(), b_.view(), scale, ratios_.data());
    if (form_ != RatioForm::kProduct) weigh(s_.vals(), ratios_.data(), s_.view().nnz);
    p.spmm.run(ctx_, ratios_.data(), b_.view(), c);
  }
  double check() override {
    ctx_.synchronize();
    return check_.max_rel_err(out_.fetch());
  }
  void release() override { plans_[slot_] = Plans{}; }

 private:
  struct Plans {
    PreparedRatioSpmm fused;
    PreparedSddmm sddmm;
    PreparedSpmm spmm;
  };
  // The pair's elementwise step on the dot products p: the ratio n / (p + eps) or the residual
  // n − p.
  void weigh(const float* n, float* p, std::int64_t count) {
    const bool residual = form_ == RatioForm::kResidual;
#if FK_WITH_CUDA
    if (ctx_.is_gpu()) return pair_weights_on_gpu(ctx_, n, p, count, kRatioEps, residual);
#endif
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < count; ++j) p[j] = residual ? n[j] - p[j] : n[j] / (p[j] + kRatioEps);
  }

  const Context& ctx_;
  const SideCsr& s_;
  Op op_;
  RatioForm form_;
  Dense& a_;
  Dense& b_;
  int k_;
  KernelProblem problem_;
  const SpmmCheck& check_;
  std::int64_t out_rows_;
  Floats out_, ratios_;
  Plans plans_[2];
};

// ---- the loop ---------------------------------------------------------------------------------

// What every row of one case shares.
struct CaseInfo {
  std::string form;
  int k = 0;
  double bytes = 0;  // compulsory
  double flops = 0;
  std::int64_t checked_rows = 0;
};

class Runner {
 public:
  Runner(const BenchOptions& o, const Context& ctx, const BenchMatrix& m, const Selection& sel, std::ostream& out)
      : o_(o), ctx_(ctx), m_(m), sel_(sel), out_(out) {
#if FK_WITH_CUDA
    if (ctx.is_gpu()) {
      ceilings_ = measure_gpu_ceilings(ctx);
      timer_ = make_gpu_timer(ctx, o.flush);
      timer_how_ = "CUDA events on the context's stream";
    }
#endif
    if (!ctx.is_gpu()) {
      ceilings_ = measure_cpu_ceilings(ctx.threads());
      timer_ = make_cpu_timer(o.flush ? std::min(2 * cpu_last_level_cache_bytes(), kCpuFlushMaxBytes) : 0);
      timer_how_ = "steady clock";
    }
    FK_CHECK(timer_ != nullptr, "no timer for " << ctx.describe());
  }

  void print_header() {
    const SparseFeatures f = features(m_.s.view());
    out_ << "fk-bench " << to_string(o_.op) << ": " << m_.name << " - " << m_.source << "\n"
         << "  " << f.rows << " x " << f.cols << ", nnz " << f.nnz << "; rows: mean " << std::setprecision(4) << f.row_mean
         << ", cv " << f.row_cv << ", max " << f.row_max << ", empty " << f.empty_rows << "; non-empty columns "
         << f.nonempty_cols << "\n"
         << "build: " << build_commit() << "\n"
         << "device: " << ctx_.describe() << "\n"
         << "bandwidth: " << std::fixed << std::setprecision(1) << ceilings_.bandwidth_gbs << " GB/s ("
         << ceilings_.bandwidth_how << ")\n"
         << "peak fp32: " << ceilings_.peak_gflops << " GFLOP/s (" << ceilings_.peak_how << ")\n"
         << std::defaultfloat << std::setprecision(6);
    out_ << "baseline: " << (sel_.baseline.empty() ? "none registered (speedup column empty)" : sel_.baseline) << "\n"
         << "timing: median of " << o_.runs << " runs after 1 check run + " << o_.warmup << " warm-up(s), "
         << timer_how_ << "; cache flush: ";
    if (timer_->flush_bytes() > 0) {
      out_ << (timer_->flush_bytes() >> 20) << " MiB written before each timed run"
           << (ctx_.is_gpu() ? " (2x L2)" : " (skipped for a case whose compulsory bytes exceed it)");
    } else {
      out_ << "off";
    }
    if (!ctx_.is_gpu() && o_.precision != Precision::kF32)
      out_ << "\nprecision " << to_string(o_.precision)
           << ": the CPU has no reduced-precision variants; every row runs (and is checked) fp32";
    out_ << "\n"
         << "check: against ref." << (o_.op == BenchOp::kRatioSpmm ? "ratio_spmm" : to_string(o_.op))
         << " on sampled rows; max_rel_err = max |out - ref| / sum |terms|; tolerance " << o_.tolerance << "\n";
  }

  RunSummary run() {
    if (o_.op == BenchOp::kSddmm) {
      run_sddmm();
    } else if (o_.op == BenchOp::kSpmm) {
      run_spmm();
    } else {
      run_ratio_spmm();
    }
    return summary_;
  }

 private:
  void run_sddmm() {
    const HostCsr& s = m_.s;
    const SideCsr side(ctx_, s);
    const SparseFeatures f = features(s.view());
    for (int k : o_.ks) {
      const HostDense<float> a = random_dense(s.rows, k, o_.seed, 1);
      const HostDense<float> b = random_dense(s.cols, k, o_.seed, 2);
      const SddmmCheck check(s.view(), a.view(), b.view(), o_.check_nnz);
      Dense da(ctx_, a), db(ctx_, b);
      for (bool scaled : o_.sddmm_scaled) {
        CaseInfo info;
        info.form = scaled ? "scaled" : "unscaled";
        info.k = k;
        // Only the rows of A and B that some nonzero reads must move (empty rows and columns of
        // S cost nothing: counting them let kernels beat the "floor").
        info.bytes = (scaled ? 12.0 : 8.0) * double(s.nnz()) +
                     4.0 * k * double(s.rows - f.empty_rows + f.nonempty_cols);
        info.flops = 2.0 * double(s.nnz()) * k;
        info.checked_rows = check.rows();
        KernelProblem problem{f, k};
        problem.precision = o_.precision;
        describe_gpu(ctx_, problem);
        SddmmCase c(ctx_, side, da, db, scaled, problem, check);
        run_case(c, info);
      }
    }
  }

  void run_spmm() {
    const HostCsr& s = m_.s;
    const SideCsr side(ctx_, s);
    const SparseFeatures fs = features(s.view());
    for (Op op : o_.spmm_ops) {
      // op(S) explicitly on the host, for the check and for the compulsory bytes.
      HostCsr transposed;
      if (op == Op::kTrans) transposed = transpose(s.view());
      const HostCsr& operand = op == Op::kTrans ? transposed : s;
      const SparseFeatures fo = features(operand.view());
      // What the registry's rules see (kernels/registry.cpp): for Sᵀ, S's features with the shape
      // swapped and the mean recomputed, so that this applicability pre-check agrees with it.
      KernelProblem problem{fs, 0};
      problem.precision = o_.precision;
      describe_gpu(ctx_, problem);
      if (op == Op::kTrans) {
        problem.transposed = true;
        std::swap(problem.sparse.rows, problem.sparse.cols);
        problem.sparse.row_mean = problem.sparse.rows > 0 ? double(problem.sparse.nnz) / double(problem.sparse.rows) : 0;
      }
      for (int k : o_.ks) {
        problem.k = k;
        const HostDense<float> b = random_dense(operand.cols, k, o_.seed, 3);
        const SpmmCheck check(operand.view(), b.view(), o_.check_nnz);
        Dense db(ctx_, b);
        CaseInfo info;
        info.form = op == Op::kTrans ? "t" : "n";
        info.k = k;
        info.bytes = 8.0 * double(s.nnz()) + 4.0 * k * double(fo.nonempty_cols + operand.rows);
        info.flops = 2.0 * double(s.nnz()) * k;
        info.checked_rows = check.rows();
        SpmmCase c(ctx_, side, op, operand.rows, db, k, problem, check);
        run_case(c, info);
      }
    }
  }

  void run_ratio_spmm() {
    const HostCsr& s = m_.s;
    const SideCsr side(ctx_, s);
    auto positive = [](HostDense<float> m) {  // [0.5, 1.5): dot products far from zero, as in the apps
      for (float& x : m.storage()) x = 1.0f + 0.5f * x;
      return m;
    };
    for (const Op op : o_.spmm_ops) {
      // The matrix whose rows the output has: S, or Sᵀ (values carried along) for the check.
      const HostCsr t = op == Op::kTrans ? transpose(s.view()) : HostCsr{};
      const HostCsr& o = op == Op::kTrans ? t : s;
      const SparseFeatures f = features(o.view());
      for (const RatioForm form : o_.ratio_forms)
        for (int k : o_.ks) {
          const HostDense<float> a = positive(random_dense(o.rows, k, o_.seed, 4));
          const HostDense<float> b = positive(random_dense(o.cols, k, o_.seed, 5));
          const SpmmCheck check(o.view(), a.view(), b.view(), kRatioEps, form, o_.check_nnz);
          Dense da(ctx_, a), db(ctx_, b);
          CaseInfo info;
          info.form = ratio_form_label(form, op);
          info.k = k;
          info.bytes = 8.0 * double(o.nnz()) +
                       4.0 * k * double(f.nonempty_cols + (o.rows - f.empty_rows) + o.rows);
          info.flops = 4.0 * double(o.nnz()) * k;
          info.checked_rows = check.rows();
          RatioSpmmCase c(ctx_, side, op, form, da, db, KernelProblem{f, k}, check);
          run_case(c, info);
        }
    }
  }

  void print_skip(const std::string& name, const std::string& why) { print_table_note(out_, name, "skipped: " + why); }

  bool is_named(const std::string& name) const {
    return std::find(sel_.named.begin(), sel_.named.end(), name) != sel_.named.end();
  }

  void run_case(Case& c, const CaseInfo& info) {
    const Floor floor = floor_time(ceilings_, info.bytes, info.flops);
    const bool flush = timer_->flush_bytes() > 0 && (ctx_.is_gpu() || info.bytes <= double(timer_->flush_bytes()));
    out_ << "\n" << to_string(o_.op) << " " << (o_.op == BenchOp::kSpmm ? "op=" : "") << info.form << ", K = " << info.k
         << ": " << std::setprecision(4) << info.flops * 1e-9 << " GFLOP, " << info.bytes * 1e-6
         << " MB compulsory, floor " << floor.ms << " ms (" << floor.bound << "-bound); checked rows "
         << info.checked_rows << (flush || timer_->flush_bytes() == 0 ? "" : "; no flush: the data exceed the cache")
         << std::setprecision(6) << "\n";
    print_table_header(out_);

    std::vector<ResultRow> rows;
    double baseline_ms = kNaN;
    // The baseline and auto are timed together, run by run in turn (measure_pair), so that their
    // ratio, the figure the targets are stated in, compares two medians of one time window.
    const bool paired = !sel_.baseline.empty() && c.why_not(sel_.baseline).empty() &&
                        std::find(sel_.names.begin(), sel_.names.end(), "auto") != sel_.names.end();
    ResultRow paired_auto;
    for (const std::string& name : sel_.names) {
      if (name != "auto") {
        const std::string why = c.why_not(name);
        if (!why.empty()) {
          print_skip(name, why);
          continue;
        }
        if (name.rfind("ref.", 0) == 0 && !is_named(name) && double(m_.s.nnz()) * info.k > kReferenceDefaultMaxNnzK) {
          print_skip(name, "sequential reference left out by default when nnz*K > 2e8 (name it in --variants)");
          continue;
        }
      }
      ResultRow row = base_row(info, floor, flush);
      row.variant = name;
      if (paired && name == sel_.baseline) {
        paired_auto = base_row(info, floor, flush);
        paired_auto.variant = "auto";
        measure_pair(c, info, flush, row, paired_auto);
      } else if (paired && name == "auto") {
        row = paired_auto;
      } else {
        measure_guarded(c, name, info, flush, row);
      }
      if (name == sel_.baseline && row.status == "ok") baseline_ms = row.median_ms;
      row.speedup = baseline_ms / row.median_ms;
      if (row.status == "wrong") ++summary_.wrong;
      print_table_row(out_, row);
      rows.push_back(row);
    }
    print_auto_summary(rows);
    if (!o_.csv.empty()) append_csv(o_.csv, rows);
    summary_.rows += static_cast<int>(rows.size());
  }

  ResultRow base_row(const CaseInfo& info, const Floor& floor, bool flush) const {
    ResultRow row;
    row.op = to_string(o_.op);
    row.form = info.form;
    row.matrix = m_.name;
    row.m = m_.s.rows;
    row.n = m_.s.cols;
    row.nnz = m_.s.nnz();
    row.k = info.k;
    row.device = to_string(ctx_.device());
    row.device_name = ctx_.describe();
    row.threads = ctx_.threads();
    row.floor_ms = floor.ms;
    row.bound = floor.bound;
    row.baseline = sel_.baseline;
    row.speedup = kNaN;
    row.checked_rows = info.checked_rows;
    row.seed = o_.seed;
    // The precision the variants ran at: the CPU's are fp32 whatever --precision accepts.
    row.precision = ctx_.is_gpu() ? to_string(o_.precision) : "fp32";
    row.flush_bytes = flush ? static_cast<std::int64_t>(timer_->flush_bytes()) : 0;
    row.warmup = o_.warmup;
    row.tolerance = o_.tolerance;
    row.bandwidth_gbs = ceilings_.bandwidth_gbs;
    row.build = build_commit();
    return row;
  }

  // measure(), with a failure recorded in the row (status "failed") instead of thrown.
  void measure_guarded(Case& c, const std::string& name, const CaseInfo& info, bool flush, ResultRow& row) {
    try {
      c.select(0);
      measure(c, name, info, flush, row);
    } catch (const std::exception& e) {
      c.release();
      row.status = "failed";
      row.message = e.what();
      ++summary_.failed;
    }
  }

  // Prepares `name` in the case's selected slot, checks it once on a poisoned output and warms it up.
  void set_up(Case& c, const std::string& name, ResultRow& row) {
    double prepare_seconds = 0;
    const std::string prepared = c.prepare(name, prepare_seconds);
    if (name == "auto") row.chosen = prepared;
    row.prep_ms = prepare_seconds * 1e3;
    c.poison();
    c.run();
    row.max_rel_err = c.check();
    for (int w = 0; w < o_.warmup; ++w) c.run();
    ctx_.synchronize();
  }

  // One timed run of the selected slot's plan (after a cache flush when `flush`).
  double time_one(Case& c, bool flush) {
    if (flush) timer_->flush();
    timer_->start();
    c.run();
    return timer_->stop_ms();
  }

  // Prepare once, check once on a poisoned output, warm up, then time each run alone.
  void measure(Case& c, const std::string& name, const CaseInfo& info, bool flush, ResultRow& row) {
    set_up(c, name, row);
    std::vector<double> ms;
    ms.reserve(static_cast<std::size_t>(o_.runs));
    for (int r = 0; r < o_.runs; ++r) ms.push_back(time_one(c, flush));
    c.release();
    finish_row(ms, info, row);
  }

  // The baseline (slot 0) and auto (slot 1) prepared side by side and timed in alternation, the
  // first of each pair swapping every round, so slow drift (clocks, temperature, a neighbour on
  // the machine) and the position in the sequence weigh on both medians alike. If either cannot
  // be prepared or run, both are measured one after the other instead.
  void measure_pair(Case& c, const CaseInfo& info, bool flush, ResultRow& base, ResultRow& automatic) {
    std::vector<double> ms[2];
    try {
      ResultRow* row[2] = {&base, &automatic};
      const std::string name[2] = {sel_.baseline, "auto"};
      for (int slot = 0; slot < 2; ++slot) {
        c.select(slot);
        set_up(c, name[slot], *row[slot]);
      }
      for (int r = 0; r < o_.runs; ++r) {
        for (int i = 0; i < 2; ++i) {
          const int slot = (r + i) % 2;
          c.select(slot);
          ms[slot].push_back(time_one(c, flush));
        }
      }
    } catch (const std::exception&) {
      for (int slot = 0; slot < 2; ++slot) c.select(slot), c.release();
      measure_guarded(c, sel_.baseline, info, flush, base);
      measure_guarded(c, "auto", info, flush, automatic);
      return;
    }
    for (int slot = 0; slot < 2; ++slot) c.select(slot), c.release();
    c.select(0);
    finish_row(ms[0], info, base);
    finish_row(ms[1], info, automatic);
  }

  void finish_row(const std::vector<double>& ms, const CaseInfo& info, ResultRow& row) {
    row.median_ms = median(ms);
    row.min_ms = *std::min_element(ms.begin(), ms.end());
    row.max_ms = *std::max_element(ms.begin(), ms.end());
    row.runs = o_.runs;
    const double seconds = row.median_ms * 1e-3;
    row.gflops = seconds > 0 ? info.flops / seconds * 1e-9 : kNaN;
    row.gbps = seconds > 0 ? info.bytes / seconds * 1e-9 : kNaN;
    row.status = row.max_rel_err <= o_.tolerance ? "ok" : "wrong";
  }

  void print_auto_summary(const std::vector<ResultRow>& rows) {
    const ResultRow* automatic = nullptr;
    const ResultRow* best = nullptr;
    for (const ResultRow& r : rows) {
      if (r.status != "ok") continue;  // a failed or wrong row is no candidate for "fastest"
      if (r.variant == "auto") {
        automatic = &r;
      } else if (r.variant.rfind("ref.", 0) == 0) {
        // The sequential double-precision oracle is no candidate either (report.md's "best" is
        // the fastest variant other than it; on tiny problems it wins on overheads alone).
      } else if (!best || r.median_ms < best->median_ms) {
        best = &r;
      }
    }
    if (!automatic || !best) return;
    out_ << "  auto picked " << automatic->chosen << " (" << std::setprecision(4) << automatic->median_ms
         << " ms); fastest " << best->variant << " (" << best->median_ms << " ms); auto / fastest = "
         << automatic->median_ms / best->median_ms;
    // The same kernel timed twice: whatever the ratio, it is the timing's spread, not the rule.
    if (automatic->chosen == best->variant) out_ << " (the same variant: the timing's spread)";
    out_ << std::setprecision(6) << "\n";
  }

  const BenchOptions& o_;
  const Context& ctx_;
  const BenchMatrix& m_;
  const Selection& sel_;
  std::ostream& out_;
  Ceilings ceilings_;
  std::unique_ptr<RunTimer> timer_;
  std::string timer_how_;
  RunSummary summary_;
};

template <typename V>
Selection select_from(const std::vector<const V*>& all, const BenchOptions& o, DeviceKind device,
                      const std::string& baseline_name, const V& (*find)(const std::string&)) {
  Selection sel;
  for (const V* v : all)
    if (baseline_name == v->name() && device_of(v->backend()) == device) sel.baseline = baseline_name;
  std::vector<std::string> wanted;
  if (o.variants.empty()) {
    for (const V* v : all)
      if (device_of(v->backend()) == device) wanted.push_back(v->name());
    wanted.push_back("auto");
  } else {
    for (const std::string& name : o.variants) {
      if (name != "auto") {
        const V* v = nullptr;
        try {
          v = &find(name);
        } catch (const Error& e) {
          throw UsageError(std::string("--variants: ") + e.what());
        }
        if (device_of(v->backend()) != device)
          throw UsageError("--variants: '" + name + "' runs on the " + to_string(device_of(v->backend())) +
                           " but the benchmark runs on the " + to_string(device) + " (see --device)");
      }
      if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) wanted.push_back(name);
    }
    sel.named = wanted;
  }
  // The baseline first, so each later row's speedup is known when it is printed; auto last.
  if (!sel.baseline.empty()) sel.names.push_back(sel.baseline);
  for (const std::string& n : wanted)
    if (n != sel.baseline && n != "auto") sel.names.push_back(n);
  if (std::find(wanted.begin(), wanted.end(), "auto") != wanted.end()) sel.names.push_back("auto");
  return sel;
}

// Refuses, naming them, dense operands that cannot fit in this machine's memory at the largest K,
// before anything is measured: allocating them would end in a bare std::bad_alloc or, through
// overcommit, the OOM killer, after the cases at smaller K had run. Each case holds its operands
// on the host (on the GPU a copy too), as the run_* functions above allocate them.
void check_dense_operands_fit(const BenchOptions& o, const HostCsr& s) {
  const int k = *std::max_element(o.ks.begin(), o.ks.end());
  using Operands = std::vector<std::pair<const char*, std::int64_t>>;  // name, rows (of K floats)
  std::vector<Operands> cases;
  if (o.op == BenchOp::kSddmm) cases.push_back({{"A", s.rows}, {"B", s.cols}});
  for (Op op : o.spmm_ops) {
    const std::int64_t m = op == Op::kTrans ? s.cols : s.rows,
                       n = op == Op::kTrans ? s.rows : s.cols;
    if (o.op == BenchOp::kSpmm) cases.push_back({{"B", n}, {"C", m}});
    if (o.op == BenchOp::kRatioSpmm) cases.push_back({{"A", m}, {"B", n}, {"C", m}});
  }
  for (const Operands& operands : cases) {
    double bytes = 0;
    std::ostringstream names;
    for (std::size_t i = 0; i < operands.size(); ++i) {
      bytes += 4.0 * double(operands[i].second) * k;
      if (i > 0) names << (i + 1 == operands.size() ? " and " : ", ");
      names << operands[i].first << " (" << operands[i].second << " x " << k << ")";
    }
    if (fits_in_memory(bytes)) continue;  // the apps' rule (core/memory.hpp)
    throw Error("--k: at K = " + std::to_string(k) + " the dense operands " + names.str() +
                " take " + memory_shortfall(bytes) + "; lower --k or use a smaller matrix");
  }
}

}  // namespace

Selection select_variants(const BenchOptions& o, DeviceKind device) {
  const bool gpu = device == DeviceKind::kGpu;
  if (o.op == BenchOp::kSddmm)
    return select_from(sddmm_variants(), o, device, gpu ? "cuda.sddmm.cusparse" : "omp.sddmm.rows", &find_sddmm_variant);
  if (o.op == BenchOp::kRatioSpmm) {
    // The baseline is the unfused pair, which is no registered variant: timed first, always.
    BenchOptions registered = o;
    auto& v = registered.variants;
    v.erase(std::remove(v.begin(), v.end(), std::string(kPair)), v.end());
    Selection sel;
    if (o.variants.empty() || !registered.variants.empty())  // --variants pair: the pair alone
      sel = select_from(ratio_spmm_variants(), registered, device, "", &find_ratio_spmm_variant);
    sel.baseline = kPair;
    sel.names.insert(sel.names.begin(), kPair);
    return sel;
  }
  return select_from(spmm_variants(), o, device, gpu ? "cuda.spmm.cusparse" : "omp.spmm.rows", &find_spmm_variant);
}

RunSummary run_benchmark(const BenchOptions& options, const Context& ctx, const BenchMatrix& matrix,
                         const Selection& selection, std::ostream& out) {
  check_dense_operands_fit(options, matrix.s);
  Runner runner(options, ctx, matrix, selection, out);
  runner.print_header();
  return runner.run();
}

void print_variant_list(std::ostream& out) {
  // The name column fits the longest name of the three lists, plus two spaces.
  std::size_t width = 0;
  for (const auto* v : sddmm_variants()) width = std::max(width, std::strlen(v->name()));
  for (const auto* v : spmm_variants()) width = std::max(width, std::strlen(v->name()));
  for (const auto* v : ratio_spmm_variants()) width = std::max(width, std::strlen(v->name()));
  const int name_width = static_cast<int>(width) + 2;
  auto print = [&](const char* title, const auto& all, const char* auto_note) {
    out << title << "\n";
    for (const auto* v : all)
      out << "  " << std::left << std::setw(name_width) << v->name() << std::setw(11) << to_string(v->backend())
          << v->summary() << "\n";
    out << "  " << std::left << std::setw(name_width) << "auto" << std::setw(11) << "-" << auto_note << "\n"
        << std::right;
  };
  print("SDDMM variants (name, backend, summary):", sddmm_variants(),
        "picked per problem by the rule table in kernels/select.cpp");
  print("SpMM variants (name, backend, summary):", spmm_variants(),
        "picked per problem by the rule table in kernels/select.cpp");
  print("Ratio SpMM variants (name, backend, summary):", ratio_spmm_variants(),
        "the device's fused variant where one applies, else the pair (kernels/select.cpp)");
  out << "  " << std::left << std::setw(name_width) << kPair << std::setw(11) << "-"
      << "the baseline, always timed, unfused: auto's SDDMM, the form's elementwise step "
         "(division, scale or subtraction), auto's SpMM\n"
      << std::right;
  out << "this build: " << (cuda_compiled() ? "with CUDA" : "CPU only") << "; usable CUDA devices: " << cuda_device_count()
      << "\n";
}

}  // namespace fk::bench
