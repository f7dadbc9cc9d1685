// How much device memory each CUDA plan keeps once prepared (what --verbose logs per plan, and what
// session 37 found too large: transposed plans holding a transposed copy of S's values that no run
// read). For every applicable CUDA SpMM (S·B and Sᵀ·B), SDDMM and ratio SpMM variant on an
// LDA-shaped matrix of 2.2M nonzeros, the device bytes that DeviceBuffer counts after the plan is
// made and has run once, less those before, against what the plan needs by design (bytes a nonzero; per-row arrays
// and cuSPARSE's buffers are small beside them here):
//  * S·B: nothing per nonzero for the row kernels, which read S as given; one 4-byte array for
//    nnz_vsr's and ASpT's own order: at most 4.5.
//  * Sᵀ·B and the ratio SpMM over Sᵀ: Sᵀ's pattern (4) and the gather of S's values into its order
//    (4): at most 8.5, whether the kernels read S's values through it (row_csc, row_split, vdl:
//    values within a quarter of L2, as here) or each run gathers them into Sᵀ's order (cuSPARSE on
//    the transpose, the fused ratio SpMM), which it does in the context's run scratch; 12.5 where
//    the kernel keeps its own order (nnz_vsr, ASpT). Above twice the L2 the gather is windowed and
//    holds its pieces too, 16 bytes each (not this matrix).
//  * SDDMM: at most 12.5 (the shared-memory walker's, the largest: 12).
// The tensor-core variants encode S in V x 1 vectors, whose padding on a general matrix like this
// one sets their size (16-90 bytes a nonzero at V = 1-8 here): they are printed, not bounded.
// The figures are printed (docs/benchmarks/memory.md keeps the H200's). What plans need only while
// they run is the context's (Context::run_scratch), taken before the plans are made so that it does
// not count here; that a plan adds none of its own is PlansOfOneContextShareTheirRunScratch. GPU
// only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/device_buffer.hpp"
#include "core/memory.hpp"
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

// 40000 documents x 20000 words, 10-89 words a document and every 500th 3000: 2M nonzeros.
HostCsr lda_shaped() {
  Rng rng(11);
  return test::random_pattern(40000, 20000, rng, [&](std::int64_t r) {
    return r % 500 == 7 ? std::int64_t(3000) : std::int64_t(10 + rng.below(80));
  });
}

constexpr int kK = 64;

// Prints what a plan keeps and checks it against `allowed` bytes a nonzero (none: < 0).
void check_held(const std::string& what, std::int64_t bytes, const HostCsr& s, double allowed) {
  const double per_nonzero = double(bytes) / double(s.nnz());
  std::printf("%-48s %8.2f bytes a nonzero (%.1f MiB)\n", what.c_str(), per_nonzero, double(bytes) / 1048576.0);
  if (allowed >= 0) {
    EXPECT_LE(per_nonzero, allowed) << what;
  }
}

bool tensor_core(const std::string& name) { return name.find(".tc_v") != std::string::npos; }

TEST(CudaPlanMemory, WhatEachPlanKeeps) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const HostCsr s = lda_shaped();
  const DeviceCsr ds(s);
  // Operands for one run of each plan (what a plan allocates on its first run counts). Ones:
  // positive dot products for the ratio forms.
  const std::int64_t wide = std::max(s.rows, s.cols);
  // The context's run scratch, larger than any run here asks for (gathers of nnz floats; long
  // rows' partial sums of far fewer).
  for (const auto slot : {Context::kGatheredValues, Context::kSecondGatheredValues, Context::kKernelScratch})
    ctx.run_scratch(slot, 4 * s.nnz());
  DeviceBuffer<float> a(std::vector<float>(wide * kK, 1.0f)), b(std::vector<float>(wide * kK, 1.0f)),
      c(wide * kK), out(s.nnz());
  for (const Op op : {Op::kNoTrans, Op::kTrans}) {
    KernelProblem p{features(s.view()), kK};
    if (op == Op::kTrans) std::swap(p.sparse.rows, p.sparse.cols), p.transposed = true;
    const std::int64_t m = op == Op::kNoTrans ? s.rows : s.cols, n = op == Op::kNoTrans ? s.cols : s.rows;
    const DenseView<const float> va{a.data(), m, kK}, vb{b.data(), n, kK};
    const DenseView<float> vc{c.data(), m, kK};
    for (const SpmmVariant* v : spmm_variants()) {
      const std::string name = v->name();
      p.precision = v->half_precision() ? Precision::kF16 : Precision::kF32;
      if (name.rfind("cuda.", 0) != 0 || !v->why_not(p).empty()) continue;
      const std::int64_t before = device_bytes_in_use();
      PreparedSpmm plan = make_spmm_plan(ctx, ds.view(), kK, op, name, p.precision);
      plan.run(ctx, nullptr, vb, vc);
      ctx.synchronize();
      const bool own_order = name == "cuda.spmm.nnz_vsr" || name == "cuda.spmm.aspt";
      const double allowed = tensor_core(name)    ? -1
                             : op == Op::kNoTrans ? 4.5
                             : own_order          ? 12.5
                                                  : 8.5;
      check_held("SpMM " + name + (op == Op::kTrans ? " S^T*B" : " S*B"), device_bytes_in_use() - before, s, allowed);
    }
    for (const RatioSpmmVariant* v : ratio_spmm_variants()) {
      const std::string name = v->name();
      if (name.rfind("cuda.", 0) != 0 || !v->why_not(p).empty()) continue;
      const std::int64_t before = device_bytes_in_use();
      PreparedRatioSpmm plan = make_ratio_spmm_plan(ctx, ds.view(), kK, name, op);
      // Its three forms, as fk-lda (ratio) and fk-als and fk-sfa (product, residual) run them.
      plan.run(ctx, nullptr, va, vb, 1e-6f, vc);
      plan.run_product(ctx, nullptr, va, vb, vc);
      plan.run_residual(ctx, nullptr, nullptr, va, vb, vc);
      ctx.synchronize();
      check_held("ratio " + name + (op == Op::kTrans ? " S^T" : " S"), device_bytes_in_use() - before, s,
                 op == Op::kNoTrans ? 4.5 : 8.5);
    }
  }
  KernelProblem p{features(s.view()), kK};
  for (const SddmmVariant* v : sddmm_variants()) {
    const std::string name = v->name();
    p.precision = v->half_precision() ? Precision::kF16 : Precision::kF32;
    if (name.rfind("cuda.", 0) != 0 || !v->why_not(p).empty()) continue;
    const std::int64_t before = device_bytes_in_use();
    PreparedSddmm plan = make_sddmm_plan(ctx, ds.view(), kK, name, p.precision);
    plan.run(ctx, {a.data(), s.rows, kK}, {b.data(), s.cols, kK}, ds.vals.data(), out.data());
    ctx.synchronize();
    check_held("SDDMM " + name, device_bytes_in_use() - before, s, tensor_core(name) ? -1 : 12.5);
  }
}

// Plans of one context share the scratch their runs need (Context::run_scratch): a second fused
// ratio plan over a transpose with long rows adds nothing when it runs, where the first one's run
// took the gather of its values into the transpose's order and its long rows' partial sums; and
// running the two in turn leaves each one's result as it was (the same bits as its first run).
TEST(CudaPlanMemory, PlansOfOneContextShareTheirRunScratch) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  Rng rng(12);
  // 20000 rows, each with columns 0-31 and 5 more: Sᵀ has 32 rows of 20000, cut into segments.
  const auto pattern = [&] {
    HostCsr s = test::random_pattern(20000, 4000, rng, [](std::int64_t) { return std::int64_t(5); });
    HostCsr out;
    out.rows = s.rows;
    out.cols = s.cols;
    for (std::int64_t r = 0; r < s.rows; ++r) {
      for (std::int32_t c = 0; c < 32; ++c) out.col_idx.push_back(c);
      for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j)
        if (s.col_idx[j] >= 32) out.col_idx.push_back(s.col_idx[j]);
      out.row_ptr.push_back(static_cast<std::int64_t>(out.col_idx.size()));
    }
    for (std::size_t j = 0; j < out.col_idx.size(); ++j) out.vals.push_back(float(rng.uniform(0.5, 1.5)));
    return out;
  };
  HostCsr s1 = pattern(), s2 = pattern();
  if (s2.nnz() > s1.nnz()) std::swap(s1, s2);  // the second needs no more than the first took
  const DeviceCsr d1(s1), d2(s2);
  constexpr int k = 256;
  DeviceBuffer<float> a(std::vector<float>(s1.cols * k, 1.0f)), b(std::vector<float>(s1.rows * k, 1.0f)),
      c(s1.cols * k);
  const DenseView<const float> va{a.data(), s1.cols, k}, vb{b.data(), s1.rows, k};
  const DenseView<float> vc{c.data(), s1.cols, k};
  PreparedRatioSpmm p1 = make_ratio_spmm_plan(ctx, d1.view(), k, "cuda.ratio_spmm.fused", Op::kTrans);
  const auto run = [&](PreparedRatioSpmm& p) {
    p.run(ctx, nullptr, va, vb, 1e-6f, vc);
    ctx.synchronize();
    return c.to_host();
  };
  std::int64_t before = device_bytes_in_use();
  const std::vector<float> first = run(p1);
  const std::int64_t gathered = s1.nnz() * std::int64_t(sizeof(float));
  EXPECT_GT(device_bytes_in_use() - before, gathered + (std::int64_t(4) << 20))
      << "the first run takes its values' gather and the scratch of its long rows";
  PreparedRatioSpmm p2 = make_ratio_spmm_plan(ctx, d2.view(), k, "cuda.ratio_spmm.fused", Op::kTrans);
  before = device_bytes_in_use();
  run(p2);
  EXPECT_EQ(device_bytes_in_use() - before, 0) << "the second plan's run shares the first's scratch";
  EXPECT_EQ(run(p1), first);
}

}  // namespace
}  // namespace fk

#endif  // FK_WITH_CUDA
