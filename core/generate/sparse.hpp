#pragma once
// Seeded synthetic sparse matrices for kernel tests and benchmarks.
#include <cstdint>
#include <optional>
#include <string>

#include "core/csr.hpp"

namespace fk::gen {

// Row lengths are apportioned to exactly nnz (each within 1 of its share); `param` by kind, with
// its default when not given:
enum class SparseKind {
  kUniform,         // Poisson row lengths, each entry's column uniform. Takes no param.
  kPowerLaw,        // row lengths ∝ rank^-param (a few huge rows, capped at cols), columns drawn
                    // with popularity ∝ rank^-param; ranks shuffled over ids. param in [0, 5],
                    // default 1; 0 gives equal row lengths and uniform columns.
  kBanded,          // entries uniform within a band of `param` columns (a whole number >= 1;
                    // odd; an even width w is w - 1) centred on the diagonal scaled to rows x
                    // cols, clipped at the edges. Default width 2 * ceil(nnz / rows) + 1. nnz
                    // beyond the band is an error.
  kBlockClustered,  // groups of `param` consecutive rows (a whole number in [1, rows]; default
                    // 32) share a column set of ceil(1.5 * nnz / rows) columns; 80% of a row's
                    // entries come from its set, the rest from the other columns (what ASpT's
                    // dense tiles exploit).
  kColumnVector,    // blocks of `param` consecutive rows (2, 4 or 8; default 4) share one column
                    // set, drawn uniformly, so the matrix is exactly param x 1 structured (what
                    // the vector encoding of core/vector_csr.hpp stores without padding). Block
                    // lengths are Poisson and apportioned like rows; rows and nnz must be
                    // multiples of param.
};

struct SparseSpec {
  SparseKind kind = SparseKind::kUniform;
  std::int64_t rows = 1000, cols = 1000, nnz = 10000;
  // Per kind: Zipf exponent, band width, rows per cluster or vector. Empty: the kind's default
  // (0 is a value, not "not given": powerlaw's exponent 0 is uniform).
  std::optional<double> param;
  std::uint64_t seed = 1;
};

// Parses "KIND:rows=R,cols=C,nnz=Z[,param=P][,seed=S]" with KIND one of uniform, powerlaw,
// banded, clustered, vector (keys in any order; counts may be written 1e6). Throws fk::Error
// naming the bad part. to_string gives the canonical form, which parses back to the same spec.
SparseSpec parse_sparse_spec(const std::string& text);
std::string to_string(const SparseSpec& spec);

// Values uniform in [0.5, 1.5); columns sorted within rows, no duplicates; nnz is met exactly.
// Throws fk::Error for a spec out of range. Deterministic for a given spec on any machine and any
// OpenMP thread count (each row, and each cluster's column set, has its own random stream).
HostCsr generate_sparse(const SparseSpec& spec);

}  // namespace fk::gen
