#pragma once
// The GPU side of the benchmark clock: CUDA events on the context's stream, an L2 flush, and the
// device ceilings. Host-only header; implemented in gpu_timing.cu, which exists only in CUDA
// builds (callers guard with #if FK_WITH_CUDA).
#include <memory>

#include "apps/bench/timing.hpp"
#include "core/context.hpp"

namespace fk::bench {

// Bandwidth: a device-to-device cudaMemcpy of min(1 GiB, free memory / 4), counting the bytes read
// plus the bytes written, median of 10 after 3 warm-ups, timed with events. Peak fp32: computed as
// SMs x clock (cudaDevAttrClockRate) x fp32 lanes per SM x 2 (an FMA is two flops).
Ceilings measure_gpu_ceilings(const Context& ctx);

// Times with CUDA events recorded on ctx's stream; flush() queues, on that same stream, a write
// of a device buffer of 2x the L2 size (cudaDevAttrL2CacheSize), so it finishes before start().
// `flush` false: flush() does nothing.
std::unique_ptr<RunTimer> make_gpu_timer(const Context& ctx, bool flush);

// p[j] ← n[j] / (p[j] + eps), or with `residual` n[j] − p[j], for j < count, on ctx's stream: the
// elementwise step of the unfused ratio SpMM's ratio and residual forms ("pair": SDDMM, this,
// SpMM), the one kernel fk-bench runs of its own.
void pair_weights_on_gpu(const Context& ctx, const float* n, float* p, std::int64_t count, float eps,
                         bool residual);

}  // namespace fk::bench
