#pragma once
// Column-vector sparse encoding (Chen et al., SC'21): the rows of S are grouped into block rows of
// V consecutive rows (V in {1, 2, 4, 8}; the last block row may be partial), and each block row
// stores a list of columns, one V x 1 vector per column, with V values each. A general CSR matrix
// is encoded by taking, per block row, the union of its rows' columns; positions of that union
// that a row does not have are stored as explicit zeros ("padding"). A matrix whose nonzeros come
// in aligned vertical runs of V has no padding.
//
// `source` maps every stored value back to the CSR matrix it came from, so values given in S's CSR
// order can be laid out again each iteration (apps recompute them) and results computed at the
// vector pattern can be returned in S's order.
#include <cstdint>
#include <vector>

#include "core/csr.hpp"

namespace fk {

struct HostVectorCsr {
  int v = 1;                  // rows per vector
  std::int64_t rows = 0;      // M, rows of the encoded matrix (not a multiple of v in general)
  std::int64_t cols = 0;      // N
  std::vector<std::int64_t> block_ptr{0};  // block_rows() + 1 offsets into col_idx
  std::vector<std::int32_t> col_idx;       // one column per vector, ascending within a block row
  std::vector<float> vals;                 // v values per vector: vals[j * v + r] is row
                                           // block * v + r of vector j (zero for padding and for
                                           // rows past M in the last block row)
  std::vector<std::int64_t> source;        // per stored value (same index as vals): the position
                                           // of that entry in the CSR matrix, or -1 for padding

  std::int64_t block_rows() const { return (rows + v - 1) / v; }
  std::int64_t vectors() const { return static_cast<std::int64_t>(col_idx.size()); }
  std::int64_t stored() const { return vectors() * v; }  // stored values, padding included
};

struct VectorEncodingStats {
  std::int64_t nnz = 0;      // nonzeros of the CSR matrix
  std::int64_t stored = 0;   // values stored, padding included
  // (stored - nnz) / stored: the share of stored values that are padding (0 when stored is 0).
  double padding_ratio() const;
};

// Encodes `s` (host CSR, columns need not be sorted; duplicates are an error) with vector length
// v in {1, 2, 4, 8}. A pattern-only `s` (vals null) gives ones at its nonzeros. Throws fk::Error on
// a bad v.
HostVectorCsr to_vector_csr(const CsrView& s, int v);
VectorEncodingStats encoding_stats(const HostVectorCsr& e);

// Decodes back to CSR: the entries with source >= 0, each at its source position, so that
// to_csr(to_vector_csr(s, v)) reproduces s exactly (order, columns, values). The result has as many
// entries as the largest source + 1; it is an error if some position in between is missing.
HostCsr to_csr(const HostVectorCsr& e);

// The largest v in {8, 4, 2} whose encoding of `s` stores at most (1 + max_padding) x nnz values,
// or 1 when none does. max_padding = 0 asks for exact V x 1 structure.
int vector_length_of(const CsrView& s, double max_padding = 0.0);

}  // namespace fk
