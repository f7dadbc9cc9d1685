#include "core/memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace fk {
namespace {
// A cgroup's memory limit (v2 memory.max, v1 memory.limit_in_bytes) in bytes; 0 when there is
// none or it cannot be read. Containers see the host's physical memory through sysconf.
double cgroup_limit_bytes() {
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") continue;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && *end == '\0' && v > 0 && v < 1e18)
      return v;  // v1: "no limit" is ~2^63
  }
  return 0;
}
}  // namespace

double host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  double memory = pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
  const double limit = cgroup_limit_bytes();
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
