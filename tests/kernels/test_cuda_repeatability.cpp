// Do the CUDA kernels give the same bits run after run? `--seed` promises the same model for the
// same seed on the same device, and some kernels add partial sums in an order the hardware picks
// (float atomics across warps or lanes, cuSPARSE's SpMM on long rows). Every applicable CUDA SpMM,
// SDDMM and ratio SpMM variant runs each problem five times; a variant whose repeatable() is true
// must give the first run's bits every time. The others are run too and what they did is printed
// (the record in docs/benchmarks/checks/session-30), not checked: their values are checked by the
// conformance suites. Problems: a few very long rows (chunk-crossing paths) and their transpose
// (long rows for Sᵀ·B), a skewed power-law matrix and one giant row among short ones (LongRows'
// block-split path), at K = 1, 4, 32, 100 and 256, S·B and Sᵀ·B.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/half.hpp"
#include "core/random.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/registry.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"
#include "problems.hpp"
#include "tests/test_util.hpp"

#if FK_WITH_CUDA

namespace fk {
namespace {

constexpr int kRuns = 5;

// rows x cols, row r holding each column with probability density(r) (columns sorted).
template <typename Density>
HostCsr coin_pattern(std::int64_t rows, std::int64_t cols, Rng& rng, Density density) {
  HostCsr m;
  m.rows = rows;
  m.cols = cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    const double p = density(r);
    for (std::int64_t c = 0; c < cols; ++c)
      if (rng.uniform() < p) {
        m.col_idx.push_back(static_cast<std::int32_t>(c));
        m.vals.push_back(static_cast<float>(rng.uniform(-1, 1)));
      }
    m.row_ptr.push_back(static_cast<std::int64_t>(m.col_idx.size()));
  }
  return m;
}

struct Case {
  std::string name;
  HostCsr s;
};

std::vector<Case> cases() {
  Rng rng(20261127);
  std::vector<Case> out;
  // 40 rows of 2,000-14,000 nonzeros over 40,000 columns: long rows for S·B, and for Sᵀ·B 40,000
  // short rows.
  out.push_back({"long rows", coin_pattern(40, 40000, rng, [](std::int64_t r) {
                   return 0.05 + 0.3 * double(r % 8) / 8.0;
                 })});
  out.push_back({"long columns", transpose(out.back().s.view())});
  // 6,000 x 6,000, row r of density about 0.4 / (r + 1)^0.7: a few rows of thousands, most short.
  out.push_back({"power law", coin_pattern(6000, 6000, rng, [](std::int64_t r) {
                   return 0.4 / std::pow(double(r + 1), 0.7);
                 })});
  // 30,000 x 30,000, rows of about 5 nonzeros and row 0 of about 15,000: the one row the row
  // kernels hand to LongRows (split across blocks, finished with atomics).
  out.push_back({"giant row", coin_pattern(30000, 30000, rng, [](std::int64_t r) {
                   return r == 0 ? 0.5 : 5.0 / 30000;
                 })});
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Each run starts on a poisoned output (all-ones bytes, NaN): a run that wrote nothing would
// repeat the poison bit for bit, so a non-finite first result is its own finding.
constexpr const char* kNotFinite = "not every output is finite (some left unwritten?)";

// Runs `once` kRuns times; "" when every run equals the first bit for bit, else how many runs
// differed and the largest difference from the first run relative to the element (or
// kNotFinite).
template <typename Once>
std::string repeat(Once once) {
  const std::vector<float> first = once();
  if (!std::all_of(first.begin(), first.end(), [](float x) { return std::isfinite(x); }))
    return kNotFinite;
  int differ = 0;
  double worst = 0;
  for (int r = 1; r < kRuns; ++r) {
    const std::vector<float> again = once();
    if (same_bits(again, first)) continue;
    ++differ;
    for (std::size_t i = 0; i < first.size(); ++i)
      worst = std::max(worst, std::fabs(double(again[i]) - first[i]) /
                                  std::max(1e-30, std::fabs(double(first[i]))));
  }
  return differ == 0 ? "" : std::to_string(differ) + " of " + std::to_string(kRuns - 1) +
                                " reruns differ, largest relative difference " +
                                std::to_string(worst);
}

const std::vector<int> kWidths = {1, 4, 32, 100, 256};

// What each variant gave, for the summary printed at the end (the point of the test is the list).
std::map<std::string, std::set<std::string>> g_differing;
std::map<std::string, int> g_checked;

void record(const VariantInfo& v, const std::string& what, const std::string& result) {
  ++g_checked[v.name()];
  if (!result.empty()) g_differing[v.name()].insert(what + ": " + result);
  if (v.repeatable() || result == kNotFinite) {
    EXPECT_EQ(result, "") << v.name() << " on " << what;
  }
}

TEST(CudaRepeatability, Spmm) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  Rng rng(7);
  for (const Case& c : cases()) {
    const DeviceCsr ds(c.s);
    for (const int k : kWidths)
      for (const Op op : {Op::kNoTrans, Op::kTrans}) {
        const std::int64_t in_rows = op == Op::kNoTrans ? c.s.cols : c.s.rows;
        const std::int64_t out_rows = op == Op::kNoTrans ? c.s.rows : c.s.cols;
        const HostDense<float> b = test::random_matrix(in_rows, k, rng);
        DeviceBuffer<float> db(b.values()), dc(out_rows * k);
        KernelProblem p{features(c.s.view()), k};
        if (op == Op::kTrans) std::swap(p.sparse.rows, p.sparse.cols), p.transposed = true;
        for (const SpmmVariant* v : spmm_variants()) {
          const std::string name = v->name();
          // The tensor-core variants at fp16 (their operands rounded the same way every run).
          p.precision = v->half_precision() ? Precision::kF16 : Precision::kF32;
          if (name.rfind("cuda.", 0) != 0 || !v->why_not(p).empty()) continue;
          PreparedSpmm plan = make_spmm_plan(ctx, ds.view(), k, op, name, p.precision);
          const std::string what = c.name + (op == Op::kNoTrans ? " S*B" : " S^T*B") +
                                   " K=" + std::to_string(k);
          record(*v, what, repeat([&] {
                   dc.fill_bytes(0xff);
                   plan.run(ctx, nullptr, DenseView<const float>{db.data(), in_rows, k},
                            DenseView<float>{dc.data(), out_rows, k});
                   ctx.synchronize();
                   return dc.to_host();
                 }));
        }
      }
  }
}

TEST(CudaRepeatability, Sddmm) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  Rng rng(8);
  for (const Case& c : cases()) {
    const DeviceCsr ds(c.s);
    // 512: three and more K slices in cuda.sddmm.shared.
    for (const int k : {1, 4, 32, 100, 256, 512}) {
      const HostDense<float> a = test::random_matrix(c.s.rows, k, rng);
      const HostDense<float> b = test::random_matrix(c.s.cols, k, rng);
      DeviceBuffer<float> da(a.values()), db(b.values()), out(c.s.nnz());
      KernelProblem p{features(c.s.view()), k};
      for (const SddmmVariant* v : sddmm_variants()) {
        const std::string name = v->name();
        p.precision = v->half_precision() ? Precision::kF16 : Precision::kF32;
        if (name.rfind("cuda.", 0) != 0 || !v->why_not(p).empty()) continue;
        PreparedSddmm plan = make_sddmm_plan(ctx, ds.view(), k, name, p.precision);
        record(*v, c.name + " K=" + std::to_string(k), repeat([&] {
                 out.fill_bytes(0xff);
                 plan.run(ctx, DenseView<const float>{da.data(), c.s.rows, k},
                          DenseView<const float>{db.data(), c.s.cols, k}, ds.vals.data(),
                          out.data());
                 ctx.synchronize();
                 return out.to_host();
               }));
      }
    }
  }
}

TEST(CudaRepeatability, RatioSpmm) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  Rng rng(9);
  for (const Case& c : cases()) {
    const DeviceCsr ds(c.s);
    for (const int k : kWidths)
      for (const Op op : {Op::kNoTrans, Op::kTrans}) {
        // A and C have op(S)'s rows, B its columns.
        const std::int64_t m = op == Op::kNoTrans ? c.s.rows : c.s.cols;
        const std::int64_t n = op == Op::kNoTrans ? c.s.cols : c.s.rows;
        std::vector<float> a = test::random_matrix(m, k, rng).values(),
                           b = test::random_matrix(n, k, rng).values();
        for (float& x : a) x = std::fabs(x) + 0.1f;  // positive dot products
        for (float& x : b) x = std::fabs(x) + 0.1f;
        DeviceBuffer<float> da(a), db(b), dc(m * k);
        KernelProblem p{features(c.s.view()), k};
        if (op == Op::kTrans) std::swap(p.sparse.rows, p.sparse.cols), p.transposed = true;
        for (const RatioSpmmVariant* v : ratio_spmm_variants()) {
          const std::string name = v->name();
          if (name.rfind("cuda.", 0) != 0 || !v->why_not(p).empty()) continue;
          PreparedRatioSpmm plan = make_ratio_spmm_plan(ctx, ds.view(), k, name, op);
          const std::string what = c.name + (op == Op::kNoTrans ? " S*B" : " S^T*B") +
                                   " K=" + std::to_string(k);
          const DenseView<const float> va{da.data(), m, k}, vb{db.data(), n, k};
          const DenseView<float> vc{dc.data(), m, k};
          for (const int form : {0, 1, 2}) {
            record(*v, what + (form == 0 ? " ratio" : form == 1 ? " product" : " residual"),
                   repeat([&] {
                     dc.fill_bytes(0xff);
                     if (form == 0) plan.run(ctx, nullptr, va, vb, 1e-6f, vc);
                     if (form == 1) plan.run_product(ctx, nullptr, va, vb, vc);
                     if (form == 2) plan.run_residual(ctx, nullptr, nullptr, va, vb, vc);
                     ctx.synchronize();
                     return dc.to_host();
                   }));
          }
        }
      }
  }
}

// With Context::set_repeatable_only (the apps' --repeatable), an `auto` SpMM plan whose rules pick
// an unrepeatable variant runs a repeatable one instead, with the same result up to rounding and
// the same bits run after run. The cases above make auto pick cuSPARSE or nnz_vsr somewhere.
TEST(CudaRepeatability, RepeatableOnlyAutoReplacesUnrepeatablePicks) {
  FK_REQUIRE_GPU();
  Context plain(DeviceKind::kGpu), only(DeviceKind::kGpu);
  only.set_repeatable_only(true);
  Rng rng(10);
  int replaced = 0;
  for (const Case& c : cases()) {
    const DeviceCsr ds(c.s);
    for (const int k : kWidths)
      for (const Op op : {Op::kNoTrans, Op::kTrans}) {
        const std::int64_t in_rows = op == Op::kNoTrans ? c.s.cols : c.s.rows;
        const std::int64_t out_rows = op == Op::kNoTrans ? c.s.rows : c.s.cols;
        PreparedSpmm usual = make_spmm_plan(plain, ds.view(), k, op);
        if (usual.variant->repeatable()) continue;
        SCOPED_TRACE(c.name + (op == Op::kNoTrans ? " S*B" : " S^T*B") + " K=" +
                     std::to_string(k) + ", auto's pick " + usual.variant->name());
        PreparedSpmm repeatable = make_spmm_plan(only, ds.view(), k, op);
        EXPECT_TRUE(repeatable.variant->repeatable()) << repeatable.variant->name();
        ++replaced;
        const HostDense<float> b = test::random_matrix(in_rows, k, rng);
        DeviceBuffer<float> db(b.values()), dc(out_rows * k);
        auto run = [&](PreparedSpmm& p, const Context& ctx) {
          dc.fill_bytes(0xff);
          p.run(ctx, nullptr, DenseView<const float>{db.data(), in_rows, k},
                DenseView<float>{dc.data(), out_rows, k});
          ctx.synchronize();
          return dc.to_host();
        };
        const std::vector<float> want = run(usual, plain);
        EXPECT_EQ(repeat([&] { return run(repeatable, only); }), "");
        // The same sums in another order: each element within rounding of the vendor's, relative
        // to the largest element (the values are signed, so single elements may cancel).
        const std::vector<float> got = run(repeatable, only);
        double scale = 0, worst = 0;
        for (float x : want) scale = std::max(scale, std::fabs(double(x)));
        for (std::size_t i = 0; i < got.size(); ++i)
          worst = std::max(worst, std::fabs(double(got[i]) - want[i]));
        EXPECT_LE(worst, 1e-4 * scale) << repeatable.variant->name();
      }
  }
  EXPECT_GT(replaced, 0) << "no case made auto pick an unrepeatable variant";
}

// The registry answers by name: the variants marked as not repeatable, and the rest.
TEST(CudaRepeatability, RegistryKnowsWhichVariantsRepeat) {
  for (const char* name : {"cuda.spmm.cusparse", "cuda.spmm.cusparse_on_transpose",
                           "cuda.spmm.nnz_vsr", "cuda.spmm.panel", "cuda.sddmm.shared"})
    EXPECT_FALSE(variant_repeatable(name)) << name;
  for (const char* name : {"cuda.spmm.row_csc", "cuda.spmm.row_split", "cuda.sddmm.cusparse",
                           "cuda.ratio_spmm.fused", "omp.spmm.rows", "not.a.variant"})
    EXPECT_TRUE(variant_repeatable(name)) << name;
}

// Printed when the tests end (the record of what each variant did): every variant that gave other
// bits on a rerun, and where; then how many cases each variant ran and how many differed.
class PrintRepeatability : public ::testing::Environment {
 public:
  void TearDown() override {
    for (const auto& [variant, cases] : g_differing) {
      std::printf("%s: %zu cases differ\n", variant.c_str(), cases.size());
      for (const std::string& c : cases) std::printf("  %s\n", c.c_str());
    }
    for (const auto& [variant, n] : g_checked)
      std::printf("checked %s on %d cases, %zu differ\n", variant.c_str(), n,
                  g_differing.count(variant) ? g_differing[variant].size() : std::size_t{0});
  }
};
[[maybe_unused]] ::testing::Environment* const g_print_repeatability =
    ::testing::AddGlobalTestEnvironment(new PrintRepeatability);

}  // namespace
}  // namespace fk

#endif  // FK_WITH_CUDA
