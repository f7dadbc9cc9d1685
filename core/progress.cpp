#include "core/progress.hpp"

#include <cstdio>

#include "core/log.hpp"

namespace fk {

Progress::Progress(std::string what, std::int64_t total, double interval_seconds)
    : what_(std::move(what)), total_(total), interval_(interval_seconds) {}

void Progress::update(std::int64_t done) {
  const double t = clock_.seconds();
  if (t - last_print_ < interval_) return;
  last_print_ = t;
  const double rate = t > 0 ? static_cast<double>(done) / t : 0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
  char buf[160];
  std::snprintf(buf, sizeof buf, ": %lld/%lld (%.0f%%), %.3g/s, eta %.0fs", static_cast<long long>(done),
                static_cast<long long>(total_), total_ > 0 ? 100.0 * done / total_ : 100.0, rate, eta);
  log_info() << what_ << buf;
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  char buf[96];
  std::snprintf(buf, sizeof buf, ": %lld done in %.2fs", static_cast<long long>(total_), clock_.seconds());
  log_info() << what_ << buf;
}

}  // namespace fk
