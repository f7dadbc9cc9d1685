#pragma once
// A progress line for long loops: prints "what: done/total (pct%), rate/s, eta" to stderr at most
// every `interval` seconds, and a final line on finish(). Silent when the log level is above info.
#include <cstdint>
#include <string>

#include "core/timer.hpp"

namespace fk {

class Progress {
 public:
  Progress(std::string what, std::int64_t total, double interval_seconds = 2.0);
  void update(std::int64_t done);  // cheap when called often
  void finish();

 private:
  std::string what_;
  std::int64_t total_;
  double interval_;
  double last_print_ = 0;
  bool finished_ = false;
  Stopwatch clock_;
};

}  // namespace fk
