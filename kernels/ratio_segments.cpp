#include "kernels/ratio_segments.hpp"

#include "core/error.hpp"

namespace fk {

RatioSegments plan_ratio_segments(const std::vector<std::int64_t>& row_ptr, int k,
                                  std::int64_t threshold, std::int64_t segment, std::int64_t chunk,
                                  std::int64_t scratch_budget) {
  FK_CHECK(segment > 0 && chunk > 0 && k > 0,
           "ratio segments: segment, chunk and k must be positive");
  const std::int64_t rows = row_ptr.empty() ? 0 : static_cast<std::int64_t>(row_ptr.size()) - 1;
  const auto length = [&](std::int64_t i) { return row_ptr[i + 1] - row_ptr[i]; };
  const auto partial_rows = [&](std::int64_t seg) {
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < rows; ++i)
      if (length(i) > threshold && length(i) > seg) n += (length(i) + seg - 1) / seg;
    return n;
  };
  RatioSegments out;
  out.segment = segment;
  while (partial_rows(out.segment) * k * std::int64_t(sizeof(float)) > scratch_budget)
    out.segment *= 2;
  std::vector<std::int64_t> single;
  for (std::int64_t i = 0; i < rows; ++i) {
    if (length(i) <= threshold) continue;
    if (length(i) <= out.segment) {
      single.push_back(i);
      continue;
    }
    out.row_first_chunk.push_back(static_cast<std::int64_t>(out.chunk_first.size()));
    const auto first = static_cast<std::int64_t>(out.seg_row.size());
    for (std::int64_t j = row_ptr[i]; j < row_ptr[i + 1]; j += out.segment) {
      if ((static_cast<std::int64_t>(out.seg_row.size()) - first) % chunk == 0) {
        out.chunk_first.push_back(static_cast<std::int64_t>(out.seg_row.size()));
        out.chunk_row.push_back(static_cast<std::int64_t>(out.rows.size()));
      }
      out.chunk_of.push_back(static_cast<std::int64_t>(out.chunk_first.size()) - 1);
      out.seg_row.push_back(i);
      out.seg_begin.push_back(j);
    }
    out.rows.push_back(i);
  }
  out.partial = static_cast<std::int64_t>(out.seg_row.size());
  if (!out.rows.empty()) {
    out.chunk_first.push_back(out.partial);
    out.row_first_chunk.push_back(static_cast<std::int64_t>(out.chunk_first.size()) - 1);
  }
  for (const std::int64_t i : single) {
    out.seg_row.push_back(i);
    out.seg_begin.push_back(row_ptr[i]);
  }
  return out;
}

}  // namespace fk
