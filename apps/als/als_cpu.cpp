// The CPU implementation of the ALS row-wise operations: host memory, OpenMP over rows or
// nonzeros, Eigen over our row-major buffers for the dense K x K work (Gram matrices, the implicit
// dense term, per-row Cholesky). Reductions are summed in fixed-size chunks and then in chunk
// order, so results do not depend on the thread count. Eigen's products inside an OpenMP region
// run single-threaded (Eigen checks omp_get_num_threads), so nothing is oversubscribed.
#include <omp.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "apps/als/als_engine.hpp"
#include "apps/common/subnormal.hpp"
#include "apps/common/host_ops.hpp"
#include "apps/common/memory.hpp"

namespace fk::als {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Matrix = Eigen::MatrixXf;

constexpr std::int64_t kGemmRows = 256;   // rows per block of y += p·g

// Memory, CSR and fill: app::HostOps.
class CpuOps : public app::HostOps {
 public:
  using HostOps::HostOps;

  void targets(const Context&, const float* r, const std::int32_t* col, std::int64_t nnz, float mu,
               const float* other_x, int k, int bias_col, float* t) const {
    if (bias_col < 0) {
#pragma omp parallel for schedule(static)
      for (std::int64_t j = 0; j < nnz; ++j) t[j] = r[j] - mu;
    } else {
#pragma omp parallel for schedule(static)
      for (std::int64_t j = 0; j < nnz; ++j)
        t[j] = r[j] - mu - other_x[std::int64_t{col[j]} * k + bias_col];
    }
  }

  void row_targets(const Context&, const float* r, const std::int64_t* row_ptr, std::int64_t rows,
                   float mu, const float* other_x, int k, int bias_col, float* t) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const float bias = bias_col >= 0 ? other_x[row * k + bias_col] : 0.0f;
      for (std::int64_t j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
        t[j] = (r[j] - mu) - bias;  // as targets rounds
    }
  }

  void affine(const Context&, const float* in, std::int64_t n, float a, float b, float* out) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) out[j] = a * in[j] + b;
  }

  void make_design(const Context&, const float* x, float* d, std::int64_t rows, int k,
                   int one_col) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) {
      std::memcpy(d + r * k, x + r * k, static_cast<std::size_t>(k) * sizeof(float));
      d[r * k + one_col] = 1.0f;
    }
  }

  void cg_init(const Context&, std::int64_t rows, int k, const float* b, const float* y,
               const float* x, const float* diag, float* r, float* p, float* rs) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t o = i * k;
      const float di = diag ? diag[i] : 0.0f;
      double acc = 0;
      for (int c = 0; c < k; ++c) {
        const float v = b[o + c] - ((y ? y[o + c] : 0.0f) + di * x[o + c]);
        r[o + c] = v;
        p[o + c] = v;
        acc += double(v) * v;
      }
      rs[i] = app::cg_dot_or_converged(acc);
    }
  }

  void cg_step(const Context&, std::int64_t rows, int k, float* x, float* r, float* p,
               const float* y, const float* diag, float* rs) const {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t o = i * k;
      const float di = diag ? diag[i] : 0.0f;
      double pap = 0;
      for (int c = 0; c < k; ++c) pap += double(p[o + c]) * (y[o + c] + di * p[o + c]);
      const float rs_old = rs[i];
      // A zero residual (converged, or an empty row with A = 0) leaves the row as it is.
      const float alpha = (pap > 0 && rs_old > 0) ? static_cast<float>(rs_old / pap) : 0.0f;
      double acc = 0;
      for (int c = 0; c < k; ++c) {
        x[o + c] += alpha * p[o + c];
        const float v = r[o + c] - alpha * (y[o + c] + di * p[o + c]);
        r[o + c] = v;
        acc += double(v) * v;
      }
      const float rs_new = app::cg_dot_or_converged(acc);
      const float beta = rs_old > 0 ? rs_new / rs_old : 0.0f;
      for (int c = 0; c < k; ++c) p[o + c] = r[o + c] + beta * p[o + c];
      rs[i] = rs_new;
    }
  }

  void gram(const Context&, const float* d, std::int64_t n, int k, float lambda, float* g) const {
    const std::int64_t chunks = (n + app::kGramRows - 1) / app::kGramRows;
    std::vector<Matrix> part(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t r0 = c * app::kGramRows, r1 = std::min(n, r0 + app::kGramRows);
      Eigen::Map<const RowMatrix> block(d + r0 * k, r1 - r0, k);
      part[c] = Matrix::Zero(k, k);
      part[c].selfadjointView<Eigen::Lower>().rankUpdate(block.transpose());
    }
    Matrix total = Matrix::Zero(k, k);
    for (const Matrix& m : part) total += m;
    total.triangularView<Eigen::StrictlyUpper>() = total.transpose();
    total.diagonal().array() += lambda;
    Eigen::Map<RowMatrix>(g, k, k) = total;
  }

  void gemm_add(const Context&, const float* p, std::int64_t rows, int k, const float* g,
                float* y) const {
    Eigen::Map<const RowMatrix> gm(g, k, k);
    const std::int64_t blocks = (rows + kGemmRows - 1) / kGemmRows;
#pragma omp parallel for schedule(static)
    for (std::int64_t blk = 0; blk < blocks; ++blk) {
      const std::int64_t r0 = blk * kGemmRows, r1 = std::min(rows, r0 + kGemmRows);
      Eigen::Map<const RowMatrix> pm(p + r0 * k, r1 - r0, k);
      Eigen::Map<RowMatrix> ym(y + r0 * k, r1 - r0, k);
      ym.noalias() += pm * gm;
    }
  }

  void exact_solve(const Context&, const CsrView& s, const float* w, const float* diag,
                   const float* g, const float* d, const float* b, float* x, std::int64_t rows,
                   int k) const {
    int failures = 0;
#pragma omp parallel reduction(+ : failures)
    {
      Matrix a(k, k), m;
      Eigen::LLT<Matrix, Eigen::Lower> llt(k);
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t r = 0; r < s.rows; ++r) {
        const std::int64_t j0 = s.row_ptr[r], len = s.row_ptr[r + 1] - j0;
        Eigen::Map<Eigen::VectorXf> xr(x + r * k, k);
        if (!g && len == 0) {  // explicit row without ratings: A = 0, b = 0; the factors stay zero
          xr.setZero();
          continue;
        }
        if (g)
          a = Eigen::Map<const RowMatrix>(g, k, k);
        else
          a.setZero();
        m.resize(k, len);
        for (std::int64_t t = 0; t < len; ++t) {
          const float scale = w ? std::sqrt(std::max(0.0f, w[j0 + t])) : 1.0f;
          m.col(t) =
              Eigen::Map<const Eigen::VectorXf>(d + std::int64_t{s.col_idx[j0 + t]} * k, k) * scale;
        }
        // An implicit row without ratings (an item seen only in the test set) solves G x = 0;
        // Eigen's product blocking divides by the update's depth, so none is made for it (SIGFPE).
        if (len > 0) a.selfadjointView<Eigen::Lower>().rankUpdate(m);
        if (diag) a.diagonal().array() += diag[r];
        llt.compute(a);
        if (llt.info() != Eigen::Success) {
          ++failures;
          continue;
        }
        xr = llt.solve(Eigen::Map<const Eigen::VectorXf>(b + r * k, k));
      }
    }
    (void)rows;
    if (failures > 0)
      throw Error(std::to_string(failures) +
                  " rows' normal equations are not positive definite: the factors overflowed "
                  "(ratings far from unit scale? rescale them) or --lambda is too small");
  }

  std::pair<double, double> sq_abs_diff(const Context&, const float* t, const float* s,
                                        const float* r, float lo, float hi, std::int64_t n) const {
    return app::chunked_sum2(n, [&](std::int64_t j) {
      const double e =
          r ? double(r[j]) - std::clamp(s[j] + (r[j] - t[j]), lo, hi) : double(t[j]) - s[j];
      return std::pair<double, double>{e * e, std::fabs(e)};
    });
  }

  double implicit_obs(const Context&, const float* cm1, const float* s, std::int64_t n) const {
    return app::chunked_sum2(n,
                             [&](std::int64_t j) {
                               const double v = s[j], c = 1.0 + cm1[j];
                               return std::pair<double, double>{c * (1 - v) * (1 - v) - v * v, 0.0};
                             })
        .first;
  }

  double weighted_sq_norm(const Context&, const float* x, const float* w, std::int64_t rows,
                          int k) const {
    return app::chunked_sum2(rows,
                             [&](std::int64_t r) {
                               double acc = 0;
                               for (int c = 0; c < k; ++c)
                                 acc += double(x[r * k + c]) * x[r * k + c];
                               return std::pair<double, double>{(w ? w[r] : 1.0f) * acc, 0.0};
                             })
        .first;
  }
};

}  // namespace

std::unique_ptr<AlsBackend> make_cpu_als_backend(Context ctx, const AlsHyper& hyper,
                                                 const HostCsr& train, const HostCsr& train_t,
                                                 const HostCsr& test) {
  FK_CHECK(!ctx.is_gpu(), "the CPU ALS backend needs a CPU context");
  return std::make_unique<AlsEngine<CpuOps>>(std::move(ctx), hyper, train, train_t, test);
}

std::unique_ptr<AlsBackend> make_als_backend(Context ctx, const AlsHyper& hyper,
                                             const HostCsr& train, const HostCsr& train_t,
                                             const HostCsr& test) {
  if (ctx.is_gpu()) return make_gpu_als_backend(std::move(ctx), hyper, train, train_t, test);
  return make_cpu_als_backend(std::move(ctx), hyper, train, train_t, test);
}

}  // namespace fk::als
