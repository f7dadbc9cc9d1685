#pragma once
// Factor matrices stored with a padded row width. The SDDMM/SpMM kernels (ours and cuSPARSE's)
// take their vectorized paths (16-byte loads of 4 floats) only when every dense row starts
// 16-byte aligned, that is when K is a multiple of 4. Measured on an H200 (docs/benchmarks/als.md,
// sfa.md): ALS on the Netflix shape took 0.247 s per iteration with K = 101 (100 factors + the
// bias column) and 0.147 s with K = 100; SFA with 256 factors took 0.304 s per pass with K = 257
// (the user offset) and 0.164 s with K = 256. So engines store padded_width(K) columns whose
// extra columns are zero and stay zero: they add nothing to any dot product, and every update of
// them is zero (their right-hand sides and couplings are zero, and their regularized diagonals
// keep the systems positive definite). Engines convert at their host interface with with_width().
#include <algorithm>
#include <cstdint>

#include "core/dense.hpp"

namespace fk::app {

constexpr int kRowAlignFloats = 4;

inline int padded_width(int k) {
  return (k + kRowAlignFloats - 1) / kRowAlignFloats * kRowAlignFloats;
}

// The first `cols` columns of every row of `m`, zero-filled beyond m's own columns.
inline HostDense<float> with_width(const HostDense<float>& m, std::int64_t cols) {
  HostDense<float> out(m.rows(), cols);
  const std::int64_t keep = std::min(cols, m.cols());
  for (std::int64_t r = 0; r < m.rows(); ++r)
    for (std::int64_t c = 0; c < cols; ++c) out(r, c) = c < keep ? m(r, c) : 0.0f;
  return out;
}

// A factor matrix given at an engine's host interface, checked to be rows x k (`name`: "user" or
// "item", for the message) and widened to the engine's padded `width`.
inline HostDense<float> padded_input(const char* name, const HostDense<float>& m, std::int64_t rows, int k,
                                     int width) {
  FK_CHECK(m.rows() == rows && m.cols() == k,
           name << " factors must be " << rows << " x " << k << ", got " << m.rows() << " x " << m.cols());
  return with_width(m, width);
}

}  // namespace fk::app
