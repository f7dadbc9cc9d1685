#pragma once
// The work list of the staged tensor-core SpMM (kernels/cuda/spmm_tc_staged.cu): each block row's
// vectors of a column-vector encoding (core/vector_csr.hpp) dealt into steps of 16 slots, one
// mma.sync.m16n8k16 each. Host code, in its own file so that CPU builds test it.
//
// The kernel reads a step's B rows from shared memory, where column c's row sits at byte 32·(c +
// 1), with four 32-bit loads per lane; load i of the warp reads the slots of `kSlotsOfLoad[i]`, one
// B row per quarter of the warp. Four rows fall in distinct bank groups, so the load costs one
// shared-memory wavefront instead of up to four, when their columns differ mod 4 (so do c + 1). The
// slots are free to be filled in any order (an mma sums over them), so the dealer gives each load
// one vector of each residue class for as long as the classes last.
#include <array>
#include <cstdint>
#include <vector>

#include "core/vector_csr.hpp"

namespace fk::tc {

constexpr int kStepSlots = 16;
constexpr int kLoadsPerStep = 4;
constexpr int kBankGroups = 4;  // 128 bytes of banks over 32-byte staged rows
// Load i reads slots 2q + (i & 1) + 8 (i >> 1) for the warp's quarters q = 0..3.
constexpr std::array<std::array<int, 4>, kLoadsPerStep> kSlotsOfLoad{
    {{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}};

struct TcSteps {
  std::vector<std::int64_t> step_ptr{0};  // block_rows + 1 offsets, in steps
  std::vector<std::int64_t> slot_vector;  // steps x kStepSlots: a vector of the encoding, or -1
  std::int64_t steps() const { return static_cast<std::int64_t>(slot_vector.size()) / kStepSlots; }
};

// Deals every block row of `e` into ceil(vectors / 16) steps (the last one padded with -1).
TcSteps deal_tc_steps(const HostVectorCsr& e);

// Loads of `steps` whose four columns are not all in distinct residue classes mod 4 (padding
// slots excluded), for the benchmark and tests: the shared-memory conflicts the dealer left.
std::int64_t conflicting_loads(const TcSteps& steps, const HostVectorCsr& e);

}  // namespace fk::tc
