#pragma once
// The long rows of the fused GPU ratio SpMM (kernels/cuda/ratio_spmm_fused.cu), planned on the
// host: rows of more than `threshold` nonzeros are taken from the row walkers and cut into
// segments, a warp each. Host code, in its own file so that CPU builds test it.
//
// Rows of several segments come first: their segments' partial rows go to a scratch buffer, and
// the last segment of each chunk (at most `chunk` segments of one row) to arrive adds the chunk,
// the last chunk of a row the row. Rows that fit one segment follow; their warp stores the row
// itself. The scratch is bounded: the segment length doubles from `segment` until the partial
// rows take at most `scratch_budget` bytes at width k.
#include <cstdint>
#include <vector>

namespace fk {

struct RatioSegments {
  std::int64_t segment = 0;  // nonzeros per segment (the last of a row may have fewer)
  std::int64_t partial = 0;  // segments [0, partial) belong to rows of several segments
  std::vector<std::int64_t> seg_row, seg_begin;  // per segment: its row and first nonzero
  std::vector<std::int64_t> rows;                // the rows of several segments
  std::vector<std::int64_t> chunk_of;            // per partial segment: its chunk
  std::vector<std::int64_t> chunk_first;         // per chunk: its first segment (chunks + 1)
  std::vector<std::int64_t> chunk_row;           // per chunk: its row's index in `rows`
  std::vector<std::int64_t> row_first_chunk;     // per row of `rows`: its first chunk (+ 1)
};

RatioSegments plan_ratio_segments(const std::vector<std::int64_t>& row_ptr, int k,
                                  std::int64_t threshold, std::int64_t segment, std::int64_t chunk,
                                  std::int64_t scratch_budget);

}  // namespace fk
