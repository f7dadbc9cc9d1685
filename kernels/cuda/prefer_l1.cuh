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

template <auto Kernel>
void prefer_l1() {
  static const bool done = [] {
    FK_CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       static_cast<int>(cudaSharedmemCarveoutMaxL1)));
    return true;
  }();
  (void)done;
}

}  // namespace fk
