#include "apps/lda/corpus.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "apps/common/gen_spec.hpp"
#include "apps/common/options.hpp"
#include "core/error.hpp"
#include "core/io/line_reader.hpp"
#include "core/io/matrix_market.hpp"
#include "core/io/uci.hpp"
#include "core/log.hpp"
#include "core/random.hpp"

namespace fk::lda {

namespace fs = std::filesystem;

namespace {

// English function words and other words too frequent to tell topics apart. Written for this
// project: pronouns, determiners, auxiliaries, conjunctions, prepositions, frequent adverbs.
const char* const kStopWords[] = {
    "about",      "above",      "after",   "again",     "against", "all",     "also",
    "am",         "an",         "and",     "any",       "are",     "aren",    "as",
    "at",         "be",         "because", "been",      "before",  "being",   "below",
    "between",    "both",       "but",     "by",        "can",     "cannot",  "could",
    "couldn",     "did",        "didn",    "do",        "does",    "doesn",   "doing",
    "don",        "done",       "down",    "during",    "each",    "either",  "else",
    "etc",        "even",       "ever",    "every",     "few",     "for",     "from",
    "further",    "get",        "gets",    "got",       "had",     "hadn",    "has",
    "hasn",       "have",       "haven",   "having",    "he",      "her",     "here",
    "hers",       "herself",    "him",     "himself",   "his",     "how",     "however",
    "if",         "in",         "into",    "is",        "isn",     "it",      "its",
    "itself",     "just",       "let",     "ll",        "may",     "me",      "might",
    "more",       "most",       "much",    "must",      "mustn",   "my",      "myself",
    "neither",    "no",         "nor",     "not",       "now",     "of",      "off",
    "often",      "on",         "once",    "one",       "only",    "or",      "other",
    "others",     "our",        "ours",    "ourselves", "out",     "over",    "own",
    "per",        "quite",      "rather",  "re",        "same",    "shall",   "shan",
    "she",        "should",     "shouldn", "since",     "so",      "some",    "still",
    "such",       "than",       "that",    "the",       "their",   "theirs",  "them",
    "themselves", "then",       "there",   "therefore", "these",   "they",    "this",
    "those",      "though",     "through", "thus",      "to",      "too",     "under",
    "until",      "up",         "upon",    "us",        "ve",      "very",    "via",
    "was",        "wasn",       "we",      "were",      "weren",   "what",    "whatever",
    "when",       "where",      "whether", "which",     "while",   "who",     "whom",
    "whose",      "why",        "will",    "with",      "within",  "without", "won",
    "would",      "wouldn",     "yes",     "yet",       "you",     "your",    "yours",
    "yourself",   "yourselves",
};

const std::unordered_set<std::string>& stop_words() {
  static const std::unordered_set<std::string> set(std::begin(kStopWords), std::end(kStopWords));
  return set;
}

bool is_letter(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

// The vocabulary beside a UCI docword file, when it exists: vocab.X.txt beside docword.X.txt or
// docword.X.txt.gz (the UCI naming), vocab.txt beside docword.txt[.gz] (fk-datagen's).
std::string uci_vocab_beside(const std::string& docword) {
  const fs::path p(docword);
  std::string name = p.filename().string();
  auto strip = [&name](const char* ext) {
    const std::size_t n = std::strlen(ext);
    if (name.size() >= n && name.compare(name.size() - n, n, ext) == 0) name.resize(name.size() - n);
  };
  strip(".gz");
  strip(".txt");
  if (name != "docword" && name.rfind("docword.", 0) != 0) return {};
  const fs::path v = p.parent_path() / ("vocab" + name.substr(7) + ".txt");
  std::error_code ec;
  return fs::is_regular_file(v, ec) ? v.string() : std::string();
}

std::int64_t empty_rows(const HostCsr& m) {
  std::int64_t empty = 0;
  for (std::int64_t d = 0; d < m.rows; ++d) empty += m.row_ptr[d + 1] == m.row_ptr[d];
  return empty;
}

bool bad_count(double v) {
  return !(v >= 0) || !std::isfinite(v) || v > static_cast<double>(io::kMaxExactCount);
}

// The line of a Matrix Market file whose value check_counts rejects (0 when none is), for its
// error. The reader has already rejected NaN and infinity and keeps no line numbers; this runs
// only on the error path, so reading the file again costs nothing that matters. In a
// skew-symmetric file every off-diagonal entry is mirrored with the opposite sign, so the first
// nonzero entry is the one to name.
std::int64_t first_bad_count_line(const std::string& path, bool& skew) {
  skew = false;
  if (!io::rereadable(path)) return 0;  // a pipe gives its lines once
  io::LineReader in(path);
  std::string line;
  bool banner_seen = false, size_line_seen = false;
  while (in.next(line)) {
    if (!banner_seen) {
      banner_seen = true;
      std::string lower = line;
      for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      skew = lower.find("skew-symmetric") != std::string::npos;
    }
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '%') continue;
    if (!size_line_seen) {
      size_line_seen = true;
      continue;
    }
    std::istringstream fields(line);
    std::string row, col;
    double value = 0;
    if (fields >> row >> col >> value && (bad_count(value) || (skew && value != 0)))
      return in.line_number();
  }
  return 0;
}

void check_counts(const HostCsr& m, const std::string& path, bool matrix_market) {
  for (std::int64_t j = 0; j < m.nnz(); ++j) {
    const float v = m.vals[j];
    if (bad_count(v)) {
      bool skew = false;
      const std::int64_t line = matrix_market ? first_bad_count_line(path, skew) : 0;
      std::ostringstream what;
      if (skew)
        what << "a skew-symmetric matrix stores each entry's mirror with the opposite sign, so "
                "it cannot hold documents x words counts, which must be non-negative";
      else
        what << "documents x words counts must be finite, non-negative and at most 2^24 "
                "(exact as a float), found "
             << v;
      throw InputError(path, line, what.str());
    }
  }
}

// Drops explicit zeros (a count matrix may store them) and sorts the columns of every row.
HostCsr normalise(HostCsr m) {
  bool zeros = false;
  for (float v : m.vals) zeros |= (v == 0.0f);
  if (zeros) {
    HostCsr out;
    out.rows = m.rows;
    out.cols = m.cols;
    out.row_ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
    for (std::int64_t i = 0; i < m.rows; ++i) {
      for (std::int64_t j = m.row_ptr[i]; j < m.row_ptr[i + 1]; ++j)
        if (m.vals[j] != 0.0f) {
          out.col_idx.push_back(m.col_idx[j]);
          out.vals.push_back(m.vals[j]);
        }
      out.row_ptr[i + 1] = out.nnz();
    }
    m = std::move(out);
  }
  sort_columns(m);
  return m;
}

// Text, one document per line. With `fixed` null the vocabulary is built from the corpus and
// filtered; otherwise tokens are mapped onto `*fixed` and unknown ones dropped.
Corpus read_text(const std::string& path, const TextOptions& opt,
                 const std::vector<std::string>* fixed) {
  std::unordered_map<std::string, std::int32_t> index;
  std::vector<std::string> words;
  if (fixed) {
    for (std::size_t i = 0; i < fixed->size(); ++i)
      index.emplace((*fixed)[i], static_cast<std::int32_t>(i));
    words = *fixed;
  }
  std::vector<std::vector<std::pair<std::int32_t, float>>> docs;
  io::LineReader in(path);
  std::string line;
  std::unordered_map<std::int32_t, std::int64_t> doc;
  while (in.next(line)) {
    // Format detection looks at the first lines only: binary content further on would be read
    // as words.
    if (line.find('\0') != std::string::npos)
      throw InputError(path, in.line_number(),
                       "a NUL byte: this is not plain text (a binary file?); name the format with "
                       "--format if it is another");
    doc.clear();
    if (fixed) {
      for (const std::int32_t id : tokenize_in_vocab(line, index)) ++doc[id];
    } else {
      for (const std::string& tok : tokenize(line)) {
        auto it = index.find(tok);
        if (it == index.end()) {
          FK_CHECK(words.size() < static_cast<std::size_t>(INT32_MAX),
                   "vocabulary larger than 2^31 words");
          it = index.emplace(tok, static_cast<std::int32_t>(words.size())).first;
          words.push_back(tok);
        }
        ++doc[it->second];
      }
    }
    docs.emplace_back();
    for (const auto& [w, c] : doc) {
      if (c > io::kMaxExactCount)  // as the UCI reader refuses such a count
        throw InputError(path, in.line_number(),
                         "'" + words[static_cast<std::size_t>(w)] + "' occurs " + std::to_string(c) +
                             " times, above 2^24: the count would lose precision as a float");
      docs.back().emplace_back(w, static_cast<float>(c));
    }
  }
  if (docs.empty())
    throw InputError(path, 0, "empty file: no documents (text input has one document per line)");

  const auto D = static_cast<std::int64_t>(docs.size());
  std::vector<std::int32_t> remap(words.size());
  std::vector<std::string> kept;
  if (fixed) {
    std::iota(remap.begin(), remap.end(), 0);
    kept = words;
  } else {
    std::vector<double> count(words.size(), 0.0);
    std::vector<std::int64_t> df(words.size(), 0);
    for (const auto& d : docs)
      for (const auto& [w, c] : d) {
        count[w] += c;
        df[w] += 1;
      }
    const double max_docs = opt.max_df * static_cast<double>(D);
    for (std::size_t w = 0; w < words.size(); ++w) {
      if (count[w] >= static_cast<double>(opt.min_count) &&
          static_cast<double>(df[w]) <= max_docs) {
        remap[w] = static_cast<std::int32_t>(kept.size());
        kept.push_back(words[w]);
      } else {
        remap[w] = -1;
      }
    }
    // No word at all (blank lines, stop words, one-letter words): the filters removed nothing,
    // and the advice below to loosen them was wrong.
    if (words.empty())
      throw InputError(path, 0,
                       "no words in its " + std::to_string(D) +
                           " lines (words are runs of two or more letters that are not English "
                           "stop words); if it is not plain text (one document per line), name "
                           "its format with --format");
    if (kept.empty())
      throw InputError(path, 0,
                       "no word is left after filtering " + std::to_string(words.size()) +
                           " distinct words (--min-count " + std::to_string(opt.min_count) +
                           ", --max-df " + app::format_double(opt.max_df) +
                           "); lower --min-count or raise --max-df, or, if this is not plain "
                           "text (one document per line), name its format with --format");
  }
  Corpus c;
  c.counts.rows = D;
  c.counts.cols = static_cast<std::int64_t>(kept.size());
  c.counts.row_ptr.assign(static_cast<std::size_t>(D) + 1, 0);
  for (std::int64_t d = 0; d < D; ++d) {
    for (const auto& [w, n] : docs[d])
      if (remap[w] >= 0) {
        c.counts.col_idx.push_back(remap[w]);
        c.counts.vals.push_back(n);
      }
    c.counts.row_ptr[d + 1] = c.counts.nnz();
  }
  sort_columns(c.counts);
  c.vocab = std::move(kept);
  std::ostringstream os;
  os << "text " << path << ": " << D << " documents, " << c.vocab.size() << " words";
  if (!fixed) os << " (of " << words.size() << " distinct after stop words)";
  c.source = os.str();
  c.files.push_back(path);
  return c;
}

io::InputFormat resolve_format(const std::string& path, io::InputFormat format) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path, 0, "no such file");
  if (fs::is_directory(path, ec)) throw InputError(path, 0, "is a directory, expected a file");
  if (format != io::InputFormat::kAuto) return format;
  // io::detect_format refuses a pipe or device too (detection would consume what the reader needs),
  // but asks for any format of any app, ratings and smtx among them, which --format refuses here.
  if (!fs::is_regular_file(path, ec)) {
    std::string names;
    for (std::size_t i = 0; i < kCorpusFormats.size(); ++i)
      names += (i == 0 ? "" : i + 1 == kCorpusFormats.size() ? " or " : ", ") + kCorpusFormats[i];
    throw InputError(path, 0,
                     "is a pipe or a device, which can be read only once: name its format with "
                     "--format (" +
                         names + ") so that it is read only once");
  }
  return io::detect_format(path);
}

Corpus read_matrix_file(const std::string& path, io::InputFormat format) {
  Corpus c;
  if (format == io::InputFormat::kUci) {
    const std::string vocab = uci_vocab_beside(path);
    io::Corpus u = io::read_uci(path, vocab);
    c.counts = std::move(u.counts);
    c.vocab = std::move(u.vocab);
    c.source =
        "UCI " + path + (vocab.empty() ? std::string(" (no vocab file beside it)") : " + " + vocab);
    if (!vocab.empty()) c.files.push_back(vocab);
  } else if (format == io::InputFormat::kMtx) {
    c.counts = io::read_matrix_market(path);
    c.source = "Matrix Market " + path;
  } else {
    throw InputError(
        path, 0,
        std::string("fk-lda reads documents x words counts (uci, mtx or text), but this is ") +
            io::to_string(format) + " input");
  }
  check_counts(c.counts, path, format == io::InputFormat::kMtx);
  c.counts = normalise(std::move(c.counts));
  c.files.push_back(path);
  return c;
}

}  // namespace

bool is_stop_word(const std::string& word) { return stop_words().count(word) > 0; }

std::vector<std::int32_t> tokenize_in_vocab(
    const std::string& line, const std::unordered_map<std::string, std::int32_t>& index) {
  std::vector<std::int32_t> ids;
  std::string run;
  auto flush = [&] {
    if (run.empty()) return;
    if (const auto it = index.find(run); it != index.end()) {
      ids.push_back(it->second);
    } else {
      for (const std::string& tok : tokenize(run))
        if (const auto piece = index.find(tok); piece != index.end()) ids.push_back(piece->second);
    }
    run.clear();
  };
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_letter(c) || (c >= '0' && c <= '9') || c == '_') {
      run += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : ch;
    } else {
      flush();
    }
  }
  flush();
  return ids;
}

std::vector<std::string> tokenize(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.size() >= 2 && !is_stop_word(cur)) out.push_back(cur);
    cur.clear();
  };
  for (const char ch : line) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_letter(c)) {
      cur += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : ch;
    } else {
      flush();
    }
  }
  flush();
  return out;
}

gen::LdaCorpusSpec parse_gen_spec(const std::string& text) {
  // fk-datagen lda's option names; the short names of earlier versions stay.
  const app::GenSpecText spec = app::split_gen_spec(text, {{"length", "mean-length"},
                                                           {"sigma", "length-sigma"},
                                                           {"alpha", "doc-alpha"},
                                                           {"eta", "topic-eta"}});
  // An unknown name, like a bad key below, is a bad --input.
  gen::LdaCorpusSpec s = spec.checked([&] { return gen::lda_preset(spec.name); });
  for (const auto& [key, v] : spec.values) {
    if (key == "docs")
      s.docs = spec.integer(key, v);
    else if (key == "words")
      s.words = spec.integer(key, v);
    else if (key == "topics")
      s.topics = static_cast<int>(spec.integer(key, v, INT_MAX));
    else if (key == "mean-length")
      s.mean_doc_length = v;
    else if (key == "length-sigma")
      s.doc_length_sigma = v;
    else if (key == "doc-alpha")
      s.doc_alpha = v;
    else if (key == "topic-eta")
      s.topic_eta = v;
    else if (key == "zipf")
      s.zipf_exponent = v;
    else if (key == "seed")
      s.seed = static_cast<std::uint64_t>(spec.integer(key, v));
    else
      spec.unknown(key,
                   "docs, words, topics, mean-length, length-sigma, doc-alpha, topic-eta, zipf, "
                   "seed");
  }
  // A value out of range is a bad --input (exit 2), as a bad key is; the memory the data needs is
  // the generator's runtime check.
  spec.checked([&] { gen::check_spec_values(s); });
  return s;
}

std::string implied_vocab(const std::string& input, io::InputFormat format) {
  if (input.empty() || input.rfind("gen:", 0) == 0) return {};
  return resolve_format(input, format) == io::InputFormat::kUci ? uci_vocab_beside(input) : "";
}

bool is_text_input(const std::string& input, io::InputFormat format) {
  if (input.empty() || input.rfind("gen:", 0) == 0) return false;
  return resolve_format(input, format) == io::InputFormat::kText;
}

Corpus load_corpus(const std::string& input, io::InputFormat format, const TextOptions& text,
                   const std::string& vocab_path) {
  if (input.empty()) throw Error("no input: give --input FILE or --input gen:default");
  Corpus c;
  if (input.rfind("gen:", 0) == 0) {
    const gen::LdaCorpusSpec spec = parse_gen_spec(input.substr(4));
    gen::GeneratedCorpus g = gen::generate_lda_corpus(spec);
    c.counts = normalise(std::move(g.counts));
    c.vocab = std::move(g.vocab);
    c.true_topics = std::move(g.topics);
    std::ostringstream os;
    os << "generated " << input << ": " << spec.docs << " x " << spec.words << ", " << spec.topics
       << " true topics, seed " << spec.seed;
    c.source = os.str();
  } else {
    const io::InputFormat f = resolve_format(input, format);
    if (f == io::InputFormat::kText) {
      // --vocab names a count matrix's columns by position: it renamed the text's own words in
      // the order they were kept.
      if (!vocab_path.empty())
        app::usage_fail("vocab", "applies to UCI, Matrix Market and gen: input; plain text's words are its vocabulary");
      c = read_text(input, text, nullptr);
    } else {
      c = read_matrix_file(input, f);
    }
  }
  if (!vocab_path.empty()) {
    c.vocab = io::read_vocabulary(vocab_path);  // a UCI vocab.X.txt's rules
    c.files.push_back(vocab_path);
    if (static_cast<std::int64_t>(c.vocab.size()) != c.counts.cols)
      throw InputError(vocab_path, 0,
                       "vocabulary has " + std::to_string(c.vocab.size()) +
                           " lines but the corpus has " + std::to_string(c.counts.cols) + " words");
  }
  if (c.counts.rows == 0) throw InputError(input, 0, "the corpus has no documents");
  if (c.counts.cols == 0) throw InputError(input, 0, "the corpus has no words");
  if (c.counts.nnz() == 0)
    throw InputError(input, 0, "the corpus has no tokens (no nonzero counts)");
  // A UCI header that counts more documents than its entries name, for instance: harmless, but the
  // user should know.
  if (const std::int64_t empty = empty_rows(c.counts); empty > 0)
    log_warn() << input << ": " << empty << " of " << c.counts.rows
               << " documents have no words (kept: they add no tokens to training or to the "
                  "held-out score)";
  return c;
}

Corpus load_corpus_in_vocab(const std::string& input, io::InputFormat format,
                            const std::vector<std::string>& vocab, std::int64_t words,
                            VocabOf of) {
  if (input.rfind("gen:", 0) == 0)
    throw Error("'" + input + "': a generated corpus cannot be used here; give a file");
  const bool training = of == VocabOf::kTrainingCorpus;
  // Whose words these are, in the messages: while training there is no model yet.
  const std::string owner = training ? "the training corpus" : "the model";
  const std::string owners = owner + "'s";
  const io::InputFormat f = resolve_format(input, format);
  Corpus c;
  if (f == io::InputFormat::kText) {
    if (static_cast<std::int64_t>(vocab.size()) != words)
      throw InputError(
          input, 0,
          training ? "text needs the training corpus's vocabulary to map its words to ids, and "
                     "the training corpus (--input) has none (a UCI file without vocab.X.txt "
                     "beside it, or Matrix Market without --vocab): give these documents as "
                     "word ids (uci or mtx), or give --vocab"
                   : "text input needs the model's vocabulary, and this model has none (it was "
                     "trained on word ids without names): give these documents as word ids "
                     "(uci or mtx)");
    c = read_text(input, TextOptions{}, &vocab);
  } else {
    c = read_matrix_file(input, f);
    const bool same_words = c.vocab == vocab;
    if (!c.vocab.empty() && !vocab.empty() && !same_words) {
      // A vocabulary beside the file (UCI's vocab.X.txt) that is not the model's: its word ids
      // mean other words, so the counts move to the model's ids by word, and words the model
      // does not know are dropped.
      std::unordered_map<std::string, std::int32_t> model_id;
      for (std::size_t w = 0; w < vocab.size(); ++w)
        model_id.emplace(vocab[w], static_cast<std::int32_t>(w));
      std::vector<std::int32_t> to(c.vocab.size(), -1);
      for (std::size_t w = 0; w < c.vocab.size(); ++w) {
        const auto it = model_id.find(c.vocab[w]);
        if (it != model_id.end()) to[w] = it->second;
      }
      HostCsr m;
      m.rows = c.counts.rows;
      m.cols = words;
      m.row_ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
      double dropped = 0;
      for (std::int64_t d = 0; d < c.counts.rows; ++d) {
        for (std::int64_t j = c.counts.row_ptr[d]; j < c.counts.row_ptr[d + 1]; ++j) {
          const std::int32_t w = to[c.counts.col_idx[j]];
          if (w < 0) {
            dropped += c.counts.vals[j];
            continue;
          }
          m.col_idx.push_back(w);
          m.vals.push_back(c.counts.vals[j]);
        }
        m.row_ptr[d + 1] = m.nnz();
      }
      sort_columns(m);
      // A file vocabulary that lists a word twice maps two columns to one model word: add them.
      HostCsr merged;
      merged.rows = m.rows;
      merged.cols = m.cols;
      merged.row_ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
      for (std::int64_t d = 0; d < m.rows; ++d) {
        const std::int64_t first = merged.nnz();
        for (std::int64_t j = m.row_ptr[d]; j < m.row_ptr[d + 1]; ++j) {
          if (merged.nnz() > first && merged.col_idx.back() == m.col_idx[j]) {
            merged.vals.back() += m.vals[j];
          } else {
            merged.col_idx.push_back(m.col_idx[j]);
            merged.vals.push_back(m.vals[j]);
          }
        }
        merged.row_ptr[d + 1] = merged.nnz();
      }
      m = std::move(merged);
      log_info() << input << ": its vocabulary differs from " << owners
                 << "; counts matched to " << owners << " words by name ("
                 << static_cast<std::int64_t>(dropped) << " tokens of words " << owner
                 << " does not have dropped)";
      c.counts = std::move(m);
    } else {
      if (c.counts.cols > words)
        throw InputError(input, 0,
                         "has " + std::to_string(c.counts.cols) + " words but " + owner +
                             " has " + std::to_string(words));
      if (!c.vocab.empty() && vocab.empty())
        log_warn() << input << ": " << owner
                   << " has no vocabulary to match this file's against; its word ids are taken "
                   << "as " << owners;
      else if (c.vocab.empty() && c.counts.cols < words)
        // Word ids without names: fine when the file is a part of the training corpus (a header
        // that counts only the words it uses), wrong when it comes from another vocabulary.
        log_info() << input << ": " << c.counts.cols << " words, " << owner << " " << words
                   << "; its word ids are taken as " << owners << " first " << c.counts.cols;
      c.counts.cols = words;
    }
    c.vocab = vocab;
  }
  if (const std::int64_t empty = empty_rows(c.counts); empty > 0)
    log_warn() << input << ": " << empty << " of " << c.counts.rows << " documents have no word of "
               << owners << " vocabulary (or none at all): there is nothing in them to fit or "
               << "score";
  return c;
}

DocumentSplit split_documents(std::int64_t docs, double heldout_frac, std::uint64_t seed) {
  FK_CHECK(heldout_frac >= 0 && heldout_frac < 1,
           "held-out fraction must be in [0, 1), got " << heldout_frac);
  std::int64_t n =
      static_cast<std::int64_t>(std::llround(heldout_frac * static_cast<double>(docs)));
  if (heldout_frac > 0 && docs > 1) n = std::max<std::int64_t>(n, 1);
  n = std::min(n, docs - 1);
  std::vector<std::int64_t> order(static_cast<std::size_t>(docs));
  std::iota(order.begin(), order.end(), 0);
  // Partial Fisher-Yates: the first n positions become a uniform sample.
  Rng rng = Rng(seed).split(0x4f1d);  // a stream of its own: other uses of --seed do not shift it
  for (std::int64_t i = 0; i < n; ++i) {
    const auto j = i + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(docs - i)));
    std::swap(order[i], order[j]);
  }
  DocumentSplit s;
  s.heldout.assign(order.begin(), order.begin() + std::max<std::int64_t>(n, 0));
  std::sort(s.heldout.begin(), s.heldout.end());
  std::vector<char> out(static_cast<std::size_t>(docs), 0);
  for (std::int64_t d : s.heldout) out[d] = 1;
  for (std::int64_t d = 0; d < docs; ++d)
    if (!out[d]) s.train.push_back(d);
  return s;
}

HostCsr select_rows(const HostCsr& m, const std::vector<std::int64_t>& rows) {
  HostCsr out;
  out.rows = static_cast<std::int64_t>(rows.size());
  out.cols = m.cols;
  out.row_ptr.assign(rows.size() + 1, 0);
  std::int64_t nnz = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    FK_CHECK(rows[i] >= 0 && rows[i] < m.rows, "row " << rows[i] << " out of range");
    nnz += m.row_ptr[rows[i] + 1] - m.row_ptr[rows[i]];
    out.row_ptr[i + 1] = nnz;
  }
  out.col_idx.resize(static_cast<std::size_t>(nnz));
  out.vals.resize(static_cast<std::size_t>(nnz));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::int64_t b = m.row_ptr[rows[i]], e = m.row_ptr[rows[i] + 1];
    std::copy(m.col_idx.begin() + b, m.col_idx.begin() + e, out.col_idx.begin() + out.row_ptr[i]);
    std::copy(m.vals.begin() + b, m.vals.begin() + e, out.vals.begin() + out.row_ptr[i]);
  }
  return out;
}

void completion_halves(const HostCsr& docs, HostCsr& observed, HostCsr& scored) {
  for (HostCsr* h : {&observed, &scored}) {
    *h = HostCsr{};
    h->rows = docs.rows;
    h->cols = docs.cols;
    h->row_ptr.assign(static_cast<std::size_t>(docs.rows) + 1, 0);
  }
  for (std::int64_t i = 0; i < docs.rows; ++i) {
    double position = 0;  // tokens of this document already dealt
    for (std::int64_t j = docs.row_ptr[i]; j < docs.row_ptr[i + 1]; ++j) {
      const double c = docs.vals[j];
      double first;
      if (c == std::floor(c)) {
        // Positions position .. position+c-1; the even ones are observed.
        const auto p = static_cast<std::int64_t>(position), n = static_cast<std::int64_t>(c);
        first = static_cast<double>((n + (p % 2 == 0 ? 1 : 0)) / 2);
      } else {
        first = c / 2;
      }
      position += c;
      const double second = c - first;
      if (first > 0) {
        observed.col_idx.push_back(docs.col_idx[j]);
        observed.vals.push_back(static_cast<float>(first));
      }
      if (second > 0) {
        scored.col_idx.push_back(docs.col_idx[j]);
        scored.vals.push_back(static_cast<float>(second));
      }
    }
    observed.row_ptr[i + 1] = observed.nnz();
    scored.row_ptr[i + 1] = scored.nnz();
  }
}

LocalBatch make_local_batch(const HostCsr& docs, std::int64_t begin, std::int64_t end) {
  FK_CHECK(0 <= begin && begin <= end && end <= docs.rows,
           "bad batch range " << begin << ".." << end);
  LocalBatch b;
  b.first_doc = begin;
  const std::int64_t j0 = docs.row_ptr[begin], j1 = docs.row_ptr[end];
  b.words.assign(docs.col_idx.begin() + j0, docs.col_idx.begin() + j1);
  std::sort(b.words.begin(), b.words.end());
  b.words.erase(std::unique(b.words.begin(), b.words.end()), b.words.end());
  b.counts.rows = end - begin;
  b.counts.cols = static_cast<std::int64_t>(b.words.size());
  b.counts.row_ptr.resize(static_cast<std::size_t>(end - begin) + 1);
  for (std::int64_t i = begin; i <= end; ++i) b.counts.row_ptr[i - begin] = docs.row_ptr[i] - j0;
  b.counts.col_idx.resize(static_cast<std::size_t>(j1 - j0));
  b.counts.vals.assign(docs.vals.begin() + j0, docs.vals.begin() + j1);
  for (std::int64_t j = j0; j < j1; ++j) {
    const auto it = std::lower_bound(b.words.begin(), b.words.end(), docs.col_idx[j]);
    b.counts.col_idx[j - j0] = static_cast<std::int32_t>(it - b.words.begin());
    b.tokens += docs.vals[j];
  }
  return b;
}

std::vector<LocalBatch> make_batches(const HostCsr& docs, std::int64_t batch_size) {
  if (batch_size <= 0) batch_size = std::max<std::int64_t>(docs.rows, 1);
  std::vector<LocalBatch> out;
  for (std::int64_t b = 0; b < docs.rows; b += batch_size)
    out.push_back(make_local_batch(docs, b, std::min(docs.rows, b + batch_size)));
  return out;
}

double total_tokens(const HostCsr& m) {
  double t = 0;
  for (float v : m.vals) t += v;
  return t;
}

}  // namespace fk::lda
