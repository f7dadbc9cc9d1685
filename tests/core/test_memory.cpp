// The memory checks made before large allocations: the machine's memory, lowered by the process's
// own limits (here ulimit -v, set in a child process so the test binary keeps its own).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace
}  // namespace fk
