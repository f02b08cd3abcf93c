// SPDX-License-Identifier: MIT
// a[mask] = f(a[mask]) written with Google Highway (Debian 12's 1.0.3; static dispatch, so the compiler's target:
// AVX2 on x86-64 with the flags CMakeLists.txt gives, NEON on aarch64), as a detour: CompressStore the selected
// lanes of every vector into the workspace, apply f once to that contiguous span, put them back. Highway 1.0.3
// has no Expand, so the way back is scalar: each vector's mask bits (StoreMaskBits) name the lanes that take the
// next packed values.
//
//   f     a function over a span, f(p, n) in place: maskapply's catalog f's come that way (testing::over_spans
//         hands over a maskapply::SpanFn), and so does a private f (HwyCube in properties.cpp).
//   mask  a maskapply catalog mask (mask::Less, ...: M::kind and its fields, evaluated here with Highway
//         comparisons), or any callable (d, v) -> Mask<D> of your own.
//
// hwy_detour<TailLoad::full> carries a bug people make with these ops: the last n % N elements (N lanes: 8 on
// AVX2, 4 on NEON) are loaded with a full-width LoadU, reading up to N - 1 floats past the end of the array. Its
// values come out right -- the lanes past the end are masked off (FirstN) before they are compressed -- and it
// seldom faults, since the read usually stays inside a mapped page; an array that ends at a page boundary faults.
#pragma once

#include <hwy/highway.h>

#include <maskapply/catalog.h>
#include <maskapply/workspace.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

// Code that calls Highway ops is compiled for Highway's target (HWY_ATTR): on aarch64 GCC otherwise refuses to
// inline them ("target specific option mismatch").
HWY_BEFORE_NAMESPACE();
namespace mine {

namespace hn = hwy::HWY_NAMESPACE;

// The mask on one vector: the user's own predicate m(d, v), or a catalog mask by its kind, with the catalog's
// semantics (an ordered compare: NaN is never less or greater; not_ge selects NaN; bits_eq on the bit pattern).
template <class D, class V, class M>
HWY_INLINE auto selected(D d, V v, const M& m) {
  if constexpr (requires { m(d, v); }) {
    return m(d, v);
  } else {
    using K = maskapply::MaskKind;
    if constexpr (M::kind == K::less) {
      return hn::Lt(v, hn::Set(d, m.thd));
    } else if constexpr (M::kind == K::greater) {
      return hn::Gt(v, hn::Set(d, m.thd));
    } else if constexpr (M::kind == K::not_ge) {
      return hn::Not(hn::Ge(v, hn::Set(d, m.thd)));
    } else if constexpr (M::kind == K::bits_eq) {
      const hn::RebindToUnsigned<D> du;
      return hn::RebindMask(d, hn::Eq(hn::And(hn::BitCast(du, v), hn::Set(du, m.bits_mask)),
                                      hn::Set(du, m.bits_value)));
    } else if constexpr (M::kind == K::always) {
      return hn::FirstN(d, hn::Lanes(d));
    } else {
      static_assert(M::kind == K::never);
      return hn::FirstN(d, 0);
    }
  }
}

enum class TailLoad { partial, full };

// One detour pass over p[0, n), n <= ws.capacity().
template <TailLoad Tail, class F, class M>
void hwy_detour_span(float* p, size_t n, F& f, const M& mask, maskapply::Workspace& ws) {
  using D = hn::ScalableTag<float>;
  const D d;
  const size_t N = hn::Lanes(d);
  constexpr size_t kMaxN = hn::MaxLanes(D());
  // One byte of mask bits per vector, and CompressStore's whole-vector stores: ws.s() holds capacity / 4 + 4
  // bytes, ws.tmp() capacity + 16 floats.
  static_assert(kMaxN >= 4 && kMaxN <= 8, "one byte of mask bits per vector, N >= 4");
  float* const tmp = ws.tmp();
  uint8_t* const bits = ws.s();
  size_t k = 0, vectors = 0, i = 0;
  for (; i + N <= n; i += N, ++vectors) {
    const auto v = hn::LoadU(d, p + i);
    const auto m = selected(d, v, mask);
    hn::StoreMaskBits(d, m, bits + vectors);
    k += hn::CompressStore(v, m, d, tmp + k);  // writes a whole vector at tmp + k: the workspace's slack
  }
  if (const size_t rest = n - i) {
    auto v = hn::Zero(d);
    if constexpr (Tail == TailLoad::full) {
      v = hn::LoadU(d, p + i);  // THE BUG: reads N - rest floats past the end of the array
    } else {
      HWY_ALIGN float last[kMaxN] = {};
      std::memcpy(last, p + i, rest * sizeof(float));
      v = hn::Load(d, last);
    }
    const auto m = hn::And(selected(d, v, mask), hn::FirstN(d, rest));
    hn::StoreMaskBits(d, m, bits + vectors);
    k += hn::CompressStore(v, m, d, tmp + k);
    ++vectors;
  }
  if (k == 0) return;
  f(tmp, k);
  // Back: no Expand in 1.0.3. Vector j's mask bits name its selected lanes, which take the next packed values.
  size_t r = 0;
  for (size_t j = 0; j < vectors; ++j)
    for (unsigned b = bits[j]; b != 0; b &= b - 1) p[j * N + static_cast<size_t>(__builtin_ctz(b))] = tmp[r++];
}

// a[i] = f(a[i]) where mask(a[i]), for any n, in spans of the workspace's capacity.
template <TailLoad Tail = TailLoad::partial, class F, class M>
void hwy_detour(float* a, size_t n, F f, M mask, maskapply::Workspace& ws) {
  for (size_t i = 0; i < n; i += ws.capacity())
    hwy_detour_span<Tail>(a + i, std::min(ws.capacity(), n - i), f, mask, ws);
}

// The Highway target the kernel was compiled for ("AVX2", "NEON", ...) and its lanes of float.
inline const char* target_name() { return hwy::TargetName(HWY_TARGET); }
inline size_t lanes() { return hn::Lanes(hn::ScalableTag<float>()); }

}  // namespace mine
HWY_AFTER_NAMESPACE();
