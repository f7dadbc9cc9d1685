#pragma once
// Training, evaluation, output, checkpoints and inference of fk-lda, on top of an LdaBackend.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/common/options.hpp"
#include "apps/common/reduce.hpp"
#include "apps/lda/coherence.hpp"
#include "apps/lda/corpus.hpp"
#include "apps/lda/lda_backend.hpp"
#include "apps/lda/lda_options.hpp"

namespace fk::lda {

// Everything about the data that does not depend on the device; built once and shared by the two
// runs of --compare.
struct LdaData {
  std::int64_t words = 0;          // W
  std::vector<std::string> vocab;  // W words or empty
  std::int64_t train_docs = 0;
  std::vector<std::int64_t> train_ids;           // original index of each training document
  std::vector<LocalBatch> train_batches;         // consecutive training documents
  std::vector<LocalBatch> eval_fit, eval_score;  // held-out halves, same row ranges pairwise
  std::int64_t heldout_docs = 0;
  double train_tokens = 0, eval_tokens = 0;     // eval_tokens: tokens of the scored halves
  std::optional<HostDense<float>> true_topics;  // K_true x W for generated corpora
  std::string source;
  std::vector<std::string> input_files;  // every file read: no output may replace one of them
};

// Reads --input (and --test), splits, cuts minibatches. Logs one line about the data.
LdaData prepare_lda_data(const LdaOptions& opt, const app::CommonOptions& common);

struct PassReport {
  int pass = 0;
  double seconds = 0;  // wall time of the pass (evaluation excluded)
  double tokens_per_s = 0;
  double gflops = 0;      // SDDMM + SpMM flops of the pass / pass time
  double mean_inner = 0;  // E-step iterations per minibatch
  std::optional<double> heldout_ll, perplexity, train_bound;
};

struct TrainResult {
  std::string device;              // Context::describe()
  std::vector<PassReport> passes;  // the passes this invocation ran (after a resume: the rest)
  std::optional<double> heldout_ll, perplexity, train_bound;  // of the final model
  HostDense<float> lambda;                                    // W x K
  HostDense<float> doc_topics;  // training documents x K, rows sum to 1
  std::string kernels;          // variants the plans use
  double prepare_seconds = 0;
  // Of the --top-words most probable words of each topic over the training documents (none when
  // --top-words is below 2).
  std::optional<TopicCoherence> coherence;
  std::optional<TopicCoherence> true_coherence;  // of a generated corpus's true topics, the same way
};

// Trains on `ctx`'s device and writes every output into `out_dir` (created when missing):
// config.ini/json, metrics.jsonl, topics.npy, doc_topics.npy, top_words.txt, coherence.csv,
// summary.json, and the model
// (lambda.npy, model.ini, vocab.txt) that `fk-lda infer --model out_dir` reads.
TrainResult train_lda(const LdaOptions& opt, const app::CommonOptions& common, const LdaData& data,
                      Context ctx, const std::string& out_dir, const app::ResolvedConfig& config,
                      app::StatsReducer* reducer = nullptr);

// How top_words.txt, top_words.csv and coherence.csv name words without a vocabulary, for the
// apps' --help (fk-lda, fk-gap), after what vocab.txt holds.
inline constexpr const char* kUnnamedWordsHelp =
    "none without a vocabulary (UCI without vocab.X.txt beside it, Matrix Market without "
    "--vocab): then top_words.txt, top_words.csv and coherence.csv name a word w and its index "
    "from 0 among the input's words: w0 is UCI/Matrix Market word id 1, wN is id N+1, as "
    "fk-datagen's vocab.txt names generated words";

// The ids of the `words` most probable words of every topic (by λ, W x K), most probable first
// (ties: the lower id first); one pass over λ.
std::vector<std::vector<std::int64_t>> top_word_ids(const HostDense<float>& lambda, int words);
// Word ids as text: vocab[id] when `vocab` has all `words` words, else "w" and the 0-based id
// ("w0" is the first word: UCI and Matrix Market word id 1; "wN" is id N+1). The same
// names fk-datagen's vocab.txt gives generated words, so a generated corpus read with or without
// its vocab.txt lists the same names; --help and the README say so (kUnnamedWordsHelp).
std::vector<std::vector<std::string>> word_names(const std::vector<std::vector<std::int64_t>>& ids,
                                                 const std::vector<std::string>& vocab,
                                                 std::int64_t words);
// The `words` most probable words of every topic as text (word_names of top_word_ids).
std::vector<std::vector<std::string>> top_words(const HostDense<float>& lambda, int words,
                                                const std::vector<std::string>& vocab);
// Writes the `words` most probable words of every column of λ (W x K) twice, atomically:
// <dir>/top_words.txt for reading ("<unit> t: w1 w2 ..."; a word holding a space reads as two
// there) and <dir>/top_words.csv for programs (<unit>,rank,word,weight: one row per word, quoted
// as CSV needs, rank 1 the most probable, weight λ[w][t] over its column's sum, the word's
// probability in the topic). words > 0.
void write_top_words(const std::string& dir, const HostDense<float>& lambda, int words,
                     const std::vector<std::string>& vocab, const std::string& unit);

// A saved model (the --out of a training run).
struct LdaModel {
  HostDense<float> lambda;  // W x K
  std::vector<std::string> vocab;
  double alpha = 0, eta = 0;
  int inner_iters = 50;
  double tol = 1e-3;
};
LdaModel load_lda_model(const std::string& dir);

// θ (docs x K, rows sum to 1) of each row of `docs` under a fixed model, by the same E-step.
// `precision` is --precision: the E-step's plans take it as training's do (BatchRole::kInfer).
// Logs one line with the kernels (and the precision when not fp32), as training does, and a
// progress line every `progress_seconds` while the minibatches run (a pass of training does too).
HostDense<float> infer_topics(const LdaModel& model, const HostCsr& docs, Context ctx,
                              std::int64_t batch_size, std::uint64_t seed, int inner_iters,
                              double tol, const std::string& sddmm = "auto",
                              const std::string& spmm = "auto",
                              Precision precision = Precision::kF32,
                              const std::string& ratio_spmm = "auto",
                              double progress_seconds = 10.0);

}  // namespace fk::lda
