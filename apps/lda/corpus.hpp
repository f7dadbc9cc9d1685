#pragma once
// fk-lda's data: reading a corpus in any supported form, the train/held-out split, the
// document-completion halves, and minibatches with their columns renumbered to the words they use.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/generate/lda_corpus.hpp"
#include "core/io/format.hpp"

namespace fk::lda {

// A documents x words count matrix and what is known about its words.
struct Corpus {
  HostCsr counts;                               // docs x W, values > 0, columns sorted in each row
  std::vector<std::string> vocab;               // W words, or empty when unknown
  std::vector<std::string> doc_ids;  // the input's names of its rows (a ratings file's users), or
                                     // empty where rows are the documents in input order
  std::optional<HostDense<float>> true_topics;  // generated corpora: K x W, rows sum to 1
  std::string source;                           // one line for the log
  std::vector<std::string> files;               // the files read (counts, vocabulary)
};

// Plain-text options (one document per line).
struct TextOptions {
  std::int64_t min_count = 5;  // drop words with fewer occurrences in the whole corpus
  double max_df = 0.5;         // drop words in more than this fraction of the documents
};

// --input for training. `input` is either
//   gen:NAME[:key=value,...]  a generated corpus (fk::gen presets: default, kos, nips, nytimes;
//                             keys as fk-datagen lda's options: parse_gen_spec), or
//   a file in `format` (kAuto: detected from the content):
//     uci   docword.X.txt[.gz]; the vocabulary vocab.X.txt beside it is used when present,
//     mtx   Matrix Market, documents x words counts,
//     text  one document per line, tokenised by tokenize() and filtered by `text`.
// `vocab_path` (optional, any format) names a vocabulary file, one word per line, W lines.
// Throws InputError for unreadable or malformed files, app::UsageError for a bad gen: spec,
// fk::Error otherwise.
Corpus load_corpus(const std::string& input, io::InputFormat format, const TextOptions& text,
                   const std::string& vocab_path = "");

// The --format values load_corpus reads (the apps' help lists them).
inline const std::vector<std::string> kCorpusFormats = {"uci", "mtx", "text"};

// The vocabulary file load_corpus reads for `input` when no `vocab_path` is given: a UCI input's
// vocab.X.txt beside it, else "" (other formats, generated corpora, no such file).
std::string implied_vocab(const std::string& input, io::InputFormat format);

// Whether load_corpus reads `input` as plain text (the format given, or detected from the
// content; never for gen:). Throws InputError for a missing file or a directory.
bool is_text_input(const std::string& input, io::InputFormat format);

// Whose vocabulary load_corpus_in_vocab maps a file onto, for its messages: a saved model's
// (`fk-lda infer`), or, for a held-out --test file read while training (fk-lda, fk-gap), the
// training corpus's (--input), which is what the user can change there: no model exists yet.
enum class VocabOf { kModel, kTrainingCorpus };

// A corpus in an existing vocabulary (`of`: a model's for `fk-lda infer --input FILE`, the
// training corpus's for --test FILE). Text is mapped onto `vocab` by tokenize_in_vocab (unknown
// words dropped, no filtering; `vocab` must then be known); other formats must not have more than
// `words` columns and are widened to `words`. Errors and log lines name the vocabulary's owner as
// `of` says ("the model has 200", "the training corpus has 200").
Corpus load_corpus_in_vocab(const std::string& input, io::InputFormat format,
                            const std::vector<std::string>& vocab, std::int64_t words,
                            VocabOf of);

// The tokenizer for text input: lowercase ASCII letters, split on every byte that is not a letter
// (bytes >= 0x80 count as letters so UTF-8 words stay whole), drop one-letter tokens and English
// stop words.
std::vector<std::string> tokenize(const std::string& line);
bool is_stop_word(const std::string& word);

// The tokens of `line` that a model's vocabulary (`index`: word to id) knows, as ids. Runs of
// letters, digits and '_' (lowercased) are looked up whole first, so that words tokenize() splits
// or drops still match a vocabulary that has them (UCI's "boxfeed_listing", "mp3", one-letter
// words, stop words); a run the vocabulary lacks is split by tokenize() and its pieces looked up,
// so a model trained on text matches exactly the tokens training counted.
std::vector<std::int32_t> tokenize_in_vocab(
    const std::string& line, const std::unordered_map<std::string, std::int32_t>& index);

// Parses what follows "gen:" (e.g. "default" or "default:docs=500,topics=5", keys as fk-datagen
// lda's options). Throws app::UsageError naming --input and the bad part (a name, key or value).
gen::LdaCorpusSpec parse_gen_spec(const std::string& text);

// Seeded split of the documents: round(frac * D) held out (at least one when frac > 0 and D > 1),
// the rest kept for training; both keep the original document order.
struct DocumentSplit {
  std::vector<std::int64_t> train, heldout;  // original row indices, ascending
};
DocumentSplit split_documents(std::int64_t docs, double heldout_frac, std::uint64_t seed);

// The rows `rows` of `m`, in that order.
HostCsr select_rows(const HostCsr& m, const std::vector<std::int64_t>& rows);

// Document completion: each document's tokens, taken in column order with counts expanded, go
// alternately to `observed` (even positions) and `scored` (odd positions). Non-integer values are
// halved. Both have the shape of `docs`.
void completion_halves(const HostCsr& docs, HostCsr& observed, HostCsr& scored);

// A minibatch whose columns are renumbered to the words it uses, so that its dense operands are
// (its words x K) rather than (W x K).
struct LocalBatch {
  HostCsr counts;                   // rows x words.size(), local column ids, sorted in each row
  std::vector<std::int32_t> words;  // local column -> global word id, ascending
  std::int64_t first_doc = 0;       // index of row 0 in the document set it was cut from
  double tokens = 0;                // sum of the counts
};
LocalBatch make_local_batch(const HostCsr& docs, std::int64_t begin, std::int64_t end);
// Consecutive batches of `batch_size` rows (the last one shorter); batch_size <= 0 means one batch.
std::vector<LocalBatch> make_batches(const HostCsr& docs, std::int64_t batch_size);

double total_tokens(const HostCsr& m);

}  // namespace fk::lda
