// Host model: share of B-row gathers an SM's L1 (LRU of B rows) serves when the SM walks a
// contiguous run of rows, in the matrix's own row order against rows grouped by topic.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <list>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>
#include "core/csr.hpp"
#include "core/generate/lda_corpus.hpp"
#include "core/generate/ratings.hpp"
using namespace fk;
struct Lru {
  size_t cap; std::list<int> order; std::unordered_map<int, std::list<int>::iterator> pos;
  bool touch(int c) {
    auto it = pos.find(c);
    if (it != pos.end()) { order.splice(order.begin(), order, it->second); return true; }
    order.push_front(c); pos[c] = order.begin();
    if (order.size() > cap) { pos.erase(order.back()); order.pop_back(); }
    return false;
  }
};
double share(const HostCsr& s, const std::vector<int>& perm, int K) {
  long cap = 200 * 1024L / (4L * K), hit = 0, tot = 0;
  for (long start : {1000L, s.rows / 3, 2 * s.rows / 3}) {
    Lru lru{(size_t)cap};
    for (long i = start; i < start + 3000 && i < s.rows; ++i) {
      long r = perm[i];
      for (long j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) { ++tot; hit += lru.touch(s.col_idx[j]); }
    }
  }
  return double(hit) / tot;
}
int main() {
  gen::GeneratedCorpus g = gen::generate_lda_corpus(gen::lda_preset("nytimes"));
  const HostCsr& s = g.counts;
  const int T = g.topics.rows();
  std::printf("nytimes %ld x %ld nnz %ld topics %d\n", (long)s.rows, (long)s.cols, (long)s.nnz(), T);
  std::vector<int> id(s.rows); std::iota(id.begin(), id.end(), 0);
  // oracle: each document's most likely topic under the true beta (sum of log beta over its tokens)
  std::vector<int> topic(s.rows);
#pragma omp parallel for
  for (long r = 0; r < s.rows; ++r) {
    int best = 0; double bv = -1e300;
    for (int t = 0; t < T; ++t) {
      double v = 0;
      for (long j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) v += s.vals[j] * std::log(g.topics(t, s.col_idx[j]) + 1e-12);
      if (v > bv) { bv = v; best = t; }
    }
    topic[r] = best;
  }
  std::vector<int> by_topic = id;
  std::stable_sort(by_topic.begin(), by_topic.end(), [&](int a, int b) { return topic[a] < topic[b]; });
  for (int K : {32, 128, 256})
    std::printf("K=%d own order %.3f  by true topic %.3f\n", K, share(s, id, K), share(s, by_topic, K));
}
