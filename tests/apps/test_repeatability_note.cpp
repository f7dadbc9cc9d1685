// app::repeatability_note: what the apps' kernel line adds when a plan's variant does not repeat
// bit for bit. The CUDA variants exist only in CUDA builds; unknown names count as repeatable.
#include <gtest/gtest.h>

#include <string>

#include "apps/common/repeatability.hpp"
#include "tests/apps/test_lda_util.hpp"

namespace fk {
namespace {

TEST(RepeatabilityNote, NamesEachUnrepeatableVariantOnce) {
  EXPECT_EQ(app::repeatability_note(""), "");
  EXPECT_EQ(app::repeatability_note("omp.sddmm.aspt, omp.spmm.rows (transposed)"), "");
  const std::string names =
      "cuda.ratio_spmm.fused, cuda.spmm.cusparse, cuda.spmm.nnz_vsr (transposed), "
      "cuda.spmm.cusparse (transposed), cuda.sddmm.convert";
#if FK_WITH_CUDA
  EXPECT_EQ(app::repeatability_note(names),
            "; not bitwise repeatable: cuda.spmm.cusparse, cuda.spmm.nnz_vsr");
#else
  EXPECT_EQ(app::repeatability_note(names), "");  // no CUDA variants in this build
#endif
}

// --repeatable is a common option: taken, recorded in config.ini, and (a kernel choice, not a
// model setting) no obstacle to resuming a checkpoint written without it. On the CPU every variant
// repeats, so nothing is replaced; the GPU side is tests/kernels/test_cuda_repeatability.cpp.
TEST(RepeatabilityNote, RepeatableOptionIsACommonKernelChoice) {
  test::TempDir dir;
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"--input", "gen:default:docs=200,words=100,topics=3",
                                     "--topics", "3", "--device", "cpu", "--out", dir.path(),
                                     "--checkpoint-every", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_lda(args);
  };
  const auto first = run({"--iters", "1"});
  ASSERT_EQ(first.status, 0) << first.err;
  const auto resumed = run({"--iters", "2", "--resume", "--repeatable"});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resumed from"), std::string::npos) << resumed.err;
  EXPECT_NE(test::slurp(dir.file("config.ini")).find("repeatable = true"), std::string::npos);
  EXPECT_EQ(resumed.err.find("not bitwise repeatable"), std::string::npos) << resumed.err;
}

}  // namespace
}  // namespace fk
