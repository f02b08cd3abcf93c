// SPDX-License-Identifier: MIT
// The f catalog. Each entry has two forms here -- f(float32x4_t), four lanes, and f(float* p, size_t n), in place
// over a span -- and a scalar twin in oracle/oracle.cpp. All three agree bit for bit on every ISA: the SLEEF ones
// are SLEEF's deterministic finz_ variants (FMA flavour: advsimd on aarch64, avx2128 on x86-64, purecfma in the
// oracle), the others IEEE-exact operations. SpanFn is the span form as one run-time type for the whole catalog.
#pragma once

#include "catalog.h"
#include "platform.h"
#include <sleef.h>

#include <cstddef>
#include <cstring>
#include <tuple>
#include <utility>

namespace maskapply {

#if defined(MASKAPPLY_NATIVE_NEON)
#define MASKAPPLY_SLEEF4(fn) Sleef_finz_##fn##advsimd
#else
#define MASKAPPLY_SLEEF4(fn) Sleef_finz_##fn##avx2128
#endif

namespace fn {

// The span form of a catalog f: f(p, n) applies f in place to p[0, n) -- what a detour applies to its compacted
// values, and how a kernel not written with maskapply's NEON types (Highway, other intrinsics, scalar code) takes
// a catalog f. Four lanes at a time through the vector form; the last n % 4 through a local register, so it reads
// and writes only [p, p+n). Lane for lane the vector form, hence bit for bit the oracle's scalar twin.
template <class Self>
struct OverSpan {
  void operator()(float* p, size_t n) const {
    const Self& f = static_cast<const Self&>(*this);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(p + i, f(vld1q_f32(p + i)));
    if (i < n) {
      float last[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      std::memcpy(last, p + i, (n - i) * sizeof(float));
      vst1q_f32(last, f(vld1q_f32(last)));
      std::memcpy(p + i, last, (n - i) * sizeof(float));
    }
  }
};

struct Sqrt : OverSpan<Sqrt> {
  using OverSpan::operator();
  static constexpr Fn id = Fn::sqrt;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const { return simd::sqrt(x); }
};
// Mantissa of x in [0.5, 1), sign kept (SLEEF frfrexpf).
struct Frfrexp : OverSpan<Frfrexp> {
  using OverSpan::operator();
  static constexpr Fn id = Fn::frfrexp;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const { return MASKAPPLY_SLEEF4(frfrexpf4_)(x); }
};
struct Sin35 : OverSpan<Sin35> {
  using OverSpan::operator();
  static constexpr Fn id = Fn::sin35;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const { return MASKAPPLY_SLEEF4(sinf4_u35)(x); }
};
struct Sin10 : OverSpan<Sin10> {
  using OverSpan::operator();
  static constexpr Fn id = Fn::sin10;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const { return MASKAPPLY_SLEEF4(sinf4_u10)(x); }
};
struct Pow10 : OverSpan<Pow10> {
  using OverSpan::operator();
  static constexpr Fn id = Fn::pow10;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const {
    return MASKAPPLY_SLEEF4(powf4_u10)(x, vdupq_n_f32(kPowExponent));
  }
};
// The article's cheapest f: 13 fused steps x = a + x*a with a = 0.5.
struct Fma13 : OverSpan<Fma13> {
  using OverSpan::operator();
  static constexpr Fn id = Fn::fma13;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const {
    const float32x4_t a = vdupq_n_f32(0.5f);
    for (int i = 0; i < 13; ++i) x = simd::fma(a, x, a);
    return x;
  }
};
struct BitsInc : OverSpan<BitsInc> {
  using OverSpan::operator();
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

// A catalog f in its span form as one run-time type: f(p, n) applies catalog entry `id` in place to p[0, n). A
// kernel that takes f this way is compiled once for every f (testing::over_spans checks it against the whole
// catalog).
struct SpanFn {
  Fn id = Fn::sqrt;
  void (*apply)(float* p, size_t n) = nullptr;
  void operator()(float* p, size_t n) const { apply(p, n); }
};
inline SpanFn span_fn(Fn f) {
  return visit_fn(f, [](auto g) {
    using G = decltype(g);
    return SpanFn{G::id, [](float* p, size_t n) { G{}(p, n); }};
  });
}

}  // namespace maskapply
