#pragma once
// Helpers of the fk-gap tests: running the app in-process (as its main does), reading what it
// wrote, and count matrices drawn from a known GaP model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/common/app_main.hpp"
#include "apps/gap/gap_app.hpp"
#include "core/csr.hpp"
#include "core/dense.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "tests/test_util.hpp"

namespace fk::test {

struct GapRun {
  int status = -1;
  std::string out, err;
};

// Runs `fk-gap ARGS...` in this process through the same wrapper as the executable's main,
// single-threaded unless the test passes --threads (ctest runs test processes side by side).
inline GapRun run_gap(const std::vector<std::string>& args) {
  std::vector<std::string> all{"fk-gap"};
  all.insert(all.end(), args.begin(), args.end());
  if (std::find(args.begin(), args.end(), "--threads") == args.end())
    all.insert(all.end(), {"--threads", "1"});
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  GapRun r;
  r.status = app::run_main("fk-gap", static_cast<int>(all.size()), argv.data(), gap::gap_main);
  r.out = ::testing::internal::GetCapturedStdout();
  r.err = ::testing::internal::GetCapturedStderr();
  set_log_level(LogLevel::kInfo);  // a --quiet run must not silence the next test
  return r;
}

inline std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

// The number after "KEY": in a one-line JSON object; nullopt for null or a missing key.
inline std::optional<double> json_number(const std::string& line, const std::string& key) {
  const std::string k = "\"" + key + "\":";
  const auto pos = line.find(k);
  if (pos == std::string::npos) return std::nullopt;
  const char* p = line.c_str() + pos + k.size();
  if (std::string(p, 4) == "null") return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(p, &end);
  if (end == p) return std::nullopt;
  return v;
}

inline std::vector<double> metric_series(const std::string& dir, const std::string& key) {
  std::vector<double> out;
  for (const std::string& line : read_lines(dir + "/metrics.jsonl"))
    if (auto v = json_number(line, key)) out.push_back(*v);
  return out;
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
