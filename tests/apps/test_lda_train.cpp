// fk-lda end to end, on small generated corpora with known topics: the topics are recovered, the
// held-out log-likelihood improves pass over pass, the same seed gives the same model, a run
// resumed from a checkpoint reaches the model of an uninterrupted run, GPU and CPU agree,
// inference from a saved model, text input, and bad input / bad options give the promised errors
// and exit statuses. The real kos corpus is used when ../shared/data has it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/lda/corpus.hpp"
#include "apps/lda/lda_options.hpp"
#include "apps/lda/lda_trainer.hpp"
#include "core/generate/lda_corpus.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/npy.hpp"
#include "tests/apps/test_lda_util.hpp"
#include "tests/core/test_io_util.hpp"

namespace fk::lda {
namespace {

using test::json_number;
using test::read_lines;
using test::run_lda;

// 5 well-separated topics over 400 words: small enough to train in well under a second a pass,
// with enough tokens per topic that online VB must find them.
const std::string kGen = "gen:default:docs=1000,words=400,topics=5,length=100,alpha=0.2,seed=4";

// A subdirectory of a test's TempDir (several TempDirs in one test would share one path).
struct Sub {
  Sub(const test::TempDir& dir, const std::string& name) : path_(dir.file(name)) {
    std::filesystem::create_directories(path_);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::vector<double> heldout_by_pass(const std::string& dir) {
  std::vector<double> out;
  for (const std::string& line : read_lines(dir + "/metrics.jsonl"))
    if (auto v = json_number(line, "heldout_ll")) out.push_back(*v);
  return out;
}

// Mean over the true topics of the best cosine similarity with a learned topic.
double mean_best_cosine(const HostDense<float>& truth, const HostDense<float>& learned) {
  EXPECT_EQ(truth.cols(), learned.cols());
  double total = 0;
  for (std::int64_t t = 0; t < truth.rows(); ++t) {
    double best = -1;
    for (std::int64_t l = 0; l < learned.rows(); ++l) {
      double dot = 0, nt = 0, nl = 0;
      for (std::int64_t w = 0; w < truth.cols(); ++w) {
        dot += double(truth(t, w)) * learned(l, w);
        nt += double(truth(t, w)) * truth(t, w);
        nl += double(learned(l, w)) * learned(l, w);
      }
      best = std::max(best, dot / std::sqrt(nt * nl));
    }
    total += best;
  }
  return total / static_cast<double>(truth.rows());
}

TEST(LdaTrain, RecoversKnownTopicsAndImprovesHeldOut) {
  test::TempDir dir;
  const auto r = run_lda({"--input", kGen, "--topics", "5", "--iters", "6", "--batch-size", "250",
                          "--device", "cpu", "--seed", "3", "--out", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const HostDense<float> learned = io::read_npy_f32(dir.file("topics.npy"));
  const gen::GeneratedCorpus truth = gen::generate_lda_corpus(parse_gen_spec(kGen.substr(4)));
  ASSERT_EQ(learned.rows(), 5);
  ASSERT_EQ(learned.cols(), 400);
  for (std::int64_t k = 0; k < 5; ++k) {
    double s = 0;
    for (std::int64_t w = 0; w < 400; ++w) s += learned(k, w);
    EXPECT_NEAR(s, 1.0, 1e-4);
  }
  EXPECT_GE(mean_best_cosine(truth.topics, learned), 0.9);

  const std::vector<double> ll = heldout_by_pass(dir.path());
  ASSERT_EQ(ll.size(), 6u);
  for (std::size_t i = 1; i < ll.size(); ++i) EXPECT_GT(ll[i], ll[i - 1]) << "pass " << i + 1;
  // Every metrics line has the promised keys.
  for (const std::string& line : read_lines(dir.file("metrics.jsonl")))
    for (const char* key : {"\"iter\":", "\"seconds\":", "\"device\":\"cpu\"", "\"heldout_ll\":",
                            "\"perplexity\":", "\"train_bound\":", "\"tokens_per_s\":"})
      EXPECT_NE(line.find(key), std::string::npos) << key << " in " << line;
  // The other outputs.
  const HostDense<float> theta = io::read_npy_f32(dir.file("doc_topics.npy"));
  EXPECT_EQ(theta.rows(), 900);
  EXPECT_EQ(theta.cols(), 5);
  EXPECT_EQ(read_lines(dir.file("top_words.txt")).size(), 5u);
  EXPECT_NE(read_lines(dir.file("top_words.txt"))[0].find("topic 0: w"), std::string::npos);
  EXPECT_NE(r.out.find("held-out log-likelihood"), std::string::npos);
  EXPECT_FALSE(read_lines(dir.file("config.ini")).empty());
  EXPECT_FALSE(read_lines(dir.file("config.json")).empty());
}

// Batch VB (one minibatch of everything, ρ = 1) improves the bound every pass, as EM must.
TEST(LdaTrain, BatchModeBoundIncreases) {
  test::TempDir dir;
  const auto r = run_lda({"--input", kGen, "--topics", "5", "--iters", "4", "--batch", "--device",
                          "cpu", "--out", dir.path(), "-q", "--inner-iters", "100"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<double> bound;
  for (const std::string& line : read_lines(dir.file("metrics.jsonl")))
    bound.push_back(*json_number(line, "train_bound"));
  ASSERT_EQ(bound.size(), 4u);
  for (std::size_t i = 1; i < bound.size(); ++i)
    EXPECT_GT(bound[i], bound[i - 1]) << "pass " << i + 1;
}

// --batch on the command line wins over a config file's batch-size (every shipped LDA config has
// one); both on the command line stay an error (LdaErrors.BadInputAndOptions).
TEST(LdaTrain, CommandLineBatchWinsOverConfigBatchSize) {
  test::TempDir dir;
  {
    std::ofstream f(dir.file("mini.ini"));
    f << "batch-size = 100\ntopics = 4\n";
  }
  const auto r = run_lda({"--input", kGen, "--config", dir.file("mini.ini"), "--iters", "2",
                          "--batch", "--device", "cpu", "--out", dir.file("o")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("--batch-size from the config file is not used"), std::string::npos)
      << r.err;
  std::string config;
  for (const std::string& line : read_lines(dir.file("o/config.json"))) config += line;
  EXPECT_NE(config.find("\"batch\": true"), std::string::npos) << config;
  // The config.ini it wrote runs again (batch-size, which does not apply, is left out of it).
  const auto again = run_lda({"--config", dir.file("o/config.ini"), "--out", dir.file("p")});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(io::read_npy_f32(dir.file("o/lambda.npy")).storage(),
            io::read_npy_f32(dir.file("p/lambda.npy")).storage());
}

const std::string kSmall = "gen:default:docs=300,words=200,topics=4,length=60,seed=7";

// Online LDA's step size: ρ = (τ0 + t)^-κ at the t-th update (from 0), from --tau0 and --kappa;
// metrics.jsonl's rho is each pass's last (3 minibatches a pass here), and another τ0, κ trains
// another model.
TEST(LdaTrain, StepSizeFollowsTau0AndKappa) {
  test::TempDir dir;
  const std::vector<std::string> base{"--input",      kSmall, "--topics",  "4",   "--iters",
                                      "3",            "--batch-size", "100", "--holdout-frac",
                                      "0",            "--device", "cpu",   "-q"};
  std::vector<std::string> tuned = base;
  tuned.insert(tuned.end(), {"--tau0", "5", "--kappa", "0.7", "--out", dir.file("tuned")});
  const auto r = run_lda(tuned);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = read_lines(dir.file("tuned/metrics.jsonl"));
  ASSERT_EQ(lines.size(), 3u);
  for (int pass = 1; pass <= 3; ++pass)
    EXPECT_NEAR(*json_number(lines[pass - 1], "rho"), std::pow(5.0 + 3 * pass - 1, -0.7), 1e-9)
        << "pass " << pass;
  std::vector<std::string> plain = base;
  plain.insert(plain.end(), {"--out", dir.file("plain")});
  ASSERT_EQ(run_lda(plain).status, 0);
  EXPECT_NE(io::read_npy_f32(dir.file("tuned/lambda.npy")).storage(),
            io::read_npy_f32(dir.file("plain/lambda.npy")).storage());
}

TEST(LdaTrain, SameSeedSameModelOtherSeedOtherModel) {
  test::TempDir dir;  // one per test: TempDir names come from the test's name
  const Sub a(dir, "a"), b(dir, "b"), c(dir, "c"), d(dir, "d");
  const std::vector<std::string> base{
      "--input", kSmall,          "--topics", "4",        "--iters", "2", "--batch-size",
      "100",     "--inner-iters", "10",       "--device", "cpu",     "-q"};
  auto with = [&](const std::string& out, const std::string& seed, const std::string& threads) {
    auto args = base;
    args.insert(args.end(), {"--out", out, "--seed", seed, "--threads", threads});
    return run_lda(args);
  };
  ASSERT_EQ(with(a.path(), "5", "1").status, 0);
  ASSERT_EQ(with(b.path(), "5", "1").status, 0);
  ASSERT_EQ(with(c.path(), "6", "1").status, 0);
  ASSERT_EQ(with(d.path(), "5", "2").status, 0);
  const auto la = io::read_npy_f32(a.file("lambda.npy")),
             lb = io::read_npy_f32(b.file("lambda.npy")),
             lc = io::read_npy_f32(c.file("lambda.npy")),
             ld = io::read_npy_f32(d.file("lambda.npy"));
  EXPECT_EQ(la.storage(), lb.storage());  // bit for bit
  EXPECT_EQ(io::read_npy_f32(a.file("doc_topics.npy")).storage(),
            io::read_npy_f32(b.file("doc_topics.npy")).storage());
  EXPECT_NE(la.storage(), lc.storage());
  // Another thread count, the same model: the app's own reductions are in a fixed order, and the
  // kernels split sums by processors, not threads (omp_common::split_threads).
  EXPECT_EQ(ld.storage(), la.storage());
  EXPECT_EQ(io::read_npy_f32(d.file("doc_topics.npy")).storage(),
            io::read_npy_f32(a.file("doc_topics.npy")).storage());
}

TEST(LdaTrain, ResumedRunReachesTheUninterruptedModel) {
  test::TempDir dir;
  const Sub whole(dir, "whole"), split(dir, "split");
  const std::vector<std::string> base{"--input",      kSmall,   "--topics", "4",
                                      "--batch-size", "100",    "--device", "cpu",
                                      "-q",           "--seed", "9"};
  auto run = [&](const std::string& out, std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), {"--out", out});
    args.insert(args.end(), extra.begin(), extra.end());
    return run_lda(args);
  };
  ASSERT_EQ(run(whole.path(), {"--iters", "4"}).status, 0);
  // "Killed" after 2 passes (with a checkpoint every pass), then resumed to 4.
  ASSERT_EQ(run(split.path(), {"--iters", "2", "--checkpoint-every", "1"}).status, 0);
  ASSERT_TRUE(std::ifstream(split.file("checkpoint/state.ini")).good());
  const auto resumed = run(split.path(), {"--iters", "4", "--checkpoint-every", "1", "--resume"});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_EQ(io::read_npy_f32(whole.file("lambda.npy")).storage(),
            io::read_npy_f32(split.file("lambda.npy")).storage());
  EXPECT_EQ(io::read_npy_f32(whole.file("doc_topics.npy")).storage(),
            io::read_npy_f32(split.file("doc_topics.npy")).storage());
  // The log continues: passes 1..4 once each, and the same numbers as the uninterrupted run.
  const auto lw = read_lines(whole.file("metrics.jsonl")),
             ls = read_lines(split.file("metrics.jsonl"));
  ASSERT_EQ(ls.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(*json_number(ls[i], "iter"), double(i + 1));
    EXPECT_EQ(json_number(ls[i], "heldout_ll"), json_number(lw[i], "heldout_ll"));
  }
  // A different model configuration refuses to resume.
  const auto other = run(split.path(), {"--iters", "5", "--resume", "--alpha", "0.5"});
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("alpha"), std::string::npos) << other.err;
  // Another kernel choice does resume: --ratio-spmm, like --sddmm and --spmm, is not part of
  // the model.
  const auto kernels = run(split.path(), {"--iters", "5", "--resume", "--ratio-spmm", "off"});
  EXPECT_EQ(kernels.status, 0) << kernels.err;
  // A gen: input has no file to check: its spec (seed= among its keys) is the content.
  EXPECT_EQ(kernels.err.find("could not check"), std::string::npos) << kernels.err;
}

// The last value of a Matrix Market file's last entry, edited in place: `grow` appends a digit
// (the file is a byte longer), otherwise the digit becomes another one (the same size).
void edit_last_count(const std::string& path, bool grow) {
  std::string text = test::slurp(path);
  const std::size_t at = text.find_last_not_of("\n");
  ASSERT_NE(at, std::string::npos);
  ASSERT_TRUE(text[at] >= '0' && text[at] <= '9') << text.substr(at);
  if (grow)
    text.insert(at + 1, "1");
  else
    text[at] = text[at] == '1' ? '2' : '1';
  test::write_bytes(path, text);
}

// --resume checks the input files' content, not only their paths: an --input or --test edited in
// place since the checkpoint was written is refused (exit 2, as a changed option is) naming the
// file and what changed, and the run starts afresh without --resume. A checkpoint written before
// checkpoints recorded the content resumes as before, with one warning line.
TEST(LdaTrain, ResumeRefusesAnInputEditedInPlace) {
  test::TempDir dir;
  const Sub out(dir, "out");
  const std::string train = dir.file("train.mtx"), held = dir.file("test.mtx");
  io::write_matrix_market(train, gen::generate_lda_corpus(parse_gen_spec(kSmall.substr(4))).counts);
  io::write_matrix_market(
      held,
      gen::generate_lda_corpus(parse_gen_spec("default:docs=40,words=200,topics=4,seed=8")).counts);
  const std::string train_bytes = test::slurp(train), held_bytes = test::slurp(held);
  auto run = [&](const std::string& iters, std::vector<std::string> extra) {
    std::vector<std::string> args{"--input", train,      "--test", held,       "--holdout-frac",
                                  "0",       "--topics", "3",      "--device", "cpu",
                                  "--iters", iters,      "--out",  out.path()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_lda(args);
  };
  ASSERT_EQ(run("2", {"--checkpoint-every", "1"}).status, 0);
  const std::string state = test::slurp(out.file("checkpoint/state.ini"));
  EXPECT_NE(state.find("content.input.hash = "), std::string::npos) << state;
  EXPECT_NE(state.find("content.test.bytes = " + std::to_string(held_bytes.size())),
            std::string::npos)
      << state;

  // One count changed, the same size: refused before --out changes.
  edit_last_count(train, false);
  ASSERT_EQ(test::slurp(train).size(), train_bytes.size());
  const auto edited = run("3", {"--resume"});
  EXPECT_EQ(edited.status, 2) << edited.err;
  EXPECT_NE(edited.err.find("fk-lda: error: --resume: "), std::string::npos) << edited.err;
  EXPECT_NE(edited.err.find("train.mtx (--input) has changed since the checkpoint in " +
                            out.file("checkpoint") + " was written: the same size (" +
                            std::to_string(train_bytes.size()) + " bytes) but other content"),
            std::string::npos)
      << edited.err;
  EXPECT_NE(edited.err.find("leave out --resume"), std::string::npos) << edited.err;
  EXPECT_EQ(edited.err.find("resumed from"), std::string::npos) << edited.err;
  EXPECT_EQ(read_lines(out.file("metrics.jsonl")).size(), 2u) << "refused before --out changed";

  // The file put back resumes; the test file grown by a byte is refused with its sizes.
  test::write_bytes(train, train_bytes);
  const auto back = run("3", {"--resume"});
  ASSERT_EQ(back.status, 0) << back.err;
  EXPECT_NE(back.err.find("resumed from"), std::string::npos) << back.err;
  EXPECT_EQ(back.err.find("could not check"), std::string::npos) << back.err;
  edit_last_count(held, true);
  const auto grown = run("3", {"--resume"});
  EXPECT_EQ(grown.status, 2) << grown.err;
  EXPECT_NE(grown.err.find("test.mtx (--test) has changed since the checkpoint in " +
                           out.file("checkpoint") + " was written: it was " +
                           std::to_string(held_bytes.size()) + " bytes then, " +
                           std::to_string(held_bytes.size() + 1) + " now"),
            std::string::npos)
      << grown.err;

  // A checkpoint that records no content (an older version's) resumes, warning once.
  test::write_bytes(held, held_bytes);
  std::string old_state;
  for (const std::string& line : read_lines(out.file("checkpoint/state.ini")))
    if (line.rfind("content.", 0) != 0) old_state += line + "\n";
  test::write_bytes(out.file("checkpoint/state.ini"), old_state);
  edit_last_count(train, false);  // not noticed: nothing to compare with
  const auto old = run("3", {"--resume"});
  ASSERT_EQ(old.status, 0) << old.err;
  EXPECT_NE(old.err.find("resumed from"), std::string::npos) << old.err;
  std::size_t warnings = 0;
  for (std::size_t at = old.err.find("could not check"); at != std::string::npos;
       at = old.err.find("could not check", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << old.err;
  EXPECT_NE(old.err.find("warning: --resume: could not check that the content of "),
            std::string::npos)
      << old.err;
  EXPECT_NE(
      old.err.find("train.mtx (--input) and " + std::filesystem::weakly_canonical(held).string() +
                   " (--test) (the checkpoint, written by an older version, records no "
                   "input content) is what the checkpoint was trained on; resuming as "
                   "before"),
      std::string::npos)
      << old.err;

  // Starting afresh (no --resume) trains on the edited file and records it: resumable again.
  ASSERT_EQ(run("2", {"--checkpoint-every", "1"}).status, 0);
  const auto again = run("3", {"--resume"});
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.err.find("could not check"), std::string::npos) << again.err;
}

// --vocab naming the vocab.X.txt a UCI input reads anyway is the same configuration as no --vocab
// (either resumes the other's checkpoint); another vocabulary file, even a copy, is not.
TEST(LdaTrain, ResumeTakesTheImpliedVocabularyGivenExplicitly) {
  test::TempDir dir;
  const Sub data(dir, "data"), out(dir, "out");
  {
    std::ofstream d(data.file("docword.x.txt"));
    d << "3\n4\n6\n1 1 2\n1 2 1\n2 3 3\n2 4 1\n3 1 1\n3 4 2\n";
    std::ofstream v(data.file("vocab.x.txt"));
    v << "apple\nbanana\ncherry\ndate\n";
    std::ofstream c(data.file("copy.txt"));
    c << "apple\nbanana\ncherry\ndate\n";
  }
  auto run = [&](const std::string& iters, std::vector<std::string> extra) {
    std::vector<std::string> args{"--input",
                                  data.file("docword.x.txt"),
                                  "--topics",
                                  "2",
                                  "--iters",
                                  iters,
                                  "--holdout-frac",
                                  "0",
                                  "--checkpoint-every",
                                  "1",
                                  "--device",
                                  "cpu",
                                  "--out",
                                  out.path()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_lda(args);
  };
  ASSERT_EQ(run("1", {}).status, 0);
  const auto same = run("2", {"--resume", "--vocab", data.file("vocab.x.txt")});
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_NE(same.err.find("after pass 1"), std::string::npos) << same.err;  // resumed, not anew
  const auto back = run("3", {"--resume"});
  EXPECT_EQ(back.status, 0) << back.err;
  EXPECT_NE(back.err.find("after pass 2"), std::string::npos) << back.err;
  const auto copy = run("4", {"--resume", "--vocab", data.file("copy.txt")});
  EXPECT_EQ(copy.status, 2);
  EXPECT_NE(copy.err.find("vocab = (unset)"), std::string::npos) << copy.err;
}

TEST(LdaTrain, GpuAndCpuAgree) {
  FK_REQUIRE_GPU();
  test::TempDir dir;
  const auto r = run_lda({"--input", kSmall, "--topics", "4", "--iters", "3", "--batch-size", "100",
                          "--compare", "--out", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto g = read_lines(dir.file("gpu/metrics.jsonl")),
             c = read_lines(dir.file("cpu/metrics.jsonl"));
  ASSERT_EQ(g.size(), 3u);
  ASSERT_EQ(c.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const double lg = *json_number(g[i], "heldout_ll"), lc = *json_number(c[i], "heldout_ll");
    EXPECT_NEAR(lg, lc, 1e-3 * std::fabs(lc)) << "pass " << i + 1;
  }
  // The models themselves: a pass's statistics lost on one side would move the held-out
  // likelihood by less than one pass's gain (under 1e-3 here) but λ by far more.
  const HostDense<float> lg = io::read_npy_f32(dir.file("gpu/lambda.npy")),
                         lc = io::read_npy_f32(dir.file("cpu/lambda.npy"));
  EXPECT_LT(test::max_rel_error(lg.storage(), lc.storage()), 1e-3);
  EXPECT_NE(r.out.find("speedup"), std::string::npos);
}

// Two runs on the GPU with one seed write the same model bit for bit (--seed's promise; the
// large-shape runs of every app are in docs/benchmarks/checks/session-30).
TEST(LdaTrain, GpuRunsAreRepeatable) {
  FK_REQUIRE_GPU();
  test::TempDir dir;
  const Sub first(dir, "first"), second(dir, "second");
  for (const Sub* out : {&first, &second}) {
    const auto r = run_lda({"--input", kSmall, "--topics", "4", "--iters", "3", "--batch-size",
                            "100", "--device", "gpu", "--out", out->path()});
    ASSERT_EQ(r.status, 0) << r.err;
    // The promise holds for repeatable kernels only: auto must have picked such ones here.
    ASSERT_EQ(r.err.find("not bitwise repeatable"), std::string::npos) << r.err;
  }
  for (const char* f : {"lambda.npy", "doc_topics.npy"})
    EXPECT_EQ(test::slurp(first.file(f)), test::slurp(second.file(f))) << f;
}

// --device-memory below one minibatch (0.01 MiB; these hold about 30 KB) streams every minibatch
// (training and held-out) through the two slots, with the prefetch guessing the next one: the model
// must not change at all. kSmall's 300 documents in minibatches of 40 give 7 training and 1
// held-out pair of batches, more than the two slots, so slots are reused and both the guessed and
// the unguessed paths run.
TEST(LdaTrain, StreamedMinibatchesGiveTheSameModel) {
  test::TempDir dir;
  const Sub resident(dir, "resident"), unlimited(dir, "unlimited"), streamed(dir, "streamed");
  auto run = [&](const Sub& out, const std::string& device_memory) {
    return run_lda({"--input", kSmall, "--topics", "4", "--iters", "2", "--batch-size", "40",
                    "--device", "cpu", "--out", out.path(), "--device-memory", device_memory});
  };
  const auto a = run(resident, "1000"), b = run(unlimited, "0"), c = run(streamed, "0.01");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(a.err.find("streamed"), std::string::npos) << a.err;
  EXPECT_EQ(b.err.find("streamed"), std::string::npos) << b.err;  // 0: no limit
  EXPECT_NE(c.err.find("streamed from pinned host memory"), std::string::npos) << c.err;
  EXPECT_EQ(io::read_npy_f32(resident.file("lambda.npy")).storage(),
            io::read_npy_f32(streamed.file("lambda.npy")).storage());
  EXPECT_EQ(heldout_by_pass(resident.path()), heldout_by_pass(streamed.path()));
}

// The same on the GPU, where the copies are asynchronous on their own stream: a missing wait
// would show as a different model (or a sanitizer report).
TEST(LdaTrain, GpuStreamedMinibatchesMatchResident) {
  FK_REQUIRE_GPU();
  test::TempDir dir;
  const Sub resident(dir, "resident"), streamed(dir, "streamed");
  const std::vector<std::string> base{"--input", kSmall,         "--topics", "4",        "--iters",
                                      "2",       "--batch-size", "40",       "--device", "gpu"};
  auto args = base;
  args.insert(args.end(), {"--out", resident.path(), "-q"});
  ASSERT_EQ(run_lda(args).status, 0);
  args = base;
  args.insert(args.end(), {"--out", streamed.path(), "--device-memory", "0.01"});
  const auto r = run_lda(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("streamed from pinned host memory"), std::string::npos) << r.err;
  const auto a = io::read_npy_f32(resident.file("lambda.npy")),
             b = io::read_npy_f32(streamed.file("lambda.npy"));
  EXPECT_LT(test::max_rel_error(b.storage(), a.storage()), 1e-5);
  const auto ha = heldout_by_pass(resident.path()), hb = heldout_by_pass(streamed.path());
  ASSERT_EQ(ha.size(), hb.size());
  for (std::size_t i = 0; i < ha.size(); ++i) EXPECT_NEAR(ha[i], hb[i], 1e-6 * std::fabs(ha[i]));
}

TEST(LdaTrain, CompareWithoutGpuRunsTheCpu) {
  if (test::gpu_available()) GTEST_SKIP() << "a GPU is present";
  test::TempDir dir;
  const auto r = run_lda(
      {"--input", kSmall, "--topics", "4", "--iters", "1", "--compare", "--out", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("running the CPU only"), std::string::npos) << r.err;
  EXPECT_EQ(read_lines(dir.file("cpu/metrics.jsonl")).size(), 1u);
}

TEST(LdaTrain, InferFromSavedModel) {
  test::TempDir dir;
  const Sub model(dir, "model"), docs(dir, "docs"), out(dir, "out");
  ASSERT_EQ(run_lda({"--input", kSmall, "--topics", "4", "--iters", "2", "--device", "cpu", "-q",
                     "--out", model.path()})
                .status,
            0);
  // New documents as a UCI file over the same 200 words.
  {
    std::ofstream f(docs.file("docword.new.txt"));
    f << "3\n200\n5\n1 1 2\n1 7 1\n2 150 4\n3 199 1\n3 3 2\n";
  }
  const auto r = run_lda({"infer", "--model", model.path(), "--input", docs.file("docword.new.txt"),
                          "--out", out.path(), "--device", "cpu"});
  ASSERT_EQ(r.status, 0) << r.err;
  const HostDense<float> theta = io::read_npy_f32(out.file("theta.npy"));
  ASSERT_EQ(theta.rows(), 3);
  ASSERT_EQ(theta.cols(), 4);
  for (std::int64_t d = 0; d < 3; ++d) {
    double s = 0;
    for (int k = 0; k < 4; ++k) s += theta(d, k);
    EXPECT_NEAR(s, 1.0, 1e-5);
  }
  // More words than the model: refused with the file named.
  {
    std::ofstream f(docs.file("docword.big.txt"));
    f << "1\n300\n1\n1 250 1\n";
  }
  const auto bad = run_lda({"infer", "--model", model.path(), "--input",
                            docs.file("docword.big.txt"), "--out", out.path(), "--device", "cpu"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("docword.big.txt"), std::string::npos) << bad.err;
  EXPECT_EQ(run_lda({"infer", "--input", docs.file("docword.new.txt")}).status, 2);  // no --model
  // A generated corpus is a bad --input (exit 2, named before the model is read), not exit 1
  // without the option.
  const auto generated = run_lda({"infer", "--model", dir.file("none"), "--input", "gen:default",
                                  "--out", out.path(), "--device", "cpu"});
  EXPECT_EQ(generated.status, 2) << generated.err;
  EXPECT_NE(generated.err.find("--input: 'gen:default': a generated corpus"), std::string::npos)
      << generated.err;
  // Another app's model is named as such (it said "missing 'topics'").
  const Sub als(dir, "als");
  std::ofstream(als.file("model.ini"))
      << "# fk-als model: score = ...\napp = fk-als\nfactors = 2\n";
  const auto other = run_lda({"infer", "--model", als.path(), "--input",
                              docs.file("docword.new.txt"), "--out", out.path()});
  EXPECT_EQ(other.status, 1);
  EXPECT_NE(other.err.find("this is an fk-als model, not an fk-lda one"), std::string::npos)
      << other.err;
  // infer's config.ini runs again as "fk-lda infer --config" (it holds no training-only option).
  EXPECT_NE(read_lines(out.file("config.ini"))[0].find("run again with fk-lda infer --config"),
            std::string::npos);
  const Sub again(dir, "again");
  ASSERT_EQ(run_lda({"infer", "--config", out.file("config.ini"), "--out", again.path()}).status,
            0);
  EXPECT_EQ(test::slurp(again.file("theta.npy")), test::slurp(out.file("theta.npy")));
  // --out at the training run's folder would replace its config.ini: refused, nothing written.
  const auto before = test::folder_files(model.path());
  const auto over =
      run_lda({"infer", "--model", model.path(), "--input", docs.file("docword.new.txt"), "--out",
               model.path(), "--device", "cpu"});
  EXPECT_EQ(over.status, 2) << over.err;
  EXPECT_NE(over.err.find("training run"), std::string::npos) << over.err;
  EXPECT_EQ(test::folder_files(model.path()), before);
  // An input in --out under the name of one of infer's files was replaced by it (config.ini: the
  // documents became the resolved configuration, exit 0); a folder there left theta.npy written
  // and failed on config.ini (exit 1). Both are refused before anything is written (exit 2).
  const Sub named(dir, "named");
  std::filesystem::copy_file(docs.file("docword.new.txt"), named.file("config.ini"));
  const std::string docs_text = test::slurp(named.file("config.ini"));
  const auto replaced = run_lda({"infer", "--model", model.path(), "--input",
                                 named.file("config.ini"), "--format", "uci", "--out",
                                 named.path(), "--device", "cpu"});
  EXPECT_EQ(replaced.status, 2) << replaced.err;
  EXPECT_NE(replaced.err.find("config.ini would be replaced"), std::string::npos) << replaced.err;
  EXPECT_EQ(test::slurp(named.file("config.ini")), docs_text);
  EXPECT_FALSE(std::filesystem::exists(named.file("theta.npy")));
  const Sub folder(dir, "folder");
  std::filesystem::create_directories(folder.file("config.ini"));
  const auto in_the_way = run_lda({"infer", "--model", model.path(), "--input",
                                   docs.file("docword.new.txt"), "--out", folder.path(),
                                   "--device", "cpu"});
  EXPECT_EQ(in_the_way.status, 2) << in_the_way.err;
  EXPECT_NE(in_the_way.err.find("is a directory"), std::string::npos) << in_the_way.err;
  EXPECT_FALSE(std::filesystem::exists(folder.file("theta.npy")));
  // A damaged model is refused naming the file and what is wrong, not turned into NaN θ.
  auto damaged = [&](const std::string& name, const std::function<void(const Sub&)>& damage) {
    const Sub copy(dir, name);
    std::filesystem::copy(model.path(), copy.path(), std::filesystem::copy_options::recursive);
    damage(copy);
    return run_lda({"infer", "--model", copy.path(), "--input", docs.file("docword.new.txt"),
                    "--out", dir.file(name + "-out"), "--device", "cpu"});
  };
  const auto nan_lambda = damaged("nan", [](const Sub& m) {
    HostDense<float> lambda = io::read_npy_f32(m.file("lambda.npy"));
    lambda(1, 5) = NAN;
    io::write_npy(m.file("lambda.npy"), lambda);
  });
  EXPECT_EQ(nan_lambda.status, 1);
  EXPECT_NE(nan_lambda.err.find("lambda.npy: entry (1, 5)"), std::string::npos) << nan_lambda.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("nan-out/theta.npy")));
  auto edit_ini = [](const std::string& key, const std::string& value) {
    return [=](const Sub& m) {
      std::string ini;
      for (const std::string& line : read_lines(m.file("model.ini")))
        ini += (line.rfind(key + " = ", 0) == 0 ? key + " = " + value : line) + "\n";
      test::write_bytes(m.file("model.ini"), ini);
    };
  };
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"tol", "abc"},
                                                        {"topics", "4.5"},
                                                        {"vocab", "maybe"},
                                                        {"inner-iters", "1e12"},
                                                        {"alpha", "1e39"},
                                                        {"eta", "1e-46"}}) {
    const auto r = damaged("ini-" + key, edit_ini(key, value));
    EXPECT_EQ(r.status, 1) << key;
    EXPECT_NE(r.err.find("model.ini: '" + key + "'"), std::string::npos) << r.err;
  }
}

// A UCI docword file of `docs` documents over kSmall's 200 words, 15 distinct words each, for
// infer (which reads files only).
void write_new_docword(const std::string& path, int docs) {
  std::ofstream f(path);
  f << docs << "\n200\n" << docs * 15 << "\n";
  for (int d = 0; d < docs; ++d) {
    std::vector<int> words;
    for (int j = 0; j < 15; ++j) words.push_back((d * 37 + j * 13) % 200 + 1);  // coprime: distinct
    std::sort(words.begin(), words.end());
    for (int w : words) f << d + 1 << ' ' << w << ' ' << 1 + (d + w) % 3 << "\n";
  }
}

// The variants the infer log line lists ("(kernels: A, B; precision bf16)" gives "A, B").
std::string logged_kernels(const std::string& err) {
  const std::string key = "(kernels: ";
  const auto b = err.find(key);
  if (b == std::string::npos) return "";
  const auto e = err.find_first_of(";)", b);
  return err.substr(b + key.size(), e - b - key.size());
}

// A small model trained on the CPU and 120 new documents (write_new_docword) for the infer tests;
// run() calls fk-lda infer on them.
struct InferSetup {
  explicit InferSetup(test::TempDir& dir) : model(dir, "model"), docs(dir.file("docword.new.txt")) {
    const auto r = run_lda({"--input", kSmall, "--topics", "4", "--iters", "2", "--device", "cpu", "-q",
                            "--out", model.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    write_new_docword(docs, 120);
  }
  test::LdaRun run(const Sub& out, const std::string& device, std::vector<std::string> extra) const {
    std::vector<std::string> args{"infer", "--model", model.path(), "--input", docs,
                                  "--out", out.path(), "--device", device};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_lda(args);
  }
  Sub model;
  std::string docs;
};

// What infer_topics logs (progress lines every minibatch and E-step iteration: an interval of 0)
// for kSmall's 300 documents under a 3-topic model trained for one pass, in minibatches of
// `batch_size` with at most `inner_iters` E-step iterations stopping below `tol`.
std::string infer_log(std::int64_t batch_size, int inner_iters, double tol) {
  test::TempDir dir;
  EXPECT_EQ(run_lda({"--input", kSmall, "--topics", "3", "--iters", "1", "--device", "cpu", "-q",
                     "--out", dir.path()})
                .status,
            0);
  const LdaModel model = load_lda_model(dir.path());
  const Corpus docs = load_corpus(kSmall, io::InputFormat::kAuto, TextOptions{});
  ::testing::internal::CaptureStderr();
  const HostDense<float> theta =
      infer_topics(model, docs.counts, Context::create(DeviceRequest::kCpu, 1), batch_size, 1,
                   inner_iters, tol, "auto", "auto", Precision::kF32, "auto", 0.0);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(theta.rows(), 300);
  return err;
}

// infer's E-step over many documents gives progress lines as a training pass does (there was no
// line between the kernel line and the result, minutes on a large corpus): here every minibatch,
// through the interval the app sets to 10 s.
TEST(LdaTrain, InferReportsProgress) {
  const std::string err = infer_log(100, 50, 1e-3);
  EXPECT_NE(err.find("infer: minibatches: 2/3"), std::string::npos) << err;
}

// One minibatch is one E-step: the minibatch line never came inside it, so a --batch pass or an
// infer run of a whole large corpus printed nothing for minutes. Lines now come from inside the
// E-step (here every iteration), numbered, with γ's change and the tol.
TEST(LdaTrain, InferOfOneMinibatchReportsEStepIterations) {
  const std::string err = infer_log(1000, 3, 0.0);
  for (const char* line : {"infer: E-step iteration 1 (at most 3), mean change of gamma ",
                           "infer: E-step iteration 3 (at most 3)", "(stops below 0)"})
    EXPECT_NE(err.find(line), std::string::npos) << line << " in\n" << err;
  EXPECT_EQ(err.find("E-step iteration 4"), std::string::npos) << err;
}

// infer --precision, as the training side's CLI tests check it (AlsCli, SfaCli): bf16 on the CPU
// is accepted and recorded (config.ini, config.json, the kernels' log line; a config file's
// `precision =` too) and gives the same θ as fp32, since the CPU kernels are fp32 ones. A bad value
// is a usage error naming the option (so is an unknown --spmm variant), and infer --help explains it.
TEST(LdaTrain, InferPrecisionIsRecordedAndCpuKernelsStayFp32) {
  test::TempDir dir;
  const InferSetup setup(dir);
  const Sub f32(dir, "f32"), b16(dir, "bf16"), f16(dir, "fp16");
  auto infer = [&](const Sub& out, std::vector<std::string> extra) {
    extra.insert(extra.end(), {"--batch-size", "50"});
    return setup.run(out, "cpu", extra);
  };
  const auto a = infer(f32, {});
  ASSERT_EQ(a.status, 0) << a.err;
  const auto b = infer(b16, {"--precision", "bf16"});
  ASSERT_EQ(b.status, 0) << b.err;
  const HostDense<float> theta = io::read_npy_f32(f32.file("theta.npy"));
  EXPECT_EQ(theta.rows(), 120);
  EXPECT_EQ(theta.storage(), io::read_npy_f32(b16.file("theta.npy")).storage());
  const auto cfg32 = read_lines(f32.file("config.ini")), cfg16 = read_lines(b16.file("config.ini"));
  EXPECT_NE(std::find(cfg32.begin(), cfg32.end(), "precision = fp32"), cfg32.end());
  EXPECT_NE(std::find(cfg16.begin(), cfg16.end(), "precision = bf16"), cfg16.end());
  EXPECT_NE(test::slurp(b16.file("config.json")).find("\"precision\": \"bf16\""),
            std::string::npos);
  EXPECT_NE(b.err.find("; precision bf16 accepted, the CPU kernels run in fp32)"),
            std::string::npos)
      << b.err;
  EXPECT_EQ(a.err.find("; precision"), std::string::npos) << "fp32 is not mentioned: " << a.err;
  EXPECT_FALSE(logged_kernels(b.err).empty()) << b.err;
  EXPECT_EQ(logged_kernels(b.err), logged_kernels(a.err));

  {
    std::ofstream f(dir.file("infer.ini"));
    f << "precision = fp16\n";
  }
  const auto c = infer(f16, {"--config", dir.file("infer.ini")});
  ASSERT_EQ(c.status, 0) << c.err;
  const auto cfg = read_lines(f16.file("config.ini"));
  EXPECT_NE(std::find(cfg.begin(), cfg.end(), "precision = fp16"), cfg.end());
  EXPECT_NE(c.err.find("; precision fp16 accepted, the CPU kernels run in fp32)"),
            std::string::npos)
      << c.err;
  EXPECT_EQ(theta.storage(), io::read_npy_f32(f16.file("theta.npy")).storage());

  const auto bad = infer(f32, {"--precision", "fp8"});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("fk-lda: error: --precision: unknown precision 'fp8' (expected one of "
                         "fp32, fp16, bf16)"),
            std::string::npos)
      << bad.err;

  // A kernel variant that does not exist is a usage error too, before any document is read.
  const auto typo = infer(f32, {"--spmm", "cuda.spmm.no_such"});
  EXPECT_EQ(typo.status, 2) << typo.err;
  EXPECT_NE(typo.err.find("fk-lda: error: --spmm: "), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("cuda.spmm.no_such"), std::string::npos) << typo.err;

  const auto help = run_lda({"infer", "--help"});
  EXPECT_EQ(help.status, 0) << help.err;
  EXPECT_NE(help.out.find("--precision"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("bf16"), std::string::npos) << help.out;
}

// infer --help's --seed says what the seed does there: it draws each document's starting γ (no
// held-out split, no gen: input, which the training text named). The option stays accepted and
// does what the help says: the same seed, the same θ; another, a slightly different one. Training
// keeps its text.
TEST(LdaTrain, InferSeedHelpSaysWhatItSeeds) {
  const auto help = run_lda({"infer", "--help"});
  ASSERT_EQ(help.status, 0) << help.err;
  const std::size_t seed = help.out.find("--seed N");
  ASSERT_NE(seed, std::string::npos) << help.out;
  const std::string text = help.out.substr(seed, help.out.find("\n  --", seed) - seed);
  EXPECT_EQ(text.find("held-out"), std::string::npos) << text;
  EXPECT_EQ(text.find("gen:"), std::string::npos) << text;
  std::string flat;  // the help wrapped at its width, joined again
  for (std::istringstream in(text); in;) {
    std::string word;
    if (in >> word) flat += (flat.empty() ? "" : " ") + word;
  }
  EXPECT_NE(flat.find("Here it seeds only each document's starting point for the E-step"),
            std::string::npos)
      << flat;
  const auto train_help = run_lda({"--help"});
  EXPECT_NE(train_help.out.find("the held-out split"), std::string::npos) << train_help.out;

  test::TempDir dir;
  const InferSetup setup(dir);
  const Sub a(dir, "a"), b(dir, "b"), c(dir, "c");
  ASSERT_EQ(setup.run(a, "cpu", {"--seed", "5", "--inner-iters", "2"}).status, 0);
  ASSERT_EQ(setup.run(b, "cpu", {"--seed", "5", "--inner-iters", "2"}).status, 0);
  ASSERT_EQ(setup.run(c, "cpu", {"--seed", "6", "--inner-iters", "2"}).status, 0);
  const HostDense<float> ta = io::read_npy_f32(a.file("theta.npy"));
  EXPECT_EQ(ta.storage(), io::read_npy_f32(b.file("theta.npy")).storage());
  EXPECT_NE(ta.storage(), io::read_npy_f32(c.file("theta.npy")).storage());
}

// infer --precision bf16 on a GPU (sm_80 or newer): with the tensor-core variants named, every
// SDDMM and SpMM of the E-step rounds Eθ, Eβ and the counts to bf16 (accumulating in fp32), and θ
// stays close to the fp32 one; with `auto`, these documents are not V x 1 structured, so bf16
// changes no kernel. Skips without a GPU.
TEST(LdaTrain, InferBf16TensorCoreKernelsOnGpu) {
  FK_REQUIRE_GPU();
  test::TempDir dir;
  const InferSetup setup(dir);
  const Sub f32(dir, "f32"), tc(dir, "tc"), au(dir, "auto");
  auto infer = [&](const Sub& out, std::vector<std::string> extra) { return setup.run(out, "gpu", extra); };
  const auto a = infer(f32, {});
  ASSERT_EQ(a.status, 0) << a.err;
  const auto t = infer(
      tc, {"--precision", "bf16", "--sddmm", "cuda.sddmm.tc_v1", "--spmm", "cuda.spmm.tc_v1"});
  ASSERT_EQ(t.status, 0) << t.err;
  const auto u = infer(au, {"--precision", "bf16"});
  ASSERT_EQ(u.status, 0) << u.err;
  EXPECT_EQ(logged_kernels(t.err), "cuda.sddmm.tc_v1, cuda.spmm.tc_v1") << t.err;
  EXPECT_NE(t.err.find("; precision bf16)"), std::string::npos) << t.err;
  EXPECT_EQ(logged_kernels(u.err), logged_kernels(a.err)) << u.err;
  const HostDense<float> t32 = io::read_npy_f32(f32.file("theta.npy")),
                         t16 = io::read_npy_f32(tc.file("theta.npy"));
  ASSERT_EQ(t16.rows(), t32.rows());
  double diff = 0;
  for (std::size_t i = 0; i < t32.storage().size(); ++i)
    diff += std::fabs(double(t16.storage()[i]) - t32.storage()[i]);
  EXPECT_LT(diff / static_cast<double>(t32.storage().size()), 0.01);
}

// --test FILE: a separate held-out corpus instead of the split; every input document trains.
TEST(LdaTrain, SeparateTestCorpus) {
  test::TempDir dir;
  {
    std::ofstream f(dir.file("docword.test.txt"));  // 3 documents over the same 200 words
    f << "3\n200\n6\n1 1 3\n1 2 2\n2 150 4\n2 7 1\n3 199 2\n3 3 2\n";
  }
  const auto r = run_lda({"--input", kSmall, "--test", dir.file("docword.test.txt"), "--topics",
                          "4", "--iters", "2", "--device", "cpu", "-q", "--out", dir.file("o")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(io::read_npy_f32(dir.file("o/doc_topics.npy")).rows(),
            300);  // no document held out of training
  for (const std::string& line : read_lines(dir.file("o/metrics.jsonl")))
    EXPECT_TRUE(json_number(line, "heldout_ll").has_value()) << line;
  const auto both = run_lda({"--input", kSmall, "--test", dir.file("docword.test.txt"),
                             "--holdout-frac", "0.2", "--device", "cpu", "--out", dir.file("o2")});
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("--test"), std::string::npos) << both.err;
  // --holdout-frac 0 holds nothing out: no conflict with --test.
  const auto zero = run_lda({"--input", kSmall, "--test", dir.file("docword.test.txt"),
                             "--holdout-frac", "0", "--topics", "4", "--iters", "1", "--device",
                             "cpu", "-q", "--out", dir.file("o3")});
  EXPECT_EQ(zero.status, 0) << zero.err;
}

// fk-datagen's folder: docword.txt pairs with vocab.txt beside it (the UCI files' vocab.X.txt
// naming does not fit "docword.txt"), and --out at that folder is refused before it changes: the
// run would replace the corpus's vocab.txt with its own.
TEST(LdaTrain, DocwordTxtUsesVocabTxtAndOutMayNotReplaceIt) {
  test::TempDir dir;
  const Sub data(dir, "data");
  {
    std::ofstream f(data.file("docword.txt"));  // 3 documents over 4 words
    f << "3\n4\n6\n1 1 3\n1 2 2\n2 3 4\n2 4 1\n3 1 2\n3 4 2\n";
    std::ofstream v(data.file("vocab.txt"));
    v << "apple\nbanana\ncherry\ndate\n";
  }
  const auto r = run_lda({"--input", data.file("docword.txt"), "--topics", "2", "--iters", "1",
                          "--holdout-frac", "0", "--device", "cpu", "-q", "--out",
                          dir.file("o")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_lines(dir.file("o/vocab.txt")),
            (std::vector<std::string>{"apple", "banana", "cherry", "date"}));
  const auto into = run_lda({"--input", data.file("docword.txt"), "--topics", "2", "--iters", "1",
                             "--holdout-frac", "0", "--device", "cpu", "-q", "--out",
                             data.path()});
  EXPECT_EQ(into.status, 2);
  EXPECT_NE(into.err.find("--out"), std::string::npos) << into.err;
  EXPECT_EQ(read_lines(data.file("vocab.txt")).size(), 4u) << "the corpus's vocabulary is kept";
  EXPECT_FALSE(std::filesystem::exists(data.file("config.ini"))) << "nothing written there";
}

// --vocab follows the rules of a UCI vocab.X.txt: a blank line before a word was taken as the
// word "" (exit 0, top_words.txt listing nothing for it), and a file ending in a blank line was
// refused as one word too many, though the same file beside a docword file is read.
TEST(LdaTrain, VocabFileReadAsAUciVocabulary) {
  test::TempDir dir;
  {
    std::ofstream f(dir.file("counts.mtx"));  // 3 documents over 4 words
    f << "%%MatrixMarket matrix coordinate integer general\n3 4 4\n1 1 2\n2 2 1\n3 4 1\n3 3 2\n";
    std::ofstream(dir.file("trailing.txt")) << "apple\nbanana\ncherry\ndate\n\n\n";
    std::ofstream(dir.file("gap.txt")) << "apple\nbanana\n\ndate\n";
    std::ofstream(dir.file("twice.txt")) << "apple\nbanana\napple \ndate\n";
  }
  const std::vector<std::string> base{"--input", dir.file("counts.mtx"), "--topics", "2",
                                      "--iters", "1", "--holdout-frac", "0", "--device", "cpu",
                                      "-q"};
  auto run = [&](const std::string& vocab, const std::string& out) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--vocab", dir.file(vocab), "--out", dir.file(out)});
    return run_lda(args);
  };
  const auto trailing = run("trailing.txt", "o");
  ASSERT_EQ(trailing.status, 0) << trailing.err;
  EXPECT_EQ(read_lines(dir.file("o/vocab.txt")),
            (std::vector<std::string>{"apple", "banana", "cherry", "date"}));
  const auto gap = run("gap.txt", "o2");
  EXPECT_EQ(gap.status, 1) << gap.err;
  EXPECT_NE(gap.err.find("gap.txt:3: blank line in the vocabulary"), std::string::npos) << gap.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("o2"))) << "refused before --out is made";
  // A word on two lines (trailing blanks dropped) is read, as a UCI vocabulary is, and warned
  // about: its topics would list both columns alike.
  const auto twice = run("twice.txt", "o3");
  ASSERT_EQ(twice.status, 0) << twice.err;
  EXPECT_NE(twice.err.find("twice.txt: 1 line repeats a word of an earlier line (first: 'apple' "
                           "at line 3, as at line 1)"),
            std::string::npos)
      << twice.err;
}

TEST(LdaTrain, TextInputWithVocabularyAndInfer) {
  test::TempDir dir;
  const Sub model(dir, "model"), out(dir, "out");
  {
    std::ofstream f(dir.file("corpus.txt"));
    for (int i = 0; i < 40; ++i) {
      f << "Galaxies and stars: the telescope saw a galaxy, stars, and planets orbiting stars.\n";
      f << "The striker scored a goal; the goalkeeper and the team played football.\n";
    }
  }
  const auto r = run_lda({"--input", dir.file("corpus.txt"), "--topics", "2", "--iters", "5",
                          "--min-count", "2", "--max-df", "0.6", "--device", "cpu", "--out",
                          model.path(), "--holdout-frac", "0.1"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto top = read_lines(model.file("top_words.txt"));
  ASSERT_EQ(top.size(), 2u);
  // The two topics took one theme each: their top words come from different kinds of lines.
  const std::string space[] = {"galaxies", "stars",   "telescope", "saw",
                               "galaxy",   "planets", "orbiting"};
  auto first_word = [](const std::string& line) {  // "topic 0: w1 w2 ..."
    const auto b = line.find(": ") + 2;
    return line.substr(b, line.find(' ', b) - b);
  };
  auto is_space = [&](const std::string& w) {
    return std::find(std::begin(space), std::end(space), w) != std::end(space);
  };
  EXPECT_NE(is_space(first_word(top[0])), is_space(first_word(top[1]))) << top[0] << "\n" << top[1];
  EXPECT_EQ(read_lines(model.file("vocab.txt")).size(),
            14u);  // "the", "and" are stop words, "a" too short
  {
    std::ofstream f(dir.file("new.txt"));
    f << "stars and galaxies\nfootball team goal\n";
  }
  const auto inf = run_lda({"infer", "--model", model.path(), "--input", dir.file("new.txt"),
                            "--format", "text", "--out", out.path(), "--device", "cpu"});
  ASSERT_EQ(inf.status, 0) << inf.err;
  const HostDense<float> theta = io::read_npy_f32(out.file("theta.npy"));
  ASSERT_EQ(theta.rows(), 2);
  // The two new documents lean to different topics.
  EXPECT_NE(theta(0, 0) > 0.5, theta(1, 0) > 0.5);
  // The model's vocab.txt saved with CRLF line ends (an editor on Windows) reads the same.
  const Sub crlf(dir, "crlf"), crlf_out(dir, "crlf-out");
  std::filesystem::copy(model.path(), crlf.path(), std::filesystem::copy_options::recursive);
  std::string text;
  for (const std::string& w : read_lines(model.file("vocab.txt"))) text += w + "\r\n";
  test::write_bytes(crlf.file("vocab.txt"), text);
  ASSERT_EQ(run_lda({"infer", "--model", crlf.path(), "--input", dir.file("new.txt"), "--format",
                     "text", "--out", crlf_out.path(), "--device", "cpu"})
                .status,
            0);
  EXPECT_EQ(test::slurp(crlf_out.file("theta.npy")), test::slurp(out.file("theta.npy")));
  // Documents with no word of the model's vocabulary are said, not silently given uniform θ.
  {
    std::ofstream f(dir.file("unknown.txt"));
    f << "quantum entanglement\nstars galaxies\n";
  }
  const auto unk = run_lda({"infer", "--model", model.path(), "--input", dir.file("unknown.txt"),
                            "--format", "text", "--out", dir.file("unk-out"), "--device", "cpu"});
  ASSERT_EQ(unk.status, 0) << unk.err;
  EXPECT_NE(unk.err.find("1 of 2 documents have no word of the model's vocabulary"),
            std::string::npos)
      << unk.err;
}

// Without a vocabulary, top_words.txt/.csv and coherence.csv name words "w" and their 0-based id,
// so w0 is UCI word id 1: here the one word every document is made of is id 3 in the UCI file,
// listed as w2. fk-datagen's vocab.txt names generated words the same way; --help says so (it was
// said nowhere; fk-gap's: GapCli.HelpSaysHowWordsWithoutAVocabularyAreNamed).
TEST(LdaTrain, UnnamedWordsAreZeroBasedIds) {
  test::TempDir dir;
  const Sub data(dir, "data"), out(dir, "out");
  {
    std::ofstream d(data.file("docword.nameless.txt"));  // no vocab.nameless.txt beside it
    d << "4\n5\n8\n";
    for (int doc = 1; doc <= 4; ++doc)
      d << doc << " 3 50\n" << doc << " " << (doc % 2 ? 1 : 5) << " 1\n";
  }
  const auto r = run_lda({"--input", data.file("docword.nameless.txt"), "--topics", "2", "--iters",
                          "2", "--holdout-frac", "0", "--top-words", "2", "--device", "cpu", "-q",
                          "--out", out.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> txt = read_lines(out.file("top_words.txt"));
  ASSERT_EQ(txt.size(), 2u);
  for (const std::string& line : txt) EXPECT_NE(line.find(": w2 "), std::string::npos) << line;
  const std::string csv = test::slurp(out.file("top_words.csv"));
  EXPECT_NE(csv.find("\n0,1,w2,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,1,w2,"), std::string::npos) << csv;
  EXPECT_FALSE(std::filesystem::exists(out.file("vocab.txt")));
  std::string flat;  // --help wrapped at its width, joined again
  std::istringstream in(run_lda({"--help"}).out);
  for (std::string word; in >> word;) flat += (flat.empty() ? "" : " ") + word;
  EXPECT_NE(flat.find("vocab.txt (the words in lambda.npy's column order; none without a "
                      "vocabulary (UCI without vocab.X.txt beside it, Matrix Market without "
                      "--vocab): then "
                      "top_words.txt, top_words.csv and coherence.csv name a word w and its index "
                      "from 0 among the input's words: w0 is UCI/Matrix Market word id 1, wN is "
                      "id N+1, as fk-datagen's vocab.txt names generated words)"),
            std::string::npos)
      << flat;
}

// --top-words 0 asks for no top-word list, as in fk-gap: no top_words.txt of empty lines, and an
// earlier run's list goes.
TEST(LdaTrain, TopWordsZeroWritesNoList) {
  test::TempDir dir;
  const Sub out(dir, "o");
  auto run = [&](const std::string& words) {
    return run_lda({"--input", kSmall, "--topics", "3", "--iters", "1", "--device", "cpu", "-q",
                    "--top-words", words, "--out", out.path()})
        .status;
  };
  ASSERT_EQ(run("5"), 0);
  EXPECT_TRUE(std::filesystem::exists(out.file("top_words.txt")));
  ASSERT_EQ(run("0"), 0);
  EXPECT_FALSE(std::filesystem::exists(out.file("top_words.txt")));
}

// A UCI file whose own vocabulary (vocab.X.txt beside it) orders the words differently from the
// model's: its counts are matched to the model's words by name, words the model lacks dropped, so
// θ is the one the same documents get in the model's own word ids.
TEST(LdaTrain, InferMatchesAnotherVocabularyByWord) {
  test::TempDir dir;
  const Sub model(dir, "model"), a(dir, "a"), b(dir, "b"), oa(dir, "oa"), ob(dir, "ob");
  ASSERT_EQ(run_lda({"--input", "gen:default:docs=300,words=60", "--topics", "3", "--iters", "2",
                     "--device", "cpu", "-q", "--out", model.path()})
                .status,
            0);
  const std::vector<std::string> vocab = read_lines(model.file("vocab.txt"));
  ASSERT_EQ(vocab.size(), 60u);
  // Two documents in the model's ids (a), and the same in a reversed vocabulary with one word the
  // model does not know (b).
  {
    std::ofstream d(a.file("docword.x.txt"));
    d << "2\n60\n3\n1 1 2\n1 10 1\n2 59 3\n";
    std::ofstream v(a.file("vocab.x.txt"));
    for (const std::string& w : vocab) v << w << "\n";
  }
  {
    std::ofstream d(b.file("docword.x.txt"));
    d << "2\n61\n4\n1 60 2\n1 51 1\n1 61 7\n2 2 3\n";
    std::ofstream v(b.file("vocab.x.txt"));
    for (auto w = vocab.rbegin(); w != vocab.rend(); ++w) v << *w << "\n";
    v << "no-such-word\n";
  }
  for (const auto& [in, out] : {std::pair{&a, &oa}, std::pair{&b, &ob}})
    ASSERT_EQ(run_lda({"infer", "--model", model.path(), "--input", in->file("docword.x.txt"),
                       "--out", out->path(), "--device", "cpu"})
                  .status,
              0);
  EXPECT_EQ(test::slurp(oa.file("theta.npy")), test::slurp(ob.file("theta.npy")));
}

// infer takes --ratio-spmm as training does: the fused E-step and the separate kernels give the
// same θ up to rounding; a name that is no fused variant is a usage error.
TEST(LdaTrain, InferTakesRatioSpmm) {
  test::TempDir dir;
  const InferSetup setup(dir);
  const Sub fused(dir, "fused"), off(dir, "off");
  for (const auto& [kernel, out] :
       {std::pair{"omp.ratio_spmm.rows", &fused}, std::pair{"off", &off}}) {
    const auto r = setup.run(*out, "cpu", {"--ratio-spmm", kernel});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("omp.ratio_spmm.rows") != std::string::npos, std::string(kernel) != "off")
        << r.err;
  }
  EXPECT_LT(test::max_rel_error(io::read_npy_f32(fused.file("theta.npy")).storage(),
                                io::read_npy_f32(off.file("theta.npy")).storage()),
            1e-4);
  const auto bad = setup.run(off, "cpu", {"--ratio-spmm", "nope"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--ratio-spmm"), std::string::npos) << bad.err;
  // A Matrix Market file of fewer words than the model: read in the model's first word ids, and
  // the log says so (it was silent).
  const std::string mtx = dir.file("few.mtx");
  std::ofstream(mtx)
      << "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 2\n1 3 1\n2 2 4\n";
  const auto few = run_lda({"infer", "--model", setup.model.path(), "--input", mtx, "--out",
                            off.path(), "--device", "cpu"});
  ASSERT_EQ(few.status, 0) << few.err;
  EXPECT_NE(few.err.find("3 words, the model 200; its word ids are taken as the model's first 3"),
            std::string::npos)
      << few.err;
}

// Bad input and bad options give one line "fk-lda: error: ..." naming the problem, exit status 1
// for runtime failures (bad input files) and 2 for usage errors. In-process through the same
// wrapper as main(); the built executable is checked for a few cases below.
// A UCI header that counts more documents than its entries name: the empty documents are kept
// and the run says how many there are.
TEST(LdaErrors, EmptyDocumentsAreWarnedAbout) {
  test::TempDir dir;
  {
    std::ofstream f(dir.file("docword.five.txt"));
    f << "5\n3\n2\n1 1 2\n2 3 1\n";
  }
  const auto r = run_lda({"--input", dir.file("docword.five.txt"), "--format", "uci", "--topics",
                          "2", "--iters", "1", "--device", "cpu", "--out", dir.file("o")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("3 of 5 documents have no words"), std::string::npos) << r.err;
}

// The seeded split can hold out every document with words (here the three of six, the rest
// empty): the run trained on nothing and saved its random initial topics with exit 0.
TEST(LdaErrors, SplitLeavingNoTrainingTokensIsRefused) {
  test::TempDir dir;
  {
    std::ofstream f(dir.file("docword.six.txt"));
    f << "6\n4\n3\n1 1 2\n2 3 1\n6 2 4\n";
  }
  const auto r = run_lda({"--input", dir.file("docword.six.txt"), "--holdout-frac", "0.5",
                          "--seed", "1", "--topics", "2", "--iters", "1", "--device", "cpu",
                          "--out", dir.file("o")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("docword.six.txt: the held-out split (--holdout-frac 0.5, --seed 1) left "
                       "the 3 training documents without a word"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("o"))) << "nothing written";
}

TEST(LdaErrors, BadInputAndOptions) {
  test::TempDir dir;
  auto expect = [&](std::vector<std::string> args, int status, const std::string& needle) {
    args.insert(args.end(), {"--out", dir.file("o"), "--device", "cpu"});
    const test::LdaRun r = run_lda(args);
    std::string all;
    for (const std::string& a : args) all += a + " ";
    EXPECT_EQ(r.status, status) << all << "\n" << r.err;
    const auto line = r.err.find("fk-lda: error: ");
    ASSERT_NE(line, std::string::npos) << all << "\n" << r.err;
    EXPECT_NE(r.err.find(needle, line), std::string::npos) << all << "\n" << r.err;
    EXPECT_EQ(r.err.find('\n', line), r.err.size() - 1) << all << "\n"
                                                        << r.err;  // one line, the last
  };
  expect({"--input", dir.file("missing.txt")}, 1, "missing.txt");
  {
    // --vocab names a count matrix's columns by position; it renamed plain text's own words.
    std::ofstream(dir.file("words.txt")) << "stars and galaxies\nstars and planets\n";
    std::ofstream(dir.file("vocab.txt")) << "a\nb\nc\nd\n";
    expect({"--input", dir.file("words.txt"), "--vocab", dir.file("vocab.txt"), "--min-count", "1", "--max-df", "1"},
           2, "--vocab: applies to UCI, Matrix Market and gen: input");
  }
  {
    // A skew-symmetric file mirrors each count with the opposite sign: named at its entry's line.
    std::ofstream f(dir.file("skew.mtx"));
    f << "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 1 2\n";
  }
  expect({"--input", dir.file("skew.mtx")}, 1, "skew.mtx:3: a skew-symmetric matrix");
  // The text filters do not apply to count matrices or generated corpora: they were ignored.
  expect({"--input", dir.file("skew.mtx"), "--max-df", "0.9"}, 2,
         "--max-df: applies to plain-text input (one document per line), which ");
  expect({"--input", "gen:default", "--min-count", "2"}, 2, "--min-count: applies to plain-text");
  // A generated corpus is not in the training vocabulary: a bad --test (exit 2), not exit 1 after
  // the training corpus was read.
  expect({"--input", "gen:default", "--test", "gen:default:docs=10"}, 2,
         "--test: 'gen:default:docs=10': a generated corpus cannot be a held-out set");
  {
    // A --test file checked against the training corpus, not a model (there is none yet): the
    // messages said "the model has 3" and "this model has none".
    std::ofstream(dir.file("three.mtx"))
        << "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 2\n1 3 1\n2 2 4\n";
    std::ofstream(dir.file("four.mtx"))
        << "%%MatrixMarket matrix coordinate real general\n1 4 1\n1 4 2\n";
    std::ofstream(dir.file("held.txt")) << "stars and galaxies\n";
  }
  expect({"--input", dir.file("three.mtx"), "--test", dir.file("four.mtx"), "--topics", "2"}, 1,
         "four.mtx: has 4 words but the training corpus has 3");
  expect({"--input", dir.file("three.mtx"), "--test", dir.file("held.txt"), "--topics", "2"}, 1,
         "held.txt: text needs the training corpus's vocabulary to map its words to ids, and the "
         "training corpus (--input) has none");
  {
    // Binary bytes past the lines format detection reads are not taken for words.
    std::ofstream f(dir.file("late-binary.txt"), std::ios::binary);
    for (int i = 0; i < 10; ++i) f << "stars and galaxies in the telescope\n";
    f << "abc" << '\0' << "def\n";
  }
  expect({"--input", dir.file("late-binary.txt")}, 1, "late-binary.txt:11: a NUL byte");
  {
    // Three counts in a header of 2^24 x 2^24: the model's arrays cannot fit in any machine's
    // memory at 100000 topics (about 40 TB), which is said at once instead of allocating.
    std::ofstream f(dir.file("docword.huge.txt"));
    f << "16777216\n16777216\n3\n1 1 2\n2 3 1\n3 5 1\n";
  }
  expect({"--input", dir.file("docword.huge.txt"), "--topics", "100000"}, 1,
         "with --topics 100000 needs about");
  expect({"--input", "gen:default:docs=1e12"}, 1, "1000000000000 documents of mean length");
  // No documents is a spec value out of range like words=0 (exit 2), not a corpus read (exit 1).
  expect({"--input", "gen:kos:docs=0"}, 2, "--input: gen:kos:docs=0: LDA corpus: docs must be >= 1, got 0");
  expect({"--input", dir.path()}, 1, "directory");
  // A pipe is read once, so its format must be given: one of those --format takes here (the
  // message listed every app's, ratings and smtx too).
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  expect({"--input", dir.file("fifo")}, 1,
         "fifo: is a pipe or a device, which can be read only once: name its format with --format "
         "(uci, mtx or text) so that");
  expect({"--input", "gen:default", "--topics", "0"}, 2, "--topics");
  expect({"--input", "gen:default", "--topics", "many"}, 2, "--topics");
  expect({"--input", "gen:default", "--no-such-option", "3"}, 2, "--no-such-option");
  expect({"--input", "gen:default", "--top"}, 2, "--top");  // no abbreviations
  expect({"--model", "m", "--input", "gen:default"}, 2,
         "unrecognised option '--model': it is an option of 'fk-lda infer'");
  expect({"--input", "gen:default", "--format", "xml"}, 2, "--format");
  // A format the app does not read is a bad value of --format, as the help lists them.
  expect({"--input", dir.file("empty.txt"), "--format", "ratings"}, 2,
         "--format: expected auto or one of uci, mtx, text, got 'ratings'");
  expect({"--input", "gen:default", "--format", "uci"}, 2,
         "--format: does not apply to a generated");
  expect({"--input", "gen:default", "--kappa", "2"}, 2, "--kappa");
  // A prior that rounds to 0 in single precision: a usage error, not a NaN pass 'the model
  // diverged' (exit 1) as before.
  expect({"--input", "gen:default", "--alpha", "1e-46"}, 2, "--alpha: must be a number from 1e-30");
  expect({"--input", "gen:default", "--eta", "1e-300"}, 2, "--eta: must be a number from 1e-30");
  expect({"--input", "gen:default", "--sddmm", "nope"}, 2, "nope");
  expect({"--input", "gen:default", "--batch", "--batch-size", "10"}, 2, "--batch");
  expect({"--input", "gen:default", "--batch", "--kappa", "0.7"}, 2, "--kappa");
  expect({"--input", "gen:default", "--threads", "100000"}, 2, "--threads");  // OpenMP crashed
  expect({"--input", "gen:nosuch"}, 2,
         "--input: gen:nosuch");  // a bad --input value, as the help says
  expect({"--input", "gen:default:docs=10,docs=20"}, 2, "'docs' given twice");
  expect({"--input", "gen:default:docs=10,length=5,mean_length=6"}, 2,
         "'mean-length' given twice");  // fk-datagen's name; the short one of earlier versions
  expect({"--input", "gen:default:zipf=9"}, 2,
         "--input: gen:default:zipf=9: LDA corpus: zipf must be");
  expect({"--input", "gen:default:lenght=5"}, 2,
         "unknown key 'lenght' (known: docs, words, topics, mean-length, length-sigma");
  expect({}, 2, "--input");
  expect({"--input", "gen:default", "stray"}, 2, "stray");
  expect({"--input", "gen:default", "--config", dir.file("none.ini")}, 2, "none.ini");
  expect({"--input", "gen:default", "--config", dir.path()}, 2, "is a directory");
  {
    std::ofstream f(dir.file("empty.mtx"));
    f << "%%MatrixMarket matrix coordinate integer general\n3 4 0\n";
  }
  expect({"--input", dir.file("empty.mtx")}, 1, "no tokens");  // trained to null metrics before
  expect({"--input", "gen:default", "--device-memory", "nan"}, 2, "--device-memory");
  expect({"--input", "gen:default", "--seed", "-1"}, 2, "--seed");  // read as 2^64 - 1 before
  {
    std::ofstream f(dir.file("neg.ini"));
    f << "seed = -3\n";
  }
  expect({"--input", "gen:default", "--config", dir.file("neg.ini")}, 2, "--seed");
  {
    std::ofstream f(dir.file("bad.ini"));
    f << "topics = 5\nbogus = 1\n";
  }
  expect({"--input", "gen:default", "--config", dir.file("bad.ini")}, 2, "bogus");
  {
    std::ofstream f(dir.file("docword.broken.txt"));
    f << "2\n3\n2\n1 1 1\n1 9 1\n";  // word id 9 > W = 3 on line 5
  }
  expect({"--input", dir.file("docword.broken.txt")}, 1, "docword.broken.txt:5");
  {
    std::ofstream f(dir.file("negative.mtx"));
    f << "%%MatrixMarket matrix coordinate real general\n% counts\n3 3 2\n1 1 2\n\n2 2 -1\n";
  }
  expect({"--input", dir.file("negative.mtx")}, 1, "negative.mtx:6: documents x words counts");
  {
    std::ofstream f(dir.file("ratings.csv"));
    f << "userId,movieId,rating\n1,2,3.5\n2,3,4\n";
  }
  expect({"--input", dir.file("ratings.csv")}, 1, "ratings");
  { std::ofstream f(dir.file("empty.txt")); }
  expect({"--input", dir.file("empty.txt"), "--format", "text"}, 1, "empty.txt");
  // Text without a word: the filters did not remove any, so loosening them does not help (the
  // error said 'no word is left after filtering 0 distinct words; lower --min-count ...').
  std::ofstream(dir.file("stop.txt")) << "the and of\n\nit is a\n";
  expect({"--input", dir.file("stop.txt")}, 1,
         "stop.txt: no words in its 3 lines (words are runs of two or more letters that are not "
         "English stop words)");
  // The filters as the user gives them ("--max-df 0.500000" before).
  std::ofstream(dir.file("rare.txt")) << "stars and galaxies\nplanets orbiting\n";
  expect({"--input", dir.file("rare.txt")}, 1,
         "rare.txt: no word is left after filtering 4 distinct words (--min-count 5, --max-df 0.5)");
  {
    // A word more than 2^24 times in one line (gzip keeps the file at 50 KB): refused as the UCI
    // reader refuses such a count, not silently capped where a float stops counting.
    std::string line = "apple banana";
    for (std::int64_t t = 0; t < (std::int64_t{1} << 24) + 5; ++t) line += " ox";
    std::ofstream f(dir.file("big.txt.gz"), std::ios::binary);
    f << test::gzip("apple banana cherry\n" + line + "\napple cherry\n", 1);
  }
  expect({"--input", dir.file("big.txt.gz"), "--format", "text", "--min-count", "1"}, 1,
         "big.txt.gz:2: 'ox' occurs 16777221 times, above 2^24");
  {
    std::ofstream f(dir.file("plainfile"));
    f << "x";
  }
  const test::LdaRun r = run_lda({"--input", kSmall, "--topics", "2", "--iters", "1", "--device",
                                  "cpu", "--out", dir.file("plainfile")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  // Below a file: refused while the options are read, before the corpus is (the input is
  // missing too, and that error must not be the one reported).
  const test::LdaRun under = run_lda({"--input", dir.file("missing.txt"), "--device", "cpu",
                                      "--out", dir.file("plainfile") + "/sub"});
  EXPECT_EQ(under.status, 1) << under.err;
  EXPECT_NE(under.err.find("plainfile' is not a directory"), std::string::npos) << under.err;
  // --device gpu without a usable GPU: also refused before the (here missing) input is read.
  if (cuda_device_count() == 0) {
    const test::LdaRun gpu = run_lda({"--input", dir.file("missing.txt"), "--device", "gpu",
                                      "--out", dir.file("o")});
    EXPECT_EQ(gpu.status, 1) << gpu.err;
    EXPECT_NE(gpu.err.find("--device gpu"), std::string::npos) << gpu.err;
    EXPECT_EQ(gpu.err.find("missing.txt"), std::string::npos) << gpu.err;
  }
}

// A folder in --out named as one of the run's files (model.ini made a directory) is refused before
// training, naming the path, with --out left as it was: the run used to train, fail as it renamed
// its model.ini into place, and first take the folder for an earlier complete model ("moved to
// previous-run"). The files every app writes are refused before the corpus is read, fk-lda's own
// (topics.npy) as the run starts; with --compare, before the GPU run.
TEST(LdaErrors, FolderInTheWayOfAnOutputFileIsRefusedBeforeTraining) {
  namespace fs = std::filesystem;
  test::TempDir dir;
  const std::vector<std::string> base{"--input", kSmall, "--topics", "2",
                                      "--iters", "1",    "--device", "cpu"};
  for (const std::string name : {"model.ini", "metrics.jsonl", "topics.npy"}) {
    SCOPED_TRACE(name);
    const std::string out = dir.file("o-" + name);
    fs::create_directories(out + "/" + name);
    test::write_bytes(out + "/" + name + "/mine.txt", "not fk-lda's");
    const auto before = test::folder_files(out);
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--out", out});
    const test::LdaRun r = run_lda(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("--out: " + out + "/" + name +
                         " is a directory, where this run writes its " + name + " file"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("pass 1"), std::string::npos) << "refused before training: " << r.err;
    EXPECT_EQ(r.err.find("data: ") == std::string::npos, name != "topics.npy") << r.err;
    EXPECT_EQ(r.err.find("previous-run"), std::string::npos) << r.err;
    EXPECT_EQ(test::folder_files(out), before);
    EXPECT_EQ(test::list_dir(out), std::vector<std::string>{name}) << "nothing written";
  }
  const std::string cmp = dir.file("cmp");
  fs::create_directories(cmp + "/cpu/model.ini");
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--compare", "--out", cmp});
  const test::LdaRun c = run_lda(args);
  EXPECT_EQ(c.status, 2) << c.err;
  EXPECT_NE(c.err.find(cmp + "/cpu/model.ini is a directory"), std::string::npos) << c.err;
  EXPECT_EQ(test::list_dir(cmp), std::vector<std::string>{"cpu"}) << "no GPU run, no compare.json";
}

// The executable itself: exit statuses and the error line as a user sees them.
using Exe = test::AppRun;  // status, out, err
Exe run_exe(const test::TempDir& dir, const std::string& args) {
  const test::ExeOutcome o = test::run_executable(dir, FK_LDA_EXE, args);
  return {o.code, o.out, o.err};
}

TEST(LdaErrors, ExecutableExitStatuses) {
  test::TempDir dir;
  const Exe missing = run_exe(
      dir, "--input '" + dir.file("missing.txt") + "' --device cpu --out '" + dir.file("o") + "'");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err.rfind("fk-lda: error: ", 0), 0u) << missing.err;
  EXPECT_NE(missing.err.find("missing.txt"), std::string::npos) << missing.err;
  const Exe bad = run_exe(dir, "--input gen:default --topics=-1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--topics"), std::string::npos) << bad.err;
  const Exe help = run_exe(dir, "--help");
  EXPECT_EQ(help.status, 0);
  for (const char* opt : {"--topics",    "--batch-size", "--inner-iters",
                          "--tol",       "--alpha",      "--eta",
                          "--tau0",      "--kappa",      "--batch",
                          "--sddmm",     "--spmm",       "--holdout-frac",
                          "--test",      "--eval-every", "--top-words",
                          "--min-count", "--max-df",     "--checkpoint-every",
                          "--resume",    "--config",     "--input",
                          "--format",    "--out",        "--device",
                          "--threads",   "--seed",       "--iters",
                          "--compare",   "--quiet",      "infer"})
    EXPECT_NE(help.out.find(opt), std::string::npos) << opt;
}

// A training run's stdout lost on a full disk fails it with that cause: the summary printed at
// the end was lost when a log line flushed it mid-run, and the error used to name whatever errno
// later calls left ("No such file or directory", "Is a directory").
TEST(LdaErrors, LostStandardOutputNamesTheFullDisk) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  test::TempDir dir;
  const std::string command = "'" + std::string(FK_LDA_EXE) + "' --input " + kSmall +
                              " --topics 2 --iters 1 --threads 1 --device cpu --out '" +
                              dir.file("o") + "' >/dev/full 2>'" + dir.file("err") + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string err = test::read_bytes(dir.file("err"));
  EXPECT_NE(err.find("fk-lda: error: cannot write the standard output (No space left on device)"),
            std::string::npos)
      << err;
}

TEST(LdaConfig, ConfigFileAndCommandLine) {
  test::TempDir dir;
  {
    std::ofstream f(dir.file("run.ini"));
    f << "# a config\ninput = " << kSmall
      << "\ntopics = 3\niters = 1\ndevice = cpu\nquiet = true\n";
  }
  const auto r =
      run_lda({"--config", dir.file("run.ini"), "--topics", "2", "--out", dir.file("o")});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto cfg = read_lines(dir.file("o/config.ini"));
  EXPECT_NE(std::find(cfg.begin(), cfg.end(), "topics = 2"), cfg.end());   // the command line wins
  EXPECT_NE(std::find(cfg.begin(), cfg.end(), "alpha = 0.5"), cfg.end());  // resolved 1/K
  EXPECT_NE(std::find(cfg.begin(), cfg.end(), "iters = 1"), cfg.end());
  EXPECT_EQ(io::read_npy_f32(dir.file("o/topics.npy")).rows(), 2);
  // The resolved config.ini runs again as a config file.
  const auto again = run_lda({"--config", dir.file("o/config.ini"), "--out", dir.file("o2")});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(io::read_npy_f32(dir.file("o/lambda.npy")).storage(),
            io::read_npy_f32(dir.file("o2/lambda.npy")).storage());
}

// The real kos corpus (3,430 blog posts): the held-out likelihood improves over two passes.
TEST(LdaRealData, KosHeldOutImproves) {
  const std::string kos = test::shared_data("uci-kos/docword.kos.txt.gz");
  if (kos.empty()) GTEST_SKIP() << "../shared/data/uci-kos not present";
  test::TempDir dir;
  const auto r = run_lda({"--input", kos, "--topics", "10", "--iters", "2", "--inner-iters", "20",
                          "--device", "cpu", "-q", "--out", dir.path()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<double> ll = heldout_by_pass(dir.path());
  ASSERT_EQ(ll.size(), 2u);
  EXPECT_GT(ll[1], ll[0]);
  EXPECT_GT(ll[1], -8.5);  // per word; a uniform model over the 6,906 words scores -8.84
  const auto top = read_lines(dir.file("top_words.txt"));
  ASSERT_EQ(top.size(), 10u);
  // Real words from vocab.kos.txt, not the "w123" placeholders of a corpus without vocabulary.
  std::istringstream words(top[0].substr(top[0].find(':') + 1));
  std::string w;
  while (words >> w)
    EXPECT_FALSE(w.size() > 1 && w[0] == 'w' && std::isdigit(static_cast<unsigned char>(w[1])))
        << top[0];
}

}  // namespace
}  // namespace fk::lda
