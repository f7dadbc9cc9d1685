// The CPU implementation of the SFA row-wise operations: host memory, OpenMP over rows or
// elements, Eigen over our row-major buffers for the K x K work (Gram matrices, the
// preconditioner products). Reductions are summed in fixed-size chunks and then in chunk order,
// so results do not depend on the thread count; every row-wise operation writes its own rows
// only. Eigen's products inside an OpenMP region run single-threaded, so nothing is
// oversubscribed.
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "apps/common/subnormal.hpp"
#include "apps/common/host_ops.hpp"
#include "apps/common/memory.hpp"
#include "apps/sfa/sfa_engine.hpp"

namespace fk::sfa {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = Eigen::MatrixXf;

constexpr std::int64_t kGemmRows = 256;   // rows per block of out = a·m

// Memory, CSR and fill: app::HostOps.
class CpuOps : public app::HostOps {
 public:
  using HostOps::HostOps;

  void set_column(const Context&, float* x, std::int64_t rows, int k, int col, float v) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) x[r * k + col] = v;
  }

  void axpby(const Context&, std::int64_t n, float a, const float* x, float b, float* y) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) y[j] = a * x[j] + b * y[j];
  }

  void gram(const Context&, const float* x, std::int64_t rows, int k, float* g) const {
    const std::int64_t chunks = (rows + app::kGramRows - 1) / app::kGramRows;
    std::vector<Matrix> part(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t r0 = c * app::kGramRows, r1 = std::min(rows, r0 + app::kGramRows);
      Eigen::Map<const RowMatrix> block(x + r0 * k, r1 - r0, k);
      part[c] = Matrix::Zero(k, k);
      part[c].selfadjointView<Eigen::Lower>().rankUpdate(block.transpose());
    }
    Matrix total = Matrix::Zero(k, k);
    for (const Matrix& m : part) total += m;
    total.triangularView<Eigen::StrictlyUpper>() = total.transpose();
    Eigen::Map<RowMatrix>(g, k, k) = total;
  }

  void gemm(const Context&, const float* a, std::int64_t rows, int k, const float* m,
            float* out) const {
    Eigen::Map<const RowMatrix> mm(m, k, k);
    const std::int64_t blocks = (rows + kGemmRows - 1) / kGemmRows;
#pragma omp parallel for schedule(static)
    for (std::int64_t blk = 0; blk < blocks; ++blk) {
      const std::int64_t r0 = blk * kGemmRows, r1 = std::min(rows, r0 + kGemmRows);
      Eigen::Map<const RowMatrix> am(a + r0 * k, r1 - r0, k);
      Eigen::Map<RowMatrix> om(out + r0 * k, r1 - r0, k);
      om.noalias() = am * mm;
    }
  }

  void pcg_residual(const Context&, std::int64_t rows, int k, const float* b, const float* y,
                    const float* x, float lam, float* r) const {
    const std::int64_t n = rows * k;
#pragma omp parallel for schedule(static)
    for (std::int64_t e = 0; e < n; ++e) r[e] = b[e] - ((y ? y[e] : 0.0f) + lam * x[e]);
  }

  void pcg_start(const Context&, std::int64_t rows, int k, const float* r, const float* z, float* p,
                 float* rz) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t o = i * k;
      double acc = 0;
      for (int c = 0; c < k; ++c) {
        p[o + c] = z[o + c];
        acc += double(r[o + c]) * z[o + c];
      }
      rz[i] = app::cg_dot_or_converged(acc);
    }
  }

  void pcg_x(const Context&, std::int64_t rows, int k, float* x, float* r, const float* p,
             const float* y, float lam, const float* rz) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t o = i * k;
      double pap = 0;
      for (int c = 0; c < k; ++c) pap += double(p[o + c]) * (y[o + c] + lam * p[o + c]);
      // A converged row (r·z = 0) stays as it is.
      const float alpha = (pap > 0 && rz[i] > 0) ? static_cast<float>(rz[i] / pap) : 0.0f;
      for (int c = 0; c < k; ++c) {
        x[o + c] += alpha * p[o + c];
        r[o + c] -= alpha * (y[o + c] + lam * p[o + c]);
      }
    }
  }

  void pcg_p(const Context&, std::int64_t rows, int k, const float* r, const float* z, float* p,
             float* rz) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t o = i * k;
      double acc = 0;
      for (int c = 0; c < k; ++c) acc += double(r[o + c]) * z[o + c];
      const float rz_new = app::cg_dot_or_converged(acc);
      const float beta = rz[i] > 0 ? rz_new / rz[i] : 0.0f;
      for (int c = 0; c < k; ++c) p[o + c] = z[o + c] + beta * p[o + c];
      rz[i] = rz_new;
    }
  }

  void scale_precond(const Context&, float* h, std::int64_t rows, int k, const float* cnt, float a,
                     const float* d, float lam) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i)
      for (int c = 0; c < k; ++c) h[i * k + c] /= a * cnt[i] * d[c] + lam;
  }

  double sq_diff(const Context&, const float* t, const float* s, std::int64_t n) const {
    return app::chunked_sum2(n,
                             [&](std::int64_t j) {
                               const double e = double(t[j]) - s[j];
                               return std::pair<double, double>{e * e, 0.0};
                             })
        .first;
  }

  double sq_norm(const Context&, const float* x, std::int64_t n) const {
    return app::chunked_sum2(n,
                             [&](std::int64_t j) {
                               return std::pair<double, double>{double(x[j]) * x[j], 0.0};
                             })
        .first;
  }

  std::pair<double, double> test_err(const Context&, const float* r, const std::int32_t* col,
                                     const float* s, const float* means, float mu, float lo,
                                     float hi, std::int64_t n) const {
    const bool clip = lo < hi;
    return app::chunked_sum2(n, [&](std::int64_t j) {
      float pred = mu + means[col[j]] + s[j];
      if (clip) pred = std::clamp(pred, lo, hi);
      const double e = double(r[j]) - pred;
      return std::pair<double, double>{e * e, std::fabs(e)};
    });
  }
};

}  // namespace

std::unique_ptr<SfaBackend> make_cpu_sfa_backend(Context ctx, const SfaHyper& hyper,
                                                 const HostCsr& train, const HostCsr& train_t,
                                                 const HostCsr& test,
                                                 const std::vector<float>& item_means,
                                                 app::StatsReducer* reducer) {
  FK_CHECK(!ctx.is_gpu(), "the CPU SFA backend needs a CPU context");
  return std::make_unique<SfaEngine<CpuOps>>(std::move(ctx), hyper, train, train_t, test,
                                             item_means, reducer);
}

std::unique_ptr<SfaBackend> make_sfa_backend(Context ctx, const SfaHyper& hyper,
                                             const HostCsr& train, const HostCsr& train_t,
                                             const HostCsr& test,
                                             const std::vector<float>& item_means,
                                             app::StatsReducer* reducer) {
  if (ctx.is_gpu())
    return make_gpu_sfa_backend(std::move(ctx), hyper, train, train_t, test, item_means, reducer);
  return make_cpu_sfa_backend(std::move(ctx), hyper, train, train_t, test, item_means, reducer);
}

}  // namespace fk::sfa
