#include "core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace fk {
namespace {
// A number of bytes read from a cgroup file; 0 for "max", a v1 "no limit" (~2^63) or no file.
double limit_in(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && v > 0 && v < 1e18 ? v : 0;
}

// The lowest memory limit of this process's cgroup and its ancestors (v2 memory.max, v1
// memory.limit_in_bytes) in bytes; 0 when there is none or it cannot be read. Containers see the
// host's physical memory through sysconf; the limit may sit on the process's own group rather
// than on the root one a container shows (a systemd scope, a nested group).
double cgroup_limit_bytes() {
  std::vector<std::string> files;
  std::ifstream groups("/proc/self/cgroup");
  std::string line;
  while (std::getline(groups, line)) {
    // "0::/a/b" (v2) or "7:memory:/a/b" (v1); the path is relative to the mount.
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    const bool v2 = controllers.empty(), v1 = controllers.find("memory") != std::string::npos;
    if (!v2 && !v1) continue;
    for (;;) {
      if (v2) files.push_back("/sys/fs/cgroup" + path + "/memory.max");
      if (v1) files.push_back("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes");
      if (path.empty() || path == "/") break;
      path = path.substr(0, path.rfind('/'));
    }
  }
  files.push_back("/sys/fs/cgroup/memory.max");
  files.push_back("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  double lowest = 0;
  for (const std::string& f : files) {
    const double v = limit_in(f);
    if (v > 0 && (lowest == 0 || v < lowest)) lowest = v;
  }
  return lowest;
}

// The process's address-space and data-segment limits (ulimit -v, ulimit -d) in bytes; 0 when
// unlimited.
double rlimit_bytes() {
  double lowest = 0;
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit r {};
    if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
    const double v = static_cast<double>(r.rlim_cur);
    if (lowest == 0 || v < lowest) lowest = v;
  }
  return lowest;
}

std::atomic<std::int64_t> g_device_bytes{0}, g_device_peak{0};
std::atomic<bool> g_host_peak_known{true};

// The "VmHWM:  1234 kB" line of /proc/self/status in bytes; none where there is no such line.
std::optional<std::int64_t> host_high_water_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) {
      char* end = nullptr;
      const long long kib = std::strtoll(line.c_str() + 6, &end, 10);
      if (end != line.c_str() + 6 && kib > 0) return static_cast<std::int64_t>(kib) * 1024;
    }
  return std::nullopt;
}
}  // namespace

MemoryPeaks memory_peaks() {
  MemoryPeaks p;
  if (g_host_peak_known) p.host_bytes = host_high_water_bytes();
  p.device_bytes = g_device_peak.load();
  return p;
}

void reset_memory_peaks() {
  // Writing 5 to clear_refs sets the process's resident high-water mark to its current resident
  // set (Linux 4.0 and newer).
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  g_host_peak_known = static_cast<bool>(clear);
  g_device_peak = g_device_bytes.load();
}

std::int64_t device_bytes_in_use() noexcept { return g_device_bytes.load(); }

void count_device_bytes(std::int64_t delta) noexcept {
  const std::int64_t now = g_device_bytes += delta;
  std::int64_t peak = g_device_peak.load();
  while (now > peak && !g_device_peak.compare_exchange_weak(peak, now)) {
  }
}

double host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  double memory = pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
  for (const double limit : {cgroup_limit_bytes(), rlimit_bytes()})
    if (limit > 0 && (memory <= 0 || limit < memory)) memory = limit;
  return memory;
}

bool fits_in_memory(double bytes) {
  // The estimates count the large arrays only, and the system and the rest of the process need
  // room too: a fifth is left to them.
  const double memory = host_memory_bytes();
  return memory <= 0 || bytes <= 0.8 * memory;
}

std::string memory_shortfall(double bytes) {
  char text[160];
  std::snprintf(text, sizeof text,
                "%.1f GB of memory, more than this machine can give it (%.1f GB, 80%% of %.1f GB)",
                bytes * 1e-9, 0.8 * host_memory_bytes() * 1e-9, host_memory_bytes() * 1e-9);
  return text;
}

}  // namespace fk
