// app::repeatability_note: what the apps' kernel line adds when a plan's variant does not repeat
// bit for bit. The CUDA variants exist only in CUDA builds; unknown names count as repeatable.
#include <gtest/gtest.h>

#include <string>

#include "apps/common/repeatability.hpp"

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

}  // namespace
}  // namespace fk
