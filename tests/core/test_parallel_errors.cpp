// ParallelErrors: the exception of an OpenMP region's lowest failing item comes out after it as
// it was thrown, whichever thread threw it and in whatever order the items ran; the work after it
// is skipped.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>
#include <string>

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
    for (int i = 0; i < 100; ++i) errors.run(i, [&] { ++done; });
  }
  EXPECT_TRUE(errors.failed());
  EXPECT_EQ(done.load(), 0) << "work after a failure is skipped";
  EXPECT_THROW(errors.rethrow(), std::bad_alloc);

  ParallelErrors none;
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 100; ++i) none.run(i, [&] {});
  EXPECT_FALSE(none.failed());
  EXPECT_NO_THROW(none.rethrow());

  ParallelErrors one;
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 100; ++i)
    one.run(i, [&] {
      if (i == 37) throw std::runtime_error("item 37");
    });
  try {
    one.rethrow();
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 37");
  }
}

TEST(ParallelErrors, LowestFailingItemWinsWhateverTheOrder) {
  // Items 80 and 37 fail. Run from the last item down, 80 fails first; 37 must still run and
  // replace it, since a sequential loop would have stopped at 37. Items between them run (one
  // might fail earlier), and nothing above 80 is affected.
  ParallelErrors down;
  int ran = 0;
  for (int i = 99; i >= 0; --i)
    down.run(i, [&] {
      ++ran;
      if (i == 80 || i == 37) throw std::runtime_error("item " + std::to_string(i));
    });
  EXPECT_EQ(ran, 100) << "every item at or below the failing one runs";
  try {
    down.rethrow();
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "item 37");
  }

  // Upwards, the items after the first failure are skipped.
  ParallelErrors up;
  ran = 0;
  for (int i = 0; i < 100; ++i)
    up.run(i, [&] {
      ++ran;
      if (i == 37 || i == 80) throw std::runtime_error("item " + std::to_string(i));
    });
  EXPECT_EQ(ran, 38);
  EXPECT_THROW(up.rethrow(), std::runtime_error);

  // On threads with a static split the second thread reaches its failing item 80 long before the
  // first thread reaches 37 (which waits for it, a second at most: with one thread 80 comes
  // later); the result is still item 37.
  for (int repeat = 0; repeat < 5; ++repeat) {
    ParallelErrors split;
    std::atomic<bool> eighty_failed{false};
#pragma omp parallel for num_threads(2) schedule(static)
    for (int i = 0; i < 100; ++i)
      split.run(i, [&] {
        if (i == 80) {
          eighty_failed = true;
          throw std::runtime_error("item 80");
        }
        if (i == 37) {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
          while (!eighty_failed && std::chrono::steady_clock::now() < deadline) {
          }
          throw std::runtime_error("item 37");
        }
      });
    try {
      split.rethrow();
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 37");
    }
  }
}

}  // namespace
}  // namespace fk
