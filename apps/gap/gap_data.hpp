#pragma once
// fk-gap's data: the count matrix from any supported input, the held-out tokens (binomial
// thinning) or the test documents' halves, the constants of the log-likelihoods, and the unigram
// baseline. Built once on the host, shared by the two runs of --compare.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/gap/gap_options.hpp"
#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/io/format.hpp"

namespace fk::gap {

struct GapData {
  HostCsr train;    // documents x words training counts (f > 0, columns sorted)
  HostCsr heldout;  // thinning: same shape, the held-out tokens that are scored (may be empty)
  HostCsr test_observed, test_scored;           // --test: halves of the test documents (T x W)
  std::vector<std::string> vocab;               // W words (item ids for ratings), or empty
  std::vector<std::string> doc_ids;             // the rows' user ids for ratings, else empty
  std::optional<HostDense<float>> true_topics;  // generated corpora: K_true x W
  std::string source;                           // one line for the log
  std::vector<std::string> input_files;  // every file read: no output may replace one of them
  double holdout_frac = 0;                      // p of the thinning (0: none)
  double train_tokens = 0, heldout_tokens = 0, test_tokens = 0;        // test: scored halves
  double train_log_fact = 0, heldout_log_fact = 0, test_log_fact = 0;  // Σ log f!
  // Held-out or scored tokens left out of every score: their word has no training token, or their
  // document has none (training tokens under thinning, observed half under --test). Neither the
  // model nor the unigram baseline can give them a non-zero rate. (Under thinning such a document
  // stays a row of X, at the prior's mode, and its rates stay in the model's Σ_all r: a small
  // handicap for the model, none for the baseline. --test drops such documents as a whole.)
  double unscored_tokens = 0;
  // The unigram baseline r_dw = len_d · c_w / T (len_d: the document's training tokens, or its
  // observed half under --test; c_w the word's training count, T all training tokens), evaluated
  // as the model is.
  double unigram_train_ll = 0;
  std::optional<double> unigram_heldout_ll;

  std::int64_t docs() const { return train.rows; }
  std::int64_t words() const { return train.cols; }
  bool has_heldout() const { return heldout.nnz() > 0 || test_scored.nnz() > 0; }
};

// Reads --input (and --test), thins or halves, filters and computes the constants. Logs one line.
GapData prepare_gap_data(const GapOptions& opt, const std::string& input, io::InputFormat format,
                         std::uint64_t seed);

// Binomial thinning of every document's tokens: each of the floor(f) tokens of an entry goes to
// `heldout` with probability p (a fractional remainder goes as a whole with probability p), the
// rest to `train`; entries that get no token are left out of a matrix. Seeded per document, so
// the result does not depend on the thread count.
void thin_counts(const HostCsr& all, double p, std::uint64_t seed, HostCsr& train,
                 HostCsr& heldout);

// Σ log f! (log Γ(f + 1)) over the entries.
double log_factorial_sum(const HostCsr& m);

}  // namespace fk::gap
