#pragma once
// What the conjugate-gradient solves of fk-als and fk-sfa share, on the CPU and (nvcc) the GPU.
// No CUDA headers: FK_CG_HD expands to __host__ __device__ only when nvcc compiles the file.
#include <cfloat>

#if defined(__CUDACC__)
#define FK_CG_HD __host__ __device__ __forceinline__
#else
#define FK_CG_HD inline
#endif

namespace fk::app {

// A row's r·r (fk-als) or r·z (fk-sfa's preconditioned solve) as the float its CG steps divide
// by, or 0 once it falls below the smallest normal float: the row has converged, and the steps
// leave it alone. There the float keeps a bit or two while r and z are still normal numbers of
// about 1e-19 to 1e-22; the ratios α and β built from it were noise, and --cg-steps past that
// point grew the residual a few times a step until the factors overflowed (fk-als on MovieLens
// 100K at --cg-steps 100: NaN in the first iteration).
FK_CG_HD float cg_dot_or_converged(double dot) { return dot >= double(FLT_MIN) ? float(dot) : 0.0f; }

}  // namespace fk::app
