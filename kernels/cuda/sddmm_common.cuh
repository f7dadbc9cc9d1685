#pragma once
// Shared pieces of the CUDA SDDMM variants (kernels/cuda/sddmm_*.cu). nvcc only.
//
// The centre of this file is GroupWalker, the inner loop that the tiled variants (PRedS, ASpT,
// GPU-Shared, GPU-Convert) share. They differ in how work is cut and where B's rows come from;
// the walker is the part that turns "these entries, this source of B rows" into FMAs:
//
//   * A warp is split into 32/G groups of G lanes ("IIR": several dot products interleaved in one
//     warp so that every lane works at small K). Within a group the K dimension is split across
//     lanes ("WMT"): lane r of a group holds A's elements 4(r + G t) .. 4(r + G t) + 3, t < NV
//     (float4 path) or r + G t (scalar path), in registers, and reuses them for every entry of
//     the same row (A[i,:] is loaded once per row, not once per nonzero).
//   * Each warp step covers 32/G x U consecutive entries: group g takes U of them in a row. Each
//     lane ends the step with U partial sums, which a transposing butterfly (U - 1 + log2(G/U)
//     shuffles for U entries instead of U log2 G) reduces so that one lane per entry holds the
//     whole dot product; those lanes scale and store, one coalesced access per warp step. U bounds
//     the B loads in flight per lane (ptxas hoists a whole step's loads), see kInflightRegs.
//   * B rows are read with 16-byte loads, G lanes x 16 B contiguous per row (full 32-byte sectors
//     for G >= 2), with a scalar fallback when K % 4 != 0 or A/B are not 16-byte aligned.
//   * K is processed in slices when it is wider than one configuration holds (1024 floats on the
//     vector path, 256 on the scalar path) or when B would not stay in L2 (choose_chunk): one
//     launch per slice; the first stores, later ones add, the last scales.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#include "core/csr.hpp"
#include "core/cuda/cuda_check.cuh"
#include "core/cuda/gpu_resources.cuh"
#include "core/dense.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "kernels/cuda/prefer_l1.cuh"
#include "kernels/operand_checks.hpp"
#include "kernels/sddmm.hpp"

namespace fk::sddmm_cuda {

constexpr unsigned kFullMask = 0xffffffffu;
// Blocks of the walker kernels: 8 warps. __launch_bounds__(kWalkThreads, 2) caps registers at 128.
constexpr int kWalkThreads = 256;
constexpr int kWalkWarps = kWalkThreads / 32;
// Widest K chunk a single walker configuration holds in registers.
constexpr int kMaxChunkVec = 1024;
constexpr int kMaxChunkScalar = 256;

// ---------------------------------------------------------------------------------------------
// Host-side helpers

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// The float4 path needs every row of A and B to start on a 16-byte boundary.
inline bool vector_path_ok(DenseView<const float> a, DenseView<const float> b, int k) {
  return k % 4 == 0 && aligned16(a.data) && aligned16(b.data);
}

// Blocks for `items` work items of `per_block` each, at least 1, at most 2^31 - 1 (kernels loop
// grid-stride beyond that).
inline unsigned grid_blocks(std::int64_t items, std::int64_t per_block) {
  const std::int64_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(std::clamp<std::int64_t>(blocks, 1, 0x7fffffff));
}

inline int sm_count(const Context& ctx) { return ctx.gpu().props.multiProcessorCount; }

// Fraction of L2 that one K slice of B may take (tunable; 0 disables slicing for L2). The
// environment variable FK_SDDMM_L2_SLICE_FRACTION overrides it, read once, so that benchmarks can
// sweep it without rebuilding; a value that is not a number in [0, 1] is ignored with a warning.
constexpr double kL2SliceFraction = 0.6;
inline double l2_slice_fraction() {
  static const double f = [] {
    const char* env = std::getenv("FK_SDDMM_L2_SLICE_FRACTION");
    if (!env || !*env) return kL2SliceFraction;
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (*end == '\0' && v >= 0 && v <= 1) return v;
    log_warn() << "FK_SDDMM_L2_SLICE_FRACTION='" << env << "' is not a number in [0, 1]; using "
               << kL2SliceFraction;
    return kL2SliceFraction;
  }();
  return f;
}

// Width of the K slices a plan runs, one launch per slice. B's rows are what every variant
// streams; when B (N x K floats) would not stay in L2 the plan cuts K into slices whose part of B
// does (the largest power of two >= 32 with N x slice x 4 <= fraction x L2), so that the
// whole GPU works on one slice at a time: that slice of B stays in L2 and its hot rows in L1
// (4x more rows per L1 at a quarter of the width). Slices never exceed `max_chunk` (what one
// walker configuration or one shared-memory row holds). Costs per extra slice: the indices again
// and a read-modify-write of out (~16 bytes per nonzero against 4 x slice bytes of B).
inline int choose_chunk(int k, std::int64_t n_cols, std::int64_t l2_bytes, int max_chunk) {
  const double budget = l2_slice_fraction() * static_cast<double>(l2_bytes);
  int chunk = std::min(k, max_chunk);
  if (budget > 0 && static_cast<double>(n_cols) * k * 4 > budget) {
    int c = 32;
    while (c * 2 <= max_chunk && static_cast<double>(n_cols) * (c * 2) * 4 <= budget) c *= 2;
    chunk = std::min(chunk, c);
  }
  return chunk;
}
inline int walk_max_chunk(bool vec) { return vec ? kMaxChunkVec : kMaxChunkScalar; }
inline std::int64_t l2_bytes(const Context& ctx) { return ctx.gpu().props.l2CacheSize; }

// ---------------------------------------------------------------------------------------------
// Walker configurations: G lanes per entry, NV register units per lane (float4 or float), U entries
// per group and warp step.

// Registers a lane may spend on B loads of one step. ptxas hoists every load of a step to its
// top (most bytes in flight); U bounds that so a configuration fits 128 registers
// (__launch_bounds__(256, 2)) without spilling. 64 registers = 16 float4 in flight per lane, with
// 16 warps per SM about 128 KB in flight per SM: far above what L2 latency x bandwidth needs.
constexpr int kInflightRegs = 64;

constexpr int ilog2(int x) { return x <= 1 ? 0 : 1 + ilog2(x / 2); }

constexpr int default_entries_per_group(int g, int nv, bool vec) {
  // Scalar configurations need more registers per loaded float (more A units, more predicates),
  // so they get half the budget.
  const int u = vec ? kInflightRegs / (4 * nv) : kInflightRegs / 2 / nv;
  return u < 1 ? 1 : (u > g ? g : u);
}

template <int G_, int NV_, bool kVec_, int U_ = default_entries_per_group(G_, NV_, kVec_)>
struct WalkConfig {
  static constexpr int G = G_;
  static constexpr int NV = NV_;
  static constexpr bool kVec = kVec_;
  static constexpr int U = U_;
  static constexpr int kChunk = kVec ? G * NV * 4 : G * NV;  // K elements one configuration holds
  static constexpr int kStep = 32 / G * U;                   // entries per warp step
  static_assert(G == 1 || G == 2 || G == 4 || G == 8 || G == 16 || G == 32,
                "a group is a power-of-two slice of one warp");
  static_assert(NV >= 1 && NV <= 16, "per-lane registers for A: 1..16 units");
  static_assert(U >= 1 && U <= G && (U & (U - 1)) == 0, "entries per group: a power of two, at most G");
};

// Calls f(WalkConfig<...>{}) with the smallest configuration whose chunk holds `kc` elements.
// G grows with K so that each lane keeps at most 32 floats of A (register budget), and stays >= 8
// from K = 32 up so that a group reads whole 128-byte lines of a B row.
template <class F>
void dispatch_walk(int kc, bool vec, F&& f) {
  if (vec) {
    if (kc <= 4) return f(WalkConfig<1, 1, true>{});
    if (kc <= 8) return f(WalkConfig<2, 1, true>{});
    if (kc <= 16) return f(WalkConfig<4, 1, true>{});
    if (kc <= 32) return f(WalkConfig<8, 1, true>{});
    if (kc <= 64) return f(WalkConfig<8, 2, true>{});
    if (kc <= 128) return f(WalkConfig<8, 4, true>{});
    if (kc <= 256) return f(WalkConfig<8, 8, true>{});
    if (kc <= 512) return f(WalkConfig<16, 8, true>{});
    FK_CHECK(kc <= kMaxChunkVec, "internal: K chunk " << kc << " too wide");
    return f(WalkConfig<32, 8, true>{});
  }
  if (kc <= 4) return f(WalkConfig<1, 4, false>{});
  if (kc <= 8) return f(WalkConfig<2, 4, false>{});
  if (kc <= 16) return f(WalkConfig<4, 4, false>{});
  if (kc <= 32) return f(WalkConfig<8, 4, false>{});
  if (kc <= 64) return f(WalkConfig<8, 8, false>{});
  if (kc <= 128) return f(WalkConfig<16, 8, false>{});
  FK_CHECK(kc <= kMaxChunkScalar, "internal: K chunk " << kc << " too wide");
  return f(WalkConfig<32, 8, false>{});
}

// Same, restricted to chunks of at most 128 elements (the shared-memory variants stage B in
// 128-wide chunks, so they never need the wider configurations).
template <class F>
void dispatch_walk_narrow(int kc, bool vec, F&& f) {
  FK_CHECK(kc >= 1 && kc <= 128, "internal: narrow K chunk " << kc);
  if (vec) {
    if (kc <= 4) return f(WalkConfig<1, 1, true>{});
    if (kc <= 8) return f(WalkConfig<2, 1, true>{});
    if (kc <= 16) return f(WalkConfig<4, 1, true>{});
    if (kc <= 32) return f(WalkConfig<8, 1, true>{});
    if (kc <= 64) return f(WalkConfig<8, 2, true>{});
    return f(WalkConfig<8, 4, true>{});
  }
  if (kc <= 4) return f(WalkConfig<1, 4, false>{});
  if (kc <= 8) return f(WalkConfig<2, 4, false>{});
  if (kc <= 16) return f(WalkConfig<4, 4, false>{});
  if (kc <= 32) return f(WalkConfig<8, 4, false>{});
  if (kc <= 64) return f(WalkConfig<8, 8, false>{});
  return f(WalkConfig<16, 8, false>{});
}

// ---------------------------------------------------------------------------------------------
// Device helpers

// The row containing entry e: the largest r in [lo, hi) with rp[r] <= e. Requires rp[lo] <= e <
// rp[hi]. Gallops forward from lo (the answer is usually lo or lo + 1 when walking a row), then
// bisects, so a run of empty rows costs O(log gap) loads, not O(gap).
__device__ __forceinline__ std::int64_t find_row_from(const std::int64_t* __restrict__ rp, std::int64_t lo,
                                                      std::int64_t e, std::int64_t hi) {
  if (lo + 1 >= hi || rp[lo + 1] > e) return lo;
  lo += 1;  // rp[lo] <= e
  std::int64_t step = 1, probe = lo + 1;
  while (probe < hi && rp[probe] <= e) {
    lo = probe;
    step *= 2;
    probe = lo + step;
  }
  std::int64_t top = probe < hi ? probe : hi;  // rp[top] > e
  while (top - lo > 1) {
    const std::int64_t mid = lo + (top - lo) / 2;
    if (rp[mid] <= e) lo = mid;
    else top = mid;
  }
  return lo;
}

// Plain bisection over all rows: the row of entry e, given rp[0] <= e < rp[rows].
__device__ inline std::int64_t find_row(const std::int64_t* __restrict__ rp, std::int64_t rows, std::int64_t e) {
  std::int64_t lo = 0, hi = rows;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (rp[mid] <= e) lo = mid;
    else hi = mid;
  }
  return lo;
}

// v[u] holds this lane's partial sum of entry u of its group (u < U). Afterwards every lane r of the
// group returns the group-wide sum of entry r / (G / U). The first log2(U) stages transpose while
// they reduce: stage h exchanges half of the remaining values with lane r ^ h, each lane keeping
// the half whose index bit matches its lane bit h (U - 1 shuffles in all, instead of U log2 G);
// the remaining log2(G / U) stages are a plain butterfly.
template <int G, int U>
__device__ __forceinline__ float group_reduce(float (&v)[U], int r, unsigned mask) {
  constexpr int kTransposeStages = ilog2(U);
#pragma unroll
  for (int stage = 0; stage < kTransposeStages; ++stage) {
    const int h = G >> (stage + 1);  // lane offset
    const int n = U >> (stage + 1);  // values kept
    const bool upper = (r & h) != 0;
#pragma unroll
    for (int i = 0; i < n; ++i) {
      const float send = upper ? v[i] : v[i + n];
      const float keep = upper ? v[i + n] : v[i];
      v[i] = keep + __shfl_xor_sync(mask, send, h);
    }
  }
#pragma unroll
  for (int h = G / U / 2; h >= 1; h /= 2) v[0] += __shfl_xor_sync(mask, v[0], h);
  return v[0];
}

// Read-once data (indices, scale factors) bypasses L1 so that L1 keeps B rows; single-pass
// outputs are streamed past the caches. Plain accesses where PTX is not available (host builds of
// this header).
__device__ __forceinline__ std::int32_t load_stream(const std::int32_t* p) {
#if defined(__CUDA_ARCH__)
  std::int32_t v;
  asm("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}
__device__ __forceinline__ std::uint32_t load_stream(const std::uint32_t* p) {
#if defined(__CUDA_ARCH__)
  std::uint32_t v;
  asm("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}
__device__ __forceinline__ std::int64_t load_stream(const std::int64_t* p) {
#if defined(__CUDA_ARCH__)
  std::int64_t v;
  asm("ld.global.nc.L1::no_allocate.b64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}
__device__ __forceinline__ float load_stream(const float* p) {
#if defined(__CUDA_ARCH__)
  float v;
  asm("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}
__device__ __forceinline__ void store_stream(float* p, float v) {
#if defined(__CUDA_ARCH__)
  // No "memory" clobber: nothing in a kernel reads an output it streamed (K slices are separate
  // launches), and later loads may be scheduled above the store.
  asm volatile("st.global.cs.f32 [%0], %1;" ::"l"(p), "f"(v));
#else
  *p = v;
#endif
}

// How a chunk's partial result combines with what is already in the output.
enum class ChunkMode : int { kOnly, kFirst, kMiddle, kLast };

__host__ __device__ inline ChunkMode chunk_mode(int k0, int kc, int k) {
  const bool first = k0 == 0, last = k0 + kc >= k;
  return first && last ? ChunkMode::kOnly : first ? ChunkMode::kFirst : last ? ChunkMode::kLast : ChunkMode::kMiddle;
}

// Outputs. Everything an output needs besides the dot product (scale factor, earlier slices'
// partial sum, permutation) is fetched by prefetch() at the start of a warp step, so that its
// latency overlaps the step's B loads instead of stalling the warp between steps; put() then only
// computes and stores.
struct OutDirectPre {
  float scale = 1.f;  // s_vals[e], or 1
  float old = 0.f;    // out[e] from earlier slices
};
// Output in S's order (out[e], scale[e]).
struct OutDirect {
  float* __restrict__ out;
  const float* __restrict__ scale;  // nullptr: unscaled
  using Pre = OutDirectPre;
  __device__ __forceinline__ Pre prefetch(std::int64_t e, ChunkMode mode) const {
    Pre p;
    if (scale && (mode == ChunkMode::kOnly || mode == ChunkMode::kLast)) p.scale = load_stream(scale + e);
    if (mode == ChunkMode::kMiddle || mode == ChunkMode::kLast) p.old = out[e];
    return p;
  }
  __device__ __forceinline__ void put(std::int64_t e, float v, ChunkMode mode, const Pre& p) const {
    switch (mode) {
      case ChunkMode::kOnly: store_stream(out + e, v * p.scale); break;
      case ChunkMode::kFirst: out[e] = v; break;
      case ChunkMode::kMiddle: out[e] = p.old + v; break;
      case ChunkMode::kLast: out[e] = (p.old + v) * p.scale; break;
    }
  }
};

struct OutPermutedPre {
  std::int64_t j = 0;  // S's entry
  float scale = 1.f;
};
// Output through a permutation (reordered entries): entry e of the walk is S's entry perm[e].
// With `accumulate` the scaled partial is added atomically (the output was zeroed before).
struct OutPermuted {
  float* __restrict__ out;
  const float* __restrict__ scale;
  const std::int64_t* __restrict__ perm;
  bool accumulate;
  using Pre = OutPermutedPre;
  __device__ __forceinline__ Pre prefetch(std::int64_t e, ChunkMode) const {
    Pre p;
    p.j = load_stream(perm + e);
    if (scale) p.scale = load_stream(scale + p.j);
    return p;
  }
  __device__ __forceinline__ void put(std::int64_t, float v, ChunkMode, const Pre& p) const {
    if (accumulate) atomicAdd(out + p.j, v * p.scale);
    else store_stream(out + p.j, v * p.scale);
  }
};

// Per-entry metadata: `code` says where B's row comes from (a column of B or a shared-memory slot,
// depending on the source), `key` the row for keyed walks.
struct MetaCodes {  // CSR walks: code = codes[e]
  const std::int32_t* __restrict__ codes;
  __device__ __forceinline__ void load(std::int64_t e, int& code, int& key) const {
    code = load_stream(codes + e);
    key = 0;
  }
};
struct MetaCoo {  // keyed walk over COO: key = row[e], code = col[e]
  const std::int32_t* __restrict__ rows;
  const std::int32_t* __restrict__ cols;
  __device__ __forceinline__ void load(std::int64_t e, int& code, int& key) const {
    code = load_stream(cols + e);
    key = load_stream(rows + e);
  }
};
struct MetaPacked {  // keyed walk over tiles: word = local row << 16 | local column
  const std::uint32_t* __restrict__ words;
  __device__ __forceinline__ void load(std::int64_t e, int& code, int& key) const {
    const std::uint32_t w = load_stream(words + e);
    code = static_cast<int>(w & 0xffffu);
    key = static_cast<int>(w >> 16);
  }
};

// Sources of B rows. ptr(code) is the start of the current K chunk of that row.
struct SrcGlobal {  // B in global memory (read-only path)
  const float* __restrict__ b;
  int ldb;  // = K
  int k0;
  __device__ __forceinline__ const float* ptr(int code) const {
    return b + static_cast<std::int64_t>(code) * ldb + k0;
  }
  __device__ __forceinline__ float4 load4(const float* p) const { return __ldg(reinterpret_cast<const float4*>(p)); }
  __device__ __forceinline__ float load1(const float* p) const { return __ldg(p); }
};
struct SrcShared {  // rows staged in shared memory, `stride` floats apart
  const float* smem;
  int stride;
  __device__ __forceinline__ const float* ptr(int code) const { return smem + code * stride; }
  __device__ __forceinline__ float4 load4(const float* p) const { return *reinterpret_cast<const float4*>(p); }
  __device__ __forceinline__ float load1(const float* p) const { return *p; }
};
// ASpT: code >= 0 is a column read from global memory, code < 0 the shared-memory slot ~code. One
// generic load serves both, so heavy and light entries of a warp step follow one instruction stream
// (no divergence, no reordering of S).
struct SrcHybrid {
  const float* __restrict__ b;
  int ldb;
  int k0;
  const float* smem;
  int stride;
  __device__ __forceinline__ const float* ptr(int code) const {
    return code >= 0 ? b + static_cast<std::int64_t>(code) * ldb + k0 : smem + (~code) * stride;
  }
  __device__ __forceinline__ float4 load4(const float* p) const { return *reinterpret_cast<const float4*>(p); }
  __device__ __forceinline__ float load1(const float* p) const { return *p; }
};

// ---------------------------------------------------------------------------------------------
// The warp walker (see the top of this file).

template <class Cfg, class Src>
struct GroupWalker {
  static constexpr int G = Cfg::G;
  static constexpr int NV = Cfg::NV;
  static constexpr bool kVec = Cfg::kVec;
  static constexpr int U = Cfg::U;
  using Unit = std::conditional_t<kVec, float4, float>;

  Unit a[NV];        // this lane's slice of A's current row (current K chunk)
  int lane, g, r;    // lane in warp, group, lane in group
  unsigned gmask;    // the group's lanes
  const float* __restrict__ amat;
  int lda;           // = K
  int k0 = 0, kc = 0;
  int cur_key = -1;  // keyed walks: row key whose A slice is loaded (-1: none)
  Src src;

  __device__ GroupWalker(const float* a_mat, int k, const Src& source) : amat(a_mat), lda(k), src(source) {
    lane = threadIdx.x & 31;
    g = lane / G;
    r = lane % G;
    gmask = G == 32 ? kFullMask : ((1u << G) - 1u) << (g * G);
#pragma unroll
    for (int t = 0; t < NV; ++t) a[t] = zero();
  }

  static __device__ __forceinline__ Unit zero() {
    if constexpr (kVec) return make_float4(0.f, 0.f, 0.f, 0.f);
    else return 0.f;
  }

  // Selects the K chunk [k0, k0 + kc); A slices loaded before are stale afterwards.
  __device__ __forceinline__ void set_chunk(int chunk_k0, int chunk_kc) {
    k0 = chunk_k0;
    kc = chunk_kc;
    cur_key = -1;
  }

  __device__ __forceinline__ void load_a(std::int64_t row) {
    const float* p = amat + row * lda + k0;
#pragma unroll
    for (int t = 0; t < NV; ++t) {
      if constexpr (kVec) {
        const int idx = 4 * (r + G * t);
        a[t] = idx < kc ? __ldg(reinterpret_cast<const float4*>(p + idx)) : zero();
      } else {
        const int idx = r + G * t;
        a[t] = idx < kc ? __ldg(p + idx) : 0.f;
      }
    }
  }

  // This lane's part of dot(A row, B row at p).
  __device__ __forceinline__ float dot(const float* p) const {
    float s = 0.f;
#pragma unroll
    for (int t = 0; t < NV; ++t) {
      if constexpr (kVec) {
        const int idx = 4 * (r + G * t);
        if (idx < kc) {
          const float4 b = src.load4(p + idx);
          s = fmaf(a[t].x, b.x, s);
          s = fmaf(a[t].y, b.y, s);
          s = fmaf(a[t].z, b.z, s);
          s = fmaf(a[t].w, b.w, s);
        }
      } else {
        const int idx = r + G * t;
        if (idx < kc) s = fmaf(a[t], src.load1(p + idx), s);
      }
    }
    return s;
  }

  // Lane roles within a warp step that starts at entry `base`: lane r < U of group g loads the
  // metadata of entry base + gU + r (the group's own entries, so shuffles stay inside the group);
  // after the reduction lane r writes entry base + gU + r / (G / U) when r % (G / U) == 0.
  __device__ __forceinline__ std::int64_t meta_entry(std::int64_t base) const { return base + g * U + r; }
  __device__ __forceinline__ bool meta_lane() const { return r < U; }
  __device__ __forceinline__ std::int64_t out_entry(std::int64_t base) const { return base + g * U + r / (G / U); }
  __device__ __forceinline__ bool out_lane() const { return r % (G / U) == 0; }

  // Entries [t0, t1) of a CSR pattern, in order. start_row is the row of entry t0; rows are found
  // by walking rp (never beyond row_hi, with rp[row_hi] >= t1).
  template <class Meta, class Out>
  __device__ void walk_csr(const std::int64_t* __restrict__ rp, std::int64_t start_row, std::int64_t row_hi,
                           std::int64_t t0, std::int64_t t1, const Meta& meta, const Out& out, ChunkMode mode) {
    std::int64_t row = start_row;
    // No A slice yet: row_end = t0 (<= any entry walked) sends the first entry down the slow path,
    // whose search starts at start_row (rp[start_row] <= t0), one dependent load less than
    // reading rp[start_row] here.
    std::int64_t row_end = t0;
    // Software pipelining: the next step's metadata is loaded while this step's B rows are.
    int next_code = 0, next_key = 0;
    if (meta_lane() && meta_entry(t0) < t1) meta.load(meta_entry(t0), next_code, next_key);
    for (std::int64_t base = t0; base < t1; base += Cfg::kStep) {
      const int my_code = next_code;
      const std::int64_t ne = meta_entry(base + Cfg::kStep);
      if (meta_lane() && ne < t1) meta.load(ne, next_code, next_key);
      const std::int64_t oe = out_entry(base);
      const bool writer = out_lane() && oe < t1;
      typename Out::Pre pre;
      if (writer) pre = out.prefetch(oe, mode);
      const std::int64_t blk = base + g * U;
      const std::int64_t blk_last = (blk + U < t1 ? blk + U : t1) - 1;
      float acc[U];
      if (blk > blk_last || blk_last < row_end) {
        // Whole block inside the row whose A slice is loaded (or nothing valid): no row checks.
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int code = __shfl_sync(gmask, my_code, g * G + u);
          acc[u] = dot(src.ptr(code));
        }
      } else {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int code = __shfl_sync(gmask, my_code, g * G + u);
          const std::int64_t e = blk + u;
          acc[u] = 0.f;
          if (e < t1) {  // uniform within the group
            if (e >= row_end) {
              row = find_row_from(rp, row, e, row_hi);
              row_end = rp[row + 1];
              load_a(row);
            }
            acc[u] = dot(src.ptr(code));
          }
        }
      }
      const float v = group_reduce<G, U>(acc, r, gmask);
      if (writer) out.put(oe, v, mode, pre);
    }
  }

  // Entries [t0, t1) whose rows come from per-entry keys: row = row0 + key. The A slice is kept
  // while consecutive entries share a key (cur_key survives between calls until set_chunk).
  template <class Meta, class Out>
  __device__ void walk_keyed(std::int64_t row0, std::int64_t t0, std::int64_t t1, const Meta& meta,
                             const Out& out, ChunkMode mode) {
    int next_code = 0, next_key = 0;
    bool next_valid = meta_lane() && meta_entry(t0) < t1;
    if (next_valid) meta.load(meta_entry(t0), next_code, next_key);
    for (std::int64_t base = t0; base < t1; base += Cfg::kStep) {
      const int my_code = next_code, my_key = next_key;
      const bool my_valid = next_valid;
      const std::int64_t ne = meta_entry(base + Cfg::kStep);
      next_valid = meta_lane() && ne < t1;
      if (next_valid) meta.load(ne, next_code, next_key);
      const std::int64_t oe = out_entry(base);
      const bool writer = out_lane() && oe < t1;
      typename Out::Pre pre;
      if (writer) pre = out.prefetch(oe, mode);
      const std::int64_t blk = base + g * U;
      float acc[U];
      if (__all_sync(gmask, !my_valid || my_key == cur_key)) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int code = __shfl_sync(gmask, my_code, g * G + u);
          acc[u] = dot(src.ptr(code));
        }
      } else {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int code = __shfl_sync(gmask, my_code, g * G + u);
          const int key = __shfl_sync(gmask, my_key, g * G + u);
          acc[u] = 0.f;
          if (blk + u < t1) {  // uniform within the group
            if (key != cur_key) {
              cur_key = key;
              load_a(row0 + key);
            }
            acc[u] = dot(src.ptr(code));
          }
        }
      }
      const float v = group_reduce<G, U>(acc, r, gmask);
      if (writer) out.put(oe, v, mode, pre);
    }
  }
};

// Dynamic shared memory of the calling block, as T (one declaration for every kernel of the SDDMM
// variants, aligned for float4).
template <class T>
__device__ __forceinline__ T* dynamic_smem() {
  extern __shared__ float4 fk_sddmm_smem[];
  return reinterpret_cast<T*>(fk_sddmm_smem);
}

// Block-wide copy of n rows of B, chunk [k0, k0 + kc), into shared memory rows `stride` floats
// apart: shared row i <- B row row_of(i). Flat index over (row, vector) so that every thread has
// work even when a chunk is narrower than a warp's worth of float4s.
template <bool kVec, class RowOf>
__device__ __forceinline__ void stage_rows(float* smem, int stride, const float* __restrict__ b, int ldb, int k0,
                                           int kc, int n, RowOf row_of) {
  const int q = kVec ? kc / 4 : kc;  // units per row
  const int total = n * q;
  for (int i = threadIdx.x; i < total; i += blockDim.x) {
    const int lr = i / q;
    const int c = i - lr * q;
    const float* src = b + static_cast<std::int64_t>(row_of(lr)) * ldb + k0;
    if constexpr (kVec) {
      reinterpret_cast<float4*>(smem + lr * stride)[c] = __ldg(reinterpret_cast<const float4*>(src) + c);
    } else {
      smem[lr * stride + c] = __ldg(src + c);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Small kernels shared by several plans (implemented in sddmm_common.cu)

// rows[j] = row of entry j (COO expansion of CSR), for j < nnz. rows: device, nnz int32.
void expand_rows(const Context& ctx, const CsrView& s, std::int32_t* rows);
// out[j] *= scale[j] for j < n (device pointers).
void scale_values(const Context& ctx, const float* scale, std::int64_t n, float* out);

}  // namespace fk::sddmm_cuda
