// How the public kernel entry points (make_*_plan and the plans' run) react to misuse on the CPU
// variants and `auto`: each misuse is an fk::Error whose message says what is wrong, never a
// crash or a silently wrong result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/context.hpp"
#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/device_buffer.hpp"
#include "core/random.hpp"
#include "kernels/registry.hpp"
#include "problems.hpp"
#include "tests/test_util.hpp"

namespace fk {
namespace {

// `body` throws fk::Error whose message contains `needle`.
void expect_error(const std::function<void()>& body, const std::string& needle) {
  try {
    body();
    ADD_FAILURE() << "no error (wanted one saying '" << needle << "')";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

template <typename V>
std::vector<std::string> cpu_names(const std::vector<const V*>& all) {
  std::vector<std::string> names = {"auto"};
  for (const V* v : all)
    if (v->backend() != Backend::kCuda) names.push_back(v->name());
  return names;
}

HostDense<float> random_dense(std::int64_t rows, std::int64_t cols, Rng& rng) {
  HostDense<float> m(rows, cols);
  for (std::int64_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform(-1, 1));
  return m;
}

// A square pattern (so that C and an input can share one buffer) with rows long enough that a
// row's C is written before all of its nonzeros are read (omp.ratio_spmm.rows takes 32 at a time).
HostCsr square_pattern(Rng& rng) {
  return test::random_pattern(120, 120, rng, [](std::int64_t) { return 70; });
}

TEST(ApiMisuse, CsrWithoutColumnIndicesIsAnError) {
  Context cpu(DeviceKind::kCpu);
  HostCsr s;
  s.rows = 2;
  s.cols = 3;
  s.row_ptr = {0, 1, 2};
  s.col_idx = {0, 2};
  CsrView v = s.view();
  v.col_idx = nullptr;
  expect_error([&] { validate(v); }, "no column indices");
  expect_error([&] { make_sddmm_plan(cpu, v, 4); }, "no column indices");
  expect_error([&] { make_spmm_plan(cpu, v, 4, Op::kTrans); }, "no column indices");
  expect_error([&] { make_ratio_spmm_plan(cpu, v, 4, "ref.ratio_spmm"); }, "no column indices");
}

TEST(ApiMisuse, NullDenseOperandsAreErrors) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(0x5eed01);
  const HostCsr s = test::random_pattern(30, 20, rng, [](std::int64_t) { return 4; });
  const int k = 8;
  for (const std::string& name : cpu_names(sddmm_variants())) {
    SCOPED_TRACE(name);
    auto p = make_sddmm_plan(cpu, s.view(), k, name);
    const auto a = random_dense(30, k, rng), b = random_dense(20, k, rng);
    std::vector<float> out(s.nnz());
    expect_error([&] { p.run(cpu, {nullptr, 30, k}, b.view(), nullptr, out.data()); }, "null");
    expect_error([&] { p.run(cpu, a.view(), {nullptr, 20, k}, nullptr, out.data()); }, "null");
    expect_error([&] { p.run(cpu, a.view(), b.view(), nullptr, nullptr); }, "null");
  }
  for (const std::string& name : cpu_names(spmm_variants()))
    for (Op op : {Op::kNoTrans, Op::kTrans}) {
      SCOPED_TRACE(name + (op == Op::kTrans ? " S^T*B" : " S*B"));
      const std::int64_t in = op == Op::kNoTrans ? 20 : 30, out = op == Op::kNoTrans ? 30 : 20;
      auto p = make_spmm_plan(cpu, s.view(), k, op, name);
      const auto b = random_dense(in, k, rng);
      HostDense<float> c(out, k);
      expect_error([&] { p.run(cpu, nullptr, {nullptr, in, k}, c.view()); }, "null B");
      expect_error([&] { p.run(cpu, nullptr, b.view(), {nullptr, out, k}); }, "null");
    }
  for (const std::string& name : cpu_names(ratio_spmm_variants()))
    for (Op op : {Op::kNoTrans, Op::kTrans}) {
      SCOPED_TRACE(name + (op == Op::kTrans ? " over S^T" : " over S"));
      const std::int64_t ar = op == Op::kNoTrans ? 30 : 20, br = op == Op::kNoTrans ? 20 : 30;
      auto p = make_ratio_spmm_plan(cpu, s.view(), 64, name, op);  // K = 64: `auto` makes a plan
      ASSERT_TRUE(p.plan);
      const auto a = random_dense(ar, 64, rng), b = random_dense(br, 64, rng);
      HostDense<float> c(ar, 64);
      expect_error(
          [&] {
            p.run(cpu, nullptr, {nullptr, ar, 64}, b.view(), 0.1f, c.view());
          },
          "null");
      expect_error(
          [&] {
            p.run_product(cpu, nullptr, a.view(), {nullptr, br, 64}, c.view());
          },
          "null");
      expect_error(
          [&] {
            p.run_residual(cpu, nullptr, nullptr, a.view(), b.view(), {nullptr, ar, 64});
          },
          "null");
    }
}

// C = S·B into B's own buffer overwrites rows of B that later rows still read: every CPU variant
// returned values off by up to 1e33 without a word. Any overlap is refused, also a partial one.
TEST(ApiMisuse, OutputSharingMemoryWithAnInputIsAnError) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(0x5eed02);
  const HostCsr s = square_pattern(rng);
  const int k = 8;
  for (const std::string& name : cpu_names(spmm_variants()))
    for (Op op : {Op::kNoTrans, Op::kTrans}) {
      SCOPED_TRACE(name + (op == Op::kTrans ? " S^T*B" : " S*B"));
      auto p = make_spmm_plan(cpu, s.view(), k, op, name);
      auto b = random_dense(121, k, rng);  // one spare row for the shifted view
      const DenseView<float> whole{b.data(), 120, k}, shifted{b.data() + k, 120, k};
      expect_error([&] { p.run(cpu, nullptr, whole, whole); }, "shares memory");
      expect_error([&] { p.run(cpu, nullptr, whole, shifted); }, "shares memory");
      // Disjoint buffers still run, and give the product.
      HostDense<float> c(120, k, NAN);
      p.run(cpu, nullptr, whole, c.view());
      for (float x : c.values()) ASSERT_TRUE(std::isfinite(x));
    }
  for (const std::string& name : cpu_names(ratio_spmm_variants()))
    for (Op op : {Op::kNoTrans, Op::kTrans}) {
      SCOPED_TRACE(name + (op == Op::kTrans ? " over S^T" : " over S"));
      auto p = make_ratio_spmm_plan(cpu, s.view(), 64, name, op);
      ASSERT_TRUE(p.plan);
      auto a = random_dense(120, 64, rng), b = random_dense(120, 64, rng);
      expect_error([&] { p.run(cpu, nullptr, a.view(), b.view(), 0.1f, a.view()); },
                   "shares memory");
      expect_error([&] { p.run_product(cpu, nullptr, a.view(), b.view(), b.view()); },
                   "shares memory");
      expect_error([&] { p.run_residual(cpu, nullptr, nullptr, a.view(), b.view(), a.view()); },
                   "shares memory");
    }
  for (const std::string& name : cpu_names(sddmm_variants())) {
    SCOPED_TRACE(name);
    auto p = make_sddmm_plan(cpu, s.view(), k, name);
    // A buffer holding A and, after it, room for the outputs; the outputs start inside A.
    std::vector<float> buf(120 * k + s.nnz());
    const DenseView<const float> a{buf.data(), 120, k};
    const auto b = random_dense(120, k, rng);
    expect_error([&] { p.run(cpu, a, b.view(), nullptr, buf.data() + 8); }, "shares memory");
    p.run(cpu, a, b.view(), nullptr, buf.data() + 120 * k);  // right after A: allowed
  }
}

// Every CUDA variant refuses the same misuse as the CPU ones (kernels/operand_checks.hpp), before
// it touches an operand: the vendor, dense and tensor-core wrappers had checks of their own that
// let C == B through. Only addresses are compared, so the buffers hold no data.
TEST(ApiMisuse, GpuOverlapsAndNullOperandsAreErrors) {
  FK_REQUIRE_GPU();
  Context gpu(DeviceKind::kGpu);
  Rng rng(0x5eed07);
  const HostCsr s = square_pattern(rng);
  const DeviceCsr ds(s);
  const int k = 64;  // a width every variant takes (the tensor-core ones at fp16)
  std::vector<std::string> checked;
  const auto prepared = [&](const std::string& name, auto make) -> bool {
    try {
      make();
    } catch (const Error& e) {  // does not apply to this problem: nothing to check
      std::cerr << name << " skipped: " << e.what() << "\n";
      return false;
    }
    checked.push_back(name);
    return true;
  };
  for (const SpmmVariant* v : spmm_variants()) {
    if (v->backend() != Backend::kCuda) continue;
    for (Op op : {Op::kNoTrans, Op::kTrans}) {
      const std::string name = std::string(v->name()) + (op == Op::kTrans ? " S^T*B" : " S*B");
      SCOPED_TRACE(name);
      PreparedSpmm p;
      if (!prepared(name,
                    [&] { p = make_spmm_plan(gpu, ds.view(), k, op, v->name(), Precision::kF16); }))
        continue;
      DeviceBuffer<float> buf(121 * k), c(120 * k);
      const DenseView<float> whole{buf.data(), 120, k}, shifted{buf.data() + k, 120, k};
      expect_error([&] { p.run(gpu, nullptr, whole, whole); }, "shares memory");
      expect_error([&] { p.run(gpu, nullptr, whole, shifted); }, "shares memory");
      expect_error([&] { p.run(gpu, nullptr, {nullptr, 120, k}, {c.data(), 120, k}); }, "null B");
      expect_error([&] { p.run(gpu, nullptr, whole, {nullptr, 120, k}); }, "null");
    }
  }
  for (const SddmmVariant* v : sddmm_variants()) {
    if (v->backend() != Backend::kCuda) continue;
    SCOPED_TRACE(v->name());
    PreparedSddmm p;
    if (!prepared(v->name(),
                  [&] { p = make_sddmm_plan(gpu, ds.view(), k, v->name(), Precision::kF16); }))
      continue;
    DeviceBuffer<float> buf(120 * k + s.nnz()), b(120 * k);
    const DenseView<const float> a{buf.data(), 120, k};
    expect_error(
        [&] {
          p.run(gpu, a, {b.data(), 120, k}, nullptr, buf.data() + 8);
        },
        "shares memory");
    expect_error([&] { p.run(gpu, a, {b.data(), 120, k}, nullptr, nullptr); }, "null");
  }
  for (const RatioSpmmVariant* v : ratio_spmm_variants()) {
    if (v->backend() != Backend::kCuda) continue;
    SCOPED_TRACE(v->name());
    PreparedRatioSpmm p;
    if (!prepared(v->name(), [&] { p = make_ratio_spmm_plan(gpu, ds.view(), k, v->name()); }))
      continue;
    DeviceBuffer<float> a(120 * k), b(120 * k);
    const DenseView<float> av{a.data(), 120, k}, bv{b.data(), 120, k};
    expect_error([&] { p.run(gpu, nullptr, av, bv, 0.1f, av); }, "shares memory");
    expect_error([&] { p.run_product(gpu, nullptr, av, bv, bv); }, "shares memory");
  }
  // The variants whose own checks missed these before must have been checked here.
  for (const char* must : {"cuda.spmm.cusparse S*B", "cuda.spmm.cusparse S^T*B",
                           "cuda.spmm.dense S*B", "cuda.sddmm.cusparse", "cuda.ratio_spmm.fused"})
    EXPECT_NE(std::find(checked.begin(), checked.end(), must), checked.end()) << must;
}

// Scaling in place (out == s_vals) reads each value once, before its output is written: allowed,
// and the same as into a separate buffer.
TEST(ApiMisuse, SddmmScalesInPlace) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(0x5eed03);
  const HostCsr s = square_pattern(rng);
  const int k = 8;
  const auto a = random_dense(120, k, rng), b = random_dense(120, k, rng);
  for (const std::string& name : cpu_names(sddmm_variants())) {
    SCOPED_TRACE(name);
    auto p = make_sddmm_plan(cpu, s.view(), k, name);
    std::vector<float> want(s.nnz()), vals = s.vals;
    p.run(cpu, a.view(), b.view(), vals.data(), want.data());
    p.run(cpu, a.view(), b.view(), vals.data(), vals.data());
    EXPECT_EQ(vals, want);
  }
}

TEST(ApiMisuse, OverlapsComparesAddressRangesOnly) {
  std::vector<float> buf(20);
  const DenseView<const float> x{buf.data(), 2, 5}, y{buf.data() + 10, 2, 5},
      z{buf.data() + 9, 1, 5};
  EXPECT_FALSE(overlaps(x, y));  // adjacent
  EXPECT_TRUE(overlaps(y, z));
  EXPECT_TRUE(overlaps(x, z));
  EXPECT_TRUE(overlaps(x, x));
  EXPECT_FALSE(overlaps(x, DenseView<const float>{nullptr, 2, 5}));
  EXPECT_FALSE(overlaps(x, DenseView<const float>{buf.data(), 0, 5}));  // empty
}

// `auto` may answer a ratio SpMM with no plan (the unfused pair is faster): running it anyway is
// an error that says so, not a null dereference. The same for a default-constructed plan.
TEST(ApiMisuse, RunningAnAbsentPlanIsAnError) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(0x5eed04);
  const HostCsr s = test::random_pattern(6, 5, rng, [](std::int64_t) { return 2; });
  auto p = make_ratio_spmm_plan(cpu, s.view(), 1);
  ASSERT_FALSE(p.plan) << "auto picked " << p.variant->name() << " at K = 1; pick a smaller K";
  const auto a = random_dense(6, 1, rng), b = random_dense(5, 1, rng);
  HostDense<float> c(6, 1);
  expect_error([&] { p.run(cpu, nullptr, a.view(), b.view(), 0.1f, c.view()); }, "separate SDDMM");
  expect_error([&] { p.run_product(cpu, nullptr, a.view(), b.view(), c.view()); },
               "separate SDDMM");
  expect_error([&] { p.run_residual(cpu, nullptr, nullptr, a.view(), b.view(), c.view()); },
               "separate SDDMM");
  expect_error([&] { PreparedSpmm().run(cpu, nullptr, b.view(), c.view()); }, "without a plan");
  std::vector<float> out(s.nnz());
  expect_error([&] { PreparedSddmm().run(cpu, a.view(), b.view(), nullptr, out.data()); },
               "without a plan");
}

// The ratio SpMM's eps guards zero dot products: a negative, NaN or infinite one is an error.
TEST(ApiMisuse, RatioEpsMustBeFiniteAndNonNegative) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(0x5eed05);
  const HostCsr s = test::random_pattern(6, 5, rng, [](std::int64_t) { return 2; });
  auto p = make_ratio_spmm_plan(cpu, s.view(), 8, "omp.ratio_spmm.rows");
  ASSERT_TRUE(p.plan);
  const auto a = random_dense(6, 8, rng), b = random_dense(5, 8, rng);
  HostDense<float> c(6, 8);
  for (float eps : {-1e-3f, std::nanf(""), std::numeric_limits<float>::infinity()})
    expect_error([&] { p.run(cpu, nullptr, a.view(), b.view(), eps, c.view()); },
                 "eps must be a finite number >= 0");
  p.run(cpu, nullptr, a.view(), b.view(), 0.0f, c.view());  // 0 is allowed
}

// Sᵀ·B runs on a transposed copy; a shape error names the user's S and operands, not Sᵀ's shape as
// S's ("S 3x4" for a 4 x 3 S).
TEST(ApiMisuse, TransposedShapeErrorsNameSAsGiven) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(0x5eed05);
  const HostCsr s = test::random_pattern(4, 3, rng, [](std::int64_t) { return 2; });
  for (const std::string& name : cpu_names(spmm_variants())) {
    SCOPED_TRACE(name);
    auto p = make_spmm_plan(cpu, s.view(), 5, Op::kTrans, name);
    const auto b = random_dense(5, 5, rng);
    HostDense<float> c(3, 5);
    expect_error([&] { p.run(cpu, nullptr, b.view(), c.view()); },
                 "Sᵀ·B with S 4 x 3: B must be 4 x 5 and C 3 x 5, got B 5 x 5");
  }
  for (const std::string& name : cpu_names(ratio_spmm_variants())) {
    SCOPED_TRACE(name);
    auto p = make_ratio_spmm_plan(cpu, s.view(), 64, name, Op::kTrans);
    ASSERT_TRUE(p.plan);
    const auto a = random_dense(4, 64, rng), b = random_dense(4, 64, rng);
    HostDense<float> c(3, 64);
    expect_error([&] { p.run(cpu, nullptr, a.view(), b.view(), 0.1f, c.view()); },
                 "over Sᵀ with S 4 x 3: A and C must be 3 x 64 and B 4 x 64, got A 4 x 64");
  }
}

// The misuse that was already caught, kept so: shapes that differ from the plan's, K < 1, broken
// patterns, unknown names, and an empty (0 x 0) matrix that runs.
TEST(ApiMisuse, ShapesPatternsNamesAndEmptyMatrices) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(0x5eed06);
  const HostCsr s = test::random_pattern(4, 3, rng, [](std::int64_t) { return 2; });
  for (const std::string& name : cpu_names(sddmm_variants())) {
    SCOPED_TRACE(name);
    auto p = make_sddmm_plan(cpu, s.view(), 5, name);
    const auto a = random_dense(4, 5, rng), b = random_dense(3, 5, rng),
               b4 = random_dense(4, 5, rng), a6 = random_dense(4, 6, rng);
    std::vector<float> out(s.nnz());
    expect_error([&] { p.run(cpu, a.view(), b4.view(), nullptr, out.data()); }, "B 4x5");
    expect_error([&] { p.run(cpu, a6.view(), b.view(), nullptr, out.data()); }, "A 4x6");
  }
  for (int k : {0, -1}) {
    expect_error([&] { make_sddmm_plan(cpu, s.view(), k); }, "at least 1");
    expect_error([&] { make_spmm_plan(cpu, s.view(), k, Op::kTrans); }, "at least 1");
    expect_error([&] { make_ratio_spmm_plan(cpu, s.view(), k); }, "at least 1");
  }
  HostCsr bad = s;
  bad.col_idx[0] = -1;
  expect_error([&] { make_spmm_plan(cpu, bad.view(), 5); }, "column index -1 out of range");
  CsrView short_nnz = s.view();
  short_nnz.nnz = s.nnz() - 1;
  expect_error([&] { make_sddmm_plan(cpu, short_nnz, 5); }, "but nnz is");
  expect_error([&] { make_sddmm_plan(cpu, s.view(), 5, "omp.sddmm.none"); },
               "unknown SDDMM variant");
  expect_error([&] { make_ratio_spmm_plan(cpu, s.view(), 5, "none"); },
               "unknown ratio SpMM variant");

  HostCsr empty;  // 0 x 0
  for (const std::string& name : cpu_names(spmm_variants()))
    for (Op op : {Op::kNoTrans, Op::kTrans})
      make_spmm_plan(cpu, empty.view(), 3, op, name)
          .run(cpu, nullptr, {nullptr, 0, 3}, {nullptr, 0, 3});
  for (const std::string& name : cpu_names(sddmm_variants()))
    make_sddmm_plan(cpu, empty.view(), 3, name)
        .run(cpu, {nullptr, 0, 3}, {nullptr, 0, 3}, nullptr, nullptr);
  for (const std::string& name : cpu_names(ratio_spmm_variants()))
    for (Op op : {Op::kNoTrans, Op::kTrans}) {
      auto p = make_ratio_spmm_plan(cpu, empty.view(), 64, name, op);
      if (p.plan) p.run(cpu, nullptr, {nullptr, 0, 64}, {nullptr, 0, 64}, 0.f, {nullptr, 0, 64});
    }
}

}  // namespace
}  // namespace fk
