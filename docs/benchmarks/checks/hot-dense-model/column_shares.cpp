// The share of the generated nytimes corpus's nonzeros in its H most frequent columns, and those
// columns' densities (docs/benchmarks/checks/hot-dense-model/README.md). Built against a CPU build:
//   g++ -O2 -fopenmp -std=c++20 -I. docs/benchmarks/checks/hot-dense-model/column_shares.cpp \
//       build/cpu/core/libfk_core.a -o /tmp/column_shares   (from the repository root)
#include <algorithm>
#include <cstdio>
#include <vector>
#include "core/generate/lda_corpus.hpp"
using namespace fk;
int main() {
  auto c = gen::generate_lda_corpus(gen::lda_preset("nytimes"));
  const HostCsr& s = c.counts;
  std::vector<long> cnt(s.cols, 0);
  for (int j : s.col_idx) cnt[j]++;
  std::sort(cnt.begin(), cnt.end(), std::greater<long>());
  double nnz = s.nnz(), cum = 0;
  int hs[] = {50,100,200,400,800,1600,3200,6400,12800};
  int hi = 0;
  for (long h = 0; h < (long)cnt.size() && hi < 9; ++h) {
    cum += cnt[h];
    if (h + 1 == hs[hi]) {
      printf("top %5d: share %.3f  density of col %d: %.4f  avg density %.4f\n", hs[hi], cum / nnz,
             hs[hi], cnt[h] / double(s.rows), cum / (double(s.rows) * (h + 1)));
      ++hi;
    }
  }
}
