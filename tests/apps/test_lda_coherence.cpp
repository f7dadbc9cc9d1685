// Topic coherence (apps/lda/coherence.hpp): UMass and NPMI on tiny corpora worked out by hand,
// the same counts whatever the blocks and column numbering, across a bitset chunk boundary, the
// undefined and limiting cases, and fk-lda's outputs.
#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/lda/coherence.hpp"
#include "apps/lda/corpus.hpp"
#include "apps/lda/lda_trainer.hpp"
#include "core/csr.hpp"
#include "core/generate/lda_corpus.hpp"
#include "core/io/csv.hpp"
#include "core/io/npy.hpp"
#include "tests/apps/test_lda_util.hpp"

namespace fk::lda {
namespace {

// Documents as lists of word ids (count 1 each), columns = `words`.
HostCsr docs_of(const std::vector<std::vector<std::int32_t>>& docs, std::int64_t words) {
  HostCsr m;
  m.rows = static_cast<std::int64_t>(docs.size());
  m.cols = words;
  for (const auto& d : docs) {
    for (std::int32_t w : d) {
      m.col_idx.push_back(w);
      m.vals.push_back(1.0f);
    }
    m.row_ptr.push_back(static_cast<std::int64_t>(m.col_idx.size()));
  }
  return m;
}

double npmi(double dij, double di, double dj, double d) {
  const double p = dij / d;
  return std::log(p / ((di / d) * (dj / d))) / -std::log(p);
}

// d0 {0,1}, d1 {0,1,2}, d2 {0}, d3 {2}: D(0) = 3, D(1) = 2, D(2) = 2, D(0,1) = 2, D(0,2) = 1,
// D(1,2) = 1, D = 4. The list [0, 1, 2] has pairs (1,0), (2,0), (2,1); the later word's partner
// is the denominator of UMass.
TEST(LdaCoherence, TinyCorpusByHand) {
  const HostCsr m = docs_of({{0, 1}, {0, 1, 2}, {0}, {2}}, 3);
  const TopicCoherence c = topic_coherence({{0, 1, 2}, {2, 0}}, {{&m, nullptr}});
  ASSERT_EQ(c.umass.size(), 2u);
  EXPECT_EQ(c.documents, 4);
  EXPECT_EQ(c.words, 3);
  const double u0 = (std::log(3.0 / 3) + std::log(2.0 / 3) + std::log(2.0 / 2)) / 3;
  const double n0 = (npmi(2, 2, 3, 4) + npmi(1, 2, 3, 4) + npmi(1, 2, 2, 4)) / 3;
  EXPECT_NEAR(c.umass[0], u0, 1e-12);
  EXPECT_NEAR(c.npmi[0], n0, 1e-12);
  // [2, 0]: one pair, word 0 after word 2, so D(2) = 2 is the denominator.
  EXPECT_NEAR(c.umass[1], std::log(2.0 / 2), 1e-12);
  EXPECT_NEAR(c.npmi[1], npmi(1, 3, 2, 4), 1e-12);
  EXPECT_NEAR(c.mean_umass, (u0 + c.umass[1]) / 2, 1e-12);
  EXPECT_NEAR(c.mean_npmi, (n0 + c.npmi[1]) / 2, 1e-12);
  EXPECT_EQ(c.undefined, 0);
}

// Splitting the documents into blocks with their own column numbering (as fk-lda's minibatches
// do) and listing words that are in no block's columns change nothing but what they should.
TEST(LdaCoherence, BlocksWithRenumberedColumnsCountTheSame) {
  const HostCsr all = docs_of({{0, 3, 5}, {3, 5}, {0, 5}, {1}, {0, 3}, {3, 5}}, 6);
  // Rows 0-2 use words {0, 3, 5} as columns 0-2; rows 3-5 use {0, 1, 3, 5} as 0-3.
  const HostCsr a = docs_of({{0, 1, 2}, {1, 2}, {0, 2}}, 3);
  const HostCsr b = docs_of({{1}, {0, 2}, {2, 3}}, 4);
  const std::vector<std::int32_t> wa = {0, 3, 5}, wb = {0, 1, 3, 5};
  const std::vector<std::vector<std::int64_t>> lists = {{5, 3, 0}, {3, 1}, {0, 5, 3, 1}};
  const TopicCoherence whole = topic_coherence(lists, {{&all, nullptr}});
  const TopicCoherence split = topic_coherence(lists, {{&a, &wa}, {&b, &wb}});
  EXPECT_EQ(split.documents, 6);
  for (std::size_t t = 0; t < lists.size(); ++t) {
    EXPECT_DOUBLE_EQ(split.umass[t], whole.umass[t]) << t;
    EXPECT_DOUBLE_EQ(split.npmi[t], whole.npmi[t]) << t;
  }
  // Words 3 and 1 never share a document: NPMI -1, UMass log(1 / D(3)) = log(1/4).
  EXPECT_DOUBLE_EQ(whole.npmi[1], -1.0);
  EXPECT_NEAR(whole.umass[1], std::log(1.0 / 4), 1e-12);
}

// More documents than one bitset chunk (65,536) holds: word 0 in even documents, word 1 in
// multiples of 3, so D(0) = 35,000, D(1) = 23,334, D(0,1) = 11,667 of 70,000.
TEST(LdaCoherence, CountsAcrossChunks) {
  std::vector<std::vector<std::int32_t>> docs(70000);
  for (std::int32_t i = 0; i < 70000; ++i) {
    if (i % 2 == 0) docs[i].push_back(0);
    if (i % 3 == 0) docs[i].push_back(1);
  }
  const HostCsr m = docs_of(docs, 2);
  const TopicCoherence c = topic_coherence({{0, 1}}, {{&m, nullptr}});
  EXPECT_NEAR(c.umass[0], std::log(11668.0 / 35000), 1e-12);
  EXPECT_NEAR(c.npmi[0], npmi(11667, 23334, 35000, 70000), 1e-12);
}

// A listed word in no document, or a list of one word, leaves the topic undefined and out of the
// means; two words in every document co-occur completely (NPMI 1).
TEST(LdaCoherence, UndefinedAndLimitingCases) {
  const HostCsr m = docs_of({{0, 1}, {0, 1, 2}, {0, 1}}, 4);
  const TopicCoherence c = topic_coherence({{0, 1}, {0, 3}, {2}, {0, 2}}, {{&m, nullptr}});
  EXPECT_DOUBLE_EQ(c.npmi[0], 1.0);
  EXPECT_NEAR(c.umass[0], std::log(4.0 / 3), 1e-12);
  EXPECT_TRUE(std::isnan(c.umass[1]) && std::isnan(c.npmi[1]));
  EXPECT_TRUE(std::isnan(c.umass[2]) && std::isnan(c.npmi[2]));
  EXPECT_EQ(c.undefined, 2);
  EXPECT_NEAR(c.mean_umass, (c.umass[0] + c.umass[3]) / 2, 1e-12);
  EXPECT_NEAR(c.mean_npmi, (c.npmi[0] + c.npmi[3]) / 2, 1e-12);
}

// top_word_ids ranks each column of λ by value, ties to the lower word id, as a full sort would;
// values from a few levels make many ties, and more words than λ has rows give them all.
TEST(LdaCoherence, TopWordIdsMatchAFullSort) {
  const std::int64_t w = 300, k = 7;
  HostDense<float> lambda(w, k);
  std::uint64_t state = 12345;
  for (std::int64_t r = 0; r < w; ++r)
    for (std::int64_t t = 0; t < k; ++t) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      lambda(r, t) = static_cast<float>((state >> 33) % 9);
    }
  for (int n : {0, 1, 10, 299, 300, 400}) {
    const auto lists = top_word_ids(lambda, n);
    ASSERT_EQ(lists.size(), static_cast<std::size_t>(k));
    for (std::int64_t t = 0; t < k; ++t) {
      std::vector<std::int64_t> all(w);
      for (std::int64_t r = 0; r < w; ++r) all[r] = r;
      std::stable_sort(all.begin(), all.end(),
                       [&](std::int64_t a, std::int64_t b) { return lambda(a, t) > lambda(b, t); });
      all.resize(static_cast<std::size_t>(std::min<std::int64_t>(n, w)));
      EXPECT_EQ(lists[t], all) << "n " << n << " topic " << t;
    }
  }
}

// top_words.csv gives every listed word its own quoted field, so that words holding spaces, commas
// or quotes (a vocabulary's lines, a ratings file's item ids) read back whole, with the rank and
// the word's probability in its topic (λ over its column's sum); top_words.txt lists the same.
TEST(LdaCoherence, TopWordsCsvKeepsWordsWholeWithTheirProbabilities) {
  HostDense<float> lambda(4, 2);  // W x K
  const float values[4][2] = {{1, 0}, {5, 2}, {3, 2}, {1, 4}};
  for (int w = 0; w < 4; ++w)
    for (int t = 0; t < 2; ++t) lambda(w, t) = values[w][t];
  const std::vector<std::string> vocab = {"plain", "two words", "a,comma", "say \"hi\""};
  test::TempDir dir;
  write_top_words(dir.path(), lambda, 3, vocab, "factor");
  io::CsvReader csv(dir.file("top_words.csv"));
  ASSERT_EQ(csv.header(), (std::vector<std::string>{"factor", "rank", "word", "weight"}));
  const std::vector<std::vector<std::string>> expected = {
      {"0", "1", "two words", "0.5"},
      {"0", "2", "a,comma", "0.3"},
      {"0", "3", "plain", "0.1"},
      {"1", "1", "say \"hi\"", "0.5"},
      {"1", "2", "two words", "0.25"},
      {"1", "3", "a,comma", "0.25"}};  // ties: the lower word id first
  std::vector<std::string> row;
  for (const std::vector<std::string>& want : expected) {
    ASSERT_TRUE(csv.next(row));
    EXPECT_EQ(std::vector<std::string>(row.begin(), row.begin() + 3),
              std::vector<std::string>(want.begin(), want.begin() + 3));
    EXPECT_NEAR(std::stod(row[3]), std::stod(want[3]), 1e-7) << row[2];
  }
  EXPECT_FALSE(csv.next(row));
  EXPECT_EQ(test::read_lines(dir.file("top_words.txt")),
            (std::vector<std::string>{"factor 0: two words a,comma plain",
                                      "factor 1: say \"hi\" two words a,comma"}));
}

// The lists a topics x words matrix (λ as lambda.npy stores it, or the true β) ranks first.
std::vector<std::vector<std::int64_t>> top_lists(const HostDense<float>& topics_by_words, int n) {
  HostDense<float> by_topic(topics_by_words.cols(), topics_by_words.rows());  // W x K
  for (std::int64_t k = 0; k < topics_by_words.rows(); ++k)
    for (std::int64_t w = 0; w < topics_by_words.cols(); ++w) by_topic(w, k) = topics_by_words(k, w);
  return top_word_ids(by_topic, n);
}

// fk-lda writes coherence.csv (one row per topic with its --top-words words) and the means into
// summary.json and its summary line, computed from the saved model over the training documents
// (and the generator's true topics' the same way);
// on well-separated generated topics the learned ones are about as coherent as the true ones;
// --top-words 1 turns coherence off and removes an earlier run's file.
TEST(LdaCoherence, TrainingReportsTheSavedModelsCoherence) {
  test::TempDir dir;
  const std::string spec = "default:docs=600,words=400,topics=5,length=80,alpha=0.2,seed=2";
  auto run = [&](const std::string& top) {
    return test::run_lda({"--input", "gen:" + spec, "--topics", "5", "--iters", "8",
                          "--holdout-frac", "0", "--top-words", top, "--device", "cpu", "--out",
                          dir.path()});
  };
  const auto r = run("8");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("topic coherence (top 8 words"), std::string::npos) << r.out;
  const std::string summary = test::slurp(dir.file("summary.json"));
  EXPECT_EQ(test::json_number(summary, "coherence_words"), 8.0);

  const gen::GeneratedCorpus corpus = gen::generate_lda_corpus(parse_gen_spec(spec));
  const HostDense<float> lambda = io::read_npy_f32(dir.file("lambda.npy"));
  const TopicCoherence learned = topic_coherence(top_lists(lambda, 8), {{&corpus.counts, nullptr}});
  const TopicCoherence truth =
      topic_coherence(top_lists(corpus.topics, 8), {{&corpus.counts, nullptr}});
  ASSERT_TRUE(test::json_number(summary, "coherence_npmi").has_value()) << summary;
  EXPECT_NEAR(*test::json_number(summary, "coherence_npmi"), learned.mean_npmi, 1e-9);
  EXPECT_NEAR(*test::json_number(summary, "coherence_umass"), learned.mean_umass, 1e-9);
  EXPECT_NEAR(*test::json_number(summary, "true_topics_coherence_npmi"), truth.mean_npmi, 1e-9);
  EXPECT_NEAR(*test::json_number(summary, "true_topics_coherence_umass"), truth.mean_umass, 1e-9);
  EXPECT_GT(learned.mean_npmi, truth.mean_npmi - 0.05)
      << "learned " << learned.mean_npmi << ", true topics " << truth.mean_npmi;

  io::CsvReader csv(dir.file("coherence.csv"));
  ASSERT_EQ(csv.header(), (std::vector<std::string>{"topic", "umass", "npmi", "words"}));
  const std::vector<std::string> top = test::read_lines(dir.file("top_words.txt"));
  std::vector<std::string> row;
  std::size_t rows = 0;
  while (csv.next(row)) {
    ASSERT_LT(rows, top.size());
    EXPECT_EQ(row[0], std::to_string(rows));
    EXPECT_NEAR(std::stod(row[2]), learned.npmi[rows], 1e-7);
    EXPECT_EQ("topic " + row[0] + ": " + row[3], top[rows]);
    ++rows;
  }
  EXPECT_EQ(rows, 5u);
  {
    io::CsvReader listed(dir.file("top_words.csv"));
    std::size_t words = 0;
    while (listed.next(row)) ++words;
    EXPECT_EQ(words, 5u * 8u) << "one row per topic and word";
  }

  // At most 20 words score (the pairs' cost grows with their square); top_words.txt keeps them all.
  const auto wide = run("25");
  ASSERT_EQ(wide.status, 0) << wide.err;
  EXPECT_EQ(test::json_number(test::slurp(dir.file("summary.json")), "coherence_words"), 20.0);
  const std::string top0 = test::read_lines(dir.file("top_words.txt"))[0];  // "topic 0: w.."
  EXPECT_EQ(std::count(top0.begin(), top0.end(), ' '), 1 + 25) << top0;
  {
    io::CsvReader wide_csv(dir.file("coherence.csv"));
    ASSERT_TRUE(wide_csv.next(row));
    EXPECT_EQ(std::count(row[3].begin(), row[3].end(), ' '), 19) << row[3];
  }

  const auto off = run("1");
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("coherence.csv")));
  EXPECT_FALSE(test::json_number(test::slurp(dir.file("summary.json")), "coherence_npmi"));
}

}  // namespace
// The console line's scores: the means, or a word for "none defined" instead of a bare nan.
TEST(LdaCoherence, ScoresLineSaysUndefinedInsteadOfNan) {
  TopicCoherence c;
  c.mean_umass = -1.5;
  c.mean_npmi = 0.25;
  EXPECT_EQ(coherence_scores(c), "UMass -1.5000, NPMI 0.2500");
  c.mean_umass = c.mean_npmi = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(coherence_scores(c).rfind("undefined (", 0), 0u) << coherence_scores(c);
}

}  // namespace fk::lda
