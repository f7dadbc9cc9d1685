// read_peak: reads one input file with one of the core/io readers and nothing else, so that
// `/usr/bin/time -v read_peak ...` gives the reader's own peak memory (docs/benchmarks/memory.md).
// Not part of the test suite.
//
//   read_peak uci DOCWORD [VOCAB] | mtx FILE | mtx-coo FILE | ratings FILE
#include <cstdio>
#include <cstring>
#include <string>

#include "core/io/matrix_market.hpp"
#include "core/io/ratings.hpp"
#include "core/io/uci.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: read_peak uci DOCWORD [VOCAB] | mtx FILE | mtx-coo FILE | "
                 "ratings FILE\n");
    return 2;
  }
  const std::string kind = argv[1], path = argv[2];
  try {
    long long rows = 0, cols = 0, nnz = 0;
    if (kind == "uci") {
      const fk::io::Corpus c = fk::io::read_uci(path, argc > 3 ? argv[3] : "");
      rows = c.counts.rows, cols = c.counts.cols, nnz = c.counts.nnz();
    } else if (kind == "mtx") {
      const fk::HostCsr m = fk::io::read_matrix_market(path);
      rows = m.rows, cols = m.cols, nnz = m.nnz();
    } else if (kind == "mtx-coo") {
      const fk::HostCoo m = fk::io::read_matrix_market_coo(path);
      rows = m.rows, cols = m.cols, nnz = m.nnz();
    } else if (kind == "ratings") {
      const fk::io::Ratings r = fk::io::read_ratings(path);
      rows = r.users(), cols = r.items(), nnz = r.size();
    } else {
      std::fprintf(stderr, "read_peak: unknown kind '%s'\n", kind.c_str());
      return 2;
    }
    std::printf("%s: %lld x %lld, %lld entries\n", path.c_str(), rows, cols, nnz);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "read_peak: %s\n", e.what());
    return 1;
  }
  return 0;
}
