// omp.sddmm.aspt: ASpT multicore SDDMM (Hong et al., PPoPP'19, sections 4-5).
//
// prepare() builds the panel/tile analysis (kernels/omp/aspt_tiling.hpp) on the reordered entries
// that the pattern's other ASpT plans share. run() then, for each panel (dynamic schedule, one
// panel at a time per thread):
//   1. heavy part: tile by tile (tile_cols heavy columns whose B rows fill a quarter of the L2,
//      aspt::sddmm_request), every row of the panel computes its entries that fall in the tile, so
//      each B row of the tile is loaded from memory once per panel and reused by the panel's other
//      rows from cache;
//   2. light part: row by row, as in plain CSR (the A row stays in L1 across its entries).
// Light parts of very long rows are cut into segments that every thread shares after the panels,
// so one huge row does not serialise the run (SDDMM outputs are independent, no combining needed).
// Results go through the tiling's permutation (directly, for rows it leaves in place), so `out` is
// in S's CSR order. Dot products are omp_simd::sddmm_entries' (kernels/omp/simd.hpp).
#include <memory>
#include <vector>

#include "kernels/omp/aspt_tiling.hpp"
#include "kernels/omp/common.hpp"
#include "kernels/omp/omp_variants.hpp"
#include "kernels/omp/simd.hpp"

namespace fk {
namespace {

struct Segment {
  std::int64_t row, begin, end;  // reordered entries [begin, end) of `row`
};

class OmpSddmmAsptPlan : public SddmmPlan {
 public:
  OmpSddmmAsptPlan(const CsrView& s, int k, const aspt::AsptParams& requested)
      : s_(s),
        k_(k),
        tiling_(aspt::build_shared_order_tiling(
            s, aspt::resolve_params(aspt::sddmm_request(requested), s.rows, s.cols, s.nnz, k,
                                    omp_common::split_threads()))) {
    // A light part is "long" when it alone would be several times the work of an average
    // dynamic-schedule unit; it is then run as segments of about `seg` entries. A multiple of 8:
    // omp_simd::sddmm_entries takes entries in groups of 8, then 4, then 1, which round
    // differently, so segments that start on the row's groups of 8 leave every bit as it is.
    const std::int64_t seg =
        std::max<std::int64_t>(1024, s.nnz / (16 * omp_common::split_threads())) / 8 * 8;
    long_row_.assign(static_cast<std::size_t>(s.rows), 0);
    has_long_row_.assign(static_cast<std::size_t>(tiling_.num_panels()), 0);
    for (std::int64_t r = 0; r < s.rows; ++r) {
      const std::int64_t b = tiling_.heavy_end[r], e = s.row_ptr[r + 1];
      if (e - b <= 2 * seg) continue;
      long_row_[r] = 1;
      has_long_row_[r / tiling_.params.panel_rows] = 1;
      for (std::int64_t x = b; x < e; x += seg) segments_.push_back({r, x, std::min(e, x + seg)});
    }
  }

  void run(const Context&, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands("omp.sddmm.aspt", s_, k_, a, b, out);
    const aspt::AsptTiling& t = tiling_;
    const std::int64_t panels = t.num_panels(), k = k_;
    const std::int64_t nseg = static_cast<std::int64_t>(segments_.size());
    // Without heavy columns the tiling holds no order: every row is S's row.
    const std::int64_t* perm = t.order ? t.order->perm.data() : nullptr;
    const float* bd = b.data;
    const std::int64_t ldb = b.cols;
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 1) nowait
      for (std::int64_t p = 0; p < panels; ++p) {
        const std::int64_t r0 = t.panel_begin(p), r1 = t.panel_end(p);
        const std::int64_t h0 = t.heavy_ptr[p], h1 = t.heavy_ptr[p + 1];
        if (h0 == h1 && !has_long_row_[p]) {  // untiled panel: S's rows as they are, no bookkeeping
          for (std::int64_t r = r0; r < r1; ++r) {
            const std::int64_t j0 = s_.row_ptr[r], j1 = s_.row_ptr[r + 1];
            if (j1 > j0) omp_simd::sddmm_entries(a.row(r), bd, ldb, k, s_.col_idx + j0, nullptr, j0, j1 - j0, s_vals, out);
          }
          continue;
        }
        for (std::int64_t ti = 0; ti < t.num_tiles(p); ++ti) {
          const std::int64_t *ends = t.piece_ends(p, ti), *starts = ti > 0 ? t.piece_ends(p, ti - 1) : nullptr;
          for (std::int64_t r = r0; r < r1; ++r) {
            const std::int64_t j0 = starts ? starts[r - r0] : t.row_ptr[r], j1 = ends[r - r0];
            const std::int64_t* pr = t.in_place[r] ? nullptr : perm + j0;  // nullptr: results in S's order
            if (j1 > j0)
              omp_simd::sddmm_entries(a.row(r), bd, ldb, k, t.row_cols(r, s_.col_idx) + j0, pr, j0,
                                      j1 - j0, s_vals, out);
          }
        }
        for (std::int64_t r = r0; r < r1; ++r) {
          if (long_row_[r]) continue;
          const std::int64_t j0 = t.heavy_end[r], j1 = t.row_ptr[r + 1];
          const std::int64_t* pr = t.in_place[r] ? nullptr : perm + j0;
          if (j1 > j0)
            omp_simd::sddmm_entries(a.row(r), bd, ldb, k, t.row_cols(r, s_.col_idx) + j0, pr, j0,
                                    j1 - j0, s_vals, out);
        }
      }
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t i = 0; i < nseg; ++i) {
        const Segment& g = segments_[i];
        const std::int64_t* pr = t.in_place[g.row] ? nullptr : perm + g.begin;
        omp_simd::sddmm_entries(a.row(g.row), bd, ldb, k, t.row_cols(g.row, s_.col_idx) + g.begin,
                                pr, g.begin, g.end - g.begin, s_vals, out);
      }
    }
  }

 private:
  CsrView s_;
  int k_;
  aspt::AsptTiling tiling_;
  std::vector<char> long_row_;      // rows whose light part runs as segments
  std::vector<char> has_long_row_;  // per panel: holds such a row
  std::vector<Segment> segments_;
};

class OmpSddmmAspt : public SddmmVariant {
 public:
  explicit OmpSddmmAspt(const aspt::AsptParams& params) : params_(params) {}
  const char* name() const override { return "omp.sddmm.aspt"; }
  const char* summary() const override {
    return "OpenMP ASpT: row panels, heavy columns as L2-sized dense tiles, the rest row-wise (PPoPP'19)";
  }
  Backend backend() const override { return Backend::kOmp; }
  std::unique_ptr<SddmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<OmpSddmmAsptPlan>(s, k, params_);
  }

 private:
  aspt::AsptParams params_;
};

}  // namespace

std::unique_ptr<SddmmVariant> make_omp_sddmm_aspt() { return std::make_unique<OmpSddmmAspt>(aspt::AsptParams{}); }
std::unique_ptr<SddmmVariant> make_omp_sddmm_aspt_with(const aspt::AsptParams& params) {
  return std::make_unique<OmpSddmmAspt>(params);
}

}  // namespace fk
