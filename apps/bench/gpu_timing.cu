// CUDA events, L2 flush and device ceilings for fk-bench. Every CUDA call is checked.
#include <algorithm>
#include <sstream>
#include <vector>

#include "apps/bench/gpu_timing.hpp"
#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/timer.hpp"

namespace fk::bench {
namespace {

// Move-free RAII pair of events (destroyed without throwing).
class EventPair {
 public:
  EventPair() {
    FK_CUDA_CHECK(cudaEventCreate(&start_));
    const cudaError_t err = cudaEventCreate(&stop_);
    if (err != cudaSuccess) {
      cudaEventDestroy(start_);
      FK_CUDA_CHECK(err);
    }
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  void record_start(cudaStream_t s) { FK_CUDA_CHECK(cudaEventRecord(start_, s)); }
  // Records the stop event, waits for it, returns the milliseconds between the two events.
  double stop_ms(cudaStream_t s) {
    FK_CUDA_CHECK(cudaEventRecord(stop_, s));
    FK_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    FK_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// Raw device bytes (RAII; freed without throwing).
class DeviceBytes {
 public:
  explicit DeviceBytes(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) FK_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
  }
  ~DeviceBytes() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  void* get() const { return ptr_; }
  std::size_t size() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

int attribute(cudaDeviceAttr what, int device) {
  int value = 0;
  FK_CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
  return value;
}

// fp32 lanes per SM: 64 on sm_60, sm_70/72/75 and sm_80 (A100); 128 on sm_61 and sm_86 and later
// (Ampere consumer, Ada, Hopper, Blackwell). Hopper (H100/H200) has 128.
int fp32_lanes_per_sm(int major, int minor) {
  if ((major == 6 && minor == 0) || major == 7 || (major == 8 && minor == 0)) return 64;
  return 128;
}

class GpuTimer : public RunTimer {
 public:
  GpuTimer(const Context& ctx, bool flush)
      : gpu_(ctx.gpu()), stream_(stream_of(ctx)), flush_(flush) {}
  // The context's L2 flush (core/cuda/gpu_resources.cuh): a write of 2x L2 on the timed stream.
  void flush() override {
    if (flush_) gpu_.flush_l2();
  }
  void start() override { events_.record_start(stream_); }
  double stop_ms() override { return events_.stop_ms(stream_); }
  std::int64_t flush_bytes() const override { return flush_ ? gpu_.flush_l2_bytes() : 0; }

 private:
  GpuResources& gpu_;
  cudaStream_t stream_;
  bool flush_;
  EventPair events_;
};

}  // namespace

namespace {
__global__ void pair_weights_kernel(const float* __restrict__ n, float* __restrict__ p,
                                    std::int64_t count, float eps, bool residual) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < count;
       j += std::int64_t(gridDim.x) * blockDim.x)
    p[j] = residual ? n[j] - p[j] : n[j] / (p[j] + eps);
}
}  // namespace

void pair_weights_on_gpu(const Context& ctx, const float* n, float* p, std::int64_t count, float eps,
                         bool residual) {
  if (count == 0) return;
  const std::int64_t blocks = std::min<std::int64_t>((count + 255) / 256, std::int64_t(1) << 20);
  pair_weights_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream_of(ctx)>>>(n, p, count, eps,
                                                                                 residual);
  FK_CUDA_CHECK_LAUNCH();
}

std::unique_ptr<RunTimer> make_gpu_timer(const Context& ctx, bool flush) {
  return std::make_unique<GpuTimer>(ctx, flush);
}

Ceilings measure_gpu_ceilings(const Context& ctx) {
  const int device = ctx.gpu().device;
  const cudaStream_t stream = stream_of(ctx);
  Ceilings c;

  std::size_t free_bytes = 0, total_bytes = 0;
  FK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t bytes = std::min<std::size_t>(std::size_t(1) << 30, free_bytes / 4);
  bytes -= bytes % 4096;
  FK_CHECK(bytes >= (std::size_t(16) << 20), "too little free GPU memory to measure bandwidth (" << free_bytes << " bytes free)");
  DeviceBytes src(bytes), dst(bytes);
  FK_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, stream));
  FK_CUDA_CHECK(cudaMemsetAsync(dst.get(), 2, bytes, stream));
  EventPair events;
  const int kWarmup = 3, kRuns = 10;
  std::vector<double> ms;
  for (int r = 0; r < kWarmup + kRuns; ++r) {
    events.record_start(stream);
    FK_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    const double t = events.stop_ms(stream);
    if (r >= kWarmup) ms.push_back(t);
  }
  const double t = median(ms);
  c.bandwidth_gbs = t > 0 ? 2.0 * double(bytes) / (t * 1e-3) / 1e9 : 0.0;
  std::ostringstream bw;
  bw << "measured: device-to-device cudaMemcpy of " << (bytes >> 20) << " MiB, read + write bytes, median of "
     << kRuns;
  c.bandwidth_how = bw.str();

  const int sms = attribute(cudaDevAttrMultiProcessorCount, device);
  const int clock_khz = attribute(cudaDevAttrClockRate, device);
  const int major = attribute(cudaDevAttrComputeCapabilityMajor, device);
  const int minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
  const int lanes = fp32_lanes_per_sm(major, minor);
  c.peak_gflops = double(sms) * (clock_khz * 1e-6) * lanes * 2.0;
  std::ostringstream peak;
  peak.precision(4);
  peak << "computed: " << sms << " SMs x " << clock_khz * 1e-6 << " GHz x " << lanes << " fp32 lanes (sm_" << major
       << minor << ") x 2";
  c.peak_how = peak.str();
  return c;
}

}  // namespace fk::bench
