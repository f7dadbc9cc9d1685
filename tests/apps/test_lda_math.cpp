// fk-lda's small pieces, exactly: the digamma function against high-precision values, the seeded
// Gamma(100, 1/100) initialisation, the tokenizer, the document-completion split, minibatch
// column renumbering and the held-out split.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "apps/lda/corpus.hpp"
#include "apps/lda/lda_cpu_math.hpp"
#include "apps/lda/lda_math.hpp"
#include "core/random.hpp"

namespace fk::lda {
namespace {

TEST(LdaMath, DigammaMatchesHighPrecisionValues) {
  // ψ(x) computed with mpmath at 30 digits.
  const struct {
    double x, psi;
  } cases[] = {
      {0.001, -1000.5755719318103005}, {0.01, -100.5608854578686745},
      {0.05, -20.497844991299870371},  {0.5, -1.9635100260214234794},
      {1.0, -0.57721566490153286061},  {2.5, 0.70315664064524318723},
      {6.0, 1.7061176684318004727},    {9.99, 2.2507003728312010995},
      {10.0, 2.2517525890667211076},   {123.456, 4.8118293238289853873},
      {1e5, 11.512920464961895087},
  };
  for (const auto& c : cases)
    EXPECT_NEAR(digamma(c.x), c.psi, 1e-13 * std::max(1.0, std::fabs(c.psi))) << c.x;
  EXPECT_TRUE(std::isinf(digamma(0.0)) && digamma(0.0) < 0);
  EXPECT_TRUE(std::isnan(digamma(-1.0)));
  // The recurrence ψ(x + 1) = ψ(x) + 1/x holds across the switch to the asymptotic series.
  for (double x : {0.3, 4.7, 9.5, 17.25})
    EXPECT_NEAR(digamma(x + 1), digamma(x) + 1 / x, 1e-13) << x;
}

TEST(LdaMath, SinglePrecisionDigammaIsWithinAMillionthOfTheDoubleOne) {
  // Log-uniform arguments over [1e-6, 1e7] (γ sits near α, λ's entries reach 1e6), compared with
  // the double version checked above; the bound is the one digammaf's comment states.
  Rng rng(5);
  double worst = 0, worst_x = 0;
  for (int i = 0; i < 200000; ++i) {
    const float x = static_cast<float>(std::pow(10.0, -6 + 13 * rng.uniform()));
    const double ref = digamma(static_cast<double>(x));
    const double err = std::fabs(digammaf(x) - ref) / std::max(1.0, std::fabs(ref));
    if (err > worst) worst = err, worst_x = x;
  }
  EXPECT_LT(worst, 1e-6) << "at x = " << worst_x;
  // Both sides of the shift boundary, and the values the E-step must map to exp(...) = 0.
  for (float x : {5.999999f, 6.0f, 6.000001f})
    EXPECT_NEAR(digammaf(x), digamma(static_cast<double>(x)), 1e-6) << x;
  EXPECT_TRUE(std::isinf(digammaf(0.0f)) && digammaf(0.0f) < 0);
  EXPECT_TRUE(std::isnan(digammaf(-1.0f)));
}

// The CPU backend's vectorizable exp, log and ψ (lda_cpu_math.hpp) against double-precision
// references at log-uniform and uniform random points: within 2 ulp (exp, log) and within
// digammaf's bound (ψ).
TEST(LdaMath, CpuVectorMathIsWithinTwoUlp) {
  using namespace cpu_math;
  Rng rng(11);
  const double ulp = std::ldexp(1.0, -23);
  double worst_exp = 0, worst_log = 0, worst_psi = 0;
  for (int i = 0; i < 200000; ++i) {
    const float x = static_cast<float>(rng.uniform(-87.0, 88.0));
    worst_exp = std::max(worst_exp, std::fabs(exp_approx(x) - std::exp(double(x))) / std::exp(double(x)));
    const float y = static_cast<float>(std::pow(10.0, rng.uniform(-30, 30)));
    worst_log = std::max(worst_log, std::fabs(log_approx(y) - std::log(double(y))) /
                                        std::max(1.0, std::fabs(std::log(double(y)))));
    const float g = static_cast<float>(std::pow(10.0, rng.uniform(-6, 7)));
    const double psi = digamma(double(g));
    worst_psi = std::max(worst_psi, std::fabs(digamma_approx(g) - psi) / std::max(1.0, std::fabs(psi)));
  }
  EXPECT_LT(worst_exp, 2 * ulp);
  EXPECT_LT(worst_log, 2 * ulp);
  EXPECT_LT(worst_psi, 1e-6);
  // Leaving the normal floats: 0 below, +inf above; exact at 0.
  EXPECT_EQ(exp_approx(-100.0f), 0.0f);
  EXPECT_TRUE(std::isinf(exp_approx(100.0f)));
  EXPECT_EQ(exp_approx(0.0f), 1.0f);
  // A row of E[θ] as the CPU backend forms it, against the scalar formula.
  const float g[5] = {0.01f, 0.5f, 1.0f, 7.5f, 300.0f};
  float out[5];
  const double psi_sum = digamma(309.01);
  row_expectations(g, 5, psi_sum, out);
  for (int c = 0; c < 5; ++c) EXPECT_NEAR(out[c], exp_dirichlet_expectation(g[c], psi_sum), 4e-6 * out[c]) << c;
}

TEST(LdaMath, ExpDirichletExpectation) {
  // exp(ψ(g) − ψ(Σ)) for the row (1, 2): ψ(1) − ψ(3) = −1.5, ψ(2) − ψ(3) = −0.5.
  const double psi_sum = digamma(3.0);
  EXPECT_NEAR(exp_dirichlet_expectation(1.0f, psi_sum), std::exp(-1.5), 1e-7);
  EXPECT_NEAR(exp_dirichlet_expectation(2.0f, psi_sum), std::exp(-0.5), 1e-7);
}

TEST(LdaMath, Gamma100DrawsAreSeededWithMeanOneAndSdOneTenth) {
  Rng seeds(99);
  const std::uint64_t key = seeds.next_u64();
  double sum = 0, sq = 0;
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    const double v = gamma100_draw(key, 3, i / 50, i % 50);
    EXPECT_GT(v, 0.3);
    sum += v;
    sq += v * v;
  }
  const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 1.0, 0.003);  // standard error 0.0005
  EXPECT_NEAR(sd, 0.1, 0.003);
  // A function of its arguments only; every argument matters.
  EXPECT_EQ(gamma100_draw(key, 3, 7, 2), gamma100_draw(key, 3, 7, 2));
  const float base = gamma100_draw(key, 3, 7, 2);
  EXPECT_NE(base, gamma100_draw(key + 1, 3, 7, 2));
  EXPECT_NE(base, gamma100_draw(key, 4, 7, 2));
  EXPECT_NE(base, gamma100_draw(key, 3, 8, 2));
  EXPECT_NE(base, gamma100_draw(key, 3, 7, 3));
}

TEST(LdaCorpus, TokenizerLowercasesSplitsAndDropsStopWords) {
  const auto t = tokenize("The GPU's kernels: SDDMM & SpMM -- run on x86 at 3pm, and the CPU too!");
  const std::vector<std::string> want{"gpu", "kernels", "sddmm", "spmm", "run", "pm", "cpu"};
  EXPECT_EQ(t, want);  // "the", "on", "at", "and", "too" are stop words; "s", "x" are one letter
  EXPECT_TRUE(tokenize("").empty());
  EXPECT_TRUE(tokenize("  ,;  a I 42 ").empty());
  EXPECT_EQ(tokenize("café naïve"),
            (std::vector<std::string>{"café", "naïve"}));  // UTF-8 kept whole
  EXPECT_TRUE(is_stop_word("which"));
  EXPECT_FALSE(is_stop_word("topic"));
}

// Text mapped onto a model's vocabulary: words the tokenizer would split or drop match where the
// vocabulary has them (a UCI vocabulary's "boxfeed_listing", "mp3", "x", "the"), and a vocabulary
// built from text gets exactly the tokens tokenize() gives.
TEST(LdaCorpus, TokensInVocabMatchWordsTheTokenizerSplits) {
  const std::unordered_map<std::string, std::int32_t> uci = {
      {"boxfeed_listing", 0}, {"mp3", 1}, {"x", 2}, {"the", 3}, {"gpu", 4}, {"listing", 5}};
  EXPECT_EQ(tokenize_in_vocab("The GPU, an MP3 player; X: boxfeed_listing and boxfeed_other", uci),
            (std::vector<std::int32_t>{3, 4, 1, 2, 0}));
  const std::string text = "The GPU's kernels: SDDMM_x86 & foo_listing, 3pm gpu2";
  std::unordered_map<std::string, std::int32_t> from_text;
  for (const std::string& w : tokenize(text)) from_text.emplace(w, from_text.size());
  std::vector<std::int32_t> want;
  for (const std::string& w : tokenize(text)) want.push_back(from_text.at(w));
  EXPECT_EQ(tokenize_in_vocab(text, from_text), want);
  EXPECT_TRUE(tokenize_in_vocab("", uci).empty());
}

TEST(LdaCorpus, CompletionHalvesAlternateTokens) {
  // One document with counts (word 1: 3, word 4: 1, word 6: 2, word 9: 1) -> token positions
  // 0 1 2 | 3 | 4 5 | 6: even positions observed.
  HostCsr d;
  d.rows = 2;
  d.cols = 10;
  d.row_ptr = {0, 4, 5};
  d.col_idx = {1, 4, 6, 9, 2};
  d.vals = {3, 1, 2, 1, 1};
  HostCsr obs, sc;
  completion_halves(d, obs, sc);
  EXPECT_EQ(obs.row_ptr, (std::vector<std::int64_t>{0, 3, 4}));
  EXPECT_EQ(obs.col_idx, (std::vector<std::int32_t>{1, 6, 9, 2}));
  EXPECT_EQ(obs.vals, (std::vector<float>{2, 1, 1, 1}));
  EXPECT_EQ(sc.row_ptr, (std::vector<std::int64_t>{0, 3, 3}));
  EXPECT_EQ(sc.col_idx, (std::vector<std::int32_t>{1, 4, 6}));
  EXPECT_EQ(sc.vals, (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(obs.cols, 10);
  EXPECT_EQ(sc.rows, 2);
}

TEST(LdaCorpus, LocalBatchRenumbersColumns) {
  HostCsr d;
  d.rows = 3;
  d.cols = 100;
  d.row_ptr = {0, 2, 2, 5};
  d.col_idx = {70, 3, 3, 99, 40};
  d.vals = {1, 2, 3, 4, 5};
  const LocalBatch b = make_local_batch(d, 1, 3);
  EXPECT_EQ(b.first_doc, 1);
  EXPECT_EQ(b.words, (std::vector<std::int32_t>{3, 40, 99}));
  EXPECT_EQ(b.counts.rows, 2);
  EXPECT_EQ(b.counts.cols, 3);
  EXPECT_EQ(b.counts.row_ptr, (std::vector<std::int64_t>{0, 0, 3}));
  EXPECT_EQ(b.counts.col_idx, (std::vector<std::int32_t>{0, 2, 1}));
  EXPECT_EQ(b.counts.vals, (std::vector<float>{3, 4, 5}));
  EXPECT_DOUBLE_EQ(b.tokens, 12);
  const auto all = make_batches(d, 2);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].first_doc, 2);
  EXPECT_EQ(make_batches(d, 0).size(), 1u);
}

TEST(LdaCorpus, HeldOutSplitIsSeededAndComplete) {
  const DocumentSplit a = split_documents(1000, 0.1, 7), b = split_documents(1000, 0.1, 7),
                      c = split_documents(1000, 0.1, 8);
  EXPECT_EQ(a.heldout, b.heldout);
  EXPECT_NE(a.heldout, c.heldout);
  EXPECT_EQ(a.heldout.size(), 100u);
  EXPECT_EQ(a.train.size(), 900u);
  std::set<std::int64_t> all(a.train.begin(), a.train.end());
  all.insert(a.heldout.begin(), a.heldout.end());
  EXPECT_EQ(all.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(a.train.begin(), a.train.end()));
  EXPECT_TRUE(split_documents(10, 0.0, 1).heldout.empty());
  EXPECT_EQ(split_documents(10, 0.01, 1).heldout.size(),
            1u);  // a positive fraction holds out at least one
}

TEST(LdaCorpus, GenSpecParsing) {
  const gen::LdaCorpusSpec s = parse_gen_spec("default:docs=300,topics=4,seed=9,length=50.5");
  EXPECT_EQ(s.docs, 300);
  EXPECT_EQ(s.topics, 4);
  EXPECT_EQ(s.seed, 9u);
  EXPECT_DOUBLE_EQ(s.mean_doc_length, 50.5);
  EXPECT_EQ(s.words, gen::lda_preset("default").words);
  EXPECT_THROW(parse_gen_spec("default:docs"), Error);
  EXPECT_THROW(parse_gen_spec("default:bogus=1"), Error);
  EXPECT_THROW(parse_gen_spec("default:docs=-3"), Error);
  EXPECT_THROW(parse_gen_spec("nosuchpreset"), Error);
}

}  // namespace
}  // namespace fk::lda
