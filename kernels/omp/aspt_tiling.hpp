#pragma once
// ASpT panel/tile analysis (Hong et al., "Adaptive sparse tiling for sparse matrix multiplication",
// PPoPP'19, sections 4-5), shared by the OpenMP ASpT SDDMM and SpMM variants and usable by a GPU
// ASpT implementation (everything here is plain host data: upload the arrays as they are).
//
// The idea: cut S into panels of `panel_rows` consecutive rows. Inside a panel, a column with at
// least `heavy_threshold` nonzeros is "heavy": the panel's nonzeros in heavy columns form sparse-
// but-reused "dense tiles" that are processed tile by tile (`tile_cols` heavy columns at a time),
// so the B rows of one tile stay in cache while every row of the panel uses them. The remaining
// ("light") nonzeros are processed row by row as in plain CSR.
//
// Tiling pays only for B rows that row-by-row processing would not find in cache any more when
// the next row of the panel uses them (our adaptation of ASpT's threshold to a CPU cache): a
// column with n nonzeros in a panel of z nonzeros touching d distinct columns is used about every
// g = min(z / n, d) entries, i.e. after g B rows of b_row_bytes have passed through the cache. It
// is heavy when n >= heavy_threshold and g * b_row_bytes > cached_b_bytes. Columns reused sooner
// stay light (row by row serves them from cache), and a panel whose B rows all fit in the cache
// (d * b_row_bytes <= cached_b_bytes) gets no heavy column and stays plain CSR rows. Finally a
// panel is tiled only when its heavy entries average at least min_tile_row_nnz per (row, tile)
// pair: scattered heavy columns (2-3 uses each) make pieces of one or two entries per row and
// tile whose bookkeeping costs more than the B rows they save; and only when its heavy entries are
// at least min_heavy_share of its entries: where the cache rule leaves much of a panel light, B
// barely exceeds the cache, and tiles cost more than the few B rows they keep from being refetched.
//
// Only entries are reordered, never rows and never column indices: row r keeps S's range
// [row_ptr[r], row_ptr[r+1]) and inside it the heavy entries come first (sorted by column, hence
// grouped by tile), then the light ones in S's order. `perm` maps every reordered entry back to
// its position in S, so values in S's order are read through it and SDDMM results are written
// through it (outputs stay in S's CSR order). A row that the reordering leaves as it was (no heavy
// entry, or S's row sorted with its heavy entries first, as in most rows of a matrix whose every
// column is heavy) is marked `in_place`: its values are read and its results written in S's order
// directly, without the gather through `perm`.
//
// Example (panel_rows = 2, heavy_threshold = 2): rows {0: cols 5 1 3}, {1: cols 3 7 5}. Columns 3
// and 5 occur twice in the panel, so heavy_cols = [3 5]; row 0 becomes [3 5 | 1] with
// perm = [2 0 | 1] and heavy_end[0] = 2; row 1 becomes [3 5 | 7] with perm = [3 5 | 4].
//
// The reordered entries (AsptOrder: 12 bytes a nonzero) do not depend on tile_cols, the one
// parameter in which the SDDMM's tiling of S differs from the SpMM's, so the plans of one pattern
// share them (shared_aspt_order): an app that makes both plans of S (fk-sfa on Rᵀ, 80M ratings on
// the netflix shape) holds them once. Each tiling keeps only what follows from its tile_cols: which
// panels it tiles (the min_tile_row_nnz rule counts tiles) and its pieces.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "core/csr.hpp"

namespace fk::aspt {

// Tiling parameters. A zero asks resolve_params() to choose the value.
struct AsptParams {
  std::int64_t panel_rows = 0;       // rows per panel (the last panel may be shorter)
  std::int64_t heavy_threshold = 0;  // a column is heavy in a panel with >= this many nonzeros there
  std::int64_t tile_cols = 0;        // heavy columns per dense tile
  std::int64_t b_row_bytes = 0;      // bytes of one B row (K floats)
  std::int64_t cached_b_bytes = 0;   // B bytes row-by-row order keeps in cache (1: no such limit)
  std::int64_t min_tile_row_nnz = 0; // least heavy entries per (row, tile) of a tiled panel (< 0: none)
  double min_heavy_share = 0;        // least share of a tiled panel's entries that are heavy (< 0: none)
  // What resolve_params sizes tile_cols for: a row's entries per tile at S's density (0: 16;
  // kLargestTiles: as large as the cache bounds allow).
  double tile_row_entries = 0;
};

// AsptParams::tile_row_entries for the largest tiles (a quarter of the L2). The SDDMM's choice: on
// the 2-core machine's DLMC layers at K = 128 and 256 such tiles ran its kernel 1.0-1.3x faster
// than L1-sized ones (bench/omp_quick --sweep, docs/benchmarks/checks/cpu-aspt-caches), where the
// SpMM preferred about 16 entries per (row, tile).
constexpr double kLargestTiles = std::numeric_limits<double>::infinity();

// What omp.sddmm.aspt asks resolve_params for: `requested` with the largest tiles unless it names
// a tile_row_entries of its own (bench/omp_quick reports the same tiling's heavy share).
inline AsptParams sddmm_request(AsptParams requested) {
  if (requested.tile_row_entries == 0) requested.tile_row_entries = kLargestTiles;
  return requested;
}

// One core's private data caches, in bytes.
struct CoreCaches {
  std::int64_t l1d_bytes = 0, l2_bytes = 0;
};
// This host's, from sysconf; 32 KiB and 512 KiB where the system does not say.
CoreCaches host_core_caches();

// Fills the zero fields of `requested` for S (`rows` x `cols`, `nnz` nonzeros) with dense width
// `k`, `threads` OpenMP threads and cores with `caches`: b_row_bytes = 4 k; cached_b_bytes = the
// L2 (row-by-row order finds a B row again while the rows since its last use fit there), times
// 512 / b_row_bytes below K = 128 (short rows gain less from a tile than it costs); dense
// tiles of about tile_row_entries (default 16) entries per row at S's density (nnz / (rows x
// cols)), between the L1 and a quarter of the L2 in B bytes (at least 8 columns); panels whose
// C (or A) rows take 256 KiB (16..512 rows), at least two per thread (`threads`: the variants pass
// omp_common::split_threads()); a threshold of 2 (a B row loaded for a tile is used at least
// twice), min_tile_row_nnz = 8 and min_heavy_share = 0.6.
// Explicit (non-zero) fields are kept; all results are >= 1 (min_heavy_share: > 0).
AsptParams resolve_params(AsptParams requested, std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                          int k, int threads, const CoreCaches& caches = host_core_caches());

// S's rows reordered as every tiling with these panels and this heavy rule reorders them. A panel's
// candidate heavy columns are those of the column rules (threshold and cache) when the panel could
// be tiled with a single tile (the min_tile_row_nnz and min_heavy_share rules at one tile); a
// tiling tiles the panel when they also pass at its own number of tiles (AsptTiling).
struct AsptOrder {
  // Candidate heavy columns of panel p: heavy_cols[heavy_ptr[p] .. heavy_ptr[p+1]), ascending.
  std::vector<std::int64_t> heavy_ptr;   // panels + 1 entries
  std::vector<std::int32_t> heavy_cols;  // heavy_ptr.back() entries
  // Per row: entries [row_ptr[r], heavy_end[r]) are in candidate heavy columns (ascending column).
  std::vector<std::int64_t> heavy_end;  // rows entries
  // Per row: 1 when the reordering is the identity on the row.
  std::vector<char> in_place;  // rows entries
  // Reordered entries (nnz each): original column index, and position in S. Both empty when no
  // panel has a candidate heavy column.
  std::vector<std::int32_t> col_idx;
  std::vector<std::int64_t> perm;
};

// Builds the order of a host CSR pattern for resolved `params` (tile_cols is not read).
AsptOrder build_aspt_order(const CsrView& s, const AsptParams& params);

// The order of `s` for `params` that the plans of the same pattern share: built on the first call,
// then the same object for every call with the same pattern (S's row_ptr and col_idx addresses and
// its shape) and the same parameters (all but tile_cols), for as long as any holder keeps it. The
// lifetime rule that makes addresses a safe key is the plans' own: a plan's pattern outlives the
// plan, unchanged; so while an order lives, no other pattern can sit at its pattern's addresses.
// Thread-safe.
std::shared_ptr<const AsptOrder> shared_aspt_order(const CsrView& s, const AsptParams& params);

// How many orders this process has built (build_aspt_order calls): lets tests see that plans of one
// pattern share one.
std::int64_t aspt_orders_built();

struct AsptTiling {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  AsptParams params;  // resolved values used to build this tiling

  // Copy of S's row offsets (rows + 1 entries) so the structure is self-contained.
  std::vector<std::int64_t> row_ptr;
  // Heavy columns of panel p: heavy_cols[heavy_ptr[p] .. heavy_ptr[p+1]), ascending.
  // Tile t of panel p covers heavy columns [heavy_ptr[p] + t*tile_cols, min(+tile_cols, heavy_ptr[p+1])).
  std::vector<std::int64_t> heavy_ptr;   // num_panels() + 1 entries
  std::vector<std::int32_t> heavy_cols;  // heavy_ptr.back() entries
  // Where each row's entries of each tile end, so the kernels need not search for them: for a
  // tiled panel p of R rows and T tiles, piece_end[piece_ptr[p] + t * R + (r - panel_begin(p))] is
  // the end of row r's heavy entries in tile t (they start where tile t - 1's end, or at row_ptr[r]
  // for t = 0). At most one entry per min_tile_row_nnz heavy nonzeros (8 by default).
  std::vector<std::int64_t> piece_ptr;  // num_panels() + 1 entries
  std::vector<std::int64_t> piece_end;  // piece_ptr.back() entries
  // Per row: entries [row_ptr[r], heavy_end[r]) are heavy (ascending column), the rest light.
  // A row without heavy entries is stored exactly as in S (perm[j] == j on its range).
  std::vector<std::int64_t> heavy_end;  // rows entries
  // Per row: 1 when the row's entries are S's, in S's order: read S's columns and values, and
  // write results, at S's positions. Every row of an untiled panel is.
  std::vector<char> in_place;  // rows entries
  // The reordered entries of the rows not in_place: order->col_idx (original column index) and
  // order->perm (position in S). Null when this tiling tiles no panel.
  std::shared_ptr<const AsptOrder> order;
  std::int64_t heavy_nnz = 0;  // nonzeros in heavy columns, all panels

  std::int64_t num_panels() const { return static_cast<std::int64_t>(heavy_ptr.size()) - 1; }
  std::int64_t panel_begin(std::int64_t p) const { return p * params.panel_rows; }
  std::int64_t panel_end(std::int64_t p) const { return std::min(rows, (p + 1) * params.panel_rows); }
  std::int64_t num_tiles(std::int64_t p) const {
    return (heavy_ptr[p + 1] - heavy_ptr[p] + params.tile_cols - 1) / params.tile_cols;
  }
  // Where the rows of panel p end their pieces of tile ti, indexed by r - panel_begin(p).
  const std::int64_t* piece_ends(std::int64_t p, std::int64_t ti) const {
    return piece_end.data() + piece_ptr[p] + ti * (panel_end(p) - panel_begin(p));
  }
  double heavy_fraction() const { return nnz > 0 ? double(heavy_nnz) / double(nnz) : 0.0; }
  // Row r's column indices by entry position: S's (`s_cols`) where the row is in place, else the
  // order's.
  const std::int32_t* row_cols(std::int64_t r, const std::int32_t* s_cols) const {
    return in_place[r] ? s_cols : order->col_idx.data();
  }
};

// Builds the tiling of a host CSR pattern (values are not read) on `order`, S's order for the same
// `params` (build_aspt_order or shared_aspt_order). `params` must be resolved (every field >= 1).
// Cost O(rows + heavy nnz); the order's is O(nnz) when S has up to 2^21 columns (counted by
// index), O(nnz log(panel nnz)) beyond, parallel over panels with OpenMP.
// Plain ASpT (threshold only, no cache rules, e.g. for a GPU): resolve, then set
// cached_b_bytes = 1, min_tile_row_nnz = -1 and min_heavy_share = -1.
AsptTiling build_aspt_tiling(const CsrView& s, std::shared_ptr<const AsptOrder> order,
                             const AsptParams& params);
// The same on an order of its own (not shared).
AsptTiling build_aspt_tiling(const CsrView& s, const AsptParams& params);
// The same on the order that the plans of `s` with these parameters share (shared_aspt_order):
// what the ASpT plans build.
AsptTiling build_shared_order_tiling(const CsrView& s, const AsptParams& params);

// Throws fk::Error when `t` violates the invariants above for pattern `s` (used by the tests).
void check_aspt_tiling(const AsptTiling& t, const CsrView& s);

}  // namespace fk::aspt
