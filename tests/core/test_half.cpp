// fp16 / bf16 conversions: exact bits for known values (the same as __float2half_rn and
// __float2bfloat16_rn give), ties to even, overflow, subnormals, NaN, and the Precision names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/half.hpp"

namespace fk {
namespace {

float from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

const float kInf = std::numeric_limits<float>::infinity();

TEST(Half, Fp16KnownValues) {
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16(-2.5f), 0xc100);
  EXPECT_EQ(float_to_fp16(0.0f), 0x0000);
  EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_fp16(0.1f), 0x2e66);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);  // the largest finite fp16
  EXPECT_EQ(float_to_fp16(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);  // halfway to 2^16, ties to the even inf
  EXPECT_EQ(float_to_fp16(-1e30f), 0xfc00);
  EXPECT_EQ(float_to_fp16(kInf), 0x7c00);
  EXPECT_EQ(float_to_fp16(-kInf), 0xfc00);
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_fp16(-std::ldexp(1.0f, -24)), 0x8001);
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);  // tie between 0 and 2^-24: even 0
  EXPECT_EQ(float_to_fp16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(float_to_fp16(std::ldexp(1.5f, -24)), 0x0002);  // subnormal tie: 1 or 2 -> 2
  EXPECT_EQ(float_to_fp16(1e-10f), 0x0000);
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_float(0x3ff), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(fp16_to_float(0xc100), -2.5f);
  EXPECT_EQ(fp16_to_float(0x7c00), kInf);
  EXPECT_EQ(bits_of(fp16_to_float(0x8000)), 0x80000000u);
}

TEST(Half, Fp16TiesGoToEven) {
  // 1 + 2^-11 lies halfway between 1 (0x3c00, even) and 1 + 2^-10 (0x3c01).
  EXPECT_EQ(float_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(float_to_fp16(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3c01);
  // 1 + 3 x 2^-11 lies halfway between 0x3c01 and 0x3c02 (even).
  EXPECT_EQ(float_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(float_to_fp16(-1.0f - 3 * std::ldexp(1.0f, -11)), 0xbc02);
}

TEST(Half, Bf16KnownValues) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-2.5f), 0xc020);
  EXPECT_EQ(float_to_bf16(0.1f), 0x3dcd);  // 0x3dcccccd rounds up
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_bf16(65504.0f), 0x4780);  // 2^16: bf16 keeps float's range, not fp16's
  EXPECT_EQ(float_to_bf16(3.0e38f), 0x7f62);   // finite in bf16, unlike fp16
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds past 0x7f7f
  EXPECT_EQ(float_to_bf16(-kInf), 0xff80);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(bf16_to_float(0x3dcd), from_bits(0x3dcd0000u));
  EXPECT_EQ(bf16_to_float(0x7f62), from_bits(0x7f620000u));
}

TEST(Half, Bf16TiesGoToEven) {
  // 1 + 2^-8 is halfway between 0x3f80 (even) and 0x3f81; 1 + 3 x 2^-8 between 0x3f81 and 0x3f82.
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808000u)), 0x3f80);
  EXPECT_EQ(float_to_bf16(from_bits(0x3f808001u)), 0x3f81);
  EXPECT_EQ(float_to_bf16(from_bits(0x3f818000u)), 0x3f82);
  EXPECT_EQ(float_to_bf16(from_bits(0x3f817fffu)), 0x3f81);
}

TEST(Half, NanStaysNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float signalling_negative = from_bits(0xff800001u);
  for (float x : {nan, -nan, signalling_negative}) {
    // CUDA gives one canonical quiet NaN for any NaN input.
    EXPECT_EQ(float_to_fp16(x), 0x7fff);
    EXPECT_EQ(float_to_bf16(x), 0x7fff);
    EXPECT_TRUE(std::isnan(round_to(x, Precision::kF16)));
    EXPECT_TRUE(std::isnan(round_to(x, Precision::kBF16)));
  }
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7c01)));
  EXPECT_TRUE(std::isnan(fp16_to_float(0xfe00)));
  EXPECT_TRUE(std::isnan(bf16_to_float(0xffc1)));
}

// Every finite fp16 (and bf16) value converts to float and back to the same bits.
TEST(Half, EveryFiniteBitPatternRoundTrips) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<HalfBits>(h);
    if ((h & 0x7c00u) != 0x7c00u) {
      ASSERT_EQ(float_to_fp16(fp16_to_float(bits)), bits) << std::hex << h;
    }
    if ((h & 0x7f80u) != 0x7f80u) {
      ASSERT_EQ(float_to_bf16(bf16_to_float(bits)), bits) << std::hex << h;
    }
  }
}

// Between every two neighbouring positive finite fp16 values, the midpoint goes to the even one
// and the floats just either side of it go to the nearer one: round-to-nearest-even everywhere,
// subnormals and the normal boundary included.
TEST(Half, Fp16MidpointsBetweenAllNeighbours) {
  for (HalfBits a = 0; a < 0x7bff; ++a) {
    const HalfBits b = a + 1;
    const float mid = (fp16_to_float(a) + fp16_to_float(b)) / 2;  // exact in float
    ASSERT_EQ(float_to_fp16(mid), (a % 2 == 0) ? a : b) << std::hex << a;
    ASSERT_EQ(float_to_fp16(std::nextafter(mid, 0.0f)), a) << std::hex << a;
    ASSERT_EQ(float_to_fp16(std::nextafter(mid, kInf)), b) << std::hex << a;
  }
}

TEST(Half, ByPrecision) {
  EXPECT_EQ(float_to_half(0.1f, Precision::kF16), 0x2e66);
  EXPECT_EQ(float_to_half(0.1f, Precision::kBF16), 0x3dcd);
  EXPECT_EQ(half_to_float(0x2e66, Precision::kF16), fp16_to_float(0x2e66));
  EXPECT_EQ(half_to_float(0x3dcd, Precision::kBF16), bf16_to_float(0x3dcd));
  EXPECT_EQ(round_to(0.1f, Precision::kBF16), from_bits(0x3dcd0000u));
  EXPECT_EQ(round_to(65520.0f, Precision::kF16), kInf);
  EXPECT_EQ(round_to(0.1f, Precision::kF32), 0.1f);
  const std::vector<float> x = {1.0f, -2.5f, 0.1f, 65520.0f};
  EXPECT_EQ(to_half(x, Precision::kF16), (std::vector<HalfBits>{0x3c00, 0xc100, 0x2e66, 0x7c00}));
  EXPECT_EQ(to_half(x, Precision::kBF16), (std::vector<HalfBits>{0x3f80, 0xc020, 0x3dcd, 0x4780}));
  EXPECT_EQ(to_float({0x3c00, 0xc100}, Precision::kF16), (std::vector<float>{1.0f, -2.5f}));
  EXPECT_EQ(to_float({0x3f80, 0xc020}, Precision::kBF16), (std::vector<float>{1.0f, -2.5f}));
  EXPECT_THROW(float_to_half(1.0f, Precision::kF32), Error);
  EXPECT_THROW(half_to_float(0x3c00, Precision::kF32), Error);
  EXPECT_THROW(to_half(x, Precision::kF32), Error);
  EXPECT_THROW(to_float({0x3c00}, Precision::kF32), Error);
}

TEST(Half, PrecisionNames) {
  for (Precision p : {Precision::kF32, Precision::kF16, Precision::kBF16})
    EXPECT_EQ(parse_precision(to_string(p)), p);
  EXPECT_STREQ(to_string(Precision::kBF16), "bf16");
  for (const char* bad : {"fp8", "FP16", "", "half", "bf16 "}) {
    try {
      parse_precision(bad);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("fp32, fp16, bf16"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace fk
