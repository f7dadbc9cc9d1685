#pragma once
// Small SIMD building blocks shared by the tuned OpenMP variants (the `rows` SDDMM baseline keeps
// the plain `#pragma omp simd reduction` a user would write, on purpose).
//
// Written with GCC/Clang vector extensions rather than intrinsics: the compiler lowers an 8-lane
// float vector to one AVX register with -march=x86-64-v3 and to two SSE/NEON registers elsewhere,
// so the code stays portable while fixing the register blocking ourselves (GCC does not interleave
// reduction accumulators on its own, which leaves a single FMA dependency chain per dot product).
// FMA contraction of `acc + x * y` is GCC's default for C++ (-ffp-contract=fast).
//
// Every pointer here is host memory. Dense rows are contiguous floats; K may be any value >= 1
// (full 8-lane blocks first, then a scalar tail of K % 8 columns).
#include <cstdint>
#include <cstring>

namespace fk::omp_simd {

typedef float V8 __attribute__((vector_size(32)));
constexpr int kLanes = 8;
// Column block of the SpMM accumulators kept in registers: 8 vectors = 64 floats (16 AVX
// registers exist; the rest hold B loads and the broadcast value).
constexpr int kBlockVectors = 8;
constexpr int kBlockCols = kBlockVectors * kLanes;

inline V8 load(const float* p) {
  V8 v;
  std::memcpy(&v, p, sizeof(v));  // unaligned load; compiles to one vmovups
  return v;
}
inline void store(float* p, V8 v) { std::memcpy(p, &v, sizeof(v)); }
inline V8 splat(float x) { return V8{x, x, x, x, x, x, x, x}; }
inline V8 zero() { return V8{0, 0, 0, 0, 0, 0, 0, 0}; }
inline float hsum(V8 v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

// Two-source lane shuffle: result lane i = (a ++ b)[index i].
#if defined(__clang__)
#define FK_SHUFFLE8(a, b, i0, i1, i2, i3, i4, i5, i6, i7) __builtin_shufflevector(a, b, i0, i1, i2, i3, i4, i5, i6, i7)
#else
typedef int I8 __attribute__((vector_size(32)));
#define FK_SHUFFLE8(a, b, i0, i1, i2, i3, i4, i5, i6, i7) __builtin_shuffle(a, b, I8{i0, i1, i2, i3, i4, i5, i6, i7})
#endif

// Returns the vector of the 8 horizontal sums {sum(s[0]), ..., sum(s[7])}: a transposing
// reduction (halves, then pairs within 128-bit lanes, then neighbours) that costs 21 shuffles and
// adds instead of 8 separate horizontal sums (~48).
inline V8 transpose_sum8(const V8 s[8]) {
  V8 t[4];
  for (int i = 0; i < 4; ++i)  // lanes 0-3: partial sums of s[i]; lanes 4-7: of s[i+4]
    t[i] = FK_SHUFFLE8(s[i], s[i + 4], 0, 1, 2, 3, 8, 9, 10, 11) + FK_SHUFFLE8(s[i], s[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  // [s0 s0 s1 s1 | s4 s4 s5 s5] and [s2 s2 s3 s3 | s6 s6 s7 s7]
  const V8 u0 = FK_SHUFFLE8(t[0], t[1], 0, 1, 8, 9, 4, 5, 12, 13) + FK_SHUFFLE8(t[0], t[1], 2, 3, 10, 11, 6, 7, 14, 15);
  const V8 u1 = FK_SHUFFLE8(t[2], t[3], 0, 1, 8, 9, 4, 5, 12, 13) + FK_SHUFFLE8(t[2], t[3], 2, 3, 10, 11, 6, 7, 14, 15);
  // [s0 s1 s2 s3 | s4 s5 s6 s7]
  return FK_SHUFFLE8(u0, u1, 0, 2, 8, 10, 4, 6, 12, 14) + FK_SHUFFLE8(u0, u1, 1, 3, 9, 11, 5, 7, 13, 15);
}

// ---- SDDMM: dot products of one A row with several B rows ---------------------------------------

// Returns dot(a, b) over k floats.
inline float dot1(const float* a, const float* b, std::int64_t k) {
  V8 s0 = zero(), s1 = zero();
  std::int64_t t = 0;
  for (; t + 2 * kLanes <= k; t += 2 * kLanes) {  // two chains hide part of the FMA latency
    s0 += load(a + t) * load(b + t);
    s1 += load(a + t + kLanes) * load(b + t + kLanes);
  }
  if (t + kLanes <= k) {
    s0 += load(a + t) * load(b + t);
    t += kLanes;
  }
  float r = hsum(s0 + s1);
  for (; t < k; ++t) r += a[t] * b[t];
  return r;
}

// r[q] = dot(a, b_q) for q = 0..3: a is loaded once per block and shared by four independent
// accumulator chains (the A row stays in L1, the B rows stream).
inline void dot4(const float* a, const float* b0, const float* b1, const float* b2, const float* b3,
                 std::int64_t k, float r[4]) {
  V8 s0 = zero(), s1 = zero(), s2 = zero(), s3 = zero();
  std::int64_t t = 0;
  for (; t + kLanes <= k; t += kLanes) {
    const V8 av = load(a + t);
    s0 += av * load(b0 + t);
    s1 += av * load(b1 + t);
    s2 += av * load(b2 + t);
    s3 += av * load(b3 + t);
  }
  float r0 = hsum(s0), r1 = hsum(s1), r2 = hsum(s2), r3 = hsum(s3);
  for (; t < k; ++t) {
    r0 += a[t] * b0[t];
    r1 += a[t] * b1[t];
    r2 += a[t] * b2[t];
    r3 += a[t] * b3[t];
  }
  r[0] = r0;
  r[1] = r1;
  r[2] = r2;
  r[3] = r3;
}

// r[q] = dot(a, b[q]) for q = 0..7: eight accumulator chains share each load of a (enough
// independent FMAs to cover their latency), reduced together by transpose_sum8.
inline void dot8(const float* a, const float* const b[8], std::int64_t k, float r[8]) {
  V8 s[8];
  for (int q = 0; q < 8; ++q) s[q] = zero();
  std::int64_t t = 0;
  for (; t + kLanes <= k; t += kLanes) {
    const V8 av = load(a + t);
    for (int q = 0; q < 8; ++q) s[q] += av * load(b[q] + t);
  }
  const V8 sums = transpose_sum8(s);
  for (int q = 0; q < 8; ++q) {
    float x = sums[q];
    for (std::int64_t u = t; u < k; ++u) x += a[u] * b[q][u];
    r[q] = x;
  }
}

// For entries e in [0, n): res = dot(a, B[cols[e]]); out[pos(e)] = scale(e) * res, where
// pos(e) = perm ? perm[e] : e and scale(e) = s_vals ? s_vals[pos(e)] : 1.
// `b` is row-major with `ldb` floats per row. cols/perm point at the first entry of the range;
// s_vals and out are indexed by absolute position in S's order.
inline void sddmm_entries(const float* a, const float* b, std::int64_t ldb, std::int64_t k,
                          const std::int32_t* cols, const std::int64_t* perm, std::int64_t first,
                          std::int64_t n, const float* s_vals, float* out) {
  auto emit = [&](std::int64_t e, float v) {
    const std::int64_t pos = perm ? perm[e] : first + e;
    out[pos] = s_vals ? v * s_vals[pos] : v;
  };
  std::int64_t e = 0;
  float r[8];
  if (k >= kLanes) {  // below one vector the scalar tails do all the work: skip the reductions
    const float* bq[8];
    for (; e + 8 <= n; e += 8) {
      for (int q = 0; q < 8; ++q) bq[q] = b + std::int64_t(cols[e + q]) * ldb;
      dot8(a, bq, k, r);
      for (int q = 0; q < 8; ++q) emit(e + q, r[q]);
    }
  }
  for (; e + 4 <= n; e += 4) {
    dot4(a, b + std::int64_t(cols[e]) * ldb, b + std::int64_t(cols[e + 1]) * ldb,
         b + std::int64_t(cols[e + 2]) * ldb, b + std::int64_t(cols[e + 3]) * ldb, k, r);
    emit(e, r[0]);
    emit(e + 1, r[1]);
    emit(e + 2, r[2]);
    emit(e + 3, r[3]);
  }
  for (; e < n; ++e) emit(e, dot1(a, b + std::int64_t(cols[e]) * ldb, k));
}

// ---- SpMM: one output row from a list of (column, value) entries -------------------------------

// out[k0 .. k0 + 8*NV) (+)= sum_e vals[e] * B[cols[e], k0 .. k0 + 8*NV), the accumulators held in
// NV vector registers for the whole entry list, so `out` is read (when accumulating) and written once.
// With NV <= 4 the NV accumulator chains alone would wait on FMA latency (4 cycles per entry),
// so even and odd entries go to two accumulator sets, summed at the end. With TAIL, one more
// accumulator covers the row's last whole vector [kt, kt + 8) (spmm_row), starting from tail_init
// (out's values there, read before any block stored), and is stored last.
template <int NV, bool TAIL = false>
inline void spmm_block(const std::int32_t* cols, const float* vals, std::int64_t n, const float* b,
                       std::int64_t ldb, std::int64_t k0, float* out, bool accumulate,
                       std::int64_t kt = 0, V8 tail_init = zero()) {
  constexpr int kSets = NV + (TAIL ? 1 : 0) <= 4 ? 2 : 1;
  V8 acc[kSets][NV], tacc[kSets];
  for (int q = 0; q < NV; ++q) {
    acc[0][q] = accumulate ? load(out + k0 + q * kLanes) : zero();
    if (kSets == 2) acc[kSets - 1][q] = zero();
  }
  if (TAIL) {
    tacc[0] = tail_init;
    if (kSets == 2) tacc[kSets - 1] = zero();
  }
  const float* bk = b + k0;
  const std::int64_t dt = kt - k0;  // the tail vector's offset from bk
  std::int64_t e = 0;
  if (kSets == 2) {
    for (; e + 2 <= n; e += 2) {
      const V8 v0 = splat(vals[e]), v1 = splat(vals[e + 1]);
      const float* b0 = bk + std::int64_t(cols[e]) * ldb;
      const float* b1 = bk + std::int64_t(cols[e + 1]) * ldb;
      for (int q = 0; q < NV; ++q) {
        acc[0][q] += v0 * load(b0 + q * kLanes);
        acc[kSets - 1][q] += v1 * load(b1 + q * kLanes);
      }
      if (TAIL) {
        tacc[0] += v0 * load(b0 + dt);
        tacc[kSets - 1] += v1 * load(b1 + dt);
      }
    }
  }
  for (; e < n; ++e) {
    const V8 v = splat(vals[e]);
    const float* br = bk + std::int64_t(cols[e]) * ldb;
    for (int q = 0; q < NV; ++q) acc[0][q] += v * load(br + q * kLanes);
    if (TAIL) tacc[0] += v * load(br + dt);
  }
  for (int q = 0; q < NV; ++q) store(out + k0 + q * kLanes, kSets == 2 ? acc[0][q] + acc[kSets - 1][q] : acc[0][q]);
  if (TAIL) store(out + kt, kSets == 2 ? tacc[0] + tacc[kSets - 1] : tacc[0]);
}

// out[0..k) (+)= sum_{e < n} vals[e] * B[cols[e], 0..k). `out` holds k floats (a C row or a carry
// buffer). Column blocks of 64 floats keep their accumulators in registers. Where K >= 8 is not a
// multiple of 8, the last block also carries the row's last whole vector [K - 8, K), which
// overlaps the vectors before it and stays inside the row: the partial vector's columns in the
// same pass over the entries instead of a scalar pass of their own (the overlapped columns come
// out twice with the same sums, and the tail is stored last). Below K = 8 a scalar pass covers
// the row.
inline void spmm_row(const std::int32_t* cols, const float* vals, std::int64_t n, const float* b,
                     std::int64_t ldb, std::int64_t k, float* out, bool accumulate) {
  if (k >= kLanes && k % kLanes != 0) {
    // The partial vector as the last whole one, with the last block of whole vectors.
    const std::int64_t kt = k - kLanes;
    const V8 tail_init = accumulate ? load(out + kt) : zero();
    const std::int64_t blocks = (k / kLanes - 1) / kBlockVectors;  // leaves 1-8 whole vectors
    std::int64_t k0 = 0;
    for (std::int64_t i = 0; i < blocks; ++i, k0 += kBlockCols)
      spmm_block<kBlockVectors>(cols, vals, n, b, ldb, k0, out, accumulate);
    switch ((k - k0) / kLanes) {
      case 8: spmm_block<8, true>(cols, vals, n, b, ldb, k0, out, accumulate, kt, tail_init); break;
      case 7: spmm_block<7, true>(cols, vals, n, b, ldb, k0, out, accumulate, kt, tail_init); break;
      case 6: spmm_block<6, true>(cols, vals, n, b, ldb, k0, out, accumulate, kt, tail_init); break;
      case 5: spmm_block<5, true>(cols, vals, n, b, ldb, k0, out, accumulate, kt, tail_init); break;
      case 4: spmm_block<4, true>(cols, vals, n, b, ldb, k0, out, accumulate, kt, tail_init); break;
      case 3: spmm_block<3, true>(cols, vals, n, b, ldb, k0, out, accumulate, kt, tail_init); break;
      case 2: spmm_block<2, true>(cols, vals, n, b, ldb, k0, out, accumulate, kt, tail_init); break;
      default: spmm_block<1, true>(cols, vals, n, b, ldb, k0, out, accumulate, kt, tail_init); break;
    }
    return;
  }
  std::int64_t k0 = 0;
  for (; k0 + kBlockCols <= k; k0 += kBlockCols)
    spmm_block<kBlockVectors>(cols, vals, n, b, ldb, k0, out, accumulate);
  switch ((k - k0) / kLanes) {
    case 7: spmm_block<7>(cols, vals, n, b, ldb, k0, out, accumulate); break;
    case 6: spmm_block<6>(cols, vals, n, b, ldb, k0, out, accumulate); break;
    case 5: spmm_block<5>(cols, vals, n, b, ldb, k0, out, accumulate); break;
    case 4: spmm_block<4>(cols, vals, n, b, ldb, k0, out, accumulate); break;
    case 3: spmm_block<3>(cols, vals, n, b, ldb, k0, out, accumulate); break;
    case 2: spmm_block<2>(cols, vals, n, b, ldb, k0, out, accumulate); break;
    case 1: spmm_block<1>(cols, vals, n, b, ldb, k0, out, accumulate); break;
    default: break;
  }
  k0 += (k - k0) / kLanes * kLanes;
  const std::int64_t tail = k - k0;  // 0..7 columns
  if (tail == 0) return;
  if (tail == 1 && k0 == 0) {  // SpMV (K = 1): four chains over the entries instead of one
    float s0 = accumulate ? out[0] : 0.0f, s1 = 0, s2 = 0, s3 = 0;
    std::int64_t e = 0;
    for (; e + 4 <= n; e += 4) {
      s0 += vals[e] * b[std::int64_t(cols[e]) * ldb];
      s1 += vals[e + 1] * b[std::int64_t(cols[e + 1]) * ldb];
      s2 += vals[e + 2] * b[std::int64_t(cols[e + 2]) * ldb];
      s3 += vals[e + 3] * b[std::int64_t(cols[e + 3]) * ldb];
    }
    for (; e < n; ++e) s0 += vals[e] * b[std::int64_t(cols[e]) * ldb];
    out[0] = (s0 + s1) + (s2 + s3);
    return;
  }
  float acc[kLanes];
  for (std::int64_t t = 0; t < tail; ++t) acc[t] = accumulate ? out[k0 + t] : 0.0f;
  for (std::int64_t e = 0; e < n; ++e) {
    const float v = vals[e];
    const float* br = b + std::int64_t(cols[e]) * ldb + k0;
    for (std::int64_t t = 0; t < tail; ++t) acc[t] += v * br[t];
  }
  for (std::int64_t t = 0; t < tail; ++t) out[k0 + t] = acc[t];
}

}  // namespace fk::omp_simd
