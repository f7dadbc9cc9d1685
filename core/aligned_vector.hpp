#pragma once
// std::vector whose storage starts on a 64-byte boundary (a cache line, and a multiple of every
// SIMD width the host kernels use).
//
// Why: the OpenMP SpMM/SDDMM kernels load B rows with unaligned 32-byte vector loads. When B starts
// 16 or 48 bytes past a cache line, every other such load straddles two lines, and the row-split
// SpMM ran 1.34-1.41x slower on DLMC-shaped problems at K = 32-256 than with B 64-byte aligned
// (docs/benchmarks/checks/cpu-alignment). std::allocator only promises 16 bytes, and glibc's
// result depends on the heap's history, so timings of identical code moved by that much between
// runs and binaries.
#include <cstddef>
#include <new>
#include <vector>

namespace fk {

template <typename T>
struct AlignedAllocator {
  using value_type = T;
  static constexpr std::size_t kAlignment = 64;

  AlignedAllocator() = default;
  template <typename U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}  // NOLINT: rebinding copies nothing

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kAlignment)));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(kAlignment)); }

  template <typename U>
  bool operator==(const AlignedAllocator<U>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const AlignedAllocator<U>&) const noexcept { return false; }
};

template <typename T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace fk
