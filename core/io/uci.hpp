#pragma once
// UCI "Bag of Words" corpora: docword.X.txt or .txt.gz (3 header lines D, W, NNZ, then
// "docID wordID count", 1-based, sorted by document in the published files but not required) and
// vocab.X.txt (line i = word i). Counts must be positive integers; duplicate (doc, word) pairs,
// ids out of range and a body whose entry count differs from NNZ are InputErrors.
#include <string>
#include <vector>

#include "core/csr.hpp"

namespace fk::io {

struct Corpus {
  HostCsr counts;                  // documents x words, value = count
  std::vector<std::string> vocab;  // W words, or empty when no vocabulary was given
};

// vocab_path may be empty; if not empty its line count must equal W.
Corpus read_uci(const std::string& docword_path, const std::string& vocab_path = "");
// Writes docword (plain text) and, when corpus.vocab is not empty, the vocabulary (atomically).
void write_uci(const std::string& docword_path, const std::string& vocab_path, const Corpus& corpus);

}  // namespace fk::io
