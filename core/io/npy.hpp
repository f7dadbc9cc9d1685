#pragma once
// NumPy .npy files. Writer: format version 1.0, little-endian, C order ('fortran_order': False),
// dtypes '<f4', '<f8', '<i4'; 2-D matrices and 1-D vectors; the header is padded with spaces so the
// data starts at a multiple of 64 bytes (as NumPy itself does); written atomically.
// Reader: versions 1.0, 2.0 and 3.0, C or Fortran order, 1-D (read as n x 1) or 2-D; it checks the
// magic, the header dict, the dtype, and that the file holds exactly the bytes the shape says
// before allocating anything. Bad files are fk::InputErrors naming the file (line 0: binary).
// The host must be little-endian (checked at compile time).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/dense.hpp"

namespace fk::io {

void write_npy(const std::string& path, const HostDense<float>& m);
void write_npy(const std::string& path, const HostDense<double>& m);
void write_npy(const std::string& path, const HostDense<std::int32_t>& m);
void write_npy(const std::string& path, const std::vector<float>& v);
void write_npy(const std::string& path, const std::vector<std::int32_t>& v);
// The same file as write_npy of a rows x cols int32 matrix, whose rows fill(first, n, out) writes
// n at a time into `out` (n x cols, row-major, first ascending from 0): a large matrix made only
// to be written (fk-als's training pairs, 8 bytes a rating) need not be held whole.
void write_npy_i32_rows(const std::string& path, std::int64_t rows, std::int64_t cols,
                        const std::function<void(std::int64_t, std::int64_t, std::int32_t*)>& fill);

// What a .npy header says.
struct NpyHeader {
  int major_version = 1;
  std::string descr;  // e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::int64_t data_offset = 0;  // bytes before the data
};
NpyHeader read_npy_header(const std::string& path);

HostDense<float> read_npy_f32(const std::string& path);  // 2-D float32 (a 1-D array reads as n x 1)
HostDense<double> read_npy_f64(const std::string& path);        // '<f8', same shapes
HostDense<std::int32_t> read_npy_i32(const std::string& path);  // '<i4', same shapes

}  // namespace fk::io
