// Fuzzes the UCI bag-of-words reader. The bytes before the first NUL are docword.txt; when there
// is a NUL, the bytes after it are vocab.txt (read with it), so both files get fuzzed.
#include <cstring>

#include "core/io/uci.hpp"
#include "fuzz_util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fk;
  const auto* nul = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
  const std::size_t docword_size = nul ? static_cast<std::size_t>(nul - data) : size;
  const std::string docword = fuzz::write_file("docword.txt", data, docword_size);
  std::string vocab;
  if (nul) vocab = fuzz::write_file("vocab.txt", nul + 1, size - docword_size - 1);
  io::Corpus corpus;
  if (!fuzz::refused([&] { corpus = io::read_uci(docword, vocab); })) {
    fuzz::check_result([&] { validate(corpus.counts.view()); });
    fuzz::require(corpus.counts.vals.size() == corpus.counts.col_idx.size(), "a count per entry");
    for (float c : corpus.counts.vals)
      fuzz::require(c >= 1 && c <= static_cast<float>(io::kMaxExactCount), "count out of range");
    fuzz::require(
        vocab.empty() || static_cast<std::int64_t>(corpus.vocab.size()) == corpus.counts.cols,
        "vocabulary size differs from W");
  }
  return 0;
}
