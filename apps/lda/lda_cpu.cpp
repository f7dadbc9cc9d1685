// The CPU implementation of the LDA minibatch math: host memory, OpenMP over documents, words or
// nonzeros, Eigen maps over the row-major buffers for the dense λ update. Reductions are summed
// in fixed-size chunks and then in chunk order, so the result does not depend on the thread count.
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "apps/common/host_ops.hpp"
#include "apps/lda/lda_cpu_math.hpp"
#include "apps/lda/lda_engine.hpp"
#include "apps/lda/lda_math.hpp"

namespace fk::lda {
namespace {

using RowMajorArrayXXf = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr std::int64_t kRowChunk = 256;    // λ rows per partial column sum
constexpr std::int64_t kNnzChunk = 16384;  // nonzeros per partial log-likelihood sum
// Loops over fewer elements than this run on one thread: a parallel region costs more than the
// work (tiny minibatches, tests), and more so on a loaded machine.
constexpr std::int64_t kParallelMin = 1 << 14;

// Memory, CSR and fill: app::HostOps.
class CpuOps : public app::HostOps {
 public:
  using HostOps::HostOps;
  std::int64_t free_bytes() const { return std::numeric_limits<std::int64_t>::max(); }

  // Streaming on the CPU only copies within host memory: it exists so that --device-memory runs
  // the engine's streaming logic on any machine (the tests use it).
  using Staged = LocalBatch;
  struct Slot {
    HostCsr csr;
    std::vector<std::int32_t> words;
  };
  Staged stage(const LocalBatch& lb) const { return lb; }
  void fetch(const Staged& b, Slot& slot) const {
    slot.csr = b.counts;
    slot.words = b.words;
  }
  void await(Slot&) const {}
  void retire(Slot&) const {}
  static CsrView slot_view(const Slot& s) { return s.csr.view(); }
  static const std::int32_t* slot_words(const Slot& s) { return s.words.data(); }

  void init_gamma(const Context&, float* gamma, std::int64_t rows, int k, std::uint64_t key,
                  std::uint64_t stream, std::int64_t first_doc) const {
#pragma omp parallel for schedule(static) if (rows * k >= kParallelMin)
    for (std::int64_t r = 0; r < rows; ++r)
      for (int c = 0; c < k; ++c) gamma[r * k + c] = gamma100_draw(key, stream, first_doc + r, c);
  }

  void expect_theta(const Context&, const float* gamma, float* etheta, std::int64_t rows,
                    int k) const {
#pragma omp parallel for schedule(static) if (rows * k >= kParallelMin)
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* g = gamma + r * k;
      double sum = 0;
      for (int c = 0; c < k; ++c) sum += g[c];
      cpu_math::row_expectations(g, k, digamma(sum), etheta + r * k);
    }
  }

  double update_gamma(const Context&, float alpha, const float* t, float* gamma, float* etheta,
                      std::int64_t rows, int k) {
    row_change_.resize(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static) if (rows * k >= kParallelMin)
    for (std::int64_t r = 0; r < rows; ++r) {
      float* g = gamma + r * k;
      float* et = etheta + r * k;
      const float* tr = t + r * k;
      double sum = 0, change = 0;
      for (int c = 0; c < k; ++c) {
        const float updated = alpha + et[c] * tr[c];
        change += std::fabs(static_cast<double>(updated) - static_cast<double>(g[c]));
        g[c] = updated;
        sum += updated;
      }
      cpu_math::row_expectations(g, k, digamma(sum), et);
      row_change_[r] = change;
    }
    double total = 0;
    for (std::int64_t r = 0; r < rows; ++r) total += row_change_[r];
    return total;
  }

  void divide(const Context&, const float* n, float* p, std::int64_t nnz, float eps) const {
#pragma omp parallel for schedule(static) if (nnz >= kParallelMin)
    for (std::int64_t j = 0; j < nnz; ++j) p[j] = n[j] / (p[j] + eps);
  }

  void gather_expect_beta(const Context&, const float* lambda, const std::int32_t* words,
                          std::int64_t nloc, int k, const double* psi_colsum, float* out) const {
#pragma omp parallel for schedule(static) if (nloc * k >= kParallelMin)
    for (std::int64_t w = 0; w < nloc; ++w) {
      const float* l = lambda + static_cast<std::int64_t>(words[w]) * k;
      cpu_math::column_expectations(l, k, psi_colsum, out + w * k);
    }
  }

  void gather_beta(const Context&, const float* lambda, const std::int32_t* words,
                   std::int64_t nloc, int k, const double* colsum, float* out) const {
#pragma omp parallel for schedule(static) if (nloc * k >= kParallelMin)
    for (std::int64_t w = 0; w < nloc; ++w) {
      const float* l = lambda + static_cast<std::int64_t>(words[w]) * k;
      for (int c = 0; c < k; ++c) out[w * k + c] = static_cast<float>(l[c] / colsum[c]);
    }
  }

  // The words of a minibatch are distinct, so rows never collide.
  void scatter_stats(const Context&, const float* ebeta, const float* x, const std::int32_t* words,
                     std::int64_t nloc, int k, float* stats) const {
#pragma omp parallel for schedule(static) if (nloc * k >= kParallelMin)
    for (std::int64_t w = 0; w < nloc; ++w) {
      float* s = stats + static_cast<std::int64_t>(words[w]) * k;
      for (int c = 0; c < k; ++c) s[c] += ebeta[w * k + c] * x[w * k + c];
    }
  }

  void update_lambda(const Context& ctx, float* lambda, float* stats, std::int64_t w, int k,
                     double rho, double eta, double scale, double* colsum, double* psi_colsum) {
    const std::int64_t chunks = (w + kRowChunk - 1) / kRowChunk;
    partial_.assign(static_cast<std::size_t>(chunks * k), 0.0);
    const auto keep = static_cast<float>(1.0 - rho);
    const auto add = static_cast<float>(rho * eta);
    const auto mult = static_cast<float>(rho * scale);
#pragma omp parallel for schedule(static) if (w * k >= kParallelMin)
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      const std::int64_t r0 = ch * kRowChunk, r1 = std::min(w, r0 + kRowChunk);
      Eigen::Map<RowMajorArrayXXf> lam(lambda + r0 * k, r1 - r0, k);
      Eigen::Map<RowMajorArrayXXf> st(stats + r0 * k, r1 - r0, k);
      lam = keep * lam + (add + mult * st);
      st.setZero();
      Eigen::Map<Eigen::Array<double, 1, Eigen::Dynamic>>(partial_.data() + ch * k, k) =
          lam.cast<double>().colwise().sum();
    }
    finish_column_sums(ctx, chunks, k, colsum, psi_colsum);
  }

  // The GPU adds the minibatch's statistics in the λ pass itself (lda_gpu.cu); here the W x K
  // buffer's pass is a small share of a pass, so the statistics go through it as before.
  void update_lambda_from_batch(const Context& ctx, float* lambda, float* stats,
                                const std::int32_t* words, std::int64_t nloc, const float* ebeta,
                                const float* x, std::int64_t w, int k, double rho, double eta,
                                double scale, double* colsum, double* psi_colsum) {
    scatter_stats(ctx, ebeta, x, words, nloc, k, stats);
    update_lambda(ctx, lambda, stats, w, k, rho, eta, scale, colsum, psi_colsum);
  }

  void column_sums(const Context& ctx, const float* lambda, std::int64_t w, int k, double* colsum,
                   double* psi_colsum) {
    const std::int64_t chunks = (w + kRowChunk - 1) / kRowChunk;
    partial_.assign(static_cast<std::size_t>(chunks * k), 0.0);
#pragma omp parallel for schedule(static) if (w * k >= kParallelMin)
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      const std::int64_t r0 = ch * kRowChunk, r1 = std::min(w, r0 + kRowChunk);
      Eigen::Map<const RowMajorArrayXXf> lam(lambda + r0 * k, r1 - r0, k);
      Eigen::Map<Eigen::Array<double, 1, Eigen::Dynamic>>(partial_.data() + ch * k, k) =
          lam.cast<double>().colwise().sum();
    }
    finish_column_sums(ctx, chunks, k, colsum, psi_colsum);
  }

  void normalize_rows(const Context&, const float* gamma, float* theta, std::int64_t rows,
                      int k) const {
#pragma omp parallel for schedule(static) if (rows * k >= kParallelMin)
    for (std::int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int c = 0; c < k; ++c) sum += gamma[r * k + c];
      for (int c = 0; c < k; ++c) theta[r * k + c] = static_cast<float>(gamma[r * k + c] / sum);
    }
  }

  double sum_n_log(const Context&, const float* n, const float* p, std::int64_t nnz) {
    const std::int64_t chunks = (nnz + kNnzChunk - 1) / kNnzChunk;
    partial_.assign(static_cast<std::size_t>(chunks), 0.0);
#pragma omp parallel for schedule(static) if (nnz >= kParallelMin)
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      const std::int64_t j0 = ch * kNnzChunk, j1 = std::min(nnz, j0 + kNnzChunk);
      double s = 0;
      for (std::int64_t j = j0; j < j1; ++j)
        s += static_cast<double>(n[j]) * std::log(std::max(static_cast<double>(p[j]), 1e-300));
      partial_[ch] = s;
    }
    double total = 0;
    for (double s : partial_) total += s;
    return total;
  }

 private:
  void finish_column_sums(const Context&, std::int64_t chunks, int k, double* colsum,
                          double* psi_colsum) const {
    for (int c = 0; c < k; ++c) {
      double s = 0;
      for (std::int64_t ch = 0; ch < chunks; ++ch) s += partial_[ch * k + c];
      colsum[c] = s;
      psi_colsum[c] = digamma(s);
    }
  }

  std::vector<double> row_change_;
  std::vector<double> partial_;
};

}  // namespace

std::unique_ptr<LdaBackend> make_cpu_lda_backend(Context ctx, const LdaHyper& hyper) {
  FK_CHECK(!ctx.is_gpu(), "the CPU LDA backend needs a CPU context");
  return std::make_unique<LdaEngine<CpuOps>>(std::move(ctx), hyper);
}

std::unique_ptr<LdaBackend> make_lda_backend(Context ctx, const LdaHyper& hyper) {
  if (ctx.is_gpu()) return make_gpu_lda_backend(std::move(ctx), hyper);
  return make_cpu_lda_backend(std::move(ctx), hyper);
}

}  // namespace fk::lda
