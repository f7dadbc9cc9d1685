// ParallelErrors: the first exception of an OpenMP region comes out after it as it was thrown,
// whichever thread threw it, and the work after it is skipped.
#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <stdexcept>

#include "core/parallel_errors.hpp"

namespace fk {
namespace {

TEST(ParallelErrors, FirstExceptionLeavesTheRegionAsItWas) {
  ParallelErrors errors;
  std::atomic<int> done{0};
#pragma omp parallel num_threads(2)
  {
    errors.run([&] {
      // A per-thread allocation that fails, as a huge scratch vector would.
      throw std::bad_alloc();
    });
#pragma omp for
    for (int i = 0; i < 100; ++i) errors.run([&] { ++done; });
  }
  EXPECT_TRUE(errors.failed());
  EXPECT_EQ(done.load(), 0) << "work after a failure is skipped";
  EXPECT_THROW(errors.rethrow(), std::bad_alloc);

  ParallelErrors none;
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 100; ++i) none.run([&] {});
  EXPECT_FALSE(none.failed());
  EXPECT_NO_THROW(none.rethrow());

  ParallelErrors one;
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 100; ++i)
    one.run([&] {
      if (i == 37) throw std::runtime_error("item 37");
    });
  try {
    one.rethrow();
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 37");
  }
}

}  // namespace
}  // namespace fk
