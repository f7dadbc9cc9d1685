// cuda.spmm.tc_v{1,2,4,8}: tensor-core SpMM on the column-vector encoding, fp16/bf16 operands,
// fp32 accumulation (Chen et al., SC'21, octet tiling redone for mma.sync.m16n8k16).
//
// A warp computes one block row (V rows of C) over a tile of 64 columns of K. Per step it takes
// 16 vectors of the block row and computes, with the operands switched so the V <= 8 sparse rows
// sit in the mma's n = 8 dimension,
//     C_tileᵀ (64 x 8) += B_selᵀ (64 x 16 vectors) · S_stepᵀ (16 vectors x 8 rows)
// as four m16n8k16 tiles. Lane (g, q) = (lane / 4, lane % 4) gathers, with one 128-bit load each,
// columns 8g .. 8g+7 of the B rows of vectors 2q, 2q+1, 2q+8 and 2q+9 — exactly the vectors its
// A fragments need — and byte permutes pair them up. The mma's M dimension is permuted so that
// tile t's rows g and g + 8 are K columns 8g + 2t and 8g + 2t + 1: then each lane's accumulators
// hold C columns 8g .. 8g+7 of rows 2q and 2q + 1, stored as two float4 pairs. No shared memory,
// no shuffles: the only traffic is the B gather every SpMM pays (from L2), two 16-bit values per
// lane per step, and C once.
//
// A warp per (block row, K tile) alone leaves the GPU mostly idle when there are few block rows
// (4096 rows at V = 8 and K = 64 are 512 warps, 4 per SM of an H200, and K = 64 ran no faster than
// K = 128), so long block rows are split: `split` warps of one thread block take every split-th
// step of the same block row and add their partial tiles through shared memory, in a fixed order
// (the result does not depend on scheduling).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"
#include "kernels/cuda/tc_common.cuh"

namespace fk {
namespace tc {
namespace {

constexpr int kTileK = 64;  // K columns of one warp: 8 lane groups x 8 columns

__device__ __forceinline__ std::uint32_t word(const uint4& x, int t) {
  return t == 0 ? x.x : t == 1 ? x.y : t == 2 ? x.z : x.w;
}

// A step's operands for lane (g, q) come in two stages, because the B rows' addresses depend on
// the column indices: the columns of its four vectors (2q, 2q+1, 2q+8, 2q+9 of the step; -1 past
// the block row's end) are loaded two steps ahead, the B rows and the value pairs one step ahead,
// so neither L2 round trip of a step waits on the other.
__device__ __forceinline__ void load_columns(const VectorCsrDeviceView& s, int q, std::int64_t j0, std::int64_t end,
                                             int (&col)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const std::int64_t j = j0 + 2 * q + (i & 1) + (i >> 1) * 8;
    col[i] = j < end ? __ldg(s.col_idx + j) : -1;
  }
}

// The mma's B fragment of a step: S's values of vectors 2q, 2q+1 (sv[0]) and 2q+8, 2q+9 (sv[1]) in
// row g of the block row, zero past its end or below V.
template <int V>
__device__ __forceinline__ void load_values(const VectorCsrDeviceView& s, int g, int q, std::int64_t j0,
                                            std::int64_t end, std::uint32_t (&sv)[2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::int64_t j = j0 + 2 * q + 8 * h;
    const std::uint32_t lo = (g < V && j < end) ? __ldg(s.vals + j * V + g) : 0u;
    const std::uint32_t hi = (g < V && j + 1 < end) ? __ldg(s.vals + (j + 1) * V + g) : 0u;
    sv[h] = lo | (hi << 16);
  }
}

template <int V, bool kVec8>
__device__ __forceinline__ void load_operands(const VectorCsrDeviceView& s, const HalfBits* __restrict__ b, int k,
                                              int kc, int g, int q, std::int64_t j0, std::int64_t end,
                                              const int (&col)[4], uint4 (&x)[4], std::uint32_t (&sv)[2]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) x[i] = load8<kVec8>(col[i] >= 0 ? b + std::int64_t(col[i]) * k : nullptr, kc, k);
  load_values<V>(s, g, q, j0, end, sv);
}

// Four mma tiles of one step: x holds the lane's 8 columns of its four vectors' B rows.
template <class T>
__device__ __forceinline__ void step_mma(float (&acc)[4][4], const uint4 (&x)[4], const std::uint32_t (&sv)[2]) {
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const std::uint32_t a[4] = {pack_low(word(x[0], t), word(x[1], t)), pack_high(word(x[0], t), word(x[1], t)),
                                pack_low(word(x[2], t), word(x[3], t)), pack_high(word(x[2], t), word(x[3], t))};
    mma_16816<T>(acc[t], a, sv);
  }
}

// ---- the asynchronous-copy path (K % 8 == 0, aligned operands) -----------------------------------
//
// Each warp owns a ring of kStages step buffers in shared memory (16 vectors x 64 columns, 2 KiB)
// and keeps kStages - 1 steps of B gathers in flight with cp.async, which land in shared memory
// without holding registers: the register path above has one step (2 KiB per warp) in flight, and
// with about 16 warps per SM that left the gathers latency-bound at about 17 B/clock per SM, well
// under what L2 delivers. A lane copies exactly the four 16-byte pieces it later reads (columns
// 8g..8g+7 of vectors 2q, 2q+1, 2q+8, 2q+9), so the ring needs no barrier, only cp.async.wait_group;
// piece g of vector slot v sits at position g ^ (v % 8) of the slot's 128 bytes, which makes every
// quarter-warp's 8 reads (and copies) hit 8 different bank groups.
constexpr int kStages = 4;
constexpr int kStepBytes = kVectorsPerStep * kTileK * 2;  // one ring buffer

__device__ __forceinline__ void cp_async16(std::uint32_t dst, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
#else
  (void)dst, (void)src, (void)valid;
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;");
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

// Byte offset of piece g of vector slot v in a ring buffer.
__device__ __forceinline__ std::uint32_t piece_offset(int v, int g) { return v * 128 + ((g ^ (v & 7)) * 16); }

// Queues the copies of one step (its columns in col, -1 for none) into ring buffer `buf`.
__device__ __forceinline__ void issue_step(std::uint32_t buf, const HalfBits* __restrict__ b, int k, int kc, int g,
                                           int q, const int (&col)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int v = 2 * q + (i & 1) + (i >> 1) * 8;
    const bool valid = col[i] >= 0 && kc < k;
    cp_async16(buf + piece_offset(v, g), valid ? b + std::int64_t(col[i]) * k + kc : b, valid);
  }
}

__device__ __forceinline__ void read_step(std::uint32_t buf, int g, int q, uint4 (&x)[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int v = 2 * q + (i & 1) + (i >> 1) * 8;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(x[i].x), "=r"(x[i].y), "=r"(x[i].z), "=r"(x[i].w)
                 : "r"(buf + piece_offset(v, g)));
  }
}

// A thread block of W warps takes W / split block rows over one 64-column tile of K (`split`
// warps per block row). Consecutive thread blocks take consecutive panels of block rows on the
// same tile, which measured a few percent faster than giving one block row's tiles to one block.
struct Task {
  std::int64_t br;  // block row
  int kc;           // this lane's first column of K
  int part;         // which of the block row's `split` warps this is
};
template <int W>
__device__ __forceinline__ Task task_of(std::int64_t bt, std::int64_t panels, int split) {
  const int warp = threadIdx.x / kWarpSize, g = threadIdx.x % kWarpSize / 4;
  return {bt % panels * (W / split) + warp / split, int(bt / panels) * kTileK + 8 * g, warp % split};
}

// The end of a task: part 0 adds the other parts' tiles in part order (so the result does not
// depend on scheduling; `partial` holds W * 16 * 32 floats) and stores V rows x 8 columns.
template <int V, bool kVec8, int W>
__device__ __forceinline__ void finish(float (&acc)[4][4], const Task& t, bool active, int split, int k,
                                       std::int64_t rows, float* partial, float* __restrict__ c) {
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize, q = lane % 4;
  if (split > 1) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int e = 0; e < 4; ++e) partial[((warp * 4 + i) * 4 + e) * kWarpSize + lane] = acc[i][e];
    __syncthreads();
    if (t.part == 0)
      for (int p = 1; p < split; ++p)
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][e] += partial[(((warp + p) * 4 + i) * 4 + e) * kWarpSize + lane];
    __syncthreads();  // the next task overwrites `partial`
  }
  if (!active || t.part != 0) return;
  // acc[i] = {C[2q][kc+2i], C[2q+1][kc+2i], C[2q][kc+2i+1], C[2q+1][kc+2i+1]}.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = 2 * q + h;
    const std::int64_t row = t.br * V + r;
    if (r >= V || row >= rows) continue;
    float out[8];
#pragma unroll
    for (int i = 0; i < 4; ++i) out[2 * i] = acc[i][h], out[2 * i + 1] = acc[i][2 + h];
    float* crow = c + row * k;
    if constexpr (kVec8) {
      if (t.kc < k) {
        *reinterpret_cast<float4*>(crow + t.kc) = make_float4(out[0], out[1], out[2], out[3]);
        *reinterpret_cast<float4*>(crow + t.kc + 4) = make_float4(out[4], out[5], out[6], out[7]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i)
        if (t.kc + i < k) crow[t.kc + i] = out[i];
    }
  }
}

// The register path: any K and alignment; one step's gathers in flight per warp.
template <class T, int V, bool kVec8, int W>
__global__ void __launch_bounds__(W * kWarpSize)
    spmm_kernel(VectorCsrDeviceView s, const HalfBits* __restrict__ b, int k, int ktiles, int split,
                float* __restrict__ c) {
  extern __shared__ float partial[];  // W x 4 x 4 x 32 when split > 1, lane-minor: conflict-free
  const int lane = threadIdx.x % kWarpSize, g = lane / 4, q = lane % 4;
  const std::int64_t panels = (s.block_rows + W / split - 1) / (W / split);
  // Every warp of a block runs the same iterations (the partial sums need __syncthreads).
  for (std::int64_t bt = blockIdx.x; bt < panels * ktiles; bt += gridDim.x) {
    const Task t = task_of<W>(bt, panels, split);
    const bool active = t.br < s.block_rows;
    float acc[4][4] = {};
    if (active) {
      const std::int64_t end = s.block_ptr[t.br + 1];
      const std::int64_t stride = std::int64_t(kVectorsPerStep) * split;
      uint4 x[4];
      std::uint32_t sv[2];
      int col[4], col_next[4];
      std::int64_t j0 = s.block_ptr[t.br] + std::int64_t(kVectorsPerStep) * t.part;
      load_columns(s, q, j0, end, col);
      load_columns(s, q, j0 + stride, end, col_next);
      if (j0 < end) load_operands<V, kVec8>(s, b, k, t.kc, g, q, j0, end, col, x, sv);
      for (; j0 < end; j0 += stride) {
        // Next step's gathers and the columns of the one after go out before this step's mma.
        uint4 xn[4] = {};
        std::uint32_t svn[2] = {};
        if (j0 + stride < end) {
          load_operands<V, kVec8>(s, b, k, t.kc, g, q, j0 + stride, end, col_next, xn, svn);
          load_columns(s, q, j0 + 2 * stride, end, col_next);
        }
        step_mma<T>(acc, x, sv);
#pragma unroll
        for (int i = 0; i < 4; ++i) x[i] = xn[i];
        sv[0] = svn[0], sv[1] = svn[1];
      }
    }
    finish<V, kVec8, W>(acc, t, active, split, k, s.rows, partial, c);
  }
}

// The asynchronous-copy path (see above): K % 8 == 0 and 16-byte aligned B and C.
template <class T, int V, int W>
__global__ void __launch_bounds__(W * kWarpSize)
    spmm_async_kernel(VectorCsrDeviceView s, const HalfBits* __restrict__ b, int k, int ktiles, int split,
                      float* __restrict__ c) {
  extern __shared__ __align__(16) unsigned char ring[];  // W x kStages x kStepBytes; reused for `partial`
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize, g = lane / 4, q = lane % 4;
  const std::uint32_t base =
      static_cast<std::uint32_t>(__cvta_generic_to_shared(ring)) + warp * (kStages * kStepBytes);
  const std::int64_t panels = (s.block_rows + W / split - 1) / (W / split);
  for (std::int64_t bt = blockIdx.x; bt < panels * ktiles; bt += gridDim.x) {
    const Task t = task_of<W>(bt, panels, split);
    const bool active = t.br < s.block_rows;
    float acc[4][4] = {};
    if (active) {
      const std::int64_t end = s.block_ptr[t.br + 1];
      const std::int64_t stride = std::int64_t(kVectorsPerStep) * split;
      const std::int64_t first = s.block_ptr[t.br] + std::int64_t(kVectorsPerStep) * t.part;
      const std::int64_t steps = first < end ? (end - first + stride - 1) / stride : 0;
      // Prologue: the columns of the first kStages steps (independent loads), then the copies of the
      // first kStages - 1, one commit group per step (empty past the end, so the counting stays
      // uniform).
      int cols[kStages][4];
      std::uint32_t sv[kStages][2];
#pragma unroll
      for (int p = 0; p < kStages; ++p) load_columns(s, q, first + p * stride, end, cols[p]);
#pragma unroll
      for (int p = 0; p < kStages - 1; ++p) {
        issue_step(base + p * kStepBytes, b, k, t.kc, g, q, cols[p]);
        cp_async_commit();
        load_values<V>(s, g, q, first + p * stride, end, sv[p]);
      }
      int col_next[4];  // of the step kStages - 1 ahead
#pragma unroll
      for (int i = 0; i < 4; ++i) col_next[i] = cols[kStages - 1][i];
      for (std::int64_t step = 0; step < steps; ++step) {
        // Queue step + kStages - 1 into the buffer step - 1 was read from, fetch its values and the
        // columns of the step after it, then wait for this step's copies.
        const std::int64_t ahead = step + kStages - 1;
        issue_step(base + int(ahead % kStages) * kStepBytes, b, k, t.kc, g, q, col_next);
        cp_async_commit();
        load_values<V>(s, g, q, first + ahead * stride, end, sv[kStages - 1]);
        load_columns(s, q, first + (ahead + 1) * stride, end, col_next);
        cp_async_wait<kStages - 1>();
        uint4 x[4];
        read_step(base + int(step % kStages) * kStepBytes, g, q, x);
        step_mma<T>(acc, x, sv[0]);
#pragma unroll
        for (int p = 0; p < kStages - 1; ++p) sv[p][0] = sv[p + 1][0], sv[p][1] = sv[p + 1][1];
      }
      cp_async_wait<0>();  // the trailing (empty or past-the-end) groups
    }
    if (split > 1) __syncthreads();  // `partial` overlaps other warps' rings
    finish<V, true, W>(acc, t, active, split, k, s.rows, reinterpret_cast<float*>(ring), c);
  }
}

// ---- the panel path: B staged in shared memory, reused across a panel's block rows -----------
//
// The gather paths read a 128-byte piece of B per stored vector and K tile from L2 and run at
// 4-5 TB/s of it, which is L2's bandwidth: more gathers in flight (the cp.async ring) did not
// help. Reuse is the only way down. A thread block takes a panel of kPanelWarps x kPanelRows block
// rows over one 64-column K tile and streams B's rows through shared memory in chunks of
// kChunkRows (dense, coalesced copies, kPanelStages-deep cp.async pipeline, one barrier per
// chunk); each warp then runs its precomputed steps over the chunk (VectorCsrDeviceView's panel
// schedule), reading the B rows of its vectors from shared memory. L2 traffic falls from
// 128 bytes per vector to 128 bytes per B row per panel. Piece g of chunk row i sits at position
// g ^ (i % 8) of the row's 128 bytes: the copies are conflict-free, the gathers (four rows of two
// pieces per quarter-warp) conflict only where rows collide modulo 8.
constexpr int kPanelStages = 3;
constexpr int kChunkBytes = kChunkRows * kTileK * 2;

__device__ __forceinline__ void copy_chunk(std::uint32_t dst, const HalfBits* __restrict__ b, std::int64_t n, int k,
                                           int k0, std::int64_t row0) {
  constexpr int kThreads = kPanelWarps * kWarpSize;
#pragma unroll
  for (int it = 0; it < kChunkRows * 8 / kThreads; ++it) {
    const int id = threadIdx.x + it * kThreads, i = id / 8, g = id % 8;
    const bool valid = row0 + i < n && k0 + 8 * g < k;
    cp_async16(dst + i * 128 + ((g ^ (i & 7)) * 16), valid ? b + (row0 + i) * k + k0 + 8 * g : b, valid);
  }
}

// Loads of one scheduled step: its columns (-1 for unused slots) and the B fragment's values.
template <int V>
__device__ __forceinline__ void load_scheduled(const VectorCsrDeviceView& s, std::uint64_t d, int g, int q,
                                               int (&col)[4], std::uint32_t (&sv)[2]) {
  const std::int64_t j0 = std::int64_t(d & ((std::uint64_t(1) << 40) - 1));
  const std::int64_t end = j0 + std::int64_t((d >> 40) & 31) + 1;
  load_columns(s, q, j0, end, col);
  load_values<V>(s, g, q, j0, end, sv);
}

template <class T, int V>
__global__ void __launch_bounds__(kPanelWarps * kWarpSize, 2)
    spmm_panel_kernel(VectorCsrDeviceView s, const HalfBits* __restrict__ b, int k, int ktiles, float* __restrict__ c) {
  extern __shared__ __align__(16) unsigned char staged[];  // kPanelStages chunks
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize, g = lane / 4, q = lane % 4;
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(staged));
  const std::int64_t chunks = s.chunks;
  for (std::int64_t bt = blockIdx.x; bt < s.panels * ktiles; bt += gridDim.x) {
    const std::int64_t panel = bt % s.panels;
    const int k0 = int(bt / s.panels) * kTileK;
    float acc[kPanelRows][4][4] = {};
#pragma unroll
    for (int p = 0; p < kPanelStages - 1; ++p) {
      if (p < chunks) copy_chunk(base + p * kChunkBytes, b, s.cols, k, k0, std::int64_t(p) * kChunkRows);
      cp_async_commit();
    }
    for (std::int64_t ch = 0; ch < chunks; ++ch) {
      cp_async_wait<kPanelStages - 2>();
      __syncthreads();  // chunk ch is in; every warp is done with chunk ch - 1, whose buffer is next
      const std::int64_t ahead = ch + kPanelStages - 1;
      if (ahead < chunks)
        copy_chunk(base + int(ahead % kPanelStages) * kChunkBytes, b, s.cols, k, k0, ahead * kChunkRows);
      cp_async_commit();
      const std::uint32_t buf = base + int(ch % kPanelStages) * kChunkBytes;
      const int row0 = int(ch * kChunkRows);
      const std::int64_t* range = s.panel_ptr + (panel * chunks + ch) * kPanelWarps + warp;
      const std::int64_t lo = range[0], hi = range[1];
      // Steps' descriptors two ahead, their columns and values one ahead, as in the gather path.
      std::uint64_t d = lo < hi ? s.panel_steps[lo] : 0, d_next = lo + 1 < hi ? s.panel_steps[lo + 1] : 0;
      int col[4];
      std::uint32_t sv[2];
      if (lo < hi) load_scheduled<V>(s, d, g, q, col, sv);
      for (std::int64_t i = lo; i < hi; ++i) {
        int col_n[4] = {-1, -1, -1, -1};
        std::uint32_t sv_n[2] = {0, 0};
        const std::uint64_t d_cur = d;
        if (i + 1 < hi) {
          load_scheduled<V>(s, d_next, g, q, col_n, sv_n);
          d = d_next;
          d_next = i + 2 < hi ? s.panel_steps[i + 2] : 0;
        }
        uint4 x[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          if (col[u] >= 0) {
            const int row = col[u] - row0;
            asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(x[u].x), "=r"(x[u].y), "=r"(x[u].z), "=r"(x[u].w)
                         : "r"(buf + row * 128 + ((g ^ (row & 7)) * 16)));
          } else {
            x[u] = make_uint4(0, 0, 0, 0);
          }
        }
        switch (int(d_cur >> 45) & 7) {  // the warp's block row: static indices keep acc in registers
          case 0: step_mma<T>(acc[0], x, sv); break;
          case 1: step_mma<T>(acc[1], x, sv); break;
          case 2: step_mma<T>(acc[2], x, sv); break;
          default: step_mma<T>(acc[3], x, sv); break;
        }
#pragma unroll
        for (int u = 0; u < 4; ++u) col[u] = col_n[u];
        sv[0] = sv_n[0], sv[1] = sv_n[1];
      }
    }
    cp_async_wait<0>();
    __syncthreads();  // the next task's copies overwrite the buffers
    const int kc = k0 + 8 * g;
#pragma unroll
    for (int r = 0; r < kPanelRows; ++r) {
      const std::int64_t br = panel * (kPanelWarps * kPanelRows) + warp * kPanelRows + r;
      if (br < s.block_rows) finish<V, true, kPanelWarps>(acc[r], Task{br, kc, 0}, true, 1, k, s.rows, nullptr, c);
    }
  }
}
static_assert(kPanelRows == 4, "spmm_panel_kernel's switch names four block rows per warp");

// Warps per block row: enough that the grid has about kWarpsPerSm warps per SM, but each part
// keeps at least kMinStepsPerPart of the mean block row's 16-vector steps.
constexpr int kWarpsPerSm = 32;
constexpr double kMinStepsPerPart = 2.0;
int choose_split(const Context& ctx, const VectorCsrDeviceView& s, std::int64_t tasks, int w) {
  const double steps = double(s.vectors) / double(std::max<std::int64_t>(s.block_rows, 1)) / kVectorsPerStep;
  const std::int64_t wanted = std::int64_t(ctx.gpu().props.multiProcessorCount) * kWarpsPerSm;
  int split = 1;
  while (split < w && tasks * split < wanted && steps / (2 * split) >= kMinStepsPerPart) split *= 2;
  return split;
}

constexpr int kWarps = 8;  // per thread block: a power of two, so a block row's split divides it

template <class T, int V>
void launch(const Context& ctx, const VectorCsrDeviceView& s, const HalfBits* b, int k, float* c) {
  const int ktiles = (k + kTileK - 1) / kTileK;
  const int split = choose_split(ctx, s, s.block_rows * ktiles, kWarps);
  const std::int64_t panels = (s.block_rows + kWarps / split - 1) / (kWarps / split);
  const auto grid = static_cast<unsigned>(std::min<std::int64_t>(std::max<std::int64_t>(panels * ktiles, 1), kMaxBlocks));
  const std::size_t partial_bytes = split > 1 ? sizeof(float) * kWarps * 16 * kWarpSize : 0;
  const char* env = std::getenv("FK_TC_SPMM");  // experiment switch: reg, async, panel
  const std::string mode = env ? env : "panel";
  if (vec8_ok(k, b, c) && mode == "panel" && s.panels > 0) {
    const std::size_t smem = std::size_t(kPanelStages) * kChunkBytes;
    FK_CUDA_CHECK(cudaFuncSetAttribute(spmm_panel_kernel<T, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem)));
    const auto pgrid = static_cast<unsigned>(std::min<std::int64_t>(s.panels * ktiles, kMaxBlocks));
    spmm_panel_kernel<T, V><<<pgrid, kPanelWarps * kWarpSize, smem, stream_of(ctx)>>>(s, b, k, ktiles, c);
  } else if (vec8_ok(k, b, c) && mode != "reg") {
    const std::size_t smem = std::size_t(kWarps) * kStages * kStepBytes;
    static_assert(sizeof(float) * kWarps * 16 * kWarpSize <= std::size_t(kWarps) * kStages * kStepBytes);
    FK_CUDA_CHECK(cudaFuncSetAttribute(spmm_async_kernel<T, V, kWarps>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem)));
    spmm_async_kernel<T, V, kWarps><<<grid, kWarps * kWarpSize, smem, stream_of(ctx)>>>(s, b, k, ktiles, split, c);
  } else if (vec8_ok(k, b, c)) {
    spmm_kernel<T, V, true, kWarps><<<grid, kWarps * kWarpSize, partial_bytes, stream_of(ctx)>>>(s, b, k, ktiles, split, c);
  } else {
    spmm_kernel<T, V, false, kWarps><<<grid, kWarps * kWarpSize, partial_bytes, stream_of(ctx)>>>(s, b, k, ktiles, split, c);
  }
  FK_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_v(const Context& ctx, const VectorCsrDeviceView& s, const HalfBits* b, int k, float* c) {
  switch (s.v) {
    case 1: return launch<T, 1>(ctx, s, b, k, c);
    case 2: return launch<T, 2>(ctx, s, b, k, c);
    case 4: return launch<T, 4>(ctx, s, b, k, c);
    case 8: return launch<T, 8>(ctx, s, b, k, c);
    default: FK_CHECK(false, "tensor-core SpMM: vector length " << s.v << " is not 1, 2, 4 or 8");
  }
}

}  // namespace

void spmm(const Context& ctx, Precision precision, const VectorCsrDeviceView& s, DenseView<const HalfBits> b,
          DenseView<float> c) {
  FK_CHECK(b.rows == s.cols && c.rows == s.rows && b.cols == c.cols,
           "tensor-core SpMM: S is " << s.rows << " x " << s.cols << ", B " << b.rows << " x " << b.cols << ", C "
                                     << c.rows << " x " << c.cols);
  FK_CHECK(b.cols >= 1 && b.cols <= INT32_MAX, "tensor-core SpMM: K = " << b.cols << " out of range");
  if (c.size() == 0) return;
  const int k = static_cast<int>(b.cols);
  if (precision == Precision::kF16)
    launch_v<F16>(ctx, s, b.data, k, c.data);
  else if (precision == Precision::kBF16)
    launch_v<BF16>(ctx, s, b.data, k, c.data);
  else
    FK_CHECK(false, "tensor-core SpMM takes fp16 or bf16 operands, not " << to_string(precision));
}

}  // namespace tc

namespace {

// The fp32 plan interface over tc::spmm: each run lays S's values out as the encoding's 16-bit
// values and rounds B, both on the device, then runs the kernel (C stays fp32).
class TcSpmmPlan : public SpmmPlan {
 public:
  TcSpmmPlan(const Context& ctx, const char* name, const CsrView& s, int k, int v, Precision precision)
      : name_(name), s_(s), k_(k), pattern_(ctx, s, v, precision), b_half_(s.cols * std::int64_t(k)) {}

  void run(const Context& ctx, const float* vals, DenseView<const float> b, DenseView<float> c) override {
    cuda_spmm::check_shapes(name_.c_str(), s_, k_, b, c);
    pattern_.load_values(ctx, cuda_spmm::resolve_values(name_.c_str(), s_, vals));
    tc::round_to_half(ctx, pattern_.precision(), b.data, b.size(), b_half_.data());
    tc::spmm(ctx, pattern_.precision(), pattern_.view(), {b_half_.data(), b.rows, b.cols}, c);
  }

 private:
  std::string name_;
  CsrView s_;
  int k_;
  tc::EncodedPattern pattern_;
  DeviceBuffer<HalfBits> b_half_;
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_tc(int v) {
  return std::make_unique<tc::TcVariant<SpmmVariant, SpmmPlan, TcSpmmPlan>>("spmm", v);
}

}  // namespace fk
