#pragma once
// Seeded LDA corpora drawn from the generative model: K topics, each a Dirichlet draw over a
// Zipf-shaped base measure on the vocabulary (so word frequencies look like real text); each
// document draws θ ~ Dirichlet(doc_alpha), a length from a log-normal, then every token's topic
// and word. Counts are aggregated per (document, word); a spec that draws a count above 2^24
// (inexact as a float, refused by the readers) is an error. Deterministic for a given spec on any
// machine and any thread count (each document has its own random stream). Word ids are a seeded
// shuffle of the Zipf ranks (like an alphabetical vocabulary, frequent words are scattered over
// the ids). Every document has at least one token.
#include <cstdint>
#include <string>
#include <vector>

#include "core/csr.hpp"
#include "core/dense.hpp"

namespace fk::gen {

// The member defaults are the "default" preset.
struct LdaCorpusSpec {
  std::int64_t docs = 2000;
  std::int64_t words = 5000;
  int topics = 20;
  double mean_doc_length = 150;   // tokens per document (log-normal mean)
  double doc_length_sigma = 0.6;  // log-normal shape
  double doc_alpha = 0.1;         // document-topic Dirichlet concentration
  // Topic-word Dirichlet concentration: beta_k ~ Dirichlet(topic_eta * words * base), base the
  // Zipf measure (sums to 1), so topic_eta is the mean concentration per word.
  double topic_eta = 0.07;
  double zipf_exponent = 0.9;  // base measure: weight of rank r is r^-zipf_exponent
  std::uint64_t seed = 1;
};

// Throws fk::Error naming the first value of `spec` out of range (not the memory it needs,
// which the generator checks as well): the apps make it a usage error of their gen: input.
void check_spec_values(const LdaCorpusSpec& spec);

// Presets (shape and nonzeros of the real corpora; nonzeros tuned to within a few percent):
// "default" (2,000 x 5,000, 20 topics, ~210K nonzeros: the embedded corpus the README's main
// command trains on), "kos" (3,430 x 6,906, ~353K), "nips" (1,500 x 12,419, ~746K),
// "nytimes" (300,000 x 102,660, ~69.7M; about 10 s and 0.8 GB on 2 cores).
// Throws fk::Error listing the names for an unknown preset.
LdaCorpusSpec lda_preset(const std::string& name);
std::vector<std::string> lda_preset_names();

struct GeneratedCorpus {
  HostCsr counts;                  // docs x words, value = count (>= 1), columns sorted per row
  HostDense<float> topics;         // topics x words, each row sums to 1 (the true β)
  std::vector<std::string> vocab;  // synthetic words "w0", "w1", ...
};

// Throws fk::Error naming the field for a spec out of range. Uses OpenMP's thread count; the
// result does not depend on it. Logs progress lines for corpora above ~20M tokens.
GeneratedCorpus generate_lda_corpus(const LdaCorpusSpec& spec);

}  // namespace fk::gen
