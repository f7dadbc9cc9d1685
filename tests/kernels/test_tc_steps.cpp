// The staged tensor-core SpMM's step dealer (kernels/tc_steps.hpp), on the host: every vector
// dealt exactly once into its own block row's steps, padding only in a block row's last step, no
// shared-memory conflict when the columns' residues mod 8 are balanced, and never more conflicts
// than the encoding's own (ascending) order. CPU only.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "core/vector_csr.hpp"
#include "kernels/tc_steps.hpp"
#include "problems.hpp"

namespace fk {
namespace {

// One block row (v = 1) per entry of `rows`, holding those columns.
HostVectorCsr encoding_of(const std::vector<std::vector<std::int32_t>>& rows, std::int64_t cols) {
  HostCsr s;
  s.rows = static_cast<std::int64_t>(rows.size());
  s.cols = cols;
  for (const auto& r : rows) {
    s.col_idx.insert(s.col_idx.end(), r.begin(), r.end());
    s.row_ptr.push_back(static_cast<std::int64_t>(s.col_idx.size()));
  }
  s.vals.assign(s.col_idx.size(), 1.0f);
  return to_vector_csr(s.view(), 1);
}

void expect_dealt_once(const tc::TcSteps& steps, const HostVectorCsr& e) {
  ASSERT_EQ(std::int64_t(steps.step_ptr.size()), e.block_rows() + 1);
  for (std::int64_t br = 0; br < e.block_rows(); ++br) {
    const std::int64_t n = e.block_ptr[br + 1] - e.block_ptr[br];
    EXPECT_EQ(steps.step_ptr[br + 1] - steps.step_ptr[br], (n + 15) / 16) << "block row " << br;
    std::vector<std::int64_t> got;
    for (std::int64_t st = steps.step_ptr[br]; st < steps.step_ptr[br + 1]; ++st)
      for (int slot = 0; slot < tc::kStepSlots; ++slot) {
        const std::int64_t j = steps.slot_vector[st * tc::kStepSlots + slot];
        if (j >= 0)
          got.push_back(j);
        else
          EXPECT_EQ(st, steps.step_ptr[br + 1] - 1)
              << "padding before the last step of block row " << br;
      }
    std::sort(got.begin(), got.end());
    std::vector<std::int64_t> want(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) want[i] = e.block_ptr[br] + i;
    EXPECT_EQ(got, want) << "block row " << br;
  }
}

// The encoding's vectors in their own order, 16 to a step.
tc::TcSteps ascending(const HostVectorCsr& e) {
  tc::TcSteps out;
  for (std::int64_t br = 0; br < e.block_rows(); ++br) {
    for (std::int64_t j = e.block_ptr[br]; j < e.block_ptr[br + 1]; j += tc::kStepSlots)
      for (int slot = 0; slot < tc::kStepSlots; ++slot)
        out.slot_vector.push_back(j + slot < e.block_ptr[br + 1] ? j + slot : -1);
    out.step_ptr.push_back(out.steps());
  }
  return out;
}

TEST(TcSteps, BalancedResiduesHaveNoConflicts) {
  // run: 8 columns of each residue mod 8, but ascending order holds all of residue 0 first
  // (column 64r + 8i + r); clustered: all residue 0.
  std::vector<std::int32_t> run, clustered(40);
  for (int r = 0; r < 8; ++r)
    for (int i = 0; i < 8; ++i) run.push_back(64 * r + 8 * i + r);
  for (int i = 0; i < 40; ++i) clustered[i] = 8 * i;
  const HostVectorCsr e = encoding_of({run, {}, clustered, {5}}, 600);
  const tc::TcSteps steps = tc::deal_tc_steps(e);
  expect_dealt_once(steps, e);
  // run: 4 steps, none conflicting; clustered: 3 steps, halves of 8, 8, 8, 8, 8 and an empty one,
  // each of the five full ones conflicting; {5}: one vector, no conflict.
  EXPECT_EQ(tc::conflicting_loads(steps, e), 5);
  // Ascending order puts eight columns of one residue in every half of `run`'s steps.
  EXPECT_EQ(tc::conflicting_loads(ascending(e), e), 8 + 5);
}

TEST(TcSteps, RandomPatternsEveryVectorLength) {
  const std::uint64_t seed = test::fresh_seed();
  Rng rng(seed);
  for (int v : {1, 2, 4, 8}) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " v " + std::to_string(v));
    const HostCsr s = test::random_pattern(37, 500, rng, [&](std::int64_t r) {
      return r % 7 == 2 ? std::int64_t(0) : std::int64_t(rng.below(120));
    });
    const HostVectorCsr e = to_vector_csr(s.view(), v);
    const tc::TcSteps steps = tc::deal_tc_steps(e);
    expect_dealt_once(steps, e);
    EXPECT_LE(tc::conflicting_loads(steps, e), tc::conflicting_loads(ascending(e), e));
    EXPECT_EQ(tc::tc_step_count(e), steps.steps());
  }
}

// The staged kernel's limits, at their edges: 32-bit offsets of steps x 16 slots x V values (a
// block row of 2^28 vectors at V = 8 makes 2^24 steps, 2^31 values: one step too many) and 16-bit
// staged row numbers (N < 32767). Only block_ptr is read, so no vectors are stored.
TEST(TcSteps, StagedIndexLimits) {
  HostVectorCsr e;
  e.v = 8;
  e.rows = 8;
  e.cols = 32766;
  e.block_ptr = {0, (std::int64_t(1) << 28) - 16};
  EXPECT_EQ(tc::tc_step_count(e), (std::int64_t(1) << 24) - 1);
  EXPECT_TRUE(tc::staged_indexes_fit(e));
  e.block_ptr[1] += 1;  // the 2^24th step, if only one vector of it
  EXPECT_FALSE(tc::staged_indexes_fit(e));
  e.block_ptr[1] = 16;
  EXPECT_TRUE(tc::staged_indexes_fit(e));
  e.cols = 32767;
  EXPECT_FALSE(tc::staged_indexes_fit(e));
}

}  // namespace
}  // namespace fk
