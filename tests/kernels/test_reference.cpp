// Tiny hand-computed cases for the reference variants: the oracle must itself be right.
#include <gtest/gtest.h>

#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk {
namespace {

// S = [[2 0 1], [0 0 0], [0 -1 0]] (3 x 3); A = [[1 2], [3 4], [5 6]]; B = [[1 0], [0 1], [1 1]].
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
  std::vector<float> out(3);
  plan.run(cpu, t.a.view(), t.b.view(), nullptr, out.data());
  // (0,0): [1 2].[1 0] = 1; (0,2): [1 2].[1 1] = 3; (2,1): [5 6].[0 1] = 6
  EXPECT_EQ(out, (std::vector<float>{1, 3, 6}));
  plan.run(cpu, t.a.view(), t.b.view(), t.s.vals.data(), out.data());
  EXPECT_EQ(out, (std::vector<float>{2, 3, -6}));
}

TEST(ReferenceSpmm, TinyExactBothOps) {
  Tiny t;
  Context cpu(DeviceKind::kCpu);
  HostDense<float> c(3, 2);
  auto plan = make_spmm_plan(cpu, t.s.view(), 2, Op::kNoTrans, "ref.spmm");
  plan.run(cpu, nullptr, t.b.view(), c.view());
  // row 0: 2*[1 0] + 1*[1 1] = [3 1]; row 1: 0; row 2: -1*[0 1] = [0 -1]
  EXPECT_EQ(c.values(), (std::vector<float>{3, 1, 0, 0, 0, -1}));
  auto tplan = make_spmm_plan(cpu, t.s.view(), 2, Op::kTrans, "ref.spmm");
  tplan.run(cpu, nullptr, t.a.view(), c.view());
  // Sᵀ = [[2 0 0], [0 0 -1], [1 0 0]]: rows [2 4], [-5 -6], [1 2]
  EXPECT_EQ(c.values(), (std::vector<float>{2, 4, -5, -6, 1, 2}));
  // Values supplied at run time replace S's own.
  std::vector<float> ones(3, 1.0f);
  tplan.run(cpu, ones.data(), t.a.view(), c.view());
  EXPECT_EQ(c.values(), (std::vector<float>{1, 2, 5, 6, 1, 2}));
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

}  // namespace
}  // namespace fk
