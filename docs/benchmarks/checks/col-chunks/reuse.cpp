#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include "core/csr.hpp"
#include "core/generate/lda_corpus.hpp"
#include "core/generate/ratings.hpp"
using namespace fk;
int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    std::string x = argv[a];
    HostCsr s;
    auto lda = gen::lda_preset_names();
    if (std::find(lda.begin(), lda.end(), x) != lda.end()) s = gen::generate_lda_corpus(gen::lda_preset(x)).counts;
    else s = gen::generate_ratings(gen::ratings_preset(x)).ratings.to_csr();
    std::printf("%s: %ld x %ld nnz %zu\n", x.c_str(), (long)s.rows, (long)s.cols, s.col_idx.size());
    std::vector<int> seen(s.cols, -1);
    for (int P : {128, 256, 512, 1024, 2048}) {
      long distinct = 0, nnz = 0; long segs = 0; int id = 0;
      for (long r0 = 0; r0 < s.rows; r0 += P, ++id) {
        for (long r = r0; r < std::min<long>(r0 + P, s.rows); ++r)
          for (long j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
            int c = s.col_idx[j]; ++nnz;
            if (seen[c] != id + P * 1000000) { seen[c] = id + P * 1000000; ++distinct; }
          }
      }
      std::printf("  P=%d reuse %.2f distinct/panel %.0f\n", P, double(nnz) / distinct, double(distinct) / id);
    }
  }
}
