#include "core/half.hpp"

#include <cmath>
#include <cstring>

#include "core/error.hpp"

namespace fk {
namespace {

// CUDA's conversions turn every NaN into this one quiet NaN (sign dropped), in both formats.
constexpr HalfBits kCanonicalNaN = 0x7fff;

std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

float float_of(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// value >> shift (1 <= shift <= 31), rounded to nearest with ties to even.
std::uint32_t shift_round_even(std::uint32_t value, unsigned shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + (rest > half || (rest == half && (kept & 1u)) ? 1u : 0u);
}

void check_half(Precision p) {
  FK_CHECK(p == Precision::kF16 || p == Precision::kBF16,
           "16-bit conversion needs fp16 or bf16, got " << to_string(p));
}

}  // namespace

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kF32:
      return "fp32";
    case Precision::kF16:
      return "fp16";
    case Precision::kBF16:
      return "bf16";
  }
  return "?";
}

Precision parse_precision(const std::string& text) {
  for (Precision p : {Precision::kF32, Precision::kF16, Precision::kBF16})
    if (text == to_string(p)) return p;
  throw Error("unknown precision '" + text + "' (expected one of fp32, fp16, bf16)");
}

HalfBits float_to_fp16(float x) {
  const std::uint32_t b = bits_of(x);
  const auto sign = static_cast<HalfBits>((b >> 16) & 0x8000u);
  const std::uint32_t mag = b & 0x7fffffffu;
  if (mag > 0x7f800000u) return kCanonicalNaN;
  // 65520 (0x477ff000) lies halfway between 65504, whose last mantissa bit is odd, and 2^16:
  // it and everything above rounds to infinity.
  if (mag >= 0x477ff000u) return sign | 0x7c00u;
  if (mag >= 0x38800000u) {
    // Normal in fp16 (>= 2^-14): rebias the exponent (127 -> 15) and drop 13 mantissa bits. A
    // carry out of the mantissa correctly bumps the exponent.
    return sign | static_cast<HalfBits>(shift_round_even(mag - 0x38000000u, 13));
  }
  // At most 2^-25, half the smallest subnormal: a tie at 2^-25 itself goes to the even zero.
  if (mag <= 0x33000000u) return sign;
  // Subnormal: the value in units of 2^-24 is the 24-bit significand shifted right by
  // 126 - exponent (14..24 here); rounding up may reach the smallest normal, 0x0400, which is
  // right.
  const std::uint32_t exponent = mag >> 23;
  const std::uint32_t significand = (mag & 0x7fffffu) | 0x800000u;
  return sign | static_cast<HalfBits>(shift_round_even(significand, 126 - exponent));
}

float fp16_to_float(HalfBits h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f)  // inf; any NaN becomes the canonical float NaN, as __half2float does
    return float_of(mantissa ? 0x7fffffffu : sign | 0x7f800000u);
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

HalfBits float_to_bf16(float x) {
  const std::uint32_t b = bits_of(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) return kCanonicalNaN;
  // bf16 is the top half of a float: round the low 16 bits away, ties to even. A carry may
  // overflow the largest finite value into infinity, as it should; it never reaches the sign.
  return static_cast<HalfBits>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

float bf16_to_float(HalfBits h) { return float_of(static_cast<std::uint32_t>(h) << 16); }

HalfBits float_to_half(float x, Precision p) {
  check_half(p);
  return p == Precision::kF16 ? float_to_fp16(x) : float_to_bf16(x);
}

float half_to_float(HalfBits h, Precision p) {
  check_half(p);
  return p == Precision::kF16 ? fp16_to_float(h) : bf16_to_float(h);
}

std::vector<HalfBits> to_half(const std::vector<float>& x, Precision p) {
  check_half(p);
  std::vector<HalfBits> out(x.size());
  const auto n = static_cast<std::int64_t>(x.size());
  // Large factor matrices are converted every iteration; each element is independent.
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    out[i] = p == Precision::kF16 ? float_to_fp16(x[i]) : float_to_bf16(x[i]);
  return out;
}

std::vector<float> to_float(const std::vector<HalfBits>& h, Precision p) {
  check_half(p);
  std::vector<float> out(h.size());
  const auto n = static_cast<std::int64_t>(h.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    out[i] = p == Precision::kF16 ? fp16_to_float(h[i]) : bf16_to_float(h[i]);
  return out;
}

float round_to(float x, Precision p) {
  if (p == Precision::kF32) return x;
  return half_to_float(float_to_half(x, p), p);
}

}  // namespace fk
