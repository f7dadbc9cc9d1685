#include "apps/bench/timing.hpp"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/timer.hpp"

namespace fk::bench {

Floor floor_time(const Ceilings& c, double bytes, double flops) {
  Floor f;
  const double memory_ms = c.bandwidth_gbs > 0 ? bytes / (c.bandwidth_gbs * 1e9) * 1e3 : 0.0;
  const double compute_ms = c.peak_gflops > 0 ? flops / (c.peak_gflops * 1e9) * 1e3 : 0.0;
  f.ms = std::max(memory_ms, compute_ms);
  f.bound = compute_ms > memory_ms ? "compute" : "memory";
  return f;
}

namespace {
// The CPUs this process may run on (its affinity: taskset, a container's cpuset), or none when
// the system does not say.
std::vector<int> usable_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

// The L3 caches of the CPUs this process may use (/sys/devices/system/cpu/cpuN/cache/index3,
// level 3): each instance once (its shared_cpu_list), sizes summed; 0 when unreadable. A VM's
// sysconf can report its host's whole L3 (384 MiB where the guest's CPUs share 32 MiB), and
// sysfs lists every L3 of the host, which made the flush many times too large.
std::int64_t sysfs_l3_bytes() {
  std::set<std::string> seen;
  std::int64_t total = 0;
  for (const int cpu : usable_cpus()) {
    const std::string dir =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index3/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size"),
        shared_file(dir + "shared_cpu_list");
    int level = 0;
    std::string shared;
    std::int64_t kib = 0;
    char unit = 0;
    if (!(level_file >> level) || level != 3 || !(shared_file >> shared) ||
        !(size_file >> kib >> unit) || unit != 'K')
      continue;
    if (seen.insert(shared).second) total += kib << 10;
  }
  return total;
}
}  // namespace

std::int64_t cpu_last_level_cache_bytes() {
  if (const std::int64_t l3 = sysfs_l3_bytes(); l3 > 0) return l3;
  long bytes = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  if (bytes <= 0) bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  return bytes > 0 ? bytes : std::int64_t(32) << 20;
}

namespace {

class CpuTimer : public RunTimer {
 public:
  explicit CpuTimer(std::int64_t flush_bytes) : buffer_(static_cast<std::size_t>(std::max<std::int64_t>(flush_bytes, 0))) {}

  void flush() override {
    if (buffer_.empty()) return;
    // A different byte each time so no level of the hierarchy can treat the write as a no-op.
    const int byte = static_cast<int>(++generation_ & 0x7f) + 1;
    const std::int64_t n = static_cast<std::int64_t>(buffer_.size());
    const std::int64_t chunk = std::int64_t(1) << 20;
#pragma omp parallel for schedule(static)
    for (std::int64_t at = 0; at < n; at += chunk)
      std::memset(buffer_.data() + at, byte, static_cast<std::size_t>(std::min(chunk, n - at)));
  }
  void start() override { clock_.restart(); }
  double stop_ms() override { return clock_.milliseconds(); }
  std::int64_t flush_bytes() const override { return static_cast<std::int64_t>(buffer_.size()); }

 private:
  std::vector<char> buffer_;
  unsigned generation_ = 0;
  Stopwatch clock_;
};

// The nominal clock in GHz: cpufreq's maximum when the kernel exposes it, else /proc/cpuinfo's
// "cpu MHz" (the current clock; on virtual machines usually the nominal one). 0 when neither.
double cpu_clock_ghz() {
  std::ifstream max_freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (max_freq >> khz && khz > 0) return khz / 1e6;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    try {
      return std::stod(line.substr(colon + 1)) / 1e3;
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

}  // namespace

std::unique_ptr<RunTimer> make_cpu_timer(std::int64_t flush_bytes) { return std::make_unique<CpuTimer>(flush_bytes); }

Ceilings measure_cpu_ceilings(int threads) {
  Ceilings c;
  // Triad a = b + s*c over three arrays of 4x the last-level cache, at most 64 MiB each: the
  // measurement runs in every invocation and must stay quick on small shared CI machines. Where
  // the LLC exceeds 16 MiB part of the traffic may then hit the cache, which can only raise the
  // measured bandwidth, so the floor stays a lower bound.
  const std::int64_t bytes_per_array =
      std::clamp<std::int64_t>(4 * cpu_last_level_cache_bytes(), std::int64_t(16) << 20, std::int64_t(64) << 20);
  const std::int64_t n = bytes_per_array / static_cast<std::int64_t>(sizeof(float));
  std::vector<float> a(static_cast<std::size_t>(n)), b(a.size()), d(a.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {  // first touch by the thread that uses the page later
    a[i] = 0.0f;
    b[i] = 1.0f;
    d[i] = 2.0f;
  }
  const float scalar = 3.0f;
  const int kRuns = 5;
  std::vector<double> seconds;
  for (int r = 0; r < kRuns + 1; ++r) {
    Stopwatch clock;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + scalar * d[i];
    if (r > 0) seconds.push_back(clock.seconds());  // the first pass is a warm-up
  }
  volatile float sink = a[static_cast<std::size_t>(n / 2)];  // keep the loop observable
  (void)sink;
  const double t = median(seconds);
  c.bandwidth_gbs = t > 0 ? 3.0 * double(bytes_per_array) / t / 1e9 : 0.0;
  std::ostringstream bw;
  bw << "measured: STREAM-like triad over 3 x " << (bytes_per_array >> 20) << " MiB, " << threads
     << " threads, median of " << kRuns;
  c.bandwidth_how = bw.str();

  const double ghz = cpu_clock_ghz();
  std::ostringstream peak;
  if (ghz > 0) {
    // Threads beyond the CPUs it may use add no arithmetic: an oversubscribed --threads 8 on 2
    // CPUs must not raise the peak (and lower the compute floor) fourfold. (With SMT the logical
    // CPUs count, an upper bound.)
    const int usable = static_cast<int>(usable_cpus().size());  // its affinity, not the host's
    const int used = usable > 0 ? std::min(threads, usable) : threads;
    c.peak_gflops = used * ghz * 32.0;
    peak.precision(3);
    peak << "computed: " << used << (used == 1 ? " thread x " : " threads x ") << ghz
         << " GHz x 32 flop/cycle (assumed: AVX2, 2 FMA units x 8 fp32 lanes x 2)";
  } else {
    peak << "unknown (no CPU clock readable): floors use bandwidth only";
  }
  c.peak_how = peak.str();
  return c;
}

}  // namespace fk::bench
