// fk-datagen as a user runs it (the built binary, FK_DATAGEN_EXE): -h and -q as in the apps, no
// abbreviated options, usage errors pointing at the subcommand's help, and its files read back
// against the generators.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/generate/lda_corpus.hpp"
#include "core/generate/sparse.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/npy.hpp"
#include "core/io/ratings.hpp"
#include "core/io/uci.hpp"
#include "tests/apps/app_test_util.hpp"
#include "tests/core/test_io_util.hpp"

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

// Standard output that cannot be written fails the command (exit 1, said on stderr) instead of
// ending 0 with the output lost; the same for fk-bench, whose main is its own. --out /dev/stdout
// writes into whatever stdout is (a pipe; a file redirected with >>, appended to), and a device
// is written in place: here private copies of /dev/full's and /dev/null's nodes, so that a
// regression that renames a file over the node harms nothing of the machine's.
TEST(DatagenCli, LostStandardOutputFailsAndDevicesAreWrittenInPlace) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  test::TempDir dir;
  for (const std::string exe : {FK_DATAGEN_EXE, FK_BENCH_EXE}) {
    const std::string command = "'" + exe + "' --help >/dev/full 2>'" + dir.file("err") + "'";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << exe;
    EXPECT_EQ(WEXITSTATUS(status), 1) << exe;
    EXPECT_NE(test::slurp(dir.file("err")).find("cannot write the standard output (No space left"),
              std::string::npos)
        << exe << ": " << test::slurp(dir.file("err"));
  }
  const std::string small = "'" + std::string(FK_DATAGEN_EXE) +
                            "' ratings --users 50 --items 40 --ratings 1000 -q --out /dev/stdout";
  ASSERT_EQ(std::system((small + " | wc -l >'" + dir.file("lines") + "'").c_str()), 0);
  EXPECT_EQ(test::slurp(dir.file("lines")), "1001\n");
  test::write_bytes(dir.file("log.csv"), "kept\n");
  ASSERT_EQ(std::system((small + " >>'" + dir.file("log.csv") + "'").c_str()), 0);
  const std::string appended = test::slurp(dir.file("log.csv"));
  EXPECT_EQ(appended.rfind("kept\nuser,item,rating\n", 0), 0u) << appended.substr(0, 40);

  const std::string full = dir.file("full"), null = dir.file("null");
  if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0 ||
      ::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot make device nodes here (not root, or a nodev mount)";
  const Outcome to_null =
      run_datagen(dir, "ratings --users 50 --items 40 --ratings 1000 -q --out '" + null + "'");
  EXPECT_EQ(to_null.code, 0) << to_null.err;
  EXPECT_TRUE(std::filesystem::is_character_file(null));
  const Outcome to_full =
      run_datagen(dir, "ratings --users 50 --items 40 --ratings 1000 -q --out '" + full + "'");
  EXPECT_EQ(to_full.code, 1);
  EXPECT_NE(to_full.err.find("write error on " + full), std::string::npos) << to_full.err;
  EXPECT_TRUE(std::filesystem::is_character_file(full));
}

// lda and sparse write what the generators give for the same spec (the apps' gen: inputs), and
// a bad --out of lda is refused before generating.
TEST(DatagenCli, LdaAndSparseWriteTheGeneratorsOutput) {
  test::TempDir dir;
  const Outcome lda = run_datagen(dir, "lda --docs 60 --words 90 --topics 3 --mean-length 20 "
                                       "--seed 4 -q --out '" + dir.file("corpus") + "'");
  ASSERT_EQ(lda.code, 0) << lda.err;
  gen::LdaCorpusSpec spec;
  spec.docs = 60;
  spec.words = 90;
  spec.topics = 3;
  spec.mean_doc_length = 20;
  spec.seed = 4;
  const gen::GeneratedCorpus want = gen::generate_lda_corpus(spec);
  const io::Corpus got = io::read_uci(dir.file("corpus/docword.txt"), dir.file("corpus/vocab.txt"));
  EXPECT_EQ(got.counts.row_ptr, want.counts.row_ptr);
  EXPECT_EQ(got.counts.col_idx, want.counts.col_idx);
  EXPECT_EQ(got.counts.vals, want.counts.vals);
  EXPECT_EQ(got.vocab, want.vocab);
  const HostDense<float> topics = io::read_npy_f32(dir.file("corpus/true_topics.npy"));
  EXPECT_EQ(topics.values(), want.topics.values());
  EXPECT_EQ(test::list_dir(dir.file("corpus")),
            (std::vector<std::string>{"docword.txt", "true_topics.npy", "vocab.txt"}));

  const std::string sparse_spec = "powerlaw:rows=70,cols=50,nnz=400,seed=3";
  const Outcome sparse =
      run_datagen(dir, "sparse --spec " + sparse_spec + " -q --out '" + dir.file("s.mtx") + "'");
  ASSERT_EQ(sparse.code, 0) << sparse.err;
  const HostCsr m = gen::generate_sparse(gen::parse_sparse_spec(sparse_spec));
  const HostCsr read = io::read_matrix_market(dir.file("s.mtx"));
  EXPECT_EQ(read.row_ptr, m.row_ptr);
  EXPECT_EQ(read.col_idx, m.col_idx);
  EXPECT_EQ(read.vals, m.vals);

  test::write_bytes(dir.file("plain"), "x");
  const Outcome bad = run_datagen(dir, "lda --preset nytimes -q --out '" + dir.file("plain/c") + "'");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("is not a directory"), std::string::npos) << bad.err;
  // A folder in --out named like one of the files: a usage error naming --out (exit 2, as the
  // training apps give), before anything is generated.
  std::filesystem::create_directories(dir.file("in-the-way/docword.txt"));
  const Outcome in_the_way = run_datagen(dir, "lda --preset nytimes -q --out '" + dir.file("in-the-way") + "'");
  EXPECT_EQ(in_the_way.code, 2) << in_the_way.err;
  EXPECT_NE(in_the_way.err.find("--out"), std::string::npos) << in_the_way.err;
  EXPECT_NE(in_the_way.err.find("docword.txt"), std::string::npos) << in_the_way.err;
}

// Every subcommand gives an unusable --out the exit status lda and the training apps give it
// (apps/common/app_main.hpp): a place that cannot be written (below a plain file) is a runtime
// failure, 1, naming the path; a folder where the output is to be written, or an empty name, is a
// usage error naming --out and the folder, 2. ratings and sparse had given 2 for all of them. Nothing is written.
TEST(DatagenCli, UnusableOutExitsAsInEverySubcommandAndApp) {
  test::TempDir dir;
  test::write_bytes(dir.file("plain"), "x");
  std::filesystem::create_directories(dir.file("folder.csv"));
  std::filesystem::create_directories(dir.file("folder.mtx"));
  std::filesystem::create_directories(dir.file("corpus/docword.txt"));
  struct Case {
    std::string command, below_a_file, folder_in_the_way;
  };
  const std::vector<Case> cases = {
      {"lda --docs 20 --words 30 --topics 2 --mean-length 10 -q", "plain/corpus", "corpus"},
      {"ratings --users 50 --items 40 --ratings 500 -q", "plain/r.csv", "folder.csv"},
      {"sparse --spec uniform:rows=20,cols=20,nnz=50 -q", "plain/s.mtx", "folder.mtx"},
  };
  for (const Case& c : cases) {
    const Outcome below = run_datagen(dir, c.command + " --out '" + dir.file(c.below_a_file) + "'");
    EXPECT_EQ(below.code, 1) << c.command << ": " << below.err;
    EXPECT_NE(below.err.find(dir.file("plain")), std::string::npos) << c.command << ": " << below.err;
    EXPECT_NE(below.err.find("is not a directory"), std::string::npos)
        << c.command << ": " << below.err;
    const Outcome folder =
        run_datagen(dir, c.command + " --out '" + dir.file(c.folder_in_the_way) + "'");
    EXPECT_EQ(folder.code, 2) << c.command << ": " << folder.err;
    EXPECT_NE(folder.err.find("--out"), std::string::npos) << c.command << ": " << folder.err;
    EXPECT_NE(folder.err.find(dir.file(c.folder_in_the_way)), std::string::npos)
        << c.command << ": " << folder.err;
    const Outcome empty = run_datagen(dir, c.command + " --out ''");
    EXPECT_EQ(empty.code, 2) << c.command << ": " << empty.err;
    EXPECT_NE(empty.err.find("--out: "), std::string::npos) << c.command << ": " << empty.err;
  }
  EXPECT_EQ(test::list_dir(dir.path()),
            (std::vector<std::string>{"corpus", "folder.csv", "folder.mtx", "plain", "stderr.txt",
                                      "stdout.txt"}));
}

// A run killed outright (kill -9) leaves its staging folder in --out, with up to a whole data set
// in it; the next lda run into that folder removes it. A running one's (here this test's parent's
// pid) stays.
TEST(DatagenCli, LdaRemovesAKilledRunsStagingFolder) {
  test::TempDir dir;
  const pid_t gone = test::start_child([] {});  // a pid that no longer runs once reaped
  ASSERT_NE(test::wait_child(gone), -1);
  const std::string killed = ".fk-datagen." + std::to_string(gone) + ".Ab12Cd";
  const std::string running = ".fk-datagen." + std::to_string(::getppid()) + ".Ef34Gh";
  for (const std::string& stage : {killed, running}) {
    std::filesystem::create_directories(dir.file("corpus/" + stage));
    test::write_bytes(dir.file("corpus/" + stage + "/docword.txt"), "partial");
  }
  const std::string small = "lda --docs 20 --words 30 --topics 2 --mean-length 10 -q ";
  const Outcome lda = run_datagen(dir, small + "--out '" + dir.file("corpus") + "'");
  ASSERT_EQ(lda.code, 0) << lda.err;
  EXPECT_EQ(test::list_dir(dir.file("corpus")),
            (std::vector<std::string>{running, "docword.txt", "true_topics.npy", "vocab.txt"}));
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
  // A check across options that fails on a preset's value shows the value and says whose it is:
  // it was "--min-user-ratings: must not exceed items (5)", an option the user never gave.
  const Outcome small = run_datagen(dir, "ratings --users 5 --items 5 --ratings 10 --out '" +
                                             dir.file("s.csv") + "'");
  EXPECT_EQ(small.code, 2);
  EXPECT_NE(small.err.find("--min-user-ratings: 20 (the ml-100k preset's min-user-ratings) must "
                           "not exceed items = 5 ("),
            std::string::npos)
      << small.err;
  const Outcome range = run_datagen(dir, "ratings --min-rating 6 --out '" + dir.file("s.csv") + "'");
  EXPECT_EQ(range.code, 2);
  EXPECT_NE(range.err.find("got 6 and 5 (the ml-100k preset's max-rating)"), std::string::npos)
      << range.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.csv")));
}

}  // namespace
}  // namespace fk
