// cuda.sddmm.coo: the naive floor. One thread per nonzero, the row index read from a COO row array
// built once in prepare (the ETH "GPU-Dynamic" paper's Algorithm 1): each thread walks A[i,:] and
// B[c,:] with scalar loads. Adjacent threads read different rows, so nothing is coalesced and A is
// re-read for every nonzero; every other variant must beat this.
#include <memory>

#include "core/device_buffer.hpp"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/sddmm_common.cuh"

namespace fk {
namespace {

using sddmm_cuda::grid_blocks;

__global__ void sddmm_coo_kernel(const std::int32_t* __restrict__ rows, const std::int32_t* __restrict__ cols,
                                 std::int64_t nnz, const float* __restrict__ a, const float* __restrict__ b, int k,
                                 const float* __restrict__ scale, float* __restrict__ out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < nnz; j += stride) {
    const float* ar = a + static_cast<std::int64_t>(rows[j]) * k;
    const float* br = b + static_cast<std::int64_t>(cols[j]) * k;
    float acc = 0.f;
    for (int t = 0; t < k; ++t) acc = fmaf(ar[t], br[t], acc);
    out[j] = scale ? acc * scale[j] : acc;
  }
}

class CooPlan : public SddmmPlan {
 public:
  CooPlan(const Context& ctx, const CsrView& s, int k) : s_(s), k_(k), rows_(s.nnz) {
    sddmm_cuda::expand_rows(ctx, s, rows_.data());
  }

  void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands("cuda.sddmm.coo", s_, k_, a, b, out);
    if (s_.nnz == 0) return;
    const int threads = 256;
    const unsigned blocks = std::min(grid_blocks(s_.nnz, threads), 65535u * 64u);
    sddmm_coo_kernel<<<blocks, threads, 0, stream_of(ctx)>>>(rows_.data(), s_.col_idx, s_.nnz, a.data, b.data, k_,
                                                            s_vals, out);
    FK_CUDA_CHECK_LAUNCH();
  }

 private:
  CsrView s_;
  int k_;
  DeviceBuffer<std::int32_t> rows_;  // nnz row indices (COO expansion of s_.row_ptr)
};

class CooSddmm : public SddmmVariant {
 public:
  const char* name() const override { return "cuda.sddmm.coo"; }
  const char* summary() const override {
    return "naive floor: one thread per nonzero over a COO row array, scalar loads (GPU-Dynamic Alg. 1)";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (p.sparse.rows > INT32_MAX) return "more than 2^31-1 rows: the COO row array is 32-bit";
    return {};
  }
  std::unique_ptr<SddmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<CooPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SddmmVariant> make_cuda_sddmm_coo() { return std::make_unique<CooSddmm>(); }

}  // namespace fk
