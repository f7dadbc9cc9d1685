// cuda.spmm.dense: S as a dense matrix times B through cuBLAS's SGEMM, for S dense enough.
//
// At 30-50% density (pruned neural-network layers such as DLMC's 0.5 and 0.7 sparsity) a sparse
// product does a third to a half of the dense flops at a tenth of the dense rate or less: cuSPARSE
// reaches about 3.4 TFLOP/s on a 256 x 2304 layer at K = 256 (H200), SGEMM several times that. So
// the plan keeps an M x N dense copy of S on the device, zero except at S's pattern, writes the
// run's values into it (a scatter of nnz floats; the zeros are written once, in prepare) and calls
// cublasSgemm. Sᵀ·B is the same call with S transposed, so the variant serves it natively.
//
// Row-major operands as cuBLAS's column-major ones: C (M x K) = S (M x N) · B (N x K) in row major
// is Cᵀ = Bᵀ · Sᵀ in column major, where Bᵀ is B's buffer read with leading dimension K and Sᵀ is
// the dense copy read with leading dimension N.
//
// Results are fp32 SGEMM sums (no TF32: the shared cuBLAS handle keeps the default math mode), in
// cuBLAS's own summation order, which is fixed for a given shape and GPU.
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "core/log.hpp"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 256;
// The dense copy's size limit (2^26 floats: 256 MiB). The rules pick this variant only for small
// dense-ish matrices; the limit keeps a named use from exhausting the device on a large one.
constexpr std::int64_t kMaxDenseEntries = std::int64_t(1) << 26;

// dense[r * n + col[j]] = vals[j] for every nonzero j of row r: one warp per row, lanes along the
// row. Only for patterns without a repeated (row, column).
__global__ void __launch_bounds__(kThreads)
    scatter_rows_kernel(std::int64_t rows, std::int64_t n, const std::int64_t* __restrict__ row_ptr,
                        const std::int32_t* __restrict__ col_idx, const float* __restrict__ vals,
                        float* __restrict__ dense) {
  const int lane = threadIdx.x & (kWarpSize - 1);
  const std::int64_t warps = std::int64_t(gridDim.x) * (kThreads / kWarpSize);
  for (std::int64_t r = std::int64_t(blockIdx.x) * (kThreads / kWarpSize) + threadIdx.x / kWarpSize;
       r < rows; r += warps) {
    float* drow = dense + r * n;
    for (std::int64_t j = row_ptr[r] + lane; j < row_ptr[r + 1]; j += kWarpSize)
      drow[col_idx[j]] = vals[j];
  }
}

// The same for a pattern with repeated (row, column) pairs: one thread per row zeroes the row's
// positions and then adds its values in CSR order, so repeats are summed in a fixed order.
__global__ void __launch_bounds__(kThreads)
    scatter_rows_summing_kernel(std::int64_t rows, std::int64_t n,
                                const std::int64_t* __restrict__ row_ptr,
                                const std::int32_t* __restrict__ col_idx,
                                const float* __restrict__ vals, float* __restrict__ dense) {
  for (std::int64_t r = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; r < rows;
       r += std::int64_t(gridDim.x) * kThreads) {
    float* drow = dense + r * n;
    for (std::int64_t j = row_ptr[r]; j < row_ptr[r + 1]; ++j) drow[col_idx[j]] = 0.f;
    for (std::int64_t j = row_ptr[r]; j < row_ptr[r + 1]; ++j) drow[col_idx[j]] += vals[j];
  }
}

std::string too_large(std::int64_t rows, std::int64_t cols) {
  return "a dense copy of S (" + std::to_string(rows) + " x " + std::to_string(cols) +
         ") exceeds " + std::to_string(kMaxDenseEntries) + " entries";
}

class DensePlan : public SpmmPlan {
 public:
  DensePlan(const Context& ctx, const CsrView& s, int k, Op op) : s_(s), k_(k), op_(op) {
    FK_CHECK(s.rows * s.cols <= kMaxDenseEntries, "cuda.spmm.dense: " << too_large(s.rows, s.cols));
    has_repeats_ = has_repeated_entries(s, stream_of(ctx));
    if (has_repeats_)
      log_debug()
          << "cuda.spmm.dense: S stores some (row, column) more than once; the copies are summed";
    dense_ = DeviceBuffer<float>(s.rows * s.cols);
    if (dense_.size() > 0)
      FK_CUDA_CHECK(cudaMemsetAsync(dense_.data(), 0,
                                    static_cast<std::size_t>(dense_.size()) * sizeof(float),
                                    stream_of(ctx)));
    ctx.gpu().cublas();  // created now rather than inside the first timed run
  }

  void run(const Context& ctx, const float* vals, DenseView<const float> b,
           DenseView<float> c) override {
    constexpr const char* kName = "cuda.spmm.dense";
    const bool trans = op_ == Op::kTrans;
    const std::int64_t in_rows = trans ? s_.rows : s_.cols;
    const std::int64_t out_rows = trans ? s_.cols : s_.rows;
    check_spmm_operands(kName, s_, op_, k_, b, c);
    if (c.size() == 0) return;
    cudaStream_t stream = stream_of(ctx);
    // An empty sum: C is zeroed here rather than asking cuBLAS for a zero-depth product.
    if (in_rows == 0 || s_.nnz == 0) {
      FK_CUDA_CHECK(
          cudaMemsetAsync(c.data, 0, static_cast<std::size_t>(c.size()) * sizeof(float), stream));
      return;
    }
    vals = spmm_values(kName, s_, vals);
    if (has_repeats_) {
      scatter_rows_summing_kernel<<<grid_for(s_.rows, kThreads), kThreads, 0, stream>>>(
          s_.rows, s_.cols, s_.row_ptr, s_.col_idx, vals, dense_.data());
    } else {
      scatter_rows_kernel<<<grid_for(s_.rows, kThreads / kWarpSize), kThreads, 0, stream>>>(
          s_.rows, s_.cols, s_.row_ptr, s_.col_idx, vals, dense_.data());
    }
    FK_CUDA_CHECK_LAUNCH();
    const float one = 1.f, zero = 0.f;
    const int n = static_cast<int>(s_.cols);
    // Column-major view (see the top): Cᵀ (K x out_rows) = Bᵀ (K x in_rows) · op(Sᵀ), the dense
    // copy being Sᵀ (N x M, leading dimension N) in column major.
    FK_CUBLAS_CHECK(cublasSgemm(ctx.gpu().cublas(), CUBLAS_OP_N, trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                                k_, static_cast<int>(out_rows), static_cast<int>(in_rows), &one,
                                b.data, k_, dense_.data(), n, &zero, c.data, k_));
  }

 private:
  CsrView s_;
  int k_;
  Op op_;
  bool has_repeats_ = false;
  DeviceBuffer<float> dense_;
};

class DenseSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.dense"; }
  const char* summary() const override {
    return "S as a dense matrix (zeros filled in prepare) times B by cuBLAS SGEMM; for dense-ish S "
           "(native Sᵀ·B)";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (p.sparse.rows * p.sparse.cols > kMaxDenseEntries)
      return too_large(p.sparse.rows, p.sparse.cols);
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<DensePlan>(ctx, s, k, Op::kNoTrans);
  }
  std::unique_ptr<SpmmPlan> prepare_transposed(const Context& ctx, const CsrView& s,
                                               int k) const override {
    return std::make_unique<DensePlan>(ctx, s, k, Op::kTrans);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_dense() { return std::make_unique<DenseSpmm>(); }

}  // namespace fk
