#pragma once
// The benchmark's clock and ceilings, host-only. CPU implementations in timing.cpp; the GPU ones
// (CUDA events, L2 flush, device bandwidth) in gpu_timing.cu behind gpu_timing.hpp.
#include <cstdint>
#include <memory>
#include <string>

namespace fk::bench {

// What the floor times are computed from.
struct Ceilings {
  double bandwidth_gbs = 0;  // measured memory bandwidth, 1e9 bytes per second
  double peak_gflops = 0;    // computed fp32 peak; 0 = unknown (floors then use bytes only)
  std::string bandwidth_how;  // one line each for the report header
  std::string peak_how;
};

// Floor time in ms for `bytes` compulsory bytes and `flops` operations, and which term wins.
struct Floor {
  double ms = 0;
  const char* bound = "memory";  // "memory" or "compute"
};
Floor floor_time(const Ceilings& c, double bytes, double flops);

// Times one region at a time on one device.
class RunTimer {
 public:
  virtual ~RunTimer() = default;
  // Evicts the caches (writes a buffer larger than them); queued before start(), never timed.
  virtual void flush() = 0;
  virtual void start() = 0;
  // Waits for the work queued since start(); returns the elapsed milliseconds.
  virtual double stop_ms() = 0;
  // Bytes written by flush() (0 when flushing is off).
  virtual std::int64_t flush_bytes() const = 0;
};

// Size of the CPU's last-level cache: the L3 instances sysfs lists for the CPUs (summed), else
// sysconf's, else 32 MiB when the system does not say.
std::int64_t cpu_last_level_cache_bytes();
// Steady-clock timer; flush() writes `flush_bytes` bytes with all OpenMP threads (0: no flush).
std::unique_ptr<RunTimer> make_cpu_timer(std::int64_t flush_bytes);
// STREAM-like triad with all OpenMP threads for the bandwidth; peak = threads x clock x 32 flop/cycle
// (assumed: AVX2, 2 FMA units x 8 fp32 lanes x 2), or 0 when no clock can be read.
Ceilings measure_cpu_ceilings(int threads);

}  // namespace fk::bench
