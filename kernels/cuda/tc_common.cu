#include "kernels/cuda/tc_common.cuh"

#include <vector>

#include "kernels/cuda/spmm_common.cuh"

namespace fk::tc {

DeviceVectorCsr::DeviceVectorCsr(const HostVectorCsr& host, Precision precision)
    : v_(host.v),
      rows_(host.rows),
      cols_(host.cols),
      block_rows_(host.block_rows()),
      vectors_(host.vectors()),
      block_ptr_(host.block_ptr),
      col_idx_(host.col_idx),
      vals_(to_half(host.vals, precision)) {
  // SDDMM's runs of up to kVectorsPerStep vectors, never crossing a block row (one A tile each).
  std::vector<std::int64_t> group_block, group_first;
  group_block.reserve(static_cast<std::size_t>(vectors_ / kVectorsPerStep + block_rows_));
  group_first.reserve(group_block.capacity());
  for (std::int64_t br = 0; br < block_rows_; ++br)
    for (std::int64_t j = host.block_ptr[br]; j < host.block_ptr[br + 1]; j += kVectorsPerStep) {
      group_block.push_back(br);
      group_first.push_back(j);
    }
  group_block_ = DeviceBuffer<std::int64_t>(group_block);
  group_first_ = DeviceBuffer<std::int64_t>(group_first);
}

VectorCsrDeviceView DeviceVectorCsr::view() const {
  VectorCsrDeviceView s;
  s.v = v_;
  s.rows = rows_;
  s.cols = cols_;
  s.block_rows = block_rows_;
  s.vectors = vectors_;
  s.block_ptr = block_ptr_.data();
  s.col_idx = col_idx_.data();
  s.vals = vals_.data();
  s.groups = group_block_.size();
  s.group_block = group_block_.data();
  s.group_first = group_first_.data();
  return s;
}

bool supported(const Context& ctx) { return ctx.is_gpu() && ctx.gpu().props.major >= 8; }

namespace {

constexpr int kThreads = 256;

template <class T>
__device__ __forceinline__ HalfBits to_bits(float x) {
  if constexpr (std::is_same_v<T, F16>) {
    return __half_as_ushort(__float2half_rn(x));
  } else {
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  }
}

template <class T>
__global__ void round_kernel(const float* __restrict__ src, std::int64_t n, HalfBits* __restrict__ dst) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    dst[i] = to_bits<T>(src[i]);
}

template <class T>
__global__ void gather_kernel(const float* __restrict__ src, const std::int32_t* __restrict__ source, std::int64_t n,
                              HalfBits* __restrict__ dst) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int32_t from = source[i];
    dst[i] = from >= 0 ? to_bits<T>(src[from]) : HalfBits(0);
  }
}

__global__ void scatter_kernel(const float* __restrict__ vec_out, const std::int32_t* __restrict__ source,
                               std::int64_t n, const float* __restrict__ scale, float* __restrict__ out) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int32_t to = source[i];
    if (to >= 0) out[to] = scale ? vec_out[i] * scale[to] : vec_out[i];
  }
}

unsigned grid_for_items(std::int64_t n) { return grid_for_warps(n, kThreads); }

}  // namespace

void round_to_half(const Context& ctx, Precision precision, const float* src, std::int64_t n, HalfBits* dst) {
  with_half_type(precision, "tensor-core rounding", [&](auto t) {
    if (n == 0) return;
    round_kernel<decltype(t)><<<grid_for_items(n), kThreads, 0, stream_of(ctx)>>>(src, n, dst);
    FK_CUDA_CHECK_LAUNCH();
  });
}

DeviceBuffer<std::int32_t> device_source_map(const std::vector<std::int64_t>& source) {
  std::vector<std::int32_t> narrow(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    FK_CHECK(source[i] <= INT32_MAX, "tensor-core variants index S's nonzeros in 32 bits; entry "
                                         << source[i] << " does not fit");
    narrow[i] = static_cast<std::int32_t>(source[i]);
  }
  return DeviceBuffer<std::int32_t>(narrow);
}

void gather_to_half(const Context& ctx, Precision precision, const float* src, const std::int32_t* source,
                    std::int64_t n, HalfBits* dst) {
  with_half_type(precision, "tensor-core rounding", [&](auto t) {
    if (n == 0) return;
    gather_kernel<decltype(t)><<<grid_for_items(n), kThreads, 0, stream_of(ctx)>>>(src, source, n, dst);
    FK_CUDA_CHECK_LAUNCH();
  });
}

void scatter_from_vectors(const Context& ctx, const float* vec_out, const std::int32_t* source, std::int64_t n,
                          const float* scale, float* out) {
  if (n == 0) return;
  scatter_kernel<<<grid_for_items(n), kThreads, 0, stream_of(ctx)>>>(vec_out, source, n, scale, out);
  FK_CUDA_CHECK_LAUNCH();
}

HostVectorCsr encode_pattern(const Context& ctx, const CsrView& s, int v, Precision precision) {
  with_half_type(precision, "tensor-core variants", [](auto) {});  // refuses fp32 with the reason
  FK_CHECK(supported(ctx), "tensor-core variants need an sm_80 or newer GPU; " << ctx.describe() << " is sm_"
                                                                               << ctx.gpu().props.major
                                                                               << ctx.gpu().props.minor);
  HostCsr pattern;
  pattern.rows = s.rows;
  pattern.cols = s.cols;
  pattern.row_ptr = cuda_spmm::download_row_ptr(s);
  pattern.col_idx = cuda_spmm::download_col_idx(s);
  return to_vector_csr(pattern.view(), v);
}

EncodedPattern::EncodedPattern(const HostVectorCsr& host, Precision precision)
    : precision_(precision), dev_(host, precision), source_(device_source_map(host.source)) {}

void EncodedPattern::load_values(const Context& ctx, const float* vals) {
  gather_to_half(ctx, precision_, vals, source_.data(), stored(), dev_.vals());
}

}  // namespace fk::tc
