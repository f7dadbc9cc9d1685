#pragma once
// The seam between host code and the CUDA part of core. In CUDA builds these are implemented in
// core/cuda/*.cu; in CPU-only builds core/cpu_only_hooks.cpp implements them by throwing a clear
// "not compiled with CUDA" error (or reporting zero devices), so every binary still links.
#include <cstddef>
#include <cstdint>
#include <string>

namespace fk {
struct GpuResources;
namespace hooks {

GpuResources* create_gpu_resources(int gpu_id);
void destroy_gpu_resources(GpuResources* res) noexcept;
std::string gpu_name(const GpuResources& res);
void synchronize(const GpuResources& res);
std::string cuda_absence_reason();  // why cuda_device_count() is 0, for messages
float* gpu_run_scratch(GpuResources& res, int slot, std::int64_t floats);  // Context::run_scratch

// Device memory. Copies are synchronous with respect to the host. `bytes` of device_free is what
// the pointer was allocated with: the two keep memory_peaks()'s count (core/memory.hpp).
void* device_allocate(std::size_t bytes);
void device_free(void* ptr, std::size_t bytes) noexcept;
void copy_host_to_device(void* dst, const void* src, std::size_t bytes);
void copy_device_to_host(void* dst, const void* src, std::size_t bytes);
void device_fill_bytes(void* dst, int byte, std::size_t bytes);

}  // namespace hooks
}  // namespace fk
