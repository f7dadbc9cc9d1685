#pragma once
// The work list of the staged tensor-core SpMM (kernels/cuda/spmm_tc_staged.cu): each block row's
// vectors of a column-vector encoding (core/vector_csr.hpp) dealt into steps of 16 slots, one
// mma.sync.m16n8k16 each. Host code, in its own file so that CPU builds test it.
//
// The kernel reads a step's 16 B rows from shared memory with one ldmatrix.x4: each half of the
// step, slots 0-7 and slots 8-15, is two 8 x 8 matrices (the two 16-byte halves of its 8 rows). The
// staged rows are swizzled so that eight rows fall in eight distinct bank groups, one wavefront a
// matrix instead of up to eight, when their columns differ mod 8. The slots are free to be filled
// in any order (an mma sums over them), so the dealer gives each half one vector of each residue
// class for as long as the classes last.
#include <array>
#include <cstdint>
#include <vector>

#include "core/vector_csr.hpp"

namespace fk::tc {

constexpr int kStepSlots = 16;
constexpr int kGroupSlots = 8;  // rows of one ldmatrix 8 x 8 matrix
constexpr int kBankGroups = 8;  // 16-byte pieces per 128 bytes of banks

struct TcSteps {
  std::vector<std::int64_t> step_ptr{0};  // block_rows + 1 offsets, in steps
  std::vector<std::int64_t> slot_vector;  // steps x kStepSlots: a vector of the encoding, or -1
  std::int64_t steps() const { return static_cast<std::int64_t>(slot_vector.size()) / kStepSlots; }
};

// Deals every block row of `e` into ceil(vectors / 16) steps (the last one padded with -1).
TcSteps deal_tc_steps(const HostVectorCsr& e);
// The steps deal_tc_steps(e) makes, without making them.
std::int64_t tc_step_count(const HostVectorCsr& e);
// Whether the staged kernel's 32-bit step offsets and 16-bit staged row numbers hold `e`: steps x
// 16 slots x V values under 2^31, and N under 32767 (row numbers 2r + 1 of rows r <= N in 16
// bits; a slice that large would not fit in shared memory anyway).
bool staged_indexes_fit(const HostVectorCsr& e);

// Step halves of `steps` whose columns are not all in distinct residue classes mod 8 (padding
// slots excluded), for the benchmark and tests: the shared-memory conflicts the dealer left.
std::int64_t conflicting_loads(const TcSteps& steps, const HostVectorCsr& e);

}  // namespace fk::tc
