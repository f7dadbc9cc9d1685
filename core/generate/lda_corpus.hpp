#pragma once
// Seeded LDA corpora drawn from the generative model: K topics, each a Dirichlet draw over a
// Zipf-shaped base measure on the vocabulary (so word frequencies look like real text); each
// document draws θ ~ Dirichlet(doc_alpha), a length from a log-normal, then every token's topic
// and word. Counts are aggregated per (document, word). Deterministic for a given spec on any
// machine and any thread count (each document has its own random stream).
#include <cstdint>
#include <string>
#include <vector>

#include "core/csr.hpp"
#include "core/dense.hpp"

namespace fk::gen {

struct LdaCorpusSpec {
  std::int64_t docs = 2000;
  std::int64_t words = 5000;
  int topics = 20;
  double mean_doc_length = 200;   // tokens per document (log-normal mean)
  double doc_length_sigma = 0.6;  // log-normal shape
  double doc_alpha = 0.1;         // document-topic Dirichlet concentration
  double topic_eta = 0.05;        // topic-word Dirichlet concentration (times the Zipf base)
  double zipf_exponent = 1.05;
  std::uint64_t seed = 1;
};

// Presets: "default" (the embedded corpus the README's main command trains on), "kos"-shaped,
// "nips" (1,500 x 12,419, ~746K nonzeros), "nytimes" (300,000 x 102,660, ~69.7M nonzeros).
// Throws fk::Error listing the names for an unknown preset.
LdaCorpusSpec lda_preset(const std::string& name);
std::vector<std::string> lda_preset_names();

struct GeneratedCorpus {
  HostCsr counts;                  // docs x words, value = count (>= 1)
  HostDense<float> topics;         // topics x words, each row sums to 1 (the true β)
  std::vector<std::string> vocab;  // synthetic words "w0", "w1", ...
};

GeneratedCorpus generate_lda_corpus(const LdaCorpusSpec& spec);

}  // namespace fk::gen
