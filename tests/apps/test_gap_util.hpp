#pragma once
// Helpers of the fk-gap tests: running the app in-process (as its main does), reading what it
// wrote (tests/apps/app_test_util.hpp), and count matrices drawn from a known GaP model.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apps/gap/gap_app.hpp"
#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/random.hpp"
#include "tests/apps/app_test_util.hpp"

namespace fk::test {

using GapRun = AppRun;

// Runs `fk-gap ARGS...` in this process through the same wrapper as the executable's main,
// single-threaded unless the test passes --threads (ctest runs test processes side by side).
inline GapRun run_gap(const std::vector<std::string>& args) {
  return run_app_main("fk-gap", gap::gap_main, args,
                      std::find(args.begin(), args.end(), "--threads") == args.end());
}

// A known GaP model: Λ (W x K) whose factor k puts most of its mass on its own block of W/K words,
// the first quarter of which no other factor uses (anchor words make the factorization
// identifiable: without them Λ could trade mass between factors at the same rates), and X (D x K) ~
// Gamma(shape, mean / shape); F ~ Poisson(X Λᵀ) drawn with fk::Rng.
struct KnownModel {
  HostDense<float> lambda, x;  // W x K, D x K
  HostCsr counts;              // D x W, f > 0 only, columns sorted
};

inline KnownModel make_known_model(std::int64_t docs, std::int64_t words, int k, double mean,
                                   double shape, std::uint64_t seed) {
  KnownModel m;
  Rng rng(seed);
  m.lambda = HostDense<float>(words, k);
  const std::int64_t block = words / k;
  for (int c = 0; c < k; ++c) {
    double s = 0;
    for (std::int64_t w = 0; w < words; ++w) {
      const bool own = w / block == c, anchor = w % block < block / 4;
      const double v = (own ? 1.0 : (anchor ? 0.0 : 0.02)) * (0.5 + rng.uniform());
      m.lambda(w, c) = static_cast<float>(v);
      s += v;
    }
    for (std::int64_t w = 0; w < words; ++w)
      m.lambda(w, c) = static_cast<float>(m.lambda(w, c) / s);
  }
  m.x = HostDense<float>(docs, k);
  for (std::int64_t d = 0; d < docs; ++d)
    for (int c = 0; c < k; ++c) m.x(d, c) = static_cast<float>(mean / shape * rng.gamma(shape));
  m.counts.rows = docs;
  m.counts.cols = words;
  for (std::int64_t d = 0; d < docs; ++d) {
    for (std::int64_t w = 0; w < words; ++w) {
      double r = 0;
      for (int c = 0; c < k; ++c) r += double(m.x(d, c)) * m.lambda(w, c);
      const auto f = rng.poisson(r);
      if (f > 0) {
        m.counts.col_idx.push_back(static_cast<std::int32_t>(w));
        m.counts.vals.push_back(static_cast<float>(f));
      }
    }
    m.counts.row_ptr.push_back(m.counts.nnz());
  }
  return m;
}

}  // namespace fk::test
