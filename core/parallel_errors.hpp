#pragma once
// No exception may leave an OpenMP parallel region (the runtime calls std::terminate: exit 134
// and a core dump instead of an error message). Work inside one runs through ParallelErrors::run,
// which keeps the first exception of any thread; rethrow() after the region throws it as it was
// (a bad_alloc stays one: the apps say "out of memory"). Once one failed, later work is skipped.
//
//   ParallelErrors errors;
//   #pragma omp parallel
//   {
//     std::vector<double> scratch;
//     errors.run([&] { scratch.resize(n); });  // per-thread allocations too
//   #pragma omp for
//     for (std::int64_t b = 0; b < blocks; ++b) errors.run([&] { work(b, scratch); });
//   }
//   errors.rethrow();
#include <atomic>
#include <exception>

namespace fk {

class ParallelErrors {
 public:
  template <typename Work>
  void run(Work&& work) noexcept {
    if (failed_.load(std::memory_order_relaxed)) return;
    try {
      work();
    } catch (...) {
      record(std::current_exception());
    }
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  void record(std::exception_ptr e) noexcept {
#pragma omp critical(fk_parallel_errors)
    if (!first_) {
      first_ = e;
      failed_ = true;
    }
  }
  std::atomic<bool> failed_{false};
  std::exception_ptr first_;
};

}  // namespace fk
