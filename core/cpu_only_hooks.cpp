// Compiled only in builds without CUDA: every GPU entry point reports that clearly instead of
// failing to link.
#include "core/context.hpp"
#include "core/error.hpp"
#include "core/gpu_hooks.hpp"

namespace fk {

bool cuda_compiled() { return false; }
int cuda_device_count() { return 0; }

namespace hooks {
namespace {
[[noreturn]] void not_compiled() {
  throw Error("this factorkit build has no CUDA support (nvcc was not found at configure time)");
}
}  // namespace

GpuResources* create_gpu_resources(int) { not_compiled(); }
void destroy_gpu_resources(GpuResources*) noexcept {}
std::string gpu_name(const GpuResources&) { not_compiled(); }
void synchronize(const GpuResources&) { not_compiled(); }
std::string cuda_absence_reason() { return "CPU-only build"; }
float* gpu_run_scratch(GpuResources&, int, std::int64_t) { not_compiled(); }
void* device_allocate(std::size_t) { not_compiled(); }
void device_free(void*, std::size_t) noexcept {}
void copy_host_to_device(void*, const void*, std::size_t) { not_compiled(); }
void copy_device_to_host(void*, const void*, std::size_t) { not_compiled(); }
void device_fill_bytes(void*, int, std::size_t) { not_compiled(); }
}  // namespace hooks
}  // namespace fk
