// fk-datagen as a user runs it (the built binary, FK_DATAGEN_EXE): -h and -q as in the apps, no
// abbreviated options, usage errors pointing at the subcommand's help, and its files read back.
#include <filesystem>
#include <string>

#include "core/io/ratings.hpp"
#include "tests/apps/app_test_util.hpp"

namespace fk {
namespace {

using Outcome = test::ExeOutcome;

Outcome run_datagen(const test::TempDir& dir, const std::string& args) {
  return test::run_executable(dir, FK_DATAGEN_EXE, args);
}

TEST(DatagenCli, ShortHelpAndQuietAsInTheApps) {
  test::TempDir dir;
  for (const char* args : {"-h", "ratings -h"}) {
    const Outcome help = run_datagen(dir, args);
    EXPECT_EQ(help.code, 0) << args << ": " << help.err;
    EXPECT_NE(help.out.find("usage"), std::string::npos) << args << ": " << help.out;
  }
  const std::string csv = dir.file("r.csv");
  const std::string small = "ratings --users 50 --items 40 --ratings 500 --min-user-ratings 5 ";
  const Outcome quiet = run_datagen(dir, small + "--out '" + csv + "' -q");
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "");  // -q: no "wrote ..." line either
  EXPECT_EQ(io::read_ratings(csv).size(), 500);
  const Outcome loud = run_datagen(dir, small + "--out '" + csv + "'");
  ASSERT_EQ(loud.code, 0) << loud.err;
  EXPECT_NE(loud.out.find("wrote " + csv), std::string::npos) << loud.out;
}

TEST(DatagenCli, UsageErrorsNameTheOptionAndTheSubcommandsHelp) {
  test::TempDir dir;
  // "--rat" was taken for --ratings.
  const Outcome abbreviated =
      run_datagen(dir, "ratings --rat 100 --out '" + dir.file("a.csv") + "'");
  EXPECT_EQ(abbreviated.code, 2);
  EXPECT_NE(abbreviated.err.find("'--rat'"), std::string::npos) << abbreviated.err;
  EXPECT_NE(abbreviated.err.find("(see fk-datagen ratings --help)"), std::string::npos)
      << abbreviated.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("a.csv")));
  const Outcome no_out = run_datagen(dir, "lda --docs 10");
  EXPECT_EQ(no_out.code, 2);
  EXPECT_NE(no_out.err.find("(see fk-datagen lda --help)"), std::string::npos) << no_out.err;
}

}  // namespace
}  // namespace fk
