#pragma once
// Minimal logger: one line per message on stderr, prefixed with the elapsed time since start.
// `--quiet` raises the level to warnings, the apps' `--verbose` lowers it to debug lines.
// Usage: log_info() << "read " << n << " rows";
#include <iostream>
#include <sstream>

namespace fk {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2 };

void set_log_level(LogLevel level);
LogLevel log_level();
double seconds_since_start();

class LogLine {
 public:
  LogLine(LogLevel level, const char* tag) : enabled_(level >= log_level()) {
    if (enabled_) os_ << '[' << fixed_seconds() << "s] " << tag;
  }
  ~LogLine() {
    if (enabled_) {
      os_ << '\n';
      std::cerr << os_.str() << std::flush;
    }
  }
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;
  template <typename T>
  LogLine& operator<<(const T& value) {
    if (enabled_) os_ << value;
    return *this;
  }

 private:
  static std::string fixed_seconds();
  bool enabled_;
  std::ostringstream os_;
};

inline LogLine log_debug() { return LogLine(LogLevel::kDebug, "debug: "); }
inline LogLine log_info() { return LogLine(LogLevel::kInfo, ""); }
inline LogLine log_warn() { return LogLine(LogLevel::kWarn, "warning: "); }

}  // namespace fk
