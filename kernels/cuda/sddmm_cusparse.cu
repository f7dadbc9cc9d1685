// cuda.sddmm.cusparse: the vendor baseline, cusparseSDDMM on S's CSR pattern (float, default
// algorithm), C = 1 · A · op(B) ∘ spy(S) + 0 · C, followed by a scale pass (out *= s_vals) for the
// scaled form.
//
// Layouts: A is M x K row-major. Our B is N x K row-major, so op(B) = Bᵀ (K x N) is requested
// with CUSPARSE_OPERATION_TRANSPOSE on the row-major N x K descriptor; if this cuSPARSE rejects that
// combination (an error from the buffer-size query) the plan describes the same memory as a
// K x N column-major matrix with NON_TRANSPOSE instead.
//
// Indices: S's row offsets are 64-bit and its columns 32-bit; the plan never relies on cuSPARSE
// accepting mixed index types. With nnz and M below 2^31 it keeps a 32-bit copy of the row
// offsets (M + 1 entries, made on the device) and uses S's columns as they are
// (CUSPARSE_INDEX_32I for both); otherwise it uses S's 64-bit offsets and keeps a 64-bit copy of
// the columns (8 bytes per nonzero, CUSPARSE_INDEX_64I for both). Unsorted columns are fine:
// cuSPARSE's CSR accepts them unless a routine says otherwise (NVIDIA/CUDALibrarySamples#84), and
// SDDMM does not.
//
// Descriptors (RAII) and the workspace are made in prepare. cusparseSDDMM_preprocess needs the
// dense operands, which only run() has, so it is issued on the stream by the first run (A, B and
// the values may change between later runs, which cuSPARSE allows after preprocessing). The output
// is zeroed before each call: with beta = 0 nothing should be read, but a poisoned (NaN) buffer
// must not leak through 0 · NaN.
#include <memory>

#include "core/device_buffer.hpp"
#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/sddmm_common.cuh"

namespace fk {
namespace {

using namespace sddmm_cuda;  // NOLINT: kernel-local helpers

__global__ void narrow_offsets_kernel(const std::int64_t* __restrict__ src, std::int64_t n, std::int32_t* __restrict__ dst) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    dst[i] = static_cast<std::int32_t>(src[i]);
}

__global__ void widen_columns_kernel(const std::int32_t* __restrict__ src, std::int64_t n, std::int64_t* __restrict__ dst) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
}

// RAII owners of cuSPARSE descriptors (move-only).
struct SpMatDescr {
  cusparseSpMatDescr_t d = nullptr;
  SpMatDescr() = default;
  SpMatDescr(const SpMatDescr&) = delete;
  SpMatDescr& operator=(const SpMatDescr&) = delete;
  ~SpMatDescr() {
    if (d) cusparseDestroySpMat(d);
  }
};
struct DnMatDescr {
  cusparseDnMatDescr_t d = nullptr;
  DnMatDescr() = default;
  DnMatDescr(const DnMatDescr&) = delete;
  DnMatDescr& operator=(const DnMatDescr&) = delete;
  ~DnMatDescr() {
    if (d) cusparseDestroyDnMat(d);
  }
};

class CusparsePlan : public SddmmPlan {
 public:
  CusparsePlan(const Context& ctx, const CsrView& s, int k) : s_(s), k_(k) {
    if (s.nnz == 0) return;
    const cudaStream_t stream = stream_of(ctx);
    const int threads = 256;
    void* offsets = const_cast<std::int64_t*>(s.row_ptr);
    void* columns = const_cast<std::int32_t*>(s.col_idx);
    cusparseIndexType_t index_type = CUSPARSE_INDEX_32I;
    if (s.nnz <= INT32_MAX && s.rows < INT32_MAX) {
      offsets32_ = DeviceBuffer<std::int32_t>(s.rows + 1);
      narrow_offsets_kernel<<<std::min(grid_blocks(s.rows + 1, threads), 4096u), threads, 0, stream>>>(
          s.row_ptr, s.rows + 1, offsets32_.data());
      FK_CUDA_CHECK_LAUNCH();
      offsets = offsets32_.data();
    } else {
      columns64_ = DeviceBuffer<std::int64_t>(s.nnz);
      widen_columns_kernel<<<std::min(grid_blocks(s.nnz, threads), 65535u), threads, 0, stream>>>(
          s.col_idx, s.nnz, columns64_.data());
      FK_CUDA_CHECK_LAUNCH();
      columns = columns64_.data();
      index_type = CUSPARSE_INDEX_64I;
    }
    // Descriptors need data pointers; until run() provides A, B and the output they point at a
    // small scratch buffer (the buffer-size query reads no data).
    scratch_ = DeviceBuffer<float>(64);
    FK_CUSPARSE_CHECK(cusparseCreateCsr(&c_.d, s.rows, s.cols, s.nnz, offsets, columns, scratch_.data(), index_type,
                                        index_type, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    FK_CUSPARSE_CHECK(cusparseCreateDnMat(&a_.d, s.rows, k, k, scratch_.data(), CUDA_R_32F, CUSPARSE_ORDER_ROW));
    cusparseHandle_t handle = ctx.gpu().cusparse();
    const float alpha = 1.0f, beta = 0.0f;
    std::size_t bytes = 0;
    // Preferred: B as the row-major N x K matrix it is, transposed by cuSPARSE.
    FK_CUSPARSE_CHECK(cusparseCreateDnMat(&b_.d, s.cols, k, k, scratch_.data(), CUDA_R_32F, CUSPARSE_ORDER_ROW));
    op_b_ = CUSPARSE_OPERATION_TRANSPOSE;
    cusparseStatus_t st = cusparseSDDMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, op_b_, &alpha, a_.d,
                                                   b_.d, &beta, c_.d, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, &bytes);
    if (st != CUSPARSE_STATUS_SUCCESS) {
      // Fallback: the same memory read as a K x N column-major matrix, not transposed.
      FK_CUSPARSE_CHECK(cusparseDestroyDnMat(b_.d));
      b_.d = nullptr;
      FK_CUSPARSE_CHECK(cusparseCreateDnMat(&b_.d, k, s.cols, k, scratch_.data(), CUDA_R_32F, CUSPARSE_ORDER_COL));
      op_b_ = CUSPARSE_OPERATION_NON_TRANSPOSE;
      st = cusparseSDDMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, op_b_, &alpha, a_.d, b_.d, &beta, c_.d,
                                    CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, &bytes);
    }
    FK_CUSPARSE_CHECK(st);
    buffer_ = DeviceBuffer<char>(static_cast<std::int64_t>(std::max<std::size_t>(bytes, 16)));
  }

  void run(const Context& ctx, DenseView<const float> a, DenseView<const float> b, const float* s_vals,
           float* out) override {
    check_sddmm_operands("cuda.sddmm.cusparse", s_, k_, a, b, out);
    if (s_.nnz == 0) return;
    cusparseHandle_t handle = ctx.gpu().cusparse();
    FK_CUSPARSE_CHECK(cusparseDnMatSetValues(a_.d, const_cast<float*>(a.data)));
    FK_CUSPARSE_CHECK(cusparseDnMatSetValues(b_.d, const_cast<float*>(b.data)));
    FK_CUSPARSE_CHECK(cusparseSpMatSetValues(c_.d, out));
    FK_CUDA_CHECK(cudaMemsetAsync(out, 0, s_.nnz * sizeof(float), stream_of(ctx)));
    const float alpha = 1.0f, beta = 0.0f;
    if (!preprocessed_) {
      FK_CUSPARSE_CHECK(cusparseSDDMM_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, op_b_, &alpha, a_.d, b_.d,
                                                 &beta, c_.d, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, buffer_.data()));
      preprocessed_ = true;
    }
    FK_CUSPARSE_CHECK(cusparseSDDMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, op_b_, &alpha, a_.d, b_.d, &beta, c_.d,
                                    CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, buffer_.data()));
    if (s_vals) scale_values(ctx, s_vals, s_.nnz, out);
  }

 private:
  CsrView s_;
  int k_;
  DeviceBuffer<std::int32_t> offsets32_;  // rows + 1 narrowed offsets (nnz < 2^31)
  DeviceBuffer<std::int64_t> columns64_;  // nnz widened columns (nnz >= 2^31)
  DeviceBuffer<float> scratch_;           // placeholder data pointer until the first run
  DeviceBuffer<char> buffer_;             // cuSPARSE workspace
  // Declared after the buffers so that they are destroyed first.
  SpMatDescr c_;
  DnMatDescr a_, b_;
  cusparseOperation_t op_b_ = CUSPARSE_OPERATION_TRANSPOSE;
  bool preprocessed_ = false;
};

class CusparseSddmm : public SddmmVariant {
 public:
  const char* name() const override { return "cuda.sddmm.cusparse"; }
  const char* summary() const override { return "vendor baseline: cusparseSDDMM (CSR, float), then a scale pass"; }
  Backend backend() const override { return Backend::kCuda; }
  std::unique_ptr<SddmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<CusparsePlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SddmmVariant> make_cuda_sddmm_cusparse() { return std::make_unique<CusparseSddmm>(); }

}  // namespace fk
