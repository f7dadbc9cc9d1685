#pragma once
// 16-bit floating-point storage for the tensor-core kernels: IEEE binary16 (fp16) and bfloat16.
// Host code keeps both as raw bits (HalfBits) so that no CUDA header is needed; device code
// reinterprets them as __half / __nv_bfloat16. Conversions round to nearest, ties to even, like
// __float2half_rn and __float2bfloat16_rn, so host and device conversions agree bit for bit.
#include <cstdint>
#include <string>
#include <vector>

namespace fk {

using HalfBits = std::uint16_t;

// Operand precision of a kernel problem. fp32 variants serve kF32; the tensor-core variants take
// fp16 or bf16 operands and accumulate in fp32.
enum class Precision { kF32, kF16, kBF16 };
const char* to_string(Precision p);  // "fp32", "fp16", "bf16"
// Parses "fp32", "fp16" or "bf16"; throws fk::Error naming the accepted values.
Precision parse_precision(const std::string& text);

// Rounds to nearest even; overflow gives ±inf, NaN stays NaN (quiet). fp16 subnormals are kept.
HalfBits float_to_fp16(float x);
float fp16_to_float(HalfBits h);
HalfBits float_to_bf16(float x);
float bf16_to_float(HalfBits h);

// By precision (kF16 or kBF16; kF32 is an error).
HalfBits float_to_half(float x, Precision p);
float half_to_float(HalfBits h, Precision p);
std::vector<HalfBits> to_half(const std::vector<float>& x, Precision p);
std::vector<float> to_float(const std::vector<HalfBits>& h, Precision p);
// x rounded to the precision and back: what the tensor-core kernels see of an fp32 input.
float round_to(float x, Precision p);

}  // namespace fk
