#pragma once
// Topic coherence: how often a topic's top words occur together in the documents, the measure of
// topic quality that does not need held-out data (gensim's CoherenceModel, Röder et al. 2015).
// Both measures here count documents ("boolean document" co-occurrence):
//   UMass (Mimno et al. 2011): for words w_1..w_N in rank order, the mean over pairs j < i of
//     log((D(w_i, w_j) + 1) / D(w_j)); at most log((D + 1) / D) (just above 0), higher is better.
//   NPMI (Bouma 2009; Aletras & Stevenson 2013): the mean over pairs of
//     log(P(w_i, w_j) / (P(w_i) P(w_j))) / -log P(w_i, w_j), with P = document frequency / D;
//     -1 for a pair that never occurs together, in [-1, 1], higher is better.
// Mimno's UMass sums over the pairs; the mean (as gensim reports it) makes topics of different N
// comparable. A topic is undefined (NaN) when a listed word occurs in no document or the list has
// fewer than two words; the means are over the defined topics.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/csr.hpp"
#include "core/dense.hpp"

namespace fk::lda {

// Documents to count over: the rows of `counts` (values > 0, or no values), whose column c is
// word words[c], or word c when `words` is null (fk-lda's minibatches renumber their columns).
struct DocumentBlock {
  const HostCsr* counts = nullptr;
  const std::vector<std::int32_t>* words = nullptr;
};

// The apps score at most this many of each topic's --top-words words (gensim's CoherenceModel
// takes 20 by default): the pairs, and so the cost, grow with its square.
inline constexpr int kCoherenceMaxWords = 20;

struct TopicCoherence {
  std::vector<double> umass, npmi;  // one per topic, in the order of `top_word_ids`
  double mean_umass = 0, mean_npmi = 0;  // over the defined topics (NaN when there is none)
  int undefined = 0;                      // topics left out of the means
  std::int64_t documents = 0;  // D: the documents the frequencies were counted over
  int words = 0;               // N: the longest word list given
};

// "UMass -1.2345, NPMI 0.0123" (the means), or when no topic is defined "undefined (no topic
// has two top words in the documents)": a console line without a bare "nan".
std::string coherence_scores(const TopicCoherence& c);

// Coherence of each topic's word list (word ids, most probable first) over the documents of
// `docs`. Counts documents with bitsets over chunks of documents, so
// memory stays (distinct listed words) x 8 KiB; the pairs are scored on all threads.
TopicCoherence topic_coherence(const std::vector<std::vector<std::int64_t>>& top_word_ids,
                               const std::vector<DocumentBlock>& docs);

// The memory a topic's top-words files (write_top_words) or, whichever is more, its coherence
// (score_topics) takes while they are made, for a model of `words` words and --top-words
// `top_words`: the ranked ids, their heaps and names, and the coherence's word pairs (pair and
// count, 16 bytes, in a vector that may have grown to twice its need). An upper estimate fitted to
// fk-gap's peak resident memory at --factors 200000 to 1000000, which it exceeds by up to 1.7x.
// They grow with the topics (fk-gap's --factors 10000000 on 4 words: 0.9 GB of top_words.csv,
// 2.4 GB beside the model) and were outside the check made before training.
double top_words_bytes_per_topic(std::int64_t words, int top_words);

// The apps' coherence step (fk-lda, fk-gap): scores the first min(words, kCoherenceMaxWords)
// words of each topic of `lambda` (W x K, ranked by top_word_ids) over `docs` and logs one line
// naming `what`. With a `csv_path`, writes it (write_coherence_csv, the words named from `vocab`),
// or, below two words, removes an earlier run's file there; nullopt below two words. `unit` names
// the CSV's first column (fk-gap's are factors).
std::optional<TopicCoherence> score_topics(const HostDense<float>& lambda, int words,
                                           const std::vector<DocumentBlock>& docs,
                                           const std::vector<std::string>& vocab,
                                           const std::string& what,
                                           const std::string& csv_path = "",
                                           const std::string& unit = "topic");

// Writes `path` atomically as CSV: UNIT,umass,npmi,words; `words` holds each topic's listed words
// (space-separated in the last column, quoted where CSV needs it: a word holding a space reads as
// two there, top_words.csv keeps each word whole); undefined scores are empty.
void write_coherence_csv(const std::string& path, const TopicCoherence& coherence,
                         const std::vector<std::vector<std::string>>& words,
                         const std::string& unit = "topic");

}  // namespace fk::lda
