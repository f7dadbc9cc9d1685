#include "apps/bench/check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/context.hpp"
#include "kernels/ratio_spmm.hpp"
#include "kernels/sddmm.hpp"
#include "kernels/spmm.hpp"

namespace fk::bench {
namespace {

// Sampled rows x K at most (rows of A copied for SDDMM, outputs for SpMM), so the reference stays
// fast and small whatever the shape.
constexpr std::int64_t kMaxRowElements = 4'000'000;

std::int64_t max_rows_for(std::int64_t k) { return std::max<std::int64_t>(1, kMaxRowElements / std::max<std::int64_t>(k, 1)); }

std::int64_t row_len(const CsrView& s, std::int64_t r) { return s.row_ptr[r + 1] - s.row_ptr[r]; }

// The sampled rows of s as their own CSR (values kept), in the order given.
HostCsr take_rows(const CsrView& s, const std::vector<std::int64_t>& rows) {
  HostCsr sub;
  sub.rows = static_cast<std::int64_t>(rows.size());
  sub.cols = s.cols;
  sub.row_ptr.reserve(rows.size() + 1);
  for (std::int64_t r : rows) {
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) {
      sub.col_idx.push_back(s.col_idx[j]);
      sub.vals.push_back(s.vals ? s.vals[j] : 1.0f);
    }
    sub.row_ptr.push_back(static_cast<std::int64_t>(sub.col_idx.size()));
  }
  return sub;
}

// Error of one element, as documented in the header.
inline double element_error(float got, float want, double magnitude) {
  if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
  const double diff = std::fabs(double(got) - double(want));
  if (magnitude > 0) return diff / magnitude;
  return diff == 0 ? 0.0 : std::numeric_limits<double>::infinity();
}

}  // namespace

std::vector<std::int64_t> sample_rows(const CsrView& s, std::int64_t nnz_budget, std::int64_t max_rows) {
  std::vector<std::int64_t> rows;
  if (s.nnz <= nnz_budget && s.rows <= max_rows) {
    rows.resize(static_cast<std::size_t>(s.rows));
    for (std::int64_t r = 0; r < s.rows; ++r) rows[r] = r;
    return rows;
  }
  std::int64_t used = 0;
  auto take = [&](std::int64_t r) {
    const std::int64_t len = row_len(s, r);
    if (std::int64_t(rows.size()) >= max_rows || used + len > nnz_budget) return;
    rows.push_back(r);
    used += len;
  };
  // The longest row exercises whatever a variant does for long rows (split rows, atomics).
  std::int64_t longest = 0;
  for (std::int64_t r = 1; r < s.rows; ++r)
    if (row_len(s, r) > row_len(s, longest)) longest = r;
  if (s.rows > 0) take(longest);
  // An even spread: the stride that makes the expected total fit both budgets.
  const std::int64_t by_nnz = (s.nnz + nnz_budget - 1) / std::max<std::int64_t>(nnz_budget, 1);
  const std::int64_t by_rows = (s.rows + max_rows - 1) / std::max<std::int64_t>(max_rows, 1);
  const std::int64_t stride = std::max<std::int64_t>({1, by_nnz, by_rows});
  for (std::int64_t r = 0; r < s.rows; r += stride)
    if (r != longest) take(r);
  if (s.rows > 1 && longest != s.rows - 1) take(s.rows - 1);  // the last row: off-by-one bounds
  if (used == 0 && s.nnz > 0) {
    // Every non-empty row is over the budget: the shortest one is checked all the same, since a
    // check of no nonzero would report the variant right.
    std::int64_t shortest = -1;
    for (std::int64_t r = 0; r < s.rows; ++r)
      if (row_len(s, r) > 0 && (shortest < 0 || row_len(s, r) < row_len(s, shortest))) shortest = r;
    rows.push_back(shortest);
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

SddmmCheck::SddmmCheck(const CsrView& s, DenseView<const float> a, DenseView<const float> b, std::int64_t nnz_budget) {
  const std::int64_t k = a.cols;
  rows_ = sample_rows(s, nnz_budget, max_rows_for(k));
  HostCsr sub = take_rows(s, rows_);
  HostDense<float> sub_a(sub.rows, k);
  for (std::size_t q = 0; q < rows_.size(); ++q) std::copy(a.row(rows_[q]), a.row(rows_[q]) + k, sub_a.row(q));
  for (std::int64_t r : rows_)
    for (std::int64_t j = s.row_ptr[r]; j < s.row_ptr[r + 1]; ++j) positions_.push_back(j);

  // The oracle itself computes the reference values.
  const Context host = Context::cpu_keeping_threads();  // the benchmark's count stays
  auto plan = find_sddmm_variant("ref.sddmm").prepare(host, sub.view(), static_cast<int>(k));
  ref_scaled_.assign(positions_.size(), 0.0f);
  ref_unscaled_.assign(positions_.size(), 0.0f);
  plan->run(host, sub_a.view(), b, sub.vals.data(), ref_scaled_.data());
  plan->run(host, sub_a.view(), b, nullptr, ref_unscaled_.data());

  mag_unscaled_.assign(positions_.size(), 0.0);
  mag_scaled_.assign(positions_.size(), 0.0);
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t q = 0; q < sub.rows; ++q) {
    const float* ar = sub_a.row(q);
    for (std::int64_t j = sub.row_ptr[q]; j < sub.row_ptr[q + 1]; ++j) {
      const float* br = b.row(sub.col_idx[j]);
      double m = 0;
      for (std::int64_t t = 0; t < k; ++t) m += std::fabs(double(ar[t]) * double(br[t]));
      mag_unscaled_[j] = m;
      mag_scaled_[j] = m * std::fabs(double(sub.vals[j]));
    }
  }
}

double SddmmCheck::max_rel_err(const std::vector<float>& out, bool scaled) const {
  const std::vector<float>& ref = scaled ? ref_scaled_ : ref_unscaled_;
  const std::vector<double>& mag = scaled ? mag_scaled_ : mag_unscaled_;
  const std::int64_t n = static_cast<std::int64_t>(positions_.size());
  double worst = 0;
#pragma omp parallel for reduction(max : worst) schedule(static)
  for (std::int64_t q = 0; q < n; ++q) worst = std::max(worst, element_error(out[positions_[q]], ref[q], mag[q]));
  return worst;
}

SpmmCheck::SpmmCheck(const CsrView& o, DenseView<const float> b, std::int64_t nnz_budget) : k_(static_cast<int>(b.cols)) {
  rows_ = sample_rows(o, nnz_budget, max_rows_for(k_));
  HostCsr sub = take_rows(o, rows_);
  const Context host = Context::cpu_keeping_threads();  // the benchmark's count stays
  auto plan = find_spmm_variant("ref.spmm").prepare(host, sub.view(), k_);
  HostDense<float> c(sub.rows, k_);
  const float no_values = 0;  // the oracle wants a values pointer even when there is no nonzero
  plan->run(host, sub.vals.empty() ? &no_values : sub.vals.data(), b, c.view());
  ref_ = c.values();

  mag_.assign(static_cast<std::size_t>(sub.rows) * k_, 0.0);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t q = 0; q < sub.rows; ++q) {
    double* m = mag_.data() + q * k_;
    for (std::int64_t j = sub.row_ptr[q]; j < sub.row_ptr[q + 1]; ++j) {
      const float* br = b.row(sub.col_idx[j]);
      const double v = std::fabs(double(sub.vals[j]));
      for (int t = 0; t < k_; ++t) m[t] += v * std::fabs(double(br[t]));
    }
  }
}

SpmmCheck::SpmmCheck(const CsrView& s, DenseView<const float> a, DenseView<const float> b, float eps,
                     RatioForm form, std::int64_t nnz_budget)
    : k_(static_cast<int>(b.cols)) {
  rows_ = sample_rows(s, nnz_budget, max_rows_for(k_));
  const HostCsr sub = take_rows(s, rows_);
  HostDense<float> sub_a(sub.rows, k_);
  for (std::int64_t q = 0; q < sub.rows; ++q) std::copy(a.row(rows_[q]), a.row(rows_[q]) + k_, sub_a.row(q));
  const Context host = Context::cpu_keeping_threads();  // the benchmark's count stays
  auto plan = find_ratio_spmm_variant("ref.ratio_spmm").prepare(host, sub.view(), k_);
  HostDense<float> c(sub.rows, k_);
  const float no_values = 0;
  // The residual's bound: |v| + d as (|v|) − (−1)·d.
  const std::vector<float> minus_one(std::max<std::size_t>(sub.vals.size(), 1), -1.0f);
  const auto run = [&](const std::vector<float>& vals, bool bound) {
    const float* v = vals.empty() ? &no_values : vals.data();
    if (form == RatioForm::kProduct)
      plan->run_product(host, v, sub_a.view(), b, c.view());
    else if (form == RatioForm::kResidual)
      plan->run_residual(host, v, bound ? minus_one.data() : nullptr, sub_a.view(), b, c.view());
    else
      plan->run(host, v, sub_a.view(), b, eps, c.view());
  };
  run(sub.vals, false);
  ref_ = c.values();
  std::vector<float> magnitudes = sub.vals;
  for (float& v : magnitudes) v = std::fabs(v);
  run(magnitudes, true);
  const std::vector<float> mag = c.values();
  mag_.assign(mag.begin(), mag.end());
}

double SpmmCheck::max_rel_err(const std::vector<float>& out) const {
  const std::int64_t n = static_cast<std::int64_t>(rows_.size());
  double worst = 0;
#pragma omp parallel for reduction(max : worst) schedule(static)
  for (std::int64_t q = 0; q < n; ++q) {
    const float* got = out.data() + rows_[q] * k_;
    for (int t = 0; t < k_; ++t) worst = std::max(worst, element_error(got[t], ref_[q * k_ + t], mag_[q * k_ + t]));
  }
  return worst;
}

}  // namespace fk::bench
