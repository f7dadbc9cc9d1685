#pragma once
// UCI "Bag of Words" corpora: docword.X.txt or .txt.gz (3 header lines D, W, NNZ, then
// "docID wordID count", 1-based, sorted by document in the published files but not required) and
// vocab.X.txt (line i = word i). Gzip is detected by content, not by name. Counts must be positive
// integers up to 2^24 (exact as float); duplicate (doc, word) pairs, ids out of range, a body whose
// entry count differs from NNZ, a header line that is not a lone non-negative integer, and a
// vocabulary whose word count differs from W (or has a blank line before its last word) are each
// one fk::InputError "file:line: what". Blank body lines are skipped.
#include <cstdint>
#include <string>
#include <vector>

#include "core/csr.hpp"

namespace fk::io {

// The largest count the readers take: counts are stored as float, and above 2^24 consecutive
// integers are no longer distinct (fk-lda and fk-gap hold Matrix Market and ratings counts to it
// too; fk-gap's held-out thinning draws once per token).
inline constexpr std::int64_t kMaxExactCount = std::int64_t{1} << 24;

struct Corpus {
  HostCsr counts;                  // documents x words, value = count
  std::vector<std::string> vocab;  // W words, or empty when no vocabulary was given
};

// vocab_path may be empty; if not empty its line count must equal W.
Corpus read_uci(const std::string& docword_path, const std::string& vocab_path = "");
// A vocabulary file by the rules of a UCI vocab.X.txt, for read_uci and for the apps' --vocab:
// line i holds word i (trailing blanks dropped); a blank line before a word is an error, blank
// lines at the end are dropped; a word on two lines is read (the ids stay distinct) and warned
// about, since topics would list both alike. With `max_words` >= 0 a line past that many words
// is an error naming it.
std::vector<std::string> read_vocabulary(const std::string& path, std::int64_t max_words = -1);
// Writes docword (plain text) and, when corpus.vocab is not empty, the vocabulary (atomically).
void write_uci(const std::string& docword_path, const std::string& vocab_path,
               const Corpus& corpus);

}  // namespace fk::io
