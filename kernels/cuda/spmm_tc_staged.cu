// The staged tensor-core SpMM: C = S·B on the column-vector encoding with a 16-column slice of B
// held in shared memory (fp16/bf16 operands, fp32 accumulation). Used by cuda.spmm.tc_v* where
// the slice fits (N + 1 rows of 32 bytes, rounded up to 256 rows, in a block's shared
// memory).
//
// Why: the gather kernel (spmm_tc_vector.cu) reads each stored vector's B row from L2 and uses it
// for only V rows of C; with random columns no register tile can reuse it more, so at V = 4 it
// moves 2 bytes of L2 traffic per 4 useful flops and runs at L2 speed (docs/benchmarks/
// tensor-core.md). Here one thread block per SM copies B[:, 16t .. 16t+15] (N rows of 32 bytes)
// into shared memory once and then computes a share of the block rows on that slice: B's bytes
// come from L2 once per SM instead of once per vector, and the gathers read shared memory, whose
// bandwidth per SM is what now bounds the kernel. The price: S's columns and values are read once
// per 16 columns of K instead of once per 64.
//
// Work: the blocks of one slice split its block rows into contiguous runs of about equal steps
// (16 vectors each, dealt on the host by kernels/tc_steps.hpp), one per warp, through a host-made
// table of parts, so a warp starts without searching. A warp streams its run's step data (staged
// row numbers in 16 bits, and values, laid out on the host in the order the lanes read them)
// through its own two-chunk cp.async ring in shared memory, 8 steps a chunk. Per step one
// ldmatrix.x4.trans gathers the 16 vectors' staged rows as the A operand and one 8-byte load per
// lane (g, q) = (lane / 4, lane % 4), g < V, reads the values, and one m16n8k16 mma computes
//     C_sliceᵀ (16 x 8 rows) += B_selᵀ (16 x 16 vectors) · S_stepᵀ (16 vectors x 8 rows).
// Staged row r (B's row r) has its two 16-byte halves at pieces 2r + (h ^ bit 2 of r), so the eight
// rows of an ldmatrix matrix fall in distinct bank groups when they differ mod 8 (the dealer's
// aim); the host stores each row number as 2r + (bit 2 of r), from which a lane's address is one
// multiply-add and one xor. A block row's C rows are written when its last step is done. Staged row
// N is zero: padding slots read it and add 0 even where B holds infinities.
//
// The slice arrives by TMA where B's rows are 16-byte aligned (K % 8 == 0): boxes of 256 rows x 16
// columns whose 32-byte swizzle is exactly the layout above, rows past N and columns past K filled
// with zeros by the copy engine. Per-thread 16-byte cp.async copies came before it and cost about
// 4.3 us per call (docs/benchmarks/tensor-core.md).
//
// Before ldmatrix (082c82c) a lane gathered its four 32-bit words with four shared loads, four byte
// permutes and four packs: 36-38 instructions and about 10 wavefronts per step (ncu, H100/H200),
// issue-bound (docs/benchmarks/tensor-core.md and docs/benchmarks/checks/tc-staged-ab).
#include <cuda.h>  // CUtensorMap (the driver's encoder is fetched at run time: no -lcuda)
#include <cudaTypedefs.h>

#include <algorithm>
#include <array>
#include <type_traits>
#include <vector>

#include "kernels/cuda/tc_common.cuh"
#include "kernels/tc_steps.hpp"

namespace fk::tc {
namespace {

// One block per SM (it holds the SM's shared memory) of at most 16 warps. On an H200 24 warps took
// 0.99x the time of 16 and 32 warps 1.03x (docs/benchmarks/checks/tc-staged-ab); with ldmatrix
// (86 registers a thread at 16 warps, 104 since the TMA copy) 24 and 32 warps spill and took 1.11x
// and 1.7x on an H100. 16 leave room for the rings beside a slice of 4096 rows.
constexpr int kMaxWarps = 16;
constexpr int kMinWarps = 8;  // fewer would leave the SM idle: then the slice does not "fit"
constexpr int kSliceK = 16;
constexpr int kRowBytes = kSliceK * 2;
constexpr int kChunkSteps = 8;  // steps per cp.async group of a warp's ring
constexpr int kRingChunks = 2;  // chunks in flight per warp (double buffering)
constexpr int kBatchSteps = 4;  // steps whose mmas run together
constexpr std::int64_t kParts = StagedVectorCsr::kParts;

constexpr int kBoxRows = 256;      // rows per TMA copy (the most a box may have)
constexpr int kStageAlign = 1024;  // the swizzle repeats every 256 bytes; TMA wants 128
// Rows 0..N (row N zero), rounded up to whole boxes, and room for the mbarrier and alignment.
constexpr std::int64_t stage_bytes(std::int64_t cols) {
  return (cols + kBoxRows) / kBoxRows * kBoxRows * kRowBytes + kStageAlign;
}
// A step's staged-row numbers (16 bits each) and values (16 bits each, v per slot).
constexpr int step_bytes(int v) { return kStepSlots * 2 + kStepSlots * 2 * v; }
constexpr int ring_bytes(int v) { return kRingChunks * kChunkSteps * step_bytes(v); }

// Warps per block for V on `cols` rows of B: as many as the shared memory left beside the slice
// holds rings for, at most kMaxWarps; 0 when fewer than kMinWarps fit.
int warps_for(std::int64_t optin, std::int64_t cols, int v) {
  const std::int64_t left = optin - stage_bytes(cols);
  const std::int64_t warps = left > 0 ? std::min<std::int64_t>(kMaxWarps, left / ring_bytes(v)) : 0;
  return warps >= kMinWarps ? int(warps) : 0;
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool valid) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

__device__ __forceinline__ void wait_phase0(std::uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n.reg .pred done;\nWAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      "@!done bra WAIT;\n}\n" ::"r"(bar)
      : "memory");
#else
  (void)bar;
#endif
}

// kVec8: K % 8 == 0 and B 16-byte aligned; then the slice comes by TMA through `tmap` in code for
// sm_90 and newer (kTma), else by per-thread 16-byte cp.async copies. The choice is the compiler's,
// not a run-time branch: with both paths in one kernel it ran 1.04x slower (H100).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
constexpr bool kTma = true;
#else
constexpr bool kTma = false;
#endif
template <class T, int V, bool kVec8>
__global__ void __launch_bounds__(kMaxWarps* kWarpSize, 1)
    staged_kernel(StagedVectorCsrView s, const HalfBits* __restrict__ b, int k, int slices,
                  float* __restrict__ c, const __grid_constant__ CUtensorMap tmap) {
  // The TMA copies' mbarrier, then the stage from the next kStageAlign boundary, then the rings.
  extern __shared__ __align__(128) uint4 dynamic_smem[];
  std::uint64_t& slice_landed = *reinterpret_cast<std::uint64_t*>(dynamic_smem);
  uint4* smem = reinterpret_cast<uint4*>(
      (reinterpret_cast<std::uintptr_t>(dynamic_smem + 1) + kStageAlign - 1) / kStageAlign *
      kStageAlign);
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize,
            warps = blockDim.x / kWarpSize;
  const int g = lane / 4, q = lane % 4;
  // Blocks t, t + slices, t + 2·slices, ... share slice t; their warps split its steps evenly, at
  // block row boundaries.
  const int slice = int(blockIdx.x % slices);
  const std::int64_t group = blockIdx.x / slices;
  const std::int64_t groups = (gridDim.x - 1 - slice) / slices + 1;
  const int k0 = slice * kSliceK;

  // 1. B[:, k0 .. k0+15] into shared memory as rows 0..N-1 and a zero row N (what empty slots
  //    read), half h of row r at piece 2r + (h ^ bit 2 of r).
  uint4* stage = smem;
  const std::uint32_t stage_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(stage));
  const int pieces = int(stage_bytes(s.cols) - kStageAlign) / 16;
  const std::uint32_t bar = static_cast<std::uint32_t>(__cvta_generic_to_shared(&slice_landed));
  if constexpr (kVec8 && kTma) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar));
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const int boxes = pieces * 16 / (kBoxRows * kRowBytes);
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
                   "r"(boxes * kBoxRows * kRowBytes)
                   : "memory");
      for (int i = 0; i < boxes; ++i)
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
            "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(stage_base + i * kBoxRows * kRowBytes),
            "l"(reinterpret_cast<std::uint64_t>(&tmap)), "r"(k0), "r"(i * kBoxRows), "r"(bar)
            : "memory");
    }
  } else if constexpr (kVec8) {
    for (int i = threadIdx.x; i < pieces; i += blockDim.x) {
      const int r = i / 2, h = (i % 2) ^ ((r >> 2) & 1);  // piece i holds half h of staged row r
      const bool valid = r < s.cols && k0 + 8 * h < k;
      cp_async16(stage + i, valid ? b + std::int64_t(r) * k + k0 + 8 * h : b, valid);
    }
  } else {
    for (int i = threadIdx.x; i < pieces; i += blockDim.x) {
      const int r = i / 2, h = (i % 2) ^ ((r >> 2) & 1);  // piece i holds half h of staged row r
      stage[i] = load8<false>(r < s.cols ? b + std::int64_t(r) * k : nullptr, k0 + 8 * h, k);
    }
  }
  cp_async_commit();  // the copies above, or an empty group: the ring's chunks are groups 2 and on

  // 2. This warp's block rows and steps: a share of the host's kParts parts (fewer than 2^31 steps:
  //    checked on the host).
  const std::int64_t total_warps = groups * warps, w = group * warps + warp;
  const std::int64_t p0 = w * kParts / total_warps, p1 = (w + 1) * kParts / total_warps;
  const std::int64_t br_begin = s.part_block_row[p0], br_end = s.part_block_row[p1];
  const int st_begin = s.part_step[p0], st_end = s.part_step[p1];

  // 3. A ring of kRingChunks chunks of kChunkSteps steps (staged rows, then values) per warp.
  //    Entries past st_end are zero-filled, and their row numbers 0 (B's row 0) replaced by the
  //    zero row's below (a 16-byte global array of zero-row numbers, read by every warp at its
  //    run's end, cost about 10 us a call on an H100: one address for all SMs).
  constexpr int kColBytes = kChunkSteps * kStepSlots * 2,
                kValBytes = kChunkSteps * kStepSlots * 2 * V;
  constexpr int kChunkBytes = kColBytes + kValBytes;
  unsigned char* ring = reinterpret_cast<unsigned char*>(smem + pieces) + warp * ring_bytes(V);
  // Each lane copies the same 16-byte pieces of every chunk: piece `lane` of the staged rows (lanes
  // below kColBytes / 16) and pieces lane, lane + 32, ... of the values. Chunks are fetched in
  // order.
  const std::uint16_t* rows_src = s.step_rows + std::int64_t(st_begin) * kStepSlots + lane * 8;
  const HalfBits* vals_src = s.step_vals + std::int64_t(st_begin) * kStepSlots * V + lane * 8;
  int fetched = 0;
  const auto fetch_next = [&] {
    const int first = st_begin + fetched * kChunkSteps;
    unsigned char* slot = ring + (fetched % kRingChunks) * kChunkBytes;
    if (lane < kColBytes / 16) {
      const bool valid = first + lane / 2 < st_end;  // a piece is half a step's rows
      cp_async16(slot + lane * 16, valid ? rows_src : s.step_rows, valid);
    }
#pragma unroll
    for (int j = 0; j < (kValBytes / 16 + kWarpSize - 1) / kWarpSize; ++j) {
      const int p = lane + j * kWarpSize;
      if (p >= kValBytes / 16) break;
      const bool valid = first + p / (2 * V) < st_end;  // 2V pieces a step
      cp_async16(slot + kColBytes + p * 16, valid ? vals_src + j * kWarpSize * 8 : s.step_vals,
                 valid);
    }
    cp_async_commit();  // also when empty: each chunk is one group
    rows_src += kChunkSteps * kStepSlots;
    vals_src += kChunkSteps * kStepSlots * V;
    ++fetched;
  };
  const int chunks = (st_end - st_begin + kChunkSteps - 1) / kChunkSteps;
#pragma unroll
  for (int i = 0; i < kRingChunks; ++i) fetch_next();
  if constexpr (kVec8 && kTma)
    wait_phase0(bar);  // the slice's TMA copies have landed
  else
    cp_async_wait<kRingChunks>();  // the slice's copies (the oldest group) have landed
  __syncthreads();

  // 4. The steps; a block row's C rows are written when its last step is done (empty ones too).
  //    Lane l gives ldmatrix the address of half (l / 8) % 2 of slot l % 8 + 8 (l / 16): matrices
  //    0-3 are A's fragments a0-a3 (K columns 0-7 and 8-15 of slots 0-7, then of slots 8-15).
  const int lane_slot = (lane & 7) + 8 * (lane >> 4);
  const std::uint32_t half_xor = ((lane >> 3) & 1) << 4;
  const std::uint32_t zero_row = std::uint32_t(2 * s.cols + ((s.cols >> 2) & 1));  // row N's number
  std::int64_t br = br_begin;
  std::int64_t ends_base = br_begin;  // lane l holds step_ptr[ends_base + 1 + l]
  int ends = ends_base + 1 + lane <= s.block_rows ? int(s.step_ptr[ends_base + 1 + lane]) : 0;
  const auto end_of = [&](std::int64_t row) {  // step_ptr[row + 1], row >= ends_base
    if (row - ends_base >= kWarpSize) {
      ends_base = row;
      ends = ends_base + 1 + lane <= s.block_rows ? int(s.step_ptr[ends_base + 1 + lane]) : 0;
    }
    return __shfl_sync(0xffffffffu, ends, int(row - ends_base));
  };
  // Two accumulator sets, for even and odd steps, so that consecutive mmas do not wait on each
  // other (1.03-1.04x in geometric mean on an H200 before ldmatrix; four sets ran at 1.00x after
  // it); a block row's sum is their sum.
  constexpr int kAccSets = 2;
  float sets[kAccSets][4] = {};
  float(&acc)[4] = sets[0];
  const auto flush = [&] {  // acc = {C[2q][k0+g], C[2q+1][k0+g], C[2q][k0+g+8], C[2q+1][k0+g+8]}
#pragma unroll
    for (int j = 1; j < kAccSets; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[i] += sets[j][i];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t row = br * V + 2 * q + h;
      if (2 * q + h >= V || row >= s.rows) continue;
      float* out = c + row * k + k0 + g;
      if (k0 + g < k) out[0] = acc[h];
      if (k0 + g + 8 < k) out[8] = acc[2 + h];
    }
#pragma unroll
    for (int j = 0; j < kAccSets; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) sets[j][i] = 0.f;
  };
  int row_end = br < br_end ? end_of(br) : st_end;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    cp_async_wait<kRingChunks - 1>();
    __syncwarp();
    const unsigned char* slot = ring + (chunk % kRingChunks) * kChunkBytes;
    const std::uint16_t* lane_rows =
        reinterpret_cast<const std::uint16_t*>(slot) + lane_slot;  // + 16 per step
    const uint2* lane_vals =
        reinterpret_cast<const uint2*>(slot + kColBytes) + g * 4 + q;  // + 4 V per step
    const int first = st_begin + chunk * kChunkSteps;
    // The chunk's row numbers and values first, then its steps unrolled in batches, each batch's
    // mmas after the next batch's gathers have gone out (all eight gathers up front, or none ahead,
    // ran within 1% of this on an H100); steps past st_end read ring entries of the zero row and
    // value 0, and add 0.
    std::uint32_t rows[kChunkSteps];
    uint2 vals[kChunkSteps];
#pragma unroll
    for (int t = 0; t < kChunkSteps; ++t) {
      rows[t] = lane_rows[t * kStepSlots];
      vals[t] = g < V ? lane_vals[t * 4 * V] : make_uint2(0, 0);
    }
    if (first + kChunkSteps > st_end) {  // the run's last chunk: no B row for the steps past it
#pragma unroll
      for (int t = 0; t < kChunkSteps; ++t)
        if (first + t >= st_end) rows[t] = zero_row;
    }
    std::uint32_t a[kChunkSteps][4];
    const auto gather = [&](int t) {
      const std::uint32_t at = (rows[t] * 16 + stage_base) ^ half_xor;
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(a[t][0]), "=r"(a[t][1]), "=r"(a[t][2]), "=r"(a[t][3])
                   : "r"(at));
    };
#pragma unroll
    for (int t = 0; t < kBatchSteps; ++t) gather(t);
#pragma unroll
    for (int t0 = 0; t0 < kChunkSteps; t0 += kBatchSteps) {
#pragma unroll
      for (int t = t0 + kBatchSteps; t < t0 + 2 * kBatchSteps && t < kChunkSteps; ++t) gather(t);
      const auto mma = [&](int u) {
        const std::uint32_t sv[2] = {vals[t0 + u].x, vals[t0 + u].y};
        mma_16816<T>(sets[(t0 + u) % kAccSets], a[t0 + u], sv);
      };
      // A batch inside one block row (most) runs without a branch between its mmas.
      if (row_end >= first + t0 + kBatchSteps || row_end >= st_end) {
#pragma unroll
        for (int u = 0; u < kBatchSteps; ++u) mma(u);
      } else {
#pragma unroll
        for (int u = 0; u < kBatchSteps; ++u) {
          while (first + t0 + u == row_end &&
                 row_end < st_end) {  // br is done (and empty block rows after it)
            flush();
            ++br;
            row_end = end_of(br);
          }
          mma(u);
        }
      }
    }
    __syncwarp();  // every lane is done with this slot before it is refilled
    fetch_next();
  }
  cp_async_wait<0>();
  for (; br < br_end; ++br) flush();  // the last block row, and empty ones after it
}

// B (cols x k, 16-bit, rows 16-byte aligned) as a TMA tensor whose boxes are 256 rows of 16
// columns, swizzled in 32-byte spans (the staged layout), zeros outside B.
CUtensorMap slice_boxes(const HalfBits* b, std::int64_t cols, int k) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    FK_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                   cudaEnableDefault, &found));
    FK_CHECK(found == cudaDriverEntryPointSuccess && fn != nullptr,
             "staged tensor-core SpMM: the driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(cols)};
  const cuuint64_t strides[1] = {cuuint64_t(k) * 2};
  const cuuint32_t box[2] = {kSliceK, kBoxRows}, steps[2] = {1, 1};
  const CUresult r =
      encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, const_cast<HalfBits*>(b), dims, strides, box,
             steps, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  FK_CHECK(r == CUDA_SUCCESS,
           "staged tensor-core SpMM: cuTensorMapEncodeTiled failed (" << int(r) << ")");
  return map;
}

template <class T, int V, bool kVec8>
void launch(const Context& ctx, const StagedVectorCsrView& s, const HalfBits* b, int k, float* c) {
  const auto kernel = staged_kernel<T, V, kVec8>;
  const auto& props = ctx.gpu().props;
  static const bool sized = [&] {  // the most any plan may ask for, once per instantiation
    FK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(props.sharedMemPerBlockOptin)));
    return true;
  }();
  (void)sized;
  const int warps = warps_for(props.sharedMemPerBlockOptin, s.cols, V);
  const int slices = (k + kSliceK - 1) / kSliceK;
  // Blocks per slice: one block per SM in all, but no more warps than block rows.
  const std::int64_t per_slice =
      std::clamp<std::int64_t>(std::min<std::int64_t>(props.multiProcessorCount / slices,
                                                      (s.block_rows + warps - 1) / warps),
                               1, kMaxBlocks / slices);
  const unsigned grid = static_cast<unsigned>(per_slice * slices);
  const std::size_t smem = std::size_t(stage_bytes(s.cols)) + std::size_t(warps) * ring_bytes(V);
  CUtensorMap tmap = {};
  if (kVec8 && props.major >= 9) tmap = slice_boxes(b, s.cols, k);  // used by sm_90+ code only
  kernel<<<grid, warps * kWarpSize, smem, stream_of(ctx)>>>(s, b, k, slices, c, tmap);
  FK_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_v(const Context& ctx, const StagedVectorCsrView& s, const HalfBits* b, int k,
              float* c) {
  const bool vec = s.cols > 0 && k % 8 == 0 && reinterpret_cast<std::uintptr_t>(b) % 16 == 0 &&
                   reinterpret_cast<std::uintptr_t>(c) % 8 == 0;
  const auto go = [&](auto v) {
    constexpr int kV = decltype(v)::value;
    if (vec)
      launch<T, kV, true>(ctx, s, b, k, c);
    else
      launch<T, kV, false>(ctx, s, b, k, c);
  };
  switch (s.v) {
    case 1:
      return go(std::integral_constant<int, 1>{});
    case 2:
      return go(std::integral_constant<int, 2>{});
    case 4:
      return go(std::integral_constant<int, 4>{});
    case 8:
      return go(std::integral_constant<int, 8>{});
    default:
      FK_CHECK(false, "staged tensor-core SpMM: vector length " << s.v << " is not 1, 2, 4 or 8");
  }
}

}  // namespace

bool staged_fits(const Context& ctx, std::int64_t cols, int v) {
  return ctx.is_gpu() && warps_for(ctx.gpu().props.sharedMemPerBlockOptin, cols, v) > 0;
}

bool staged_pays(const Context& ctx, const HostVectorCsr& e, int k) {
  const double slices = double((std::int64_t(k) + kSliceK - 1) / kSliceK);
  return staged_fits(ctx, e.cols, e.v) && e.rows >= kStagedMinRows &&
         double(e.vectors()) * slices >= kStagedWorkPerColumn * double(e.cols) &&
         staged_indexes_fit(e);
}

StagedVectorCsr::StagedVectorCsr(const HostVectorCsr& e, Precision precision)
    : v_(e.v), rows_(e.rows), cols_(e.cols), block_rows_(e.block_rows()) {
  // The kernel indexes steps and staged rows' bytes in 32 bits and staged rows in 16 (staged_pays
  // gives larger problems to the gather kernel).
  FK_CHECK(staged_indexes_fit(e), "staged tensor-core SpMM: " << tc_step_count(e) << " steps of "
                                                              << e.cols << " columns are too many");
  const TcSteps steps = deal_tc_steps(e);
  const std::int64_t n = steps.steps();
  std::vector<std::uint16_t> rows(static_cast<std::size_t>(n * kStepSlots));
  std::vector<float> vals(static_cast<std::size_t>(n * kStepSlots * v_), 0.0f);
  std::vector<std::int64_t> source(vals.size(), -1);
  // Lane (g, q) reads the values of slots 2q, 2q + 1, 2q + 8, 2q + 9 (i = 0..3) in row g of the
  // block row (the mma's B fragment), as the 8 bytes at ((step·V + g)·4 + q)·4.
  for (std::int64_t st = 0; st < n; ++st)
    for (int slot = 0; slot < kStepSlots; ++slot) {
      const std::int64_t j = steps.slot_vector[st * kStepSlots + slot];
      const std::int64_t r = j >= 0 ? e.col_idx[j] : e.cols;
      rows[st * kStepSlots + slot] = std::uint16_t(2 * r + ((r >> 2) & 1));
      if (j < 0) continue;
      const int q = (slot % 8) / 2, i = slot % 2 + 2 * (slot / 8);
      for (int g = 0; g < v_; ++g) {
        const std::int64_t at = ((st * v_ + g) * 4 + q) * 4 + i;
        vals[at] = e.vals[j * v_ + g];
        source[at] = e.source.empty() ? -1 : e.source[j * v_ + g];
      }
    }
  // kParts + 1 cuts at block-row boundaries, part p starting at the first block row whose steps
  // begin at or after p / kParts of all steps (the last cut after the last block row).
  std::vector<std::int64_t> part_block_row(kParts + 1);
  std::vector<std::int32_t> part_step(kParts + 1);
  for (std::int64_t p = 0; p <= kParts; ++p) {
    const std::int64_t target = (n * p + kParts - 1) / kParts;
    part_block_row[p] =
        p == kParts ? block_rows_
                    : std::lower_bound(steps.step_ptr.begin(), steps.step_ptr.end(), target) -
                          steps.step_ptr.begin();
    part_step[p] = std::int32_t(steps.step_ptr[part_block_row[p]]);
  }
  part_block_row_ = DeviceBuffer<std::int64_t>(part_block_row);
  part_step_ = DeviceBuffer<std::int32_t>(part_step);
  step_ptr_ = DeviceBuffer<std::int64_t>(steps.step_ptr);
  step_rows_ = DeviceBuffer<std::uint16_t>(rows);
  step_vals_ = DeviceBuffer<HalfBits>(to_half(vals, precision));
  source_ = tc::device_source_map(source);
}

StagedVectorCsrView StagedVectorCsr::view() const {
  StagedVectorCsrView s;
  s.v = v_;
  s.rows = rows_;
  s.cols = cols_;
  s.block_rows = block_rows_;
  s.step_ptr = step_ptr_.data();
  s.part_block_row = part_block_row_.data();
  s.part_step = part_step_.data();
  s.step_rows = step_rows_.data();
  s.step_vals = step_vals_.data();
  return s;
}

void spmm_staged(const Context& ctx, Precision precision, const StagedVectorCsrView& s,
                 DenseView<const HalfBits> b, DenseView<float> c) {
  FK_CHECK(b.rows == s.cols && c.rows == s.rows && b.cols == c.cols,
           "staged tensor-core SpMM: S is " << s.rows << " x " << s.cols << ", B " << b.rows
                                            << " x " << b.cols << ", C " << c.rows << " x "
                                            << c.cols);
  FK_CHECK(b.cols >= 1 && b.cols <= INT32_MAX,
           "staged tensor-core SpMM: K = " << b.cols << " out of range");
  FK_CHECK(staged_fits(ctx, s.cols, s.v),
           "staged tensor-core SpMM: " << s.cols << " rows of B do not fit in shared memory");
  if (c.size() == 0) return;
  const int k = static_cast<int>(b.cols);
  with_half_type(precision, "staged tensor-core SpMM",
                 [&](auto t) { launch_v<decltype(t)>(ctx, s, b.data, k, c.data); });
}

}  // namespace fk::tc
