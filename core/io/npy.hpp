#pragma once
// NumPy .npy files (format version 1.0, little-endian, C order): 2-D float32, float64 and int32
// matrices, and 1-D vectors. Written atomically. The reader checks magic, header, dtype, order and
// that the file holds exactly the bytes the shape says.
#include <cstdint>
#include <string>
#include <vector>

#include "core/dense.hpp"

namespace fk::io {

void write_npy(const std::string& path, const HostDense<float>& m);
void write_npy(const std::string& path, const HostDense<double>& m);
void write_npy(const std::string& path, const std::vector<float>& v);
void write_npy(const std::string& path, const std::vector<std::int32_t>& v);

HostDense<float> read_npy_f32(const std::string& path);  // 2-D float32 (a 1-D array reads as n x 1)

}  // namespace fk::io
