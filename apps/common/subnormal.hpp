#pragma once
// Where the apps make floats below the smallest normal float (FLT_MIN, about 1.2e-38) zero, on the
// CPU and (nvcc) the GPU alike, so that both sides train the same model. No CUDA headers:
// FK_SUBNORMAL_HD expands to __host__ __device__ only when nvcc compiles the file.
#include <cfloat>
#include <cmath>

#if defined(__CUDACC__)
#define FK_SUBNORMAL_HD __host__ __device__ __forceinline__
#else
#define FK_SUBNORMAL_HD inline
#endif

namespace fk::app {

// A row's r·r (fk-als) or r·z (fk-sfa's preconditioned solve) as the float its conjugate-gradient
// steps divide by, or 0 once it falls below FLT_MIN: the row has converged, and the steps leave it
// alone. There the float keeps a bit or two while r and z are still normal numbers of about 1e-19
// to 1e-22; the ratios α and β built from it were noise, and --cg-steps past that point grew the
// residual a few times a step until the factors overflowed (MovieLens 100K at --cg-steps 100:
// fk-als's objective NaN in the first iteration, fk-sfa's eigendecomposition failing).
FK_SUBNORMAL_HD float cg_dot_or_converged(double dot) { return dot >= double(FLT_MIN) ? float(dot) : 0.0f; }

// v, or 0 below FLT_MIN in magnitude: fk-gap's GPU updates, so that they make the model the CPU
// makes. Its multiplicative updates shrink the entries the counts do not support towards 0; the
// CPU takes the subnormal ones as zero (flush_subnormals_on_cpu_threads, core/context.hpp: on a
// CPU they made configs/gap-kos.ini's iterations 3 ms at first, 41 ms by iteration 100), and the
// GPU, which keeps subnormals at full speed, does so here. Such an entry is 0 for the model
// (below 1e-38 of a column of Λ, which sums to 1, or of a token in X).
FK_SUBNORMAL_HD float zero_if_subnormal(float v) { return fabsf(v) >= FLT_MIN ? v : 0.0f; }

}  // namespace fk::app
