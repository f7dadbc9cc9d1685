#pragma once
// Scalar math shared by the CPU and the GPU paths of fk-lda, written once so both sides compute
// the same numbers: the digamma function and the seeded Gamma(100, 1/100) draws that initialise
// γ (per document) and λ (per word). Compiles as host code, and as host + device code under nvcc.
// No CUDA headers: FK_LDA_HD expands to __host__ __device__ only when nvcc compiles the file.
#include <math.h>

#include <cstdint>

#ifdef __CUDACC__
#define FK_LDA_HD __host__ __device__ __forceinline__
#else
#define FK_LDA_HD inline
#endif

namespace fk::lda {

// ψ(x) = d/dx log Γ(x) for x > 0, accurate to ~1e-14 relative. Shifts x up to >= 10 with
// ψ(x) = ψ(x + 1) − 1/x, then uses the asymptotic series
// ψ(x) ~ ln x − 1/(2x) − 1/(12x²) + 1/(120x⁴) − 1/(252x⁶) + 1/(240x⁸) − 1/(132x¹⁰).
// The shifted-off terms Σ 1/(x + i) are kept as one fraction p/q, so small arguments (most of γ
// sits near α) cost one division instead of up to ten; this function runs once per
// (document, topic) per E-step iteration.
// ψ(0) = −inf; negative arguments are not used by LDA (γ ≥ α > 0, λ ≥ η > 0) and return NaN.
FK_LDA_HD double digamma(double x) {
  if (!(x > 0.0)) return x == 0.0 ? -HUGE_VAL : NAN;
  double p = 0.0, q = 1.0;  // Σ 1/(x + i) over the shifts = p / q
  while (x < 10.0) {
    p = p * x + q;
    q *= x;
    x += 1.0;
  }
  const double inv = 1.0 / x;
  const double f = inv * inv;
  const double series =
      f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
  return log(x) - 0.5 * inv - series - p / q;
}

// ψ(x) in single precision, for the per-element expectations of the E-step (ψ of every γ and λ
// entry, once per inner iteration: on an H100 the double version above made the γ update and the
// E[β] gather about a fifth of an nytimes minibatch). Same method with the shift to x >= 6 (the
// series' next term, 1/(240x⁸), is below 3e-9 there): the first shift's 1/x exactly, the other
// shifts as one fraction p/q. Absolute error below 1e-6·max(1, |ψ(x)|) for x in [1e-6, 1e7]
// (tests/apps/test_lda_math.cpp), about a float's rounding of ψ itself, so exp(ψ(x) − ψ(Σ)) keeps
// about 1e-6 relative error wherever it is not negligibly small: the level of the E-step's float
// dot products.
//
// `Math` supplies the float log and exp: LibmMath (the C library's, CUDA's on the device) or the
// CPU backend's vectorizable ones (lda_cpu_math.hpp). Every shift is a select rather than a loop
// test, so a loop over elements vectorizes on the CPU; the arithmetic is the loop's. For x > 0
// (γ >= α > 0, λ >= η > 0); digammaf below checks.
template <class Math>
FK_LDA_HD float digamma_single(float x) {
  const bool small = x < 6.0f;
  const float inv_x = 1.0f / x;
  float shifted = small ? inv_x : 0.0f;  // Σ 1/(x + i) over the shifts
  float y = small ? x + 1.0f : x;
  float p = 0.0f, q = 1.0f;  // the shifts after the first: their sum = p / q
  for (int i = 0; i < 5; ++i) {
    const bool more = y < 6.0f;
    const float p_next = p * y + q, q_next = q * y, y_next = y + 1.0f;
    p = more ? p_next : p;
    q = more ? q_next : q;
    y = more ? y_next : y;
  }
  shifted += p / q;
  const float inv = 1.0f / y;
  const float f = inv * inv;
  const float series = f * (1.0f / 12 - f * (1.0f / 120 - f * (1.0f / 252)));
  return (Math::log(y) - 0.5f * inv - series) - shifted;
}

// exp(E[log θ_k]) = exp(ψ(g_k) − ψ(Σ_j g_j)) for one entry of a Dirichlet parameter row, given
// ψ(Σ_j g_j) (a double: computed once per row, and its rounding to float would cost up to 1e-6
// of ψ ≈ 14 at nytimes' topic totals). The same formula gives exp(E[log β]) from λ and its topic
// totals. ψ(g_k) in single precision; the difference in double, then exp in float.
template <class Math>
FK_LDA_HD float dirichlet_expectation(float g, double digamma_of_sum) {
  return Math::exp(static_cast<float>(static_cast<double>(digamma_single<Math>(g)) - digamma_of_sum));
}

// The C library's float log and exp (CUDA's in device code).
struct LibmMath {
  FK_LDA_HD static float log(float x) { return logf(x); }
  FK_LDA_HD static float exp(float x) { return expf(x); }
};

FK_LDA_HD float digammaf(float x) {
  if (!(x > 0.0f)) return x == 0.0f ? -HUGE_VALF : NAN;
  return digamma_single<LibmMath>(x);
}

// SplitMix64's finaliser: a bijective 64-bit mix, used as a counter-based generator.
FK_LDA_HD std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in the open interval (0, 1) from 64 random bits.
FK_LDA_HD double open_unit(std::uint64_t h) {
  return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
}

// A Gamma(100, 1/100) draw (mean 1, sd 0.1, gensim's and Hoffman's initialisation) that depends
// only on (key, stream, row, col): the same value on the CPU and on the GPU, for any thread count,
// any batch size and any evaluation order, and without generator state to checkpoint. `key`
// comes from the run's --seed (through fk::Rng), `stream` separates uses (the pass number for
// γ, a constant for λ). Marsaglia & Tsang's method with Box–Muller normals; for shape 100 the
// first try is accepted ~99.9% of the time, and after 8 rejections the mean is returned.
FK_LDA_HD float gamma100_draw(std::uint64_t key, std::uint64_t stream, std::int64_t row,
                              std::int64_t col) {
  const std::uint64_t base =
      mix64(mix64(key ^ mix64(stream)) + 0xd1342543de82ef95ULL * static_cast<std::uint64_t>(row));
  const std::uint64_t cell = mix64(base + 0x2545f4914f6cdd1dULL * static_cast<std::uint64_t>(col));
  const double d = 100.0 - 1.0 / 3.0;
  const double c = 1.0 / sqrt(9.0 * d);
  const double two_pi = 6.283185307179586476925286766559;
  for (std::uint64_t attempt = 0; attempt < 8; ++attempt) {
    const double u1 = open_unit(mix64(cell + 3 * attempt));
    const double u2 = open_unit(mix64(cell + 3 * attempt + 1));
    const double u3 = open_unit(mix64(cell + 3 * attempt + 2));
    const double x = sqrt(-2.0 * log(u1)) * cos(two_pi * u2);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    if (log(u3) < 0.5 * x * x + d - d * v + d * log(v)) return static_cast<float>(d * v / 100.0);
  }
  return 1.0f;
}

// dirichlet_expectation with the C library's (CUDA's) log and exp: the GPU backend's form.
FK_LDA_HD float exp_dirichlet_expectation(float g, double digamma_of_sum) {
  return dirichlet_expectation<LibmMath>(g, digamma_of_sum);
}

}  // namespace fk::lda
