#include "kernels/omp/aspt_tiling.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace fk::aspt {
namespace {

// B rows of one dense tile should stay in a core's L2 together with the panel's A (SDDMM) or C
// (SpMM) rows: half of a 1-2 MiB L2 for the tile (docs/benchmarks/cpu-notes.md).
constexpr std::int64_t kTileBytes = 512 * 1024;
// Rows per panel when S is tall enough: more rows give each heavy B row more reuse, while the
// panel's A or C rows (panel_rows * K floats) must still fit beside the tile.
constexpr std::int64_t kPanelRows = 64;
constexpr std::int64_t kPanelBytes = 256 * 1024;
// Panels per thread at least, so that dynamic scheduling can balance uneven panels.
constexpr std::int64_t kPanelsPerThread = 4;
constexpr std::int64_t kHeavyThreshold = 2;
// B rows a panel may touch and still be served from cache row by row (half of a 2 MiB L2).
constexpr std::int64_t kRowwiseBytes = 1024 * 1024;

}  // namespace

AsptParams resolve_params(AsptParams p, std::int64_t rows, int k, int threads) {
  const std::int64_t row_bytes = std::max<std::int64_t>(1, k) * std::int64_t(sizeof(float));
  if (p.tile_cols <= 0) p.tile_cols = std::max<std::int64_t>(8, kTileBytes / row_bytes);
  if (p.panel_rows <= 0) {
    std::int64_t pr = std::min(kPanelRows, std::max<std::int64_t>(8, kPanelBytes / row_bytes));
    const std::int64_t want_panels = kPanelsPerThread * std::max(1, threads);
    if (rows > 0 && (rows + pr - 1) / pr < want_panels) pr = std::max<std::int64_t>(1, (rows + want_panels - 1) / want_panels);
    p.panel_rows = pr;
  }
  if (p.heavy_threshold <= 0) p.heavy_threshold = kHeavyThreshold;
  if (p.min_panel_cols <= 0) p.min_panel_cols = std::max<std::int64_t>(1, kRowwiseBytes / row_bytes);
  return p;
}

AsptTiling build_aspt_tiling(const CsrView& s, const AsptParams& params) {
  FK_CHECK(params.panel_rows >= 1 && params.heavy_threshold >= 1 && params.tile_cols >= 1 && params.min_panel_cols >= 1,
           "ASpT parameters must be resolved (panel_rows " << params.panel_rows << ", heavy_threshold "
                                                           << params.heavy_threshold << ", tile_cols " << params.tile_cols
                                                           << ", min_panel_cols " << params.min_panel_cols << ")");
  FK_CHECK(s.nnz == 0 || s.col_idx != nullptr, "ASpT tiling needs the column indices of S");
  AsptTiling t;
  t.rows = s.rows;
  t.cols = s.cols;
  t.nnz = s.nnz;
  t.params = params;
  t.row_ptr.assign(s.row_ptr, s.row_ptr + s.rows + 1);
  t.heavy_end.resize(static_cast<std::size_t>(s.rows));
  t.col_idx.resize(static_cast<std::size_t>(s.nnz));
  t.perm.resize(static_cast<std::size_t>(s.nnz));
  const std::int64_t panels = (s.rows + params.panel_rows - 1) / params.panel_rows;
  std::vector<std::vector<std::int32_t>> panel_heavy(static_cast<std::size_t>(panels));
  std::int64_t heavy_nnz = 0;

#pragma omp parallel reduction(+ : heavy_nnz)
  {
    std::vector<std::int32_t> panel_cols;                    // the panel's column indices, sorted
    std::vector<std::pair<std::int32_t, std::int64_t>> hv;  // (column, position in S) of a row
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t r0 = p * params.panel_rows, r1 = std::min(s.rows, r0 + params.panel_rows);
      const std::int64_t j0 = s.row_ptr[r0], j1 = s.row_ptr[r1];
      std::vector<std::int32_t>& heavy = panel_heavy[p];
      // Without enough nonzeros no column can reach the threshold, nor the panel the footprint.
      if (j1 - j0 >= std::max(params.heavy_threshold, params.min_panel_cols)) {
        panel_cols.assign(s.col_idx + j0, s.col_idx + j1);
        std::sort(panel_cols.begin(), panel_cols.end());
        std::int64_t distinct = 0;
        for (std::size_t i = 0; i < panel_cols.size();) {
          std::size_t e = i;
          while (e < panel_cols.size() && panel_cols[e] == panel_cols[i]) ++e;
          if (std::int64_t(e - i) >= params.heavy_threshold) heavy.push_back(panel_cols[i]);
          ++distinct;
          i = e;
        }
        if (distinct < params.min_panel_cols) heavy.clear();  // row by row stays in cache
      }
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t b = s.row_ptr[r], e = s.row_ptr[r + 1];
        hv.clear();
        std::int64_t light = e;  // light entries are written from the back, then reversed
        for (std::int64_t j = e - 1; j >= b; --j) {
          const std::int32_t c = s.col_idx[j];
          if (!heavy.empty() && std::binary_search(heavy.begin(), heavy.end(), c)) {
            hv.emplace_back(c, j);
          } else {
            --light;
            t.col_idx[light] = c;
            t.perm[light] = j;
          }
        }
        std::sort(hv.begin(), hv.end());  // by column, ties by position in S
        for (std::size_t i = 0; i < hv.size(); ++i) {
          t.col_idx[b + std::int64_t(i)] = hv[i].first;
          t.perm[b + std::int64_t(i)] = hv[i].second;
        }
        t.heavy_end[r] = b + std::int64_t(hv.size());
        heavy_nnz += std::int64_t(hv.size());
      }
    }
  }

  t.heavy_ptr.assign(static_cast<std::size_t>(panels) + 1, 0);
  for (std::int64_t p = 0; p < panels; ++p) t.heavy_ptr[p + 1] = t.heavy_ptr[p] + std::int64_t(panel_heavy[p].size());
  t.heavy_cols.reserve(static_cast<std::size_t>(t.heavy_ptr.back()));
  for (auto& h : panel_heavy) t.heavy_cols.insert(t.heavy_cols.end(), h.begin(), h.end());
  t.heavy_nnz = heavy_nnz;
  return t;
}

void check_aspt_tiling(const AsptTiling& t, const CsrView& s) {
  FK_CHECK(t.rows == s.rows && t.cols == s.cols && t.nnz == s.nnz, "ASpT tiling shape differs from S");
  const std::int64_t pr = t.params.panel_rows;
  FK_CHECK(pr >= 1 && t.num_panels() == (s.rows + pr - 1) / pr, "ASpT panel count wrong");
  FK_CHECK(std::int64_t(t.col_idx.size()) == s.nnz && std::int64_t(t.perm.size()) == s.nnz &&
               std::int64_t(t.heavy_end.size()) == s.rows && std::int64_t(t.row_ptr.size()) == s.rows + 1,
           "ASpT array sizes wrong");
  std::vector<char> seen(static_cast<std::size_t>(s.nnz), 0);
  std::int64_t heavy_total = 0;
  for (std::int64_t p = 0; p < t.num_panels(); ++p) {
    const auto hb = t.heavy_cols.begin() + t.heavy_ptr[p], he = t.heavy_cols.begin() + t.heavy_ptr[p + 1];
    FK_CHECK(std::adjacent_find(hb, he, [](auto x, auto y) { return x >= y; }) == he,
             "heavy columns of panel " << p << " not strictly ascending");
    // Recount every column of the panel to check the heavy/light split against the threshold.
    std::vector<std::int32_t> cols(s.col_idx + s.row_ptr[t.panel_begin(p)], s.col_idx + s.row_ptr[t.panel_end(p)]);
    std::sort(cols.begin(), cols.end());
    std::int64_t distinct = 0;
    for (std::size_t i = 0; i < cols.size(); ++i) distinct += (i == 0 || cols[i] != cols[i - 1]);
    const bool tiled = distinct >= t.params.min_panel_cols;
    for (std::int64_t r = t.panel_begin(p); r < t.panel_end(p); ++r) {
      FK_CHECK(t.row_ptr[r] == s.row_ptr[r], "row offsets differ at row " << r);
      FK_CHECK(t.heavy_end[r] >= s.row_ptr[r] && t.heavy_end[r] <= s.row_ptr[r + 1], "heavy_end out of row " << r);
      heavy_total += t.heavy_end[r] - s.row_ptr[r];
      for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
        const std::int64_t src = t.perm[j];
        FK_CHECK(src >= s.row_ptr[r] && src < s.row_ptr[r + 1], "perm leaves row " << r << " at entry " << j);
        FK_CHECK(!seen[src], "perm repeats position " << src);
        seen[src] = 1;
        const std::int32_t c = t.col_idx[j];
        FK_CHECK(c == s.col_idx[src], "reordered column differs from S at entry " << j);
        const bool is_heavy = std::binary_search(hb, he, c);
        const auto count = std::upper_bound(cols.begin(), cols.end(), c) - std::lower_bound(cols.begin(), cols.end(), c);
        FK_CHECK(is_heavy == (tiled && count >= t.params.heavy_threshold),
                 "column " << c << " misclassified in panel " << p);
        FK_CHECK(is_heavy == (j < t.heavy_end[r]), "entry " << j << " of row " << r << " in the wrong part");
        if (j > s.row_ptr[r] && j < t.heavy_end[r]) FK_CHECK(t.col_idx[j - 1] <= c, "heavy part of row " << r << " unsorted");
        if (j > t.heavy_end[r]) FK_CHECK(t.perm[j - 1] < src, "light part of row " << r << " not in S's order");
      }
    }
  }
  FK_CHECK(heavy_total == t.heavy_nnz, "heavy_nnz " << t.heavy_nnz << " but rows hold " << heavy_total);
}

}  // namespace fk::aspt
