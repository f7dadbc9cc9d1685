// The K x K host math of a pass (both devices): the E-step preconditioner and the eigenvectors
// of the grad M-step's curvature, in double through Eigen. K x K only: cheap next to the sparse
// products, and deterministic.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>

#include "apps/sfa/sfa_backend.hpp"
#include "core/error.hpp"

namespace fk::sfa {
namespace {
using RowMatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatrixD load(const std::vector<float>& g, int k) {
  FK_CHECK(static_cast<std::int64_t>(g.size()) == std::int64_t{k} * k,
           "expected a " << k << " x " << k << " matrix, got " << g.size() << " values");
  RowMatrixD m(k, k);
  for (int i = 0; i < k; ++i)
    for (int c = 0; c < k; ++c) m(i, c) = g[static_cast<std::size_t>(i) * k + c];
  return 0.5 * (m + m.transpose());  // exactly symmetric
}

void store(const RowMatrixD& m, std::vector<float>& out) {
  out.resize(static_cast<std::size_t>(m.rows() * m.cols()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      out[static_cast<std::size_t>(i * m.cols() + c)] = static_cast<float>(m(i, c));
}
}  // namespace

MStep parse_mstep(const std::string& text) {
  if (text == "grad") return MStep::kGrad;
  if (text == "em") return MStep::kEm;
  throw Error("unknown M-step '" + text + "' (expected grad or em)");
}

const char* to_string(MStep m) { return m == MStep::kGrad ? "grad" : "em"; }

void preconditioner_inverse(const std::vector<float>& g, int k, int m, double c, double lambda,
                            std::vector<float>& out) {
  FK_CHECK(lambda > 0, "the preconditioner needs lambda > 0");
  FK_CHECK(m >= 1 && m <= k,
           "preconditioner block " << m << " of a " << k << " x " << k << " matrix");
  RowMatrixD a = c * load(g, k).topLeftCorner(m, m);
  a.diagonal().array() += lambda;
  const Eigen::LLT<RowMatrixD> llt(a);
  if (llt.info() != Eigen::Success)
    throw Error("the M-step's preconditioner is not positive definite: the factors overflowed "
                "(ratings far from unit scale? rescale them)");
  RowMatrixD inv = RowMatrixD::Zero(k, k);
  inv.topLeftCorner(m, m) = llt.solve(RowMatrixD::Identity(m, m));
  store(inv, out);
}

void symmetric_eigen(const std::vector<float>& g, int k, int m, std::vector<float>& v,
                     std::vector<float>& vt, std::vector<float>& d) {
  FK_CHECK(m >= 1 && m <= k, "eigen block " << m << " of a " << k << " x " << k << " matrix");
  const RowMatrixD full = load(g, k);
  const Eigen::SelfAdjointEigenSolver<RowMatrixD> es(full.topLeftCorner(m, m));
  if (es.info() != Eigen::Success)
    throw Error("the eigendecomposition of XᵀX failed: the factors overflowed (ratings far from "
                "unit scale? rescale them)");
  RowMatrixD vec = RowMatrixD::Identity(k, k);
  vec.topLeftCorner(m, m) = es.eigenvectors();
  store(vec, v);
  store(vec.transpose(), vt);
  d.assign(static_cast<std::size_t>(k), 0.0f);
  for (int c = 0; c < m; ++c) d[c] = static_cast<float>(std::max(0.0, es.eigenvalues()(c)));
}

}  // namespace fk::sfa
