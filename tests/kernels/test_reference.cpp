// Tiny hand-computed cases for the reference variants: the oracle must itself be right (the
// conformance suites check every other variant against it, and not it against itself). Outputs
// are NaN-poisoned before each run.
#include <gtest/gtest.h>

#include <limits>

#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
namespace {

// S = [[2 0 1], [0 0 0], [0 -1 0]] (3 x 3); A = [[1 2], [3 4], [5 6]]; B = [[1 0], [0 1], [1 1]].
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Tiny {
  HostCsr s;
  HostDense<float> a{3, 2}, b{3, 2};
  Tiny() {
    s.rows = s.cols = 3;
    s.row_ptr = {0, 2, 2, 3};
    s.col_idx = {0, 2, 1};
    s.vals = {2, 1, -1};
    a.storage() = {1, 2, 3, 4, 5, 6};
    b.storage() = {1, 0, 0, 1, 1, 1};
  }
};

TEST(ReferenceSddmm, TinyExact) {
  Tiny t;
  Context cpu(DeviceKind::kCpu);
  auto plan = make_sddmm_plan(cpu, t.s.view(), 2, "ref.sddmm");
  std::vector<float> out(3, kNaN);
  plan.run(cpu, t.a.view(), t.b.view(), nullptr, out.data());
  // (0,0): [1 2].[1 0] = 1; (0,2): [1 2].[1 1] = 3; (2,1): [5 6].[0 1] = 6
  EXPECT_EQ(out, (std::vector<float>{1, 3, 6}));
  out.assign(3, kNaN);
  plan.run(cpu, t.a.view(), t.b.view(), t.s.vals.data(), out.data());
  EXPECT_EQ(out, (std::vector<float>{2, 3, -6}));
}

TEST(ReferenceSpmm, TinyExactBothOps) {
  Tiny t;
  Context cpu(DeviceKind::kCpu);
  HostDense<float> c(3, 2, kNaN);
  auto plan = make_spmm_plan(cpu, t.s.view(), 2, Op::kNoTrans, "ref.spmm");
  plan.run(cpu, nullptr, t.b.view(), c.view());
  // row 0: 2*[1 0] + 1*[1 1] = [3 1]; row 1: 0; row 2: -1*[0 1] = [0 -1]
  EXPECT_EQ(c.values(), (std::vector<float>{3, 1, 0, 0, 0, -1}));
  auto tplan = make_spmm_plan(cpu, t.s.view(), 2, Op::kTrans, "ref.spmm");
  c.storage().assign(6, kNaN);
  tplan.run(cpu, nullptr, t.a.view(), c.view());
  // Sᵀ = [[2 0 0], [0 0 -1], [1 0 0]]: rows [2 4], [-5 -6], [1 2]
  EXPECT_EQ(c.values(), (std::vector<float>{2, 4, -5, -6, 1, 2}));
  // Values supplied at run time (in S's order: (0,0), (0,2), (2,1)) replace S's own, each at its
  // own entry of Sᵀ: rows 10*[1 2], 30*[5 6], 20*[1 2].
  const std::vector<float> vals = {10, 20, 30};
  c.storage().assign(6, kNaN);
  tplan.run(cpu, vals.data(), t.a.view(), c.view());
  EXPECT_EQ(c.values(), (std::vector<float>{10, 20, 150, 180, 20, 40}));
}

// The fused forms on the same S, A, B. Dot products A[i]·B[c_j]: (0,0) 1, (0,2) 3, (2,1) 6.
TEST(ReferenceRatioSpmm, TinyExactForms) {
  Tiny t;
  Context cpu(DeviceKind::kCpu);
  auto plan = make_ratio_spmm_plan(cpu, t.s.view(), 2, "ref.ratio_spmm");
  ASSERT_TRUE(plan.plan);
  HostDense<float> c(3, 2, kNaN);
  // Ratio, eps 1: row 0 2/2*[1 0] + 1/4*[1 1]; row 2 -1/7*[0 1].
  plan.run(cpu, nullptr, t.a.view(), t.b.view(), 1.0f, c.view());
  const std::vector<float> ratio = {1.25f, 0.25f, 0, 0, 0, -1.0f / 7};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(c.values()[i], ratio[i]) << i;
  // Product, unscaled: row 0 1*[1 0] + 3*[1 1]; row 2 6*[0 1]. Scaled by {2, 1, -1}: [5 3], [0 -6].
  c.storage().assign(6, kNaN);
  plan.run_product(cpu, nullptr, t.a.view(), t.b.view(), c.view());
  EXPECT_EQ(c.values(), (std::vector<float>{4, 3, 0, 0, 0, 6}));
  c.storage().assign(6, kNaN);
  plan.run_product(cpu, t.s.vals.data(), t.a.view(), t.b.view(), c.view());
  EXPECT_EQ(c.values(), (std::vector<float>{5, 3, 0, 0, 0, -6}));
  // Residual, S's own values, scale 1: row 0 (2-1)*[1 0] + (1-3)*[1 1]; row 2 (-1-6)*[0 1].
  c.storage().assign(6, kNaN);
  plan.run_residual(cpu, nullptr, nullptr, t.a.view(), t.b.view(), c.view());
  EXPECT_EQ(c.values(), (std::vector<float>{-1, -2, 0, 0, 0, -7}));
  // Over Sᵀ = [[2 0 0], [0 0 -1], [1 0 0]] with A's rows for S's columns and B's for its rows:
  // dots (0,0) 1, (1,2) [3 4].[1 1] = 7, (2,0) [5 6].[1 0] = 5; eps 1.
  auto tplan = make_ratio_spmm_plan(cpu, t.s.view(), 2, "ref.ratio_spmm", Op::kTrans);
  ASSERT_TRUE(tplan.plan);
  c.storage().assign(6, kNaN);
  tplan.run(cpu, nullptr, t.a.view(), t.b.view(), 1.0f, c.view());
  const std::vector<float> transposed = {1, 0, -1.0f / 8, -1.0f / 8, 1.0f / 6, 0};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(c.values()[i], transposed[i]) << i;
}

TEST(Registry, UnknownAndMisplacedVariantsAreErrors) {
  Tiny t;
  Context cpu(DeviceKind::kCpu);
  EXPECT_THROW(make_sddmm_plan(cpu, t.s.view(), 2, "no.such.variant"), Error);
  EXPECT_THROW(make_sddmm_plan(cpu, t.s.view(), 0, "ref.sddmm"), Error);
  try {
    make_spmm_plan(cpu, t.s.view(), 2, Op::kNoTrans, "nope");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ref.spmm"), std::string::npos) << e.what();
  }
}

// A GPU variant named for a CPU context is an error that says where each runs (CUDA builds
// register them; no device is needed to be refused).
TEST(Registry, GpuVariantOnACpuContextIsAnError) {
  Tiny t;
  Context cpu(DeviceKind::kCpu);
  int named = 0;
  for (const SpmmVariant* v : spmm_variants()) {
    if (v->backend() != Backend::kCuda) continue;
    ++named;
    try {
      make_spmm_plan(cpu, t.s.view(), 2, Op::kNoTrans, v->name());
      ADD_FAILURE() << v->name() << " made a plan on the CPU";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("runs on the gpu but the context is CPU"),
                std::string::npos)
          << e.what();
    }
  }
  if (named == 0) GTEST_SKIP() << "a CPU-only build registers no GPU variant";
}

// A host pattern is validated when a plan is made (an index out of range is an error, not a
// write out of bounds); an empty matrix runs without values on every CPU variant, both ops.
TEST(Registry, BadPatternsAreErrorsAndEmptyMatricesNeedNoValues) {
  Context cpu(DeviceKind::kCpu);
  HostCsr bad;
  bad.rows = 2;
  bad.cols = 3;
  bad.row_ptr = {0, 1, 2};
  bad.col_idx = {0, 7};
  bad.vals = {1, 1};
  EXPECT_THROW(make_spmm_plan(cpu, bad.view(), 4, Op::kNoTrans), Error);
  EXPECT_THROW(make_spmm_plan(cpu, bad.view(), 4, Op::kTrans), Error);
  EXPECT_THROW(make_sddmm_plan(cpu, bad.view(), 4), Error);
  EXPECT_THROW(make_ratio_spmm_plan(cpu, bad.view(), 4, "ref.ratio_spmm"), Error);
  bad.col_idx = {0, 1};
  bad.row_ptr = {0, 2, 1};
  EXPECT_THROW(make_spmm_plan(cpu, bad.view(), 4, Op::kNoTrans), Error);

  HostCsr empty;
  empty.rows = 3;
  empty.cols = 2;
  empty.row_ptr = {0, 0, 0, 0};
  const int k = 5;
  std::vector<std::string> names = {"auto"};
  for (const SpmmVariant* v : spmm_variants())
    if (v->backend() != Backend::kCuda) names.push_back(v->name());
  for (const std::string& name : names)
    for (Op op : {Op::kNoTrans, Op::kTrans}) {
      SCOPED_TRACE(name + (op == Op::kNoTrans ? " S*B" : " S^T*B"));
      const std::int64_t in = op == Op::kNoTrans ? 2 : 3, out = op == Op::kNoTrans ? 3 : 2;
      const HostDense<float> b(in, k, 1.0f);
      HostDense<float> c(out, k, kNaN);
      auto plan = make_spmm_plan(cpu, empty.view(), k, op, name);
      plan.run(cpu, nullptr, b.view(), c.view());
      EXPECT_EQ(c.values(), std::vector<float>(static_cast<std::size_t>(out * k), 0.0f));
    }
  auto ratio = make_ratio_spmm_plan(cpu, empty.view(), k, "ref.ratio_spmm");
  const HostDense<float> a(3, k, 1.0f), b(2, k, 1.0f);
  HostDense<float> c(3, k, kNaN);
  ratio.run(cpu, nullptr, a.view(), b.view(), 0.5f, c.view());
  EXPECT_EQ(c.values(), std::vector<float>(static_cast<std::size_t>(3 * k), 0.0f));
}

}  // namespace
}  // namespace fk
