#pragma once
// What a GPU Context owns: the device id and properties, one stream, and library handles created
// on first use (most runs need only some of them). CUDA-only header.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <cstdint>
#include <map>
#include <string>

#include "core/context.hpp"
#include "core/device_buffer.hpp"

namespace fk {

struct GpuResources {
  explicit GpuResources(int gpu_id);
  ~GpuResources();
  GpuResources(const GpuResources&) = delete;
  GpuResources& operator=(const GpuResources&) = delete;

  int device = 0;
  cudaDeviceProp props{};
  cudaStream_t stream = nullptr;

  cusparseHandle_t cusparse();  // created on first call, bound to `stream`
  cublasHandle_t cublas();
  cusolverDnHandle_t cusolver();

  // Queues a write of twice the L2 size on `stream`, which evicts every line earlier work left in
  // L2: for timings taken as a cold run sees them (fk-bench; cuSPARSE plans choosing their
  // algorithm). The buffer is allocated on the first call and kept until the context goes, so
  // repeated flushes (a plan per minibatch) pay no allocation.
  void flush_l2();
  std::int64_t flush_l2_bytes() const;
  // Algorithm picks that plans share when the context allows it (Context::share_plan_choices),
  // keyed by the plan's own description of a shape class.
  std::map<std::string, int> plan_choices;
  // Context::run_scratch on a GPU context: a device buffer per slot (Context::RunScratchSlot),
  // kept until a larger request replaces it once `stream`'s queued work is done.
  float* run_scratch(int slot, std::int64_t floats);

 private:
  void* flush_buffer_ = nullptr;
  DeviceBuffer<float> run_scratch_[Context::kRunScratchSlots];
  unsigned flush_generation_ = 0;
  cusparseHandle_t cusparse_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cusolverDnHandle_t cusolver_ = nullptr;
};

// Shorthand used by kernels: the stream of a GPU context.
inline cudaStream_t stream_of(const Context& ctx) { return ctx.gpu().stream; }

}  // namespace fk
