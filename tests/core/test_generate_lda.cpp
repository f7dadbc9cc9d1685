// LDA corpus generator: structure, determinism (seeds, thread counts), preset sizes, and that the
// documents really are draws from the returned topics.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/generate/lda_corpus.hpp"
#include "tests/core/test_generate_common.hpp"

namespace fk {
namespace {

using gen::GeneratedCorpus;
using gen::LdaCorpusSpec;

LdaCorpusSpec small_spec(std::uint64_t seed) {
  LdaCorpusSpec s;
  s.docs = 300;  // several 64-document blocks, the last one partial
  s.words = 800;
  s.topics = 5;
  s.mean_doc_length = 60;
  s.seed = seed;
  return s;
}

double total_tokens(const HostCsr& m) { return std::accumulate(m.vals.begin(), m.vals.end(), 0.0); }

TEST(GenerateLda, ShapesAndStructure) {
  const LdaCorpusSpec spec = small_spec(3);
  const GeneratedCorpus c = gen::generate_lda_corpus(spec);
  EXPECT_EQ(c.counts.rows, spec.docs);
  EXPECT_EQ(c.counts.cols, spec.words);
  EXPECT_TRUE(test::sorted_unique_csr(c.counts));
  for (std::int64_t d = 0; d < c.counts.rows; ++d)
    EXPECT_GE(c.counts.row_ptr[d + 1] - c.counts.row_ptr[d], 1) << "document " << d << " is empty";
  for (float v : c.counts.vals) {
    ASSERT_GE(v, 1.0f);
    ASSERT_EQ(v, std::floor(v));
  }
  ASSERT_EQ(c.topics.rows(), spec.topics);
  ASSERT_EQ(c.topics.cols(), spec.words);
  for (int k = 0; k < spec.topics; ++k) {
    double sum = 0;
    for (std::int64_t w = 0; w < spec.words; ++w) {
      ASSERT_GE(c.topics(k, w), 0.0f);
      sum += c.topics(k, w);
    }
    EXPECT_NEAR(sum, 1.0, 1e-4) << "topic " << k;
  }
  ASSERT_EQ(static_cast<std::int64_t>(c.vocab.size()), spec.words);
  EXPECT_EQ(c.vocab[0], "w0");
  EXPECT_EQ(c.vocab[799], "w799");
}

// A line of /proc/self/status in KiB ("VmRSS", "VmHWM"), or -1.
double status_kib(const std::string& key) {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1));
  return -1;
}

// Drawing a corpus holds it once: every block of documents was held until the CSR was assembled,
// twice the corpus at the peak. Measured by the process's peak RSS, reset first; 20000 documents
// of 200 tokens over 2000 words make a 16 MB CSR and little else (the peak grew 2.2 times that).
// On two threads, as CI has: the documents being drawn are a wave of blocks a thread, 1024 of the
// 20000 here, but 8192 on 16 threads (1.5 times the CSR on an H200 machine's CPU).
TEST(GenerateLda, HoldsTheCorpusOnceWhileDrawingIt) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer holds freed memory in quarantine";
#endif
  LdaCorpusSpec spec = small_spec(5);
  spec.docs = 20000;
  spec.words = 2000;
  spec.mean_doc_length = 200;
  {
    std::ofstream reset("/proc/self/clear_refs");
    reset << "5";  // resets VmHWM to the current RSS (Linux 4.0 on)
    reset.flush();
    if (!reset) GTEST_SKIP() << "the peak RSS cannot be reset here";
  }
  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);
  const double before = status_kib("VmRSS");
  const GeneratedCorpus c = gen::generate_lda_corpus(spec);
  omp_set_num_threads(threads);
  const double grown = 1024 * (status_kib("VmHWM") - before);
  const double csr = 8.0 * static_cast<double>(c.counts.nnz() + c.counts.rows + 1);
  EXPECT_LT(grown, 1.4 * csr) << "peak " << grown << " bytes above the start for a CSR of " << csr;
}

TEST(GenerateLda, MeanDocumentLengthFollowsSpec) {
  LdaCorpusSpec spec = small_spec(4);
  spec.docs = 2000;
  spec.mean_doc_length = 90;
  const GeneratedCorpus c = gen::generate_lda_corpus(spec);
  EXPECT_NEAR(total_tokens(c.counts) / spec.docs, 90.0, 90.0 * 0.05);
}

TEST(GenerateLda, SameSeedSameCorpusDifferentSeedDifferent) {
  const GeneratedCorpus a = gen::generate_lda_corpus(small_spec(11));
  const GeneratedCorpus b = gen::generate_lda_corpus(small_spec(11));
  const GeneratedCorpus c = gen::generate_lda_corpus(small_spec(12));
  EXPECT_TRUE(test::same_csr(a.counts, b.counts));
  EXPECT_EQ(a.topics.storage(), b.topics.storage());
  EXPECT_FALSE(test::same_csr(a.counts, c.counts));
  EXPECT_NE(a.topics.storage(), c.topics.storage());
}

TEST(GenerateLda, IndependentOfThreadCount) {
  const LdaCorpusSpec spec = small_spec(21);
  const GeneratedCorpus one = test::with_threads(1, [&] { return gen::generate_lda_corpus(spec); });
  const GeneratedCorpus two = test::with_threads(2, [&] { return gen::generate_lda_corpus(spec); });
  const GeneratedCorpus three =
      test::with_threads(3, [&] { return gen::generate_lda_corpus(spec); });
  EXPECT_TRUE(test::same_csr(one.counts, two.counts));
  EXPECT_TRUE(test::same_csr(one.counts, three.counts));
  EXPECT_EQ(one.topics.storage(), two.topics.storage());
  EXPECT_EQ(one.topics.storage(), three.topics.storage());
}

struct PresetTarget {
  const char* name;
  std::int64_t docs, words, nnz, tokens;
};

// Real corpus sizes (the default preset has no real counterpart: its documented size).
TEST(GenerateLda, PresetsMatchTheRealCorpora) {
  const PresetTarget targets[] = {{"default", 2000, 5000, 210000, 300000},
                                  {"kos", 3430, 6906, 353160, 467714},
                                  {"nips", 1500, 12419, 746316, 1932365}};
  for (const PresetTarget& t : targets) {
    for (std::uint64_t seed : {1, 7}) {
      LdaCorpusSpec spec = gen::lda_preset(t.name);
      spec.seed = seed;
      const GeneratedCorpus c = gen::generate_lda_corpus(spec);
      EXPECT_EQ(c.counts.rows, t.docs) << t.name;
      EXPECT_EQ(c.counts.cols, t.words) << t.name;
      EXPECT_NEAR(static_cast<double>(c.counts.nnz()), static_cast<double>(t.nnz), 0.05 * t.nnz)
          << t.name << " seed " << seed;
      EXPECT_NEAR(total_tokens(c.counts), static_cast<double>(t.tokens), 0.05 * t.tokens)
          << t.name << " seed " << seed;
    }
  }
  const LdaCorpusSpec ny = gen::lda_preset("nytimes");  // too big to generate here
  EXPECT_EQ(ny.docs, 300000);
  EXPECT_EQ(ny.words, 102660);
}

TEST(GenerateLda, PresetNamesAndUnknownPreset) {
  const std::vector<std::string> names = gen::lda_preset_names();
  for (const char* n : {"default", "kos", "nips", "nytimes"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  try {
    gen::lda_preset("enron");
    FAIL() << "no error for an unknown preset";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("enron"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nytimes"), std::string::npos) << e.what();
  }
}

TEST(GenerateLda, BadSpecsAreErrors) {
  const std::vector<std::function<void(LdaCorpusSpec&)>> breaks = {
      [](LdaCorpusSpec& s) { s.words = 0; },           [](LdaCorpusSpec& s) { s.topics = 0; },
      [](LdaCorpusSpec& s) { s.doc_alpha = 0; },       [](LdaCorpusSpec& s) { s.topic_eta = -1; },
      [](LdaCorpusSpec& s) { s.mean_doc_length = 0; }, [](LdaCorpusSpec& s) { s.docs = -1; },
      [](LdaCorpusSpec& s) { s.docs = 0; }};
  for (const auto& b : breaks) {
    LdaCorpusSpec s = small_spec(1);
    b(s);
    EXPECT_THROW(gen::generate_lda_corpus(s), Error);
  }
}

// A spec that draws a count above 2^24 is refused, naming the first such document whatever the
// thread count (core/parallel_errors.hpp): on 2 threads the second 64-document block fails at its
// document 64 before the first block reaches document 12 (seed 1), which one thread reports.
TEST(GenerateLda, RefusedCountNamesTheSameDocumentOnAnyThreadCount) {
  LdaCorpusSpec s;
  s.docs = 128;
  s.words = 1;
  s.topics = 1;
  s.mean_doc_length = 1e7;
  s.doc_length_sigma = 0.6;
  s.seed = 1;
  auto message = [&](int threads) {
    try {
      test::with_threads(threads, [&] { return gen::generate_lda_corpus(s); });
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string one = message(1);
  EXPECT_NE(one.find("above 2^24"), std::string::npos) << one;
  EXPECT_EQ(message(2), one);
}

// Word frequencies are Zipf-like: the top 1% of words carry far more than 1% of the tokens.
TEST(GenerateLda, WordFrequenciesAreSkewed) {
  const GeneratedCorpus c = gen::generate_lda_corpus(gen::lda_preset("default"));
  std::vector<double> freq(static_cast<std::size_t>(c.counts.cols), 0.0);
  for (std::int64_t j = 0; j < c.counts.nnz(); ++j) freq[c.counts.col_idx[j]] += c.counts.vals[j];
  std::sort(freq.rbegin(), freq.rend());
  const double total = std::accumulate(freq.begin(), freq.end(), 0.0);
  const double top = std::accumulate(freq.begin(), freq.begin() + freq.size() / 100, 0.0);
  EXPECT_GT(top / total, 0.10);
  // The frequent words are scattered over the ids, not packed at the start.
  std::vector<double> by_id(static_cast<std::size_t>(c.counts.cols), 0.0);
  for (std::int64_t j = 0; j < c.counts.nnz(); ++j) by_id[c.counts.col_idx[j]] += c.counts.vals[j];
  const double first = std::accumulate(by_id.begin(), by_id.begin() + by_id.size() / 100, 0.0);
  EXPECT_LT(first / total, 0.05);
}

// With a tiny doc_alpha every document comes from a single topic; pooling the documents that
// fit each topic best must give back that topic's word distribution.
TEST(GenerateLda, DocumentsAreDrawnFromTheReturnedTopics) {
  LdaCorpusSpec spec;
  spec.docs = 400;
  spec.words = 300;
  spec.topics = 4;
  spec.mean_doc_length = 500;
  spec.doc_length_sigma = 0.1;
  spec.doc_alpha = 1e-3;
  spec.topic_eta = 0.05;
  spec.seed = 5;
  const GeneratedCorpus c = gen::generate_lda_corpus(spec);
  const int K = spec.topics;
  const std::int64_t W = spec.words;
  std::vector<std::vector<double>> pooled(K, std::vector<double>(W, 0.0));
  std::vector<int> docs_of(K, 0);
  for (std::int64_t d = 0; d < c.counts.rows; ++d) {
    int best = -1;
    double best_ll = -INFINITY;
    for (int k = 0; k < K; ++k) {
      double ll = 0;
      for (std::int64_t j = c.counts.row_ptr[d]; j < c.counts.row_ptr[d + 1]; ++j)
        ll += c.counts.vals[j] * std::log(c.topics(k, c.counts.col_idx[j]) + 1e-30);
      if (ll > best_ll) best_ll = ll, best = k;
    }
    ++docs_of[best];
    for (std::int64_t j = c.counts.row_ptr[d]; j < c.counts.row_ptr[d + 1]; ++j)
      pooled[best][c.counts.col_idx[j]] += c.counts.vals[j];
  }
  for (int k = 0; k < K; ++k) {
    ASSERT_GT(docs_of[k], 40) << "topic " << k << " explains too few documents";
    const double n = std::accumulate(pooled[k].begin(), pooled[k].end(), 0.0);
    double l1 = 0;
    for (std::int64_t w = 0; w < W; ++w) l1 += std::fabs(pooled[k][w] / n - c.topics(k, w));
    EXPECT_LT(l1, 0.15) << "topic " << k << " (" << docs_of[k] << " documents)";
  }
}

}  // namespace
}  // namespace fk
