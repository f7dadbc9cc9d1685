// The CPU implementation of the GaP elementwise operations and reductions: host memory, OpenMP
// over elements. Reductions are summed in fixed-size chunks and then in chunk order, so results do
// not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "apps/common/host_ops.hpp"
#include "apps/gap/gap_engine.hpp"

namespace fk::gap {
namespace {

constexpr std::int64_t kColChunk = 1024;  // rows per partial column sum

// Memory, CSR and fill: app::HostOps.
class CpuOps : public app::HostOps {
 public:
  using HostOps::HostOps;

  void copy(const Context&, const float* src, float* dst, std::int64_t n) const {
    if (n > 0) std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(float));
  }

  void ratio(const Context&, const float* f, const float* r, std::int64_t n, float* q) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) q[j] = f[j] / (r[j] + kRateFloor);
  }

  void update_x(const Context&, float* x, const float* t, std::int64_t n, float am1,
                float inv_den) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) x[j] = (x[j] * t[j] + am1) * inv_den;
  }

  void multiply(const Context&, const float* a, float* b, std::int64_t n) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) b[j] = a[j] * b[j];
  }

  void col_sums(const Context&, const float* m, std::int64_t rows, int k, double* out) const {
    const std::int64_t chunks = (rows + kColChunk - 1) / kColChunk;
    std::vector<double> part(static_cast<std::size_t>(chunks * k), 0.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
      double* p = part.data() + c * k;
      const std::int64_t r1 = std::min(rows, (c + 1) * kColChunk);
      for (std::int64_t r = c * kColChunk; r < r1; ++r)
        for (int col = 0; col < k; ++col) p[col] += m[r * k + col];
    }
    for (int col = 0; col < k; ++col) out[col] = 0;
    for (std::int64_t c = 0; c < chunks; ++c)
      for (int col = 0; col < k; ++col) out[col] += part[c * k + col];
  }

  void normalize_cols(const Context&, const float* t, const double* sums, std::int64_t rows, int k,
                      float* lam) const {
    std::vector<float> inv(static_cast<std::size_t>(k));
    for (int c = 0; c < k; ++c) inv[c] = sums[c] > 0 ? static_cast<float>(1.0 / sums[c]) : 0.0f;
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r)
      for (int c = 0; c < k; ++c)
        if (sums[c] > 0) lam[r * k + c] = t[r * k + c] * inv[c];
  }

  double sum_f_log(const Context&, const float* f, const float* r, std::int64_t n) const {
    return app::chunked_sum(n, [&](std::int64_t j) {
      return double(f[j]) * std::log(double(std::max(r[j], kRateFloor)));
    });
  }

  double prior_sum(const Context&, const float* x, std::int64_t n, float am1, float inv_b) const {
    return app::chunked_sum(n, [&](std::int64_t j) {
      const double v = x[j];
      return (am1 > 0 ? double(am1) * std::log(std::max(v, double(kRateFloor))) : 0.0) -
             v * double(inv_b);
    });
  }
};

}  // namespace

std::unique_ptr<GapBackend> make_cpu_gap_backend(Context ctx, const GapHyper& hyper,
                                                 const GapMatrices& m) {
  FK_CHECK(!ctx.is_gpu(), "the CPU GaP backend needs a CPU context");
  return std::make_unique<GapEngine<CpuOps>>(std::move(ctx), hyper, m);
}

std::unique_ptr<GapBackend> make_gap_backend(Context ctx, const GapHyper& hyper,
                                             const GapMatrices& m) {
  if (ctx.is_gpu()) return make_gpu_gap_backend(std::move(ctx), hyper, m);
  return make_cpu_gap_backend(std::move(ctx), hyper, m);
}

}  // namespace fk::gap
