#include "core/context.hpp"

#include <omp.h>

#include <utility>

#if defined(__x86_64__) || defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "core/error.hpp"
#include "core/gpu_hooks.hpp"
#include "core/log.hpp"

namespace fk {

DeviceRequest parse_device_request(const std::string& text) {
  if (text == "auto") return DeviceRequest::kAuto;
  if (text == "gpu") return DeviceRequest::kGpu;
  if (text == "cpu") return DeviceRequest::kCpu;
  throw Error("--device: expected auto, gpu or cpu, got '" + text + "'");
}

const char* to_string(DeviceKind kind) { return kind == DeviceKind::kGpu ? "gpu" : "cpu"; }

void check_device_request(DeviceRequest request, int gpu_id) {
  if (request != DeviceRequest::kGpu) return;
  if (!cuda_compiled())
    throw Error("--device gpu: this factorkit build has no CUDA support (nvcc was not found at configure time)");
  const int n = cuda_device_count();
  if (n == 0) throw Error("--device gpu: no usable CUDA device found (" + hooks::cuda_absence_reason() + ")");
  if (gpu_id < 0 || gpu_id >= n)
    throw Error("GPU id " + std::to_string(gpu_id) + " out of range: " + std::to_string(n) + " device(s)");
}

Context Context::create(DeviceRequest request, int threads, int gpu_id) {
  if (request == DeviceRequest::kCpu) return Context(DeviceKind::kCpu, threads);
  if (request == DeviceRequest::kGpu) {
    check_device_request(request, gpu_id);
    return Context(DeviceKind::kGpu, threads, gpu_id);
  }
  if (cuda_device_count() > gpu_id) {
    // Present is not usable: a GPU in exclusive-process mode taken by another process, or one
    // out of memory, fails here; auto then runs on the CPU as it does without a GPU.
    try {
      return Context(DeviceKind::kGpu, threads, gpu_id);
    } catch (const Error& e) {
      log_warn() << "GPU " << gpu_id << " cannot be used (" << e.what() << "); running on the CPU";
      return Context(DeviceKind::kCpu, threads);
    }
  }
  log_info() << "no usable CUDA device (" << (cuda_compiled() ? hooks::cuda_absence_reason() : "CPU-only build")
             << "); running on the CPU";
  return Context(DeviceKind::kCpu, threads);
}

void flush_subnormals_on_cpu_threads() {
#if defined(__x86_64__) || defined(__SSE2__)
  // MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6).
  const auto set = [] { _mm_setcsr(_mm_getcsr() | 0x8040u); };
  set();
#pragma omp parallel
  set();
#endif
}

Context Context::cpu_keeping_threads() { return Context(DeviceKind::kCpu, omp_get_max_threads()); }

Context::Context(DeviceKind kind, int threads, int gpu_id) : kind_(kind), gpu_id_(gpu_id) {
  // OpenMP's thread count is the process's: read its default once, before any context sets it,
  // so that a context asking for the default gets it back after one that asked for a count.
  static const int openmp_default = omp_get_max_threads();
  threads_ = threads > 0 ? threads : openmp_default;
  omp_set_num_threads(threads_);
  flush_subnormals_on_cpu_threads();
  if (kind == DeviceKind::kGpu) gpu_ = hooks::create_gpu_resources(gpu_id);
}

Context::~Context() {
  if (gpu_) hooks::destroy_gpu_resources(gpu_);
}

Context::Context(Context&& other) noexcept
    : kind_(other.kind_),
      threads_(other.threads_),
      gpu_id_(other.gpu_id_),
      share_plan_choices_(other.share_plan_choices_),
      repeatable_only_(other.repeatable_only_),
      transposed_slice_bytes_(other.transposed_slice_bytes_),
      gpu_(std::exchange(other.gpu_, nullptr)) {
  for (int i = 0; i < kRunScratchSlots; ++i) host_run_scratch_[i] = std::move(other.host_run_scratch_[i]);
}

Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    if (gpu_) hooks::destroy_gpu_resources(gpu_);
    kind_ = other.kind_;
    threads_ = other.threads_;
    gpu_id_ = other.gpu_id_;
    share_plan_choices_ = other.share_plan_choices_;
    repeatable_only_ = other.repeatable_only_;
    transposed_slice_bytes_ = other.transposed_slice_bytes_;
    gpu_ = std::exchange(other.gpu_, nullptr);
    for (int i = 0; i < kRunScratchSlots; ++i) host_run_scratch_[i] = std::move(other.host_run_scratch_[i]);
  }
  return *this;
}

float* Context::run_scratch(RunScratchSlot slot, std::int64_t floats) const {
  FK_CHECK(slot >= 0 && slot < kRunScratchSlots, "run scratch slot " << int(slot));
  if (gpu_) return hooks::gpu_run_scratch(*gpu_, slot, floats);
  std::vector<float>& buffer = host_run_scratch_[slot];
  if (std::int64_t(buffer.size()) < floats) {
    buffer = std::vector<float>();  // freed first: not both held at once
    buffer.resize(static_cast<std::size_t>(floats));
  }
  return buffer.data();
}

std::string Context::describe() const {
  if (kind_ == DeviceKind::kGpu)
    return "GPU " + std::to_string(gpu_id_) + " (" + hooks::gpu_name(*gpu_) + ")";
  return "CPU (" + std::to_string(threads_) + (threads_ == 1 ? " thread)" : " threads)");
}

GpuResources& Context::gpu() const {
  if (!gpu_) throw Error("a GPU operation was requested on a CPU context");
  return *gpu_;
}

void Context::synchronize() const {
  if (gpu_) hooks::synchronize(*gpu_);
}

}  // namespace fk
