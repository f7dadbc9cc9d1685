// Does B's / C's alignment (mod 64 bytes) change the OpenMP row-split SpMM time?
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <algorithm>
#include "kernels/omp/simd.hpp"
int main(int argc, char** argv) {
  const int rows = std::atoi(argv[1]), cols = std::atoi(argv[2]), k = std::atoi(argv[3]);
  const double dens = std::atof(argv[4]);
  std::mt19937 g(1);
  std::vector<std::int64_t> rp{0};
  std::vector<std::int32_t> ci;
  std::vector<float> v;
  std::uniform_real_distribution<double> u(0, 1);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) if (u(g) < dens) { ci.push_back(c); v.push_back(float(u(g))); }
    rp.push_back(ci.size());
  }
  std::vector<float> bbuf(size_t(cols) * k + 64), cbuf(size_t(rows) * k + 64);
  for (auto& x : bbuf) x = float(u(g));
  auto base = [](std::vector<float>& b) { return (float*)(((uintptr_t)b.data() + 63) & ~uintptr_t(63)); };
  for (int bo : {0, 4, 8, 12}) for (int co : {0, 4}) {
    float* B = base(bbuf) + bo; float* C = base(cbuf) + co;
    double best = 1e9;
    for (int rep = 0; rep < 30; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 16)
      for (int i = 0; i < rows; ++i)
        fk::omp_simd::spmm_row(ci.data() + rp[i], v.data() + rp[i], rp[i + 1] - rp[i], B, k, k, C + size_t(i) * k, false);
      best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("B offset %2d bytes, C offset %2d bytes: %.3f ms\n", bo * 4, co * 4, best);
  }
}
