#include "core/log.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>

namespace fk {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
const auto g_start = std::chrono::steady_clock::now();
}  // namespace

void set_log_level(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel log_level() { return static_cast<LogLevel>(g_level.load()); }
double seconds_since_start() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
}
std::string LogLine::fixed_seconds() {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", seconds_since_start());
  return buf;
}

}  // namespace fk
