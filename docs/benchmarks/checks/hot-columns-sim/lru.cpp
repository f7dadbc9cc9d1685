#include <algorithm>
#include <cstdio>
#include <list>
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
    if (cap == 0) return false;
    auto it = pos.find(c);
    if (it != pos.end()) { order.splice(order.begin(), order, it->second); return true; }
    order.push_front(c); pos[c] = order.begin();
    if (order.size() > cap) { pos.erase(order.back()); order.pop_back(); }
    return false;
  }
};
int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    std::string x = argv[a];
    HostCsr s;
    auto lda = gen::lda_preset_names();
    if (std::find(lda.begin(), lda.end(), x) != lda.end()) s = gen::generate_lda_corpus(gen::lda_preset(x)).counts;
    else s = gen::generate_ratings(gen::ratings_preset(x)).ratings.to_csr();
    std::vector<long> cnt(s.cols);
    for (auto c : s.col_idx) cnt[c]++;
    std::vector<int> order(s.cols); for (int i = 0; i < s.cols; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int p, int q) { return cnt[p] > cnt[q]; });
    std::vector<int> rank(s.cols); for (int i = 0; i < s.cols; ++i) rank[order[i]] = i;
    for (int K : {32, 128, 512}) {
      const long row = 4L * K;
      // baseline: all of L1 (220 KB) as LRU; staged: S KB of hot rows in smem, rest LRU
      for (int smem_kb : {0, 64, 112, 200}) {
        long H = smem_kb * 1024L / row; long l1 = (smem_kb == 0 ? 220 : std::max(16, 228 - smem_kb)) * 1024L / row;
        long hit = 0, tot = 0;
        for (int start : {1000, (int)(s.rows / 3), (int)(2 * s.rows / 3)}) {
          Lru lru{(size_t)l1};
          for (long r = start; r < start + 3000 && r < s.rows; ++r)
            for (long j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
              int c = s.col_idx[j]; ++tot;
              if (rank[c] < H) { ++hit; continue; }
              hit += lru.touch(c);
            }
        }
        std::printf("%s K=%d smem %dKB (H=%ld, L1 %ld rows): on-chip share %.3f\n", x.c_str(), K, smem_kb, H, l1, double(hit) / tot);
      }
    }
  }
}
