// Cases specific to the CUDA SDDMM variants (kernels/cuda/sddmm_*.cu), beyond the shared
// conformance suite:
//   * every walker configuration and its edges: K = 1 .. 1030, multiples of 4 or not, one past
//     each configuration's width, and beyond one chunk (1028 on the float4 path, 260 on the
//     scalar path: the chunked K loop);
//   * misaligned A and B (a view one float into its allocation): the scalar fallback even when
//     K % 4 == 0;
//   * rows longer than a PRedS tile and an ASpT panel, long runs of empty rows (the row search),
//     a single row spanning the whole matrix;
//   * ASpT panels whose heavy columns exceed the shared-memory slots (the cap), GPU-Shared with
//     several K slices (atomics into a zeroed output) on a plan run repeatedly;
//   * nnz = 0 and M = 0 (nothing launched, nothing written);
//   * opt-in (FK_TEST_HUGE=1, about 30 GB of device memory): more than 2^31 nonzeros.
// Expected values: a double-precision host loop; tolerance 1e-5 x sum_t |a_t b_t s| (as in the
// conformance suite). Outputs are NaN-poisoned before every run, one guard element past nnz must
// stay untouched. GPU tests skip without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/random.hpp"
#include "kernels/sddmm.hpp"
#include "problems.hpp"
#include "tests/test_util.hpp"

#if FK_WITH_CUDA

namespace fk {
namespace {

const std::vector<std::string> kCudaSddmm = {"cuda.sddmm.coo",    "cuda.sddmm.preds",
                                             "cuda.sddmm.shared", "cuda.sddmm.convert",
                                             "cuda.sddmm.aspt",   "cuda.sddmm.cusparse"};

// want and bound (sum_t |a_t b_t s|) per nonzero, in double.
struct Expected {
  std::vector<float> want, bound;
};
Expected host_sddmm(const HostCsr& s, const std::vector<float>& a, const std::vector<float>& b,
                    int k, const std::vector<float>* scale) {
  Expected e{std::vector<float>(s.nnz()), std::vector<float>(s.nnz())};
  for (std::int64_t i = 0; i < s.rows; ++i) {
    for (std::int64_t j = s.row_ptr[i]; j < s.row_ptr[i + 1]; ++j) {
      const float* ar = a.data() + i * k;
      const float* br = b.data() + std::int64_t(s.col_idx[j]) * k;
      double acc = 0, mag = 0;
      for (int t = 0; t < k; ++t) {
        acc += double(ar[t]) * double(br[t]);
        mag += std::fabs(double(ar[t]) * double(br[t]));
      }
      const double sc = scale ? (*scale)[j] : 1.0;
      e.want[j] = static_cast<float>(acc * sc);
      e.bound[j] = static_cast<float>(mag * std::fabs(sc));
    }
  }
  return e;
}

// Runs `variant` on S (uploaded) with fresh A, B (offset by `offset` floats into their device
// allocations), unscaled then scaled, `rounds` times on one plan; returns "" or what failed.
std::string run_and_check(const std::string& variant, const HostCsr& s, int k, int offset, Rng& rng,
                          int rounds = 2) {
  Context ctx(DeviceKind::kGpu);
  DeviceCsr ds(s);
  PreparedSddmm plan = make_sddmm_plan(ctx, ds.view(), k, variant);
  const std::int64_t nnz = s.nnz();
  std::ostringstream os;
  for (int round = 0; round < rounds; ++round) {
    const bool scaled = round % 2 == 1;
    const std::vector<float> a = test::random_dense(s.rows * k, rng),
                             b = test::random_dense(s.cols * k, rng);
    const std::vector<float> scale = test::random_dense(nnz, rng);
    DeviceBuffer<float> da(s.rows * k + offset + 1), db(s.cols * k + offset + 1), dscale(scale);
    da.upload(a.data(), s.rows * k, offset);
    db.upload(b.data(), s.cols * k, offset);
    DeviceBuffer<float> dout(nnz + 1);
    dout.fill_bytes(0xFF);  // NaN everywhere, including the guard element at [nnz]
    plan.run(ctx, DenseView<const float>{da.data() + offset, s.rows, k},
             DenseView<const float>{db.data() + offset, s.cols, k},
             scaled ? dscale.data() : nullptr, dout.data());
    ctx.synchronize();
    std::vector<float> got = dout.to_host();
    if (!std::isnan(got[nnz])) os << "round " << round << ": wrote past nnz; ";
    got.pop_back();
    const Expected e = host_sddmm(s, a, b, k, scaled ? &scale : nullptr);
    const std::string bad = test::check_within_bound(got, e.want, e.bound);
    if (!bad.empty())
      os << "round " << round << (scaled ? " (scaled): " : " (unscaled): ") << bad << "; ";
  }
  return os.str();
}

std::string label(const std::string& variant, const std::string& problem, int k, int offset) {
  std::ostringstream os;
  os << variant << " on " << problem << ", K=" << k << (offset ? ", misaligned A/B" : "");
  return os.str();
}

// Uneven rows of a small matrix go to convert at every K (cuSPARSE's row split waits on the
// longest rows): MovieLens 100K's users (cv 0.95) at K = 256, where convert ran 3.4x faster; an
// even one of the same work (bcsstk13, cv 0.54) stays with cuSPARSE. Needs no device.
TEST(CudaSddmmSpecific, AutoOnUnevenSmallMatrices) {
  EXPECT_STREQ(
      choose_sddmm_variant(DeviceKind::kGpu, test::rule_problem(256, 943, 106, 0.95)).name(),
      "cuda.sddmm.convert");
  EXPECT_STREQ(
      choose_sddmm_variant(DeviceKind::kGpu, test::rule_problem(256, 2003, 42, 0.54)).name(),
      "cuda.sddmm.cusparse");
}

// PRedS's rule for large matrices of long rows at K = 64..128 (kernels/select.cpp) needs columns
// that spread: a banded matrix of the same size and rows (column span 0.0005) stays with cuSPARSE.
// Needs no device.
TEST(CudaSddmmSpecific, AutoPredsOnlyWhereColumnsSpread) {
  for (int k : {64, 128}) {
    KernelProblem spread = test::rule_problem(k, 480189, 209, 0.71);  // netflix
    spread.sparse.col_span = 0.99;
    EXPECT_STREQ(choose_sddmm_variant(DeviceKind::kGpu, spread).name(), "cuda.sddmm.preds") << k;
    KernelProblem banded = test::rule_problem(k, 500000, 120, 0.0);
    banded.sparse.col_span = 0.0005;
    EXPECT_STREQ(choose_sddmm_variant(DeviceKind::kGpu, banded).name(), "cuda.sddmm.cusparse") << k;
  }
}

// Short rows of large matrices (kernels/select.cpp): convert for rows of up to 8, and for rows of
// up to 32 at K <= 64 only when the columns are local (a banded matrix); spread rows of 25 stay
// with cuSPARSE. Needs no device.
TEST(CudaSddmmSpecific, AutoOnShortRows) {
  auto pick = [](double mean, double span) {
    KernelProblem p = test::rule_problem(32, 1000000, mean, 0.2);
    p.sparse.col_span = span;
    return std::string(choose_sddmm_variant(DeviceKind::kGpu, p).name());
  };
  EXPECT_EQ(pick(6, 0.99), "cuda.sddmm.convert");
  EXPECT_EQ(pick(20, 0.0001), "cuda.sddmm.convert");
  EXPECT_EQ(pick(25, 0.99), "cuda.sddmm.cusparse");
}

// Short rows, a row longer than any tile or panel (5000 > 2048), runs of empty rows, unsorted
// columns; 600 x 900.
HostCsr mixed_rows(Rng& rng) {
  return test::random_pattern(600, 900, rng, [&](std::int64_t r) -> std::int64_t {
    if (r == 77) return 900;            // a full row
    if (r >= 300 && r < 420) return 0;  // 120 empty rows in a row
    return static_cast<std::int64_t>(rng.below(12));
  });
}

// GPU `auto` at K = 32 on the report's matrices of long rows (kernels/select.cpp): convert for
// little work in all, for small matrices of long rows, and for large ones whose columns spread.
// Needs no device.
TEST(CudaSddmmSpecific, AutoOnMatricesOfLongRowsAtK32) {
  struct Case {
    const char* matrix;
    std::int64_t rows;
    double mean;
    const char* want;
  };
  // Up to nnz x K = 2^24 convert takes every matrix (final_dense and bcsstk13 too, since its
  // units shrink to the machine); above, the small-matrix long-row rule keeps nips, and the large
  // one takes nytimes (cuSPARSE before convert ran four blocks per SM at K <= 32).
  const Case cases[] = {{"DLMC 0.9 final_dense", 1000, 205, "cuda.sddmm.convert"},
                        {"DLMC 0.9 bottleneck_2_block_group4_2_1", 512, 461, "cuda.sddmm.convert"},
                        {"DLMC 0.5 bottleneck_2_block_group3_1_1", 256, 1152, "cuda.sddmm.convert"},
                        {"nips", 1500, 499, "cuda.sddmm.convert"},
                        {"bcsstk13", 2003, 42, "cuda.sddmm.convert"},
                        {"nytimes", 300000, 230, "cuda.sddmm.convert"}};
  for (const Case& c : cases) {
    KernelProblem p = test::rule_problem(32, c.rows, c.mean);
    p.sparse.col_span = 0.99;
    EXPECT_STREQ(choose_sddmm_variant(DeviceKind::kGpu, p).name(), c.want) << c.matrix;
  }
  // The small-matrix long-row rule reaches K = 64 (convert's three blocks per SM), not 128.
  KernelProblem nips = test::rule_problem(64, 1500, 499);
  nips.sparse.col_span = 0.99;
  EXPECT_STREQ(choose_sddmm_variant(DeviceKind::kGpu, nips).name(), "cuda.sddmm.convert");
  nips.k = 128;
  EXPECT_STREQ(choose_sddmm_variant(DeviceKind::kGpu, nips).name(), "cuda.sddmm.cusparse");
}

// Large matrices of long rows at K <= 32 (kernels/select.cpp): convert where the rows' columns
// spread and rows average at least 140 (netflix's 209); rows of 100 and a banded pattern stay with
// cuSPARSE, and K = 64 stays with PRedS. Needs no device.
TEST(CudaSddmmSpecific, AutoConvertOnLargeLongRowsAtSmallK) {
  auto pick = [](int k, double mean, double span) {
    KernelProblem p = test::rule_problem(k, 480189, mean, 0.71);
    p.sparse.col_span = span;
    return std::string(choose_sddmm_variant(DeviceKind::kGpu, p).name());
  };
  for (int k : {16, 32}) {
    EXPECT_EQ(pick(k, 209, 0.99), "cuda.sddmm.convert") << k;
    EXPECT_EQ(pick(k, 100, 0.99), "cuda.sddmm.cusparse") << k;
    EXPECT_EQ(pick(k, 209, 0.0005), "cuda.sddmm.cusparse") << k;
  }
  EXPECT_EQ(pick(64, 209, 0.99), "cuda.sddmm.preds");
}

TEST(CudaSddmmSpecific, EveryWidthAlignedAndMisaligned) {
  FK_REQUIRE_GPU();
  Rng rng(test::fresh_seed());
  const HostCsr s = mixed_rows(rng);
  const std::vector<int> widths = {1,  2,  4,   5,   8,   12,  16,  20,  31,   32,   36,
                                   64, 65, 128, 132, 256, 260, 512, 516, 1024, 1028, 1030};
  for (const auto& v : kCudaSddmm) {
    for (int k : widths) {
      for (int offset : {0, 1}) {
        if (offset == 1 && k % 4 != 0) continue;  // already scalar
        const std::string bad = run_and_check(v, s, k, offset, rng);
        EXPECT_TRUE(bad.empty()) << label(v, "mixed_rows", k, offset) << ": " << bad;
      }
    }
  }
}

// `auto` at a K that is not a multiple of 4, on enough work (nonzeros x K >= 5e6) that it runs the
// next multiple of 4 on zero-padded copies of A and B (kernels/registry.cpp, PaddedWidthSddmmPlan):
// results as at K, unscaled and scaled, aligned and misaligned operands, two rounds on one plan.
TEST(CudaSddmmSpecific, AutoPadsOddWidths) {
  FK_REQUIRE_GPU();
  Rng rng(test::fresh_seed());
  const HostCsr s = test::random_pattern(
      3000, 1500, rng, [&](std::int64_t) { return std::int64_t(40 + rng.below(120)); });
  for (int k : {49, 50, 51, 65}) {
    Context ctx(DeviceKind::kGpu);
    DeviceCsr ds(s);
    EXPECT_EQ(make_sddmm_plan(ctx, ds.view(), k, "auto").width, (k + 3) / 4 * 4) << k;
    EXPECT_EQ(make_sddmm_plan(ctx, ds.view(), k, "cuda.sddmm.convert").width, k) << k;
    for (int offset : {0, 1}) {
      const std::string bad = run_and_check("auto", s, k, offset, rng, 3);
      EXPECT_TRUE(bad.empty()) << label("auto", "random 3000 x 1500", k, offset) << ": " << bad;
    }
  }
}

// One row holding every nonzero (a "row with millions of nonzeros", scaled down): the tiled
// variants must spread it over many warps and blocks.
TEST(CudaSddmmSpecific, OneHugeRow) {
  FK_REQUIRE_GPU();
  Rng rng(test::fresh_seed());
  HostCsr s =
      test::random_pattern(3, 200000, rng, [](std::int64_t r) { return r == 1 ? 150000 : 0; });
  for (const auto& v : kCudaSddmm)
    for (int k : {3, 32}) {
      const std::string bad = run_and_check(v, s, k, 0, rng);
      EXPECT_TRUE(bad.empty()) << label(v, "one_huge_row", k, 0) << ": " << bad;
    }
}

// 1,000,000 rows, 1 in 50,000 non-empty: the row search crosses long runs of empty rows.
TEST(CudaSddmmSpecific, LongRunsOfEmptyRows) {
  FK_REQUIRE_GPU();
  Rng rng(test::fresh_seed());
  HostCsr s = test::random_pattern(1000000, 300, rng,
                                   [](std::int64_t r) { return r % 50000 == 49999 ? 40 : 0; });
  for (const auto& v : kCudaSddmm) {
    const std::string bad = run_and_check(v, s, 64, 0, rng);
    EXPECT_TRUE(bad.empty()) << label(v, "sparse_rows", 64, 0) << ": " << bad;
  }
}

// 256 rows x 2000 columns at 40% density: every panel has far more repeated columns than ASpT's
// shared-memory slots (192 at K = 128, 768 at K = 32), and GPU-Shared's tiles are dense.
TEST(CudaSddmmSpecific, HeavyColumnsBeyondSharedMemory) {
  FK_REQUIRE_GPU();
  Rng rng(test::fresh_seed());
  HostCsr s = test::random_pattern(256, 2000, rng, [](std::int64_t) { return 800; });
  for (const std::string v : {"cuda.sddmm.aspt", "cuda.sddmm.shared", "cuda.sddmm.preds"})
    for (int k : {32, 128, 200, 256}) {
      const std::string bad = run_and_check(v, s, k, 0, rng);
      EXPECT_TRUE(bad.empty()) << label(v, "dense_panels", k, 0) << ": " << bad;
    }
}

// Zipf-skewed columns (the nytimes shape, scaled down): hot columns are heavy in every panel.
TEST(CudaSddmmSpecific, ZipfColumns) {
  FK_REQUIRE_GPU();
  Rng rng(test::fresh_seed());
  HostCsr s;
  s.rows = 3000;
  s.cols = 4000;
  std::vector<double> w(s.cols);
  for (std::int64_t c = 0; c < s.cols; ++c) w[c] = 1.0 / double(c + 1);
  AliasTable zipf(w);
  std::vector<char> seen(s.cols, 0);
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const std::int64_t len = 5 + std::int64_t(rng.below(120));
    std::vector<std::int32_t> cols;
    for (std::int64_t t = 0; t < len; ++t) {
      const auto c = static_cast<std::int32_t>(zipf.sample(rng));
      if (!seen[c]) {
        seen[c] = 1;
        cols.push_back(c);
      }
    }
    for (auto c : cols) {
      seen[c] = 0;
      s.col_idx.push_back(c);
      s.vals.push_back(static_cast<float>(rng.uniform(-1, 1)));
    }
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  for (const auto& v : kCudaSddmm)
    for (int k : {32, 256}) {
      const std::string bad = run_and_check(v, s, k, 0, rng);
      EXPECT_TRUE(bad.empty()) << label(v, "zipf", k, 0) << ": " << bad;
    }
}

// A (row, column) stored more than once gets its dot product at every copy (plans are also built
// from arrays, which the file readers' duplicate check does not see). cuSPARSE's SpMM
// preprocessing wrote out of bounds on such patterns (spmm_cusparse.cu); this holds its SDDMM and
// ours to the same inputs. Rows longer than the column count, some empty; 60 x 45.
TEST(CudaSddmmSpecific, RepeatedEntries) {
  FK_REQUIRE_GPU();
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  HostCsr s;
  s.rows = 60;
  s.cols = 45;
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const std::int64_t len = r % 7 == 3 ? 0 : 1 + std::int64_t(rng.below(80));
    for (std::int64_t j = 0; j < len; ++j)
      s.col_idx.push_back(static_cast<std::int32_t>(rng.below(s.cols)));
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  for (const auto& v : kCudaSddmm)
    for (int k : {1, 4, 33, 64, 256}) {
      const std::string bad = run_and_check(v, s, k, 0, rng);
      EXPECT_TRUE(bad.empty()) << label(v, "repeated entries", k, 0) << " (FK_TEST_SEED=" << seed
                               << "): " << bad;
    }
}

// Several runs on one plan: GPU-Shared's K slices add atomically into an output that must be
// zeroed again each run; cuSPARSE preprocesses at the first run only.
TEST(CudaSddmmSpecific, PlanReuseWithAtomicSlices) {
  FK_REQUIRE_GPU();
  Rng rng(test::fresh_seed());
  const HostCsr s = mixed_rows(rng);
  for (const auto& v : kCudaSddmm) {
    const std::string bad = run_and_check(v, s, 300, 0, rng, /*rounds=*/4);
    EXPECT_TRUE(bad.empty()) << label(v, "mixed_rows (4 runs)", 300, 0) << ": " << bad;
  }
}

// nnz = 0 (with and without rows): prepare and run succeed and write nothing.
TEST(CudaSddmmSpecific, EmptyPatterns) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  for (std::int64_t rows : {0, 5}) {
    HostCsr h;
    h.rows = rows;
    h.cols = 7;
    h.row_ptr.assign(rows + 1, 0);
    DeviceCsr ds(h);
    DeviceDense<float> a(rows, 16), b(7, 16);
    DeviceBuffer<float> out(1);
    out.fill_bytes(0xFF);
    for (const auto& v : kCudaSddmm) {
      SCOPED_TRACE(v + " with " + std::to_string(rows) + " rows");
      PreparedSddmm plan = make_sddmm_plan(ctx, ds.view(), 16, v);
      plan.run(ctx, a.view(), b.view(), nullptr, out.data());
      ctx.synchronize();
      EXPECT_TRUE(std::isnan(out.to_host()[0]));
    }
  }
}

// Opt-in: 2^31 + 1024 nonzeros in 1024 rows (2M per row), K = 1, unscaled; a sample of outputs
// is checked, among them the entries around the 2^31 boundary.
TEST(CudaSddmmSpecific, MoreThan2To31Nonzeros) {
  FK_REQUIRE_GPU();
  const char* huge = std::getenv("FK_TEST_HUGE");
  if (!huge || std::string(huge) != "1")
    GTEST_SKIP() << "set FK_TEST_HUGE=1 (needs ~30 GB of device memory)";
  const std::int64_t rows = 1024, cols = 4096, per_row = (std::int64_t(1) << 21) + 1;
  const HostCsr h = test::regular_pattern(rows, cols, per_row, [&](std::int64_t r, std::int64_t j) {
    return ((r * per_row + j) * 7919) %
           cols;  // entry e = r * per_row + j: column e * 7919 mod cols
  });
  ASSERT_GT(h.nnz(), std::int64_t(1) << 31);
  Rng rng(test::fresh_seed());
  const std::vector<float> a = test::random_dense(rows, rng), b = test::random_dense(cols, rng);
  Context ctx(DeviceKind::kGpu);
  DeviceCsr ds(h);
  DeviceBuffer<float> da(a), db(b), out(h.nnz());
  std::vector<std::int64_t> sample = {0,
                                      1,
                                      per_row - 1,
                                      per_row,
                                      (std::int64_t(1) << 31) - 1,
                                      std::int64_t(1) << 31,
                                      (std::int64_t(1) << 31) + 1,
                                      h.nnz() - 1};
  for (int i = 0; i < 64; ++i) sample.push_back(static_cast<std::int64_t>(rng.below(h.nnz())));
  for (const auto& v : kCudaSddmm) {
    SCOPED_TRACE(v);
    try {
      PreparedSddmm plan = make_sddmm_plan(ctx, ds.view(), 1, v);
      out.fill_bytes(0xFF);
      plan.run(ctx, DenseView<const float>{da.data(), rows, 1},
               DenseView<const float>{db.data(), cols, 1}, nullptr, out.data());
      ctx.synchronize();
      for (std::int64_t j : sample) {
        float got = 0;
        out.download(&got, 1, j);
        const float want = a[j / per_row] * b[h.col_idx[j]];
        EXPECT_NEAR(got, want, 1e-6f) << "entry " << j;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << v << " threw: " << e.what();
    }
  }
}

}  // namespace
}  // namespace fk

#endif  // FK_WITH_CUDA
