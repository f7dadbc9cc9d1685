// cuda.spmm.shared_b: B's column slices staged whole in shared memory, for S with few columns.
//
// The row kernels read a B row from L1 or L2 for every nonzero; on a pruned layer of 1000 rows x
// 2048 columns at K = 512, cuSPARSE and row_split move about 10 TB/s of such gathers (H200), most
// of them from L2. When S has few columns, a slice of S columns of all of B (N x S floats) fits in
// one SM's shared memory (N <= 1776 at S = 32, 3552 at 16, 7104 at 8, 14208 at 4, within 222 KiB):
// a thread block stages it once from L2 and then reads every B access from shared memory, whose
// bandwidth is about three times L2's.
//
// Work: (slice, row) pairs, slice-major. The grid is persistent (blocks resident at once); block i
// takes the i-th equal share of slices x (nnz + rows) in that order (the plan finds each block's
// first (slice, row) on the host), so it stages one or two slices.
// Every (row, slice) of C is written by one block (empty rows get zeros), with no atomics: results
// do not depend on scheduling.
//
// In a block, a group of L = S / 4 lanes (each lane a float4 of the slice) walks chunks of 8
// nonzeros: its lanes load the chunk's (col, val) (coalesced across the warp's groups), pass them
// lane to lane by shuffle and keep 4 shared-memory reads in flight. A team of W warps takes a row
// (teams take the block's rows in turn) and its groups take the row's chunks in turn; the groups'
// sums meet by butterfly shuffles in each warp and, for W > 1, through shared memory in warp order.
// W is 1 where the block has rows for all its 16 warps, up to 16 on a few long rows (v1 of this
// kernel gave each row to one group: 0.2-0.37x the best kernel, latency-bound on 4-30 busy groups
// per SM). The slice is staged with cp.async, every copy of a thread in flight at once.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_variants.hpp"
#include "kernels/cuda/spmm_common.cuh"

namespace fk {
namespace {

using namespace cuda_spmm;

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / kWarpSize;
// Nonzeros per step of a group of L lanes: one global round trip for their (col, val) serves 16
// shared-memory reads (8 for single-lane groups, whose lanes would hold 16 pairs each).
template <int L>
constexpr int chunk_for() {
  return L >= 2 ? 16 : 8;
}
constexpr int kInFlight = 8;  // shared-memory reads a group has in flight
// Shared memory for the slice: sm_90's 227 KiB opt-in per block less 5 KiB for the static shared
// variables (the teams' partial sums) and the driver's reserve. why_not uses it, without a device
// at hand; the plan also checks the device's own limit.
constexpr std::int64_t kSliceBytes = 222 * 1024;
constexpr int kMaxSlice = 32;
constexpr int kMinSlice = 4;

// The widest slice (32, 16, 8 or 4 floats) whose N x S floats fit `bytes`, no wider than K needs;
// 0 when even 4 floats per B row do not fit.
int slice_for(std::int64_t n, int k, std::int64_t bytes) {
  int s = kMaxSlice;
  while (s > kMinSlice && s / 2 >= k) s /= 2;
  while (s >= kMinSlice && std::max<std::int64_t>(n, 1) * s * std::int64_t(sizeof(float)) > bytes)
    s /= 2;
  return s >= kMinSlice ? s : 0;
}

// 16 bytes from global to shared memory without a trip through registers (all of a thread's copies
// in flight at once); src_bytes 0 writes zeros.
__device__ __forceinline__ void cp_async16(float* dst, const float* src, int src_bytes) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
               "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

// A group's chunk of 8 nonzeros from position j (this lane's first: chunk start + gl): lane gl
// holds nonzeros j + L * m (m < 8 / L); zeros past the row's end.
template <int L, int kPerLane, typename Vals>
__device__ __forceinline__ void load_chunk(std::int64_t j, std::int64_t end,
                                           const std::int32_t* __restrict__ col_idx,
                                           const Vals& vals, int (&col)[kPerLane],
                                           float (&val)[kPerLane]) {
#pragma unroll
  for (int m = 0; m < kPerLane; ++m) {
    const std::int64_t jm = j + L * m;
    col[m] = jm < end ? ld_sparse(col_idx + jm) : 0;
    val[m] = jm < end ? vals(jm) : 0.f;
  }
}

// Synchronizes the W warps of one team (named barrier 1 + team; barrier 0 is __syncthreads).
template <int W>
__device__ __forceinline__ void team_sync(int team) {
  if constexpr (W == 1) {
    __syncwarp();
  } else {
    asm volatile("bar.sync %0, %1;\n" ::"r"(team + 1), "r"(W * kWarpSize) : "memory");
  }
}

// S: slice width (floats); W: warps per row (a team; 1, 4, 8, 16 or 32); kVec: B and C take 16-byte
// accesses (K % 4 == 0, aligned bases), otherwise scalar ones.
template <int S, int W, bool kVec, typename Vals>
__global__ void __launch_bounds__(kThreads, 1)
    shared_b_kernel(std::int64_t rows, std::int64_t n, int k,
                    const std::int64_t* __restrict__ bounds,
                    const std::int64_t* __restrict__ row_ptr,
                    const std::int32_t* __restrict__ col_idx, Vals vals,
                    const float* __restrict__ b, float* __restrict__ c) {
  constexpr int L = S / 4;  // lanes per group (each a float4 of the slice)
  constexpr int kGroupsPerWarp = kWarpSize / L;
  constexpr int kTeams = kWarps / W;
  constexpr int kTeamGroups = W * kGroupsPerWarp;
  constexpr int kChunk = chunk_for<L>();
  constexpr int kPerLane = kChunk / L;  // nonzeros each lane loads per chunk
  static_assert(kChunk % L == 0, "a chunk is whole loads of the group's lanes");
  static_assert(W == 1 || (W >= 4 && W <= kWarps && (W & (W - 1)) == 0),
                "teams: 1 warp or 4-16 (named barriers)");
  extern __shared__ float4 smem_raw[];
  float* tile = reinterpret_cast<float*>(smem_raw);  // [n][S]
  __shared__ float4 partial[kWarps][L];              // a team's per-warp sums (W > 1)
  const int lane = threadIdx.x & (kWarpSize - 1);
  const int warp = threadIdx.x / kWarpSize;
  const int team = warp / W;
  const int gl = lane & (L - 1);
  const int base = lane & ~(L - 1);
  const int tg = (warp % W) * kGroupsPerWarp + lane / L;  // this group's index in its team
  const unsigned mask = group_mask<L>(lane);

  // This block's (slice, row) pairs, numbered slice * rows + row: [g0, g1) (plan's bounds).
  const std::int64_t g0 = bounds[blockIdx.x], g1 = bounds[blockIdx.x + 1];
  for (std::int64_t sl = g0 / rows; sl * rows < g1; ++sl) {
    const std::int64_t r_begin = std::max(g0, sl * rows) - sl * rows;
    const std::int64_t r_end = std::min(g1, (sl + 1) * rows) - sl * rows;
    if (r_begin >= r_end) continue;
    __syncthreads();  // the previous slice's readers are done with the tile
    const int k0 = static_cast<int>(sl) * S;
    // Stage B[:, k0 .. k0 + S) (zeros past K): consecutive threads take consecutive float4s.
    for (std::int64_t i = threadIdx.x; i < n * L; i += kThreads) {
      const std::int64_t col = i / L;
      const int q = static_cast<int>(i - col * L) * 4;
      const float* src = b + col * k + k0 + q;
      if constexpr (kVec) {
        cp_async16(tile + i * 4, k0 + q < k ? src : b, k0 + q < k ? 16 : 0);
      } else {
        float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
        if (k0 + q < k) x.x = __ldg(src);
        if (k0 + q + 1 < k) x.y = __ldg(src + 1);
        if (k0 + q + 2 < k) x.z = __ldg(src + 2);
        if (k0 + q + 3 < k) x.w = __ldg(src + 3);
        reinterpret_cast<float4*>(tile)[i] = x;
      }
    }
    if constexpr (kVec) cp_async_wait_all();
    __syncthreads();
    const float* tile_lane = tile + gl * 4;
    const int kk = k0 + gl * 4;
    // Team t takes rows r_begin + t, + kTeams, ...; its groups take the row's chunks in turn.
    for (std::int64_t r = r_begin + team; r < r_end; r += kTeams) {
      const std::int64_t begin = row_ptr[r], end = row_ptr[r + 1];
      float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
      // The group's chunks start kStep apart; the next chunk's (col, val) are loaded before this
      // one's B rows are read, so the loads' latency overlaps the reads.
      constexpr std::int64_t kStep = std::int64_t(kTeamGroups) * kChunk;
      std::int64_t j0 = begin + std::int64_t(tg) * kChunk;
      int my_col[kPerLane];
      float my_val[kPerLane];
      load_chunk<L, kPerLane>(j0 + gl, end, col_idx, vals, my_col, my_val);
      for (; j0 < end; j0 += kStep) {
        int next_col[kPerLane];
        float next_val[kPerLane];
        load_chunk<L, kPerLane>(j0 + kStep + gl, end, col_idx, vals, next_col, next_val);
        const int cnt = end - j0 < kChunk ? static_cast<int>(end - j0) : kChunk;
#pragma unroll
        for (int h = 0; h < kChunk; h += kInFlight) {
          float a[kInFlight];
          float4 x[kInFlight];
#pragma unroll
          for (int u = 0; u < kInFlight; ++u) {
            const int q = h + u;
            const int cq = __shfl_sync(mask, my_col[q / L], base + q % L);
            a[u] = __shfl_sync(mask, my_val[q / L], base + q % L);
            // Past the row's end: skipped rather than multiplied by 0 (0 x Inf would be NaN).
            x[u] = q < cnt ? *reinterpret_cast<const float4*>(tile_lane + std::int64_t(cq) * S)
                           : make_float4(0.f, 0.f, 0.f, 0.f);
            if (q >= cnt) a[u] = 0.f;
          }
#pragma unroll
          for (int u = 0; u < kInFlight; ++u) {
            acc.x = fmaf(a[u], x[u].x, acc.x);
            acc.y = fmaf(a[u], x[u].y, acc.y);
            acc.z = fmaf(a[u], x[u].z, acc.z);
            acc.w = fmaf(a[u], x[u].w, acc.w);
          }
        }
#pragma unroll
        for (int m = 0; m < kPerLane; ++m) my_col[m] = next_col[m], my_val[m] = next_val[m];
      }
      // The warp's groups' sums, by butterfly (the same order on every run).
#pragma unroll
      for (int off = L; off < kWarpSize; off <<= 1) {
        acc.x += __shfl_xor_sync(kFullMask, acc.x, off);
        acc.y += __shfl_xor_sync(kFullMask, acc.y, off);
        acc.z += __shfl_xor_sync(kFullMask, acc.z, off);
        acc.w += __shfl_xor_sync(kFullMask, acc.w, off);
      }
      if constexpr (W > 1) {
        if (lane < L) partial[warp][gl] = acc;
        team_sync<W>(team);
        if (warp % W == 0 && lane < L) {
          float4 sum = partial[warp][gl];
#pragma unroll
          for (int w = 1; w < W; ++w) {
            const float4 p = partial[warp + w][gl];
            sum.x += p.x, sum.y += p.y, sum.z += p.z, sum.w += p.w;
          }
          acc = sum;
        }
        team_sync<W>(team);  // partial is rewritten by the team's next row
      }
      if (warp % W == 0 && lane < L) {
        float* dst = c + r * k + kk;
        if constexpr (kVec) {
          if (kk < k) __stcs(reinterpret_cast<float4*>(dst), acc);
        } else {
          if (kk < k) __stcs(dst, acc.x);
          if (kk + 1 < k) __stcs(dst + 1, acc.y);
          if (kk + 2 < k) __stcs(dst + 2, acc.z);
          if (kk + 3 < k) __stcs(dst + 3, acc.w);
        }
      }
    }
  }
}

// Block i's first (slice, row) pair, numbered slice * rows + row, for i = 0 .. blocks (the last:
// slices * rows). Each block takes an equal share of slices x (nnz + rows): row r of a slice sits
// at position row_ptr[r] + r in it (a row costs its nonzeros and one for its stores), and belongs
// to the block whose share holds that position.
std::vector<std::int64_t> block_bounds(const std::vector<std::int64_t>& row_ptr,
                                       std::int64_t slices, int blocks) {
  const std::int64_t rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  const std::int64_t per_slice = row_ptr[rows] + rows, total = per_slice * slices;
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(blocks) + 1, 0);
  if (total == 0) return bounds;  // no rows (or K = 0): nothing to run
  for (int i = 0; i <= blocks; ++i) {
    const std::int64_t at = total / blocks * i + std::min<std::int64_t>(total % blocks, i);
    const std::int64_t sl = at / per_slice, w = at % per_slice;
    std::int64_t lo = 0, hi = rows;  // first row r with row_ptr[r] + r >= w
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (row_ptr[mid] + mid >= w) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    bounds[static_cast<std::size_t>(i)] = sl * rows + lo;
  }
  return bounds;
}

// Raises the kernel's dynamic shared-memory limit once per instantiation to `bytes` (a limit, not
// an allocation: the same for every plan on this device).
template <int S, int W, bool kVec, typename Vals>
void raise_smem_limit(std::int64_t bytes) {
  static const bool done = [bytes] {
    FK_CUDA_CHECK(cudaFuncSetAttribute(shared_b_kernel<S, W, kVec, Vals>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    return true;
  }();
  (void)done;
}

// Warps per row: enough that a block's rows of a slice keep its warps busy, while each group still
// gets at least a chunk of the row; 1 or 4-16 (named barriers serve teams of 4 and more).
int team_for(double rows_per_block, double mean, int groups_per_warp) {
  int w = 1;
  for (int next : {4, 8, 16}) {
    if (rows_per_block * w >= kWarps) break;  // the rows already fill the block's warps
    if (mean < double(next) * groups_per_warp * 16) break;  // groups would get no chunk
    w = next;
  }
  return w;
}

class SharedBPlan : public ValueReaderPlan<SharedBPlan> {
 public:
  SharedBPlan(const Context& ctx, const CsrView& s, int k) : ValueReaderPlan(s, k) {
    const cudaDeviceProp& props = ctx.gpu().props;
    limit_ =
        std::min<std::int64_t>(kSliceBytes, std::int64_t(props.sharedMemPerBlockOptin) - 5 * 1024);
    slice_ = slice_for(s.cols, k, limit_);
    FK_CHECK(slice_ > 0, "cuda.spmm.shared_b: " << s.cols << " columns of B do not fit " << limit_
                                                << " bytes of shared memory at 4 floats each");
    smem_bytes_ = static_cast<int>(std::max<std::int64_t>(s.cols, 1) * slice_ * sizeof(float));
    blocks_ = props.multiProcessorCount;  // one block per SM (its shared memory fills the SM)
    const double slices = double(ceil_div(k, slice_));
    const double mean = s.rows > 0 ? double(s.nnz) / double(s.rows) : 0.0;
    team_ = team_for(double(s.rows) * slices / blocks_, mean, kWarpSize / (slice_ / 4));
    bounds_ = DeviceBuffer<std::int64_t>(
        block_bounds(download_row_ptr(s), std::int64_t(slices), blocks_));
  }

  static constexpr const char* kName = "cuda.spmm.shared_b";
  static constexpr int kPermutedFromK = kPermutedMinK;

  template <typename Vals>
  void launch(const Context& ctx, Vals vals, DenseView<const float> b, DenseView<float> c) {
    if (s_.rows == 0 || k_ == 0) return;
    const bool vec = vec4_ok(k_, b.data, c.data);
    auto go = [&](auto s_tag, auto w_tag, auto vec_tag) {
      constexpr int S = decltype(s_tag)::value;
      constexpr int W = decltype(w_tag)::value;
      constexpr bool kVec = decltype(vec_tag)::value;
      raise_smem_limit<S, W, kVec, Vals>(limit_);
      shared_b_kernel<S, W, kVec><<<blocks_, kThreads, smem_bytes_, stream_of(ctx)>>>(
          s_.rows, s_.cols, k_, bounds_.data(), s_.row_ptr, s_.col_idx, vals, b.data, c.data);
      FK_CUDA_CHECK_LAUNCH();
    };
    auto with_vec = [&](auto s_tag, auto w_tag) {
      if (vec) {
        go(s_tag, w_tag, std::true_type{});
      } else {
        go(s_tag, w_tag, std::false_type{});
      }
    };
    auto with_team = [&](auto s_tag) {
      switch (team_) {
        case 16:
          with_vec(s_tag, std::integral_constant<int, 16>{});
          break;
        case 8:
          with_vec(s_tag, std::integral_constant<int, 8>{});
          break;
        case 4:
          with_vec(s_tag, std::integral_constant<int, 4>{});
          break;
        default:
          with_vec(s_tag, std::integral_constant<int, 1>{});
          break;
      }
    };
    switch (slice_) {
      case 32:
        with_team(std::integral_constant<int, 32>{});
        break;
      case 16:
        with_team(std::integral_constant<int, 16>{});
        break;
      case 8:
        with_team(std::integral_constant<int, 8>{});
        break;
      default:
        with_team(std::integral_constant<int, 4>{});
        break;
    }
  }

 private:
  std::int64_t limit_ = 0;  // dynamic shared memory a block may use on this device
  int slice_ = 0;
  int team_ = 1;
  int smem_bytes_ = 0;
  int blocks_ = 1;
  DeviceBuffer<std::int64_t> bounds_;  // blocks + 1 (slice, row) numbers: block i's first pair
};

class SharedBSpmm : public SpmmVariant {
 public:
  const char* name() const override { return "cuda.spmm.shared_b"; }
  const char* summary() const override {
    return "column slices of all of B staged in shared memory, rows read from there; for S with at "
           "most 14528 columns";
  }
  Backend backend() const override { return Backend::kCuda; }
  std::string why_not(const KernelProblem& p) const override {
    if (slice_for(p.sparse.cols, p.k, kSliceBytes) == 0)
      return "B's " + std::to_string(p.sparse.cols) +
             " rows do not fit shared memory at 4 floats each (at most " +
             std::to_string(kSliceBytes / 16) + ")";
    return {};
  }
  std::unique_ptr<SpmmPlan> prepare(const Context& ctx, const CsrView& s, int k) const override {
    return std::make_unique<SharedBPlan>(ctx, s, k);
  }
};

}  // namespace

std::unique_ptr<SpmmVariant> make_cuda_spmm_shared_b() { return std::make_unique<SharedBSpmm>(); }

}  // namespace fk
