// SPDX-License-Identifier: MIT
// The one platform header: real <arm_neon.h> on arm64, SIMDe's NEON on x86-64. Everything maskapply uses from
// NEON goes through the names here, always with NEON semantics; where Debian's SIMDe 0.7 lacks an intrinsic or
// translates it slowly, the x86 path is written out next to the NEON one.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define MASKAPPLY_NATIVE_NEON 1
#define MASKAPPLY_PLATFORM_NAME "native NEON (aarch64)"
#elif defined(__x86_64__)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
#include <immintrin.h>
#define MASKAPPLY_SIMDE 1
#define MASKAPPLY_PLATFORM_NAME "SIMDe NEON emulation (x86-64)"
#if !defined(__AVX2__) || !defined(__FMA__)
#error "maskapply on x86-64 needs -mavx2 -mfma (SLEEF's deterministic finz_ functions use AVX2+FMA)"
#endif
#else
#error "maskapply supports aarch64 (NEON) and x86-64 (SIMDe)"
#endif

#if defined(__GNUC__)
#define MASKAPPLY_INLINE inline __attribute__((always_inline))
#else
#define MASKAPPLY_INLINE inline
#endif

namespace maskapply::simd {

// Horizontal add of four u32 lanes (NEON addv). SIMDe 0.7 emulates it lane by lane, ~4x slower in detour.
MASKAPPLY_INLINE uint32_t addv(uint32x4_t v) {
#if defined(MASKAPPLY_NATIVE_NEON)
  return vaddvq_u32(v);
#else
  const __m128i x = simde_uint32x4_to_m128i(v);
  __m128i s = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(s));
#endif
}

// Horizontal max of four u32 lanes (NEON umaxv).
MASKAPPLY_INLINE uint32_t maxv(uint32x4_t v) {
#if defined(MASKAPPLY_NATIVE_NEON)
  return vmaxvq_u32(v);
#else
  const __m128i x = simde_uint32x4_to_m128i(v);
  __m128i s = _mm_max_epu32(x, _mm_shuffle_epi32(x, 0x4E));
  s = _mm_max_epu32(s, _mm_shuffle_epi32(s, 0xB1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(s));
#endif
}

// True when any lane is nonzero; the article writes it as vmaxvq_u32(...) != 0.
MASKAPPLY_INLINE bool any(uint32x4_t v) {
#if defined(MASKAPPLY_NATIVE_NEON)
  return vmaxvq_u32(v) != 0;
#else
  const __m128i x = simde_uint32x4_to_m128i(v);
  return !_mm_testz_si128(x, x);
#endif
}

// IEEE square root per lane (fsqrt). Debian's SIMDe 0.7 has no vsqrtq_f32.
MASKAPPLY_INLINE float32x4_t sqrt(float32x4_t v) {
#if defined(MASKAPPLY_NATIVE_NEON)
  return vsqrtq_f32(v);
#else
  return simde_float32x4_from_m128(_mm_sqrt_ps(simde_float32x4_to_m128(v)));
#endif
}

// Fused a + b*c per lane with a single rounding (fmla).
MASKAPPLY_INLINE float32x4_t fma(float32x4_t a, float32x4_t b, float32x4_t c) {
#if defined(MASKAPPLY_NATIVE_NEON)
  return vfmaq_f32(a, b, c);
#else
  return simde_float32x4_from_m128(
      _mm_fmadd_ps(simde_float32x4_to_m128(b), simde_float32x4_to_m128(c), simde_float32x4_to_m128(a)));
#endif
}

// Lanes [0, k) all-ones, the rest zero (k clamped to 4): selects the valid lanes of a tail register.
MASKAPPLY_INLINE uint32x4_t first_lanes(size_t k) {
  static constexpr uint32_t iota[4] = {0, 1, 2, 3};
  return vcltq_u32(vld1q_u32(iota), vdupq_n_u32(static_cast<uint32_t>(k > 4 ? 4 : k)));
}

}  // namespace maskapply::simd
