// ASpT (kernels/omp/aspt_tiling.hpp) beyond what the registered variants see with their default
// parameters: the tiling's invariants on every awkward problem and parameter extreme, the worked
// example of the header, and the ASpT SDDMM/SpMM kernels with forced small panels and tiles (so
// that rows cross several tiles, panels end mid-matrix and every column can be heavy) against
// ref.*, with fresh random inputs and poisoned outputs. Every problem runs twice: as generated
// (unsorted rows, so heavy entries move) and with sorted rows, where most tiled rows stay in
// place and are read and written without the permutation.
#include <gtest/gtest.h>

#include <limits>
#include <utility>

#include "kernels/omp/aspt_tiling.hpp"
#include "kernels/omp/omp_variants.hpp"
#include "problems.hpp"

namespace fk {
namespace {

using aspt::AsptParams;

AsptParams forced(std::int64_t panel_rows, std::int64_t threshold, std::int64_t tile_cols) {
  AsptParams p;
  p.panel_rows = panel_rows;
  p.heavy_threshold = threshold;
  p.tile_cols = tile_cols;
  p.b_row_bytes = 4;
  p.cached_b_bytes = 1;     // no cache rule: every column reaching the threshold is heavy
  p.min_tile_row_nnz = -1;  // and every panel with a heavy column is tiled,
  p.min_heavy_share = -1;   // however few of its entries are heavy
  return p;
}

// Parameter extremes: one-row panels, threshold 1 (every column heavy), one-column tiles, and
// sizes that do not divide the problems' shapes; and a share rule that tiles only some panels.
std::vector<AsptParams> parameter_sets() {
  AsptParams half_heavy = forced(4, 2, 3);
  half_heavy.min_heavy_share = 0.5;
  return {forced(1, 1, 1), forced(3, 2, 2), forced(8, 2, 5), forced(16, 3, 64), forced(64, 2, 1 << 20), half_heavy};
}

// parameter_sets() and the resolved parameters of `prob` at K = 1, 32 and 1000 (two threads).
std::vector<AsptParams> parameter_sets_for(const test::Problem& prob) {
  std::vector<AsptParams> sets = parameter_sets();
  for (int k : {1, 32, 1000})
    sets.push_back(aspt::resolve_params({}, prob.s.rows, prob.s.cols, prob.s.nnz(), k, 2));
  return sets;
}

// The awkward problems, each followed by a copy whose rows are sorted by column (values moved along).
std::vector<test::Problem> problems_in_both_orders(std::uint64_t seed) {
  std::vector<test::Problem> out;
  for (auto& prob : test::awkward_problems(seed)) {
    test::Problem sorted = prob;
    sorted.name += " (rows sorted)";
    sort_columns(sorted.s);
    out.push_back(std::move(prob));
    out.push_back(std::move(sorted));
  }
  return out;
}

TEST(AsptTiling, WorkedExampleFromTheHeader) {
  HostCsr s;
  s.rows = 2;
  s.cols = 8;
  s.row_ptr = {0, 3, 6};
  s.col_idx = {5, 1, 3, 3, 7, 5};
  const auto t = aspt::build_aspt_tiling(s.view(), forced(2, 2, 1));
  EXPECT_EQ(t.heavy_cols, (std::vector<std::int32_t>{3, 5}));
  EXPECT_EQ(t.order->col_idx, (std::vector<std::int32_t>{3, 5, 1, 3, 5, 7}));
  EXPECT_EQ(t.order->perm, (std::vector<std::int64_t>{2, 0, 1, 3, 5, 4}));
  EXPECT_EQ(t.heavy_end, (std::vector<std::int64_t>{2, 5}));
  EXPECT_EQ(t.in_place, (std::vector<char>{0, 0}));
  EXPECT_EQ(t.heavy_nnz, 4);
  aspt::check_aspt_tiling(t, s.view());
  // The checker refuses a tiling that breaks an invariant (else the checks below prove nothing):
  // a permutation that repeats an entry, a heavy part ending past its row, an unsorted heavy
  // column list, a count of heavy nonzeros that disagrees.
  {
    // t with its order changed by `change`.
    auto with_order = [&](auto change) {
      auto order = std::make_shared<aspt::AsptOrder>(*t.order);
      change(*order);
      auto bad = t;
      bad.order = order;
      return bad;
    };
    auto bad = with_order([](aspt::AsptOrder& o) { o.perm[1] = o.perm[0]; });
    EXPECT_THROW(aspt::check_aspt_tiling(bad, s.view()), Error);
    bad = t;
    bad.heavy_end[0] = 4;
    EXPECT_THROW(aspt::check_aspt_tiling(bad, s.view()), Error);
    bad = t;
    std::swap(bad.heavy_cols[0], bad.heavy_cols[1]);
    EXPECT_THROW(aspt::check_aspt_tiling(bad, s.view()), Error);
    bad = t;
    bad.heavy_nnz = 3;
    EXPECT_THROW(aspt::check_aspt_tiling(bad, s.view()), Error);
    // row 0's light entry no longer S's column at its position
    bad = with_order([](aspt::AsptOrder& o) { o.col_idx[2] = 2; });
    EXPECT_THROW(aspt::check_aspt_tiling(bad, s.view()), Error);
  }
  // With S's rows sorted, {1 3 5} and {3 5 7}, row 1's heavy 3 5 already lead in order: the
  // reordering leaves it in place; row 0 becomes [3 5 | 1].
  HostCsr sorted = s;
  sorted.col_idx = {1, 3, 5, 3, 5, 7};
  const auto ts = aspt::build_aspt_tiling(sorted.view(), forced(2, 2, 1));
  EXPECT_EQ(ts.order->perm, (std::vector<std::int64_t>{1, 2, 0, 3, 4, 5}));
  EXPECT_EQ(ts.in_place, (std::vector<char>{0, 1}));
  aspt::check_aspt_tiling(ts, sorted.view());
  // The cache rule: columns 3 and 5 are used every min(6 nonzeros / 2 uses, 4 columns) = 3 B rows
  // of 4 bytes = 12 bytes. A cache holding fewer keeps them heavy; one holding 12 serves them row
  // by row, and the panel stays plain CSR rows in S's order: with no heavy column anywhere the
  // tiling keeps no reordered copy, and every row ends its heavy part where it starts.
  AsptParams p = forced(2, 2, 1);
  p.cached_b_bytes = 11;
  EXPECT_EQ(aspt::build_aspt_tiling(s.view(), p).heavy_nnz, 4);
  p.cached_b_bytes = 12;
  const auto plain = aspt::build_aspt_tiling(s.view(), p);
  EXPECT_EQ(plain.heavy_nnz, 0);
  EXPECT_EQ(plain.order, nullptr);
  EXPECT_EQ(plain.heavy_end, (std::vector<std::int64_t>{0, 3}));
  aspt::check_aspt_tiling(plain, s.view());
  // The panel rule: 4 heavy entries over 2 rows x 1 tile (tile_cols 2) are 2 per (row, tile).
  p = forced(2, 2, 2);
  p.min_tile_row_nnz = 2;
  EXPECT_EQ(aspt::build_aspt_tiling(s.view(), p).heavy_nnz, 4);
  p.min_tile_row_nnz = 3;
  EXPECT_EQ(aspt::build_aspt_tiling(s.view(), p).heavy_nnz, 0);
  aspt::check_aspt_tiling(aspt::build_aspt_tiling(s.view(), p), s.view());
  // The share rule: the 4 heavy entries are 2/3 of the panel's 6.
  p = forced(2, 2, 2);
  p.min_heavy_share = 0.6;
  EXPECT_EQ(aspt::build_aspt_tiling(s.view(), p).heavy_nnz, 4);
  p.min_heavy_share = 0.7;
  EXPECT_EQ(aspt::build_aspt_tiling(s.view(), p).heavy_nnz, 0);
  aspt::check_aspt_tiling(aspt::build_aspt_tiling(s.view(), p), s.view());
}

TEST(AsptTiling, InvariantsOnEveryProblemAndParameterSet) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("replay: FK_TEST_SEED=" + std::to_string(seed));
  for (const auto& prob : problems_in_both_orders(seed)) {
    for (const auto& p : parameter_sets_for(prob)) {
      SCOPED_TRACE(prob.name + " panel_rows " + std::to_string(p.panel_rows) + " threshold " +
                   std::to_string(p.heavy_threshold) + " tile_cols " + std::to_string(p.tile_cols));
      const auto t = aspt::build_aspt_tiling(prob.s.view(), p);
      EXPECT_NO_THROW(aspt::check_aspt_tiling(t, prob.s.view()));
    }
  }
}

// `a` and `b` tile S alike: the same tiled panels, heavy columns, pieces and rows in place, and the
// same columns and positions in every reordered row.
void expect_same_tiling(const aspt::AsptTiling& a, const aspt::AsptTiling& b) {
  EXPECT_EQ(a.heavy_ptr, b.heavy_ptr);
  EXPECT_EQ(a.heavy_cols, b.heavy_cols);
  EXPECT_EQ(a.heavy_end, b.heavy_end);
  ASSERT_EQ(a.in_place, b.in_place);
  EXPECT_EQ(a.piece_ptr, b.piece_ptr);
  EXPECT_EQ(a.piece_end, b.piece_end);
  EXPECT_EQ(a.heavy_nnz, b.heavy_nnz);
  ASSERT_EQ(a.order == nullptr, b.order == nullptr);
  for (std::int64_t r = 0; r < a.rows; ++r)
    for (std::int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1] && !a.in_place[r]; ++j)
      ASSERT_TRUE(a.order->col_idx[j] == b.order->col_idx[j] &&
                  a.order->perm[j] == b.order->perm[j])
          << "row " << r << " entry " << j;
}

// The SDDMM and SpMM plans of one pattern differ in tile_cols only and share one order: each tiling
// on it must be the one it would build on its own, also where the panel rule, which counts tiles,
// tiles a panel for one tile_cols and not for another.
TEST(AsptTiling, TilingsOnASharedOrderEqualTheirOwn) {
  HostCsr s;  // the header's example: 4 heavy entries in 2 rows, 2 per (row, tile) with one tile
  s.rows = 2;
  s.cols = 8;
  s.row_ptr = {0, 3, 6};
  s.col_idx = {5, 1, 3, 3, 7, 5};
  AsptParams wide = forced(2, 2, 2);
  wide.min_tile_row_nnz = 2;
  AsptParams narrow = wide;
  narrow.tile_cols = 1;  // two tiles: 1 heavy entry per (row, tile), below the rule's 2
  const auto order =
      std::make_shared<const aspt::AsptOrder>(aspt::build_aspt_order(s.view(), narrow));
  const auto tw = aspt::build_aspt_tiling(s.view(), order, wide),
             tn = aspt::build_aspt_tiling(s.view(), order, narrow);
  EXPECT_EQ(tw.heavy_nnz, 4);
  EXPECT_EQ(tw.order, order);
  EXPECT_EQ(tn.heavy_nnz, 0);
  EXPECT_EQ(tn.order, nullptr);  // tiles nothing, so keeps no order alive
  EXPECT_EQ(tn.in_place, (std::vector<char>{1, 1}));
  aspt::check_aspt_tiling(tw, s.view());
  aspt::check_aspt_tiling(tn, s.view());

  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("replay: FK_TEST_SEED=" + std::to_string(seed));
  for (const auto& prob : problems_in_both_orders(seed)) {
    for (const auto& p : parameter_sets_for(prob)) {
      const auto shared =
          std::make_shared<const aspt::AsptOrder>(aspt::build_aspt_order(prob.s.view(), p));
      for (std::int64_t tile_cols :
           {std::int64_t(1), std::int64_t(3), p.tile_cols, std::int64_t(1) << 20}) {
        SCOPED_TRACE(prob.name + " panel_rows " + std::to_string(p.panel_rows) + " tile_cols " +
                     std::to_string(tile_cols) + " (order's " + std::to_string(p.tile_cols) + ")");
        AsptParams q = p;
        q.tile_cols = tile_cols;
        const auto t = aspt::build_aspt_tiling(prob.s.view(), shared, q);
        EXPECT_NO_THROW(aspt::check_aspt_tiling(t, prob.s.view()));
        expect_same_tiling(t, aspt::build_aspt_tiling(prob.s.view(), q));
      }
    }
  }
}

TEST(AsptTiling, ResolvedParametersArePositive) {
  for (std::int64_t rows : {0, 1, 7, 100000})
    for (int k : {1, 33, 100000})
      for (int threads : {1, 2, 64}) {
        const auto p = aspt::resolve_params({}, rows, 1000, rows * 3, k, threads);
        EXPECT_GE(p.panel_rows, 1);
        EXPECT_GE(p.heavy_threshold, 1);
        EXPECT_GE(p.tile_cols, 1);
        EXPECT_GE(p.b_row_bytes, 4);
        EXPECT_GE(p.cached_b_bytes, 1);
        EXPECT_GE(p.min_tile_row_nnz, 1);
        EXPECT_GT(p.min_heavy_share, 0);
      }
  AsptParams explicit_p = forced(5, 3, 7);
  const auto kept = aspt::resolve_params(explicit_p, 1000, 1000, 5000, 64, 2);
  EXPECT_EQ(kept.panel_rows, 5);
  EXPECT_EQ(kept.heavy_threshold, 3);
  EXPECT_EQ(kept.tile_cols, 7);
}

// The cache-sized defaults, on a core of 32 KiB L1 and 512 KiB L2: B rows count as cached up to
// the L2 from K = 128; a tile holds about 16 of a row's entries at S's density, between the L1 (in B bytes)
// and a quarter of the L2.
TEST(AsptTiling, DefaultsFollowTheCaches) {
  const aspt::CoreCaches caches{32 * 1024, 512 * 1024};
  // 50% dense at K = 128: 32 columns would do, the L1 holds 64 B rows of 512 bytes.
  AsptParams p = aspt::resolve_params({}, 256, 2304, 294912, 128, 2, caches);
  EXPECT_EQ(p.cached_b_bytes, 512 * 1024);
  EXPECT_EQ(p.tile_cols, 64);
  EXPECT_EQ(p.b_row_bytes, 512);
  EXPECT_EQ(p.panel_rows, 64);  // 256 rows, two panels per thread
  // Shorter B rows count as cached in proportionally more bytes: K = 64 twice the L2, K = 32 four times.
  EXPECT_EQ(aspt::resolve_params({}, 256, 2304, 294912, 64, 2, caches).cached_b_bytes, 1024 * 1024);
  EXPECT_EQ(aspt::resolve_params({}, 256, 2304, 294912, 32, 2, caches).cached_b_bytes, 2048 * 1024);
  EXPECT_EQ(aspt::resolve_params({}, 256, 2304, 294912, 512, 2, caches).cached_b_bytes, 512 * 1024);
  // 20% dense at K = 256: 80 columns of 1 KiB; 10%: 160, capped at 128 KiB of B.
  EXPECT_EQ(aspt::resolve_params({}, 256, 2304, 117965, 256, 2, caches).tile_cols, 80);
  EXPECT_EQ(aspt::resolve_params({}, 512, 4608, 235929, 256, 2, caches).tile_cols, 128);
  // A larger L2 allows larger tiles, but counts as cached only up to 512 KiB: B rows from L2 come
  // slower than the FMAs need, and tiles paid beyond that on a 2 MiB L2 (kMaxCachedL2Bytes).
  const aspt::CoreCaches big{48 * 1024, 2048 * 1024};
  p = aspt::resolve_params({}, 512, 4608, 235929, 256, 2, big);
  EXPECT_EQ(p.cached_b_bytes, 512 * 1024);
  EXPECT_EQ(p.tile_cols, 160);
  EXPECT_EQ(aspt::resolve_params({}, 512, 4608, 235929, 32, 2, big).cached_b_bytes, 2048 * 1024);
  // The largest tiles (the SDDMM's): a quarter of the L2 whatever the density, 128 KiB of 512-byte
  // rows, or of 1 KiB rows with the larger L2.
  const AsptParams largest = aspt::sddmm_request({});
  EXPECT_EQ(aspt::resolve_params(largest, 256, 2304, 294912, 128, 2, caches).tile_cols, 256);
  EXPECT_EQ(aspt::resolve_params(largest, 512, 4608, 235929, 256, 2, big).tile_cols, 512);
}

using test::random_matrix;

TEST(AsptKernels, SddmmWithForcedTilesMatchesReference) {
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  Context cpu(DeviceKind::kCpu);
  for (const auto& params : parameter_sets()) {
    const auto variant = make_omp_sddmm_aspt_with(params);
    for (const auto& prob : problems_in_both_orders(seed)) {
      for (int k : {1, 7, 33, 130}) {
        if (double(prob.s.rows + prob.s.cols) * k > 4e5 || double(prob.s.nnz()) * k > 2e6) continue;
        SCOPED_TRACE(prob.name + " K=" + std::to_string(k) + " panel_rows " + std::to_string(params.panel_rows) +
                     " tile_cols " + std::to_string(params.tile_cols) + " (replay: FK_TEST_SEED=" + std::to_string(seed) + ")");
        const auto s = prob.s.view();
        auto plan = variant->prepare(cpu, s, k);
        auto ref = make_sddmm_plan(cpu, s, k, "ref.sddmm");
        for (int scaled = 0; scaled < 2; ++scaled) {
          const HostDense<float> a = random_matrix(s.rows, k, rng), b = random_matrix(s.cols, k, rng);
          const std::vector<float> sc = test::random_dense(s.nnz, rng);
          const float* scale = scaled ? sc.data() : nullptr;
          std::vector<float> got(s.nnz, std::numeric_limits<float>::quiet_NaN()), want(s.nnz), bound(s.nnz);
          plan->run(cpu, a.view(), b.view(), scale, got.data());
          ref.run(cpu, a.view(), b.view(), scale, want.data());
          HostDense<float> aa = a, ab = b;
          aa.storage() = test::abs_values(a.storage());
          ab.storage() = test::abs_values(b.storage());
          const std::vector<float> asc = test::abs_values(sc);
          ref.run(cpu, aa.view(), ab.view(), scaled ? asc.data() : nullptr, bound.data());
          const std::string bad = test::check_within_bound(got, want, bound);
          EXPECT_TRUE(bad.empty()) << bad;
        }
      }
    }
  }
}

TEST(AsptKernels, SpmmWithForcedTilesMatchesReference) {
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  Context cpu(DeviceKind::kCpu);
  for (const auto& params : parameter_sets()) {
    const auto variant = make_omp_spmm_aspt_with(params);
    for (const auto& prob : problems_in_both_orders(seed)) {
      for (int k : {1, 7, 33, 130}) {
        if (double(prob.s.rows + prob.s.cols) * k > 4e5 || double(prob.s.nnz()) * k > 2e6) continue;
        SCOPED_TRACE(prob.name + " K=" + std::to_string(k) + " panel_rows " + std::to_string(params.panel_rows) +
                     " tile_cols " + std::to_string(params.tile_cols) + " (replay: FK_TEST_SEED=" + std::to_string(seed) + ")");
        const auto s = prob.s.view();
        auto plan = variant->prepare(cpu, s, k);
        auto ref = make_spmm_plan(cpu, s, k, Op::kNoTrans, "ref.spmm");
        for (int round = 0; round < 2; ++round) {  // the plan is reused with new values
          // At least one value: ref.spmm rejects a null pointer even when nnz is 0.
          const std::vector<float> vals = test::random_dense(std::max<std::int64_t>(s.nnz, 1), rng);
          const HostDense<float> b = random_matrix(s.cols, k, rng);
          HostDense<float> got(s.rows, k, std::numeric_limits<float>::quiet_NaN()), want(s.rows, k), bound(s.rows, k);
          plan->run(cpu, vals.data(), b.view(), got.view());
          ref.run(cpu, vals.data(), b.view(), want.view());
          HostDense<float> ab = b;
          ab.storage() = test::abs_values(b.storage());
          const std::vector<float> av = test::abs_values(vals);
          ref.run(cpu, av.data(), ab.view(), bound.view());
          const std::string bad = test::check_within_bound(got.storage(), want.storage(), bound.storage());
          EXPECT_TRUE(bad.empty()) << "round " << round << ": " << bad;
        }
      }
    }
  }
}

// The SDDMM and SpMM plans of one pattern (tile_cols differ, as the registered variants' do) build
// one order between them; a plan of another pattern, even an equal copy, builds its own; and an
// order lives only as long as plans hold it.
TEST(AsptKernels, PlansOfOnePatternShareOneOrder) {
  Context cpu(DeviceKind::kCpu);
  Rng rng(test::fresh_seed());
  const HostCsr s = test::random_pattern(300, 200, rng, [](std::int64_t) { return 40; });
  const HostCsr copy = s;
  const AsptParams sddmm_params = forced(16, 2, 64), spmm_params = forced(16, 2, 8);
  const auto sddmm = make_omp_sddmm_aspt_with(sddmm_params);
  const auto spmm = make_omp_spmm_aspt_with(spmm_params);
  ASSERT_GT(aspt::build_aspt_tiling(s.view(), sddmm_params).heavy_nnz, 0);  // the plans tile
  const std::int64_t built = aspt::aspt_orders_built();
  {
    const auto a = sddmm->prepare(cpu, s.view(), 32);
    const auto b = spmm->prepare(cpu, s.view(), 32);
    EXPECT_EQ(aspt::aspt_orders_built(), built + 1);
    const auto c = spmm->prepare(cpu, copy.view(), 32);
    EXPECT_EQ(aspt::aspt_orders_built(), built + 2);
  }
  const auto again = spmm->prepare(cpu, s.view(), 32);
  EXPECT_EQ(aspt::aspt_orders_built(), built + 3);
}

}  // namespace
}  // namespace fk
