#pragma once
// Matrix Market reader and writer.
// Reads "coordinate" (real, integer, pattern; general, symmetric or skew-symmetric — symmetric
// files store one triangle and are expanded, the diagonal kept once; skew-symmetric mirrors with
// the sign flipped) and "array" (real, integer; general), plain or gzip (detected by content).
// Streaming and validating: the size line is checked against what the file size could hold before
// anything is reserved, and dimensions must stay below 2^31 and be plausible for the file (see
// detail::max_dimension in core/io/parse.hpp); every malformed line, index out of range, NaN/inf
// or float-overflowing value, duplicate entry (also an (i, j) and (j, i) pair in a symmetric
// file), or count that disagrees with the size line is one fk::InputError "file:line: what".
// Values are stored as float (integer values above 2^24 are rounded). Blank lines and '%'
// comment lines are skipped anywhere. Peak memory of a read: about 12 bytes per stored entry when
// the entries come in row order, 16 otherwise (read_matrix_market sorts them into the CSR one
// array at a time, read_matrix_market_coo's duplicate search groups the columns by row).
#include <string>

#include "core/csr.hpp"
#include "core/dense.hpp"

namespace fk::io {

// Coordinate file as COO (1-based indices in the file become 0-based). Pattern files get value 1.
HostCoo read_matrix_market_coo(const std::string& path);
// Coordinate file as CSR (rows in file order within a row).
HostCsr read_matrix_market(const std::string& path);
// Array (dense) file, column-major in the file, returned row-major.
HostDense<float> read_matrix_market_array(const std::string& path);

// Writes "coordinate real general" with 1-based indices, or "coordinate pattern general" when `m`
// has entries but no values (atomically).
void write_matrix_market(const std::string& path, const HostCsr& m);
// Writes "array real general" (atomically).
void write_matrix_market_array(const std::string& path, const HostDense<float>& m);

}  // namespace fk::io
