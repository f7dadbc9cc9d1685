#include "kernels/omp/aspt_tiling.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <utility>

#include "core/error.hpp"

namespace fk::aspt {
namespace {

// Defaults measured with bench/omp_quick --sweep (docs/benchmarks/checks/cpu-aspt-caches).
//
// The panel's A or C rows (panel_rows x K floats) take about this much beside the tile; more rows
// give every heavy B row more reuse (256-row panels beat 64-row ones by 20% at K = 256).
constexpr std::int64_t kPanelBytes = 256 * 1024;
constexpr std::int64_t kMinPanelRows = 16, kMaxPanelRows = 512;
// Panels per thread at least, so that dynamic scheduling can balance uneven panels.
constexpr std::int64_t kPanelsPerThread = 2;
constexpr std::int64_t kHeavyThreshold = 2;
// Entries per (row, tile) that a tile aims at by default (AsptParams::tile_row_entries; the SpMM's
// choice). On this project's 2-core machine (32 KiB L1, 512 KiB L2 per core) the best SpMM tile of
// the DLMC layers at K = 128 and 256 held about 16 of a row's entries: 32-64 columns at 50%
// density (1.6x over 512 KiB tiles), 128-256 at 10%, where 32 KiB tiles left 3-6 entries per row
// and ran up to 18% slower.
constexpr double kTileRowEntries = 16.0;
constexpr std::int64_t kDefaultL1Bytes = 32 * 1024, kDefaultL2Bytes = 512 * 1024;
// B rows count as cached (AsptParams::cached_b_bytes) while they fit in the L2 for rows of at
// least this many bytes (K >= 128), and in proportionally more below: a short row's reuse saves
// less than a (row, tile) pair's bookkeeping costs. Measured on the 2-core machine: with the L2
// as the limit at every K, the DLMC layers gained 1.1-2.1x at K = 128 and 256 but lost up to 1.7x
// at K = 32 (B of 590 KB) and 0-24% at K = 64.
constexpr std::int64_t kFullReuseRowBytes = 512;
// The L2 bytes that count as cached, at most (AsptParams::cached_b_bytes). The row split's B rows
// from L2 come at one load per FMA, slower than from L1: on a 2-core Intel Xeon with 2 MiB of L2
// per core (2026-11-28), where B of the DLMC layers at K = 128 and 256 fits the L2 and the L2
// bound tiled nothing, tiling at reuse distances above 256-512 KiB ran them 1.0-1.4x faster
// (bench/omp_quick --sweep; docs/benchmarks/cpu-notes.md). The machine the rule was set on had
// 512 KiB of L2.
constexpr std::int64_t kMaxCachedL2Bytes = 512 * 1024;
// Heavy entries per (row, tile) of a tiled panel, on average: a synthetic clustered matrix and a
// uniform one (2-4 per pair) ran 10-17% slower tiled; DLMC layers at K = 256 (about 40) gain 1.8x.
constexpr std::int64_t kMinTileRowNnz = 8;
// Share of a panel's entries in heavy columns below which it stays untiled (AsptParams::
// min_heavy_share). On the DLMC sample at K = 128 the two layers whose panels were 46% and 54%
// heavy ran 0.89x and 0.95x the row split tiled, those at 77-100% 1.06-1.93x
// (docs/benchmarks/checks/aspt-heavy-share, where this value was checked on held-out layers).
constexpr double kMinHeavyShare = 0.6;
// Column counts by index (a 4-byte counter per column and thread) up to this many columns; a sort
// of each panel's columns beyond. On a uniform 4096 x 102660 matrix of 950K nonzeros (an LDA
// minibatch's shape) the counting halved the tiling's cost (26 -> 14 ms on 2 threads).
constexpr std::int64_t kMaxCountedCols = std::int64_t(1) << 21;

// The heavy rule of aspt_tiling.hpp for a column with `count` nonzeros in a panel of `panel_nnz`
// nonzeros over `distinct` columns.
bool is_heavy(std::int64_t count, std::int64_t panel_nnz, std::int64_t distinct, const AsptParams& p) {
  if (count < p.heavy_threshold) return false;
  const double gap = std::min(double(panel_nnz) / double(count), double(distinct));
  return gap * double(p.b_row_bytes) > double(p.cached_b_bytes);
}

// The panel rules for a panel with `rows` rows and `panel_nnz` entries, `heavy_entries` of them
// in heavy columns that make `tiles` tiles: heavy entries per (row, tile) pair reach
// min_tile_row_nnz, and their share of the panel reaches min_heavy_share. A panel that passes at
// some number of tiles passes at fewer (AsptOrder's candidates are those that pass at one).
bool panel_dense_enough(std::int64_t heavy_entries, std::int64_t panel_nnz, std::int64_t rows,
                        std::int64_t tiles, const AsptParams& p) {
  if (tiles == 0) return true;
  if (p.min_tile_row_nnz >= 0 && double(heavy_entries) < double(p.min_tile_row_nnz) * double(rows) * double(tiles))
    return false;
  return p.min_heavy_share < 0 || double(heavy_entries) >= p.min_heavy_share * double(panel_nnz);
}

std::int64_t tiles_of(std::int64_t heavy_cols, const AsptParams& p) {
  return (heavy_cols + p.tile_cols - 1) / p.tile_cols;
}

void check_resolved(const AsptParams& params) {
  FK_CHECK(params.panel_rows >= 1 && params.heavy_threshold >= 1 && params.tile_cols >= 1 &&
               params.b_row_bytes >= 1 && params.cached_b_bytes >= 1 &&
               params.min_tile_row_nnz != 0 && params.min_heavy_share != 0,
           "ASpT parameters must be resolved (panel_rows "
               << params.panel_rows << ", heavy_threshold " << params.heavy_threshold
               << ", tile_cols " << params.tile_cols << ", b_row_bytes " << params.b_row_bytes
               << ", cached_b_bytes " << params.cached_b_bytes << ", min_tile_row_nnz "
               << params.min_tile_row_nnz << ", min_heavy_share " << params.min_heavy_share << ")");
}

std::atomic<std::int64_t> orders_built{0};

}  // namespace

CoreCaches host_core_caches() {
  CoreCaches c{kDefaultL1Bytes, kDefaultL2Bytes};
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (const long v = sysconf(_SC_LEVEL1_DCACHE_SIZE); v > 0) c.l1d_bytes = v;
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  if (const long v = sysconf(_SC_LEVEL2_CACHE_SIZE); v > 0) c.l2_bytes = v;
#endif
  return c;
}

AsptParams resolve_params(AsptParams p, std::int64_t rows, std::int64_t cols, std::int64_t nnz, int k,
                          int threads, const CoreCaches& caches) {
  const std::int64_t row_bytes = std::max<std::int64_t>(1, k) * std::int64_t(sizeof(float));
  const std::int64_t l1 = std::max<std::int64_t>(1, caches.l1d_bytes);
  const std::int64_t l2 = std::max<std::int64_t>(l1, caches.l2_bytes);
  if (p.tile_cols <= 0) {
    const double cells = double(std::max<std::int64_t>(1, rows)) * double(std::max<std::int64_t>(1, cols));
    const double density = std::max(double(nnz) / cells, 1e-12);
    const double entries = p.tile_row_entries > 0 ? p.tile_row_entries : kTileRowEntries;
    const double want_bytes = entries / density * double(row_bytes);
    const double bytes = std::clamp(want_bytes, double(l1), double(std::max(l1, l2 / 4)));
    p.tile_cols = std::max<std::int64_t>(8, std::llround(bytes / double(row_bytes)));
  }
  if (p.panel_rows <= 0) {
    std::int64_t pr = std::clamp(kPanelBytes / row_bytes, kMinPanelRows, kMaxPanelRows);
    const std::int64_t want_panels = kPanelsPerThread * std::max(1, threads);
    if (rows > 0 && (rows + pr - 1) / pr < want_panels) pr = std::max<std::int64_t>(1, (rows + want_panels - 1) / want_panels);
    p.panel_rows = pr;
  }
  if (p.heavy_threshold <= 0) p.heavy_threshold = kHeavyThreshold;
  if (p.b_row_bytes <= 0) p.b_row_bytes = row_bytes;
  if (p.cached_b_bytes <= 0)
    p.cached_b_bytes = std::min(l2, kMaxCachedL2Bytes) * std::max<std::int64_t>(1, kFullReuseRowBytes / row_bytes);
  if (p.min_tile_row_nnz == 0) p.min_tile_row_nnz = kMinTileRowNnz;
  if (p.min_heavy_share == 0) p.min_heavy_share = kMinHeavyShare;
  return p;
}

AsptOrder build_aspt_order(const CsrView& s, const AsptParams& params) {
  check_resolved(params);
  FK_CHECK(s.nnz == 0 || s.col_idx != nullptr, "ASpT tiling needs the column indices of S");
  ++orders_built;
  AsptOrder o;
  o.heavy_end.resize(static_cast<std::size_t>(s.rows));
  o.in_place.assign(static_cast<std::size_t>(s.rows), 1);
  const std::int64_t panels = (s.rows + params.panel_rows - 1) / params.panel_rows;
  std::vector<std::vector<std::int32_t>> panel_heavy(static_cast<std::size_t>(panels));

  // Pass 1: each panel's heavy columns. Counting a panel's columns: a per-thread array indexed by
  // column when S has few enough columns (O(panel nnz); every counter is reset after its panel),
  // else a sort of the panel's columns.
  const bool count_by_index = s.cols <= kMaxCountedCols;
#pragma omp parallel
  {
    std::vector<std::int32_t> panel_cols;  // the panel's column indices, sorted (sort path)
    std::vector<std::int32_t> counts;      // per column (index path), all zero between panels
    std::vector<std::int32_t> distinct;    // the panel's columns in first-seen order (index path)
    std::vector<std::pair<std::int32_t, std::int64_t>> runs;  // (column, count) in the panel
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t r0 = p * params.panel_rows, r1 = std::min(s.rows, r0 + params.panel_rows);
      const std::int64_t j0 = s.row_ptr[r0], j1 = s.row_ptr[r1];
      // A panel whose nonzeros' B rows all fit in the cache has no heavy column.
      if (!(double(j1 - j0) * double(params.b_row_bytes) > double(params.cached_b_bytes) &&
            j1 - j0 >= params.heavy_threshold))
        continue;
      runs.clear();
      if (count_by_index) {
        if (counts.empty()) counts.assign(static_cast<std::size_t>(s.cols), 0);
        distinct.clear();
        for (std::int64_t j = j0; j < j1; ++j)
          if (counts[s.col_idx[j]]++ == 0) distinct.push_back(s.col_idx[j]);
        for (const std::int32_t c : distinct) {
          runs.emplace_back(c, counts[c]);
          counts[c] = 0;
        }
      } else {
        panel_cols.assign(s.col_idx + j0, s.col_idx + j1);
        std::sort(panel_cols.begin(), panel_cols.end());
        for (std::size_t i = 0; i < panel_cols.size();) {
          std::size_t e = i;
          while (e < panel_cols.size() && panel_cols[e] == panel_cols[i]) ++e;
          runs.emplace_back(panel_cols[i], std::int64_t(e - i));
          i = e;
        }
      }
      std::vector<std::int32_t>& heavy = panel_heavy[p];
      std::int64_t heavy_entries = 0;
      for (const auto& [c, n] : runs)
        if (is_heavy(n, j1 - j0, std::int64_t(runs.size()), params)) {
          heavy.push_back(c);
          heavy_entries += n;
        }
      std::sort(heavy.begin(),
                heavy.end());  // ascending columns (the index path finds them unordered)
      if (!panel_dense_enough(heavy_entries, j1 - j0, r1 - r0, heavy.empty() ? 0 : 1, params))
        heavy.clear();
    }
  }
  o.heavy_ptr.assign(static_cast<std::size_t>(panels) + 1, 0);
  for (std::int64_t p = 0; p < panels; ++p)
    o.heavy_ptr[p + 1] = o.heavy_ptr[p] + std::int64_t(panel_heavy[p].size());

  // No candidate anywhere: every row is S's row (col_idx and perm stay empty).
  if (o.heavy_ptr.back() == 0) {
    for (std::int64_t r = 0; r < s.rows; ++r) o.heavy_end[r] = s.row_ptr[r];
    return o;
  }

  // Pass 2: every row reordered, heavy entries first.
  o.col_idx.resize(static_cast<std::size_t>(s.nnz));
  o.perm.resize(static_cast<std::size_t>(s.nnz));
#pragma omp parallel
  {
    std::vector<std::pair<std::int32_t, std::int64_t>> hv;  // (column, position in S) of a row
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t r0 = p * params.panel_rows, r1 = std::min(s.rows, r0 + params.panel_rows);
      const std::vector<std::int32_t>& heavy = panel_heavy[p];
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t b = s.row_ptr[r], e = s.row_ptr[r + 1];
        hv.clear();
        std::int64_t light = e;  // light entries are written from the back, so they keep S's order
        for (std::int64_t j = e - 1; j >= b; --j) {
          const std::int32_t c = s.col_idx[j];
          if (!heavy.empty() && std::binary_search(heavy.begin(), heavy.end(), c)) {
            hv.emplace_back(c, j);
          } else {
            --light;
            o.col_idx[light] = c;
            o.perm[light] = j;
          }
        }
        std::sort(hv.begin(), hv.end());  // by column, ties by position in S
        for (std::size_t i = 0; i < hv.size(); ++i) {
          o.col_idx[b + std::int64_t(i)] = hv[i].first;
          o.perm[b + std::int64_t(i)] = hv[i].second;
        }
        o.heavy_end[r] = b + std::int64_t(hv.size());
        for (std::int64_t j = b; j < o.heavy_end[r]; ++j)
          if (o.perm[j] != j) {  // light entries keep their order, so the heavy part decides
            o.in_place[r] = 0;
            break;
          }
      }
    }
  }
  o.heavy_cols.reserve(static_cast<std::size_t>(o.heavy_ptr.back()));
  for (auto& h : panel_heavy) o.heavy_cols.insert(o.heavy_cols.end(), h.begin(), h.end());
  return o;
}

std::shared_ptr<const AsptOrder> shared_aspt_order(const CsrView& s, const AsptParams& params) {
  // What the order depends on: the pattern (by its addresses and shape, see the header) and every
  // parameter but tile_cols.
  struct Key {
    const std::int64_t* row_ptr;
    const std::int32_t* col_idx;
    std::int64_t rows, cols, nnz, panel_rows, heavy_threshold, b_row_bytes, cached_b_bytes,
        min_tile_row_nnz;
    double min_heavy_share;
    bool operator==(const Key& o) const {
      return row_ptr == o.row_ptr && col_idx == o.col_idx && rows == o.rows && cols == o.cols &&
             nnz == o.nnz && panel_rows == o.panel_rows && heavy_threshold == o.heavy_threshold &&
             b_row_bytes == o.b_row_bytes && cached_b_bytes == o.cached_b_bytes &&
             min_tile_row_nnz == o.min_tile_row_nnz && min_heavy_share == o.min_heavy_share;
    }
  };
  const Key key{s.row_ptr,
                s.col_idx,
                s.rows,
                s.cols,
                s.nnz,
                params.panel_rows,
                params.heavy_threshold,
                params.b_row_bytes,
                params.cached_b_bytes,
                params.min_tile_row_nnz,
                params.min_heavy_share};
  // Weak references: the plans own the orders, the cache only finds them (a handful at a time).
  static std::mutex mutex;
  static std::vector<std::pair<Key, std::weak_ptr<const AsptOrder>>> known;
  auto find = [&]() -> std::shared_ptr<const AsptOrder> {
    known.erase(std::remove_if(known.begin(), known.end(),
                               [](const auto& e) { return e.second.expired(); }),
                known.end());
    for (const auto& [k, order] : known)
      if (k == key) return order.lock();
    return nullptr;
  };
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto order = find()) return order;
  }
  // Built outside the lock, so that plans of other patterns are not held up; a plan of the same
  // pattern made meanwhile on another thread wins, and this copy is dropped.
  auto built = std::make_shared<const AsptOrder>(build_aspt_order(s, params));
  const std::lock_guard<std::mutex> lock(mutex);
  if (auto order = find()) return order;
  known.emplace_back(key, built);
  return built;
}

std::int64_t aspt_orders_built() { return orders_built.load(); }

AsptTiling build_aspt_tiling(const CsrView& s, std::shared_ptr<const AsptOrder> order,
                             const AsptParams& params) {
  check_resolved(params);
  const std::int64_t panels = (s.rows + params.panel_rows - 1) / params.panel_rows;
  FK_CHECK(order && std::int64_t(order->heavy_ptr.size()) == panels + 1 &&
               std::int64_t(order->heavy_end.size()) == s.rows,
           "ASpT order made for another pattern or other panels");
  const AsptOrder& o = *order;
  AsptTiling t;
  t.rows = s.rows;
  t.cols = s.cols;
  t.nnz = s.nnz;
  t.params = params;
  t.row_ptr.assign(s.row_ptr, s.row_ptr + s.rows + 1);
  t.heavy_end.resize(static_cast<std::size_t>(s.rows));
  t.in_place.resize(static_cast<std::size_t>(s.rows));
  t.heavy_ptr.assign(static_cast<std::size_t>(panels) + 1, 0);
  // A panel's candidates become its heavy columns where they pass the panel rules at this
  // tiling's number of tiles; its rows are then the order's, else S's.
  for (std::int64_t p = 0; p < panels; ++p) {
    const std::int64_t r0 = t.panel_begin(p), r1 = std::min(s.rows, r0 + params.panel_rows);
    const std::int64_t h0 = o.heavy_ptr[p], h1 = o.heavy_ptr[p + 1];
    std::int64_t heavy_entries = 0;
    for (std::int64_t r = r0; r < r1; ++r) heavy_entries += o.heavy_end[r] - s.row_ptr[r];
    const bool tiled = h1 > h0 && panel_dense_enough(heavy_entries, s.row_ptr[r1] - s.row_ptr[r0],
                                                     r1 - r0, tiles_of(h1 - h0, params), params);
    for (std::int64_t r = r0; r < r1; ++r) {
      t.heavy_end[r] = tiled ? o.heavy_end[r] : s.row_ptr[r];
      t.in_place[r] = tiled ? o.in_place[r] : 1;
    }
    if (tiled) {
      t.heavy_cols.insert(t.heavy_cols.end(), o.heavy_cols.begin() + h0, o.heavy_cols.begin() + h1);
      t.heavy_nnz += heavy_entries;
    }
    t.heavy_ptr[p + 1] = std::int64_t(t.heavy_cols.size());
  }
  t.piece_ptr.assign(static_cast<std::size_t>(panels) + 1, 0);
  for (std::int64_t p = 0; p < panels; ++p)
    t.piece_ptr[p + 1] = t.piece_ptr[p] + (t.panel_end(p) - t.panel_begin(p)) * t.num_tiles(p);
  if (t.heavy_ptr.back() == 0) return t;  // nothing tiled: no need of the order
  t.order = std::move(order);

  // Each row's piece of each tile.
  t.piece_end.resize(static_cast<std::size_t>(t.piece_ptr.back()));
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t p = 0; p < panels; ++p) {
    const std::int64_t r0 = t.panel_begin(p), r1 = t.panel_end(p), h0 = t.heavy_ptr[p], h1 = t.heavy_ptr[p + 1];
    for (std::int64_t r = r0; r < r1; ++r) {
      std::int64_t j = t.row_ptr[r];
      for (std::int64_t ti = 0; ti < t.num_tiles(p); ++ti) {
        const std::int32_t last_col = t.heavy_cols[std::min(h1, h0 + (ti + 1) * params.tile_cols) - 1];
        while (j < t.heavy_end[r] && o.col_idx[j] <= last_col) ++j;
        t.piece_end[t.piece_ptr[p] + ti * (r1 - r0) + (r - r0)] = j;
      }
    }
  }
  return t;
}

AsptTiling build_aspt_tiling(const CsrView& s, const AsptParams& params) {
  return build_aspt_tiling(s, std::make_shared<const AsptOrder>(build_aspt_order(s, params)),
                           params);
}

AsptTiling build_shared_order_tiling(const CsrView& s, const AsptParams& params) {
  return build_aspt_tiling(s, shared_aspt_order(s, params), params);
}

void check_aspt_tiling(const AsptTiling& t, const CsrView& s) {
  FK_CHECK(t.rows == s.rows && t.cols == s.cols && t.nnz == s.nnz, "ASpT tiling shape differs from S");
  const std::int64_t pr = t.params.panel_rows;
  FK_CHECK(pr >= 1 && t.num_panels() == (s.rows + pr - 1) / pr, "ASpT panel count wrong");
  // Without heavy columns the tiling holds no order and every row is S's row.
  const bool plain = t.heavy_ptr.back() == 0 && !t.order;
  FK_CHECK((plain || (t.order && std::int64_t(t.order->col_idx.size()) == s.nnz &&
                      std::int64_t(t.order->perm.size()) == s.nnz)) &&
               std::int64_t(t.heavy_end.size()) == s.rows &&
               std::int64_t(t.in_place.size()) == s.rows &&
               std::int64_t(t.row_ptr.size()) == s.rows + 1,
           "ASpT array sizes wrong");
  // Rows in place are read in S (where the order may hold them reordered for another tiling).
  auto perm_at = [&](std::int64_t r, std::int64_t j) {
    return plain || t.in_place[r] ? j : t.order->perm[j];
  };
  auto col_at = [&](std::int64_t r, std::int64_t j) {
    return plain || t.in_place[r] ? s.col_idx[j] : t.order->col_idx[j];
  };
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
    const std::int64_t panel_nnz = std::int64_t(cols.size());
    auto count_of = [&](std::int32_t c) {
      return std::int64_t(std::upper_bound(cols.begin(), cols.end(), c) - std::lower_bound(cols.begin(), cols.end(), c));
    };
    std::int64_t candidates = 0, candidate_entries = 0;  // columns passing the column rules
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (i > 0 && cols[i] == cols[i - 1]) continue;
      const std::int64_t n = count_of(cols[i]);
      if (is_heavy(n, panel_nnz, distinct, t.params)) {
        ++candidates;
        candidate_entries += n;
      }
    }
    const bool tiled =
        panel_dense_enough(candidate_entries, panel_nnz, t.panel_end(p) - t.panel_begin(p),
                           tiles_of(candidates, t.params), t.params);
    for (std::int64_t r = t.panel_begin(p); r < t.panel_end(p); ++r) {
      FK_CHECK(t.row_ptr[r] == s.row_ptr[r], "row offsets differ at row " << r);
      FK_CHECK(t.heavy_end[r] >= s.row_ptr[r] && t.heavy_end[r] <= s.row_ptr[r + 1], "heavy_end out of row " << r);
      heavy_total += t.heavy_end[r] - s.row_ptr[r];
      bool identity = true;
      for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j)
        identity = identity && perm_at(r, j) == j;
      FK_CHECK(t.in_place[r] || !identity,
               "row " << r << " not marked in_place but its permutation is the identity");
      for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
        const std::int64_t src = perm_at(r, j);
        FK_CHECK(src >= s.row_ptr[r] && src < s.row_ptr[r + 1], "perm leaves row " << r << " at entry " << j);
        FK_CHECK(!seen[src], "perm repeats position " << src);
        seen[src] = 1;
        const std::int32_t c = col_at(r, j);
        FK_CHECK(c == s.col_idx[src], "reordered column differs from S at entry " << j);
        const bool heavy_here = std::binary_search(hb, he, c);
        FK_CHECK(heavy_here == (tiled && is_heavy(count_of(c), panel_nnz, distinct, t.params)),
                 "column " << c << " misclassified in panel " << p);
        FK_CHECK(heavy_here == (j < t.heavy_end[r]), "entry " << j << " of row " << r << " in the wrong part");
        if (j > s.row_ptr[r] && j < t.heavy_end[r])
          FK_CHECK(col_at(r, j - 1) <= c, "heavy part of row " << r << " unsorted");
        if (j > t.heavy_end[r])
          FK_CHECK(perm_at(r, j - 1) < src, "light part of row " << r << " not in S's order");
      }
    }
  }
  FK_CHECK(heavy_total == t.heavy_nnz, "heavy_nnz " << t.heavy_nnz << " but rows hold " << heavy_total);
  FK_CHECK(std::int64_t(t.piece_ptr.size()) == t.num_panels() + 1 && t.piece_ptr[0] == 0 &&
               std::int64_t(t.piece_end.size()) == t.piece_ptr.back(),
           "ASpT piece arrays sized wrong");
  for (std::int64_t p = 0; p < t.num_panels(); ++p) {
    const std::int64_t r0 = t.panel_begin(p), rows = t.panel_end(p) - r0, tiles = t.num_tiles(p);
    FK_CHECK(t.piece_ptr[p + 1] - t.piece_ptr[p] == rows * tiles, "panel " << p << " has the wrong number of pieces");
    for (std::int64_t r = r0; r < r0 + rows; ++r) {
      std::int64_t begin = t.row_ptr[r];
      for (std::int64_t ti = 0; ti < tiles; ++ti) {
        const std::int64_t end = t.piece_ends(p, ti)[r - r0];
        const std::int64_t c0 = t.heavy_cols[t.heavy_ptr[p] + ti * t.params.tile_cols];
        const std::int64_t c1 = t.heavy_cols[std::min(t.heavy_ptr[p + 1], t.heavy_ptr[p] + (ti + 1) * t.params.tile_cols) - 1];
        FK_CHECK(end >= begin && end <= t.heavy_end[r], "piece of row " << r << " in tile " << ti << " out of order");
        for (std::int64_t j = begin; j < end; ++j)
          FK_CHECK(col_at(r, j) >= c0 && col_at(r, j) <= c1,
                   "entry " << j << " of row " << r << " outside tile " << ti);
        begin = end;
      }
      FK_CHECK(tiles == 0 || begin == t.heavy_end[r], "row " << r << "'s pieces miss heavy entries");
    }
  }
}

}  // namespace fk::aspt
