// cuda.spmm.vdl: row split, parallel reduction, vector-type dense-row loading, for small K.
//
// With K <= 16 a B row is at most 64 bytes, so putting lanes along K (row_csc) leaves most of a
// warp idle. Here a group of g lanes (g a power of two chosen from the mean row length) shares one
// row: lane i takes nonzeros i, i + g, ..., loads each whole B row with float4/float2 loads
// (K/4 or K/2 instructions) and keeps K partial sums; a butterfly of warp shuffles then adds the g
// partial rows, and the lanes write C's row as vectors. K is a template constant so the partial
// sums stay in registers. Rows longer than LongRows' threshold go to the block-split path.
#include <memory>
#include <string>
#include <utility>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 128;
constexpr int kMaxK = 16;

template <int K, int V>
__global__ void __launch_bounds__(kThreads)
    vdl_kernel(std::int64_t rows, int g, std::int64_t long_threshold, const std::int64_t* __restrict__ row_ptr,
               const std::int32_t* __restrict__ col_idx, const float* __restrict__ vals,
               const float* __restrict__ b, float* __restrict__ c) {
  static_assert(K >= 1 && K <= kMaxK && K % V == 0, "K must be a multiple of the vector width");
  constexpr int kVecs = K / V;  // vectors per B row
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int gl = lane & (g - 1);
  const unsigned mask = group_mask_rt(g, lane);
  const int groups_per_block = kThreads / g;
  const std::int64_t stride = std::int64_t(gridDim.x) * groups_per_block;
  for (std::int64_t row = std::int64_t(blockIdx.x) * groups_per_block + threadIdx.x / g; row < rows;
       row += stride) {
    const std::int64_t begin = row_ptr[row];
    const std::int64_t end = row_ptr[row + 1];
    if (end - begin > long_threshold) continue;  // LongRows computes it
    float acc[K];
#pragma unroll
    for (int i = 0; i < K; ++i) acc[i] = 0.f;
    std::int64_t j = begin + gl;
    // Two nonzeros per lane per step: both B rows are requested before the first FMA.
    for (; j + g < end; j += 2 * g) {
      const float a0 = ld_sparse(vals + j);
      const float a1 = ld_sparse(vals + j + g);
      const float* b0 = b + std::int64_t(ld_sparse(col_idx + j)) * K;
      const float* b1 = b + std::int64_t(ld_sparse(col_idx + j + g)) * K;
      float x0[kVecs][V], x1[kVecs][V];
#pragma unroll
      for (int i = 0; i < kVecs; ++i) {
        ldg_vec<V>(b0 + i * V, x0[i]);
        ldg_vec<V>(b1 + i * V, x1[i]);
      }
#pragma unroll
      for (int i = 0; i < kVecs; ++i)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[i * V + v] = fmaf(a1, x1[i][v], fmaf(a0, x0[i][v], acc[i * V + v]));
    }
    if (j < end) {
      const float a0 = ld_sparse(vals + j);
      const float* b0 = b + std::int64_t(ld_sparse(col_idx + j)) * K;
#pragma unroll
      for (int i = 0; i < kVecs; ++i) {
        float x[V];
        ldg_vec<V>(b0 + i * V, x);
#pragma unroll
        for (int v = 0; v < V; ++v) acc[i * V + v] = fmaf(a0, x[v], acc[i * V + v]);
      }
    }
    // Butterfly over the group (xor offsets below g never leave an aligned group).
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      if (o < g) {
#pragma unroll
        for (int i = 0; i < K; ++i) acc[i] += __shfl_xor_sync(mask, acc[i], o);
      }
    }
    // Every lane now holds the whole row; lane i % g writes vector i.
    float* crow = c + row * K;
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      if ((i & (g - 1)) == gl) {
        float x[V];
#pragma unroll
        for (int v = 0; v < V; ++v) x[v] = acc[i * V + v];
        stcs_vec<V>(crow + i * V, x);
      }
    }
  }
}

template <int K>
void launch_vdl(const Context& ctx, int vec, std::int64_t rows, int g, std::int64_t long_threshold,
                const std::int64_t* row_ptr, const std::int32_t* col_idx, const float* vals, const float* b,
                float* c) {
  const unsigned grid = grid_for(rows, kThreads / g);
  cudaStream_t stream = stream_of(ctx);
  if constexpr (K % 4 == 0) {
    if (vec == 4) {
      prefer_l1<vdl_kernel<K, 4>>();
      vdl_kernel<K, 4><<<grid, kThreads, 0, stream>>>(rows, g, long_threshold, row_ptr, col_idx, vals, b, c);
      FK_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  if constexpr (K % 2 == 0) {
    if (vec >= 2) {
      prefer_l1<vdl_kernel<K, 2>>();
      vdl_kernel<K, 2><<<grid, kThreads, 0, stream>>>(rows, g, long_threshold, row_ptr, col_idx, vals, b, c);
      FK_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  prefer_l1<vdl_kernel<K, 1>>();
  vdl_kernel<K, 1><<<grid, kThreads, 0, stream>>>(rows, g, long_threshold, row_ptr, col_idx, vals, b, c);
  FK_CUDA_CHECK_LAUNCH();
}

template <int... Ks>
void dispatch_vdl(int k, std::integer_sequence<int, Ks...>, const Context& ctx, int vec, std::int64_t rows, int g,
                  std::int64_t long_threshold, const std::int64_t* row_ptr, const std::int32_t* col_idx,
                  const float* vals, const float* b, float* c) {
  bool done = false;
  ((k == Ks + 1 && !done
        ? (launch_vdl<Ks + 1>(ctx, vec, rows, g, long_threshold, row_ptr, col_idx, vals, b, c), done = true)
        : false),
   ...);
  FK_CHECK(done, "cuda.spmm.vdl: no kernel for K = " << k);
}

// Lanes per row: about half the mean row length (so each lane takes >= 2 nonzeros), a power of
// two in [1, 32].
int lanes_for(const std::vector<std::int64_t>& row_ptr) {
  const std::int64_t rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  if (rows <= 0) return 1;
  const double mean = double(row_ptr.back() - row_ptr.front()) / double(rows);
  int g = 1;
  while (g < 32 && 2.0 * g * 2.0 <= mean) g *= 2;
  return g;
}

class VdlPlan : public SpmmPlan {
 public:
  VdlPlan(const CsrView& s, int k) : s_(s), k_(k) {
    const std::vector<std::int64_t> row_ptr = download_row_ptr(s);
    g_ = lanes_for(row_ptr);
    long_rows_ = LongRows(row_ptr);
  }

  void run(const Context& ctx, const float* vals, DenseView<const float> b, DenseView<float> c) override {
    constexpr const char* kName = "cuda.spmm.vdl";
    check_shapes(kName, s_, k_, b, c);
    vals = resolve_values(kName, s_, vals);
    if (s_.rows == 0) return;
    const auto addr_b = reinterpret_cast<std::uintptr_t>(b.data);
    const auto addr_c = reinterpret_cast<std::uintptr_t>(c.data);
    const int vec = ((addr_b | addr_c) % 16 == 0) ? 4 : ((addr_b | addr_c) % 8 == 0) ? 2 : 1;
    dispatch_vdl(k_, std::make_integer_sequence<int, kMaxK>{}, ctx, vec, s_.rows, g_, long_rows_.threshold(),
                 s_.row_ptr, s_.col_idx, vals, b.data, c.data);
    long_rows_.run(ctx, s_.row_ptr, s_.col_idx, vals, b.data, c.data, k_);
  }

 private:
  CsrView s_;
  int k_;
  int g_ = 1;
  LongRows long_rows_;
};

class VdlSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.vdl"; }
  const char* summary() const override {
    return "small K (<= 16): lanes split each row's nonzeros, float4/float2 B-row loads, shuffle reduction";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (p.k > kMaxK)
      return "vdl keeps a whole row of K partial sums per lane and is built for K <= " + std::to_string(kMaxK) +
             ", got K = " + std::to_string(p.k);
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context&, const CsrView& s, int k) const override {
    FK_CHECK(k >= 1 && k <= kMaxK, "cuda.spmm.vdl: K = " << k << " outside [1, " << kMaxK << "]");
    return std::make_unique<VdlPlan>(s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_vdl() { return std::make_unique<VdlSpmm>(); }

}  // namespace fk
