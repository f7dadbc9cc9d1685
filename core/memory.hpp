#pragma once
// This machine's memory, for checks made before a large allocation whose size comes from the
// input (a file's header, a generator's spec, an option): past the machine's memory an allocation
// ends in a bare "out of memory" after a long wait or, through overcommit, in the OOM killer.
#include <cstdint>
#include <optional>
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

// The most memory this process has held since it began or since the last reset_memory_peaks()
// (apps/common/run.cpp resets before each training run, so that --compare's CPU run does not
// report its GPU run's), for summary.json and a run's last log line.
struct MemoryPeaks {
  // Resident set (Linux's VmHWM): none where it cannot be read, or where the reset failed, since
  // the figure would then include what ran before.
  std::optional<std::int64_t> host_bytes;
  // Device memory held at once through hooks::device_allocate (every DeviceBuffer: the apps'
  // arrays, the plans' data and workspaces, cuSPARSE's buffers); the CUDA context and the
  // libraries' handles are not in it. 0 when nothing was allocated.
  std::int64_t device_bytes = 0;
};
MemoryPeaks memory_peaks();
void reset_memory_peaks();
// Device memory held through hooks::device_allocate now.
std::int64_t device_bytes_in_use() noexcept;

// Bytes in MiB (2^20 bytes), the unit the runs report memory in.
inline double mebibytes(std::int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

// The device allocation hooks report each allocation (+bytes) and release (-bytes) here.
void count_device_bytes(std::int64_t delta) noexcept;

}  // namespace fk
