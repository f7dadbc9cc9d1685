// Cases specific to the CUDA SpMM variants (kernels/cuda/spmm_*.cu), beyond the shared conformance
// suite: every K mapping (K = 1 to beyond two tiles, multiples of 4 and not), rows long enough to
// take the block-split path (LongRows), rows of nnz_vsr crossing chunk boundaries,
// Zipf columns that fill ASpT's shared-memory tiles, misaligned dense operands (the scalar
// fallbacks), runs that reuse a plan and the same C (atomics must start from zero every run),
// degenerate shapes, and, opt-in (FK_TEST_HUGE=1), more than 2^31 nonzeros.
// Expected values: a double-precision host loop; tolerance (4 + sqrt(n)) * 1e-6 * sum_j |v_j b_j|
// per element, n the number of terms (fp32 sums of n terms in any order stay well inside it).
// GPU tests skip without a device; the why_not tests run everywhere in a CUDA build.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/cuda/gpu_resources.cuh"
#include "core/device_buffer.hpp"
#include "core/random.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"
#include "problems.hpp"
#include "tests/test_util.hpp"

#if FK_WITH_CUDA

namespace fk {
namespace {

const std::vector<std::string> kCudaSpmm = {
    "cuda.spmm.row_csc", "cuda.spmm.row_split", "cuda.spmm.vdl",   "cuda.spmm.nnz_vsr",
    "cuda.spmm.aspt",    "cuda.spmm.cusparse",  "cuda.spmm.dense", "cuda.spmm.panel",
    "cuda.spmm.cusparse_on_transpose"};

std::uint64_t test_seed() {
  if (const char* s = std::getenv("FK_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

using test::random_matrix;

// want = op(S)·B in double; bound = op(|S|)·|B|; terms = number of products per output row.
struct Expected {
  std::vector<double> want, bound;
  std::vector<std::int64_t> terms;
};
Expected host_spmm(const HostCsr& s, const std::vector<float>& vals, const HostDense<float>& b,
                   Op op) {
  const int k = static_cast<int>(b.cols());
  const std::int64_t out_rows = op == Op::kNoTrans ? s.rows : s.cols;
  Expected e;
  e.want.assign(out_rows * k, 0.0);
  e.bound.assign(out_rows * k, 0.0);
  e.terms.assign(out_rows, 0);
  for (std::int64_t r = 0; r < s.rows; ++r) {
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
      const std::int64_t out = op == Op::kNoTrans ? r : s.col_idx[j];
      const std::int64_t in = op == Op::kNoTrans ? s.col_idx[j] : r;
      const double v = vals[j];
      const float* brow = b.row(in);
      for (int t = 0; t < k; ++t) {
        e.want[out * k + t] += v * brow[t];
        e.bound[out * k + t] += std::fabs(v * brow[t]);
      }
      ++e.terms[out];
    }
  }
  return e;
}

// Empty when every element is within tolerance; otherwise the first few offenders.
std::string compare(const std::vector<float>& got, const Expected& e, int k) {
  if (got.size() != e.want.size())
    return "size " + std::to_string(got.size()) + " != " + std::to_string(e.want.size());
  std::ostringstream os;
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double n = double(e.terms[i / k]);
    const double tol = (4.0 + std::sqrt(n)) * 1e-6 * e.bound[i] + 1e-30;
    if (!(std::fabs(double(got[i]) - e.want[i]) <= tol)) {  // NaN fails too
      if (bad++ < 5)
        os << " [row " << i / k << " col " << i % k << ": got " << got[i] << " want " << e.want[i]
           << " tol " << tol << "]";
    }
  }
  if (bad) os << " (" << bad << " of " << got.size() << " elements wrong)";
  return os.str();
}

// A GPU plan for op(S)·B of one variant with device copies of S, run on NaN-poisoned C. The dense
// operands and the run-time values can be placed `offset` floats into larger buffers to defeat
// 16-byte alignment.
class GpuCase {
 public:
  GpuCase(const Context& ctx, const HostCsr& s, int k, Op op, const std::string& variant)
      : ctx_(ctx), s_(s), k_(k), op_(op), dev_s_(s) {
    plan_ = make_spmm_plan(ctx_, dev_s_.view(), k, op, variant);
  }
  int width() const { return plan_.width; }
  std::int64_t in_rows() const { return op_ == Op::kNoTrans ? s_.cols : s_.rows; }
  std::int64_t out_rows() const { return op_ == Op::kNoTrans ? s_.rows : s_.cols; }

  std::vector<float> run(const std::vector<float>* vals, const HostDense<float>& b,
                         int offset = 0) {
    DeviceBuffer<float> db(in_rows() * k_ + offset), dc(out_rows() * k_ + offset);
    db.upload(b.data(), b.size(), offset);
    dc.fill_bytes(0xff);  // NaN
    // At least one element: the cached-transpose path rejects a null value pointer even for nnz =
    // 0. The values are placed `offset` floats in as well.
    DeviceBuffer<float> dv(vals ? std::max<std::int64_t>(1, std::int64_t(vals->size())) + offset
                                : 0);
    if (vals) dv.upload(vals->data(), std::int64_t(vals->size()), offset);
    plan_.run(ctx_, vals ? dv.data() + offset : nullptr,
              DenseView<const float>{db.data() + offset, in_rows(), k_},
              DenseView<float>{dc.data() + offset, out_rows(), k_});
    ctx_.synchronize();
    std::vector<float> c(static_cast<std::size_t>(out_rows() * k_));
    dc.download(c.data(), out_rows() * k_, offset);
    return c;
  }
  // Runs twice into the same C (the second run must not build on the first), returns the second.
  std::vector<float> run_twice(const std::vector<float>& vals1, const std::vector<float>& vals2,
                               const HostDense<float>& b) {
    DeviceBuffer<float> db(in_rows() * k_), dc(out_rows() * k_);
    db.upload(b.data(), b.size());
    dc.fill_bytes(0xff);
    DeviceBuffer<float> dv1(vals1), dv2(vals2);
    const DenseView<const float> vb{db.data(), in_rows(), k_};
    const DenseView<float> vc{dc.data(), out_rows(), k_};
    plan_.run(ctx_, dv1.data(), vb, vc);
    plan_.run(ctx_, dv2.data(), vb, vc);
    ctx_.synchronize();
    return dc.to_host();
  }

 private:
  const Context& ctx_;
  const HostCsr& s_;
  int k_;
  Op op_;
  DeviceCsr dev_s_;
  PreparedSpmm plan_;
};

bool applies(const std::string& variant, const HostCsr& s, int k, Op op) {
  KernelProblem p{features(s.view()), k};
  if (op == Op::kTrans) std::swap(p.sparse.rows, p.sparse.cols), p.transposed = true;
  return find_spmm_variant(variant).why_not(p).empty();
}

// Checks every CUDA variant on s for each K and both ops: run-time values, S's own values, and a
// second run into the same C. Returns the number of (variant, K, op) cases checked.
int check_all(const std::string& name, const HostCsr& s, const std::vector<int>& widths, Rng& rng,
              std::uint64_t seed, bool both_ops = true) {
  Context ctx(DeviceKind::kGpu);
  int checked = 0;
  for (int k : widths) {
    for (Op op : {Op::kNoTrans, Op::kTrans}) {
      if (op == Op::kTrans && !both_ops) continue;
      const HostDense<float> b = random_matrix(op == Op::kNoTrans ? s.cols : s.rows, k, rng);
      const std::vector<float> v1 = test::random_dense(s.nnz(), rng);
      const std::vector<float> v2 = test::random_dense(s.nnz(), rng);
      const Expected e1 = host_spmm(s, v1, b, op), e2 = host_spmm(s, v2, b, op);
      const Expected eown = s.vals.empty() ? Expected{} : host_spmm(s, s.vals, b, op);
      for (const std::string& v : kCudaSpmm) {
        if (!applies(v, s, k, op)) continue;
        SCOPED_TRACE(v + (op == Op::kNoTrans ? " S*B" : " S^T*B") + " on " + name + ", K=" +
                     std::to_string(k) + " (replay: FK_TEST_SEED=" + std::to_string(seed) + ")");
        GpuCase g(ctx, s, k, op, v);
        EXPECT_EQ(compare(g.run(&v1, b), e1, k), "") << "run-time values";
        if (!s.vals.empty()) {
          EXPECT_EQ(compare(g.run(nullptr, b), eown, k), "") << "own values";
        }
        EXPECT_EQ(compare(g.run_twice(v1, v2, b), e2, k), "") << "second run into the same C";
        ++checked;
      }
    }
  }
  return checked;
}

// Widths that reach every K mapping: SpMV, each group size, float4 and scalar lanes, one and two
// vectors per lane, tile boundaries (128, 256) and more than one tile, with tails.
const std::vector<int> kAllWidths = {1,  2,  3,  4,  5,   6,   8,   12,  16,  17,
                                     31, 32, 33, 64, 100, 128, 129, 256, 260, 300};

TEST(CudaSpmmSpecific, WhyNot) {
  KernelProblem p;
  p.sparse.rows = 100;
  p.k = 16;
  EXPECT_EQ(find_spmm_variant("cuda.spmm.vdl").why_not(p), "");
  p.k = 64;
  EXPECT_EQ(find_spmm_variant("cuda.spmm.vdl").why_not(p), "");
  p.k = 65;
  EXPECT_NE(find_spmm_variant("cuda.spmm.vdl").why_not(p).find("64"), std::string::npos);
  p.sparse.rows = std::int64_t(INT32_MAX) + 1;
  EXPECT_NE(find_spmm_variant("cuda.spmm.nnz_vsr").why_not(p), "");
  for (const char* v : {"cuda.spmm.row_csc", "cuda.spmm.aspt", "cuda.spmm.cusparse"})
    EXPECT_EQ(find_spmm_variant(v).why_not(p), "") << v;
  // panel: K <= 4 and at most 16 panels of S's columns (Sᵀ's rows when transposed).
  const SpmmVariant& panel = find_spmm_variant("cuda.spmm.panel");
  KernelProblem q = test::rule_problem(1, 1000, 10);
  q.sparse.cols = 800000;
  EXPECT_EQ(panel.why_not(q), "");
  q.k = 2;
  EXPECT_NE(panel.why_not(q).find("16"), std::string::npos);
  q.k = 5;
  q.sparse.cols = 10;
  EXPECT_NE(panel.why_not(q).find("4"), std::string::npos);
  q.k = 4;
  q.transposed = true;  // Sᵀ's rows are S's columns
  q.sparse.rows = 300000;
  EXPECT_NE(panel.why_not(q), "");
  q.sparse.rows = 100000;
  EXPECT_EQ(panel.why_not(q), "");
}

// The row statistics the rules see (S's, or Sᵀ's for the transposed product, whose rows are S's
// columns) and the variant `auto` should pick.
struct PickCase {
  const char* matrix;
  std::int64_t rows;
  double mean, cv;
  const char* want;
};
template <std::size_t N>
void expect_picks(int k, bool transposed, const PickCase (&cases)[N]) {
  for (const PickCase& c : cases) {
    KernelProblem p = test::rule_problem(k, c.rows, c.mean, c.cv);
    p.transposed = transposed;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, p).name(), c.want)
        << c.matrix << ", K = " << k << (transposed ? ", Sᵀ·B" : ", S·B");
  }
}
template <std::size_t N>
void expect_transposed_picks(int k, const PickCase (&cases)[N]) {
  expect_picks(k, true, cases);
}

// GPU `auto` for Sᵀ·B at K = 32 (kernels/select.cpp) on the transposes' row statistics of the
// report's matrices: vdl where Sᵀ has few long rows or many Zipf-long ones, nnz_vsr for nips's
// uneven words (cuSPARSE until the 2026-11-26 refit: nnz_vsr 1.26x faster at K = 32 on an H100),
// row_split for the long item rows of netflix and ml-20m, our other kernels elsewhere. Needs no
// device.
TEST(CudaSpmmSpecific, AutoForTransposedProductAtK32) {
  // Row statistics of Sᵀ, rounded; cv is set on the side it falls in the rules (even <= 1.5).
  const PickCase cases[] = {{"DLMC final_dense", 2048, 100, 0.3, "cuda.spmm.vdl"},
                            {"bcsstk13", 2003, 42, 0.5, "cuda.spmm.vdl"},
                            // (bf43c74 report: 34.8 us against nnz_vsr's 35.9; session 41's rule)
                            {"nips", 12419, 60, 2.5, "cuda.spmm.cusparse_on_transpose"},
                            {"netflix", 17770, 5654, 1.4, "cuda.spmm.cusparse_on_transpose"},
                            {"ml-20m", 26744, 748, 2.5, "cuda.spmm.cusparse_on_transpose"},
                            {"nytimes", 102660, 673, 6.0, "cuda.spmm.cusparse_on_transpose"},
                            {"power-law", 1000000, 20, 76, "cuda.spmm.nnz_vsr"},
                            {"delaunay_n14", 16384, 6, 0.25, "cuda.spmm.row_csc"},
                            {"hep-th", 8361, 3.8, 1.2, "cuda.spmm.vdl"}};
  expect_transposed_picks(32, cases);
  // At K = 64 nytimes's skewed words went to nnz_vsr (1.23x vdl on an H100, 1.03x on the H200);
  // at 32 and 64 the large transposes of long rows now run cuSPARSE on the cached transpose.
  const PickCase at64[] = {{"nytimes", 102660, 673, 6.0, "cuda.spmm.cusparse_on_transpose"}};
  expect_transposed_picks(64, at64);
}

// GPU `auto` for Sᵀ·B at K = 1 on large transposes (kernels/select.cpp): cuda.spmm.panel when S's
// columns fit in at most 4 shared-memory panels (it reads S in its own order: no transpose);
// beyond that nnz_vsr once S's values outgrow twice the L2 and Sᵀ's rows are long (mean >= 1000;
// the windowed value gather), cuSPARSE on shorter rows (banded matrices). Needs no device.
TEST(CudaSpmmSpecific, AutoForTransposedProductAtK1) {
  const PickCase cases[] = {
      {"netflix", 17770, 5654, 1.4, "cuda.spmm.panel"},
      {"ml-20m", 26744, 748, 1.4, "cuda.spmm.panel"},
      {"banded, 100M", 5000000, 20, 0.1, "cuda.spmm.cusparse"},
      {"banded, 60M, rows of 200", 300000, 200, 0.1, "cuda.spmm.cusparse"},
      {"uniform 2M x 20000", 20000, 3000, 0.1, "cuda.spmm.panel"},
      {"300K columns of 1000 (6 panels)", 300000, 1000, 0.5, "cuda.spmm.nnz_vsr"},
      {"nytimes", 102660, 673, 6.0, "cuda.spmm.panel"}};
  expect_transposed_picks(1, cases);
}

// GPU `auto` at K <= 4 with cuda.spmm.panel (kernels/select.cpp), on the row statistics of the
// matrices it was measured on: Sᵀ·B at K <= 2 with at most 4 panels unless parts are short and
// S's columns uneven, at K = 4 only on Sᵀ's longest rows; S·B at K = 2-4 on even rows with at
// most 2 panels, never at K = 1. Needs no device.
TEST(CudaSpmmSpecific, AutoPanelAtSmallK) {
  struct Case {
    const char* what;
    std::int64_t m, n;  // S
    double nnz, s_mean, s_cv, t_mean, t_cv;
    double share;  // S's neighbour share (fk-bench --explain-auto)
  };
  const Case netflix{"netflix", 480189, 17770, 100.48e6, 209, 0.71, 5654, 0.97, 0.023};
  const Case nytimes{"nytimes", 300000, 102660, 69.09e6, 230, 0.56, 673, 7.9, 0.160};
  const Case ml20m{"ml-20m", 138493, 26744, 20.0e6, 144, 0.74, 748, 1.58, 0.020};
  const Case nips{"nips", 1500, 12419, 749e3, 499, 0.25, 60, 2.5, 0.296};
  const Case uniform{"uniform 2M x 20000", 2000000, 20000, 60e6, 30, 0.18, 3000, 0.02, 0.001};
  const Case wide{"uniform 300K x 100K", 300000, 100000, 60e6, 200, 0.07, 600, 0.04, 0.002};
  const Case clustered{"clustered 200K x 100K", 200000, 100000, 20e6, 100, 0.1, 200, 0.3, 0.416};
  const Case powerlaw{"power-law 500K x 100K", 500000, 100000, 30e6, 60, 17.5, 300, 7.1, 0.096};
  const Case banded{"banded 300K x 300K", 300000, 300000, 60e6, 200, 0.0, 200, 0.05, 0.498};
  const Case final_dense{"DLMC final_dense", 1000, 2048, 204.8e3, 205, 0.25, 100, 0.31, 0.2};
  auto pick = [](const Case& c, int k, bool transposed) {
    KernelProblem p = transposed ? test::rule_problem(k, c.n, c.t_mean, c.t_cv)
                                 : test::rule_problem(k, c.m, c.s_mean, c.s_cv);
    p.sparse.cols = transposed ? c.m : c.n;
    p.sparse.nnz = std::int64_t(c.nnz);
    p.sparse.density = c.nnz / (double(c.m) * double(c.n));
    if (!transposed) p.sparse.neighbour_share = c.share;  // the plans measure S's alone
    p.transposed = transposed;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name()) == "cuda.spmm.panel";
  };
  struct Want {
    const Case& c;
    bool n1, n2, n4, t1, t2, t4;  // panel for S·B and Sᵀ·B at K = 1, 2, 4
  };
  // S·B at K = 1 only where x outgrows L1 and neighbouring rows share few columns: nytimes and
  // the uniform 300K x 100K, not the clustered or banded ones, nor where x fits in L1.
  const Want wants[] = {
      {netflix, false, true, true, true, true, true},
      {nytimes, true, false, false, true, true, false},
      {ml20m, false, true, true, true, true, false},
      {nips, false, false, false, false, false, false},  // Sᵀ·B: nnz_vsr since values read through
      {uniform, false, true, true, true, true, true},
      {wide, true, false, false, true, true, false},  // K = 2-4: 4-7 panels
      {clustered, false, false, false, true, true, false},
      {powerlaw, false, false, false, false, false, false},
      {banded, false, false, false, false, false, false},
      {final_dense, false, false, false, false, false, false},
  };
  for (const Want& w : wants) {
    EXPECT_EQ(pick(w.c, 1, false), w.n1) << w.c.what << " S·B K=1";
    EXPECT_EQ(pick(w.c, 2, false), w.n2) << w.c.what << " S·B K=2";
    EXPECT_EQ(pick(w.c, 4, false), w.n4) << w.c.what << " S·B K=4";
    EXPECT_EQ(pick(w.c, 1, true), w.t1) << w.c.what << " Sᵀ·B K=1";
    EXPECT_EQ(pick(w.c, 2, true), w.t2) << w.c.what << " Sᵀ·B K=2";
    EXPECT_EQ(pick(w.c, 4, true), w.t4) << w.c.what << " Sᵀ·B K=4";
    EXPECT_FALSE(pick(w.c, 5, true)) << w.c.what << " K=5";
  }
  // Unmeasured (1, as for hand-built problems) counts as shared: K = 1 stays with the others.
  KernelProblem unmeasured = test::rule_problem(1, nytimes.m, nytimes.s_mean, nytimes.s_cv);
  unmeasured.sparse.cols = nytimes.n;
  unmeasured.sparse.nnz = std::int64_t(nytimes.nnz);
  EXPECT_STRNE(choose_spmm_variant(DeviceKind::kGpu, unmeasured).name(), "cuda.spmm.panel");
}

// GPU `auto` for S·B on large matrices of very short rows (kernels/select.cpp): nnz_vsr at
// 64 < K <= 128, and at K = 32-64 when the columns spread; banded rows keep row_csc up to K = 64,
// and every pattern does at K = 256 and on rows of 10 and more. Needs no device.
TEST(CudaSpmmSpecific, AutoOnLargeMatricesOfVeryShortRows) {
  auto pick = [](int k, double mean, double span) {
    KernelProblem p = test::rule_problem(k, 2000000, mean, 0.4);
    p.sparse.col_span = span;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  for (int k : {32, 64, 128}) EXPECT_EQ(pick(k, 5, 0.6), "cuda.spmm.nnz_vsr") << k;
  EXPECT_EQ(pick(128, 6, 0.00001), "cuda.spmm.nnz_vsr");
  for (int k : {32, 64}) EXPECT_EQ(pick(k, 6, 0.00001), "cuda.spmm.row_csc") << k;
  EXPECT_EQ(pick(256, 5, 0.6), "cuda.spmm.row_csc");
  EXPECT_EQ(pick(128, 12, 0.6), "cuda.spmm.row_csc");
}

// Since the 2026-11-26 refit (H100, checks/short-rows-refit) the very-short-row rules start at 100K
// nonzeros: S·B spread rows go to nnz_vsr at K = 64-128 (a clustered 60K x 60K of rows of 4,
// 240K nonzeros: 1.42x cuSPARSE at K = 64) but keep row_csc at K = 32 below 250K; local rows of
// under 5 go to row_csc at K = 32-64 (banded 100K x 100K: 1.78x cuSPARSE), not cuSPARSE; Sᵀ·B on
// short even transposed rows goes to nnz_vsr at K = 64-128 only. Needs no device.
TEST(CudaSpmmSpecific, AutoOnMediumMatricesOfVeryShortRows) {
  auto pick = [](int k, std::int64_t rows, double mean, double span, bool transposed = false) {
    KernelProblem p = test::rule_problem(k, rows, mean, 0.4);
    p.sparse.col_span = span;
    p.transposed = transposed;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  EXPECT_EQ(pick(32, 60000, 4, 0.5), "cuda.spmm.row_csc");  // clustered, 240K
  EXPECT_EQ(pick(64, 60000, 4, 0.5), "cuda.spmm.nnz_vsr");
  EXPECT_EQ(pick(128, 60000, 4, 0.5), "cuda.spmm.nnz_vsr");
  EXPECT_EQ(pick(32, 500000, 3, 0.5), "cuda.spmm.nnz_vsr");  // uniform, 1.5M
  for (int k : {32, 64})
    EXPECT_EQ(pick(k, 100000, 4, 0.00007), "cuda.spmm.row_csc") << k;  // banded
  EXPECT_EQ(pick(32, 8361, 3.8, 0.3), "cuda.spmm.cusparse");  // hep-th size: the tiny-row rule
  // ... which leaves local patterns of tiny rows under 100K nonzeros to row_csc (banded 1.28-1.9x).
  for (int k : {32, 64}) {
    EXPECT_EQ(pick(k, 25000, 3.96, 0.0003), "cuda.spmm.row_csc") << k;
    EXPECT_EQ(pick(k, 60000, 1.65, 0.00004), "cuda.spmm.row_csc") << k;
  }
  // Spread tiny rows: cuSPARSE at K = 32; above it row_csc when the longest row is within 6 means
  // (rule_problem: 4 means), cuSPARSE for hep-th's 13.
  EXPECT_EQ(pick(32, 20000, 4, 0.5), "cuda.spmm.cusparse");
  for (int k : {48, 64}) {
    EXPECT_EQ(pick(k, 20000, 4, 0.5), "cuda.spmm.row_csc") << k;
    KernelProblem hep_th = test::rule_problem(k, 8361, 3.8, 1.1);
    hep_th.sparse.col_span = 0.32;
    hep_th.sparse.row_max = 50;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, hep_th).name(), "cuda.spmm.cusparse") << k;
  }
  for (int k : {64, 128}) EXPECT_EQ(pick(k, 300000, 4, 1, true), "cuda.spmm.nnz_vsr") << k;
  for (int k : {32, 256}) EXPECT_EQ(pick(k, 300000, 4, 1, true), "cuda.spmm.row_csc") << k;
  EXPECT_EQ(pick(128, 1500000, 4, 1, true), "cuda.spmm.nnz_vsr");  // 6M nonzeros: 1.42x row_csc
}

// GPU `auto`'s pick for rows of the given mean (cv 1.0) whose longest has row_max nonzeros.
std::string pick_by_longest_row(int k, std::int64_t rows, double mean, std::int64_t row_max,
                                bool transposed) {
  KernelProblem p = test::rule_problem(k, rows, mean, 1.0);
  p.sparse.row_max = row_max;
  p.transposed = transposed;
  return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
}

// Medium matrices (100K to 4.3M nonzeros) whose longest row is at least 6 means go to nnz_vsr for
// both products at every K > 1 (kernels/select.cpp, uneven_nnz_vsr_pays; H100, 2026-11-26: within
// 10% of the best on 121 of 139 out-of-sample problems against 66 with the rules before), not
// below 100K nonzeros (hep-th: row kernels and cuSPARSE stay ahead), not from 4.3M (nnz_vsr's whole
// chunks; the large rules decide) and not at K = 1. Needs no device.
TEST(CudaSpmmSpecific, AutoNnzVsrOnUnevenMediumMatrices) {
  const auto pick = pick_by_longest_row;
  for (bool t : {false, true})
    for (int k : {4, 16, 32, 64, 128, 256, 512}) {  // (K <= 2 Sᵀ·B with few panels: panel's rule)
      // (Sᵀ·B from K = 256: cuSPARSE on the cached transpose, AutoVendorOnTransposeAtWideK.)
      const char* want = t && k >= 256 ? "cuda.spmm.cusparse_on_transpose" : "cuda.spmm.nnz_vsr";
      EXPECT_EQ(pick(k, 3000, 100, 2776, t), want) << "power-law 300K, K=" << k << " t=" << t;
      // S·B at K = 16-64 on a million nonzeros in rows of mean >= 20: cuSPARSE (session 41;
      // short-rows-refit's oos3 had measured this very shape 1.4-1.7x faster there).
      // Sᵀ·B at K = 32-64 on such a transpose: cuSPARSE on the cached transpose (session 41).
      const bool vendor = !t && k >= 16 && k <= 64;
      const bool vendor_t = t && k >= 32 && k <= 64;
      EXPECT_EQ(pick(k, 50000, 30, 3365, t),
                vendor     ? "cuda.spmm.cusparse"
                : vendor_t ? "cuda.spmm.cusparse_on_transpose"
                           : want)
          << "power-law 1.5M, K=" << k << " t=" << t;
    }
  EXPECT_NE(pick(32, 8361, 3.8, 50, false), "cuda.spmm.nnz_vsr");  // hep-th: 31K nonzeros
  EXPECT_NE(pick(32, 8361, 3.8, 50, true), "cuda.spmm.nnz_vsr");
  EXPECT_NE(pick(32, 2048, 51.2, 300, true), "cuda.spmm.nnz_vsr");    // longest under 6 means
  EXPECT_NE(pick(1, 3000, 100, 2776, false), "cuda.spmm.nnz_vsr");    // K = 1
  EXPECT_NE(pick(32, 100000, 50, 2000, false), "cuda.spmm.nnz_vsr");  // 5M nonzeros
  // Before the dense rule for transposes of long rows: DLMC bottleneck_2_block_group4_2_1's
  // transpose (4608 rows of 51, longest 424, density 10%) ran nnz_vsr 1.08-1.43x faster than dense.
  for (int k : {64, 128, 512}) {
    KernelProblem dlmc = test::rule_problem(k, 4608, 51.2, 0.57);
    dlmc.sparse.row_max = 424;
    dlmc.sparse.cols = 512;
    dlmc.sparse.density = 0.1;
    dlmc.transposed = true;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, dlmc).name(),
                 k >= 256 ? "cuda.spmm.cusparse_on_transpose" : "cuda.spmm.nnz_vsr")
        << k;
  }
}

// Sᵀ·B at K >= 256 that the rules give nnz_vsr, on 200K-5M nonzeros, runs cuSPARSE's S·B on the
// cached transpose (vendor_on_wide_transpose_pays; H100, 2026-11-27, checks/vendor-on-transpose): not
// S·B, not below K = 256, not under 200K or over 5M nonzeros, not on transposed rows of mean under
// 30, and not where another kernel was picked. Needs no device.
TEST(CudaSpmmSpecific, AutoVendorOnTransposeAtWideK) {
  const auto pick = pick_by_longest_row;
  const std::string vendor = "cuda.spmm.cusparse_on_transpose";
  for (int k : {256, 300, 512}) {
    EXPECT_EQ(pick(k, 12419, 60.3, 1500, true), vendor) << "nips, K=" << k;
    EXPECT_EQ(pick(k, 20000, 200, 20000, true), vendor) << "power-law 4M, K=" << k;
    EXPECT_NE(pick(k, 12419, 60.3, 1500, false), vendor) << "S·B, K=" << k;
    EXPECT_NE(pick(k, 1682, 59.5, 583, true), vendor) << "MovieLens 100K (100K), K=" << k;
    EXPECT_NE(pick(k, 26744, 747.8, 20000, true), vendor) << "ml-20m (20M), K=" << k;
  }
  EXPECT_NE(pick(128, 12419, 60.3, 1500, true), vendor) << "K = 128";
  // fk-lda's nytimes minibatches: transposes of 102660 rows of about 9 (ran it 1.01x slower).
  EXPECT_EQ(pick(256, 102660, 9.2, 4006, true), "cuda.spmm.nnz_vsr") << "rows of 9";
  // Where another kernel is the pick (short transposed rows: row_csc), it stays.
  EXPECT_EQ(pick(512, 100000, 6, 18, true), "cuda.spmm.row_csc") << "short rows";
  // Any other name for S·B: the variant declines it.
  KernelProblem sb = test::rule_problem(256, 12419, 60.3, 1.0);
  EXPECT_NE(find_spmm_variant("cuda.spmm.cusparse_on_transpose").why_not(sb), "");
  sb.transposed = true;
  EXPECT_EQ(find_spmm_variant("cuda.spmm.cusparse_on_transpose").why_not(sb), "");
}

// Sᵀ·B at K = 32-64 on large transposes (>= 4M nonzeros) of long rows (mean >= 100) that are not
// uniform (cv >= 0.1) and not dense-ish (<= 5%) runs cuSPARSE on the cached transpose, whatever the
// rules gave (vendor_on_large_transpose_pays; H100, 2026-11-27, checks/vendor-on-transpose: 1.11x the
// picks before on 12 held-out problems). Not S·B, not K = 16 or 128, not the 1M x 1M power law's
// rows of 20, not uniform or dense-ish transposes. Needs no device.
TEST(CudaSpmmSpecific, AutoVendorOnLargeTransposesAtNarrowK) {
  auto pick = [](int k, std::int64_t rows, double mean, double cv, bool transposed, double density) {
    KernelProblem p = test::rule_problem(k, rows, mean, cv);
    p.transposed = transposed;
    p.sparse.density = density;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  const std::string vendor = "cuda.spmm.cusparse_on_transpose";
  for (int k : {32, 48, 64}) {
    EXPECT_EQ(pick(k, 26744, 748, 1.58, true, 0.005), vendor) << "ml-20m, K=" << k;
    EXPECT_EQ(pick(k, 40000, 400, 0.19, true, 0.001), vendor) << "clustered, K=" << k;
    EXPECT_NE(pick(k, 26744, 748, 1.58, false, 0.005), vendor) << "S·B, K=" << k;
    EXPECT_NE(pick(k, 1000000, 20, 1.2, true, 2e-5), vendor) << "rows of 20, K=" << k;
    EXPECT_NE(pick(k, 30000, 1333, 0.03, true, 0.003), vendor) << "uniform, K=" << k;
    EXPECT_NE(pick(k, 4096, 1228, 0.5, true, 0.3), vendor) << "30% dense, K=" << k;
    // Medium transposes since session 41 (AutoOnMediumUnevenMatrices), nips among them; not a
    // banded one (cv 0.11).
    EXPECT_EQ(pick(k, 12419, 60, 2.5, true, 0.005), vendor) << "nips (0.75M), K=" << k;
    EXPECT_NE(pick(k, 50000, 40, 0.11, true, 0.0008), vendor) << "banded (2M), K=" << k;
  }
  for (int k : {16, 128}) EXPECT_NE(pick(k, 26744, 748, 1.58, true, 0.005), vendor) << k;
}

// Sᵀ·B on small matrices whose transpose has at most 1024 rows of mean >= 10 (longest within 6
// means, density under 20%) goes to row_split from K = 64 (H100, 2026-11-26: the 59 DLMC layers,
// and out of sample 36 of 44 generated problems within 10% of the best against 11), and so do
// those of up to 2047 rows of mean >= 20 at K = 64 and 128; not on 2048 rows, dense-ish matrices or
// below K = 64. Needs no device.
TEST(CudaSpmmSpecific, AutoRowSplitOnSmallTransposesOfFewRows) {
  auto pick = [](int k, std::int64_t t_rows, double t_mean, std::int64_t s_rows, double longest) {
    return std::string(
        choose_spmm_variant(DeviceKind::kGpu,
                            test::transposed_rule_problem(k, t_rows, t_mean, s_rows, longest, 0.3))
            .name());
  };
  for (int k : {64, 128, 256, 512}) {
    EXPECT_EQ(pick(k, 512, 205, 4608, 2), "cuda.spmm.row_split") << k;     // a DLMC 0.9 layer
    EXPECT_EQ(pick(k, 512, 390, 20000, 1.5), "cuda.spmm.row_split") << k;  // uniform 20000 x 512
    EXPECT_NE(pick(k, 2048, 98, 10000, 1.4), "cuda.spmm.row_split") << k;  // 2048 rows
    EXPECT_NE(pick(k, 400, 300, 600, 1.1), "cuda.spmm.row_split") << k;    // 50% dense
  }
  EXPECT_NE(pick(16, 512, 205, 4608, 2), "cuda.spmm.row_split");
  EXPECT_EQ(pick(32, 512, 205, 4608, 2),
            "cuda.spmm.row_split");  // AutoRowSplitOnFewRowTransposesAtK32
  EXPECT_NE(pick(128, 512, 6, 4608, 2), "cuda.spmm.row_split");  // rows of 6
  // 20-40% dense (choose_few_row_dense_ish_transpose): row_split below K = 256, dense from it
  // (generated 700 x 1500 at 29% and 1000 x 3000 at 23%, H100).
  for (int k : {64, 128}) {
    EXPECT_EQ(pick(k, 700, 429, 1500, 1.2), "cuda.spmm.row_split") << k;
    EXPECT_EQ(pick(k, 1000, 700, 3000, 1.3), "cuda.spmm.row_split") << k;
  }
  for (int k : {256, 512}) {
    EXPECT_EQ(pick(k, 700, 429, 1500, 1.2), "cuda.spmm.dense") << k;
    EXPECT_EQ(pick(k, 1000, 700, 3000, 1.3), "cuda.spmm.dense") << k;
  }
  // 1025-2047 transposed rows of mean >= 20: at K = 64 and 128 only (H200, 2026-11-28): bcsstk13's
  // transpose (2003 rows of 42, 2003 columns) and a generated 2000-row one; not rows of 14, not
  // K = 256.
  for (int k : {64, 128}) {
    EXPECT_EQ(pick(k, 2003, 41.9, 2003, 2.3), "cuda.spmm.row_split") << k;
    EXPECT_EQ(pick(k, 2000, 100, 2000, 1.3), "cuda.spmm.row_split") << k;
    EXPECT_NE(pick(k, 1800, 14, 1200, 2), "cuda.spmm.row_split") << k;
  }
  EXPECT_NE(pick(256, 2003, 41.9, 2003, 2.3), "cuda.spmm.row_split");
}

// S·B on small uneven rows of mean >= 40 (cv >= 0.5) from 100K to 500K nonzeros goes to nnz_vsr at
// 16 < K <= 128: the UCI kos corpus's documents (mean 103, cv 0.65, longest 4.4 means) 1.11-1.13x
// cuSPARSE at K = 64-128 (H100, 2026-11-26); bcsstk13 (84K nonzeros, cv 0.54) stays off it (nnz_vsr
// 1.4x slower there). Needs no device.
TEST(CudaSpmmSpecific, AutoNnzVsrOnSmallUnevenRows) {
  for (int k : {32, 64, 128}) {
    KernelProblem kos = test::rule_problem(k, 3430, 103.0, 0.65);
    kos.sparse.row_max = 457;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, kos).name(), "cuda.spmm.nnz_vsr")
        << "kos, K=" << k;
    KernelProblem bcsstk13 = test::rule_problem(k, 2003, 41.9, 0.54);
    bcsstk13.sparse.row_max = 95;
    EXPECT_STRNE(choose_spmm_variant(DeviceKind::kGpu, bcsstk13).name(), "cuda.spmm.nnz_vsr")
        << "bcsstk13, K=" << k;
  }
  KernelProblem kos = test::rule_problem(256, 3430, 103.0, 0.65);
  kos.sparse.row_max = 457;
  EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, kos).name(), "cuda.spmm.cusparse");
}

// GPU `auto` on small matrices (kernels/select.cpp, "Small problems"), with row statistics of
// DLMC layers from the H200 sweep of the 59 on file: vdl where its short critical path
// wins, cuSPARSE where few long rows would idle the machine. Needs no device.
TEST(CudaSpmmSpecific, AutoOnSmallMatrices) {
  struct Case {
    const char* what;
    int k;
    bool transposed;
    std::int64_t rows;  // of the matrix the plan runs on (Sᵀ for the transposed product)
    double mean;
    const char* want;
  };
  const Case cases[] = {
      {"SpMV, 1024 rows of 25.6", 1, false, 1024, 25.6, "cuda.spmm.vdl"},
      {"SpMV, 256 rows of 230 (vdl's team kernel)", 1, false, 256, 230.4, "cuda.spmm.vdl"},
      // (rule_problem's longest row is 4 means: nnz_vsr, as on the DLMC layer of 512 rows of 205
      // whose longest is 2.9 means, 1.27x faster than vdl since values are read through)
      {"transposed SpMV, 512 rows of 205", 1, true, 512, 204.8, "cuda.spmm.nnz_vsr"},
      {"K = 4, 512 rows of 461 (vdl's team kernel)", 4, false, 512, 460.8, "cuda.spmm.vdl"},
      {"K = 4, nips (1500 rows of 499)", 4, false, 1500, 499, "cuda.spmm.vdl"},
      {"K = 32, 512 rows of 12.8 (was row_csc)", 32, false, 512, 12.8, "cuda.spmm.vdl"},
      {"K = 32, 256 rows of 230 (row_split filling the GPU)", 32, false, 256, 230.4,
       "cuda.spmm.row_split"},
      {"K = 32, 256 rows of 461 (row_split filling the GPU)", 32, false, 256, 460.8,
       "cuda.spmm.row_split"},
      {"K = 64, 1024 rows of 25.6 (was row_csc)", 64, false, 1024, 25.6, "cuda.spmm.cusparse"},
      {"K = 64, delaunay_n14 (16384 rows of 6)", 64, false, 16384, 6, "cuda.spmm.row_csc"},
      {"transposed K = 32, 256 rows of 6.4", 32, true, 256, 6.4, "cuda.spmm.vdl"},
      // (cuSPARSE and vdl before row_split's small-transpose rule: 1.28-1.49x slower on these)
      {"transposed K = 64, 256 rows of 102", 64, true, 256, 102.4, "cuda.spmm.row_split"},
      {"transposed K = 64, 128 rows of 51", 64, true, 128, 51.2, "cuda.spmm.row_split"},
  };
  for (const Case& c : cases) {
    KernelProblem p = test::rule_problem(c.k, c.rows, c.mean, 0.3);
    p.transposed = c.transposed;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, p).name(), c.want) << c.what;
  }
}

// S·B at K <= 4 on fewer than 4096 even rows of mean >= 64 goes to vdl (its team kernel), ahead of
// cuSPARSE and panel; at K = 1 (where the older rules say cuSPARSE) not past those bounds, not on
// uneven rows (H100, the 59 DLMC layers and generated matrices); Sᵀ·x has its own rule. Needs no
// device.
TEST(CudaSpmmSpecific, AutoTeamsOnFewLongRowsAtSmallK) {
  auto pick = [](int k, std::int64_t rows, double mean, double cv, bool transposed = false,
                 std::int64_t row_max = 0) {
    KernelProblem p = test::rule_problem(k, rows, mean, cv);
    p.transposed = transposed;
    if (row_max > 0) p.sparse.row_max = row_max;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  for (int k : {1, 2, 3, 4}) {
    SCOPED_TRACE("K=" + std::to_string(k));
    EXPECT_EQ(pick(k, 256, 1152, 0.08), "cuda.spmm.vdl");  // DLMC 0.5 layer
    EXPECT_EQ(pick(k, 1500, 499, 0.25), "cuda.spmm.vdl");  // nips
    EXPECT_EQ(pick(k, 4095, 64, 0.1), "cuda.spmm.vdl");
    EXPECT_EQ(pick(k, 3000, 1000, 0.03), "cuda.spmm.vdl");  // 3M nonzeros: before panel
    EXPECT_NE(pick(k, 4096, 500, 0.1), "cuda.spmm.vdl");    // too many rows
  }
  EXPECT_NE(pick(1, 1500, 499, 0.9), "cuda.spmm.vdl");  // uneven rows
  EXPECT_NE(pick(5, 256, 1152, 0.08), "cuda.spmm.vdl");
  EXPECT_NE(pick(1, 256, 1152, 0.08, /*transposed=*/true), "cuda.spmm.vdl");
}

// Sᵀ·B on a transpose of several thousand uneven rows (the UCI kos corpus's 6906 words: mean 51,
// cv 1.9, longest 2123) must not go to vdl, whose one row per warp leaves the longest rows' warps
// running alone (2-5x slower than cuSPARSE there); since the 2026-11-26 refit it goes to nnz_vsr
// (1.31-1.68x faster than cuSPARSE at K = 32-64, H100). Even rows of that count go to vdl
// (hep-th's 8361). Needs no device.
TEST(CudaSpmmSpecific, AutoKeepsVdlOffUnevenTransposes) {
  for (int k : {20, 32, 50, 64}) {
    KernelProblem kos = test::rule_problem(k, 6906, 51.1, 1.93);
    kos.sparse.row_max = 2123;
    kos.transposed = true;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, kos).name(), "cuda.spmm.nnz_vsr")
        << "K=" << k;
    KernelProblem even = test::rule_problem(k, 8361, 3.8, 1.14);
    even.transposed = true;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, even).name(), "cuda.spmm.vdl") << "K=" << k;
  }
}

// S·B on rows of under 5 nonzeros: vdl up to K = 16, where its lane groups widen on small grids
// (hep-th 1.21x, a uniform 100000 x 100000 matrix of rows of 3 2.9x cuSPARSE at K = 4, H200),
// cuSPARSE at 16 < K <= 64 below 100K nonzeros (hep-th, whose longest row is 13 means: 1.27x and
// 1.09x at K = 32 and 64; above K = 32 rows within 6 means go to row_csc, and larger matrices are
// AutoOnMediumMatricesOfVeryShortRows's). Needs no device.
TEST(CudaSpmmSpecific, AutoOnRowsOfUnderFiveNonzeros) {
  for (int k : {2, 4, 8, 16}) {
    EXPECT_STREQ(
        choose_spmm_variant(DeviceKind::kGpu, test::rule_problem(k, 8361, 3.8, 1.14)).name(),
        "cuda.spmm.vdl")
        << "hep-th, K=" << k;
    EXPECT_STREQ(
        choose_spmm_variant(DeviceKind::kGpu, test::rule_problem(k, 100000, 3.0, 0.58)).name(),
        "cuda.spmm.vdl")
        << "uniform, K=" << k;
  }
  for (int k : {32, 64}) {
    KernelProblem hep_th = test::rule_problem(k, 8361, 3.8, 1.14);
    hep_th.sparse.row_max = 50;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, hep_th).name(), "cuda.spmm.cusparse")
        << "hep-th, K=" << k;
  }
}

// S·x (K = 1) goes to vdl on up to 1M nonzeros and 200K rows whose longest row is within 16 means
// (cv <= 1.5, mean <= 128), not past any of those bounds and not for Sᵀ·x (H100, 2026-11-26,
// docs/benchmarks/checks/vdl-spmv-h100). Needs no device.
TEST(CudaSpmmSpecific, AutoOnSpmvOfBoundedRows) {
  auto pick = [](std::int64_t rows, double mean, double cv, std::int64_t row_max,
                 bool transposed = false) {
    KernelProblem p = test::rule_problem(1, rows, mean, cv);
    p.sparse.row_max = row_max;
    p.transposed = transposed;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  EXPECT_EQ(pick(8361, 3.77, 1.14, 50), "cuda.spmm.vdl");    // hep-th: 1.45x
  EXPECT_EQ(pick(3430, 103.8, 0.58, 485), "cuda.spmm.vdl");  // kos: 1.24x
  EXPECT_EQ(pick(200000, 4, 0.0, 4), "cuda.spmm.vdl");       // banded: 1.42x
  EXPECT_EQ(pick(8000, 112.5, 0.09, 155), "cuda.spmm.vdl");  // out of sample: 1.29x
  EXPECT_NE(pick(300000, 3, 0.58, 14), "cuda.spmm.vdl");     // rows: 0.98x
  EXPECT_NE(pick(1000000, 3, 0.58, 15), "cuda.spmm.vdl");    // 3M nonzeros: 0.91x
  EXPECT_NE(pick(50000, 10, 0.46, 179), "cuda.spmm.vdl");    // longest 18 means: 0.79x
  EXPECT_NE(pick(50000, 10, 1.37, 1122), "cuda.spmm.vdl");   // power law: 0.20x
  EXPECT_NE(pick(20000, 10, 1.6, 100), "cuda.spmm.vdl");     // cv past the bound
  // Sᵀ·x since values are read through (choose_transposed_narrow): hep-th's transpose 1.65x
  // cuSPARSE with vdl, H100.
  EXPECT_EQ(pick(8361, 3.77, 1.14, 50, /*transposed=*/true), "cuda.spmm.vdl");
}

// Sᵀ·B at K <= 4 on up to a million nonzeros (choose_transposed_narrow in kernels/select.cpp):
// vdl, but nnz_vsr where a long row would hold vdl's warps (H100, 2026-11-26,
// docs/benchmarks/checks/permuted-values; the row statistics of the matrices measured there).
// Needs no device.
TEST(CudaSpmmSpecific, AutoForTransposedProductAtSmallK) {
  struct Case {
    const char* what;
    std::int64_t rows;  // of Sᵀ
    double mean, cv;
    std::int64_t longest;
    const char* want;
  };
  const Case cases[] = {
      {"bcsstk13", 2003, 41.9, 0.54, 96, "cuda.spmm.vdl"},
      {"hep-th", 8361, 3.8, 1.14, 50, "cuda.spmm.vdl"},
      {"DLMC final_dense", 2048, 100, 0.31, 442, "cuda.spmm.vdl"},  // 4.4 means on 2048 rows
      {"DLMC 0.5 layer", 2304, 128, 0.10, 179, "cuda.spmm.vdl"},
      {"a 4096 x 102660 minibatch", 102660, 9.2, 0.33, 30, "cuda.spmm.vdl"},
      {"DLMC 256 rows of 102, longest 451", 256, 102.4, 0.39, 451, "cuda.spmm.nnz_vsr"},
      {"DLMC 512 rows of 205, longest 594", 512, 204.8, 0.24, 594, "cuda.spmm.nnz_vsr"},
      {"DLMC 512 rows of 205, longest 471 (2.3 means)", 512, 204.8, 0.16, 471, "cuda.spmm.vdl"},
      {"MovieLens 100K's items", 1682, 59.5, 1.35, 583, "cuda.spmm.nnz_vsr"},
      {"nips (skewed)", 12419, 60.3, 2.5, 1500, "cuda.spmm.nnz_vsr"},
  };
  for (const Case& c : cases) {
    for (int k : {1, 2, 4}) {
      KernelProblem p = test::rule_problem(k, c.rows, c.mean, c.cv);
      p.sparse.row_max = c.longest;
      p.transposed = true;
      EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, p).name(), c.want)
          << c.what << ", K=" << k;
    }
  }
  // Not S·B, not past a million nonzeros.
  KernelProblem p = test::rule_problem(1, 1682, 59.5, 1.35);
  p.sparse.row_max = 583;
  EXPECT_STRNE(choose_spmm_variant(DeviceKind::kGpu, p).name(), "cuda.spmm.nnz_vsr") << "S·B";
  KernelProblem large = test::rule_problem(1, 102660, 20, 0.33);
  large.sparse.row_max = 60;
  large.transposed = true;
  EXPECT_STRNE(choose_spmm_variant(DeviceKind::kGpu, large).name(), "cuda.spmm.vdl")
      << "2M nonzeros";
}

// MovieLens 100K (100,000 ratings; 943 users of mean 106, longest 737; 1682 items of mean 59, cv
// 1.35, longest 583): both sides' longest rows are 7-10 means, so nnz_vsr at every K > 1 since the
// 2026-11-26 refit (H100: 1.23-1.54x cuSPARSE for the users at K = 32-256, 1.25-2.33x for the
// items; cuSPARSE was the pick). At K = 1 vdl's lane groups tie cuSPARSE. Needs no device.
TEST(CudaSpmmSpecific, AutoOnMovieLens100k) {
  KernelProblem users = test::rule_problem(32, 943, 106.0, 0.95);
  users.sparse.row_max = 737;
  users.sparse.nnz = 100000;
  for (int k : {4, 32, 64, 128, 256}) {
    users.k = k;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, users).name(), "cuda.spmm.nnz_vsr")
        << "S·B K=" << k;
  }
  users.k = 1;  // since vdl's groups fill the GPU: a tie (1.00x), AutoOnSpmvOfBoundedRows' rule
  EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, users).name(), "cuda.spmm.vdl") << "S·B K=1";
  KernelProblem items = test::rule_problem(1, 1682, 59.5, 1.35);
  items.sparse.row_max = 583;
  items.sparse.nnz = 100000;
  items.transposed = true;
  for (int k : {4, 32, 64, 128, 512}) {
    items.k = k;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, items).name(), "cuda.spmm.nnz_vsr")
        << "Sᵀ·B K=" << k;
  }
}

// Dense-ish S goes to cuBLAS on a dense copy where that measured faster (H200): the DLMC 0.5 layer
// (256 x 2304) from K = 256 for S·B (row_split below that) and Sᵀ·B, a 4096 x 4096
// matrix at 30% from K = 128 (and K = 64 for Sᵀ·B), not the DLMC 0.8 layer (20%), and never when
// the copy would pass the variant's size limit. Needs no device.
TEST(CudaSpmmSpecific, AutoOnDenseIshMatrices) {
  auto problem = [](int k, bool transposed, std::int64_t rows, std::int64_t cols, double density) {
    KernelProblem p = test::rule_problem(k, transposed ? cols : rows,
                                         density * double(transposed ? rows : cols), 0.1);
    p.sparse.cols = transposed ? rows : cols;
    p.sparse.density = density;
    p.transposed = transposed;
    return p;
  };
  auto pick = [](const KernelProblem& p) {
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  // (K = 32-128 go to row_split first: AutoOnFewLongRows.)
  for (int k : {256, 512})
    EXPECT_EQ(pick(problem(k, false, 256, 2304, 0.5)), "cuda.spmm.dense") << k;
  for (int k : {1, 4}) EXPECT_NE(pick(problem(k, false, 256, 2304, 0.5)), "cuda.spmm.dense") << k;
  // Its transpose (2304 even rows of 128): choose_many_row_dense_transpose, below.
  KernelProblem layer05 = problem(256, true, 256, 2304, 0.5);
  layer05.sparse.row_max = 179;  // its transpose's rows are even (rule_problem's default: 4 means)
  EXPECT_EQ(pick(layer05), "cuda.spmm.dense");
  EXPECT_NE(pick(problem(32, true, 256, 2304, 0.5)), "cuda.spmm.dense");
  for (int k : {128, 512})
    EXPECT_EQ(pick(problem(k, false, 4096, 4096, 0.3)), "cuda.spmm.dense") << k;
  EXPECT_NE(pick(problem(64, false, 4096, 4096, 0.3)), "cuda.spmm.dense");
  EXPECT_EQ(pick(problem(64, true, 4096, 4096, 0.3)), "cuda.spmm.dense");
  EXPECT_EQ(pick(problem(128, true, 4096, 4096, 0.1)), "cuda.spmm.dense");
  for (bool t : {false, true})
    for (int k : {32, 128, 512})
      EXPECT_NE(pick(problem(k, t, 256, 2304, 0.2)), "cuda.spmm.dense") << k << t;
  EXPECT_NE(pick(problem(512, false, 16384, 16384, 0.5)), "cuda.spmm.dense");  // 2^28 entries
  // Sᵀ·B of the 0.9 DLMC layers (density just under 0.1): a 1024 x 256 layer's transpose has 256
  // rows of 102 (dense from K = 128 until row_split's small-transpose rule took it: 1.2-1.3x
  // faster), a 256 x 2304 layer's 2304 of 26 (never); final_dense's transpose has a row of 442,
  // 4.4x its mean (dense from K = 64 until its values were read through the permutation; nnz_vsr
  // since), bottleneck_2_block_group4_1_1's at most 204 (never).
  const double d09 = 0.0999;
  KernelProblem tall = problem(128, true, 1024, 256, d09);
  tall.sparse.row_max = 160;
  for (int k : {64, 128, 512}) {
    tall.k = k;
    EXPECT_EQ(pick(tall), "cuda.spmm.row_split") << k;
  }
  for (int k : {64, 256}) EXPECT_NE(pick(problem(k, true, 256, 2304, d09)), "cuda.spmm.dense") << k;
  KernelProblem final_dense = problem(64, true, 1000, 2048, d09);
  final_dense.sparse.row_max = 442;
  for (int k : {64, 128, 256, 512}) {  // (from K = 256 cuSPARSE on the cached transpose)
    final_dense.k = k;
    EXPECT_EQ(pick(final_dense), k >= 256 ? "cuda.spmm.cusparse_on_transpose" : "cuda.spmm.nnz_vsr")
        << k;
  }
  KernelProblem group4 = problem(128, true, 512, 4608, d09);
  group4.sparse.row_max = 204;
  EXPECT_NE(pick(group4), "cuda.spmm.dense");
}

// S·B at 256 < K <= 512 on 1000-8192 rows of mean <= 100 whose neighbouring rows share columns
// goes to row_csc (row_csc_local_rows_pays; H100, 2026-11-26, checks/local-rows-k512): bcsstk13
// and generated banded and clustered matrices. Not on uniform columns, few rows, K = 256 or 1024.
// Needs no device.
TEST(CudaSpmmSpecific, AutoRowCscOnLocalRowsAtWideK) {
  auto pick = [](int k, std::int64_t rows, double mean, double share) {
    KernelProblem p = test::rule_problem(k, rows, mean, 0.3);
    p.sparse.row_max = std::int64_t(2.3 * mean);
    p.sparse.neighbour_share = share;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  const std::string csc = "cuda.spmm.row_csc";
  EXPECT_EQ(pick(512, 2003, 41.9, 0.61), csc);  // bcsstk13
  EXPECT_EQ(pick(300, 6000, 50, 0.49), csc);    // banded
  EXPECT_EQ(pick(512, 4000, 50, 0.41), csc);    // clustered
  EXPECT_NE(pick(512, 4000, 50, 0.01), csc);    // uniform columns
  EXPECT_NE(pick(512, 512, 50, 0.5), csc);      // few rows
  EXPECT_NE(pick(256, 2003, 41.9, 0.61), csc);
  EXPECT_NE(pick(1024, 2003, 41.9, 0.61), csc);
}

// S·B at 128 < K <= 512 on 384-768 even rows of mean >= 450 and more than 4096 columns goes to
// row_split (row_split_wide_pays; H100, 2026-11-26, checks/row-split-wide): the DLMC 512 x 4608
// layers and generated matrices like them. Not on 4096 columns or fewer (B small enough for
// cuSPARSE), 256 or 1024 rows, or K = 1024. Needs no device.
TEST(CudaSpmmSpecific, AutoRowSplitOnFewLongRowsAtWideK) {
  auto pick = [](int k, std::int64_t rows, std::int64_t cols, double mean) {
    KernelProblem p = test::rule_problem(k, rows, mean, 0.15);
    p.sparse.cols = cols;
    p.sparse.density = mean / double(cols);
    p.sparse.row_max = std::int64_t(2 * mean);
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  const std::string split = "cuda.spmm.row_split";
  EXPECT_EQ(pick(256, 512, 4608, 460.8), split);  // DLMC 0.9 bottleneck_2_block_group4_2_1
  EXPECT_EQ(pick(512, 512, 4608, 460.8), split);
  EXPECT_EQ(pick(300, 700, 5000, 500), split);
  EXPECT_NE(pick(512, 512, 4096, 512), split);  // a clustered 512 x 4096 ran 0.67-0.79x cuSPARSE
  EXPECT_NE(pick(256, 640, 3000, 500), split);
  EXPECT_NE(pick(512, 256, 4608, 586), split);  // 256-row layers lose at K = 512
  EXPECT_NE(pick(512, 1024, 8192, 800), split);
  EXPECT_NE(pick(1024, 512, 4608, 460.8), split);
}

// Sᵀ·B at K = 29-32 on transposes of at most 1024 even rows of mean >= 50 goes to row_split
// (row_split_transposed_k32_pays; H100, 2026-11-26, checks/transposed-k32): DLMC 0.9 layers'
// transposes of 256-1024 rows of 102-205, and generated ones of 200-1000 rows. Not at K = 24 or
// 64, not on rows of 25 or on 1600 rows. Needs no device.
TEST(CudaSpmmSpecific, AutoRowSplitOnFewRowTransposesAtK32) {
  auto pick = [](int k, std::int64_t t_rows, double t_mean, std::int64_t s_rows) {
    return std::string(
        choose_spmm_variant(DeviceKind::kGpu,
                            test::transposed_rule_problem(k, t_rows, t_mean, s_rows, 1.3, 0.1))
            .name());
  };
  EXPECT_EQ(pick(32, 512, 204.8, 2048), "cuda.spmm.row_split");  // DLMC 0.9 group4_1_1
  EXPECT_EQ(pick(32, 256, 102.4, 1024), "cuda.spmm.row_split");  // DLMC 0.9 group3_1_1
  EXPECT_EQ(pick(32, 300, 400, 2000), "cuda.spmm.row_split");
  EXPECT_EQ(pick(30, 1000, 600, 6000), "cuda.spmm.row_split");
  EXPECT_NE(pick(24, 300, 400, 2000), "cuda.spmm.row_split");
  EXPECT_NE(pick(32, 512, 25.6, 5000), "cuda.spmm.row_split");
  EXPECT_NE(pick(32, 1600, 210, 700), "cuda.spmm.row_split");
}

// Sᵀ·B on transposes of more than 1024 even rows at 40% density and more, up to a million
// nonzeros (choose_many_row_dense_transpose; H100, 2026-11-26, checks/dense-ish-transposes): at
// K = 64 row_split up to 4500 rows, row_csc from it, dense on rows of 350 and more; at K = 128
// row_csc on rows shorter than 250, else dense; at K = 256 dense unless the rows are shorter than
// 110. Not on 1024 rows or fewer, below 40%, past a million nonzeros or at K = 32 and 512. Needs no
// device.
TEST(CudaSpmmSpecific, AutoOnManyRowDenseIshTransposes) {
  // S of s_rows x s_cols at this density: Sᵀ has s_cols rows of density x s_rows.
  auto pick = [](int k, std::int64_t s_rows, std::int64_t s_cols, double density) {
    return std::string(
        choose_spmm_variant(
            DeviceKind::kGpu,
            test::transposed_rule_problem(k, s_cols, density * double(s_rows), s_rows, 1.2, 0.05))
            .name());
  };
  // The DLMC 0.5 layer (256 x 2304) and generated ones of the second out-of-sample set.
  EXPECT_EQ(pick(64, 256, 2304, 0.5), "cuda.spmm.row_split");
  EXPECT_EQ(pick(128, 256, 2304, 0.5), "cuda.spmm.row_csc");
  EXPECT_EQ(pick(256, 256, 2304, 0.5), "cuda.spmm.dense");
  EXPECT_EQ(pick(64, 170, 5200, 0.5), "cuda.spmm.row_csc");  // 5200 rows of 85
  EXPECT_EQ(pick(256, 170, 5200, 0.5), "cuda.spmm.row_csc");
  EXPECT_EQ(pick(64, 750, 1300, 0.75), "cuda.spmm.dense");   // 1300 rows of 562
  EXPECT_EQ(pick(128, 640, 1400, 0.45), "cuda.spmm.dense");  // rows of 288
  EXPECT_EQ(pick(64, 640, 1400, 0.45), "cuda.spmm.row_split");
  // Outside it: 1024 rows, 30% density, K = 32 and 512.
  EXPECT_NE(pick(128, 400, 1024, 0.5), "cuda.spmm.row_csc");
  EXPECT_EQ(pick(128, 400, 1024, 0.5), "cuda.spmm.dense");
  EXPECT_NE(pick(64, 256, 2304, 0.3), "cuda.spmm.dense");
  EXPECT_NE(pick(32, 256, 2304, 0.5), "cuda.spmm.row_split");
  EXPECT_EQ(pick(512, 256, 2304, 0.5), "cuda.spmm.dense");
}

// Few long even rows go to row_split in S·B where it measured faster (H200, DLMC and generated):
// from K = 17 on rows of mean >= 600, above K = 64 from a mean of 400, above K = 128 only on
// 384-768 rows of more than 4096 columns (AutoRowSplitOnFewLongRowsAtWideK), never for skewed
// rows or more than 2048 rows; and for Sᵀ·B on transposes of up to 30000 rows of mean
// >= 500 from K = 32. Since its groups fill the GPU (H100), also every matrix of at most 1024 even
// rows of mean >= 40 at K = 32-128, and of at most 256 rows of mean <= 700 at K = 256. Needs no
// device.
TEST(CudaSpmmSpecific, AutoOnFewLongRows) {
  auto pick = [](int k, std::int64_t rows, double mean, double cv = 0.3, bool transposed = false) {
    KernelProblem p = test::rule_problem(k, rows, mean, cv);
    p.transposed = transposed;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  const std::string split = "cuda.spmm.row_split";
  EXPECT_EQ(pick(128, 512, 460.8), split);  // DLMC 512 x 4608 at 0.9 sparsity
  EXPECT_EQ(pick(64, 512, 460.8), split);   // (lost at 0.55-0.9x before its groups filled the GPU)
  EXPECT_EQ(pick(32, 1024, 40), split);
  EXPECT_NE(pick(32, 1025, 100), split);
  EXPECT_NE(pick(32, 512, 39), split);
  EXPECT_NE(pick(64, 943, 106, 0.95), split);  // MovieLens 100K's users: uneven, unmeasured
  EXPECT_EQ(pick(256, 256, 230), split);
  EXPECT_NE(pick(256, 256, 1152), split);  // DLMC 0.5 at K = 256: dense
  // Not above K = 128 on more rows: a rule for 384-768 rows of mean >= 450 lost out of sample.
  for (int k : {256, 512}) {
    EXPECT_NE(pick(k, 512, 460.8), split) << k;
    EXPECT_NE(pick(k, 640, 500), split) << k;
  }
  for (int k : {32, 64, 128}) EXPECT_EQ(pick(k, 256, 1152), split) << k;  // DLMC 0.5 layer
  EXPECT_EQ(pick(128, 1500, 499), split);                                 // nips
  EXPECT_EQ(pick(32, 1500, 700), "cuda.spmm.vdl");
  EXPECT_NE(pick(128, 1024, 500, 6.0), split);  // skewed rows
  EXPECT_NE(pick(128, 4096, 500), split);
  // Sᵀ·B on few rows: AutoRowSplitOnFewRowTransposesAtK32 and (K >= 64)
  // AutoRowSplitOnSmallTransposesOfFewRows.
  EXPECT_EQ(pick(32, 512, 460.8, 0.3, true), split);
  EXPECT_NE(pick(16, 256, 1152), split);
  // Sᵀ·B: the item x user transposes of netflix and ml-20m, not nytimes's 102660 words (at K = 32
  // all three run cuSPARSE on the cached transpose: AutoVendorOnLargeTransposesAtNarrowK).
  for (int k : {256, 512}) {
    EXPECT_EQ(pick(k, 17770, 5654.5, 0.97, true), split) << k;
    EXPECT_EQ(pick(k, 26744, 747.8, 1.58, true), split) << k;
    EXPECT_NE(pick(k, 102660, 673.0, 7.9, true), split) << k;
  }
  EXPECT_NE(pick(16, 17770, 5654.5, 0.97, true), split);
  // Even long transposes (generated, cv 0.02-0.17): vdl up to K = 64, row_csc above; a skewed one
  // (power-law columns, cv 5.2) kept row_split until cuSPARSE on the cached transpose took it.
  for (int k : {32, 64}) EXPECT_EQ(pick(k, 10000, 2000, 0.02, true), "cuda.spmm.vdl") << k;
  for (int k : {128, 256}) EXPECT_EQ(pick(k, 28000, 500, 0.17, true), "cuda.spmm.row_csc") << k;
  EXPECT_EQ(pick(64, 20000, 1000, 5.2, true), "cuda.spmm.cusparse_on_transpose");
  // Long even rows of a transpose with few rows: row_csc, not nnz_vsr (generated 3000 x 1500).
  for (int k : {128, 512}) EXPECT_EQ(pick(k, 1500, 300, 0.1, true), "cuda.spmm.row_csc") << k;
}

// Skewed rows (cv > 4) go to nnz_vsr on small matrices as on large ones: since its chunks shrink
// to fill the GPU it has no fixed cost that made cuSPARSE the pick below 250K nonzeros (H200,
// session 40: power-law matrices of 12K-99K nonzeros, nnz_vsr fastest on 111 of 112 problems, K =
// 1-256). The small case's longest row (4 means) keeps the medium-matrix rule (6 means) out of it.
// Needs no device.
TEST(CudaSpmmSpecific, AutoOnSkewedRowsBySize) {
  for (bool transposed : {false, true}) {
    for (int k : {1, 4, 32, 128, 256}) {
      KernelProblem small = test::rule_problem(k, 30000, 6.7, 20);
      small.transposed = transposed;
      EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, small).name(), "cuda.spmm.nnz_vsr") << k;
      KernelProblem smaller = test::rule_problem(k, 8000, 3.75, 12);
      smaller.transposed = transposed;
      EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, smaller).name(), "cuda.spmm.nnz_vsr") << k;
    }
    for (int k : {4, 32, 128}) {  // K = 1: AutoForSpmvOnSkewedRows
      KernelProblem large = test::rule_problem(k, 1000000, 20, 76);
      large.transposed = transposed;
      EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, large).name(), "cuda.spmm.nnz_vsr") << k;
    }
  }
}

// Small matrices (under 100K nonzeros) whose longest row is 15 means or more go to nnz_vsr at
// every K, S·B and Sᵀ·B, though their row cv stays under the skewed rule's 4 (H200, session 41:
// fourteen generated power-law matrices of longest 17-200 means, nnz_vsr within 10% of the best
// on 192 of 210 problems, the rules before 0.83x cuSPARSE on S·B). hep-th (longest 13 means) and an
// 80K power law of 13.5 means keep their picks. Row statistics as fk-bench --explain-auto gives
// them; needs no device.
TEST(CudaSpmmSpecific, AutoOnSmallMatricesOfFarLongestRows) {
  struct Shape {
    const char* name;
    std::int64_t rows;
    double mean, cv;
    std::int64_t longest;
  };
  const Shape far[] = {{"powerlaw 40000 rows, 99K, param 0.5", 40000, 2.475, 1.36, 248},
                       {"powerlaw 10000 rows, 50K, param 0.5", 10000, 5, 1.22, 252},
                       {"powerlaw 30000 rows, 90K, param 0.4", 30000, 3, 0.785, 112},
                       {"powerlaw 40000 rows, 99K, param 0.3", 40000, 2.475, 0.486, 41}};
  for (const Shape& m : far) {
    for (bool transposed : {false, true}) {
      for (int k : {1, 4, 16, 32, 64, 128, 256}) {
        KernelProblem p = test::rule_problem(k, m.rows, m.mean, m.cv);
        p.sparse.cols = m.rows;
        p.sparse.row_max = m.longest;
        p.transposed = transposed;
        EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, p).name(), "cuda.spmm.nnz_vsr")
            << m.name << (transposed ? " Sᵀ·B" : " S·B") << " K = " << k;
      }
    }
  }
  const Shape near[] = {{"hep-th", 8361, 3.768, 1.14, 49},
                        {"powerlaw 20000 rows, 80K, param 0.3", 20000, 4, 0.467, 54}};
  for (const Shape& m : near) {
    for (int k : {16, 32, 64}) {
      KernelProblem p = test::rule_problem(k, m.rows, m.mean, m.cv);
      p.sparse.cols = m.rows;
      p.sparse.row_max = m.longest;
      EXPECT_STRNE(choose_spmm_variant(DeviceKind::kGpu, p).name(), "cuda.spmm.nnz_vsr")
          << m.name << " K = " << k;
    }
  }
}

// Medium matrices, H200 session 41 (checks/session-41/medium.csv.gz), row statistics as
// fk-bench --explain-auto gives them; needs no device:
// * S·B of uneven rows of mean >= 20 on a million nonzeros or more: cuSPARSE at K = 16-64,
//   nnz_vsr outside it (power-law 50K x 20K of 1.5M);
// * Sᵀ·B at K = 1 on short rows of S (parts under 50) whose transpose has a cv over 0.5: not panel
//   (the same matrix, Sᵀ cv 1.24), though an even transpose (cv 0.26) keeps it;
// * Sᵀ·B at K <= 4 whose transposed longest row is 15 means or more, under 400: nnz_vsr, not vdl
//   (power-law 100K x 100K of 500K, Sᵀ longest 338 of mean 5);
// * Sᵀ·B at K = 32-64 on medium transposes: cuSPARSE on the cached transpose.
TEST(CudaSpmmSpecific, AutoOnMediumUnevenMatrices) {
  for (int k : {16, 32, 64, 128}) {
    KernelProblem p = test::rule_problem(k, 50000, 30, 1.37);
    p.sparse.cols = 20000;
    p.sparse.row_max = 3365;
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, p).name(),
                 k <= 64 ? "cuda.spmm.cusparse" : "cuda.spmm.nnz_vsr")
        << k;
  }
  const KernelProblem uneven = test::transposed_rule_problem(1, 20000, 75, 50000, 64.3, 1.24);
  EXPECT_STRNE(choose_spmm_variant(DeviceKind::kGpu, uneven).name(), "cuda.spmm.panel");
  const KernelProblem even = test::transposed_rule_problem(1, 5000, 400, 80000, 4.4, 0.26);
  EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, even).name(), "cuda.spmm.panel");
  // Parts of 5 lose whatever the cv (uniform 300K x 100K, Sᵀ cv 0.26).
  const KernelProblem short_parts = test::transposed_rule_problem(1, 100000, 15, 300000, 2.4, 0.26);
  EXPECT_STRNE(choose_spmm_variant(DeviceKind::kGpu, short_parts).name(), "cuda.spmm.panel");
  // Sᵀ·B at K = 32-64 on medium transposes (500K-4M nonzeros, >= 10000 rows of mean >= 12):
  // cuSPARSE on the cached transpose (power-law 400K x 30K of 2M), not at K = 16 or 128, nor on a
  // transpose of 5000 rows (power-law 80K x 5K of 2M, rows of 400).
  for (int k : {16, 32, 64, 128}) {
    const KernelProblem medium = test::transposed_rule_problem(k, 30000, 66.7, 400000, 37, 0.78);
    EXPECT_EQ(std::string(choose_spmm_variant(DeviceKind::kGpu, medium).name()) ==
                  "cuda.spmm.cusparse_on_transpose",
              k == 32 || k == 64)
        << k;
  }
  const KernelProblem few = test::transposed_rule_problem(32, 5000, 400, 80000, 4.4, 0.26);
  EXPECT_STRNE(choose_spmm_variant(DeviceKind::kGpu, few).name(), "cuda.spmm.cusparse_on_transpose");
  for (int k : {1, 4}) {
    const KernelProblem far = test::transposed_rule_problem(k, 100000, 5, 100000, 67.6, 0.92);
    EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, far).name(), "cuda.spmm.nnz_vsr") << k;
  }
}

// GPU `auto` for S·B at K = 32 on the report's matrices' row statistics: vdl's one-row-per-warp
// kernel on small matrices of long rows (but not below 1000 rows), cuSPARSE on the large ones,
// row_csc on short rows.
TEST(CudaSpmmSpecific, AutoForProductAtK32) {
  const PickCase cases[] = {
      {"nips", 1500, 499, 0.25, "cuda.spmm.vdl"},
      {"DLMC final_dense", 1000, 205, 0.17, "cuda.spmm.row_split"},
      {"DLMC 0.9 bottleneck_2_block_group4_2_1", 512, 461, 0.15, "cuda.spmm.row_split"},
      {"bcsstk13", 2003, 42, 0.54, "cuda.spmm.vdl"},
      {"nytimes", 300000, 230, 0.5, "cuda.spmm.cusparse"},
      {"ml-20m", 138493, 144, 0.5, "cuda.spmm.cusparse"},
      {"banded", 1000000, 20, 0.5, "cuda.spmm.row_csc"}};
  expect_picks(32, false, cases);
}

// GPU `auto` at K = 1: cuSPARSE's SpMV, skewed rows included, except for a skewed Sᵀ·B, where
// nnz_vsr wins (the generated power-law matrix: row cv 76).
TEST(CudaSpmmSpecific, AutoForSpmvOnSkewedRows) {
  KernelProblem p;
  p.k = 1;
  p.sparse.rows = 1000000;
  p.sparse.cols = 1000000;
  p.sparse.nnz = 20000000;
  p.sparse.row_mean = 20;
  p.sparse.row_cv = 76;
  p.sparse.row_max = 200000;
  EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, p).name(), "cuda.spmm.cusparse");
  p.transposed = true;
  EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, p).name(), "cuda.spmm.nnz_vsr");
  p.sparse.row_cv = 0.5;
  EXPECT_STREQ(choose_spmm_variant(DeviceKind::kGpu, p).name(), "cuda.spmm.cusparse");
}

// Rectangular, unsorted columns, a third of the rows empty, power-law lengths, and two rows long
// enough (6000 and 15000 > 4096) to be split across blocks; B rows far apart (20000 columns).
TEST(CudaSpmmSpecific, EveryWidthOnSkewedRows) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  const HostCsr s = test::random_pattern(1200, 20000, rng, [&](std::int64_t r) -> std::int64_t {
    if (r == 100) return 15000;
    if (r == 901) return 6000;
    if (rng.uniform() < 0.33) return 0;
    return std::int64_t(1 + 3.0 / std::pow(std::max(rng.uniform(), 1e-3), 0.8));
  });
  EXPECT_GT(check_all("skewed 1200x20000", s, kAllWidths, rng, seed), 0);
}

// Row lengths around nnz_vsr's 512-nonzero chunks (rows ending on, before and after a boundary,
// rows spanning several chunks) and around a warp. 600 rows of mean ~350 also take vdl's
// few-long-rows shape at K = 31, 32, 33 (two 32-nonzero chunks per step; scalar and float4).
TEST(CudaSpmmSpecific, RowsAcrossChunkBoundaries) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  const std::vector<std::int64_t> lens = {512, 511,  1, 513, 0, 1024, 31, 33,
                                          32,  1500, 0, 0,   2, 2049, 7};
  const HostCsr s = test::random_pattern(600, 3000, rng, [&](std::int64_t r) {
    return r < std::int64_t(lens.size()) ? lens[r] : std::int64_t(rng.below(700));
  });
  EXPECT_GT(check_all("chunk boundaries", s, {1, 3, 4, 31, 32, 33, 128, 256}, rng, seed), 0);
}

// row_csc's two ways of covering K > 256 (kernels/cuda/spmm_row_csc.cu), as an H100 or H200 (132
// SMs) takes them: 600 and 4000 rows, one block column per K tile; 12000 rows, a group running
// its row's tiles back to back. Every variant is checked (check_all), at K with a tail tile and
// with whole tiles.
TEST(CudaSpmmSpecific, RowCscTilePathsByRowCount) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  for (std::int64_t rows : {600, 4000, 12000}) {
    const HostCsr s = test::random_pattern(rows, 700, rng, [&](std::int64_t r) {
      return r % 97 == 5 ? std::int64_t(0) : std::int64_t(1 + rng.below(rows == 600 ? 200 : 40));
    });
    EXPECT_GT(check_all(std::to_string(rows) + " rows", s, {260, 512}, rng, seed,
                        /*both_ops=*/false),
              0);
  }
}

// vdl's team kernel (K <= 4 on fewer than 4096 rows of mean >= 64): row means that give 32, 64,
// 128 and 256 lanes per row, 37 rows (a block's last team idle), an empty row, rows longer than
// one step of a team, a row above LongRows' threshold, and operands off 16-byte alignment.
TEST(CudaSpmmSpecific, TeamsOfLanesOnFewLongRows) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  Context ctx(DeviceKind::kGpu);
  for (std::int64_t mean : {100, 400, 900, 2000}) {
    const HostCsr s = test::random_pattern(37, 6000, rng, [&](std::int64_t r) -> std::int64_t {
      if (r == 3) return 0;
      if (r == 7 && mean == 100) return 5000;  // LongRows: above max(4096, 8 x mean)
      return mean / 2 + std::int64_t(rng.below(std::uint64_t(mean)));
    });
    for (int k : {1, 2, 3, 4}) {
      for (int offset : {0, 1, 2}) {
        SCOPED_TRACE("mean " + std::to_string(mean) + " K=" + std::to_string(k) + " offset " +
                     std::to_string(offset) + " (replay: FK_TEST_SEED=" + std::to_string(seed) +
                     ")");
        GpuCase g(ctx, s, k, Op::kNoTrans, "cuda.spmm.vdl");
        const HostDense<float> b = random_matrix(s.cols, k, rng);
        const std::vector<float> vals = test::random_dense(s.nnz(), rng);
        EXPECT_EQ(compare(g.run(&vals, b, offset), host_spmm(s, vals, b, Op::kNoTrans), k), "");
      }
    }
  }
}

// Sᵀ·B whose B outgrows L2 on transposes of very long uneven rows goes to nnz_vsr (which the plan
// slices): netflix's transpose from K = 64, not at K = 32 (row_split 1.31x faster on the H200),
// not ml-20m's shorter rows, even rows only from K = 256 on many rows, not past 64 slices. Needs
// no device.
TEST(CudaSpmmSpecific, AutoSlicedTransposedProduct) {
  auto pick = [](int k, std::int64_t rows, double mean, double cv, std::int64_t cols) {
    KernelProblem p = test::rule_problem(k, rows, mean, cv);
    p.transposed = true;
    p.sparse.cols = cols;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  for (int k : {128, 256, 512})
    EXPECT_EQ(pick(k, 17770, 5655, 0.97, 480189), "cuda.spmm.nnz_vsr") << k;
  // (At K = 64: cuSPARSE on the cached transpose, AutoVendorOnLargeTransposesAtNarrowK.)
  EXPECT_EQ(pick(64, 17770, 5655, 0.97, 480189), "cuda.spmm.cusparse_on_transpose");
  EXPECT_NE(pick(32, 17770, 5655, 0.97, 480189), "cuda.spmm.nnz_vsr");
  // ml-20m's transpose (rows of 748) from K = 128, where its B (138493 x K) outgrows L2.
  for (int k : {128, 256, 512})
    EXPECT_EQ(pick(k, 26744, 748, 1.58, 138493), "cuda.spmm.nnz_vsr") << k;
  EXPECT_NE(pick(64, 26744, 748, 1.58, 138493), "cuda.spmm.nnz_vsr");
  EXPECT_NE(pick(256, 26744, 500, 1.58, 138493), "cuda.spmm.nnz_vsr");  // rows too short
  EXPECT_NE(pick(128, 17770, 5655, 0.97, 60000), "cuda.spmm.nnz_vsr");  // B fits in L2
  // Even transposes keep row_csc below K = 256 (out of sample: uniform 2M x 20000, 1.56x against
  // 1.19x) and on fewer than 10000 rows; from K = 256 on 10000 rows or more, sliced nnz_vsr
  // (checks/sliced-even-transposes: 1.10-1.43x row_csc held out), unless past 64 slices.
  EXPECT_EQ(pick(128, 20000, 3000, 0.02, 2000000), "cuda.spmm.row_csc");
  for (int k : {256, 512}) {
    EXPECT_EQ(pick(k, 30000, 1333, 0.03, 400000), "cuda.spmm.nnz_vsr") << "uniform 400K, K=" << k;
    EXPECT_EQ(pick(k, 8000, 1500, 0.03, 150000), "cuda.spmm.row_csc") << "8000 rows, K=" << k;
  }
  EXPECT_EQ(pick(512, 25000, 1000, 0.03, 800000), "cuda.spmm.row_csc") << "98 slices";
  // More than 64 slices (netflix at K = 2048: B of 3.9 GB, 235 slices): not sliced nnz_vsr.
  EXPECT_NE(pick(2048, 17770, 5655, 0.97, 480189), "cuda.spmm.nnz_vsr");
  // The slices follow the device's L2 as the plan's do (50 MiB when not known): netflix's B at
  // K = 128 (246 MB) fits a 512 MiB L2 whole, so the plan would not slice; on a 4 MiB L2
  // netflix's K = 256 needs more than 64 slices.
  auto pick_on = [&](std::int64_t l2, int k) {
    KernelProblem p = test::rule_problem(k, 17770, 5655, 0.97);
    p.transposed = true;
    p.sparse.cols = 480189;
    p.gpu_l2_bytes = l2;
    return std::string(choose_spmm_variant(DeviceKind::kGpu, p).name());
  };
  EXPECT_EQ(pick_on(std::int64_t(50) << 20, 128), "cuda.spmm.nnz_vsr");
  EXPECT_NE(pick_on(std::int64_t(512) << 20, 128), "cuda.spmm.nnz_vsr");
  EXPECT_EQ(pick_on(std::int64_t(50) << 20, 256), "cuda.spmm.nnz_vsr");
  EXPECT_NE(pick_on(std::int64_t(4) << 20, 256), "cuda.spmm.nnz_vsr");
}

// Sᵀ·B through row slices of S (kernels/registry.cpp, SlicedTransposePlan), forced on a small
// matrix by a tiny slice budget: one slice, a few, one row per slice (K = 64: 256-byte B rows in a
// 200-byte budget), empty rows (empty slices among them), run-time and S's own values, a second run
// into the same C, and every variant that runs on the cached transpose. Needs a device.
TEST(CudaSpmmSpecific, SlicedTransposedProduct) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  HostCsr s = test::random_pattern(700, 300, rng, [&](std::int64_t r) -> std::int64_t {
    if (r >= 100 && r < 140) return 0;  // slices with no nonzeros at the smallest budgets
    return std::int64_t(rng.below(60));
  });
  s.vals = test::random_dense(s.nnz(), rng);
  for (std::int64_t budget : {std::int64_t(1) << 30, std::int64_t(4000), std::int64_t(200)}) {
    Context ctx(DeviceKind::kGpu);
    ctx.set_transposed_slice_bytes(budget);
    for (int k : {1, 4, 33, 64}) {
      const HostDense<float> b = random_matrix(s.rows, k, rng);
      const std::vector<float> v1 = test::random_dense(s.nnz(), rng),
                               v2 = test::random_dense(s.nnz(), rng);
      const Expected e1 = host_spmm(s, v1, b, Op::kTrans), e2 = host_spmm(s, v2, b, Op::kTrans);
      const Expected eown = host_spmm(s, s.vals, b, Op::kTrans);
      for (const std::string v : {"auto", "cuda.spmm.vdl", "cuda.spmm.row_csc", "cuda.spmm.nnz_vsr",
                                  "cuda.spmm.row_split"}) {
        if (v != "auto" && !applies(v, s, k, Op::kTrans)) continue;
        SCOPED_TRACE(v + " budget " + std::to_string(budget) + " K=" + std::to_string(k) +
                     " (replay: FK_TEST_SEED=" + std::to_string(seed) + ")");
        GpuCase g(ctx, s, k, Op::kTrans, v);
        EXPECT_EQ(compare(g.run(&v1, b), e1, k), "") << "run-time values";
        EXPECT_EQ(compare(g.run(nullptr, b), eown, k), "") << "own values";
        EXPECT_EQ(compare(g.run_twice(v1, v2, b), e2, k), "") << "second run into the same C";
      }
    }
  }
}

// `auto` runs a K that is not a multiple of 4 at the next multiple of 4, on zero-padded copies of
// the dense operands, for SDDMM and for Sᵀ·B below K = 128 where nonzeros x K >= 1e7 (kernels/
// select.cpp; H100, docs/benchmarks/checks/odd-k); never for S·B, on the CPU or at low precision.
// Needs no device.
TEST(CudaSpmmSpecific, AutoWidth) {
  KernelProblem p = test::rule_problem(50, 3430, 103);  // kos: 353K nonzeros
  EXPECT_EQ(auto_sddmm_width(DeviceKind::kGpu, p), 52);
  EXPECT_EQ(auto_spmm_width(DeviceKind::kGpu, p), 50);  // S·B
  p.transposed = true;
  EXPECT_EQ(auto_spmm_width(DeviceKind::kGpu, p), 52);
  p.k = 257;
  EXPECT_EQ(auto_sddmm_width(DeviceKind::kGpu, p), 260);
  EXPECT_EQ(auto_spmm_width(DeviceKind::kGpu, p), 257);
  for (int k : {1, 3, 4, 52, 64, 256}) {
    p.k = k;
    EXPECT_EQ(auto_sddmm_width(DeviceKind::kGpu, p), k) << k;
    EXPECT_EQ(auto_spmm_width(DeviceKind::kGpu, p), k) << k;
  }
  p.k = 50;
  EXPECT_EQ(auto_sddmm_width(DeviceKind::kCpu, p), 50);
  EXPECT_EQ(auto_spmm_width(DeviceKind::kCpu, p), 50);
  p.precision = Precision::kBF16;  // the tensor-core variants handle any K themselves
  EXPECT_EQ(auto_sddmm_width(DeviceKind::kGpu, p), 50);
  KernelProblem ml100k = test::rule_problem(50, 943, 106);  // 100K x 50: under the bound
  EXPECT_EQ(auto_sddmm_width(DeviceKind::kGpu, ml100k), 50);
}

// The padded Sᵀ·B plan on a device: K = 49-51, 65 through `auto` matches the reference on
// NaN-poisoned C, with run-time and S's own values, misaligned operands and a second run into the
// same C; S·B and a named variant are not padded. Needs a device.
TEST(CudaSpmmSpecific, AutoPadsOddWidths) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  HostCsr s = test::random_pattern(3000, 1500, rng,
                                   [&](std::int64_t) { return std::int64_t(40 + rng.below(120)); });
  s.vals = test::random_dense(s.nnz(), rng);
  Context ctx(DeviceKind::kGpu);
  for (Op op : {Op::kNoTrans, Op::kTrans}) {
    for (int k : {49, 50, 51, 65}) {
      SCOPED_TRACE(std::string(op == Op::kNoTrans ? "S·B" : "Sᵀ·B") + " K=" + std::to_string(k) +
                   " (replay: FK_TEST_SEED=" + std::to_string(seed) + ")");
      const std::int64_t in_rows = op == Op::kNoTrans ? s.cols : s.rows;
      const HostDense<float> b = random_matrix(in_rows, k, rng);
      const std::vector<float> v1 = test::random_dense(s.nnz(), rng),
                               v2 = test::random_dense(s.nnz(), rng);
      GpuCase g(ctx, s, k, op, "auto");
      EXPECT_EQ(g.width(), op == Op::kTrans ? (k + 3) / 4 * 4 : k);
      EXPECT_EQ(compare(g.run(&v1, b), host_spmm(s, v1, b, op), k), "") << "run-time values";
      EXPECT_EQ(compare(g.run(nullptr, b), host_spmm(s, s.vals, b, op), k), "") << "own values";
      EXPECT_EQ(compare(g.run(&v1, b, 1), host_spmm(s, v1, b, op), k), "") << "misaligned";
      EXPECT_EQ(compare(g.run_twice(v1, v2, b), host_spmm(s, v2, b, op), k), "") << "second run";
      EXPECT_EQ(GpuCase(ctx, s, k, op, "cuda.spmm.nnz_vsr").width(), k);
    }
  }
}

// Zipf-distributed columns: many columns repeat within a row panel, so ASpT stages them in shared
// memory; K spans one slice, several slices with a tail, and the scalar slice path (K = 6, 36).
TEST(CudaSpmmSpecific, ZipfColumnsFillAsptTiles) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  const std::int64_t rows = 5000, cols = 4000;
  std::vector<double> w(cols);
  for (std::int64_t c = 0; c < cols; ++c) w[c] = 1.0 / double(c + 1);
  const AliasTable zipf(w);
  HostCsr s;
  s.rows = rows;
  s.cols = cols;
  std::vector<char> seen(cols, 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t len = 10 + std::int64_t(rng.below(80));
    std::vector<std::int32_t> picked;
    while (std::int64_t(picked.size()) < len) {
      const auto c = static_cast<std::int32_t>(zipf.sample(rng));
      if (!seen[c]) seen[c] = 1, picked.push_back(c);
    }
    for (auto c : picked) {
      seen[c] = 0;
      s.col_idx.push_back(c);
      s.vals.push_back(static_cast<float>(rng.uniform(-1, 1)));
    }
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  EXPECT_GT(check_all("zipf 5000x4000", s, {1, 4, 6, 32, 36, 64, 256}, rng, seed), 0);
}

// One row of 600,000 nonzeros among 3000 short rows over 700,000 columns.
HostCsr giant_row_pattern(Rng& rng) {
  return test::random_pattern(3000, 700000, rng, [&](std::int64_t r) {
    return r == 1777 ? std::int64_t(600000) : std::int64_t(rng.below(20));
  });
}

// The giant row is split into ~300 segments across blocks (float4 and scalar lanes, one and two
// K tiles).
TEST(CudaSpmmSpecific, GiantRow) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  const HostCsr s = giant_row_pattern(rng);
  EXPECT_GT(check_all("giant row", s, {1, 8, 33, 64}, rng, seed, /*both_ops=*/false), 0);
}

// The same shape transposed: its column of 600,000 nonzeros is a giant row of Sᵀ·B's cached
// transpose, which LongRows computes with S's values read through the permutation
// (SpmmPlan::run_permuted) by the variants that read them so.
TEST(CudaSpmmSpecific, GiantColumn) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  const HostCsr s = transpose(giant_row_pattern(rng).view());
  EXPECT_GT(check_all("giant column", s, {1, 8, 33, 64}, rng, seed), 0);
}

// SpmmPlan::run_permuted, which Sᵀ·B's cached transpose calls instead of gathering S's values
// into Sᵀ's order: with entry j's value read as vals[perm[j]] a plan must compute what run()
// computes on the gathered values, long rows (LongRows) included, for every K mapping.
TEST(CudaSpmmSpecific, RunPermutedEqualsRunOnGatheredValues) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  Context ctx(DeviceKind::kGpu);
  const HostCsr s = test::random_pattern(2000, 9000, rng, [&](std::int64_t r) {
    return r == 3 ? std::int64_t(8000) : std::int64_t(rng.below(60));  // row 3: LongRows
  });
  const std::int64_t nnz = s.nnz();
  std::vector<std::int32_t> perm(static_cast<std::size_t>(nnz));
  std::iota(perm.begin(), perm.end(), 0);
  for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
  const std::vector<float> vals = test::random_dense(nnz, rng);
  std::vector<float> gathered(vals.size());
  for (std::size_t j = 0; j < gathered.size(); ++j)
    gathered[j] = vals[static_cast<std::size_t>(perm[j])];
  const DeviceCsr ds(s);
  const DeviceBuffer<float> dv(vals), dg(gathered);
  const DeviceBuffer<std::int32_t> dp(perm);
  std::set<std::string> offered;
  for (int k : {1, 4, 8, 17, 32, 64, 128, 300}) {
    const HostDense<float> b = random_matrix(s.cols, k, rng);
    const Expected e = host_spmm(s, gathered, b, Op::kNoTrans);
    DeviceBuffer<float> db(s.cols * k), dc(s.rows * k);
    db.upload(b.data(), b.size());
    const DenseView<const float> vb{db.data(), s.cols, k};
    const DenseView<float> vc{dc.data(), s.rows, k};
    for (const std::string& v : kCudaSpmm) {
      if (!applies(v, s, k, Op::kNoTrans)) continue;
      SCOPED_TRACE(v + ", K=" + std::to_string(k) +
                   " (replay: FK_TEST_SEED=" + std::to_string(seed) + ")");
      const std::unique_ptr<SpmmPlan> plan = find_spmm_variant(v).prepare(ctx, ds.view(), k);
      dc.fill_bytes(0xff);  // NaN
      plan->run(ctx, dg.data(), vb, vc);
      ctx.synchronize();
      EXPECT_EQ(compare(dc.to_host(), e, k), "") << "run() on the gathered values";
      dc.fill_bytes(0xff);
      if (!plan->run_permuted(ctx, dv.data(), dp.data(), vb, vc)) continue;
      ctx.synchronize();
      EXPECT_EQ(compare(dc.to_host(), e, k), "") << "run_permuted()";
      offered.insert(v);
    }
  }
  // The variants whose kernels read values through the permutation (the rest gather first).
  EXPECT_EQ(offered, (std::set<std::string>{"cuda.spmm.nnz_vsr", "cuda.spmm.row_csc",
                                            "cuda.spmm.row_split", "cuda.spmm.vdl"}));
}

// cuda.spmm.panel cuts S's columns into panels that fit in shared memory: 120,000 columns make 3
// panels at K = 1 and 9 at K = 4. Rows sorted (each launch reads its part of a row, found in
// prepare) and the same rows shuffled (each launch reads whole rows and skips the other panels'
// columns); empty rows, rows that cross every panel boundary, and rows long enough for the
// long-row paths (LongRows for S·B, block chunks for Sᵀ·B).
TEST(CudaSpmmSpecific, PanelsOfTheDenseSide) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  HostCsr s = test::random_pattern(2000, 120000, rng, [&](std::int64_t r) -> std::int64_t {
    if (r == 10 || r == 1500) return 30000;  // long rows
    if (r % 5 == 0) return 0;
    return std::int64_t(rng.below(400));
  });
  FK_CHECK(
      find_spmm_variant("cuda.spmm.panel").why_not(KernelProblem{features(s.view()), 4}).empty(),
      "the test matrix should take 9 panels at K = 4");
  EXPECT_GT(check_all("panels, unsorted rows", s, {1, 2, 3, 4}, rng, seed), 0);
  for (std::int64_t r = 0; r < s.rows; ++r) {
    std::vector<std::pair<std::int32_t, float>> row;
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j)
      row.emplace_back(s.col_idx[j], s.vals[j]);
    std::sort(row.begin(), row.end());
    for (std::size_t i = 0; i < row.size(); ++i)
      s.col_idx[s.row_ptr[r] + i] = row[i].first, s.vals[s.row_ptr[r] + i] = row[i].second;
  }
  EXPECT_GT(check_all("panels, sorted rows", s, {1, 2, 3, 4}, rng, seed), 0);
  // Values not 16-byte aligned: single loads instead of 16-byte ones.
  Context ctx(DeviceKind::kGpu);
  for (Op op : {Op::kNoTrans, Op::kTrans}) {
    GpuCase g(ctx, s, 3, op, "cuda.spmm.panel");
    const HostDense<float> b = random_matrix(g.in_rows(), 3, rng);
    const std::vector<float> vals = test::random_dense(s.nnz(), rng);
    EXPECT_EQ(compare(g.run(&vals, b, 1), host_spmm(s, vals, b, op), 3), "")
        << (op == Op::kTrans ? "Sᵀ·B" : "S·B");
  }
  // A later plan with small panels must not shrink the shared memory an earlier one launches with.
  GpuCase big(ctx, s, 1, Op::kTrans, "cuda.spmm.panel");
  const HostCsr small =
      test::random_pattern(50, 100, rng, [&](std::int64_t) { return std::int64_t(rng.below(20)); });
  GpuCase tiny(ctx, small, 1, Op::kTrans, "cuda.spmm.panel");
  const HostDense<float> b = random_matrix(big.in_rows(), 1, rng);
  const std::vector<float> vals = test::random_dense(s.nnz(), rng);
  EXPECT_EQ(compare(big.run(&vals, b), host_spmm(s, vals, b, Op::kTrans), 1), "")
      << "after a smaller plan";
}

// A (row, column) stored more than once counts once per copy, as in the sum that defines S·B
// (the readers refuse such files, but plans are also built from arrays): dense's scatter must add
// the copies, not keep the last.
TEST(CudaSpmmSpecific, RepeatedEntries) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  HostCsr s;
  s.rows = 60;
  s.cols = 45;
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const std::int64_t len =
        r % 7 == 3 ? 0 : 1 + std::int64_t(rng.below(80));  // more than cols: repeats
    for (std::int64_t j = 0; j < len; ++j)
      s.col_idx.push_back(static_cast<std::int32_t>(rng.below(s.cols)));
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  EXPECT_GT(check_all("repeated entries", s, {1, 4, 33, 64}, rng, seed), 0);
}

// A context that shares plan choices (the apps' training contexts) times cuSPARSE's algorithms once
// per shape class: a second plan on an alike matrix (same shape, other columns) reuses the pick
// and still computes its own product; without sharing nothing is kept.
TEST(CudaSpmmSpecific, CusparsePlansShareAlgorithmPicksWhenAsked) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  auto alike = [&](std::int64_t shift) {
    return test::regular_pattern(3000, 2000, 24, [&](std::int64_t r, std::int64_t j) {
      return (r * 5 + j * 83 + shift) % 2000;
    });
  };
  const HostCsr s1 = alike(0), s2 = alike(7);
  const HostDense<float> b = random_matrix(2000, 32, rng);
  const std::vector<float> vals = test::random_dense(s1.nnz(), rng);
  for (bool share : {false, true}) {
    Context ctx(DeviceKind::kGpu);
    ctx.set_share_plan_choices(share);
    GpuCase first(ctx, s1, 32, Op::kNoTrans, "cuda.spmm.cusparse");
    EXPECT_EQ(ctx.gpu().plan_choices.size(), share ? 1u : 0u);
    GpuCase second(ctx, s2, 32, Op::kNoTrans, "cuda.spmm.cusparse");
    EXPECT_EQ(ctx.gpu().plan_choices.size(), share ? 1u : 0u);
    EXPECT_EQ(compare(second.run(&vals, b), host_spmm(s2, vals, b, Op::kNoTrans), 32), "") << share;
    EXPECT_EQ(compare(first.run(&vals, b), host_spmm(s1, vals, b, Op::kNoTrans), 32), "") << share;
  }
}

// B, C and the values placed 4 bytes (and 8 bytes) into their buffers: the float4 paths must fall
// back.
TEST(CudaSpmmSpecific, MisalignedDenseOperands) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  const HostCsr s = test::random_pattern(700, 900, rng, [&](std::int64_t r) {
    return r == 5 ? std::int64_t(5000) : std::int64_t(rng.below(40));
  });
  Context ctx(DeviceKind::kGpu);
  for (const std::string& v : kCudaSpmm) {
    for (int k : {4, 8, 12, 32, 256}) {
      for (int offset : {1, 2}) {
        for (Op op : {Op::kNoTrans, Op::kTrans}) {
          if (!applies(v, s, k, op)) continue;
          SCOPED_TRACE(v + " K=" + std::to_string(k) + " offset " + std::to_string(offset) +
                       " (replay: FK_TEST_SEED=" + std::to_string(seed) + ")");
          GpuCase g(ctx, s, k, op, v);
          const HostDense<float> b = random_matrix(g.in_rows(), k, rng);
          const std::vector<float> vals = test::random_dense(s.nnz(), rng);
          EXPECT_EQ(compare(g.run(&vals, b, offset), host_spmm(s, vals, b, op), k), "");
        }
      }
    }
  }
}

// No rows, no columns, no nonzeros: C (if any) must come out all zeros.
TEST(CudaSpmmSpecific, DegenerateShapes) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  Rng rng(7);
  std::vector<HostCsr> cases;
  {
    HostCsr s;  // 0 x 5
    s.cols = 5;
    cases.push_back(s);
  }
  {
    HostCsr s;  // 6 x 0
    s.rows = 6;
    s.row_ptr.assign(7, 0);
    cases.push_back(s);
  }
  {
    HostCsr s;  // 40 x 30, nnz = 0
    s.rows = 40;
    s.cols = 30;
    s.row_ptr.assign(41, 0);
    cases.push_back(s);
  }
  for (const HostCsr& s : cases) {
    for (const std::string& v : kCudaSpmm) {
      for (int k : {1, 4, 33}) {
        for (Op op : {Op::kNoTrans, Op::kTrans}) {
          if (!applies(v, s, k, op)) continue;
          SCOPED_TRACE(v + " on " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                       " K=" + std::to_string(k));
          GpuCase g(ctx, s, k, op, v);
          const HostDense<float> b = random_matrix(g.in_rows(), k, rng);
          const std::vector<float> none;
          const std::vector<float> c = g.run(&none, b);
          EXPECT_EQ(c, std::vector<float>(static_cast<std::size_t>(g.out_rows() * k), 0.0f));
        }
      }
    }
  }
}

// More than 2^31 nonzeros (64-bit positions everywhere, 64-bit cuSPARSE indices). Opt-in: up to
// ~40 GB of device memory (cuSPARSE's widened columns) and ~40 GB of host memory. K = 1 and 4; a
// sample of rows is checked.
TEST(CudaSpmmSpecific, MoreThanTwoBillionNonzeros) {
  FK_REQUIRE_GPU();
  if (!std::getenv("FK_TEST_HUGE"))
    GTEST_SKIP() << "set FK_TEST_HUGE=1 (needs ~40 GB of GPU memory)";
  const std::uint64_t seed = test_seed();
  Rng rng(seed);
  // 2^20 rows of 2049 nonzeros (short enough for the row kernels' own path): nnz = 2^31 + 2^20;
  // each row's columns are an arithmetic sequence shifted by the row.
  const std::int64_t len = 2049, cols = 1 << 16;
  HostCsr s = test::regular_pattern(
      1 << 20, cols, len, [&](std::int64_t r, std::int64_t j) { return (r * 7 + j * 2) % cols; });
  s.vals.resize(s.col_idx.size());
#pragma omp parallel for
  for (std::int64_t r = 0; r < s.rows; ++r)
    for (std::int64_t j = 0; j < len; ++j) s.vals[r * len + j] = float(((r + j) % 13) - 6) / 8.0f;
  ASSERT_GT(s.nnz(), std::int64_t(INT32_MAX));
  Context ctx(DeviceKind::kGpu);
  for (const std::string& v : kCudaSpmm) {
    for (int k : {1, 4}) {
      if (!applies(v, s, k, Op::kNoTrans)) continue;
      SCOPED_TRACE(v + " K=" + std::to_string(k));
      HostDense<float> b = random_matrix(s.cols, k, rng);
      std::vector<float> c;
      {
        GpuCase g(ctx, s, k, Op::kNoTrans, v);
        c = g.run(nullptr, b);
      }
      for (std::int64_t r :
           {std::int64_t(0), std::int64_t(1), std::int64_t(s.rows / 2), s.rows - 1}) {
        for (int t = 0; t < k; ++t) {
          double want = 0, bound = 0;
          for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
            want += double(s.vals[j]) * b(s.col_idx[j], t);
            bound += std::fabs(double(s.vals[j]) * b(s.col_idx[j], t));
          }
          EXPECT_NEAR(c[r * k + t], want, 1e-4 * bound + 1e-6) << "row " << r;
        }
      }
    }
  }
}

}  // namespace
}  // namespace fk

#endif  // FK_WITH_CUDA
