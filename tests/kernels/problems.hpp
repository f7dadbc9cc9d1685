#pragma once
// The commented list of awkward problems every kernel variant is checked on (SDDMM and SpMM
// conformance tests share it). Each builds a fresh random pattern from the given seed; values are
// random in [-1, 1) so that no cancellation pattern hides a wrong index.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/half.hpp"
#include "core/random.hpp"
#include "kernels/variant.hpp"
#include "../test_util.hpp"

namespace fk::test {

struct Problem {
  std::string name;
  HostCsr s;
};

// rows x cols with each row's length drawn by `row_len`, distinct random columns, unsorted.
template <typename RowLen>
HostCsr random_pattern(std::int64_t rows, std::int64_t cols, Rng& rng, RowLen row_len) {
  HostCsr m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr.assign(rows + 1, 0);
  std::vector<std::int32_t> picked;
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t len = std::min<std::int64_t>(row_len(r), cols);
    picked.clear();
    if (len * 3 > cols) {  // dense-ish row: choose by coin flips, then shuffle
      for (std::int64_t c = 0; c < cols && std::int64_t(picked.size()) < len; ++c)
        if (rng.uniform() * double(cols - c) < double(len - std::int64_t(picked.size()))) picked.push_back(c);
      for (std::size_t i = picked.size(); i > 1; --i) std::swap(picked[i - 1], picked[rng.below(i)]);
    } else {
      while (std::int64_t(picked.size()) < len) {
        const auto c = static_cast<std::int32_t>(rng.below(cols));
        if (std::find(picked.begin(), picked.end(), c) == picked.end()) picked.push_back(c);
      }
    }
    for (auto c : picked) {
      m.col_idx.push_back(c);
      m.vals.push_back(static_cast<float>(rng.uniform(-1, 1)));
    }
    m.row_ptr[r + 1] = static_cast<std::int64_t>(m.col_idx.size());
  }
  return m;
}

// rows x cols, every row `per_row` entries long, entry j of row r in column col_of(r, j): a
// pattern without values, filled in parallel (the opt-in tests of more than 2^31 nonzeros).
template <typename ColOf>
HostCsr regular_pattern(std::int64_t rows, std::int64_t cols, std::int64_t per_row, ColOf col_of) {
  HostCsr m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr.resize(rows + 1);
  m.col_idx.resize(rows * per_row);
  for (std::int64_t r = 0; r <= rows; ++r) m.row_ptr[r] = r * per_row;
#pragma omp parallel for
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < per_row; ++j) m.col_idx[r * per_row + j] = static_cast<std::int32_t>(col_of(r, j));
  return m;
}

inline std::vector<Problem> awkward_problems(std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Problem> out;
  // 1x1 with one entry: the smallest non-empty case.
  out.push_back({"one_by_one", random_pattern(1, 1, rng, [](std::int64_t) { return 1; })});
  // Entirely empty matrix (nnz = 0): kernels must not launch on nothing or read out of bounds.
  out.push_back({"all_empty", random_pattern(5, 7, rng, [](std::int64_t) { return 0; })});
  // Every other row empty, short rows otherwise.
  out.push_back({"empty_rows", random_pattern(200, 150, rng, [](std::int64_t r) { return r % 2 ? 0 : 5; })});
  // One fully dense row (longer than any block) among empty ones.
  out.push_back({"one_dense_row", random_pattern(64, 3000, rng, [](std::int64_t r) { return r == 17 ? 3000 : 0; })});
  // Power-law row lengths: a few very long rows, most rows 1-3 entries.
  out.push_back({"power_law", random_pattern(1500, 1200, rng, [&](std::int64_t) {
                   return std::int64_t(1 + 2.0 / std::pow(std::max(rng.uniform(), 1e-4), 0.9));
                 })});
  // Banded: clustered columns (what ASpT's dense tiles are for).
  {
    HostCsr b;
    b.rows = b.cols = 700;
    for (std::int64_t r = 0; r < 700; ++r) {
      for (std::int64_t c = std::max<std::int64_t>(0, r - 12); c < std::min<std::int64_t>(700, r + 13); ++c) {
        b.col_idx.push_back(static_cast<std::int32_t>(c));
        b.vals.push_back(static_cast<float>(rng.uniform(-1, 1)));
      }
      b.row_ptr.push_back(static_cast<std::int64_t>(b.col_idx.size()));
    }
    out.push_back({"banded", std::move(b)});
  }
  // Rectangular and very wide: 7 x 100000.
  out.push_back({"wide_7x100000", random_pattern(7, 100000, rng, [&](std::int64_t) { return 50 + rng.below(400); })});
  // Tall and thin: 20000 x 3.
  out.push_back({"tall_20000x3", random_pattern(20000, 3, rng, [&](std::int64_t) { return rng.below(4); })});
  // Clustered: groups of 16 consecutive rows draw most of their columns from a shared random set
  // of 48, plus a few random ones (community structure, what ASpT's heavy tiles are for: every
  // panel has many heavy columns, some rows have both heavy and light entries, some only light).
  {
    HostCsr m;
    m.rows = 520;  // not a multiple of any panel size
    m.cols = 6000;
    std::vector<std::int32_t> shared, row;
    for (std::int64_t r = 0; r < m.rows; ++r) {
      if (r % 16 == 0) {
        shared.clear();
        for (int i = 0; i < 48; ++i) shared.push_back(static_cast<std::int32_t>(rng.below(m.cols)));
      }
      row.clear();
      const std::int64_t from_shared = r % 7 == 3 ? 0 : 30, extra = 1 + rng.below(12);
      for (std::int64_t i = 0; i < from_shared; ++i) row.push_back(shared[rng.below(shared.size())]);
      for (std::int64_t i = 0; i < extra; ++i) row.push_back(static_cast<std::int32_t>(rng.below(m.cols)));
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
      for (std::size_t i = row.size(); i > 1; --i) std::swap(row[i - 1], row[rng.below(i)]);  // unsorted
      for (auto c : row) {
        m.col_idx.push_back(c);
        m.vals.push_back(static_cast<float>(rng.uniform(-1, 1)));
      }
      m.row_ptr.push_back(static_cast<std::int64_t>(m.col_idx.size()));
    }
    out.push_back({"clustered", std::move(m)});
  }
  // Long rows between empty and one-entry rows: every long row spans several equal-nonzero parts
  // (nnz-balanced splits start and end inside it), and parts may own no row at all.
  out.push_back({"long_rows_among_short", random_pattern(31, 2500, rng, [](std::int64_t r) {
                   return r % 3 == 0 ? 0 : r % 3 == 1 ? 2000 : 1;
                 })});
  return out;
}

// A dense matrix with entries uniform in [-1, 1).
inline std::vector<float> random_dense(std::int64_t n, Rng& rng) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = static_cast<float>(rng.uniform(-1, 1));
  return v;
}

// A rows x cols matrix with entries uniform in [-1, 1) (random_dense's draws, row-major).
inline HostDense<float> random_matrix(std::int64_t rows, std::int64_t cols, Rng& rng) {
  HostDense<float> m(rows, cols);
  m.assign_values(random_dense(rows * cols, rng));
  return m;
}

// ---- Conformance helpers (shared by the SDDMM, SpMM and ratio SpMM conformance tests) ---------

// The registered variants' names but `except` (a suite's oracle), the parameters of a conformance
// suite.
template <typename V>
std::vector<std::string> variant_names(const std::vector<const V*>& all, const std::string& except = "") {
  std::vector<std::string> names;
  for (const V* v : all)
    if (v->name() != except) names.push_back(v->name());
  return names;
}

// The Matrix Market files of ../shared/data/suitesparse (.mtx and .mtx.gz), sorted; empty when
// the folder is absent or holds none (the suites then skip rather than pass having checked none).
inline std::vector<std::string> suitesparse_files() {
  std::vector<std::string> files;
  const std::string dir = shared_data("suitesparse");
  if (dir.empty()) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const auto ends_with = [&](const std::string& tail) {
      return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends_with(".mtx") || ends_with(".mtx.gz")) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A sample of ../shared/data/dlmc's ResNet-50 layers (pattern-only .smtx), as (layer, path): one
// layer at every sparsity from 50% to 98%, and the widest 90% layer; those present only (empty when
// the folder is absent).
inline std::vector<std::pair<std::string, std::string>> dlmc_sample() {
  std::vector<std::pair<std::string, std::string>> sample;
  const std::string dir = shared_data("dlmc/rn50/magnitude_pruning");
  if (dir.empty()) return sample;
  for (const char* layer : {"0.5/bottleneck_2_block_group3_1_1", "0.7/bottleneck_2_block_group3_1_1",
                            "0.8/bottleneck_2_block_group3_1_1", "0.9/bottleneck_2_block_group3_1_1",
                            "0.95/bottleneck_2_block_group3_1_1", "0.98/bottleneck_2_block_group3_1_1",
                            "0.9/bottleneck_2_block_group4_1_1"}) {
    const std::string path = dir + "/" + layer + ".smtx";
    if (std::filesystem::exists(path)) sample.emplace_back(layer, path);
  }
  return sample;
}

// A variant name as a test name: '.' and any other non-alphanumeric character become '_'.
inline std::string test_name_of(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

// The seed of one test run: $FK_TEST_SEED when set (to replay a failure), else fresh from the
// clock, mixed with the test's full name and a per-process counter so that every test and every
// run draws different inputs. Tests print it in every failure message.
inline std::uint64_t fresh_seed() {
  if (const char* env = std::getenv("FK_TEST_SEED"); env && *env) return std::strtoull(env, nullptr, 0);
  static std::uint64_t counter = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "";
  const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return std::hash<std::string>{}(name) ^ (now * 0x9e3779b97f4a7c15ULL) ^ (++counter << 32);
}

// Elementwise |x| (V: a float vector of any allocator).
template <typename V>
V abs_values(V v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

// The conformance tolerance. Every output is a float32 sum of products: out = sum_t x_t y_t (an
// SDDMM dot product over K, times the scale; an SpMM sum over a row's nonzeros). Float32
// accumulation in any order has error at most about (terms * 2^-24) * sum_t |x_t y_t|, and blocked
// or tree-shaped sums (SIMD lanes, warps) stay far below that, so the honest per-element bound is
//     |got - want| <= tol * bound,  bound = sum_t |x_t y_t|  (computed by ref.* on |inputs|),
// with tol = 1e-5. An error relative to |want| alone would be wrong: the sum may cancel to ~0.
// Returns "" when every element passes (non-finite values, e.g. a poisoned output never written,
// always fail), else the count of failures and the worst few. Float vectors of any allocator.
template <typename Got, typename Want, typename Bound>
std::string check_within_bound(const Got& got, const Want& want, const Bound& bound, double tol = 1e-5) {
  if (got.size() != want.size() || bound.size() != want.size())
    return "size " + std::to_string(got.size()) + " but expected " + std::to_string(want.size());
  std::int64_t bad = 0;
  std::ostringstream os;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(double(got[i]) - double(want[i]));
    if (std::isfinite(got[i]) && err <= tol * double(bound[i])) continue;
    if (++bad <= 5)
      os << "\n  [" << i << "] got " << got[i] << " want " << want[i] << " (bound " << tol * double(bound[i]) << ")";
  }
  if (bad == 0) return {};
  return std::to_string(bad) + " of " + std::to_string(got.size()) + " outputs out of tolerance (max_rel_error " +
         std::to_string(max_rel_error(got, want)) + "):" + os.str();
}

// The operand precision a variant is checked at: fp32, unless it rounds its operands to 16 bits
// (VariantInfo::half_precision: the tensor-core variants), then bf16. (Asking why_not of a K = 64
// fp32 problem, as this did, also sent cuda.spmm.panel, made for small K, and the Sᵀ·B-only
// cusparse_on_transpose to the half-precision check: 1000x looser than their fp32 one.) bf16
// keeps fp32's exponent range, so the real files' values (bcsstk13 reaches 1e9, beyond fp16's
// 65504) and tiny products (fp16 subnormals below 6e-5 lose relative precision) are checked like
// any other; fp16 is checked on unit-scale data in test_tc_vector.cpp. The reference then runs on
// the operands rounded as the variant reads them (as_operand: S's values and B for SpMM, A and B
// for SDDMM), whose products fp32 holds exactly, so only the order of fp32 sums separates the
// two: the tolerance (relative to sum |terms|, as in check_within_bound) is 1e-4 then, a tenth of
// what one dropped term of 1000 would cost.
inline Precision conformance_precision(const VariantInfo& v) {
  return v.half_precision() ? Precision::kBF16 : Precision::kF32;
}
inline double conformance_tolerance(Precision p) { return p == Precision::kF32 ? 1e-5 : 1e-4; }
inline std::vector<float> as_operand(std::vector<float> x, Precision p) {
  if (p != Precision::kF32)
    for (float& e : x) e = round_to(e, p);
  return x;
}
inline HostDense<float> as_operand(HostDense<float> m, Precision p) {
  if (p != Precision::kF32)
    for (float& e : m.storage()) e = round_to(e, p);
  return m;
}

// A problem carrying only what the GPU `auto` rules read (kernels/select.cpp): K, the rows, their
// mean length (nnz follows) and spread; the longest row is set to 4x the mean.
inline KernelProblem rule_problem(int k, std::int64_t rows, double mean, double cv = 0.5) {
  KernelProblem p;
  p.k = k;
  p.sparse.rows = rows;
  p.sparse.row_mean = mean;
  p.sparse.nnz = std::int64_t(mean * double(rows));
  p.sparse.row_cv = cv;
  p.sparse.row_max = std::int64_t(mean * 4);
  return p;
}

// The same for Sᵀ·B, whose rules see Sᵀ: t_rows rows of mean t_mean over S's s_rows rows (Sᵀ's
// columns), the longest longest_over_mean means long.
inline KernelProblem transposed_rule_problem(int k, std::int64_t t_rows, double t_mean,
                                             std::int64_t s_rows, double longest_over_mean,
                                             double cv) {
  KernelProblem p = rule_problem(k, t_rows, t_mean, cv);
  p.sparse.row_max = std::int64_t(longest_over_mean * t_mean);
  p.sparse.cols = s_rows;
  p.sparse.density = t_mean / double(s_rows);
  p.transposed = true;
  return p;
}

}  // namespace fk::test
