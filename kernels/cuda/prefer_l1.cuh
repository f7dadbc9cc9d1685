#pragma once
// Asks for the largest L1 (smallest shared-memory carveout) for a kernel that uses no shared
// memory: its reuse of B rows lives in L1. Once per kernel instantiation: cudaFuncSetAttribute is
// host work that a run() should not repeat (the GPU time of the 10-20 us DLMC problems did not
// change when it moved here, but the host's did). The hint is per device context, so a second GPU
// keeps the driver's default.
// (A template on the kernel itself: kernels of one signature share a function type.)
#include <cuda_runtime.h>

#include "core/cuda/cuda_check.cuh"

namespace fk {

// A kernel with a little static shared memory passes the percentage of the unified L1/shared
// array to keep as shared memory instead: with the smallest carveout the driver sizes shared memory
// for one block, and blocks per SM drop to what that holds (cuda.spmm.row_split's 4 KiB blocks ran
// 3-7x slower on an H200 until they had room for a full SM's worth).
template <auto Kernel, int kSharedPercent = static_cast<int>(cudaSharedmemCarveoutMaxL1)>
void prefer_l1() {
  static const bool done = [] {
    FK_CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       kSharedPercent));
    return true;
  }();
  (void)done;
}

}  // namespace fk
