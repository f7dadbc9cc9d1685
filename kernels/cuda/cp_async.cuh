#pragma once
// Asynchronous global -> shared copies (cp.async, sm_80 and newer). nvcc only.
#include <cstdint>

namespace fk {

// Copies kBytes (4, 8 or 16; both addresses aligned to it) from global to shared memory; with
// valid == false the destination is filled with zeros instead (src-size 0). 16-byte copies bypass
// L1 (.cg): what is staged in shared memory is not read again through L1.
template <int kBytes>
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, bool valid = true) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
                 "r"(valid ? 16 : 0));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(gmem),
                 "n"(kBytes), "r"(valid ? kBytes : 0));
  }
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

}  // namespace fk
