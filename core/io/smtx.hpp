#pragma once
// DLMC .smtx: line 1 "nrows, ncols, nnz"; line 2 the nrows+1 CSR row offsets; line 3 the nnz column
// indices (0-based). Pattern only: the result has no values (vals empty). Offsets must start at 0,
// never decrease and end at nnz; indices must be in range.
#include <string>

#include "core/csr.hpp"

namespace fk::io {

HostCsr read_smtx(const std::string& path);
void write_smtx(const std::string& path, const HostCsr& m);

}  // namespace fk::io
