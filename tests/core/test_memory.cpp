// The memory checks made before large allocations: the machine's memory, lowered by the process's
// own limits (here ulimit -v, set in a child process so the test binary keeps its own); and the
// peaks a run reports.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "core/device_buffer.hpp"
#include "core/memory.hpp"
#include "tests/test_util.hpp"

namespace fk {
namespace {

TEST(Memory, KnownAndFollowsTheAddressSpaceLimit) {
  const double machine = host_memory_bytes();
  ASSERT_GT(machine, 0.0);
  EXPECT_TRUE(fits_in_memory(0.5 * machine));
  EXPECT_FALSE(fits_in_memory(0.9 * machine));
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory alone exceeds any small address-space limit";
#endif
  const double limit = 1 << 30;  // 1 GiB of address space
  if (machine <= 2 * limit) GTEST_SKIP() << "a machine of 2 GiB or less: the limit would not lower it";
  const int status = test::run_in_child([&] {
    struct rlimit r {};
    r.rlim_cur = r.rlim_max = static_cast<rlim_t>(limit);
    if (::setrlimit(RLIMIT_AS, &r) != 0) ::_exit(3);
    const bool ok = host_memory_bytes() == limit && fits_in_memory(0.7 * limit) &&
                    !fits_in_memory(0.9 * limit) &&
                    memory_shortfall(0.9 * limit).find("80% of 1.1 GB") != std::string::npos;
    ::_exit(ok ? 0 : 1);
  });
  ASSERT_NE(status, -1);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the limit did not lower the memory; 3: setrlimit failed";
}

constexpr std::int64_t kMiB = 1 << 20;

TEST(MemoryPeaks, HostPeakFollowsTouchedMemoryAndTheReset) {
  reset_memory_peaks();
  const std::optional<std::int64_t> before = memory_peaks().host_bytes;
  if (!before) GTEST_SKIP() << "no /proc/self/status VmHWM, or its reset failed, here";
  {
    const std::size_t bytes = 96 * kMiB;
    std::unique_ptr<char[]> block(new char[bytes]);
    std::memset(block.get(), 1, bytes);  // resident only once written
    const std::optional<std::int64_t> held = memory_peaks().host_bytes;
    ASSERT_TRUE(held);
    EXPECT_GE(*held, *before + 90 * kMiB);
  }
  // The block went back to the system (an allocation this large is its own mapping): after the
  // reset the peak is what the process holds now.
  reset_memory_peaks();
  const std::optional<std::int64_t> after = memory_peaks().host_bytes;
  ASSERT_TRUE(after);
  EXPECT_LT(*after, *before + 48 * kMiB);
}

TEST(MemoryPeaks, DevicePeakCountsAllocationsUntilTheReset) {
  reset_memory_peaks();
  const std::int64_t base = memory_peaks().device_bytes;
  count_device_bytes(5 * kMiB);
  count_device_bytes(-5 * kMiB);
  count_device_bytes(2 * kMiB);
  EXPECT_EQ(memory_peaks().device_bytes, base + 5 * kMiB);  // the most held at once
  reset_memory_peaks();
  EXPECT_EQ(memory_peaks().device_bytes, base + 2 * kMiB);  // what is held now
  count_device_bytes(-2 * kMiB);
}

TEST(MemoryPeaks, DeviceBuffersAreCounted) {
  FK_REQUIRE_GPU();
  reset_memory_peaks();
  const std::int64_t base = memory_peaks().device_bytes;
  {
    DeviceBuffer<float> a(kMiB / 4), b(3 * kMiB / 4);  // 1 and 3 MiB
    EXPECT_EQ(memory_peaks().device_bytes, base + 4 * kMiB);
    a = DeviceBuffer<float>();  // move-assigned: a's MiB is released
  }
  DeviceBuffer<float> c(kMiB / 2);  // 2 MiB
  reset_memory_peaks();
  EXPECT_EQ(memory_peaks().device_bytes, base + 2 * kMiB);
}

}  // namespace
}  // namespace fk
