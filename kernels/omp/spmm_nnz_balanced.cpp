// omp.spmm.nnz_balanced: nonzero-balanced SpMM for skewed row lengths.
//
// The nonzeros are cut into P equal parts (P = a few per processor, run with a dynamic schedule so a
// busy core does not hold everyone back). Part q covers nonzeros [z_q, z_{q+1}) and owns the rows
// [R_q, R_{q+1}), where R_q is the row holding nonzero z_q (found by binary search on row_ptr in
// prepare; R_0 = 0, R_P = rows). Every row is owned by exactly one part, which writes it directly
// (empty rows as zeros) from the nonzeros it has of it. A row can also have nonzeros in earlier
// parts (a row longer than a part spans several): part q's share of row R_{q+1}, the row the next
// part owns, goes into part q's own carry buffer, and after the parallel region the carries are
// added to their rows one part after the other. No two threads ever write the same C row at once.
#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/omp/common.hpp"
#include "kernels/omp/omp_variants.hpp"
#include "kernels/omp/simd.hpp"

namespace fk {
namespace {

constexpr std::int64_t kPartsPerThread = 4;

class OmpSpmmNnzBalancedPlan : public SpmmPlan {
 public:
  OmpSpmmNnzBalancedPlan(const CsrView& s, int k) : s_(s), k_(k) {
    // Sized for the machine, not the run's threads: the parts' boundaries order each split row's
    // sum (omp_common::split_threads).
    const std::int64_t parts = kPartsPerThread * omp_common::split_threads();
    part_nz_.resize(static_cast<std::size_t>(parts) + 1);
    part_row_.resize(static_cast<std::size_t>(parts) + 1);
    const std::int64_t* rp = s.row_ptr;
    for (std::int64_t q = 0; q <= parts; ++q) {
      // z_q = floor(q * nnz / parts) without overflowing 64 bits for nnz near 2^62.
      part_nz_[q] = (s.nnz / parts) * q + (s.nnz % parts) * q / parts;
      // The last row r with row_ptr[r] <= z_q, i.e. the row holding nonzero z_q (skipping empty rows).
      const std::int64_t r = (std::upper_bound(rp, rp + s.rows + 1, part_nz_[q]) - rp) - 1;
      part_row_[q] = std::min(r, s.rows);
    }
    part_row_[0] = 0;
    part_row_[parts] = s.rows;
    carry_.assign(static_cast<std::size_t>(parts) * static_cast<std::size_t>(k), 0.0f);
  }

  void run(const Context&, const float* vals, DenseView<const float> b, DenseView<float> c) override {
    check_spmm_operands("omp.spmm.nnz_balanced", s_, Op::kNoTrans, k_, b, c);
    vals = spmm_values("omp.spmm.nnz_balanced", s_, vals);
    const std::int64_t* rp = s_.row_ptr;
    const std::int32_t* ci = s_.col_idx;
    const std::int64_t parts = static_cast<std::int64_t>(part_nz_.size()) - 1, k = k_;
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t q = 0; q < parts; ++q) {
      const std::int64_t z0 = part_nz_[q], z1 = part_nz_[q + 1];
      for (std::int64_t r = part_row_[q]; r < part_row_[q + 1]; ++r) {
        const std::int64_t j0 = std::max(rp[r], z0), j1 = rp[r + 1];  // owned rows end before z1
        omp_simd::spmm_row(ci + j0, vals + j0, j1 - j0, b.data, b.cols, k, c.row(r), false);
      }
      const std::int64_t next = part_row_[q + 1];
      if (next < s_.rows) {  // this part's share of the row the next part owns (maybe none)
        const std::int64_t j0 = std::max(rp[next], z0);
        if (z1 > j0) omp_simd::spmm_row(ci + j0, vals + j0, z1 - j0, b.data, b.cols, k, carry_.data() + q * k, false);
      }
    }
    for (std::int64_t q = 0; q + 1 < parts; ++q) {
      const std::int64_t next = part_row_[q + 1];
      if (next >= s_.rows || part_nz_[q + 1] <= std::max(rp[next], part_nz_[q])) continue;
      float* cr = c.row(next);
      const float* cq = carry_.data() + q * k;
#pragma omp simd
      for (std::int64_t t = 0; t < k; ++t) cr[t] += cq[t];
    }
  }

 private:
  CsrView s_;
  int k_;
  std::vector<std::int64_t> part_nz_;   // parts + 1 nonzero boundaries
  std::vector<std::int64_t> part_row_;  // parts + 1 row boundaries (first owned row of each part)
  std::vector<float> carry_;            // parts x K partial rows
};

class OmpSpmmNnzBalanced : public SpmmVariant {
 public:
  const char* name() const override { return "omp.spmm.nnz_balanced"; }
  const char* summary() const override {
    return "OpenMP equal-nonzero parts (binary search on row_ptr); rows split across parts combined by carries";
  }
  Backend backend() const override { return Backend::kOmp; }
  std::unique_ptr<SpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    return std::make_unique<OmpSpmmNnzBalancedPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_omp_spmm_nnz_balanced() { return std::make_unique<OmpSpmmNnzBalanced>(); }

}  // namespace fk
