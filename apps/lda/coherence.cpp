#include "apps/lda/coherence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <utility>
#include <vector>

#include "apps/common/output.hpp"
#include "apps/lda/lda_trainer.hpp"
#include "core/io/csv.hpp"
#include "core/log.hpp"
#include "core/timer.hpp"

namespace fk::lda {
namespace {

// Documents per chunk: one bitset row of a listed word is 8 KiB.
constexpr std::int64_t kChunkDocs = 65536;

double mean_of_finite(const std::vector<double>& v, int& undefined) {
  double sum = 0;
  int n = 0;
  for (double x : v) {
    if (std::isfinite(x)) {
      sum += x;
      ++n;
    }
  }
  undefined = static_cast<int>(v.size()) - n;
  return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

TopicCoherence topic_coherence(const std::vector<std::vector<std::int64_t>>& top_word_ids,
                               const std::vector<DocumentBlock>& docs) {
  // The distinct listed words get slots 0..U-1, so that the bitsets cover only them.
  std::int64_t max_word = -1;
  for (const auto& list : top_word_ids)
    for (std::int64_t w : list) max_word = std::max(max_word, w);
  for (const DocumentBlock& b : docs)
    max_word = std::max<std::int64_t>(
        max_word, b.words ? (b.words->empty() ? -1 : b.words->back()) : b.counts->cols - 1);
  std::vector<std::int32_t> slot_of(static_cast<std::size_t>(max_word + 1), -1);
  std::int32_t slots = 0;
  for (const auto& list : top_word_ids)
    for (std::int64_t w : list)
      if (slot_of[w] < 0) slot_of[w] = slots++;

  // Every (word i, earlier word j) pair of every list, as slots; a pair two topics share is
  // counted twice, which costs less than finding it.
  std::vector<std::pair<std::int32_t, std::int32_t>> pairs;
  for (const auto& list : top_word_ids)
    for (std::size_t i = 1; i < list.size(); ++i)
      for (std::size_t j = 0; j < i; ++j) pairs.emplace_back(slot_of[list[i]], slot_of[list[j]]);

  std::vector<std::int64_t> df(static_cast<std::size_t>(slots), 0);
  std::vector<std::int64_t> co(pairs.size(), 0);
  std::vector<std::uint64_t> bits;
  std::vector<std::int32_t> local_slot;
  std::int64_t documents = 0;
  for (const DocumentBlock& b : docs) {
    const HostCsr& m = *b.counts;
    documents += m.rows;
    local_slot.resize(static_cast<std::size_t>(m.cols));
    for (std::int64_t c = 0; c < m.cols; ++c)
      local_slot[c] = slot_of[b.words ? (*b.words)[c] : c];
    for (std::int64_t r0 = 0; r0 < m.rows; r0 += kChunkDocs) {
      const std::int64_t r1 = std::min(m.rows, r0 + kChunkDocs);
      const std::int64_t stride = (r1 - r0 + 63) / 64;  // 64-bit words per slot
      bits.assign(static_cast<std::size_t>(slots * stride), 0);
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::uint64_t bit = std::uint64_t{1} << ((r - r0) % 64);
        const std::int64_t word = (r - r0) / 64;
        for (std::int64_t p = m.row_ptr[r]; p < m.row_ptr[r + 1]; ++p) {
          const std::int32_t s = local_slot[m.col_idx[p]];
          if (s >= 0 && (m.vals.empty() || m.vals[p] > 0)) bits[s * stride + word] |= bit;
        }
      }
      for (std::int32_t s = 0; s < slots; ++s)
        for (std::int64_t k = 0; k < stride; ++k) df[s] += __builtin_popcountll(bits[s * stride + k]);
      const auto n_pairs = static_cast<std::int64_t>(pairs.size());
#pragma omp parallel for schedule(static) if (n_pairs * stride > (1 << 16))
      for (std::int64_t q = 0; q < n_pairs; ++q) {
        const std::uint64_t* a = &bits[pairs[q].first * stride];
        const std::uint64_t* c = &bits[pairs[q].second * stride];
        std::int64_t n = 0;
        for (std::int64_t k = 0; k < stride; ++k) n += __builtin_popcountll(a[k] & c[k]);
        co[q] += n;
      }
    }
  }

  TopicCoherence out;
  out.documents = documents;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double d = static_cast<double>(documents);
  std::size_t q = 0;
  for (const auto& list : top_word_ids) {
    out.words = std::max(out.words, static_cast<int>(list.size()));
    const std::size_t n_pairs = list.size() < 2 ? 0 : list.size() * (list.size() - 1) / 2;
    double umass = 0, npmi = 0;
    bool defined = n_pairs > 0;
    for (std::size_t e = q + n_pairs; q < e; ++q) {
      const auto di = static_cast<double>(df[pairs[q].first]);
      const auto dj = static_cast<double>(df[pairs[q].second]);
      const auto dij = static_cast<double>(co[q]);
      if (di == 0 || dj == 0) {
        defined = false;
        continue;
      }
      umass += std::log((dij + 1) / dj);
      if (dij == 0) {
        npmi += -1;
      } else if (dij == d) {
        npmi += 1;  // both words in every document: complete co-occurrence
      } else {
        const double pij = dij / d;
        npmi += std::log(pij / ((di / d) * (dj / d))) / -std::log(pij);
      }
    }
    out.umass.push_back(defined ? umass / static_cast<double>(n_pairs) : nan);
    out.npmi.push_back(defined ? npmi / static_cast<double>(n_pairs) : nan);
  }
  int undefined_npmi = 0;
  out.mean_umass = mean_of_finite(out.umass, out.undefined);
  out.mean_npmi = mean_of_finite(out.npmi, undefined_npmi);
  return out;
}

void write_coherence_csv(const std::string& path, const TopicCoherence& coherence,
                         const std::vector<std::vector<std::string>>& words,
                         const std::string& unit) {
  auto number = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", x);
    return std::isfinite(x) ? std::string(buf) : std::string();
  };
  io::CsvWriter csv(path, {unit, "umass", "npmi", "words"});
  for (std::size_t t = 0; t < coherence.umass.size(); ++t) {
    std::string joined;
    for (const std::string& w : words[t]) joined += (joined.empty() ? "" : " ") + w;
    csv.row({std::to_string(t), number(coherence.umass[t]), number(coherence.npmi[t]), joined});
  }
  csv.commit();
}

double top_words_bytes_per_topic(std::int64_t words, int top_words) {
  const double n = static_cast<double>(std::min<std::int64_t>(std::max(top_words, 0), words));
  const double c = std::min(n, double(kCoherenceMaxWords));
  const double files = n > 0 ? 64 + 48 * n : 0;
  const double coherence = c >= 2 ? 64 + 48 * c + 16 * (c * (c - 1) / 2) : 0;
  return std::max(files, coherence);
}

std::string coherence_scores(const TopicCoherence& c) {
  if (std::isnan(c.mean_umass) || std::isnan(c.mean_npmi))
    return "undefined (no topic has two top words in the documents)";
  char text[96];
  std::snprintf(text, sizeof text, "UMass %.4f, NPMI %.4f", c.mean_umass, c.mean_npmi);
  return text;
}

std::optional<TopicCoherence> score_topics(const HostDense<float>& lambda, int words,
                                           const std::vector<DocumentBlock>& docs,
                                           const std::vector<std::string>& vocab,
                                           const std::string& what, const std::string& csv_path,
                                           const std::string& unit) {
  const int n = std::min(words, kCoherenceMaxWords);
  if (n < 2) {
    if (!csv_path.empty()) app::remove_stale_output(csv_path);
    return std::nullopt;
  }
  Stopwatch clock;
  const std::vector<std::vector<std::int64_t>> ids = top_word_ids(lambda, n);
  TopicCoherence c = topic_coherence(ids, docs);
  log_info() << "topic coherence of " << what << ", top " << c.words << " words over "
             << c.documents << " documents: " << coherence_scores(c) << " (" << clock.seconds()
             << " s)";
  if (!csv_path.empty())
    write_coherence_csv(csv_path, c, word_names(ids, vocab, lambda.rows()), unit);
  return c;
}

}  // namespace fk::lda
