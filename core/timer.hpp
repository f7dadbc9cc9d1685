#pragma once
// Wall-clock stopwatch on the steady clock. GPU regions are timed with CUDA events (fk-bench's
// apps/bench/gpu_timing.cu) or by synchronizing the Context before reading this clock.
#include <algorithm>
#include <chrono>
#include <vector>

namespace fk {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  double milliseconds() const { return seconds() * 1e3; }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Median of a list of samples (copies; the list is small).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + mid)) / 2;
  return m;
}

}  // namespace fk
