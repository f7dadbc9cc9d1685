// The fused GPU ratio SpMM's long-row plan (kernels/ratio_segments.hpp), on the host: every
// nonzero of every long row in exactly one segment, rows of several segments first and chunked
// without spanning rows, rows of one segment after them, and the scratch bound honoured by
// longer segments. CPU only.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/ratio_segments.hpp"

namespace fk {
namespace {

std::vector<std::int64_t> row_ptr_of(const std::vector<std::int64_t>& lengths) {
  std::vector<std::int64_t> rp{0};
  for (const std::int64_t n : lengths) rp.push_back(rp.back() + n);
  return rp;
}

// Checks the invariants the kernel relies on; returns the segments' nonzeros per row.
std::vector<std::int64_t> check_plan(const RatioSegments& p, const std::vector<std::int64_t>& rp,
                                     std::int64_t threshold, std::int64_t chunk) {
  const std::int64_t segments = static_cast<std::int64_t>(p.seg_row.size());
  EXPECT_EQ(p.seg_begin.size(), p.seg_row.size());
  EXPECT_EQ(static_cast<std::int64_t>(p.chunk_of.size()), p.partial);
  std::vector<std::int64_t> covered(rp.size() - 1, 0);
  for (std::int64_t sg = 0; sg < segments; ++sg) {
    const std::int64_t row = p.seg_row[sg], len = rp[row + 1] - rp[row];
    EXPECT_GT(len, threshold);
    if (sg < p.partial) {
      EXPECT_GT(len, p.segment) << "segment " << sg;
    } else {
      EXPECT_LE(len, p.segment) << "segment " << sg;
      EXPECT_EQ(p.seg_begin[sg], rp[row]);
    }
    const std::int64_t end = std::min(p.seg_begin[sg] + p.segment, rp[row + 1]);
    covered[row] += end - p.seg_begin[sg];
  }
  for (std::int64_t c = 0; c + 1 < static_cast<std::int64_t>(p.chunk_first.size()); ++c) {
    const std::int64_t s0 = p.chunk_first[c], s1 = p.chunk_first[c + 1];
    EXPECT_GE(s1 - s0, 1);
    EXPECT_LE(s1 - s0, chunk);
    for (std::int64_t sg = s0; sg < s1; ++sg) {
      EXPECT_EQ(p.chunk_of[sg], c);
      EXPECT_EQ(p.seg_row[sg], p.rows[p.chunk_row[c]]) << "a chunk spans two rows";
    }
  }
  EXPECT_EQ(p.row_first_chunk.size(), p.rows.empty() ? 0 : p.rows.size() + 1);
  return covered;
}

TEST(RatioSegments, EveryLongRowCoveredOnceAndShortRowsLeftAlone) {
  //                                    short  one seg.  several  exactly  one more
  const std::vector<std::int64_t> lengths{5, 32, 33, 64, 65, 200, 0, 64 * 70, 64 * 32 + 1, 3};
  const std::vector<std::int64_t> rp = row_ptr_of(lengths);
  const std::int64_t threshold = 32, chunk = 32;
  const RatioSegments p = plan_ratio_segments(rp, 16, threshold, 64, chunk, std::int64_t(1) << 30);
  EXPECT_EQ(p.segment, 64);
  const std::vector<std::int64_t> covered = check_plan(p, rp, threshold, chunk);
  for (std::size_t i = 0; i < lengths.size(); ++i)
    EXPECT_EQ(covered[i], lengths[i] > threshold ? lengths[i] : 0) << "row " << i;
  // Rows of several segments: 65 (2), 200 (4), 4480 (70: three chunks), 2049 (33: two chunks).
  EXPECT_EQ(p.rows, (std::vector<std::int64_t>{4, 5, 7, 8}));
  EXPECT_EQ(p.partial, 2 + 4 + 70 + 33);
  EXPECT_EQ(p.chunk_first.size(), 1 + 1 + 3 + 2 + 1u);
  // Rows of one segment (33 and 64 nonzeros) after them, in row order.
  EXPECT_EQ(std::vector<std::int64_t>(p.seg_row.begin() + p.partial, p.seg_row.end()),
            (std::vector<std::int64_t>{2, 3}));
}

TEST(RatioSegments, ScratchBudgetLengthensSegments) {
  const std::vector<std::int64_t> lengths{1000, 10, 3000, 700};
  const std::vector<std::int64_t> rp = row_ptr_of(lengths);
  const int k = 8;
  // With 64 nonzeros a segment: 16 + 47 + 11 = 74 partial rows of 32 bytes. A budget of 20 rows
  // takes segments of 256 (4 + 12 + 3 = 19 rows).
  const RatioSegments wide = plan_ratio_segments(rp, k, 32, 64, 32, 1 << 20);
  EXPECT_EQ(wide.segment, 64);
  EXPECT_EQ(wide.partial, 74);
  const RatioSegments tight = plan_ratio_segments(rp, k, 32, 64, 32, 20 * k * 4);
  EXPECT_EQ(tight.segment, 256);
  EXPECT_EQ(tight.partial, 19);
  EXPECT_LE(tight.partial * k * 4, 20 * k * 4);
  const std::vector<std::int64_t> covered = check_plan(tight, rp, 32, 32);
  for (std::size_t i = 0; i < lengths.size(); ++i)
    EXPECT_EQ(covered[i], lengths[i] > 32 ? lengths[i] : 0) << "row " << i;
  // A budget of nothing: every long row becomes one segment and writes its row itself.
  const RatioSegments none = plan_ratio_segments(rp, k, 32, 64, 32, 0);
  EXPECT_EQ(none.partial, 0);
  EXPECT_GE(none.segment, 3000);
  EXPECT_EQ(none.seg_row, (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_TRUE(none.chunk_first.empty());
}

TEST(RatioSegments, NoLongRowsNoSegments) {
  const RatioSegments p = plan_ratio_segments(row_ptr_of({3, 0, 32}), 64, 32, 64, 32, 0);
  EXPECT_TRUE(p.seg_row.empty());
  EXPECT_EQ(p.partial, 0);
  EXPECT_TRUE(plan_ratio_segments({}, 64, 32, 64, 32, 0).seg_row.empty());
}

}  // namespace
}  // namespace fk
