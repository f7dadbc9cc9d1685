// The tensor-core variants (kernels/cuda/spmm_tc_vector.cu, sddmm_tc_vector.cu) and their raw
// kernels (kernels/cuda/tc_vector.hpp), against a double-precision host loop.
//
// Two checks per output, both relative to bound = sum_t |x_t y_t| (the sum may cancel to ~0):
//  * on the inputs rounded to the operand precision the kernel computes exact products summed in
//    fp32 (tensor cores truncate slightly in the sum): |got - want_rounded| <= 1e-4 x bound. A
//    wrong index or a lost vector misses by O(bound), so this is the test of the indexing.
//  * against the fp32 inputs, the half-precision tolerance: 1e-2 x bound for bf16 (8-bit
//    significand, worst case ~2^-8) and 2e-3 x bound for fp16 (11 bits, worst case ~2^-10), plus
//    for fp16 2^-24 per term: an input below fp16's smallest normal (6.1e-5) is rounded to a
//    multiple of 2^-24, so a product with such a factor errs absolutely, not relatively.
// Problems: exactly V x 1 structured matrices (M not a multiple of V, empty block rows), and a
// general one the encoding pads; K from 1 to 1000 (ragged K takes the scalar path); every V and
// both precisions. GPU tests skip without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/half.hpp"
#include "core/random.hpp"
#include "core/vector_csr.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"
#include "problems.hpp"
#include "tests/test_util.hpp"

#if FK_WITH_CUDA
#include "kernels/cuda/tc_vector.hpp"

namespace fk {
namespace {

constexpr Precision kPrecisions[] = {Precision::kF16, Precision::kBF16};
constexpr int kVs[] = {1, 2, 4, 8};

double half_tolerance(Precision p) { return p == Precision::kBF16 ? 1e-2 : 2e-3; }
// The fp16 subnormal allowance for outputs of at most `terms` products (see the top of the file).
double subnormal_allowance(Precision p, int terms) { return p == Precision::kF16 ? terms * 0x1p-24 : 0.0; }

// rows x cols whose block rows of v rows share one random column set (lengths 0 .. max_len; every
// fifth block row empty), so the encoding has no padding. rows need not be a multiple of v.
HostCsr vector_structured(std::int64_t rows, std::int64_t cols, int v, int max_len, Rng& rng) {
  const std::int64_t blocks = (rows + v - 1) / v;
  const HostCsr base = test::random_pattern(blocks, cols, rng, [&](std::int64_t r) {
    return r % 5 == 3 ? std::int64_t(0) : std::int64_t(rng.below(std::uint64_t(max_len) + 1));
  });
  HostCsr s;
  s.rows = rows;
  s.cols = cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t br = r / v;
    for (std::int64_t j = base.row_ptr[br]; j < base.row_ptr[br + 1]; ++j) {
      s.col_idx.push_back(base.col_idx[j]);
      s.vals.push_back(static_cast<float>(rng.uniform(-1, 1)));
    }
    s.row_ptr.push_back(std::int64_t(s.col_idx.size()));
  }
  return s;
}

std::vector<float> rounded(std::vector<float> x, Precision p) {
  for (float& e : x) e = round_to(e, p);
  return x;
}

struct Want {
  std::vector<double> value, bound;
};

// C = op(S)·B in double.
Want host_spmm(const HostCsr& s, const std::vector<float>& vals, const std::vector<float>& b, int k, Op op) {
  const std::int64_t out_rows = op == Op::kNoTrans ? s.rows : s.cols;
  Want w{std::vector<double>(out_rows * k, 0.0), std::vector<double>(out_rows * k, 0.0)};
  for (std::int64_t r = 0; r < s.rows; ++r)
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
      const std::int64_t out = op == Op::kNoTrans ? r : s.col_idx[j];
      const std::int64_t in = op == Op::kNoTrans ? s.col_idx[j] : r;
      for (int t = 0; t < k; ++t) {
        const double x = double(vals[j]) * double(b[in * k + t]);
        w.value[out * k + t] += x;
        w.bound[out * k + t] += std::fabs(x);
      }
    }
  return w;
}

// out[j] = scale_j * dot(A[i,:], B[c,:]) in double.
Want host_sddmm(const HostCsr& s, const std::vector<float>& a, const std::vector<float>& b, int k,
                const std::vector<float>* scale) {
  Want w{std::vector<double>(s.nnz(), 0.0), std::vector<double>(s.nnz(), 0.0)};
  for (std::int64_t r = 0; r < s.rows; ++r)
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
      const double sc = scale ? double((*scale)[j]) : 1.0;
      for (int t = 0; t < k; ++t) {
        const double x = sc * double(a[r * k + t]) * double(b[std::int64_t(s.col_idx[j]) * k + t]);
        w.value[j] += x;
        w.bound[j] += std::fabs(x);
      }
    }
  return w;
}

// "" when every element is within tol x bound + abs_tol (NaN fails), else the first offenders.
std::string check(const std::vector<float>& got, const Want& w, double tol, double abs_tol = 0) {
  if (got.size() != w.value.size()) return "size " + std::to_string(got.size());
  std::string msg;
  int bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(double(got[i]) - w.value[i]) <= tol * w.bound[i] + abs_tol + 1e-30) continue;
    if (bad++ < 4)
      msg += " [" + std::to_string(i) + "] got " + std::to_string(got[i]) + " want " + std::to_string(w.value[i]);
  }
  return bad ? std::to_string(bad) + " of " + std::to_string(got.size()) + " wrong:" + msg : "";
}

// op(S)·B through the plan of `variant` at `precision`, on a NaN-poisoned C.
std::vector<float> plan_spmm(const Context& ctx, const HostCsr& s, const std::vector<float>& b, int k, Op op,
                             const std::string& variant, Precision precision) {
  const DeviceCsr ds(s);
  PreparedSpmm plan = make_spmm_plan(ctx, ds.view(), k, op, variant, precision);
  EXPECT_EQ(plan.variant->name(), variant == "auto" ? plan.variant->name() : variant);
  const std::int64_t in_rows = op == Op::kNoTrans ? s.cols : s.rows, out_rows = op == Op::kNoTrans ? s.rows : s.cols;
  DeviceBuffer<float> db(b), dc(out_rows * k), dv(std::max<std::int64_t>(1, s.nnz()));
  dv.upload(s.vals.data(), s.nnz());
  dc.fill_bytes(0xff);
  plan.run(ctx, dv.data(), {db.data(), in_rows, k}, {dc.data(), out_rows, k});
  ctx.synchronize();
  return dc.to_host();
}

std::vector<float> plan_sddmm(const Context& ctx, const HostCsr& s, const std::vector<float>& a,
                              const std::vector<float>& b, int k, bool scaled, const std::string& variant,
                              Precision precision) {
  const DeviceCsr ds(s);
  PreparedSddmm plan = make_sddmm_plan(ctx, ds.view(), k, variant, precision);
  DeviceBuffer<float> da(a), db(b), dout(std::max<std::int64_t>(1, s.nnz()));
  DeviceBuffer<float> dscale(std::max<std::int64_t>(1, s.nnz()));
  dscale.upload(s.vals.data(), s.nnz());
  dout.fill_bytes(0xff);
  plan.run(ctx, {da.data(), s.rows, k}, {db.data(), s.cols, k}, scaled ? dscale.data() : nullptr, dout.data());
  ctx.synchronize();
  std::vector<float> out = dout.to_host();
  out.resize(static_cast<std::size_t>(s.nnz()));
  return out;
}

TEST(TcVector, SpmmEveryVectorLengthPrecisionAndK) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  for (Precision p : kPrecisions)
    for (int v : kVs) {
      const HostCsr s = vector_structured(13 * v - 1, 300, v, 40, rng);
      for (int k : {1, 3, 17, 64, 100, 128, 256}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " " + to_string(p) + " v " + std::to_string(v) + " K " +
                     std::to_string(k));
        const std::vector<float> b = test::random_dense(s.cols * k, rng);
        const std::string name = "cuda.spmm.tc_v" + std::to_string(v);
        const std::vector<float> got = plan_spmm(ctx, s, b, k, Op::kNoTrans, name, p);
        EXPECT_EQ(check(got, host_spmm(s, rounded(s.vals, p), rounded(b, p), k, Op::kNoTrans), 1e-4), "");
        EXPECT_EQ(check(got, host_spmm(s, s.vals, b, k, Op::kNoTrans), half_tolerance(p), subnormal_allowance(p, 40)),
                  "");
      }
    }
}

TEST(TcVector, SddmmEveryVectorLengthPrecisionAndK) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  for (Precision p : kPrecisions)
    for (int v : kVs) {
      const HostCsr s = vector_structured(13 * v - 1, 300, v, 40, rng);
      for (int k : {1, 3, 17, 64, 100, 128, 256}) {
        const bool scaled = k % 2 == 0;
        SCOPED_TRACE("seed " + std::to_string(seed) + " " + to_string(p) + " v " + std::to_string(v) + " K " +
                     std::to_string(k) + (scaled ? " scaled" : " unscaled"));
        const std::vector<float> a = test::random_dense(s.rows * k, rng), b = test::random_dense(s.cols * k, rng);
        const std::string name = "cuda.sddmm.tc_v" + std::to_string(v);
        const std::vector<float> got = plan_sddmm(ctx, s, a, b, k, scaled, name, p);
        const std::vector<float>* scale = scaled ? &s.vals : nullptr;
        EXPECT_EQ(check(got, host_sddmm(s, rounded(a, p), rounded(b, p), k, scale), 1e-4), "");
        EXPECT_EQ(check(got, host_sddmm(s, a, b, k, scale), half_tolerance(p), subnormal_allowance(p, k)), "");
      }
    }
}

// A general matrix: the encoding pads; padding must contribute nothing and produce no output.
// Also wide K (several 64-column tiles, and 1000 = ragged) and Sᵀ·B through the cached transpose.
TEST(TcVector, PaddedPatternWideKAndTransposed) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  const HostCsr s = test::random_pattern(45, 120, rng, [&](std::int64_t r) { return std::int64_t(r % 7 * 3); });
  for (int v : {2, 8})
    for (int k : {512, 1000}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " v " + std::to_string(v) + " K " + std::to_string(k));
      const Precision p = Precision::kF16;
      const std::string vs = std::to_string(v);
      const std::vector<float> b = test::random_dense(s.cols * k, rng), bt = test::random_dense(s.rows * k, rng);
      const std::vector<float> a = test::random_dense(s.rows * k, rng);
      EXPECT_EQ(check(plan_spmm(ctx, s, b, k, Op::kNoTrans, "cuda.spmm.tc_v" + vs, p),
                      host_spmm(s, rounded(s.vals, p), rounded(b, p), k, Op::kNoTrans), 1e-4),
                "");
      EXPECT_EQ(check(plan_spmm(ctx, s, bt, k, Op::kTrans, "cuda.spmm.tc_v" + vs, p),
                      host_spmm(s, rounded(s.vals, p), rounded(bt, p), k, Op::kTrans), 1e-4),
                "");
      EXPECT_EQ(check(plan_sddmm(ctx, s, a, b, k, true, "cuda.sddmm.tc_v" + vs, p),
                      host_sddmm(s, rounded(a, p), rounded(b, p), k, &s.vals), 1e-4),
                "");
    }
}

// Few, long block rows: the SpMM splits each block row across up to 8 warps and adds their tiles
// in a fixed order, so the result must be right and the same, bit for bit, on every run.
TEST(TcVector, SpmmLongBlockRowsSplitAcrossWarps) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  for (int v : {2, 8})
    for (int k : {64, 100}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " v " + std::to_string(v) + " K " + std::to_string(k));
      const HostCsr s = vector_structured(6 * v, 3000, v, 2500, rng);
      const std::vector<float> b = test::random_dense(s.cols * k, rng);
      const std::string name = "cuda.spmm.tc_v" + std::to_string(v);
      const std::vector<float> first = plan_spmm(ctx, s, b, k, Op::kNoTrans, name, Precision::kBF16);
      EXPECT_EQ(check(first, host_spmm(s, rounded(s.vals, Precision::kBF16), rounded(b, Precision::kBF16), k,
                                       Op::kNoTrans),
                      1e-4),
                "");
      EXPECT_EQ(first, plan_spmm(ctx, s, b, k, Op::kNoTrans, name, Precision::kBF16));
    }
}

// The raw kernels on 16-bit operands that are not 16-byte aligned (the scalar load path at K % 8
// == 0) and on an empty matrix.
TEST(TcVector, RawKernelsMisalignedAndEmpty) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  Rng rng(test::fresh_seed());
  const int k = 64, v = 4;
  const Precision p = Precision::kBF16;
  const HostCsr s = vector_structured(50, 90, v, 30, rng);
  const HostVectorCsr e = to_vector_csr(s.view(), v);
  const tc::DeviceVectorCsr ds(e, p);
  const std::vector<float> b = test::random_dense(s.cols * k, rng), a = test::random_dense(s.rows * k, rng);
  std::vector<HalfBits> bh = to_half(b, p), ah = to_half(a, p);
  bh.insert(bh.begin(), HalfBits(0));  // one element in: 2-byte aligned only
  ah.insert(ah.begin(), HalfBits(0));
  DeviceBuffer<HalfBits> db(bh), da(ah);
  DeviceBuffer<float> dc(s.rows * k), dout(e.stored());
  dc.fill_bytes(0xff);
  dout.fill_bytes(0xff);
  tc::spmm(ctx, p, ds.view(), {db.data() + 1, s.cols, k}, {dc.data(), s.rows, k});
  tc::sddmm(ctx, p, ds.view(), {da.data() + 1, s.rows, k}, {db.data() + 1, s.cols, k}, false, dout.data());
  ctx.synchronize();
  EXPECT_EQ(check(dc.to_host(), host_spmm(s, rounded(s.vals, p), rounded(b, p), k, Op::kNoTrans), 1e-4), "");
  // The vector layout back in S's order: the encoding has no padding, so every stored value is one.
  const std::vector<float> vec_out = dout.to_host();
  std::vector<float> got(static_cast<std::size_t>(s.nnz()), NAN);
  for (std::int64_t i = 0; i < e.stored(); ++i)
    if (e.source[i] >= 0) got[e.source[i]] = vec_out[i];
  EXPECT_EQ(check(got, host_sddmm(s, rounded(a, p), rounded(b, p), k, nullptr), 1e-4), "");

  HostCsr empty;
  empty.rows = 6;
  empty.cols = 5;
  empty.row_ptr.assign(7, 0);
  const std::vector<float> b0 = test::random_dense(5 * 8, rng);
  const std::vector<float> c0 = plan_spmm(ctx, empty, b0, 8, Op::kNoTrans, "cuda.spmm.tc_v4", p);
  EXPECT_TRUE(std::all_of(c0.begin(), c0.end(), [](float x) { return x == 0.f; }));
}

// The staged kernel (B's 16-column slices in shared memory) on its own: every V, K below, at and
// past a slice and ragged, 16-byte aligned or not; a padded general matrix; the first and last B
// rows, which no vector reads, full of infinities (padding slots and the ring's entries past a
// warp's last step read a zero row, never a real one); and bit-identical results on a second run.
TEST(TcVector, RawStagedKernel) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  const Precision p = Precision::kF16;
  for (int v : kVs)
    for (const bool general : {false, true}) {
      HostCsr s = general ? test::random_pattern(7 * v + 3, 301, rng,
                                                 [&](std::int64_t) { return std::int64_t(rng.below(60)); })
                          : vector_structured(13 * v - 1, 301, v, 70, rng);
      for (auto& col : s.col_idx) ++col;  // a first column that no entry has
      s.cols += 2;                          // and a last one
      const std::array<std::int64_t, 2> unused{0, s.cols - 1};
      const HostVectorCsr e = to_vector_csr(s.view(), v);
      const tc::StagedVectorCsr staged(e, p);
      for (int k : {1, 8, 16, 24, 64, 70, 256})
        for (const int offset : {0, 1}) {
          SCOPED_TRACE("seed " + std::to_string(seed) + " v " + std::to_string(v) + (general ? " general" : "") +
                       " K " + std::to_string(k) + " offset " + std::to_string(offset));
          std::vector<float> b = test::random_dense(s.cols * k, rng);
          std::vector<HalfBits> bh = to_half(b, p);
          for (const std::int64_t row : unused)
            for (int t = 0; t < k; ++t) bh[row * k + t] = float_to_half(INFINITY, p);
          bh.insert(bh.begin(), offset, HalfBits(0));
          DeviceBuffer<HalfBits> db(bh);
          DeviceBuffer<float> dc(s.rows * k + offset);
          dc.fill_bytes(0xff);
          const DenseView<float> c{dc.data() + offset, s.rows, k};
          tc::spmm_staged(ctx, p, staged.view(), {db.data() + offset, s.cols, k}, c);
          ctx.synchronize();
          std::vector<float> got = dc.to_host();
          got.erase(got.begin(), got.begin() + offset);
          for (const std::int64_t row : unused)  // read by no vector, so they add nothing
            for (int t = 0; t < k; ++t) b[row * k + t] = 0;
          EXPECT_EQ(check(got, host_spmm(s, rounded(s.vals, p), rounded(b, p), k, Op::kNoTrans), 1e-4), "");
          dc.fill_bytes(0xff);  // the second run must write C again
          tc::spmm_staged(ctx, p, staged.view(), {db.data() + offset, s.cols, k}, c);
          std::vector<float> again = dc.to_host();
          again.erase(again.begin(), again.begin() + offset);
          EXPECT_EQ(got, again);
        }
    }
}

// A problem large enough that the plan of cuda.spmm.tc_v4 runs the staged kernel (at K = 256 and a
// ragged 250; at K = 16 the same matrix stays on the gather kernel, as does a matrix of few rows),
// through the fp32 interface.
TEST(TcVector, SpmmPlanTakesTheStagedKernelOnLargeProblems) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  const int v = 4;
  const Precision p = Precision::kF16;
  const HostCsr s = vector_structured(4099, 3000, v, 900, rng);
  const HostVectorCsr e = to_vector_csr(s.view(), v);
  const HostCsr few_rows = vector_structured(400, 3000, v, 2000, rng);
  EXPECT_FALSE(tc::staged_pays(ctx, to_vector_csr(few_rows.view(), v), 256));
  for (int k : {256, 250, 16}) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " K " + std::to_string(k));
    EXPECT_EQ(tc::staged_pays(ctx, e, k), k != 16);
    const std::vector<float> b = test::random_dense(s.cols * k, rng);
    EXPECT_EQ(check(plan_spmm(ctx, s, b, k, Op::kNoTrans, "cuda.spmm.tc_v4", p),
                    host_spmm(s, rounded(s.vals, p), rounded(b, p), k, Op::kNoTrans), 1e-4),
              "");
  }
}

TEST(TcVector, AutoPicksTensorCoresOnlyForLowPrecisionAndStructure) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  Rng rng(test::fresh_seed());
  const HostCsr structured = vector_structured(64, 200, 4, 20, rng);
  const HostCsr general = test::random_pattern(64, 200, rng, [](std::int64_t) { return std::int64_t(10); });
  const DeviceCsr ds(structured), dg(general);
  EXPECT_EQ(std::string(make_spmm_plan(ctx, ds.view(), 64, Op::kNoTrans, "auto", Precision::kBF16).variant->name()),
            "cuda.spmm.tc_v4");
  EXPECT_EQ(std::string(make_sddmm_plan(ctx, ds.view(), 64, "auto", Precision::kF16).variant->name()),
            "cuda.sddmm.tc_v4");
  EXPECT_EQ(std::string(make_spmm_plan(ctx, ds.view(), 64).variant->name()).find(".tc_"), std::string::npos);
  EXPECT_EQ(std::string(make_spmm_plan(ctx, dg.view(), 64, Op::kNoTrans, "auto", Precision::kBF16).variant->name())
                .find(".tc_"),
            std::string::npos);
}

// Runs in every CUDA build, with or without a device: fp32 problems are refused with the reason.
TEST(TcVector, Fp32AndHugeProblemsAreRefused) {
  KernelProblem p;
  p.k = 64;
  for (int v : kVs) {
    EXPECT_NE(find_spmm_variant("cuda.spmm.tc_v" + std::to_string(v)).why_not(p).find("fp16"), std::string::npos);
    EXPECT_NE(find_sddmm_variant("cuda.sddmm.tc_v" + std::to_string(v)).why_not(p).find("fp16"), std::string::npos);
  }
  p.precision = Precision::kBF16;
  EXPECT_EQ(find_spmm_variant("cuda.spmm.tc_v4").why_not(p), "");
  // Their map from stored values to S's entries is 32-bit (tc::device_source_map).
  p.sparse.nnz = std::int64_t(INT32_MAX) + 1;
  EXPECT_NE(find_spmm_variant("cuda.spmm.tc_v4").why_not(p).find("32 bits"), std::string::npos);
  EXPECT_NE(find_sddmm_variant("cuda.sddmm.tc_v8").why_not(p).find("32 bits"), std::string::npos);
  EXPECT_THROW(tc::device_source_map({0, -1, std::int64_t(INT32_MAX) + 1}), Error);
}

}  // namespace
}  // namespace fk

#endif  // FK_WITH_CUDA
