#include "core/io/uci.hpp"

#include <cmath>
#include <string_view>
#include <unordered_map>

#include "core/io/atomic_file.hpp"
#include "core/io/line_reader.hpp"
#include "core/io/parse.hpp"
#include "core/log.hpp"

namespace fk::io {
namespace {

using detail::quote;

struct Header {
  std::int64_t docs = 0, words = 0, nnz = 0;
  std::int64_t docs_line = 0, words_line = 0;  // where D and W were read
};

std::string format_hint(std::string_view line, std::size_t tokens) {
  if (line.rfind("%%MatrixMarket", 0) == 0) return " (this is a Matrix Market file)";
  if (line.find("::") != std::string_view::npos)
    return " (this looks like a MovieLens ratings file)";
  if (line.find(',') != std::string_view::npos)
    return " (this looks like a DLMC .smtx or CSV file)";
  if (tokens == 3 || tokens == 4)
    return " (this looks like a ratings or triplet file without header)";
  return "";
}

std::int64_t header_value(LineReader& in, std::string& line, const char* name) {
  if (!in.next(line)) {
    if (in.line_number() == 0)
      throw InputError(in.path(), 0,
                       "empty file, expected the UCI header (D, W and NNZ on three lines)");
    in.fail(std::string("the file ends inside the header; expected ") + name + " on line " +
            std::to_string(in.line_number() + 1));
  }
  std::string_view tok[5];
  const std::size_t n = detail::split_blanks(line, tok, 5);
  std::int64_t v = 0;
  if (n != 1 || !detail::parse_int(tok[0], v)) {
    in.fail(std::string("expected ") + name + " alone on line " + std::to_string(in.line_number()) +
            " of a UCI docword file, found " + quote(line) + format_hint(line, n));
  }
  if (v < 0) in.fail(std::string(name) + " must not be negative, found " + std::to_string(v));
  return v;
}

Header read_header(LineReader& in, std::string& line) {
  Header h;
  h.docs = header_value(in, line, "the document count D");
  h.docs_line = in.line_number();
  detail::check_dimension(in, h.docs, "document count D");
  h.words = header_value(in, line, "the vocabulary size W");
  h.words_line = in.line_number();
  detail::check_dimension(in, h.words, "vocabulary size W");
  h.nnz = header_value(in, line, "the entry count NNZ");
  if (h.nnz > h.docs * h.words) {  // both below 2^31: no overflow
    in.fail("NNZ = " + std::to_string(h.nnz) + " exceeds D x W = " + std::to_string(h.docs) +
            " x " + std::to_string(h.words));
  }
  detail::check_count_fits(in, h.nnz, 6, "entries");
  return h;
}

// Calls emit(doc, word, count) (0-based ids) for every body line, validating each and the total.
template <typename Emit>
void for_each_entry(LineReader& in, const Header& h, std::string& line, Emit&& emit) {
  std::int64_t seen = 0;
  std::string_view tok[4];
  while (in.next(line)) {
    if (detail::blank_line(line)) continue;
    const std::size_t n = detail::split_blanks(line, tok, 4);
    if (n != 3)
      in.fail("expected 'docID wordID count', found " + std::to_string(n) + " field" +
              (n == 1 ? "" : "s"));
    if (seen == h.nnz)
      in.fail("more entries than NNZ = " + std::to_string(h.nnz) + " in the header");
    std::int64_t d = 0, w = 0, c = 0;
    if (!detail::parse_int(tok[0], d))
      in.fail("docID: expected an integer, found " + quote(tok[0]));
    if (d < 1 || d > h.docs)
      in.fail("docID " + std::to_string(d) + " out of range 1.." + std::to_string(h.docs));
    if (!detail::parse_int(tok[1], w))
      in.fail("wordID: expected an integer, found " + quote(tok[1]));
    if (w < 1 || w > h.words)
      in.fail("wordID " + std::to_string(w) + " out of range 1.." + std::to_string(h.words));
    if (!detail::parse_int(tok[2], c) || c <= 0)
      in.fail("count must be a positive integer, found " + quote(tok[2]));
    if (c > kMaxExactCount)
      in.fail("count " + std::to_string(c) + " is above 2^24 and would lose precision as a float");
    emit(d - 1, w - 1, static_cast<float>(c));
    ++seen;
  }
  if (seen < h.nnz) {
    in.fail("the file ends after " + std::to_string(seen) +
            " of the NNZ = " + std::to_string(h.nnz) + " entries declared in the header");
  }
}

// Reads the docword file again to name the line that repeats (doc, word); only on bad input.
[[noreturn]] void report_duplicate(const std::string& path, std::int64_t doc, std::int64_t word) {
  if (!rereadable(path))
    throw InputError(path, 0,
                     "duplicate entry (docID " + std::to_string(doc + 1) + ", wordID " +
                         std::to_string(word + 1) +
                         ") (a pipe cannot be read again to name its lines)");
  LineReader in(path);
  std::string line;
  const Header h = read_header(in, line);
  std::int64_t first = 0;
  for_each_entry(in, h, line, [&](std::int64_t d, std::int64_t w, float) {
    if (d != doc || w != word) return;
    if (first == 0) {
      first = in.line_number();
      return;
    }
    in.fail("duplicate entry (docID " + std::to_string(doc + 1) + ", wordID " +
            std::to_string(word + 1) + "), first given at line " + std::to_string(first));
  });
  throw InputError(path, 0,
                   "duplicate entry (docID " + std::to_string(doc + 1) + ", wordID " +
                       std::to_string(word + 1) + ")");
}

std::vector<std::string> read_vocab(const std::string& path, std::int64_t words) {
  std::vector<std::string> vocab = read_vocabulary(path, words);
  if (vocab.empty() && words > 0) {
    throw InputError(path, 0, "empty vocabulary, expected W = " + std::to_string(words) + " words");
  }
  if (static_cast<std::int64_t>(vocab.size()) < words) {  // no blank line before a word: line = id
    throw InputError(path, static_cast<std::int64_t>(vocab.size()),
                     "the vocabulary has " + std::to_string(vocab.size()) +
                         " words, but the docword file says W = " + std::to_string(words));
  }
  return vocab;
}

}  // namespace

std::vector<std::string> read_vocabulary(const std::string& path, std::int64_t max_words) {
  LineReader in(path);
  std::vector<std::string> vocab;
  if (max_words >= 0) vocab.reserve(detail::reserve_cap(in, max_words, 2));
  std::string line;
  std::int64_t blank_at = 0;  // first blank line seen; an error only if a word follows it
  while (in.next(line)) {
    while (!line.empty() && detail::is_blank(line.back())) line.pop_back();
    if (line.empty()) {
      if (blank_at == 0) blank_at = in.line_number();
      continue;
    }
    if (blank_at != 0)
      throw InputError(path, blank_at, "blank line in the vocabulary (line i must hold word i)");
    if (max_words >= 0 && static_cast<std::int64_t>(vocab.size()) == max_words)
      in.fail("more words than W = " + std::to_string(max_words) + " declared by the docword file");
    vocab.push_back(line);
  }
  std::unordered_map<std::string_view, std::size_t> first;
  std::size_t repeated = 0, example = 0;
  for (std::size_t w = 0; w < vocab.size(); ++w)
    if (!first.emplace(vocab[w], w).second && repeated++ == 0) example = w;
  if (repeated > 0)
    log_warn() << path << ": " << repeated << (repeated == 1 ? " line repeats" : " lines repeat")
               << " a word of an earlier line (first: '" << vocab[example] << "' at line "
               << example + 1 << ", as at line " << first[vocab[example]] + 1 << ")";
  return vocab;
}

Corpus read_uci(const std::string& docword_path, const std::string& vocab_path) {
  Corpus corpus;
  {
    LineReader in(docword_path);
    std::string line;
    const Header h = read_header(in, line);
    detail::Triplets t;
    t.reserve(detail::reserve_cap(in, h.nnz, 6));
    for_each_entry(in, h, line, [&](std::int64_t d, std::int64_t w, float c) { t.push(d, w, c); });
    detail::check_dimension_read(in, h.docs_line, h.docs, "document count D");
    detail::check_dimension_read(in, h.words_line, h.words, "vocabulary size W");
    corpus.counts = detail::triplets_to_csr(h.docs, h.words, t);
  }
  std::int64_t doc = 0;
  std::int32_t word = 0;
  if (detail::find_duplicate(corpus.counts, doc, word)) report_duplicate(docword_path, doc, word);
  if (!vocab_path.empty()) corpus.vocab = read_vocab(vocab_path, corpus.counts.cols);
  return corpus;
}

void write_uci(const std::string& docword_path, const std::string& vocab_path,
               const Corpus& corpus) {
  const HostCsr& m = corpus.counts;
  validate(m.view());
  FK_CHECK(static_cast<std::int64_t>(m.vals.size()) == m.nnz(),
           "UCI corpus for " << docword_path << " needs one count per entry, has " << m.vals.size()
                             << " for " << m.nnz());
  for (std::int64_t j = 0; j < m.nnz(); ++j) {
    const float c = m.vals[j];
    FK_CHECK(c >= 1 && c <= static_cast<float>(kMaxExactCount) && std::floor(c) == c,
             "cannot write " << docword_path << ": count " << c << " at entry " << j
                             << " is not a positive integer");
  }
  if (!corpus.vocab.empty()) {
    FK_CHECK(!vocab_path.empty(), "a vocabulary is given but no path to write it to");
    FK_CHECK(static_cast<std::int64_t>(corpus.vocab.size()) == m.cols,
             "vocabulary has " << corpus.vocab.size() << " words for " << m.cols << " columns");
    for (const std::string& w : corpus.vocab)
      FK_CHECK(!detail::blank_line(w) && w.find('\n') == std::string::npos,
               "cannot write " << vocab_path << ": word " << detail::quote(w)
                               << " is blank or holds a newline");
  }
  // Both files go to temporaries first and are renamed only when both are complete.
  AtomicFile docword(docword_path);
  std::string buf;
  detail::append_int(buf, m.rows);
  buf += '\n';
  detail::append_int(buf, m.cols);
  buf += '\n';
  detail::append_int(buf, m.nnz());
  buf += '\n';
  for (std::int64_t r = 0; r < m.rows; ++r) {
    for (std::int64_t j = m.row_ptr[r]; j < m.row_ptr[r + 1]; ++j) {
      detail::append_int(buf, r + 1);
      buf += ' ';
      detail::append_int(buf, m.col_idx[j] + 1);
      buf += ' ';
      detail::append_int(buf, static_cast<std::int64_t>(m.vals[j]));
      buf += '\n';
      detail::flush_if_large(buf, docword.stream());
    }
  }
  docword.stream().write(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (corpus.vocab.empty()) {
    docword.commit();
    return;
  }
  AtomicFile vocab(vocab_path);
  for (const std::string& w : corpus.vocab) vocab.stream() << w << '\n';
  docword.commit();
  vocab.commit();
}

}  // namespace fk::io
