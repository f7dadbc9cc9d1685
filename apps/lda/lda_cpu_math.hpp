#pragma once
// The CPU backend's per-element math: exp(ψ(g) − ψ(Σ)) for a whole row at a time, written without
// branches or library calls so that the loop over the row vectorizes. glibc's expf and logf are
// scalar calls (GCC maps them to vector versions only under -ffast-math); with them the
// expectations took about 30% of fk-lda's CPU pass on kos (perf, 2 cores). ψ and the expectation
// are lda_math.hpp's (digamma_single, dirichlet_expectation), with this file's exp and log: range
// reduction and Taylor series with exact coefficients, each within 2 ulp
// (tests/apps/test_lda_math.cpp). The selects vectorize
// only where the compiler may assume that floating-point operations do not trap: the file that
// runs these loops is compiled with -fno-trapping-math (apps/lda/CMakeLists.txt).
#include <cstdint>
#include <cstring>

#include "apps/lda/lda_math.hpp"

namespace fk::lda::cpu_math {

inline float bits_to_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline std::uint32_t float_to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// e^x. x = n·ln 2 + r with |r| <= ln 2 / 2 (ln 2 in two parts, so r is exact to float rounding);
// e^r by its Taylor series to r⁷ (the next term is below 6e-9 of the result); 2^n from the
// exponent bits. Below −87.3 (where e^x leaves the normal floats) the result is 0, above 88 it is
// +inf (the expectations' arguments are at most rounding above 0).
inline float exp_approx(float x) {
  float t = x < -87.3f ? -87.3f : x;
  t = t > 88.0f ? 88.0f : t;
  const float n = __builtin_floorf(t * 1.44269504f + 0.5f);
  float r = t - n * 0.693145752f;  // ln 2's first 16 bits: n · them is exact
  r = r - n * 1.42860677e-06f;     // the rest of ln 2
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const float scale = bits_to_float(static_cast<std::uint32_t>(static_cast<int>(n) + 127) << 23);
  float e = p * scale;
  e = x < -87.3f ? 0.0f : e;
  e = x > 88.0f ? __builtin_inff() : e;
  return e;
}

// ln x for positive normal x: x = m·2^e with m in [√½, √2), ln m = 2 atanh(s), s = (m − 1)/(m + 1)
// (|s| <= 0.172), by the series to s¹¹ (the next term is below 1e-11).
inline float log_approx(float x) {
  const std::uint32_t u = float_to_bits(x);
  int e = static_cast<int>(u >> 23) - 127;
  float m = bits_to_float((u & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const bool high = m > 1.41421356f;
  const float half_m = m * 0.5f;
  m = high ? half_m : m;
  e = high ? e + 1 : e;
  const float s = (m - 1.0f) / (m + 1.0f);
  const float z = s * s;
  float p = 1.0f / 11;
  p = p * z + 1.0f / 9;
  p = p * z + 1.0f / 7;
  p = p * z + 1.0f / 5;
  p = p * z + 1.0f / 3;
  p = p * z + 1.0f;
  return static_cast<float>(e) * 0.693147181f + 2.0f * s * p;
}

// The log and exp above as lda_math.hpp's Math policy.
struct ApproxMath {
  static float log(float x) { return log_approx(x); }
  static float exp(float x) { return exp_approx(x); }
};

// ψ(x) for x > 0 by lda_math.hpp's method with this file's log.
inline float digamma_approx(float x) { return digamma_single<ApproxMath>(x); }

// out[c] = exp(ψ(in[c]) − psi_sum) for a row of E[θ].
inline void row_expectations(const float* in, int k, double psi_sum, float* out) {
#pragma omp simd
  for (int c = 0; c < k; ++c) out[c] = dirichlet_expectation<ApproxMath>(in[c], psi_sum);
}

// out[c] = exp(ψ(in[c]) − psi_colsum[c]) for a row of E[β].
inline void column_expectations(const float* in, int k, const double* psi_colsum, float* out) {
#pragma omp simd
  for (int c = 0; c < k; ++c) out[c] = dirichlet_expectation<ApproxMath>(in[c], psi_colsum[c]);
}

}  // namespace fk::lda::cpu_math
