#include <algorithm>
#include <cstdint>

#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/gpu_hooks.hpp"
#include "core/memory.hpp"

namespace fk {

bool cuda_compiled() { return true; }

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device / no driver" error
    return 0;
  }
  return n;
}

GpuResources::GpuResources(int gpu_id) : device(gpu_id) {
  FK_CUDA_CHECK(cudaSetDevice(gpu_id));
  FK_CUDA_CHECK(cudaGetDeviceProperties(&props, gpu_id));
  // A blocking stream: plain cudaMemcpy on the legacy default stream orders after our kernels.
  FK_CUDA_CHECK(cudaStreamCreate(&stream));
}

GpuResources::~GpuResources() {
  if (cusparse_) cusparseDestroy(cusparse_);
  if (cublas_) cublasDestroy(cublas_);
  if (cusolver_) cusolverDnDestroy(cusolver_);
  if (stream) cudaStreamDestroy(stream);
  if (flush_buffer_) cudaFree(flush_buffer_);
}

std::int64_t GpuResources::flush_l2_bytes() const {
  return 2 * std::int64_t(std::max(props.l2CacheSize, 1 << 20));
}

void GpuResources::flush_l2() {
  if (!flush_buffer_)
    FK_CUDA_CHECK(cudaMalloc(&flush_buffer_, static_cast<std::size_t>(flush_l2_bytes())));
  // A new byte value each time keeps it a real write.
  const int byte = static_cast<int>(++flush_generation_ & 0x7f) + 1;
  FK_CUDA_CHECK(
      cudaMemsetAsync(flush_buffer_, byte, static_cast<std::size_t>(flush_l2_bytes()), stream));
}

float* GpuResources::run_scratch(int slot, std::int64_t floats) {
  DeviceBuffer<float>& buffer = run_scratch_[slot];
  if (buffer.size() < floats) {
    FK_CUDA_CHECK(cudaStreamSynchronize(stream));  // runs queued earlier may use the old buffer
    buffer = DeviceBuffer<float>();                 // freed first: not both held at once
    buffer = DeviceBuffer<float>(floats);
  }
  return buffer.data();
}

cusparseHandle_t GpuResources::cusparse() {
  if (!cusparse_) {
    FK_CUSPARSE_CHECK(cusparseCreate(&cusparse_));
    FK_CUSPARSE_CHECK(cusparseSetStream(cusparse_, stream));
  }
  return cusparse_;
}

cublasHandle_t GpuResources::cublas() {
  if (!cublas_) {
    FK_CUBLAS_CHECK(cublasCreate(&cublas_));
    FK_CUBLAS_CHECK(cublasSetStream(cublas_, stream));
  }
  return cublas_;
}

cusolverDnHandle_t GpuResources::cusolver() {
  if (!cusolver_) {
    FK_CUSOLVER_CHECK(cusolverDnCreate(&cusolver_));
    FK_CUSOLVER_CHECK(cusolverDnSetStream(cusolver_, stream));
  }
  return cusolver_;
}

namespace hooks {

GpuResources* create_gpu_resources(int gpu_id) { return new GpuResources(gpu_id); }
void destroy_gpu_resources(GpuResources* res) noexcept { delete res; }
std::string gpu_name(const GpuResources& res) { return res.props.name; }
void synchronize(const GpuResources& res) { FK_CUDA_CHECK(cudaStreamSynchronize(res.stream)); }

float* gpu_run_scratch(GpuResources& res, int slot, std::int64_t floats) { return res.run_scratch(slot, floats); }

std::string cuda_absence_reason() {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  cudaGetLastError();
  if (err != cudaSuccess) return cudaGetErrorString(err);
  return n == 0 ? "no CUDA device present" : "device present";
}

void* device_allocate(std::size_t bytes) {
  void* p = nullptr;
  FK_CUDA_CHECK(cudaMalloc(&p, bytes));
  count_device_bytes(static_cast<std::int64_t>(bytes));
  return p;
}
void device_free(void* ptr, std::size_t bytes) noexcept {
  if (!ptr) return;
  cudaFree(ptr);
  count_device_bytes(-static_cast<std::int64_t>(bytes));
}
void copy_host_to_device(void* dst, const void* src, std::size_t bytes) {
  FK_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_device_to_host(void* dst, const void* src, std::size_t bytes) {
  FK_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
void device_fill_bytes(void* dst, int byte, std::size_t bytes) {
  FK_CUDA_CHECK(cudaMemset(dst, byte, bytes));
}

}  // namespace hooks
}  // namespace fk
