#pragma once
// Matrix Market reader and writer.
// Reads "coordinate" (real, integer, pattern; general or symmetric — symmetric files store one
// triangle and are expanded) and "array" (real, integer; general). Streaming and validating:
// header sizes are checked against the body before any large allocation is trusted; every
// malformed line, index out of range, NaN/inf value, duplicate entry, or count that disagrees with
// the header is an InputError with file and line.
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

// Writes "coordinate real general" with 1-based indices (atomically).
void write_matrix_market(const std::string& path, const HostCsr& m);
// Writes "array real general" (atomically).
void write_matrix_market_array(const std::string& path, const HostDense<float>& m);

}  // namespace fk::io
