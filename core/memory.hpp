#pragma once
// This machine's memory, for checks made before a large allocation whose size comes from the
// input (a file's header, a generator's spec, an option): past the machine's memory an allocation
// ends in a bare "out of memory" after a long wait or, through overcommit, in the OOM killer.
#include <string>

namespace fk {

// Physical memory in bytes, or where lower the memory limit of the process's cgroup or of one
// above it (a container, a systemd scope) or its address-space or data limit (ulimit -v, -d); 0
// when unknown.
double host_memory_bytes();

// True when `bytes` fit in 80% of that (or it is unknown): the rest is left to the system and to
// the arrays the estimates leave out.
bool fits_in_memory(double bytes);

// "12.3 GB of memory, more than this machine can give it (6.4 GB, 80% of 8.0 GB)": the end of
// the message of a failed check.
std::string memory_shortfall(double bytes);

}  // namespace fk
