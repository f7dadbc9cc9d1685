#pragma once
// Seeded synthetic sparse matrices for kernel tests and benchmarks.
#include <cstdint>
#include <string>

#include "core/csr.hpp"

namespace fk::gen {

enum class SparseKind {
  kUniform,         // each entry's column uniform
  kPowerLaw,        // row lengths follow a power law (a few huge rows), columns Zipf-skewed
  kBanded,          // entries within a band around the (scaled) diagonal
  kBlockClustered,  // rows in groups sharing column clusters (what ASpT tiles exploit)
};

struct SparseSpec {
  SparseKind kind = SparseKind::kUniform;
  std::int64_t rows = 1000, cols = 1000, nnz = 10000;
  double param = 0;  // kind-specific: power-law exponent, band width, cluster size (0 = default)
  std::uint64_t seed = 1;
};

// Parses "KIND:rows=R,cols=C,nnz=Z[,param=P][,seed=S]" with KIND one of uniform, powerlaw,
// banded, clustered. Throws fk::Error naming the bad part.
SparseSpec parse_sparse_spec(const std::string& text);
std::string to_string(const SparseSpec& spec);

// Values uniform in [0.5, 1.5); columns sorted within rows, no duplicates. nnz is met within 1%.
HostCsr generate_sparse(const SparseSpec& spec);

}  // namespace fk::gen
