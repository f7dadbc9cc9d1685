// fk-sfa as a user runs it: the built binary (FK_SFA_EXE) on small ratings files on the CPU.
// Outputs and metrics, recommend/similar on the saved model, resume = uninterrupted, determinism,
// --compare without a GPU, bad input (exit 1, nothing written) and bad options (exit 2), and the
// MovieLens-100K quality target (skipped when ../shared/data is absent).
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/generate/ratings.hpp"
#include "core/io/npy.hpp"
#include "core/io/ratings.hpp"
#include "tests/apps/app_test_util.hpp"
#include "tests/core/test_io_util.hpp"

namespace fk {
namespace {

using Outcome = test::ExeOutcome;
using test::slurp;

Outcome run_sfa(const test::TempDir& dir, const std::string& args) {
  return test::run_executable(dir, FK_SFA_EXE, args);
}

// Small generated ratings (integers 1..5) written as CSV with raw ids "1".."N".
std::string write_small_csv(const test::TempDir& dir, std::uint64_t seed) {
  gen::RatingsSpec s;
  s.users = 150;
  s.items = 90;
  s.ratings = 4000;
  s.rank = 3;
  s.min_user_ratings = 8;
  s.seed = seed;
  const gen::GeneratedRatings g = gen::generate_ratings(s);
  const std::string path = dir.file("ratings.csv");
  io::write_ratings_csv(path, g.ratings);
  return path;
}

// Test ratings of a user or an item without training ratings: the summary says how they are
// predicted. An item's has no item mean to use (its offset is 0): the global mean plus the user's
// offset, which the line had called "the global mean and the item means".
TEST(SfaCli, UnseenTestRatingsSayHowTheyArePredicted) {
  test::TempDir dir;
  const std::string input = write_small_csv(dir, 8);
  const std::string test_file = dir.file("test.csv");
  test::write_bytes(test_file, "user,item,rating\nnew-user,1,4\n1,new-item,3\n");
  for (const char* offset : {"", "--no-user-offset"}) {
    const Outcome o = run_sfa(dir, "--input '" + input + "' --test '" + test_file +
                                       "' --iters 2 --device cpu " + offset + " --out '" +
                                       dir.file("o") + "'");
    ASSERT_EQ(o.code, 0) << o.err;
    const std::string says =
        "1 test users and 1 test items had no training rating (2 test ratings; predicted as the "
        "item's mean for a user without training ratings, and as the global mean" +
        std::string(*offset ? "" : " plus the user's offset") + " for an item without them)\n";
    EXPECT_NE(o.out.find(says), std::string::npos) << offset << ": " << o.out;
    std::filesystem::remove_all(dir.file("o"));
  }
}

TEST(SfaCli, HelpNamesThePaperHyperParameters) {
  test::TempDir dir;
  const Outcome o = run_sfa(dir, "--help");
  EXPECT_EQ(o.code, 0) << o.err;
  for (const char* opt : {"--lambda-u", "--lambda-m", "--cg-steps", "--mstep", "--lrate",
                          "--factors", "--holdout-frac", "--test", "--checkpoint-every", "--resume",
                          "--sddmm", "--spmm", "--precision", "--compare", "--device"})
    EXPECT_NE(o.out.find(opt), std::string::npos) << opt;
  // The ranges the errors give (--lambda-u 1e31 is a usage error) are in the help too, which
  // had none. The help wraps its lines: compare with the blanks collapsed.
  std::string flat;
  for (const char c : o.out)
    if (!(c == ' ' || c == '\n') || (!flat.empty() && flat.back() != ' '))
      flat += c == '\n' ? ' ' : c;
  for (const char* range : {"user factors, > 0 and at most 1e30", "(the model), > 0 and at most 1e30"})
    EXPECT_NE(flat.find(range), std::string::npos) << range << " in: " << flat;
}

TEST(SfaCli, TrainsAndWritesModelMetricsAndSummary) {
  test::TempDir dir;
  const std::string input = write_small_csv(dir, 3);
  const std::string out = dir.file("run");
  const Outcome o = run_sfa(dir, "--input '" + input + "' --out '" + out +
                                     "' --factors 4 --iters 5 --device cpu --threads 1 --seed 9");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::vector<std::string> m = test::nonempty_lines(slurp(out + "/metrics.jsonl"));
  ASSERT_EQ(m.size(), 5u);
  for (std::size_t p = 0; p < m.size(); ++p) {
    EXPECT_EQ(m[p].rfind("{\"iter\":" + std::to_string(p + 1) + ",", 0), 0u) << m[p];
    EXPECT_GT(test::json_number_or_nan(m[p], "train_rmse"), 0) << m[p];
    EXPECT_GT(test::json_number_or_nan(m[p], "test_rmse"), 0) << m[p];
  }
  // MAP training: the objective (errors plus priors) falls; the training error alone need not.
  EXPECT_LT(test::json_number_or_nan(m.back(), "objective"),
            test::json_number_or_nan(m.front(), "objective"));
  for (const char* f : {"config.ini", "config.json", "summary.json", "model.ini",
                        "user_factors.npy", "item_factors.npy", "user_bias.npy", "item_bias.npy",
                        "item_means.npy", "user_ids.csv", "item_ids.csv", "train_pairs.npy"})
    EXPECT_TRUE(std::filesystem::exists(out + "/" + f)) << f;
  const HostDense<float> items = io::read_npy_f32(out + "/item_factors.npy");
  EXPECT_EQ(items.cols(), 4);
  // item_bias.npy holds the items' offsets from the global mean, item_means.npy the shrunk
  // means on the ratings' scale (1-5 here): global mean + offset.
  const HostDense<float> means = io::read_npy_f32(out + "/item_means.npy");
  const HostDense<float> bias = io::read_npy_f32(out + "/item_bias.npy");
  const std::string model = slurp(out + "/model.ini");
  const std::size_t at = model.find("\nglobal_mean = ");
  ASSERT_NE(at, std::string::npos) << model;
  const double global_mean = std::stod(model.substr(at + 15));
  ASSERT_EQ(means.size(), bias.size());
  for (std::int64_t i = 0; i < means.size(); ++i) {
    EXPECT_NEAR(means.data()[i], global_mean + bias.data()[i], 1e-5) << i;
    EXPECT_GE(means.data()[i], 1.0f) << i;
    EXPECT_LE(means.data()[i], 5.0f) << i;
  }

  // recommend and similar read the saved model.
  const Outcome rec = run_sfa(
      dir, "recommend --model '" + out + "' --users 1,2 --n 4 --out '" + dir.file("rec") + "'");
  ASSERT_EQ(rec.code, 0) << rec.err;
  EXPECT_EQ(test::nonempty_lines(slurp(dir.file("rec") + "/recommendations.csv")).size(), 1u + 8u);
  const Outcome sim =
      run_sfa(dir, "similar --model '" + out + "' --item 1 --n 3 --out '" + dir.file("sim") + "'");
  ASSERT_EQ(sim.code, 0) << sim.err;
  EXPECT_EQ(test::nonempty_lines(slurp(dir.file("sim") + "/similar.csv")).size(), 1u + 3u);
  const Outcome unknown = run_sfa(dir, "recommend --model '" + out + "' --users nobody");
  EXPECT_EQ(unknown.code, 2);
}

// fk-sfa's model.ini names fk-sfa, so that another app refuses its folder; fk-sfa trains over its
// own folder as before, also one from before the app key (fk-als's first line, item_means.npy
// beside it), and refuses an fk-als model's folder before changing it. recommend takes user ids
// that hold commas from --users-file.
TEST(SfaCli, ModelNamesItsAppAndUsersFileTakesIdsWithCommas) {
  test::TempDir dir;
  const std::string input = dir.file("ratings.csv");
  test::write_bytes(input,
                    "user,item,rating\n\"Doe, Jane\",a,5\n\"Doe, Jane\",b,3\nbob,a,4\nbob,c,2\n"
                    "\"x\"\"y\",b,1\n\"x\"\"y\",c,5\n\"Doe, Jane\",d,2\nbob,d,3\n");
  const std::string args = "--input '" + input +
                           "' --iters 1 --factors 2 --holdout-frac 0 --device cpu --threads 1 "
                           "--quiet --out ";
  const std::string own = dir.file("own");
  const Outcome first = run_sfa(dir, args + "'" + own + "'");
  ASSERT_EQ(first.code, 0) << first.err;
  std::vector<std::string> lines = test::read_lines(own + "/model.ini");
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("# fk-sfa model:", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1], "app = fk-sfa");
  std::string old_ini = "# fk-als model: score = ...\n";
  for (std::size_t l = 2; l < lines.size(); ++l) old_ini += lines[l] + "\n";
  test::write_bytes(own + "/model.ini", old_ini);
  const Outcome again = run_sfa(dir, args + "'" + own + "'");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(test::read_lines(own + "/model.ini").at(1), "app = fk-sfa");

  const std::string als = dir.file("als");
  std::filesystem::create_directories(als);
  test::write_bytes(als + "/model.ini", "# fk-als model: score = ...\napp = fk-als\nfactors = 2\n");
  test::write_bytes(als + "/user_factors.npy", "not an fk-sfa file");
  const auto before = test::folder_files(als);
  const Outcome other = run_sfa(dir, args + "'" + als + "'");
  EXPECT_EQ(other.code, 2) << other.err;
  EXPECT_NE(other.err.find("--out: " + als + " holds an fk-als model"), std::string::npos)
      << other.err;
  EXPECT_TRUE(test::folder_files(als) == before) << "refused before --out changed";

  test::write_bytes(dir.file("users.txt"), "Doe, Jane\n");
  const Outcome rec =
      run_sfa(dir, "recommend --model '" + own + "' --users bob --users-file '" +
                       dir.file("users.txt") + "' --n 1 --out '" + dir.file("rec") + "'");
  ASSERT_EQ(rec.code, 0) << rec.err;
  const std::vector<std::string> rows = test::nonempty_lines(rec.out);
  ASSERT_EQ(rows.size(), 3u) << rec.out;
  EXPECT_EQ(rows[1].rfind("bob,1,b,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind("\"Doe, Jane\",1,c,", 0), 0u) << rows[2];
  // A --users-file that is the recommendations.csv the command writes in --out: refused, kept
  // (it was replaced by the recommendations).
  const std::string in_out = dir.file("rec") + "/recommendations.csv";
  test::write_bytes(in_out, "bob\n");
  const Outcome clash = run_sfa(dir, "recommend --model '" + own + "' --users-file '" + in_out +
                                         "' --out '" + dir.file("rec") + "'");
  EXPECT_EQ(clash.code, 2) << clash.err;
  EXPECT_NE(clash.err.find("--out"), std::string::npos) << clash.err;
  EXPECT_EQ(slurp(in_out), "bob\n");
}

TEST(SfaCli, SameSeedSameModelAndResumeEqualsUninterrupted) {
  test::TempDir dir;
  const std::string input = write_small_csv(dir, 4);
  const std::string common = "--input '" + input + "' --factors 5 --device cpu --seed 3 ";
  ASSERT_EQ(run_sfa(dir, common + "--iters 6 --threads 2 --out '" + dir.file("a") + "'").code, 0);
  ASSERT_EQ(run_sfa(dir, common + "--iters 6 --threads 1 --out '" + dir.file("b") + "'").code, 0);
  EXPECT_EQ(slurp(dir.file("a") + "/user_factors.npy"), slurp(dir.file("b") + "/user_factors.npy"));
  EXPECT_EQ(slurp(dir.file("a") + "/item_factors.npy"), slurp(dir.file("b") + "/item_factors.npy"));

  // Interrupted after pass 3 (checkpoint), then resumed to 6.
  const Outcome first = run_sfa(
      dir, common + "--iters 3 --threads 1 --checkpoint-every 3 --out '" + dir.file("c") + "'");
  ASSERT_EQ(first.code, 0) << first.err;
  const Outcome second =
      run_sfa(dir, common + "--iters 6 --threads 1 --checkpoint-every 3 --resume --out '" +
                       dir.file("c") + "'");
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(slurp(dir.file("a") + "/user_factors.npy"), slurp(dir.file("c") + "/user_factors.npy"));
  EXPECT_EQ(slurp(dir.file("a") + "/item_factors.npy"), slurp(dir.file("c") + "/item_factors.npy"));
  const std::vector<std::string> ma = test::nonempty_lines(slurp(dir.file("a") + "/metrics.jsonl"));
  const std::vector<std::string> mc = test::nonempty_lines(slurp(dir.file("c") + "/metrics.jsonl"));
  ASSERT_EQ(ma.size(), mc.size());
  for (std::size_t p = 0; p < ma.size(); ++p)
    EXPECT_EQ(test::json_number_or_nan(ma[p], "test_rmse"),
              test::json_number_or_nan(mc[p], "test_rmse"))
        << p + 1;

  // A resume with a different model configuration is refused.
  const Outcome other =
      run_sfa(dir, common + "--iters 6 --lambda-u 3 --resume --out '" + dir.file("c") + "'");
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("lambda-u"), std::string::npos) << other.err;
}

// precision = bf16 in a config file: accepted and recorded (config.json, summary.json, the kernels'
// log line), and the same model as fp32, since the CPU kernels are fp32 ones.
TEST(SfaCli, PrecisionFromConfigIsRecordedAndCpuKernelsStayFp32) {
  test::TempDir dir;
  const std::string input = write_small_csv(dir, 6);
  const std::string ini = dir.file("bf16.ini");
  {
    std::ofstream f(ini);
    f << "precision = bf16\n";
  }
  const std::string common =
      "--input '" + input + "' --factors 4 --iters 3 --device cpu --threads 1 ";
  const Outcome f32 = run_sfa(dir, common + "--out '" + dir.file("f32") + "'");
  ASSERT_EQ(f32.code, 0) << f32.err;
  const Outcome b16 =
      run_sfa(dir, common + "--config '" + ini + "' --out '" + dir.file("bf16") + "'");
  ASSERT_EQ(b16.code, 0) << b16.err;
  EXPECT_EQ(slurp(dir.file("f32") + "/user_factors.npy"),
            slurp(dir.file("bf16") + "/user_factors.npy"));
  EXPECT_EQ(slurp(dir.file("f32") + "/item_factors.npy"),
            slurp(dir.file("bf16") + "/item_factors.npy"));
  const std::string s32 = slurp(dir.file("f32") + "/summary.json");
  const std::string s16 = slurp(dir.file("bf16") + "/summary.json");
  EXPECT_EQ(test::json_number_or_nan(s16, "test_rmse"), test::json_number_or_nan(s32, "test_rmse"));
  EXPECT_EQ(test::json_string(s32, "precision"), "fp32") << s32;
  EXPECT_EQ(test::json_string(s16, "precision"), "bf16") << s16;
  EXPECT_NE(slurp(dir.file("bf16") + "/config.json").find("\"precision\": \"bf16\""),
            std::string::npos);
  EXPECT_NE(b16.err.find("; precision bf16 accepted, the CPU kernels run in fp32)"),
            std::string::npos)
      << b16.err;
  EXPECT_EQ(f32.err.find("; precision"), std::string::npos) << f32.err;
}

// A config made for the grad M-step (its lrate) still runs with --mstep em on the command line;
// both on the command line is an error (BadInputExitsOneAndBadOptionsExitTwo).
TEST(SfaCli, ConfigLrateDoesNotStopCommandLineEm) {
  test::TempDir dir;
  const std::string input = write_small_csv(dir, 8);
  const std::string ini = dir.file("grad.ini");
  test::write_bytes(ini, "mstep = grad\nlrate = 0.5\n");
  const std::string common = "--input '" + input + "' --config '" + ini +
                             "' --factors 4 --iters 2 --device cpu --threads 1 ";
  const Outcome em = run_sfa(dir, common + "--mstep em --out '" + dir.file("em") + "'");
  ASSERT_EQ(em.code, 0) << em.err;
  EXPECT_NE(slurp(dir.file("em") + "/config.json").find("\"mstep\": \"em\""), std::string::npos);
  const Outcome grad = run_sfa(dir, common + "--out '" + dir.file("grad") + "'");
  ASSERT_EQ(grad.code, 0) << grad.err;
  EXPECT_NE(slurp(dir.file("em") + "/item_factors.npy"),
            slurp(dir.file("grad") + "/item_factors.npy"));
  // The em run's config.ini (lrate, which em does not use, left out) runs again to its model.
  const Outcome again =
      run_sfa(dir, "--config '" + dir.file("em") + "/config.ini' --out '" + dir.file("em2") + "'");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(slurp(dir.file("em") + "/item_factors.npy"),
            slurp(dir.file("em2") + "/item_factors.npy"));
}

// A learning rate far too large makes the grad M-step diverge: the run says so.
TEST(SfaCli, DivergingGradMStepIsWarnedAbout) {
  test::TempDir dir;
  const std::string input = write_small_csv(dir, 9);
  const Outcome o = run_sfa(dir, "--input '" + input + "' --factors 4 --iters 3 --lrate 100 " +
                                     "--device cpu --threads 1 --out '" + dir.file("o") + "'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("training diverges; lower --lrate"), std::string::npos) << o.err;
  const Outcome fine = run_sfa(dir, "--input '" + input + "' --factors 4 --iters 3 " +
                                        "--device cpu --threads 1 --out '" + dir.file("p") + "'");
  ASSERT_EQ(fine.code, 0) << fine.err;
  EXPECT_EQ(fine.err.find("diverges"), std::string::npos) << fine.err;
}

// More CG steps than a user's solve needs leave its converged factors alone. Here many rows reach
// r·z below the smallest normal float within a few dozen steps; CG on that rounding noise grew
// the residual threefold a step, and --cg-steps 50 trained factors of 1e27 while 100 failed
// blaming the ratings' scale.
TEST(SfaCli, CgStepsPastConvergenceChangeNothing) {
  test::TempDir dir;
  const std::string input =
      "gen:ml-100k:users=300,items=300,ratings=10000,min-user-ratings=2,noise=0.1,step=0,seed=3";
  std::vector<double> rmse;
  for (const char* steps : {"3", "200"}) {
    const std::string out = dir.file(std::string("cg") + steps);
    const Outcome o = run_sfa(dir, "--input " + input + " --factors 16 --iters 5 --cg-steps " +
                                       steps + " --device cpu --threads 1 --seed 9 --out '" + out +
                                       "'");
    ASSERT_EQ(o.code, 0) << steps << ": " << o.err;
    rmse.push_back(test::json_number_or_nan(slurp(out + "/summary.json"), "test_rmse"));
  }
  EXPECT_NEAR(rmse[1], rmse[0], 0.01) << "3 steps already solve these small systems";
}

// A step that overshoots without diverging (the objective rises from one pass to the next) is
// warned about once, with what falls every pass; the default step and the em M-step fall here and
// say nothing.
TEST(SfaCli, RisingObjectiveIsWarnedAboutOnce) {
  test::TempDir dir;
  const std::string input = write_small_csv(dir, 9);
  auto run = [&](const std::string& args) {
    return run_sfa(dir, "--input '" + input + "' --factors 4 --iters 12 --no-user-offset " + args +
                            " --device cpu --threads 1 --out '" + dir.file("o") + "'");
  };
  const Outcome rising = run("--lrate 2.2");
  ASSERT_EQ(rising.code, 0) << rising.err;
  const std::string said = "warning: the objective rose from ";
  const std::size_t at = rising.err.find(said);
  ASSERT_NE(at, std::string::npos) << rising.err;
  EXPECT_EQ(rising.err.find(said, at + 1), std::string::npos) << "once: " << rising.err;
  EXPECT_NE(rising.err.find("the grad M-step overshoots; a lower --lrate or --mstep em"),
            std::string::npos)
      << rising.err;
  for (const char* falling : {"", "--mstep em"}) {
    const Outcome o = run(falling);
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_EQ(o.err.find("objective rose"), std::string::npos) << falling << ": " << o.err;
  }
}

TEST(SfaCli, CompareWithoutGpuRunsTheCpu) {
  if (test::gpu_available()) GTEST_SKIP() << "checks the CPU-only fallback of --compare";
  test::TempDir dir;
  const Outcome o =
      run_sfa(dir,
              "--input 'gen:ml-100k:users=200,items=120,ratings=5000,min_user_ratings=10' "
              "--factors 4 --iters 2 --compare --out '" +
                  dir.file("cmp") + "'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(test::nonempty_lines(slurp(dir.file("cmp") + "/cpu/metrics.jsonl")).size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(dir.file("cmp") + "/compare.json"));
}

TEST(SfaCli, CompareRunsGpuAndCpuSideBySide) {
  FK_REQUIRE_GPU();
  test::TempDir dir;
  const Outcome o = run_sfa(dir, "--input 'gen:ml-100k' --factors 16 --iters 4 --compare --out '" +
                                     dir.file("cmp") + "'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("speedup"), std::string::npos) << o.out;
  const double gpu =
      test::json_number_or_nan(slurp(dir.file("cmp") + "/gpu/summary.json"), "test_rmse");
  const double cpu =
      test::json_number_or_nan(slurp(dir.file("cmp") + "/cpu/summary.json"), "test_rmse");
  EXPECT_NEAR(gpu, cpu, 1e-3 * cpu);
  // The GPU run counts its device buffers (ratings, transposes, factors: more than 1 MiB here);
  // the CPU run has no device figure.
  const std::string gpu_summary = slurp(dir.file("cmp") + "/gpu/summary.json");
  EXPECT_GE(test::json_number_or_nan(gpu_summary, "peak_device_mib"), 1.0) << gpu_summary;
  EXPECT_NE(slurp(dir.file("cmp") + "/cpu/summary.json").find("\"peak_device_mib\":null"),
            std::string::npos);
  EXPECT_NE(o.out.find("peak GPU memory (MiB)"), std::string::npos) << o.out;
}

// bf16 through the tensor-core variants, named: training's SDDMMs and SpMMs and the test errors
// round the factors and the centred ratings to bf16 and accumulate in fp32; the test RMSE stays
// within 1% of the fp32 run's. Needs an sm_80 or newer GPU.
TEST(SfaCli, Bf16TensorCoreKernelsTrainLikeFp32) {
  FK_REQUIRE_GPU();
  test::TempDir dir;
  const std::string input = write_small_csv(dir, 7);
  const std::string common = "--input '" + input + "' --factors 8 --iters 5 --device gpu --seed 2 ";
  const Outcome f32 = run_sfa(dir, common + "--out '" + dir.file("f32") + "'");
  ASSERT_EQ(f32.code, 0) << f32.err;
  const Outcome tc =
      run_sfa(dir, common + "--precision bf16 --sddmm cuda.sddmm.tc_v1 --spmm cuda.spmm.tc_v1 " +
                       "--out '" + dir.file("tc") + "'");
  ASSERT_EQ(tc.code, 0) << tc.err;
  const std::string s32 = slurp(dir.file("f32") + "/summary.json");
  const std::string stc = slurp(dir.file("tc") + "/summary.json");
  EXPECT_EQ(test::json_string(stc, "kernels"), "cuda.sddmm.tc_v1, cuda.spmm.tc_v1") << stc;
  EXPECT_EQ(test::json_string(stc, "precision"), "bf16") << stc;
  const double rmse32 = test::json_number_or_nan(s32, "test_rmse");
  const double rmse16 = test::json_number_or_nan(stc, "test_rmse");
  ASSERT_TRUE(std::isfinite(rmse32)) << s32;
  EXPECT_NEAR(rmse16, rmse32, 0.01 * rmse32) << stc;
}

TEST(SfaCli, BadInputExitsOneAndBadOptionsExitTwo) {
  test::TempDir dir;
  const Outcome missing =
      run_sfa(dir, "--input '" + dir.file("no-such.csv") + "' --out '" + dir.file("o") + "'");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("fk-sfa: error:"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("no-such.csv"), std::string::npos) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("o"))) << "nothing is written for a bad input";
  const Outcome missing_test =
      run_sfa(dir, "--input '" + write_small_csv(dir, 5) + "' --test '" + dir.file("no-test.csv") +
                       "' --out '" + dir.file("o") + "'");
  EXPECT_EQ(missing_test.code, 1);
  EXPECT_NE(missing_test.err.find("no-test.csv"), std::string::npos) << missing_test.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("o")));

  const std::string input = write_small_csv(dir, 5);
  struct Bad {
    std::string args, names;
  };
  const std::vector<Bad> bad = {
      {"--no-such-option", "no-such-option"},
      {"--mstep newton", "mstep"},
      {"--mstep em --lrate 0.5", "lrate"},
      {"--factors 0", "factors"},
      {"--lambda-u -1", "lambda-u"},
      {"--lambda-m 0", "lambda-m"},
      // Past single precision: these overflowed in the first pass and blamed the ratings' scale.
      {"--lambda-u 1e300", "--lambda-u: must be a number > 0 and at most 1e30"},
      {"--lambda-m 1e31", "--lambda-m: must be a number > 0 and at most 1e30"},
      {"--init-scale 1e20", "--init-scale: must be a number from 1e-6 to 1e10"},
      // Loadings that small stay at the item means for many passes (1e-30: for good).
      {"--init-scale 1e-30", "--init-scale: must be a number from 1e-6 to 1e10"},
      {"--cg-steps 0", "cg-steps"},
      {"--holdout-frac 1.5", "holdout-frac"},
      {"--holdout-frac 0.1 --test '" + input + "'", "test"},
      // No test set asked for: --no-clip, which acts on the test errors only, was ignored.
      {"--holdout-frac 0 --no-clip",
       "--no-clip: applies to the test set only, and --holdout-frac 0 holds no ratings out"},
      {"--sddmm no.such.variant", "sddmm"},
      {"--precision fp8",
       "--precision: unknown precision 'fp8' (expected one of fp32, fp16, bf16)"},
      {"--device tpu", "device"},
  };
  for (const Bad& b : bad) {
    const Outcome o =
        run_sfa(dir, "--input '" + input + "' --out '" + dir.file("o") + "' " + b.args);
    EXPECT_EQ(o.code, 2) << b.args << ": " << o.err;
    EXPECT_NE(o.err.find(b.names), std::string::npos) << b.args << ": " << o.err;
  }
  // A Matrix Market file without entries: named as such (it was "no training ratings left after
  // the split", without the file).
  const std::string no_entries = dir.file("empty.mtx");
  test::write_bytes(no_entries, "%%MatrixMarket matrix coordinate real general\n3 4 0\n");
  const Outcome empty =
      run_sfa(dir, "--input '" + no_entries + "' --out '" + dir.file("o") + "'");
  EXPECT_EQ(empty.code, 1);
  EXPECT_NE(empty.err.find("empty.mtx: no ratings"), std::string::npos) << empty.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("o")));
  // An input that is one of the files the run writes in --out: refused before anything there
  // changes (it was overwritten with the run's item ids, the ratings lost).
  std::filesystem::create_directories(dir.file("data"));
  for (const std::string flag : {"--input", "--test"}) {
    const std::string named = dir.file("data/item_ids.csv");
    std::filesystem::copy_file(input, named, std::filesystem::copy_options::overwrite_existing);
    const std::string before = slurp(named);
    const std::string other =
        (flag == "--input" ? " --test '" : " --input '") + input + "'";
    const Outcome o =
        run_sfa(dir, flag + " '" + named + "'" + other + " --out '" + dir.file("data") + "'");
    EXPECT_EQ(o.code, 2) << flag << ": " << o.err;
    EXPECT_NE(o.err.find("--out"), std::string::npos) << o.err;
    EXPECT_EQ(slurp(named), before) << flag << ": the input is kept";
  }
  const Outcome no_input = run_sfa(dir, "--out '" + dir.file("o") + "'");
  EXPECT_EQ(no_input.code, 2);
  EXPECT_NE(no_input.err.find("--input"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("o")));
}

// --holdout-frac near 1 (test::expect_holdout_frac_near_one_named says what each case expects).
TEST(SfaCli, HoldoutFracNearOneNamesTheOption) {
  test::TempDir dir;
  test::expect_holdout_frac_near_one_named(dir, FK_SFA_EXE, write_small_csv(dir, 3), 4000);
}

// The quality target on MovieLens 100K with the shipped configuration: a seeded 80/20 random
// split, test RMSE <= 0.93 (about 1 s on one core).
TEST(SfaCli, MovieLens100kReachesTheRmseTarget) {
  const std::string data = test::shared_data("movielens-100k/u.data");
  if (data.empty()) GTEST_SKIP() << "../shared/data/movielens-100k is absent";
  test::TempDir dir;
  const std::string out = dir.file("ml100k");
  const Outcome o = run_sfa(dir, "--config '" + std::string(FK_SOURCE_DIR) +
                                     "/configs/sfa-ml100k.ini' --input '" + data + "' --out '" +
                                     out + "' --device cpu --threads 1");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string summary = slurp(out + "/summary.json");
  EXPECT_EQ(test::json_number_or_nan(summary, "test_ratings"), 20000);
  EXPECT_LE(test::json_number_or_nan(summary, "test_rmse"), 0.93) << summary;
}

}  // namespace
}  // namespace fk
