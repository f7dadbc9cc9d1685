#pragma once
// No exception may leave an OpenMP parallel region (the runtime calls std::terminate: exit 134
// and a core dump instead of an error message). Work inside one runs through ParallelErrors::run,
// and rethrow() after the region throws the kept exception as it was (a bad_alloc stays one: the
// apps say "out of memory").
//
// Which exception is kept does not depend on the thread count or the schedule: loop items name
// their index, and the exception of the lowest failing index wins, the one a sequential loop
// would have thrown first (a generator's error names the same document on 1 or 64 threads).
// Once item i failed, items after i are skipped; items before it still run, since one of them may
// fail too. Work without an index (per-thread set-up, run before the loop) counts as before every
// item.
//
//   ParallelErrors errors;
//   #pragma omp parallel
//   {
//     std::vector<double> scratch;
//     errors.run([&] { scratch.resize(n); });  // per-thread allocations too
//   #pragma omp for
//     for (std::int64_t b = 0; b < blocks; ++b) errors.run(b, [&] { work(b, scratch); });
//   }
//   errors.rethrow();
#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>

namespace fk {

class ParallelErrors {
 public:
  template <typename Work>
  void run(std::int64_t item, Work&& work) noexcept {
    if (item > first_item_.load(std::memory_order_relaxed)) return;
    try {
      work();
    } catch (...) {
      record(item, std::current_exception());
    }
  }
  template <typename Work>
  void run(Work&& work) noexcept {
    run(kSetUp, static_cast<Work&&>(work));
  }
  bool failed() const { return first_item_.load(std::memory_order_relaxed) != kNone; }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  static constexpr std::int64_t kSetUp = std::numeric_limits<std::int64_t>::min();

  void record(std::int64_t item, std::exception_ptr e) noexcept {
#pragma omp critical(fk_parallel_errors)
    if (!first_ || item < first_item_.load(std::memory_order_relaxed)) {
      first_ = e;
      first_item_.store(item, std::memory_order_relaxed);
    }
  }
  std::atomic<std::int64_t> first_item_{kNone};
  std::exception_ptr first_;
};

}  // namespace fk
