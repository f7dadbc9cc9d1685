#pragma once
// Context: where work runs. The first argument of every kernel-level call. It chooses the device,
// sets the OpenMP thread count, and (on the GPU) owns the CUDA stream and lazily created library
// handles. This header is host-only: CUDA types live in core/cuda/gpu_resources.cuh.
#include <cstdint>
#include <string>
#include <vector>

namespace fk {

enum class DeviceKind { kCpu, kGpu };
// What the user asked for on the command line (--device auto|gpu|cpu).
enum class DeviceRequest { kAuto, kGpu, kCpu };

DeviceRequest parse_device_request(const std::string& text);  // throws fk::Error naming the value
const char* to_string(DeviceKind kind);

bool cuda_compiled();     // true when this build contains the CUDA code
int cuda_device_count();  // usable CUDA devices; 0 in a CPU-only build or without a driver/device
// Throws the fk::Error Context::create would for `request` (a GPU that is not there), without
// creating anything: the apps call it while reading their options, before loading data.
void check_device_request(DeviceRequest request, int gpu_id = 0);

// CPU arithmetic on this thread and OpenMP's takes subnormal floats (below about 1.2e-38) as zero,
// inputs and results: x86's flush-to-zero and denormals-are-zero modes (no effect elsewhere). A
// CPU core takes one to two orders of magnitude longer over an operation on them, and the
// factor models make them as they train: fk-lda's expectations of unsupported words times small
// topic weights, which on kos slowed its CPU iterations to an eighth of their first speed by the
// fourth (docs/benchmarks/lda.md). Every Context sets it when it is made, for the process (the
// modes are per thread, and OpenMP's threads made later copy the making thread's). The GPU
// kernels keep subnormals, at full speed there; the two sides' results differ only in that band.
void flush_subnormals_on_cpu_threads();

struct GpuResources;  // stream + cuSPARSE/cuBLAS/cuSOLVER handles; see core/cuda/gpu_resources.cuh

class Context {
 public:
  // Resolves a request: kAuto picks GPU 0 when usable, else the CPU (and logs one notice);
  // kGpu without a usable device throws fk::Error saying why. threads <= 0 takes OpenMP's default
  // (OMP_NUM_THREADS, else the cores). OpenMP's thread count is process-wide: the context made
  // last sets it for every CPU kernel of the process.
  static Context create(DeviceRequest request, int threads = 0, int gpu_id = 0);
  // A CPU context that keeps the process's current OpenMP thread count (its threads()): for work
  // done within another context's, such as fk-bench's correctness oracle. A default Context
  // would reset the count to OpenMP's default, and the other context's kernels would run with it.
  static Context cpu_keeping_threads();
  // The most CPU threads an app accepts: far above any machine's cores, and below the counts at
  // which OpenMP's runtime fails to create its threads (40,000 on the development machine) or
  // crashes (100,000).
  static constexpr int kMaxThreads = 1024;
  explicit Context(DeviceKind kind, int threads = 0, int gpu_id = 0);
  ~Context();
  Context(Context&& other) noexcept;
  Context& operator=(Context&& other) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  DeviceKind device() const { return kind_; }
  bool is_gpu() const { return kind_ == DeviceKind::kGpu; }
  int threads() const { return threads_; }
  int gpu_id() const { return gpu_id_; }
  std::string describe() const;  // e.g. "GPU 0 (NVIDIA H200)", "CPU (2 threads)", "CPU (1 thread)"
  GpuResources& gpu() const;     // throws fk::Error on a CPU context
  void synchronize() const;      // waits for the stream on the GPU; no-op on the CPU

  // Plans that pick an algorithm by timing candidates in prepare (cuda.spmm.cusparse) may reuse
  // the pick an earlier plan of this context made for the same shape class instead of timing
  // again. For callers that build many plans on alike matrices (the apps' minibatches of one data
  // set); off by default, so that fk-bench and the tests time every plan.
  void set_share_plan_choices(bool on) { share_plan_choices_ = on; }
  bool share_plan_choices() const { return share_plan_choices_; }

  // `auto` SpMM plans use only variants that give the same bits run after run
  // (VariantInfo::repeatable): where the rules pick one that does not, the fastest repeatable one,
  // timed when the plan is made, runs instead (kernels/registry.cpp). Off by default. The apps'
  // --repeatable.
  void set_repeatable_only(bool on) { repeatable_only_ = on; }
  bool repeatable_only() const { return repeatable_only_; }

  // Sᵀ·B plans on the GPU of cuda.spmm.nnz_vsr and of the ratio SpMM cut S into row slices
  // whose rows of B fit in this many bytes when B is larger, so that each slice's gathers of B
  // stay in L2 (kernels/registry.cpp). 0 (the default): a third of the L2, and only where B
  // outgrows the L2 and Sᵀ's rows are long enough to pay for adding the slices' results. A
  // positive value forces slicing above it, for any variant (for tests).
  void set_transposed_slice_bytes(std::int64_t bytes) { transposed_slice_bytes_ = bytes; }
  std::int64_t transposed_slice_bytes() const { return transposed_slice_bytes_; }

  // At least `floats` floats of the context's memory (host memory on a CPU context, device memory
  // on a GPU one) for what a plan needs only while one of its runs goes on: the values a cached
  // transpose gathers into its order, which its inner plan then reads, and the partial sums of
  // long rows that a kernel adds before its run ends. A context's plans run one after another (on
  // the GPU on its one stream), so one buffer per slot, the size of the largest request, serves
  // them all, where each plan held its own (fk-lda on nytimes: one plan per minibatch, 4 bytes a
  // nonzero of the corpus each for its gather; fk-gap: 14 row slices x 69 MiB of long-row sums).
  // Valid until the next call for the same slot; on the GPU a larger request waits for the
  // stream's queued work before it replaces the buffer.
  enum RunScratchSlot : int {
    kGatheredValues = 0,
    kSecondGatheredValues = 1,  // for a run that gathers two arrays at once
    kKernelScratch = 2,         // a kernel's own (long rows' partial sums), taken in the same run
    kRunScratchSlots = 3
  };
  float* run_scratch(RunScratchSlot slot, std::int64_t floats) const;

 private:
  DeviceKind kind_ = DeviceKind::kCpu;
  int threads_ = 1;
  int gpu_id_ = 0;
  bool share_plan_choices_ = false;
  bool repeatable_only_ = false;
  std::int64_t transposed_slice_bytes_ = 0;
  GpuResources* gpu_ = nullptr;  // owned; created only for GPU contexts
  mutable std::vector<float> host_run_scratch_[kRunScratchSlots];  // CPU contexts
};

}  // namespace fk
