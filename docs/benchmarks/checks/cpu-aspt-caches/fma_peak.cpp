#include <chrono>
#include <cstdio>
#include <omp.h>
typedef float V8 __attribute__((vector_size(32)));
int main() {
  const long iters = 200000000;
  double best = 1e9;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    float sink = 0;
#pragma omp parallel reduction(+:sink)
    {
      V8 a[10]; V8 x = {1.0001f,1,1,1,1,1,1,1}, y = {0.9999f,1,1,1,1,1,1,1};
      for (int i = 0; i < 10; ++i) a[i] = V8{} + (float)i;
      for (long i = 0; i < iters / 10; ++i) {
#pragma GCC unroll 10
        for (int j = 0; j < 10; ++j) a[j] = a[j] * x + y;
      }
      for (int i = 0; i < 10; ++i) sink += a[i][0];
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
    if (sink == 42) std::puts("x");
  }
  int th = omp_get_max_threads();
  std::printf("threads %d: %.3f s for %ld vector FMAs per thread -> %.2f G vector-FMA/s per thread, %.1f GFLOP/s total\n", th, best, iters, iters / best / 1e9, th * iters * 16.0 / best / 1e9);
}
