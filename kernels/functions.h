// SPDX-License-Identifier: MIT
// The f catalog, vector forms. Each has a scalar twin in oracle/oracle.cpp; the two agree bit for bit
// on every ISA because the SLEEF ones are SLEEF's deterministic finz_ variants (FMA flavour) and the others are
// IEEE-exact operations.
#pragma once

#include "catalog.h"
#include "platform.h"
#include <sleef.h>

#include <cstddef>
#include <tuple>
#include <utility>

namespace maskapply {

#if defined(MASKAPPLY_NATIVE_NEON)
#define MASKAPPLY_SLEEF4(fn) Sleef_finz_##fn##advsimd
#else
#define MASKAPPLY_SLEEF4(fn) Sleef_finz_##fn##avx2128
#endif

namespace fn {

struct Sqrt {
  static constexpr Fn id = Fn::sqrt;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const { return simd::sqrt(x); }
};
// Mantissa of x in [0.5, 1), sign kept (SLEEF frfrexpf).
struct Frfrexp {
  static constexpr Fn id = Fn::frfrexp;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const { return MASKAPPLY_SLEEF4(frfrexpf4_)(x); }
};
struct Sin35 {
  static constexpr Fn id = Fn::sin35;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const { return MASKAPPLY_SLEEF4(sinf4_u35)(x); }
};
struct Sin10 {
  static constexpr Fn id = Fn::sin10;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const { return MASKAPPLY_SLEEF4(sinf4_u10)(x); }
};
struct Pow10 {
  static constexpr Fn id = Fn::pow10;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const {
    return MASKAPPLY_SLEEF4(powf4_u10)(x, vdupq_n_f32(kPowExponent));
  }
};
// The article's cheapest f: 13 fused steps x = a + x*a with a = 0.5.
struct Fma13 {
  static constexpr Fn id = Fn::fma13;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const {
    const float32x4_t a = vdupq_n_f32(0.5f);
    for (int i = 0; i < 13; ++i) x = simd::fma(a, x, a);
    return x;
  }
};
struct BitsInc {
  static constexpr Fn id = Fn::bits_inc;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const {
    return vreinterpretq_f32_u32(vaddq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(1)));
  }
};

}  // namespace fn

// The functors in catalog order: FnType<F> is catalog entry F's functor, for code that knows F at compile time.
using FnTypes = std::tuple<fn::Sqrt, fn::Frfrexp, fn::Sin35, fn::Sin10, fn::Pow10, fn::Fma13, fn::BitsInc>;
template <Fn F>
using FnType = std::tuple_element_t<static_cast<size_t>(F), FnTypes>;
static_assert([]<size_t... I>(std::index_sequence<I...>) {
  return sizeof...(I) == kFnNames.size() && ((std::tuple_element_t<I, FnTypes>::id == static_cast<Fn>(I)) && ...);
}(std::make_index_sequence<std::tuple_size_v<FnTypes>>{}));

// Calls visit(fn::X{}) for the catalog entry f: the bridge from a runtime name to a compile-time functor.
template <class Visitor>
decltype(auto) visit_fn(Fn f, Visitor&& visit) {
  switch (f) {
    case Fn::sqrt: return visit(fn::Sqrt{});
    case Fn::frfrexp: return visit(fn::Frfrexp{});
    case Fn::sin35: return visit(fn::Sin35{});
    case Fn::sin10: return visit(fn::Sin10{});
    case Fn::pow10: return visit(fn::Pow10{});
    case Fn::fma13: return visit(fn::Fma13{});
    case Fn::bits_inc: break;
  }
  return visit(fn::BitsInc{});
}

}  // namespace maskapply
