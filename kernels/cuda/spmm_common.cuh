#pragma once
// Device helpers shared by the CUDA SpMM variants (kernels/cuda/spmm_*.cu). nvcc only.
//
// Conventions of every kernel here: S is M x N CSR on the device (64-bit row offsets, 32-bit
// columns), B is N x K and C is M x K, both row-major float32 on the device without padding.
// Nonzero positions and element offsets (row * K) are 64-bit; column indices and K are 32-bit.
#include <cstdint>
#include <vector>

#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/device_buffer.hpp"
#include "kernels/cuda/prefer_l1.cuh"
#include "kernels/operand_checks.hpp"
#include "kernels/spmm.hpp"

namespace fk::cuda_spmm {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;
// Grid sizes are capped (kernels loop grid-stride over their work items), so 64-bit work counts
// never overflow gridDim.x.
constexpr std::int64_t kMaxBlocks = std::int64_t(1) << 22;

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
inline int pow2_ceil(std::int64_t x) {
  int p = 1;
  while (p < x && p < (1 << 30)) p <<= 1;
  return p;
}
inline unsigned grid_for(std::int64_t items, std::int64_t items_per_block) {
  const std::int64_t blocks = ceil_div(std::max<std::int64_t>(items, 1), items_per_block);
  return static_cast<unsigned>(std::min(blocks, kMaxBlocks));
}

// ---- host-side helpers shared by the plans (operand checks: kernels/operand_checks.hpp) ---------

// 16-byte vector loads and stores apply: K % 4 == 0 and both dense bases 16-byte aligned.
bool vec4_ok(int k, const void* b, const void* c);
// Copies of S's row offsets (rows + 1) and columns (nnz) from the device to the host.
std::vector<std::int64_t> download_row_ptr(const CsrView& s);
std::vector<std::int32_t> download_col_idx(const CsrView& s);
// Does S store some (row, column) more than once? Most variants sum such repeats like any other
// terms, but cuSPARSE's SpMM preprocessing writes out of bounds on them (CSR_ALG3, CUDA 13, seen
// under compute-sanitizer) and the dense copy must add them up. A device pass over the rows
// answers when every row's columns are sorted (repeats are then neighbours); otherwise the
// pattern is downloaded and checked on the host. Synchronizes `stream`.
bool has_repeated_entries(const CsrView& s, cudaStream_t stream);
// Are every row's columns in non-decreasing order? A device pass; synchronizes `stream`.
bool rows_sorted(const CsrView& s, cudaStream_t stream);

// ---- long rows: split across thread blocks, the segments added in order ------------------------
//
// A warp per row is too slow for a row of millions of nonzeros. The row-split variants therefore
// skip rows longer than a threshold and hand them to this helper: it splits each one into segments
// of `segment` nonzeros, one thread block per segment writing its partial row to a scratch buffer,
// and a second kernel adds each row's partial rows in segment order into C (no atomics: the same
// bits every run, which --seed promises; the scratch is segments x k floats). The threshold is max(kMinThreshold, kMeanFactor x
// mean row length): only rows far longer than the rest are split (if all rows are long, one warp
// per row is already balanced).
class LongRows {
 public:
  static constexpr std::int64_t kMinThreshold = 4096;
  static constexpr std::int64_t kMeanFactor = 8;
  static constexpr std::int64_t kDefaultSegment = 2048;

  LongRows() = default;
  // row_ptr: host copy of S's rows + 1 offsets. threshold <= 0 picks the rule above.
  explicit LongRows(const std::vector<std::int64_t>& row_ptr, std::int64_t threshold = 0,
                    std::int64_t segment = kDefaultSegment);
  // Kernels skip rows with more nonzeros than this.
  std::int64_t threshold() const { return threshold_; }
  std::int64_t count() const { return rows_.size(); }
  // Computes the long rows of C = S·B on ctx's stream. All pointers are device pointers: row_ptr
  // (M + 1), col_idx and vals (nnz, S's order), b (N x k), c (M x k), row-major. With val_perm
  // (nnz), entry j's value is vals[val_perm[j]] (PermutedValues).
  void run(const Context& ctx, const std::int64_t* row_ptr, const std::int32_t* col_idx,
           const float* vals, const float* b, float* c, int k,
           const std::int32_t* val_perm = nullptr) const;

 private:
  std::int64_t threshold_ = kMinThreshold;
  std::int64_t segment_ = kDefaultSegment;
  DeviceBuffer<std::int64_t> rows_;       // the long rows
  DeviceBuffer<std::int64_t> row_segs_;   // per long row: its first segment (count() + 1 offsets)
  DeviceBuffer<std::int64_t> seg_row_;    // per segment: its row
  DeviceBuffer<std::int64_t> seg_begin_;  // per segment: its first nonzero
};

// Zeroes rows rows[0..n) of the row-major M x k matrix c (device pointers) on ctx's stream.
void zero_rows(const Context& ctx, const std::int64_t* rows, std::int64_t n, int k, float* c);

// ---- device helpers ----------------------------------------------------------------------------

// The lanes of a group of G consecutive lanes (G a power of two dividing 32) as a shuffle mask.
template <int G>
__device__ __forceinline__ unsigned group_mask(int lane) {
  if constexpr (G == 32) {
    return kFullMask;
  } else {
    return ((1u << G) - 1u) << (lane & ~(G - 1));
  }
}
__device__ __forceinline__ unsigned group_mask_rt(int g, int lane) {
  return g == 32 ? kFullMask : ((1u << g) - 1u) << (lane & ~(g - 1));
}

// Sparse data (columns, values, row ids) is read once per K tile: these loads skip L1 allocation
// (ld.global.nc.L1::no_allocate) so that L1 keeps B rows, which are the ones reused.
__device__ __forceinline__ std::int32_t ld_sparse(const std::int32_t* p) {
  std::int32_t v;
  asm("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ float ld_sparse(const float* p) {
  float v;
  asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

// S's value j as a kernel reads it. Kernels take the reader as a template parameter: PlainValues
// reads values stored in the pattern's own order; PermutedValues serves Sᵀ·B from a cached
// transpose (kernels/registry.cpp), whose entry j is S's value perm[j], straight from the values in
// S's order. That spares each run a gather kernel of its own: on small problems a launch and a
// round trip to memory are much of the time (bcsstk13 at K = 1: vdl's Sᵀ·B took 10.4 µs against
// its S·B's 5.9 on the same pattern, H100, h100-f18bd8a).
struct PlainValues {
  const float* vals;
  __device__ __forceinline__ float operator()(std::int64_t j) const { return ld_sparse(vals + j); }
};
struct PermutedValues {
  const float* vals;         // in S's order
  const std::int32_t* perm;  // per entry of the pattern the kernel walks: its position in vals
  __device__ __forceinline__ float operator()(std::int64_t j) const {
    return ld_sparse(vals + ld_sparse(perm + j));
  }
};
// The permuted read puts a second dependent load on the path to each value. The row kernels whose
// groups walk a row in chunks (row_csc, row_split) wait on that path once per chunk; with fewer
// than 8 lanes a group (K < 32) they walked long transposed rows 1.2-1.6x slower than with the
// gathered values (K = 1 and 4 on the DLMC layers' and nips's transposes), and from K = 32 they
// ran 0.8-1.36x, faster on the short-row transposes that `auto` gives them (H100,
// docs/benchmarks/checks/permuted-values). Below this K they gather first.
constexpr int kPermutedMinK = 32;

// A reader's permutation, for host code that passes it on (LongRows::run): null when plain.
inline const std::int32_t* perm_of(const PlainValues&) { return nullptr; }
inline const std::int32_t* perm_of(const PermutedValues& v) { return v.perm; }

// The run() / run_permuted() pair of a plan whose kernels take the value reader as a template
// parameter. Derived defines kName, kPermutedFromK (the K from which reading through the
// permutation pays; below it run_permuted declines and the caller gathers) and a public
//   template <typename Vals>
//   void launch(const Context&, Vals, DenseView<const float> b, DenseView<float> c);
// (shapes already checked).
template <typename Derived>
class ValueReaderPlan : public SpmmPlan {
 public:
  ValueReaderPlan(const CsrView& s, int k) : s_(s), k_(k) {}
  void run(const Context& ctx, const float* vals, DenseView<const float> b,
           DenseView<float> c) final {
    check_spmm_operands(Derived::kName, s_, Op::kNoTrans, k_, b, c);
    self().launch(ctx, PlainValues{spmm_values(Derived::kName, s_, vals)}, b, c);
  }
  bool run_permuted(const Context& ctx, const float* vals, const std::int32_t* perm,
                    DenseView<const float> b, DenseView<float> c) final {
    if (k_ < Derived::kPermutedFromK) return false;
    check_spmm_operands(Derived::kName, s_, Op::kNoTrans, k_, b, c);
    self().launch(ctx, PermutedValues{vals, perm}, b, c);
    return true;
  }

 protected:
  CsrView s_;
  int k_;

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

// V consecutive floats (V = 1, 2, 4) through the read-only path; p is V*4-byte aligned.
template <int V>
__device__ __forceinline__ void ldg_vec(const float* __restrict__ p, float (&x)[V]) {
  if constexpr (V == 4) {
    const float4 t = __ldg(reinterpret_cast<const float4*>(p));
    x[0] = t.x, x[1] = t.y, x[2] = t.z, x[3] = t.w;
  } else if constexpr (V == 2) {
    const float2 t = __ldg(reinterpret_cast<const float2*>(p));
    x[0] = t.x, x[1] = t.y;
  } else {
    static_assert(V == 1, "vector width must be 1, 2 or 4");
    x[0] = __ldg(p);
  }
}
// Generic-address load (p may point to shared or global memory).
template <int V>
__device__ __forceinline__ void ld_vec(const float* p, float (&x)[V]) {
  if constexpr (V == 4) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    x[0] = t.x, x[1] = t.y, x[2] = t.z, x[3] = t.w;
  } else if constexpr (V == 2) {
    const float2 t = *reinterpret_cast<const float2*>(p);
    x[0] = t.x, x[1] = t.y;
  } else {
    static_assert(V == 1, "vector width must be 1, 2 or 4");
    x[0] = *p;
  }
}
// Plain store of V floats.
template <int V>
__device__ __forceinline__ void st_vec(float* p, const float (&x)[V]) {
  if constexpr (V == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(x[0], x[1], x[2], x[3]);
  } else if constexpr (V == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(x[0], x[1]);
  } else {
    static_assert(V == 1, "vector width must be 1, 2 or 4");
    *p = x[0];
  }
}
// Streaming (evict-first) store: C is written once and never re-read by the kernel, so it should
// not push B out of L2.
template <int V>
__device__ __forceinline__ void stcs_vec(float* p, const float (&x)[V]) {
  if constexpr (V == 4) {
    __stcs(reinterpret_cast<float4*>(p), make_float4(x[0], x[1], x[2], x[3]));
  } else if constexpr (V == 2) {
    __stcs(reinterpret_cast<float2*>(p), make_float2(x[0], x[1]));
  } else {
    static_assert(V == 1, "vector width must be 1, 2 or 4");
    __stcs(p, x[0]);
  }
}
// atomicAdd of V floats into global memory (one vector atomic on sm_90 and later).
template <int V>
__device__ __forceinline__ void atomic_add_vec(float* p, const float (&x)[V]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (V == 4) {
    atomicAdd(reinterpret_cast<float4*>(p), make_float4(x[0], x[1], x[2], x[3]));
  } else if constexpr (V == 2) {
    atomicAdd(reinterpret_cast<float2*>(p), make_float2(x[0], x[1]));
  } else {
    atomicAdd(p, x[0]);
  }
#else
#pragma unroll
  for (int v = 0; v < V; ++v) atomicAdd(p + v, x[v]);
#endif
}

// ---- mapping of K onto the lanes of a row group ------------------------------------------------
//
// A row (or a nonzero slot) is served by a group of G lanes; each lane owns T vectors of V floats,
// at columns k0 + (t * G + lane) * V, so a group covers a K tile of G * V * T columns and every
// B-row access of the group is contiguous (coalesced). Larger K loops over tiles.
template <int G_, int V_, int T_>
struct KMap {
  static constexpr int G = G_;
  static constexpr int V = V_;
  static constexpr int T = T_;
  static constexpr int kTile = G * V * T;
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0,
                "lanes per group: a power of two up to a warp");
  static_assert(V == 1 || V == 4, "vector width 1 (any K) or 4 (K % 4 == 0, 16-byte aligned)");
  static_assert(T >= 1 && T <= 4, "at most 4 vectors per lane keep the accumulators in registers");
};

// Calls f(KMap<...>{}) with the mapping for K: the narrowest group that covers K (so small K does
// not leave lanes idle), float4 lanes when vec4 holds; K > 128 uses whole warps with 2 float4
// (tile 256) or 4 floats (tile 128) per lane, or, with kOneVector, one vector per lane (tiles of
// 128 and 32 columns, for kernels that put further tiles on the grid).
template <bool kOneVector = false, typename F>
void dispatch_kmap(int k, bool vec4, F&& f) {
  if (vec4) {
    if (k <= 4) return f(KMap<1, 4, 1>{});
    if (k <= 8) return f(KMap<2, 4, 1>{});
    if (k <= 16) return f(KMap<4, 4, 1>{});
    if (k <= 32) return f(KMap<8, 4, 1>{});
    if (k <= 64) return f(KMap<16, 4, 1>{});
    if (k <= 128 || kOneVector) return f(KMap<32, 4, 1>{});
    return f(KMap<32, 4, 2>{});
  }
  if (k <= 1) return f(KMap<1, 1, 1>{});
  if (k <= 2) return f(KMap<2, 1, 1>{});
  if (k <= 4) return f(KMap<4, 1, 1>{});
  if (k <= 8) return f(KMap<8, 1, 1>{});
  if (k <= 16) return f(KMap<16, 1, 1>{});
  if (k <= 32 || kOneVector) return f(KMap<32, 1, 1>{});
  if (k <= 64) return f(KMap<32, 1, 2>{});
  return f(KMap<32, 1, 4>{});
}

// ---- a row's nonzeros, lanes along K (row_csc, row_split) --------------------------------------
//
// The group walks [begin, end) in chunks of G nonzeros: lane i loads (col, val) of the chunk's
// i-th nonzero once, coalesced, and the chunk is then broadcast lane to lane with shuffles while
// every lane accumulates its own T vectors of V columns (KMap), with kRowChunkUnroll B rows in
// flight before the first FMA.
constexpr int kRowChunkUnroll = 4;

// acc[t][v] += sum over nonzeros j in [begin, end) of vals(j) * B[col_idx[j], kbase + t*G*V + v],
// for the G lanes of one group (all lanes of the group call it with the same begin and end).
template <int G, int V, int T, typename Vals>
__device__ __forceinline__ void accumulate_row_chunk(std::int64_t begin, std::int64_t end, int k,
                                                     int kbase, unsigned mask, int gl,
                                                     const std::int32_t* __restrict__ col_idx,
                                                     const Vals& vals, const float* __restrict__ b,
                                                     float (&acc)[T][V]) {
  // Absolute source lanes (group base + q) rather than shuffle widths: the width form made ptxas
  // spill for G < 32.
  const int base = (threadIdx.x & 31) & ~(G - 1);
  for (std::int64_t j0 = begin; j0 < end; j0 += G) {
    // Coalesced load of the chunk: lane gl holds nonzero j0 + gl.
    int my_col = 0;
    float my_val = 0.f;
    if (j0 + gl < end) {
      my_col = ld_sparse(col_idx + j0 + gl);
      my_val = vals(j0 + gl);
    }
    const int n = static_cast<int>(end - j0 < G ? end - j0 : G);
    int q = 0;
    for (; q + kRowChunkUnroll <= n; q += kRowChunkUnroll) {
      float a[kRowChunkUnroll];
      float x[kRowChunkUnroll][T][V];
#pragma unroll
      for (int u = 0; u < kRowChunkUnroll; ++u) {
        const int col = __shfl_sync(mask, my_col, base + q + u);
        a[u] = __shfl_sync(mask, my_val, base + q + u);
        const float* brow = b + std::int64_t(col) * k;
#pragma unroll
        for (int t = 0; t < T; ++t) {
          const int kk = kbase + t * G * V;
          if (kk < k) {
            ldg_vec<V>(brow + kk, x[u][t]);
          } else {
#pragma unroll
            for (int v = 0; v < V; ++v) x[u][t][v] = 0.f;
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kRowChunkUnroll; ++u)
#pragma unroll
        for (int t = 0; t < T; ++t)
#pragma unroll
          for (int v = 0; v < V; ++v) acc[t][v] = fmaf(a[u], x[u][t][v], acc[t][v]);
    }
    for (; q < n; ++q) {
      const int col = __shfl_sync(mask, my_col, base + q);
      const float a = __shfl_sync(mask, my_val, base + q);
      const float* brow = b + std::int64_t(col) * k;
#pragma unroll
      for (int t = 0; t < T; ++t) {
        const int kk = kbase + t * G * V;
        if (kk < k) {
          float x[V];
          ldg_vec<V>(brow + kk, x);
#pragma unroll
          for (int v = 0; v < V; ++v) acc[t][v] = fmaf(a, x[v], acc[t][v]);
        }
      }
    }
  }
}

}  // namespace fk::cuda_spmm
