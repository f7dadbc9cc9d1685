// omp.spmm.aspt: ASpT multicore SpMM (Hong et al., PPoPP'19, section 4.2).
//
// prepare() builds the panel/tile analysis (kernels/omp/aspt_tiling.hpp) on the reordered entries
// that the pattern's other ASpT plans share. run(), per panel (dynamic schedule, one panel at a
// time per thread):
//   0. gathers the values of the panel's reordered rows into the tiling's entry order, in a buffer
//      of the thread's that one panel fills (values arrive in S's order; rows the tiling marks
//      in_place are read where they are);
//   1. heavy part: tile by tile, every row of the panel adds its entries in the tile to its C row,
//      so the tile's B rows (sized for L2) are read from memory once per panel and reused from
//      cache by the panel's other rows, while the panel's C rows stay in L2 between tiles;
//   2. light part: row by row, added to the C row.
// A C row's first contribution overwrites it (rows with no entries are zeroed), later ones add to
// it; each row belongs to one panel, so no two threads touch the same row. Register blocking over
// K as in omp.spmm.rows (kernels/omp/simd.hpp). A single very long row is one thread's work here;
// `auto` sends such matrices to omp.spmm.nnz_balanced.
#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/omp/aspt_tiling.hpp"
#include "kernels/omp/common.hpp"
#include "kernels/omp/omp_variants.hpp"
#include "kernels/omp/simd.hpp"

namespace fk {
namespace {

class OmpSpmmAsptPlan : public SpmmPlan {
 public:
  OmpSpmmAsptPlan(const CsrView& s, int k, const aspt::AsptParams& requested)
      : s_(s),
        k_(k),
        tiling_(aspt::build_shared_order_tiling(
            s, aspt::resolve_params(requested, s.rows, s.cols, s.nnz, k,
                                    omp_common::split_threads()))) {
    for (std::int64_t p = 0; p < tiling_.num_panels(); ++p)
      if (tiling_.num_tiles(p) > 0)
        panel_vals_size_ = std::max(
            panel_vals_size_, s.row_ptr[tiling_.panel_end(p)] - s.row_ptr[tiling_.panel_begin(p)]);
  }

  void run(const Context&, const float* vals, DenseView<const float> b, DenseView<float> c) override {
    check_spmm_operands("omp.spmm.aspt", s_, Op::kNoTrans, k_, b, c);
    vals = spmm_values("omp.spmm.aspt", s_, vals);
    const aspt::AsptTiling& t = tiling_;
    const std::int64_t panels = t.num_panels(), k = k_;
    const std::int64_t* perm = t.order ? t.order->perm.data() : nullptr;
    panel_vals_.resize(static_cast<std::size_t>(panel_vals_size_ * omp_get_max_threads()));
    const float* bd = b.data;
    const std::int64_t ldb = b.cols;
#pragma omp parallel
    {
      std::vector<char> written(static_cast<std::size_t>(t.params.panel_rows));
      // A tiled panel's reordered values, indexed from the panel's first entry.
      float* rv = panel_vals_.data() + panel_vals_size_ * omp_get_thread_num();
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t p = 0; p < panels; ++p) {
        const std::int64_t r0 = t.panel_begin(p), r1 = t.panel_end(p);
        const std::int64_t h0 = t.heavy_ptr[p], h1 = t.heavy_ptr[p + 1];
        if (h0 == h1) {  // untiled panel: S's rows as they are, as lean as omp.spmm.rows (short rows
                         // cannot afford any per-row bookkeeping)
          for (std::int64_t r = r0; r < r1; ++r) {
            const std::int64_t j0 = s_.row_ptr[r];
            omp_simd::spmm_row(s_.col_idx + j0, vals + j0, s_.row_ptr[r + 1] - j0, bd, ldb, k, c.row(r), false);
          }
          continue;
        }
        const std::int64_t first = t.row_ptr[r0];
        for (std::int64_t r = r0; r < r1; ++r) {
          written[r - r0] = 0;
          if (!t.in_place[r])  // reordered row: gather its values
            for (std::int64_t j = t.row_ptr[r]; j < t.row_ptr[r + 1]; ++j)
              rv[j - first] = vals[perm[j]];
        }
        // Row r's value of entry j.
        auto row_vals = [&](std::int64_t r, std::int64_t j) {
          return t.in_place[r] ? vals + j : rv + (j - first);
        };
        for (std::int64_t ti = 0; ti < t.num_tiles(p); ++ti) {
          const std::int64_t *ends = t.piece_ends(p, ti), *starts = ti > 0 ? t.piece_ends(p, ti - 1) : nullptr;
          for (std::int64_t r = r0; r < r1; ++r) {
            const std::int64_t j0 = starts ? starts[r - r0] : t.row_ptr[r], j1 = ends[r - r0];
            if (j1 == j0) continue;
            omp_simd::spmm_row(t.row_cols(r, s_.col_idx) + j0, row_vals(r, j0), j1 - j0, bd, ldb, k,
                               c.row(r), written[r - r0]);
            written[r - r0] = 1;
          }
        }
        for (std::int64_t r = r0; r < r1; ++r) {
          const std::int64_t j0 = t.heavy_end[r], j1 = t.row_ptr[r + 1];
          if (j1 > j0 || !written[r - r0])
            omp_simd::spmm_row(t.row_cols(r, s_.col_idx) + j0, row_vals(r, j0), j1 - j0, bd, ldb, k,
                               c.row(r), written[r - r0]);
        }
      }
    }
  }

 private:
  CsrView s_;
  int k_;
  aspt::AsptTiling tiling_;
  // Per thread, a tiled panel's values in the tiling's entry order: panel_vals_size_ floats each
  // (the largest tiled panel's entries) instead of a copy of every value.
  std::int64_t panel_vals_size_ = 0;
  std::vector<float> panel_vals_;
};

class OmpSpmmAspt : public SpmmVariant {
 public:
  explicit OmpSpmmAspt(const aspt::AsptParams& params) : params_(params) {}
  const char* name() const override { return "omp.spmm.aspt"; }
  const char* summary() const override {
    return "OpenMP ASpT: row panels, heavy columns as L2-sized dense tiles, the rest row-wise (PPoPP'19)";
  }
  Backend backend() const override { return Backend::kOmp; }
  std::unique_ptr<SpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<OmpSpmmAsptPlan>(s, k, params_);
  }

 private:
  aspt::AsptParams params_;
};

}  // namespace

std::unique_ptr<SpmmVariant> make_omp_spmm_aspt() { return std::make_unique<OmpSpmmAspt>(aspt::AsptParams{}); }
std::unique_ptr<SpmmVariant> make_omp_spmm_aspt_with(const aspt::AsptParams& params) {
  return std::make_unique<OmpSpmmAspt>(params);
}

}  // namespace fk
