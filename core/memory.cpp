#include "core/memory.hpp"

#include <unistd.h>

#include <cstdio>

namespace fk {

double host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

bool fits_in_memory(double bytes) {
  const double memory = host_memory_bytes();
  return memory <= 0 || bytes <= memory;
}

std::string memory_shortfall(double bytes) {
  char text[128];
  std::snprintf(text, sizeof text, "%.1f GB, more than this machine has (%.1f GB)", bytes * 1e-9,
                host_memory_bytes() * 1e-9);
  return text;
}

}  // namespace fk
