#pragma once
// What every kernel variant has (CUTLASS/Ginkgo style): a stable descriptive name, a one-line
// summary, the backend it runs on, and an applicability check that says why it does not apply.
// Variants are objects registered explicitly by one function per backend (kernels/registry.hpp).
//
// A variant prepares a plan for one pattern and K (SpmmPlan, SddmmPlan, RatioSpmmPlan). A plan
// keeps scratch that every run reuses (carry rows, workspaces, padded copies), so its run methods
// are not const and one plan must not run from two threads at once: give each thread its own.
#include <string>

#include "core/context.hpp"
#include "core/csr.hpp"
#include "core/half.hpp"

namespace fk {

enum class Backend { kReference, kOmp, kCuda };

// Which product a plan computes: with S (kNoTrans) or with Sᵀ (kTrans).
enum class Op { kNoTrans, kTrans };

const char* to_string(Backend b);
// Reference and OpenMP variants run on CPU contexts with host data; CUDA ones on GPU contexts
// with device data.
inline DeviceKind device_of(Backend b) { return b == Backend::kCuda ? DeviceKind::kGpu : DeviceKind::kCpu; }

// The problem as variants and the `auto` rules see it.
struct KernelProblem {
  SparseFeatures sparse;  // of S (row statistics; nonempty_cols may be 0 when unknown)
  int k = 0;              // dense width
  bool transposed = false;  // SpMM only: the plan computes Sᵀ·B (sparse holds Sᵀ's shape)
  // The lowest operand precision the caller accepts. fp32 variants serve every precision (they are
  // at least as precise); the tensor-core variants need kF16 or kBF16.
  Precision precision = Precision::kF32;
  // S's column-vector structure (core/vector_csr.hpp: vector_length_of with no padding), found
  // only for low-precision problems on S itself; 0 when not computed.
  int vector_length = 0;
  // The GPU's compute capability (major) for a GPU plan, 0 on the CPU or when not known: the
  // tensor-core variants need 8 or more.
  int gpu_major = 0;
  // The GPU's L2 in bytes, 0 on the CPU or when not known (the rules then take an H100's and
  // H200's 50 MiB): the rules that follow the plans' L2-sized slices and windows read it.
  std::int64_t gpu_l2_bytes = 0;
};

// Sets `problem`'s gpu_major and gpu_l2_bytes for plans of `ctx` (0 on the CPU).
void describe_gpu(const Context& ctx, KernelProblem& problem);

// What the CPU variants' results depend on besides their inputs: the processors this process may
// use (its CPU affinity), for which the work splits that order sums are sized, and the caches
// ASpT tiles for, e.g. "2 processors, L1d 48 KiB, L2 1024 KiB". Two runs with the same string get
// the same bits at any thread count.
std::string cpu_rounding_setup();

class VariantInfo {
 public:
  virtual ~VariantInfo() = default;
  virtual const char* name() const = 0;     // e.g. "omp.sddmm.aspt"
  virtual const char* summary() const = 0;  // one line for `fk-bench --list`
  virtual Backend backend() const = 0;
  // Empty when the variant applies to the problem; otherwise a reason a person can read.
  virtual std::string why_not(const KernelProblem& /*problem*/) const { return {}; }
  // True for variants that round their operands to 16 bits (the tensor-core ones).
  virtual bool half_precision() const { return false; }
  // Whether two runs on the same inputs give the same bits (CPU variants: at the same thread
  // count). False where partial sums meet in an order the hardware picks: float atomics across
  // blocks, or a vendor routine that does not promise it. tests/kernels/test_cuda_repeatability.cpp
  // checks the CUDA variants that claim it.
  virtual bool repeatable() const { return true; }
};

}  // namespace fk
