// HostDense and the host buffers of the apps: storage that starts on a 64-byte boundary whatever
// the heap did before (the OpenMP kernels' vector loads split across cache lines otherwise), and
// the plain-vector conversions.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "apps/common/host_ops.hpp"
#include "core/aligned_vector.hpp"
#include "core/dense.hpp"
#include "core/error.hpp"

namespace fk {
namespace {

bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

TEST(HostDense, StorageIs64ByteAligned) {
  // Odd-sized allocations in between leave the heap at every offset a 16-byte allocator can give.
  std::vector<std::unique_ptr<char[]>> clutter;
  for (std::int64_t n : {1, 7, 33, 128, 1000, 70000}) {
    clutter.emplace_back(new char[static_cast<std::size_t>(n) * 3 + 8]);
    HostDense<float> m(n, 3);
    EXPECT_TRUE(aligned64(m.data())) << n << " x 3";
    HostDense<float> copy = m;
    EXPECT_TRUE(aligned64(copy.data())) << "copy of " << n << " x 3";
    AlignedVector<double> v(static_cast<std::size_t>(n));
    EXPECT_TRUE(aligned64(v.data())) << n << " doubles";
    v.resize(static_cast<std::size_t>(n) * 5);  // reallocation keeps the alignment
    EXPECT_TRUE(aligned64(v.data())) << n * 5 << " doubles";
  }
  const app::HostOps ops;
  EXPECT_TRUE(aligned64(ops.alloc<float>(999).data()));
}

TEST(HostDense, PlainVectorConversions) {
  HostDense<float> m(2, 3);
  m.assign_values({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(m(1, 0), 4.0f);
  EXPECT_EQ(m.values(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_THROW(m.assign_values({1, 2, 3}), Error);  // must hold exactly rows x cols
  EXPECT_EQ(m.values(), (std::vector<float>{1, 2, 3, 4, 5, 6}));  // left as it was
}

}  // namespace
}  // namespace fk
