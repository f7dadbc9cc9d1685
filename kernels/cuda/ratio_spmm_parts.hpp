#pragma once
// How cuda.ratio_spmm.fused splits a row (host-only, shared with the `auto` rule in
// kernels/select.cpp): P warps per row, the largest power of two up to 8 with at least 48
// nonzeros per warp on a mean row. A row's parts run one after the other within their warp, so
// the longest row sets a floor of row_max / P nonzeros in sequence.
namespace fk::ratio_spmm {

constexpr int kMaxParts = 8;

inline int row_parts(double mean_row) {
  int parts = 1;
  while (parts < kMaxParts && mean_row >= 48.0 * parts) parts *= 2;
  return parts;
}

}  // namespace fk::ratio_spmm
