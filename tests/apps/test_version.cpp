// --version: every executable names itself and the commit it was built from (fk::build_commit(),
// the value fk-bench's CSV and the apps' summary.json record), and exits 0 without running.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/build_info.hpp"
#include "tests/apps/app_test_util.hpp"

namespace fk {
namespace {

TEST(Version, EveryExecutableSaysItsBuild) {
  const std::string build = build_commit();
  ASSERT_FALSE(build.empty());
  test::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> exes = {
      {"fk-lda", FK_LDA_EXE}, {"fk-als", FK_ALS_EXE}, {"fk-bench", FK_BENCH_EXE},
      {"fk-datagen", FK_DATAGEN_EXE}};
  for (const auto& [name, exe] : exes) {
    const test::ExeOutcome o = test::run_executable(dir, exe, "--version");
    EXPECT_EQ(o.code, 0) << name << ": " << o.err;
    EXPECT_EQ(o.out, name + " (factorkit " + build + ")\n") << name;
  }
}

}  // namespace
}  // namespace fk
