#pragma once
// The commented list of awkward problems every kernel variant is checked on (SDDMM and SpMM
// conformance tests share it). Each builds a fresh random pattern from the given seed; values are
// random in [-1, 1) so that no cancellation pattern hides a wrong index.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/csr.hpp"
#include "core/random.hpp"

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
  return out;
}

// A dense matrix with entries uniform in [-1, 1).
inline std::vector<float> random_dense(std::int64_t n, Rng& rng) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = static_cast<float>(rng.uniform(-1, 1));
  return v;
}

}  // namespace fk::test
