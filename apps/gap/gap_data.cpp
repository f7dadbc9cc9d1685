#include "apps/gap/gap_data.hpp"

#include <math.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "apps/common/options.hpp"
#include "apps/lda/corpus.hpp"
#include "core/error.hpp"
#include "core/io/ratings.hpp"
#include "core/io/uci.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "core/timer.hpp"

namespace fk::gap {
namespace {

constexpr std::uint64_t kThinStream = 0x7417;  // the thinning's random stream of --seed

double log_gamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);  // no global signgam: thread-safe
}

double row_sum(const HostCsr& m, std::int64_t d) {
  double s = 0;
  for (std::int64_t j = m.row_ptr[d]; j < m.row_ptr[d + 1]; ++j) s += m.vals[j];
  return s;
}

// Ratings (user item rating lines) as users x items counts; the item ids become the vocabulary.
lda::Corpus read_ratings_counts(const std::string& path) {
  const io::Ratings r = io::read_ratings(path, [](float v) {
    return v >= 0 && std::isfinite(v) && v <= static_cast<float>(io::kMaxExactCount)
               ? std::string()
               : "fk-gap reads ratings as counts, which must be non-negative and at most 2^24 "
                 "(exact as a float); found " +
                     app::format_double(v);
  });
  lda::Corpus c;
  HostCsr m = r.to_csr();
  HostCsr out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.row_ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
  for (std::int64_t i = 0; i < m.rows; ++i) {
    for (std::int64_t j = m.row_ptr[i]; j < m.row_ptr[i + 1]; ++j) {
      const float v = m.vals[j];
      if (v > 0) {
        out.col_idx.push_back(m.col_idx[j]);
        out.vals.push_back(v);
      }
    }
    out.row_ptr[i + 1] = out.nnz();
  }
  sort_columns(out);
  c.counts = std::move(out);
  c.vocab = r.item_ids;
  c.doc_ids = r.user_ids;  // rows in the order users first appear, not sorted
  c.source = "ratings " + path + " as users x items counts";
  c.files.push_back(path);
  return c;
}

// `format`, or for auto what a file's content says (a directory stays auto: the corpus reader's).
io::InputFormat file_format(const std::string& path, io::InputFormat format) {
  if (format != io::InputFormat::kAuto) return format;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path, 0, "no such file");
  return std::filesystem::is_directory(path, ec) ? format : io::detect_format(path);
}

lda::Corpus read_input(const GapOptions& opt, const std::string& input, io::InputFormat format) {
  if (input.rfind("gen:", 0) != 0) {
    const io::InputFormat f = file_format(input, format);
    // --vocab names a count matrix's columns by position: ratings went on under their item ids
    // with the file unread, and text's own words were renamed in the order they were kept.
    if (!opt.vocab.empty() && (f == io::InputFormat::kRatings || f == io::InputFormat::kText))
      app::usage_fail("vocab", std::string("applies to UCI, Matrix Market and gen: input; ") +
                                   (f == io::InputFormat::kText
                                        ? "plain text's words are its vocabulary"
                                        : "a ratings file's items are named by their ids"));
    if (f == io::InputFormat::kRatings) {
      lda::Corpus c = read_ratings_counts(input);
      if (c.counts.rows == 0 || c.counts.nnz() == 0)
        throw InputError(input, 0, "no positive counts");
      return c;
    }
    if (f == io::InputFormat::kSmtx)
      throw InputError(input, 0, "a pattern-only .smtx file has no counts for fk-gap");
  }
  lda::TextOptions text;
  text.min_count = opt.min_count;
  text.max_df = opt.max_df;
  return lda::load_corpus(input, format, text, opt.vocab);
}

// Keeps the entries of `m` whose word has a training token and whose row has keep_row[d] != 0;
// adds the tokens it drops to `dropped`.
HostCsr scorable(const HostCsr& m, const std::vector<double>& word_count,
                 const std::vector<char>& keep_row, double& dropped) {
  HostCsr out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.row_ptr.assign(static_cast<std::size_t>(m.rows) + 1, 0);
  for (std::int64_t d = 0; d < m.rows; ++d) {
    for (std::int64_t j = m.row_ptr[d]; j < m.row_ptr[d + 1]; ++j) {
      if (keep_row[d] && word_count[m.col_idx[j]] > 0) {
        out.col_idx.push_back(m.col_idx[j]);
        out.vals.push_back(m.vals[j]);
      } else {
        dropped += m.vals[j];
      }
    }
    out.row_ptr[d + 1] = out.nnz();
  }
  return out;
}

// Σ f log(scale · len_d · c_w / T) over the entries of m.
double unigram_log_rate(const HostCsr& m, const std::vector<double>& len,
                        const std::vector<double>& word_count, double total, double scale) {
  double s = 0;
  for (std::int64_t d = 0; d < m.rows; ++d)
    for (std::int64_t j = m.row_ptr[d]; j < m.row_ptr[d + 1]; ++j)
      s += double(m.vals[j]) * std::log(scale * len[d] * word_count[m.col_idx[j]] / total);
  return s;
}

}  // namespace

double log_factorial_sum(const HostCsr& m) {
  double s = 0;
  for (float v : m.vals) s += log_gamma(double(v) + 1.0);
  return s;
}

void thin_counts(const HostCsr& all, double p, std::uint64_t seed, HostCsr& train,
                 HostCsr& heldout) {
  FK_CHECK(p >= 0 && p < 1, "thinning probability must be in [0, 1), got " << p);
  FK_CHECK(static_cast<std::int64_t>(all.vals.size()) == all.nnz(), "counts without values");
  const std::int64_t n = all.nnz();
  std::vector<float> held(static_cast<std::size_t>(n), 0.0f);
  const Rng base = Rng(seed).split(kThinStream);
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t d = 0; d < all.rows; ++d) {
    Rng rng = base.split(static_cast<std::uint64_t>(d));
    for (std::int64_t j = all.row_ptr[d]; j < all.row_ptr[d + 1]; ++j) {
      const double v = all.vals[j];
      const double whole = std::floor(v);
      // Counts are below 2^24 (the readers' limit); per-token draws up to 1024 of them, so
      // a count of millions costs no more than a small one.
      double h = static_cast<double>(rng.binomial(static_cast<std::uint64_t>(whole), p));
      if (v > whole && rng.uniform() < p) h += v - whole;
      held[j] = static_cast<float>(h);
    }
  }
  for (HostCsr* m : {&train, &heldout}) {
    *m = HostCsr{};
    m->rows = all.rows;
    m->cols = all.cols;
    m->row_ptr.assign(static_cast<std::size_t>(all.rows) + 1, 0);
  }
  for (std::int64_t d = 0; d < all.rows; ++d) {
    for (std::int64_t j = all.row_ptr[d]; j < all.row_ptr[d + 1]; ++j) {
      const float h = held[j], t = all.vals[j] - held[j];
      if (t > 0) {
        train.col_idx.push_back(all.col_idx[j]);
        train.vals.push_back(t);
      }
      if (h > 0) {
        heldout.col_idx.push_back(all.col_idx[j]);
        heldout.vals.push_back(h);
      }
    }
    train.row_ptr[d + 1] = train.nnz();
    heldout.row_ptr[d + 1] = heldout.nnz();
  }
}

GapData prepare_gap_data(const GapOptions& opt, const std::string& input, io::InputFormat format,
                         std::uint64_t seed) {
  Stopwatch clock;
  lda::Corpus corpus = read_input(opt, input, format);
  GapData d;
  d.source = corpus.source;
  d.input_files = corpus.files;
  d.true_topics = std::move(corpus.true_topics);
  d.holdout_frac = opt.test.empty() ? opt.holdout_frac : 0.0;
  HostCsr held_all;
  double all_tokens = 0;  // before the thinning, for the messages about --holdout-frac
  for (float v : corpus.counts.vals) all_tokens += v;
  if (d.holdout_frac > 0) {
    thin_counts(corpus.counts, d.holdout_frac, seed, d.train, held_all);
  } else {
    d.train = std::move(corpus.counts);
  }
  const std::int64_t words = d.train.cols;
  std::vector<double> word_count(static_cast<std::size_t>(words), 0.0), len(d.train.rows, 0.0);
  for (std::int64_t r = 0; r < d.train.rows; ++r) {
    len[r] = row_sum(d.train, r);
    for (std::int64_t j = d.train.row_ptr[r]; j < d.train.row_ptr[r + 1]; ++j)
      word_count[d.train.col_idx[j]] += d.train.vals[j];
  }
  for (double l : len) d.train_tokens += l;
  // A thinning near 1 can hold every token out: said with the option (it was "no training
  // tokens", as of an empty input).
  if (d.train_tokens <= 0 && d.holdout_frac > 0 && all_tokens > 0)
    app::usage_fail("holdout-frac", app::format_double(d.holdout_frac) + " held out all " +
                                        app::format_double(all_tokens) + " tokens of " + input +
                                        ": none is left to train on (give a smaller fraction)");
  if (d.train_tokens <= 0) throw InputError(input, 0, "no training tokens");
  d.train_log_fact = log_factorial_sum(d.train);
  const double total = d.train_tokens;
  d.unigram_train_ll =
      (unigram_log_rate(d.train, len, word_count, total, 1.0) - total - d.train_log_fact) / total;

  if (d.holdout_frac > 0) {
    std::vector<char> keep(static_cast<std::size_t>(d.train.rows));
    for (std::int64_t r = 0; r < d.train.rows; ++r) keep[r] = len[r] > 0;
    if (held_all.nnz() == 0)
      log_warn() << "--holdout-frac " << app::format_double(d.holdout_frac) << " held out none of the "
                 << app::format_double(all_tokens) << " tokens of " << input
                 << ": no heldout_ll (give a larger fraction, or 0 for no held-out set)";
    d.heldout = scorable(held_all, word_count, keep, d.unscored_tokens);
    d.heldout_tokens = 0;
    for (float v : d.heldout.vals) d.heldout_tokens += v;
    d.heldout_log_fact = log_factorial_sum(d.heldout);
    if (d.heldout_tokens > 0) {
      const double ratio = d.holdout_frac / (1.0 - d.holdout_frac);
      d.unigram_heldout_ll = (unigram_log_rate(d.heldout, len, word_count, total, ratio) -
                              ratio * total - d.heldout_log_fact) /
                             d.heldout_tokens;
    }
  } else if (!opt.test.empty()) {
    // The shared corpus reader's message for ratings named fk-lda and not what to do instead.
    if (file_format(opt.test, format) == io::InputFormat::kRatings)
      throw InputError(opt.test, 0,
                       "--test takes documents x words counts in the training vocabulary (UCI, "
                       "Matrix Market or text), and this is ratings input; to score held-out "
                       "ratings as counts, give --holdout-frac instead");
    const lda::Corpus test = lda::load_corpus_in_vocab(opt.test, format, corpus.vocab, words,
                                                       lda::VocabOf::kTrainingCorpus);
    d.input_files.insert(d.input_files.end(), test.files.begin(), test.files.end());
    HostCsr observed, scored;
    lda::completion_halves(test.counts, observed, scored);
    std::vector<char> all_rows(static_cast<std::size_t>(observed.rows), 1);
    const HostCsr obs_seen = scorable(observed, word_count, all_rows, d.unscored_tokens);
    const HostCsr scored_seen = scorable(scored, word_count, all_rows, d.unscored_tokens);
    // Documents whose observed half has no training word are left out as a whole: the model
    // would score them at the prior's rates and the baseline at none.
    std::vector<std::int64_t> rows;
    std::vector<double> obs_len;
    double obs_total = 0;
    for (std::int64_t r = 0; r < observed.rows; ++r) {
      const double len = row_sum(obs_seen, r);
      if (len > 0) {
        rows.push_back(r);
        obs_len.push_back(len);
        obs_total += len;
      } else {
        d.unscored_tokens += row_sum(scored_seen, r);
      }
    }
    d.test_observed = lda::select_rows(obs_seen, rows);
    d.test_scored = lda::select_rows(scored_seen, rows);
    for (float v : d.test_scored.vals) d.test_tokens += v;
    d.test_log_fact = log_factorial_sum(d.test_scored);
    if (d.test_tokens > 0)
      d.unigram_heldout_ll = (unigram_log_rate(d.test_scored, obs_len, word_count, total, 1.0) -
                              obs_total - d.test_log_fact) /
                             d.test_tokens;
  }
  d.vocab = std::move(corpus.vocab);
  d.doc_ids = std::move(corpus.doc_ids);
  std::ostringstream os;
  os << "data: " << d.source << "; " << d.train.rows << " documents x " << words << " words, "
     << static_cast<std::int64_t>(d.train_tokens) << " training tokens (" << d.train.nnz()
     << " nonzeros)";
  if (d.holdout_frac > 0)
    os << "; " << static_cast<std::int64_t>(d.heldout_tokens)
       << " held-out tokens (thinning p = " << d.holdout_frac << ")";
  if (!opt.test.empty())
    os << "; test " << opt.test << ": " << d.test_observed.rows << " documents, "
       << static_cast<std::int64_t>(d.test_tokens) << " scored tokens";
  if (d.unscored_tokens > 0)
    os << " (" << static_cast<std::int64_t>(d.unscored_tokens)
       << " tokens of words or documents without training tokens not scored)";
  os << "; read in " << clock.seconds() << " s";
  log_info() << os.str();
  // The prior Gamma(a, b) adds a - 1 pseudo-counts to every factor of every document, K (a - 1)
  // a document: documents with fewer counts are fit by the prior more than by their counts, and
  // counts far below whole tokens were so without a word. A generated 300 x 500 corpus at K = 20,
  // a = 1.1 (2 pseudo-counts): at 1/10 of its counts (7.1 a document) GaP beat the unigram
  // baseline by 0.27 nats a token, at 1/100 (0.71) fell 1.3 below it, and from 1e-10 on the model
  // was the prior's whatever the counts (the same objective) with train_ll -2.8e8 a token and
  // beyond. With a = 1 there is no such prior and the fit is the same at any scale.
  const double per_doc = d.train_tokens / static_cast<double>(d.train.rows);
  const double pseudo = opt.factors * (opt.a - 1);
  // Up to rounding: a - 1 carries a's binary error (1.1 - 1 is 0.10000000000000009), and counts
  // equal to the pseudo-counts were said to be "fewer than" them.
  if (per_doc < pseudo * (1 - 1e-12))
    log_warn() << input << ": the training counts average " << app::fmt("%.3g", per_doc)
               << " a document, fewer than the prior's " << app::fmt("%.3g", pseudo)
               << " pseudo-counts (--factors " << opt.factors << " x (--a "
               << app::format_double(opt.a)
               << " - 1)): the model will follow the prior more than the counts (GaP models counts "
                  "of tokens; scale them to whole tokens, or lower --factors or --a)";
  return d;
}

}  // namespace fk::gap
