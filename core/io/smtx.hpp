#pragma once
// DLMC .smtx: line 1 "nrows, ncols, nnz"; line 2 the nrows+1 CSR row offsets; line 3 the nnz column
// indices (0-based), all blank-separated. Pattern only: the result has no values (vals empty).
// Offsets must start at 0, never decrease and end at nnz; indices must be in range and not repeat
// within a row; nothing but blank lines may follow line 3 (which an empty matrix may omit). Lines 2
// and 3 are read in 64 KiB pieces, so memory is the result's, not a copy of the line. Errors are
// fk::InputErrors "file:line: what"; gzip is accepted. The writer uses the same layout.
#include <string>

#include "core/csr.hpp"

namespace fk::io {

HostCsr read_smtx(const std::string& path);
void write_smtx(const std::string& path, const HostCsr& m);

}  // namespace fk::io
