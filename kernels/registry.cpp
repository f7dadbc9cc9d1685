#include "kernels/registry.hpp"

#include <algorithm>
#include <sstream>

#include "core/device_buffer.hpp"
#include "core/log.hpp"
#include "core/memory.hpp"
#include "core/timer.hpp"
#include "core/vector_csr.hpp"
#include "kernels/omp/aspt_tiling.hpp"
#include "kernels/omp/common.hpp"
#include "kernels/transposed_slices.hpp"
#if FK_WITH_CUDA
#include "kernels/cuda/device_ops.hpp"
#endif

namespace fk {

const char* to_string(Backend b) {
  switch (b) {
    case Backend::kReference:
      return "reference";
    case Backend::kOmp:
      return "omp";
    case Backend::kCuda:
      return "cuda";
  }
  return "?";
}

const Registry& registry() {
  static const Registry reg = [] {
    Registry r;
    register_reference_variants(r);
    register_omp_variants(r);
#if FK_WITH_CUDA
    register_cuda_variants(r);
#endif
    return r;
  }();
  return reg;
}

bool variant_repeatable(const std::string& name) {
  const Registry& r = registry();
  auto find = [&](const auto& list) -> const VariantInfo* {
    for (const auto& v : list)
      if (name == v->name()) return v.get();
    return nullptr;
  };
  const VariantInfo* v = find(r.spmm);
  if (!v) v = find(r.sddmm);
  if (!v) v = find(r.ratio_spmm);
  return !v || v->repeatable();
}

namespace {

template <typename V>
std::vector<const V*> pointers(const std::vector<std::unique_ptr<V>>& owned) {
  std::vector<const V*> out;
  for (const auto& v : owned) out.push_back(v.get());
  return out;
}

template <typename V>
const V& find_variant(const std::vector<const V*>& all, const std::string& name, const char* op) {
  for (const V* v : all)
    if (name == v->name()) return *v;
  std::ostringstream os;
  os << "unknown " << op << " variant '" << name << "'; known:";
  for (const V* v : all) os << ' ' << v->name();
  os << " auto";
  if (name.rfind("cuda.", 0) == 0 && !cuda_compiled())
    os << " (this build has no GPU kernels: it was built without CUDA)";
  throw Error(os.str());
}

// Row statistics of S wherever it lives: a device pattern's row offsets are copied to the host
// (8 bytes per row, once per plan); its column span and neighbour share are sampled on the device.
SparseFeatures pattern_features(const Context& ctx, const CsrView& s) {
  if (!ctx.is_gpu()) return features(s);
  std::vector<std::int64_t> row_ptr(static_cast<std::size_t>(s.rows) + 1);
  hooks::copy_device_to_host(row_ptr.data(), s.row_ptr, row_ptr.size() * sizeof(std::int64_t));
  SparseFeatures f = row_features(s.rows, s.cols, s.nnz, row_ptr.data());
#if FK_WITH_CUDA
  f.col_span = sampled_column_span(ctx, s);
  f.neighbour_share = sampled_neighbour_share(ctx, s);
#endif
  return f;
}

// Row statistics of Sᵀ (S's column counts), for rules that choose a kernel for Sᵀ·B: the skew of
// S's columns, not of its rows, decides how well a row split of Sᵀ balances. A GPU pattern's
// columns are counted on the device rather than copied to the host (400 MB for 100M nonzeros).
SparseFeatures transposed_features(const Context& ctx, const CsrView& s) {
  std::vector<std::int64_t> t_row_ptr;
  if (ctx.is_gpu()) {
#if FK_WITH_CUDA
    t_row_ptr = transposed_row_offsets(ctx, s);
#else
    throw Error("a GPU context in a build without CUDA");
#endif
  } else {
    t_row_ptr.assign(static_cast<std::size_t>(s.cols) + 1, 0);
    for (std::int64_t j = 0; j < s.nnz; ++j) ++t_row_ptr[s.col_idx[j] + 1];
    for (std::int64_t c = 0; c < s.cols; ++c) t_row_ptr[c + 1] += t_row_ptr[c];
  }
  return row_features(s.cols, s.rows, s.nnz, t_row_ptr.data());
}

template <typename V>
const V& resolve(const Context& ctx, const std::vector<const V*>& all, const std::string& name,
                 const KernelProblem& problem, const char* op,
                 const V& (*choose)(DeviceKind, const KernelProblem&)) {
  if (name == "auto") {
    const V& v = choose(ctx.device(), problem);
    log_debug() << op << " auto chose " << v.name();
    return v;
  }
  const V& v = find_variant(all, name, op);
  if (device_of(v.backend()) != ctx.device())
    throw Error(std::string(op) + " variant '" + name + "' runs on the " +
                to_string(device_of(v.backend())) + " but the context is " + ctx.describe());
  const std::string why = v.why_not(problem);
  if (!why.empty()) throw Error(std::string(op) + " variant '" + name + "' does not apply: " + why);
  return v;
}

// S's exact column-vector length (1 when it has none), for the low-precision rules. Needs S's
// pattern on the host: a device pattern is copied once per plan (12 bytes per nonzero).
int pattern_vector_length(const Context& ctx, const CsrView& s) {
  if (!ctx.is_gpu()) return vector_length_of(s);
  HostCsr h;
  h.rows = s.rows;
  h.cols = s.cols;
  h.row_ptr.resize(static_cast<std::size_t>(s.rows) + 1);
  h.col_idx.resize(static_cast<std::size_t>(s.nnz));
  hooks::copy_device_to_host(h.row_ptr.data(), s.row_ptr, h.row_ptr.size() * sizeof(std::int64_t));
  if (s.nnz > 0)
    hooks::copy_device_to_host(h.col_idx.data(), s.col_idx,
                               h.col_idx.size() * sizeof(std::int32_t));
  return vector_length_of(h.view());
}

// Only `auto` on a GPU at low precision looks at the vector structure (the tensor-core rule); the
// scan costs a pass over S's pattern on the host, which a named variant or an fp32 plan skips.
bool needs_vector_length(const Context& ctx, const std::string& variant, Precision precision) {
  return ctx.is_gpu() && variant == "auto" && precision != Precision::kF32;
}

// A host pattern is validated in full (offsets and column indices: the features and every CPU
// kernel index arrays by them); a device pattern was when it was copied from the host
// (DeviceCsr), and reading it back here would cost a copy.
void check_pattern(const Context& ctx, const CsrView& s, int k) {
  FK_CHECK(k >= 1, "dense width K must be at least 1, got " << k);
  FK_CHECK(s.rows >= 0 && s.cols >= 0 && s.nnz >= 0, "invalid sparse shape");
  FK_CHECK(s.cols <= INT32_MAX, "sparse matrix has more columns than 32-bit indices can hold");
  FK_CHECK(s.row_ptr != nullptr, "sparse matrix without row offsets");
  if (!ctx.is_gpu()) validate(s);
}

// Operands of C = Sᵀ·B for S rows x cols, in the user's terms (B rows x K, C cols x K).
void check_transposed_spmm_shapes(std::int64_t rows, std::int64_t cols, int k,
                                  DenseView<const float> b, DenseView<float> c) {
  FK_CHECK(b.rows == rows && b.cols == k && c.rows == cols && c.cols == k,
           "Sᵀ·B with S " << rows << " x " << cols << ": B must be " << rows << " x " << k
                          << " and C " << cols << " x " << k << ", got B " << b.rows << " x "
                          << b.cols << " and C " << c.rows << " x " << c.cols);
}

// Sᵀ (N x M) beside S, with the gather that puts values given in S's order into Sᵀ's: on a GPU by
// a ValueGather (which keeps the reads of an S larger than L2 local), on the CPU through perm.
// The copy lives where S does: a GPU context transposes on the device (no round trip through the
// host).
class TransposedPattern {
 public:
  TransposedPattern(const Context& ctx, const CsrView& s)
      : on_gpu_(ctx.is_gpu()), nnz_(s.nnz), own_vals_(s.vals) {
    // The pattern only: every run gathers the values it is given into Sᵀ's order (gather), so
    // values transposed here would be 4 bytes an entry that nothing reads (on the GPU 380 MiB of
    // fk-als's netflix run, whose transposed plan held 1554).
    const CsrView pattern{s.rows, s.cols, s.nnz, s.row_ptr, s.col_idx, nullptr};
    if (ctx.is_gpu()) {
#if FK_WITH_CUDA
      const std::int64_t before = device_bytes_in_use();
      DeviceBuffer<std::int64_t> perm;
      dev_t_ = device_transpose(ctx, pattern, &perm);
      const std::int64_t pattern_bytes = device_bytes_in_use() - perm.bytes() - before;
      dev_gather_ = ValueGather(ctx, std::move(perm), dev_t_.row_ptr.data(), dev_t_.rows);  // its rows: the segments
      log_debug() << "transposed pattern of " << s.nnz << " nonzeros holds " << mebibytes(pattern_bytes)
                  << " MiB on the device, the gather of values into its order "
                  << mebibytes(device_bytes_in_use() - before - pattern_bytes) << " MiB ("
                  << (dev_gather_.windowed() ? "windowed" : "plain") << ")";
#else
      throw Error("a GPU context in a build without CUDA");
#endif
    } else {
      // The permutation is 32-bit where it fits: 4 bytes an entry less again.
      if (s.nnz <= INT32_MAX)
        transposed_ = transpose(pattern, &perm32_);
      else
        transposed_ = transpose(pattern, &perm_);
    }
  }
  CsrView view() const { return on_gpu_ ? dev_t_.view() : transposed_.view(); }
  // `vals` (S's order; null: S's own) or an error when there are none.
  const float* source(const float* vals, const char* what) const {
    if (!vals) vals = own_vals_;
    FK_CHECK(vals != nullptr || nnz_ == 0,
             what << " run without values: the pattern has none and none were given");
    return vals;
  }
  // The values in Sᵀ's order, in the context's run scratch (valid for this run only; on the GPU
  // queued on ctx's stream; Context::run_scratch): one buffer for all of a context's plans, where
  // each plan kept its own (fk-lda: one per minibatch). `second` uses another slot, for a run that
  // needs two arrays gathered. Never null, even for nnz = 0. Sᵀ·B plans whose kernels read the
  // values through the permutation never gather.
  const float* gather(const Context& ctx, const float* vals, bool second = false) {
    float* const out = ctx.run_scratch(second ? Context::kSecondGatheredValues : Context::kGatheredValues,
                                       std::max<std::int64_t>(nnz_, 1));
    if (ctx.is_gpu()) {
#if FK_WITH_CUDA
      dev_gather_.run(ctx, vals, out);
#endif
      return out;
    }
    const std::int64_t nnz = nnz_;
    if (perm_.empty()) {
      const std::int32_t* perm = perm32_.data();
#pragma omp parallel for schedule(static)
      for (std::int64_t j = 0; j < nnz; ++j) out[j] = vals[perm[j]];
    } else {
#pragma omp parallel for schedule(static)
      for (std::int64_t j = 0; j < nnz; ++j) out[j] = vals[perm_[j]];
    }
    return out;
  }
  // GPU: Sᵀ's entries' positions in S's order, where reading through them pays (ValueGather).
  const std::int32_t* read_through_index() const {
#if FK_WITH_CUDA
    return dev_gather_.read_through_index();
#else
    return nullptr;
#endif
  }

 private:
  bool on_gpu_ = false;
  std::int64_t nnz_ = 0;
  const float* own_vals_ = nullptr;
  // CPU context: Sᵀ on the host and perm.
  HostCsr transposed_;
  std::vector<std::int64_t> perm_;    // nnz above 2^31 - 1
  std::vector<std::int32_t> perm32_;  // otherwise
  // GPU context: Sᵀ and the gather of values (from perm) on the device only.
  DeviceCsr dev_t_;
#if FK_WITH_CUDA
  ValueGather dev_gather_;
#endif
};

// C = Sᵀ·B through a transposed copy of the pattern: the inner plan runs on Sᵀ (N x M), with the
// values gathered into Sᵀ's order before each run, or, on a GPU where S's values are small enough
// and the inner plan can, read through the permutation by the inner plan's kernels.
class CachedTransposePlan : public SpmmPlan {
 public:
  CachedTransposePlan(const Context& ctx, const CsrView& s, int k, const SpmmVariant& inner,
                      Precision precision)
      : t_(ctx, s),
        inner_(inner.prepare_at(ctx, t_.view(), k, precision)),
        rows_(s.rows),
        cols_(s.cols),
        k_(k) {}

  void run(const Context& ctx, const float* vals, DenseView<const float> b,
           DenseView<float> c) override {
    // Checked here, in S's terms: the inner plan's message would name Sᵀ's shape as S's.
    check_transposed_spmm_shapes(rows_, cols_, k_, b, c);
    vals = t_.source(vals, "SpMM");
    // Plans that can read the values through the permutation skip the gather (and its launch).
    if (const std::int32_t* perm = t_.read_through_index())
      if (inner_->run_permuted(ctx, vals, perm, b, c)) return;
    inner_->run(ctx, t_.gather(ctx, vals), b, c);
  }

 private:
  TransposedPattern t_;
  std::unique_ptr<SpmmPlan> inner_;
  std::int64_t rows_, cols_;  // S's
  int k_;
};

// The ratio SpMM over Sᵀ: C[j,:] = Σ_{i: (i,j) in S} v_ij / (A[j,:]·B[i,:] + eps) · B[i,:] for A and
// C N x K, B M x K, by the inner plan on a cached transpose (values gathered into its order); and
// its product and residual forms.
class TransposedRatioSpmmPlan : public RatioSpmmPlan {
 public:
  TransposedRatioSpmmPlan(const Context& ctx, const CsrView& s, int k,
                          const RatioSpmmVariant& inner)
      : t_(ctx, s), inner_(inner.prepare(ctx, t_.view(), k)), rows_(s.rows), cols_(s.cols), k_(k) {}

  // Each form checks the operands in S's terms first: the inner plan's message would name Sᵀ's
  // shape as S's.
  void run(const Context& ctx, const float* vals, DenseView<const float> a,
           DenseView<const float> b, float eps, DenseView<float> c) override {
    check(a, b, c);
    inner_->run(ctx, t_.gather(ctx, t_.source(vals, "ratio SpMM")), a, b, eps, c);
  }
  void run_product(const Context& ctx, const float* scale, DenseView<const float> a,
                   DenseView<const float> b, DenseView<float> c) override {
    check(a, b, c);
    inner_->run_product(ctx, scale ? t_.gather(ctx, scale) : nullptr, a, b, c);
  }
  void run_residual(const Context& ctx, const float* vals, const float* scale,
                    DenseView<const float> a, DenseView<const float> b,
                    DenseView<float> c) override {
    check(a, b, c);
    inner_->run_residual(ctx, t_.gather(ctx, t_.source(vals, "ratio SpMM")),
                         scale ? t_.gather(ctx, scale, true) : nullptr, a, b, c);
  }

 private:
  void check(DenseView<const float> a, DenseView<const float> b, DenseView<float> c) const {
    FK_CHECK(a.rows == cols_ && a.cols == k_ && b.rows == rows_ && b.cols == k_ &&
                 c.rows == cols_ && c.cols == k_,
             "ratio SpMM over Sᵀ with S "
                 << rows_ << " x " << cols_ << ": A and C must be " << cols_ << " x " << k_
                 << " and B " << rows_ << " x " << k_ << ", got A " << a.rows << " x " << a.cols
                 << ", B " << b.rows << " x " << b.cols << " and C " << c.rows << " x " << c.cols);
  }

  TransposedPattern t_;
  std::unique_ptr<RatioSpmmPlan> inner_;
  std::int64_t rows_, cols_;  // S's
  int k_;
};

#if FK_WITH_CUDA
// S cut into slices of `slice_rows` consecutive rows (the last may have fewer), each a pattern of
// its own (row offsets rebased to 0, S's columns and values in place), for the transposed plans
// below; and their run: each slice's product over S_qᵀ with the matching rows B_q of B, the first
// into C, the others into a scratch C added to it.
class RowSlices {
 public:
  struct Slice {
    std::int64_t row0 = 0, rows = 0, pos0 = 0;  // first row of S, rows, first nonzero
    DeviceBuffer<std::int64_t> offsets;         // the slice's row_ptr, from 0
    CsrView view;                               // the slice as a pattern
  };

  RowSlices(const Context& ctx, const CsrView& s, int k, std::int64_t slice_rows)
      : rows_(s.rows), cols_(s.cols), k_(k) {
    std::vector<std::int64_t> row_ptr(static_cast<std::size_t>(s.rows) + 1);
    hooks::copy_device_to_host(row_ptr.data(), s.row_ptr, row_ptr.size() * sizeof(std::int64_t));
    for (std::int64_t r0 = 0; r0 < s.rows; r0 += slice_rows) {
      Slice sl;
      sl.row0 = r0;
      sl.rows = std::min(slice_rows, s.rows - r0);
      sl.pos0 = row_ptr[r0];
      sl.offsets = rebased_row_offsets(ctx, s.row_ptr, r0, sl.rows);
      sl.view = CsrView{sl.rows,
                        s.cols,
                        row_ptr[r0 + sl.rows] - row_ptr[r0],
                        sl.offsets.data(),
                        s.col_idx + sl.pos0,
                        s.vals ? s.vals + sl.pos0 : nullptr};
      slices_.push_back(std::move(sl));
    }
    if (slices_.size() > 1) scratch_ = DeviceBuffer<float>(std::max<std::int64_t>(s.cols * k, 1));
  }
  const std::vector<Slice>& slices() const { return slices_; }

  // run_one(q, B_q, where slice q's C goes) for every slice; b: S's rows x K, c: S's columns x K.
  template <class RunOne>
  void run(const Context& ctx, DenseView<const float> b, DenseView<float> c, const RunOne& run_one) {
    FK_CHECK(b.rows == rows_ && b.cols == k_ && c.rows == cols_ && c.cols == k_,
             "over Sᵀ: B must be " << rows_ << " x " << k_ << " and C " << cols_ << " x " << k_
                                   << ", got B " << b.rows << " x " << b.cols << " and C " << c.rows
                                   << " x " << c.cols);
    for (std::size_t q = 0; q < slices_.size(); ++q) {
      const Slice& sl = slices_[q];
      run_one(q, DenseView<const float>{b.data + sl.row0 * k_, sl.rows, k_},
              DenseView<float>{q == 0 ? c.data : scratch_.data(), cols_, k_});
      if (q > 0) add_into(ctx, cols_ * k_, scratch_.data(), c.data);
    }
  }

 private:
  std::int64_t rows_, cols_;
  int k_;
  std::vector<Slice> slices_;
  DeviceBuffer<float> scratch_;
};

// C = Sᵀ·B as the sum over row slices S_q of S (and the matching row slices B_q of B) of
// S_qᵀ·B_q, each through its own cached transpose. A transposed product gathers one row of B per
// nonzero of Sᵀ; when B outgrows L2 and its rows have no hot set those gathers come from DRAM
// (netflix at K = 256: 100 GB in 30 ms on an H100, its DRAM bandwidth). A slice's rows of B fit
// in L2, so its gathers hit there after the first touch; the price is C added up once per slice
// (add_into through a scratch C), which `slice_rows_for` weighs against the gathers.
class SlicedTransposePlan : public SpmmPlan {
 public:
  SlicedTransposePlan(const Context& ctx, const CsrView& s, int k, const SpmmVariant& inner,
                      Precision precision, std::int64_t slice_rows)
      : slices_(ctx, s, k, slice_rows), own_vals_(s.vals), nnz_(s.nnz) {
    for (const RowSlices::Slice& sl : slices_.slices())
      plans_.push_back(std::make_unique<CachedTransposePlan>(ctx, sl.view, k, inner, precision));
  }

  void run(const Context& ctx, const float* vals, DenseView<const float> b,
           DenseView<float> c) override {
    if (!vals) vals = own_vals_;
    FK_CHECK(vals != nullptr || nnz_ == 0,
             "SpMM run without values: the pattern has none and none were given");
    slices_.run(ctx, b, c, [&](std::size_t q, DenseView<const float> bq, DenseView<float> cq) {
      plans_[q]->run(ctx, vals + slices_.slices()[q].pos0, bq, cq);
    });
  }

 private:
  RowSlices slices_;
  const float* own_vals_;
  std::int64_t nnz_;
  std::vector<std::unique_ptr<SpmmPlan>> plans_;  // one per slice
};

// The ratio SpMM over Sᵀ (every form) through row slices of S, as SlicedTransposePlan does Sᵀ·B:
// where B (S's rows x K, gathered once per nonzero) outgrows L2, a slice's rows of B stay there.
// A (S's columns x K) is read whole by every slice; each slice's plan checks its shape.
class SlicedTransposedRatioPlan : public RatioSpmmPlan {
 public:
  SlicedTransposedRatioPlan(const Context& ctx, const CsrView& s, int k,
                            const RatioSpmmVariant& inner, std::int64_t slice_rows)
      : slices_(ctx, s, k, slice_rows) {
    for (const RowSlices::Slice& sl : slices_.slices())
      plans_.push_back(std::make_unique<TransposedRatioSpmmPlan>(ctx, sl.view, k, inner));
  }

  void run(const Context& ctx, const float* vals, DenseView<const float> a,
           DenseView<const float> b, float eps, DenseView<float> c) override {
    slices_.run(ctx, b, c, [&](std::size_t q, DenseView<const float> bq, DenseView<float> cq) {
      plans_[q]->run(ctx, vals ? vals + slices_.slices()[q].pos0 : nullptr, a, bq, eps, cq);
    });
  }
  void run_product(const Context& ctx, const float* scale, DenseView<const float> a,
                   DenseView<const float> b, DenseView<float> c) override {
    slices_.run(ctx, b, c, [&](std::size_t q, DenseView<const float> bq, DenseView<float> cq) {
      plans_[q]->run_product(ctx, scale ? scale + slices_.slices()[q].pos0 : nullptr, a, bq, cq);
    });
  }
  void run_residual(const Context& ctx, const float* vals, const float* scale,
                    DenseView<const float> a, DenseView<const float> b,
                    DenseView<float> c) override {
    slices_.run(ctx, b, c, [&](std::size_t q, DenseView<const float> bq, DenseView<float> cq) {
      const std::int64_t pos0 = slices_.slices()[q].pos0;
      plans_[q]->run_residual(ctx, vals ? vals + pos0 : nullptr, scale ? scale + pos0 : nullptr, a,
                              bq, cq);
    });
  }

 private:
  RowSlices slices_;
  std::vector<std::unique_ptr<RatioSpmmPlan>> plans_;  // one per slice
};

// Rows of S per slice that a context's transposed_slice_bytes() > 0 asks for (tests: it replaces
// the L2 budget and the rules' other conditions), or -1 when it asks for none.
std::int64_t forced_slice_rows(const Context& ctx, const CsrView& s, int k) {
  const std::int64_t budget = ctx.transposed_slice_bytes();
  if (budget <= 0) return -1;
  const std::int64_t row_bytes = std::int64_t(k) * std::int64_t(sizeof(float));
  return s.rows * row_bytes > budget ? std::max<std::int64_t>(1, budget / row_bytes) : 0;
}

// Rows of S per slice for a GPU ratio SpMM over Sᵀ, or 0 for one cached transpose: the Sᵀ·B
// slicing rule (kernels/transposed_slices.hpp) for every variant (the fused kernel splits its long
// rows itself, so slicing's shorter rows do not unbalance it as they do row_split).
std::int64_t ratio_slice_rows_for(const Context& ctx, const CsrView& s, int k) {
  if (!ctx.is_gpu() || s.rows == 0 || s.cols == 0) return 0;
  if (const std::int64_t forced = forced_slice_rows(ctx, s, k); forced >= 0) return forced;
  return transposed_slice_rows(s.rows, k, double(s.nnz) / double(s.cols), l2_bytes(ctx));
}

// Rows of S per slice for a GPU Sᵀ·B plan of `inner`, or 0 for one cached transpose
// (kernels/transposed_slices.hpp, with the device's own L2). Only for nnz_vsr: on an H200
// (docs/benchmarks/checks/sliced-transpose) slicing took its Sᵀ·B 1.11-1.63x faster on netflix,
// nytimes and ml-20m at K = 64-512, while row_split, whose split depends on the row lengths that
// slicing shortens, ran 0.34-1.35x. A context's transposed_slice_bytes() > 0 replaces the budget
// and drops the other conditions (tests).
std::int64_t slice_rows_for(const Context& ctx, const CsrView& s, int k, const SpmmVariant& inner) {
  if (std::string(inner.name()) != "cuda.spmm.nnz_vsr" && forced_slice_rows(ctx, s, k) < 0)
    return 0;
  return ratio_slice_rows_for(ctx, s, k);  // the same rule, or the forced slices
}

// A rows x k operand's copy at kk >= k columns, so that a plan prepared at width kk gets 16-byte
// aligned rows (auto_spmm_width, auto_sddmm_width). The pad columns are zeroed once; `load` never
// writes them, so they add 0 x 0 to every dot product.
class PaddedOperand {
 public:
  PaddedOperand(std::int64_t rows, int k, int kk)
      : rows_(rows), k_(k), kk_(kk), buf_(std::max<std::int64_t>(rows * kk, 1)) {
    buf_.fill_bytes(0);
  }
  DenseView<const float> load(const Context& ctx, const float* x) {  // x: rows x k
    copy_block(ctx, rows_, k_, x, k_, buf_.data(), kk_);
    return {buf_.data(), rows_, kk_};
  }
  DenseView<float> view() { return {buf_.data(), rows_, kk_}; }
  void store(const Context& ctx, float* x) const {  // the first k columns into x: rows x k
    copy_block(ctx, rows_, k_, buf_.data(), kk_, x, k_);
  }

 private:
  std::int64_t rows_;
  int k_, kk_;
  DeviceBuffer<float> buf_;
};

// An SpMM plan prepared at width kk > k, run on padded copies of B and C (C's pad columns are
// computed and dropped).
class PaddedWidthSpmmPlan : public SpmmPlan {
 public:
  PaddedWidthSpmmPlan(std::unique_ptr<SpmmPlan> inner, int k, int kk, std::int64_t b_rows,
                      std::int64_t c_rows)
      : inner_(std::move(inner)),
        k_(k),
        b_rows_(b_rows),
        c_rows_(c_rows),
        b_(b_rows, k, kk),
        c_(c_rows, k, kk) {}

  void run(const Context& ctx, const float* vals, DenseView<const float> b,
           DenseView<float> c) override {
    FK_CHECK(b.rows == b_rows_ && b.cols == k_ && c.rows == c_rows_ && c.cols == k_,
             "SpMM: B must be " << b_rows_ << " x " << k_ << " and C " << c_rows_ << " x " << k_
                                << ", got B " << b.rows << " x " << b.cols << " and C " << c.rows
                                << " x " << c.cols);
    inner_->run(ctx, vals, b_.load(ctx, b.data), c_.view());
    c_.store(ctx, c.data);
  }

 private:
  std::unique_ptr<SpmmPlan> inner_;
  int k_;
  std::int64_t b_rows_, c_rows_;
  PaddedOperand b_, c_;
};

// The SDDMM counterpart: A and B padded; the outputs, one per nonzero, need no copy.
class PaddedWidthSddmmPlan : public SddmmPlan {
 public:
  PaddedWidthSddmmPlan(std::unique_ptr<SddmmPlan> inner, int k, int kk, std::int64_t a_rows,
                       std::int64_t b_rows)
      : inner_(std::move(inner)),
        k_(k),
        a_rows_(a_rows),
        b_rows_(b_rows),
        a_(a_rows, k, kk),
        b_(b_rows, k, kk) {}

  void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b,
           const float* s_vals, float* out) override {
    FK_CHECK(a.rows == a_rows_ && a.cols == k_ && b.rows == b_rows_ && b.cols == k_,
             "SDDMM: A must be " << a_rows_ << " x " << k_ << " and B " << b_rows_ << " x " << k_
                                 << ", got A " << a.rows << " x " << a.cols << " and B " << b.rows
                                 << " x " << b.cols);
    inner_->run(ctx, a_.load(ctx, a.data), b_.load(ctx, b.data), s_vals, out);
  }

 private:
  std::unique_ptr<SddmmPlan> inner_;
  int k_;
  std::int64_t a_rows_, b_rows_;
  PaddedOperand a_, b_;
};
#endif

}  // namespace

std::string cpu_rounding_setup() {
  const aspt::CoreCaches caches = aspt::host_core_caches();
  return std::to_string(omp_common::split_threads()) + " processors, L1d " +
         std::to_string(caches.l1d_bytes / 1024) + " KiB, L2 " +
         std::to_string(caches.l2_bytes / 1024) + " KiB";
}

void describe_gpu(const Context& ctx, KernelProblem& problem) {
#if FK_WITH_CUDA
  if (ctx.is_gpu()) {
    problem.gpu_major = compute_major(ctx);
    problem.gpu_l2_bytes = l2_bytes(ctx);
    return;
  }
#endif
  (void)ctx;
  problem.gpu_major = 0;
  problem.gpu_l2_bytes = 0;
}

const std::vector<const SddmmVariant*>& sddmm_variants() {
  static const auto all = pointers(registry().sddmm);
  return all;
}
const std::vector<const SpmmVariant*>& spmm_variants() {
  static const auto all = pointers(registry().spmm);
  return all;
}
const SddmmVariant& find_sddmm_variant(const std::string& name) {
  return find_variant(sddmm_variants(), name, "SDDMM");
}
const SpmmVariant& find_spmm_variant(const std::string& name) {
  return find_variant(spmm_variants(), name, "SpMM");
}
const std::vector<const RatioSpmmVariant*>& ratio_spmm_variants() {
  static const auto all = pointers(registry().ratio_spmm);
  return all;
}
const RatioSpmmVariant& find_ratio_spmm_variant(const std::string& name) {
  return find_variant(ratio_spmm_variants(), name, "ratio SpMM");
}

namespace {
// --verbose's account of device memory: what a GPU plan's preparation left allocated (its
// transposes, reorderings, workspaces), from the count behind memory_peaks() (core/memory.hpp).
void log_plan_device_memory(const Context& ctx, const char* op, const char* name,
                            std::int64_t bytes_before) {
  if (!ctx.is_gpu()) return;
  log_debug() << op << " plan " << name << " holds "
              << mebibytes(device_bytes_in_use() - bytes_before)
              << " MiB on the device";
}
}  // namespace

PreparedSddmm make_sddmm_plan(const Context& ctx, const CsrView& s, int k,
                              const std::string& variant, Precision precision) {
  check_pattern(ctx, s, k);
  const std::int64_t device_bytes = device_bytes_in_use();
  Stopwatch clock;  // from the features the rules read, as for every plan
  KernelProblem problem{pattern_features(ctx, s), k};
  problem.precision = precision;
  describe_gpu(ctx, problem);
  if (needs_vector_length(ctx, variant, precision))
    problem.vector_length = pattern_vector_length(ctx, s);
  const int kk = variant == "auto" ? auto_sddmm_width(ctx.device(), problem) : k;
  problem.k = kk;
  PreparedSddmm out;
  out.variant = &resolve(ctx, sddmm_variants(), variant, problem, "SDDMM", &choose_sddmm_variant);
  out.width = kk;
  out.plan = out.variant->prepare_at(ctx, s, kk, precision);
#if FK_WITH_CUDA
  if (kk != k)
    out.plan = std::make_unique<PaddedWidthSddmmPlan>(std::move(out.plan), k, kk, s.rows, s.cols);
#endif
  ctx.synchronize();
  out.prepare_seconds = clock.seconds();
  log_plan_device_memory(ctx, "SDDMM", out.variant->name(), device_bytes);
  return out;
}

PreparedRatioSpmm make_ratio_spmm_plan(const Context& ctx, const CsrView& s, int k,
                                       const std::string& variant, Op op) {
  check_pattern(ctx, s, k);
  const std::int64_t device_bytes = device_bytes_in_use();
  Stopwatch clock;
  KernelProblem problem{op == Op::kTrans ? transposed_features(ctx, s) : pattern_features(ctx, s), k};
  problem.transposed = op == Op::kTrans;  // the rules see Sᵀ, the matrix the plan runs on
  describe_gpu(ctx, problem);
  PreparedRatioSpmm out;
  if (variant == "auto") {
    out.variant = choose_ratio_spmm_variant(ctx.device(), problem);
    if (!out.variant) {  // the unfused pair is the better choice
      out.prepare_seconds = clock.seconds();  // the features the rules read
      return out;
    }
    log_debug() << "ratio SpMM auto chose " << out.variant->name();
  } else {
    out.variant = &resolve<RatioSpmmVariant>(ctx, ratio_spmm_variants(), variant, problem,
                                             "ratio SpMM", nullptr);
  }
  if (op == Op::kTrans) {
#if FK_WITH_CUDA
    const std::int64_t slice_rows = ratio_slice_rows_for(ctx, s, k);
    if (slice_rows > 0 && slice_rows < s.rows)
      out.plan = std::make_unique<SlicedTransposedRatioPlan>(ctx, s, k, *out.variant, slice_rows);
#endif
    if (!out.plan) out.plan = std::make_unique<TransposedRatioSpmmPlan>(ctx, s, k, *out.variant);
  } else {
    out.plan = out.variant->prepare(ctx, s, k);
  }
  ctx.synchronize();
  out.prepare_seconds = clock.seconds();
  log_plan_device_memory(ctx, op == Op::kTrans ? "transposed ratio SpMM" : "ratio SpMM",
                         out.variant->name(), device_bytes);
  return out;
}

PreparedSpmm make_spmm_plan(const Context& ctx, const CsrView& s, int k, Op op,
                            const std::string& variant, Precision precision) {
  check_pattern(ctx, s, k);
  const std::int64_t device_bytes = device_bytes_in_use();
  Stopwatch clock;
  KernelProblem problem;
  problem.k = k;
  problem.precision = precision;
  describe_gpu(ctx, problem);
  if (op == Op::kNoTrans) {
    problem.sparse = pattern_features(ctx, s);
    if (needs_vector_length(ctx, variant, precision))
      problem.vector_length = pattern_vector_length(ctx, s);
  }
  PreparedSpmm out;
  out.op = op;
  if (op == Op::kTrans) {
    problem.sparse = transposed_features(ctx, s);  // the rules see Sᵀ, the matrix the plan runs on
    problem.transposed = true;
  }
  const int kk = variant == "auto" ? auto_spmm_width(ctx.device(), problem) : k;
  problem.k = kk;
  out.variant = &resolve(ctx, spmm_variants(), variant, problem, "SpMM", &choose_spmm_variant);
  out.width = kk;
  const std::int64_t b_rows = op == Op::kNoTrans ? s.cols : s.rows,
                     c_rows = op == Op::kNoTrans ? s.rows : s.cols;
  auto build = [&](const SpmmVariant& v) -> std::unique_ptr<SpmmPlan> {
    if (op == Op::kNoTrans) return v.prepare_at(ctx, s, kk, precision);
    std::unique_ptr<SpmmPlan> plan = v.prepare_transposed(ctx, s, kk);
    if (plan) return plan;
#if FK_WITH_CUDA
    if (const std::int64_t slice_rows = slice_rows_for(ctx, s, kk, v); slice_rows > 0)
      return std::make_unique<SlicedTransposePlan>(ctx, s, kk, v, precision, slice_rows);
#endif
    return std::make_unique<CachedTransposePlan>(ctx, s, kk, v, precision);
  };
  if (variant == "auto" && ctx.repeatable_only() && !out.variant->repeatable()) {
    // --repeatable (the CPU variants all repeat, at any thread count: only GPU picks get
    // here): the fastest of the repeatable variants of the device that apply, each prepared and
    // run three times (after one untimed run) on zero operands of the plan's shape.
    DeviceBuffer<float> b(b_rows * kk), c(c_rows * kk), vals(std::max<std::int64_t>(s.nnz, 1));
    b.fill_bytes(0);
    vals.fill_bytes(0);
    const DenseView<const float> vb{b.data(), b_rows, kk};
    const DenseView<float> vc{c.data(), c_rows, kk};
    const SpmmVariant* best = nullptr;
    double best_seconds = 0;
    std::ostringstream timed;
    for (const SpmmVariant* v : spmm_variants()) {
      const bool candidate = v->repeatable() && v->backend() == out.variant->backend() &&
                             v->why_not(problem).empty();
      if (!candidate) continue;
      // A candidate that cannot run here (its prepare refuses this device or shape) is passed
      // over, not the end of the plan.
      std::unique_ptr<SpmmPlan> plan;
      double seconds = 0;
      try {
        plan = build(*v);
        plan->run(ctx, vals.data(), vb, vc);
        ctx.synchronize();
        Stopwatch clock;
        for (int r = 0; r < 3; ++r) plan->run(ctx, vals.data(), vb, vc);
        ctx.synchronize();
        seconds = clock.seconds() / 3;
      } catch (const Error& e) {
        timed << ' ' << v->name() << " refused (" << e.what() << ");";
        continue;
      }
      timed << ' ' << v->name() << ' ' << seconds * 1e3 << " ms;";
      if (!best || seconds < best_seconds) {
        best = v;
        best_seconds = seconds;
        out.plan = std::move(plan);
      }
    }
    FK_CHECK(best, "--repeatable: no repeatable SpMM variant applies to this problem (auto's pick "
                       << out.variant->name() << " is not repeatable;" << timed.str() << ")");
    log_debug() << "repeatable SpMM in place of " << out.variant->name() << ": " << best->name()
                << " (timed:" << timed.str() << ")";
    out.variant = best;
  } else {
    out.plan = build(*out.variant);
  }
#if FK_WITH_CUDA
  if (kk != k)
    out.plan = std::make_unique<PaddedWidthSpmmPlan>(std::move(out.plan), k, kk, b_rows, c_rows);
#endif
  ctx.synchronize();
  out.prepare_seconds = clock.seconds();
  log_plan_device_memory(ctx, op == Op::kTrans ? "transposed SpMM" : "SpMM", out.variant->name(),
                         device_bytes);
  return out;
}

}  // namespace fk
