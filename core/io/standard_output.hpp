#pragma once
// The end of a command whose output goes to stdout (recommend's CSV, fk-bench's tables): what it
// wrote must have arrived. On a full disk or a closed stream the command fails, as coreutils'
// do, instead of ending 0 with its output cut short.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "core/error.hpp"

namespace fk::io {

// Flushes std::cout and stdout; throws fk::Error when anything written to them was lost.
inline void flush_standard_output() {
  // A stream that failed earlier left its errno (most likely still the write's); otherwise only
  // this flush's counts.
  if (std::cout) errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
    throw Error(std::string("cannot write the standard output") +
                (errno ? std::string(" (") + std::strerror(errno) + ")" : std::string()));
}

}  // namespace fk::io
