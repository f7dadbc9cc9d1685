// device_transpose() and transposed_row_offsets() (kernels/cuda/device_ops.hpp) against the host
// transpose() (core/csr.hpp), element for element: Sᵀ's shape, row offsets, column indices (their
// order within each row is part of the contract: increasing position in S), values (present
// exactly when S has them) and perm. Inputs: a tiny hand-checked case; nnz = 0 in every degenerate
// shape; empty rows and columns; 7 x 100000 and 100000 x 7 (the latter puts ~50000 entries in each
// column, so an unstable sort would show); unsorted and reversed rows; one dense row; column counts
// at the sort's bit boundaries (1, 2, 255, 256, 257, 65536 columns: one to several radix passes, so
// the result ends in either half of the sort's double buffers); a power-law matrix of ~1e5 nonzeros
// with skewed columns and repeated (row, col) pairs; and ~2e6 nonzeros (many sort tiles).
// ValueGather (the gather of S's values into Sᵀ's order) is checked against the host gather.
// The end-to-end Sᵀ·B path (make_spmm_plan with Op::kTrans on the CUDA variants without a native
// transpose, which go through CachedTransposePlan and so through device_transpose) is covered by
// test_spmm_conformance.cpp on the awkward problems; it is not repeated here.
// GPU tests skip without a device; the CPU-context check runs everywhere in a CUDA build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/csr.hpp"
#include "core/device_buffer.hpp"
#include "core/memory.hpp"
#include "core/random.hpp"
#include "problems.hpp"
#include "tests/test_util.hpp"

#if FK_WITH_CUDA
#include "kernels/cuda/device_ops.hpp"

namespace fk {
namespace {

// "" when equal, else the size mismatch or the first differing element.
template <typename T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + " but expected " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) {
      std::ostringstream os;
      os << "first difference at [" << i << "]: got " << got[i] << ", expected " << want[i];
      return os.str();
    }
  }
  return {};
}

// Transposes S on the device (with and without asking for perm) and on the host, and compares.
void expect_same_as_host(const Context& ctx, const HostCsr& s, const std::string& name) {
  SCOPED_TRACE(name + " (" + std::to_string(s.rows) + " x " + std::to_string(s.cols) + ", nnz " +
               std::to_string(s.nnz()) + (s.vals.empty() ? ", no values)" : ")"));
  std::vector<std::int64_t> want_perm;
  const HostCsr want = transpose(s.view(), &want_perm);

  const DeviceCsr ds(s);
  DeviceBuffer<std::int64_t> dperm;
  const DeviceCsr dt = device_transpose(ctx, ds.view(), &dperm);
  EXPECT_EQ(dt.rows, want.rows);
  EXPECT_EQ(dt.cols, want.cols);
  EXPECT_EQ(dt.view().vals == nullptr, s.vals.empty()) << "values present exactly when S has them";
  const HostCsr got = dt.to_host();
  EXPECT_EQ(first_difference(got.row_ptr, want.row_ptr), "") << "row_ptr";
  EXPECT_EQ(first_difference(got.col_idx, want.col_idx), "") << "col_idx";
  EXPECT_EQ(first_difference(got.vals, want.vals), "") << "vals";
  EXPECT_EQ(first_difference(dperm.to_host(), want_perm), "") << "perm";
  // The column counts alone, as the Sᵀ·B rules get them.
  EXPECT_EQ(first_difference(transposed_row_offsets(ctx, ds.view()), want.row_ptr), "") << "transposed_row_offsets";

  const DeviceCsr dt2 = device_transpose(ctx, ds.view());  // perm not wanted
  const HostCsr got2 = dt2.to_host();
  EXPECT_EQ(first_difference(got2.row_ptr, want.row_ptr), "") << "row_ptr (no perm)";
  EXPECT_EQ(first_difference(got2.col_idx, want.col_idx), "") << "col_idx (no perm)";
  EXPECT_EQ(first_difference(got2.vals, want.vals), "") << "vals (no perm)";
}

// Both with S's values and pattern-only.
void expect_same_as_host_both(const Context& ctx, HostCsr s, const std::string& name) {
  expect_same_as_host(ctx, s, name);
  s.vals.clear();
  expect_same_as_host(ctx, s, name);
}

HostCsr empty_matrix(std::int64_t rows, std::int64_t cols) {
  HostCsr m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  return m;
}

// Appends one row with the given columns and random values.
void push_row(HostCsr& m, const std::vector<std::int32_t>& cols, Rng& rng) {
  for (auto c : cols) {
    m.col_idx.push_back(c);
    m.vals.push_back(static_cast<float>(rng.uniform(-1, 1)));
  }
  m.row_ptr.push_back(static_cast<std::int64_t>(m.col_idx.size()));
}

TEST(DeviceTranspose, RefusesCpuContext) {
  const HostCsr s = empty_matrix(3, 4);
  Context cpu(DeviceKind::kCpu);
  EXPECT_THROW(device_transpose(cpu, s.view()), Error);
}

TEST(DeviceTranspose, HandCheckedSmallCase) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  // S (3 x 4), unsorted row 0, empty row 1:  row 0: (0,3)=1 (0,0)=2;  row 2: (2,0)=3 (2,2)=4.
  HostCsr s;
  s.rows = 3;
  s.cols = 4;
  s.row_ptr = {0, 2, 2, 4};
  s.col_idx = {3, 0, 0, 2};
  s.vals = {1, 2, 3, 4};
  DeviceCsr ds(s);
  DeviceBuffer<std::int64_t> dperm;
  const HostCsr t = device_transpose(ctx, ds.view(), &dperm).to_host();
  EXPECT_EQ(t.rows, 4);
  EXPECT_EQ(t.cols, 3);
  EXPECT_EQ(t.row_ptr, (std::vector<std::int64_t>{0, 2, 2, 3, 4}));
  EXPECT_EQ(t.col_idx, (std::vector<std::int32_t>{0, 2, 2, 0}));
  EXPECT_EQ(t.vals, (std::vector<float>{2, 3, 4, 1}));
  EXPECT_EQ(dperm.to_host(), (std::vector<std::int64_t>{1, 2, 3, 0}));
  expect_same_as_host_both(ctx, s, "hand_checked");
}

TEST(DeviceTranspose, NoNonzeros) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{5, 7}, {0, 0}, {0, 5}, {5, 0}, {1, 1}};
  for (const auto& [rows, cols] : shapes) {
    const HostCsr s = empty_matrix(rows, cols);
    expect_same_as_host(ctx, s, "empty");
    // A non-null value pointer with nnz = 0 must still give no values (as transpose() does).
    const DeviceCsr ds(s);
    CsrView v = ds.view();
    DeviceBuffer<float> one(1);
    v.vals = one.data();
    DeviceBuffer<std::int64_t> dperm;
    const DeviceCsr dt = device_transpose(ctx, v, &dperm);
    EXPECT_EQ(dt.nnz(), 0);
    EXPECT_EQ(dt.vals.size(), 0);
    EXPECT_EQ(dperm.size(), 0);
    EXPECT_EQ(dt.to_host().row_ptr, std::vector<std::int64_t>(static_cast<std::size_t>(cols) + 1, 0));
  }
}

TEST(DeviceTranspose, AwkwardShapes) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FK_TEST_SEED replays it)");
  Rng rng(seed);
  // Every other row empty; most columns empty.
  expect_same_as_host_both(ctx, test::random_pattern(200, 150, rng, [](std::int64_t r) { return r % 2 ? 0 : 5; }),
                           "empty_rows_and_columns");
  // Wide and short: long unsorted rows, many empty columns.
  expect_same_as_host_both(
      ctx, test::random_pattern(7, 100000, rng, [&](std::int64_t) { return std::int64_t(50 + rng.below(400)); }),
      "wide_7x100000");
  // Tall and thin: ~50000 entries per column, in row order in Sᵀ only if the sort is stable.
  expect_same_as_host_both(
      ctx, test::random_pattern(100000, 7, rng, [&](std::int64_t) { return std::int64_t(rng.below(8)); }),
      "tall_100000x7");
  // One dense row (shuffled) among empty ones.
  expect_same_as_host_both(
      ctx, test::random_pattern(64, 3000, rng, [](std::int64_t r) { return r == 17 ? 3000 : 0; }), "one_dense_row");
  // Rows in descending column order, and rows whose columns alternate low/high.
  {
    HostCsr m = empty_matrix(0, 500);
    for (std::int64_t r = 0; r < 300; ++r) {
      std::vector<std::int32_t> cols;
      const std::int32_t start = static_cast<std::int32_t>(rng.below(500));
      for (std::int32_t c = start; c >= 0; c -= 1 + static_cast<std::int32_t>(rng.below(7))) cols.push_back(c);
      if (r % 3 == 1)
        for (std::size_t i = 0; i + 1 < cols.size(); i += 2) std::swap(cols[i], cols[cols.size() - 1 - i]);
      push_row(m, cols, rng);
      ++m.rows;
    }
    expect_same_as_host_both(ctx, m, "unsorted_rows");
  }
  // Column counts around the radix sort's bit boundaries; the last column always used.
  for (std::int64_t cols : {1, 2, 255, 256, 257, 65536}) {
    HostCsr m = empty_matrix(0, cols);
    for (std::int64_t r = 0; r < 40; ++r) {
      std::vector<std::int32_t> row;
      if (r % 5 == 0) row.push_back(static_cast<std::int32_t>(cols - 1));
      const std::int64_t len = rng.below(6);
      for (std::int64_t i = 0; i < len; ++i) row.push_back(static_cast<std::int32_t>(rng.below(cols)));
      push_row(m, row, rng);  // repeated columns within a row are fine for a transpose
      ++m.rows;
    }
    expect_same_as_host_both(ctx, m, "bit_boundary_cols_" + std::to_string(cols));
  }
}

TEST(DeviceTranspose, PowerLawAndLarge) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FK_TEST_SEED replays it)");
  Rng rng(seed);
  // Power-law row lengths and skewed columns (column ~ cols * u^3: low columns are heavy), with
  // repeated (row, col) pairs left in: ~1e5 nonzeros.
  {
    HostCsr m = empty_matrix(0, 30000);
    std::vector<std::int32_t> row;
    while (m.col_idx.size() < 100000) {
      const auto len = static_cast<std::int64_t>(1 + 2.0 / std::pow(std::max(rng.uniform(), 1e-4), 0.9));
      row.clear();
      for (std::int64_t i = 0; i < std::min<std::int64_t>(len, 20000); ++i) {
        const double u = rng.uniform();
        row.push_back(static_cast<std::int32_t>(double(m.cols) * u * u * u));
      }
      push_row(m, row, rng);
      ++m.rows;
    }
    expect_same_as_host_both(ctx, m, "power_law");
  }
  // ~2e6 nonzeros: many tiles in every pass of the sort.
  expect_same_as_host(
      ctx, test::random_pattern(50000, 20000, rng, [&](std::int64_t) { return std::int64_t(rng.below(81)); }),
      "random_2e6");
}

// More than 2^31 nonzeros (CUB's sort with 64-bit item counts, 64-bit positions in perm). Opt-in
// (FK_TEST_HUGE=1): 66 GB of device memory at the peak and 9 GB of host memory, 11 s on an H200
// (2026-11-24; an H100's 80 GB is too tight to be sure). The host transpose of 2^31 entries would
// take minutes, so the check is structural: Sᵀ's row offsets against column counts made on the
// host (and transposed_row_offsets against them), and for a few rows of Sᵀ, among them the column
// of the entry at position 2^31, every entry: its S row strictly increasing, and perm pointing at
// an entry of that row in that column.
TEST(DeviceTranspose, MoreThanTwoBillionNonzeros) {
  FK_REQUIRE_GPU();
  if (!std::getenv("FK_TEST_HUGE")) GTEST_SKIP() << "set FK_TEST_HUGE=1 (needs ~66 GB of GPU memory)";
  // As CudaSpmmSpecific.MoreThanTwoBillionNonzeros: 2^20 rows of 2049 entries, column of entry
  // (r, j) = (7r + 2j) mod 2^16 (at most once per row), pattern only.
  const std::int64_t rows = 1 << 20, cols = 1 << 16, len = 2049;
  const auto col_of = [&](std::int64_t r, std::int64_t j) { return std::int32_t((r * 7 + j * 2) % cols); };
  HostCsr s = test::regular_pattern(rows, cols, len, col_of);
  ASSERT_GT(s.nnz(), std::int64_t(INT32_MAX));
  std::vector<std::int64_t> want_ptr(cols + 1, 0);
  for (const std::int32_t c : s.col_idx) ++want_ptr[c + 1];
  for (std::int64_t c = 0; c < cols; ++c) want_ptr[c + 1] += want_ptr[c];

  Context ctx(DeviceKind::kGpu);
  DeviceBuffer<std::int64_t> dperm;
  DeviceCsr dt;
  {
    const DeviceCsr ds(s);
    s.col_idx = {};  // host memory back; col_of() stands for it now
    EXPECT_EQ(first_difference(transposed_row_offsets(ctx, ds.view()), want_ptr), "") << "transposed_row_offsets";
    dt = device_transpose(ctx, ds.view(), &dperm);
  }
  EXPECT_EQ(dt.rows, cols);
  EXPECT_EQ(dt.cols, rows);
  EXPECT_EQ(first_difference(dt.row_ptr.to_host(), want_ptr), "") << "row_ptr";
  const std::int64_t boundary = std::int64_t(1) << 31;
  for (const std::int64_t c : {std::int64_t(0), std::int64_t(1), cols / 2, cols - 1,
                               std::int64_t(col_of(boundary / len, boundary % len))}) {
    const std::int64_t begin = want_ptr[c], n = want_ptr[c + 1] - begin;
    std::vector<std::int32_t> t_rows(n);
    std::vector<std::int64_t> perm(n);
    dt.col_idx.download(t_rows.data(), n, begin);
    dperm.download(perm.data(), n, begin);
    int bad = 0;
    for (std::int64_t i = 0; i < n && bad < 5; ++i) {
      const std::int64_t r = perm[i] / len, j = perm[i] % len;
      const bool ok = t_rows[i] == r && col_of(r, j) == c && (i == 0 || t_rows[i] > t_rows[i - 1]);
      if (!ok) {
        ++bad;
        ADD_FAILURE() << "row " << c << " of Sᵀ, entry " << i << ": S row " << t_rows[i] << ", perm " << perm[i];
      }
    }
  }
}

// ValueGather against the plain gather on the host, bit for bit (it only moves floats). Windowed
// (the gate off, small windows): transposes' perms with their rows as the segments, at and around
// window boundaries (2^12 entries are one window, 2^12 + 1 two), windows of a single entry
// (window_bits = 0), rows longer than a piece and than a window, empty rows, the default window
// just exceeded. Plain: random permutations (no segments), and segments whose runs would be too
// short.
TEST(ValueGather, SameAsPlainGather) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FK_TEST_SEED replays it)");
  Rng rng(seed);
  struct Case {
    std::vector<std::int64_t> perm;
    std::vector<std::int64_t> segment_ptr;  // empty: none
    int window_bits;
    bool windowed;
    std::string name;
  };
  std::vector<Case> cases;
  for (const auto& [n, bits] : std::vector<std::pair<std::int64_t, int>>{{0, 20}, {1, 0}, {17, 2}, {100003, 10}}) {
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j) perm[j] = j;
    for (std::int64_t j = n - 1; j > 0; --j) std::swap(perm[j], perm[rng.below(j + 1)]);
    cases.push_back({perm, {}, bits, false, "random n=" + std::to_string(n)});
  }
  // S (rows x cols, `per_row(r)` entries in row r) and the gather into its transpose's order.
  const auto transposed = [&](std::int64_t rows, std::int64_t cols, int bits, bool windowed,
                              const std::function<std::int64_t(std::int64_t)>& per_row, const std::string& name) {
    const HostCsr s = test::random_pattern(rows, cols, rng, per_row);
    std::vector<std::int64_t> perm;
    const HostCsr t = transpose(s.view(), &perm);
    cases.push_back({perm, t.row_ptr, bits, windowed, name});
  };
  const auto eight = [](std::int64_t) { return std::int64_t(8); };
  transposed(512, 50, 12, false, eight, "4096 entries: one window");
  transposed(512, 50, 12, true, [](std::int64_t r) { return std::int64_t(r == 0 ? 9 : 8); }, "4097 entries: two");
  transposed(3000, 50, 8, true, [](std::int64_t) { return std::int64_t(20); }, "50 rows of Sᵀ, windows of 256");
  transposed(400, 1, 2, true, [](std::int64_t) { return std::int64_t(1); }, "one row of Sᵀ, windows of 4");
  transposed(4000, 3, 10, true, [](std::int64_t) { return std::int64_t(2); }, "3 rows of Sᵀ: runs of 340, pieces of 128");
  transposed(9000, 12000, 12, false, eight, "runs too short: 12000 rows of Sᵀ x 18 windows");
  {
    // Every other row of Sᵀ empty (S uses the even columns only): 1000 rows of 200.
    const HostCsr s = test::regular_pattern(20000, 2000, 10, [](std::int64_t r, std::int64_t j) {
      return 2 * ((r + 200 * j) % 1000);
    });
    std::vector<std::int64_t> perm;
    const HostCsr t = transpose(s.view(), &perm);
    cases.push_back({perm, t.row_ptr, 14, true, "empty rows of Sᵀ"});
  }
  {
    // Two increasing segments, one more entry than the default window: two windows. perm: the
    // multiples of 3, then the rest.
    const std::int64_t n = (std::int64_t(1) << ValueGather::kDefaultWindowBits) + 1;
    std::vector<std::int64_t> perm, rest;
    for (std::int64_t p = 0; p < n; ++p) (p % 3 == 0 ? perm : rest).push_back(p);
    const std::int64_t cut = std::int64_t(perm.size());
    perm.insert(perm.end(), rest.begin(), rest.end());
    cases.push_back({perm, {0, cut, n}, ValueGather::kDefaultWindowBits, true, "the default window exceeded"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + ", window 2^" + std::to_string(c.window_bits));
    const std::int64_t n = static_cast<std::int64_t>(c.perm.size());
    std::vector<float> src(c.perm.size()), want(c.perm.size());
    for (float& x : src) x = static_cast<float>(rng.uniform(-1, 1));
    for (std::int64_t j = 0; j < n; ++j) want[j] = src[c.perm[j]];
    const DeviceBuffer<std::int64_t> segment_ptr(c.segment_ptr);
    const std::int64_t segments = c.segment_ptr.empty() ? 0 : std::int64_t(c.segment_ptr.size()) - 1;
    // The L2 gate off (0 bytes): windows wherever the runs allow.
    const ValueGather gather(ctx, DeviceBuffer<std::int64_t>(c.perm), segments ? segment_ptr.data() : nullptr,
                             segments, c.window_bits, 0);
    EXPECT_EQ(gather.size(), n);
    EXPECT_EQ(gather.windowed(), c.windowed);
    const DeviceBuffer<float> dsrc(src);
    DeviceBuffer<float> ddst(n);
    ddst.fill_bytes(0xff);  // NaN everywhere: an entry left unwritten shows
    gather.run(ctx, dsrc.data(), ddst.data());
    EXPECT_EQ(first_difference(ddst.to_host(), want), "");
  }
}

// With the default gate, a source below twice the L2 is gathered plainly; the windowed gather
// holds its pieces beside perm (16 bytes a piece), not an index per entry.
TEST(ValueGather, PlainBelowTwiceTheL2) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  Rng rng(5);
  const HostCsr s = test::random_pattern(20000, 40, rng, [](std::int64_t) { return std::int64_t(5); });
  std::vector<std::int64_t> perm;
  const HostCsr t = transpose(s.view(), &perm);
  const std::int64_t n = s.nnz();
  const DeviceBuffer<std::int64_t> ptr(t.row_ptr);
  EXPECT_FALSE(ValueGather(ctx, DeviceBuffer<std::int64_t>(perm), ptr.data(), t.rows, 10).windowed());
  const std::int64_t before = device_bytes_in_use();
  const ValueGather windowed(ctx, DeviceBuffer<std::int64_t>(perm), ptr.data(), t.rows, 10, n * 4 - 1);
  EXPECT_TRUE(windowed.windowed());
  const std::int64_t windows = (n + 1023) / 1024;
  EXPECT_LE(windowed.pieces(), windows * t.rows + n / ValueGather::kPieceEntries);
  EXPECT_EQ(device_bytes_in_use() - before, n * 4 + windowed.pieces() * 16);
}

// The sampled row statistics of a device pattern (column span, neighbour share) equal the host
// ones bit for bit (same sample, same order of sums): rows fewer and more than the samples, empty
// rows, rows longer than a block stride and than the neighbour share's caps (200000 columns).
TEST(DeviceOps, SampledStatisticsMatchHost) {
  FK_REQUIRE_GPU();
  Context ctx(DeviceKind::kGpu);
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FK_TEST_SEED replays it)");
  Rng rng(seed);
  auto some_rows = [&](std::int64_t r) { return r % 3 ? std::int64_t(rng.below(40)) : 0; };
  auto short_rows = [&](std::int64_t) { return std::int64_t(rng.below(9)); };
  const std::vector<HostCsr> cases = {
      test::random_pattern(300, 5000, rng, some_rows),
      test::random_pattern(300, 500, rng, some_rows),  // neighbours share columns
      test::random_pattern(9000, 700, rng, short_rows),
      test::random_pattern(9000, 70, rng, short_rows),
      test::random_pattern(40, 300000, rng, [](std::int64_t r) { return r == 7 || r == 8 ? 200000 : 3; }),
      test::regular_pattern(20000, 20000, 4, [](std::int64_t r, std::int64_t j) { return (r + j) % 20000; }),
      test::regular_pattern(20000, 20000, 4, [](std::int64_t r, std::int64_t j) { return (r + 2 * j) % 20000; })};
  for (const HostCsr& s : cases) {
    const DeviceCsr ds(s);
    EXPECT_EQ(sampled_column_span(ctx, ds.view()), sampled_column_span(s.view()))
        << s.rows << " x " << s.cols << ", nnz " << s.nnz();
    EXPECT_EQ(sampled_neighbour_share(ctx, ds.view()), sampled_neighbour_share(s.view()))
        << s.rows << " x " << s.cols << ", nnz " << s.nnz();
  }
  const DeviceCsr none(test::random_pattern(10, 10, rng, [](std::int64_t) { return 0; }));
  EXPECT_EQ(sampled_column_span(ctx, none.view()), 1.0);
  EXPECT_EQ(sampled_neighbour_share(ctx, none.view()), 1.0);
}

TEST(ValueGather, RefusesCpuContext) {
  Context cpu(DeviceKind::kCpu);
  EXPECT_THROW(ValueGather(cpu, DeviceBuffer<std::int64_t>()), Error);
}

}  // namespace
}  // namespace fk

#endif  // FK_WITH_CUDA
