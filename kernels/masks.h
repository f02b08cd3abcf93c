// SPDX-License-Identifier: MIT
// Masks: vector predicates returning all-ones lanes where f applies. The article's mask is `a < thd`; any
// callable float32x4_t -> uint32x4_t with 0 / ~0 lanes works with every kernel. MaskSpec names the built-in
// ones at run time; oracle/ evaluates the same spec with its own scalar code. Each built-in one also says what
// it is -- M::kind and its fields (thd; bits_mask, bits_value) -- so a kernel written with other vector types
// (Highway, plain x86 intrinsics) evaluates it its own way (examples/highway does).
#pragma once

#include "catalog.h"
#include "platform.h"

namespace maskapply {

namespace mask {

struct Less {
  static constexpr MaskKind kind = MaskKind::less;
  float thd;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t v) const { return vcltq_f32(v, vdupq_n_f32(thd)); }
};
struct Greater {
  static constexpr MaskKind kind = MaskKind::greater;
  float thd;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t v) const { return vcgtq_f32(v, vdupq_n_f32(thd)); }
};
struct NotGe {
  static constexpr MaskKind kind = MaskKind::not_ge;
  float thd;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t v) const { return vmvnq_u32(vcgeq_f32(v, vdupq_n_f32(thd))); }
};
struct BitsEq {
  static constexpr MaskKind kind = MaskKind::bits_eq;
  uint32_t bits_mask, bits_value;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t v) const {
    return vceqq_u32(vandq_u32(vreinterpretq_u32_f32(v), vdupq_n_u32(bits_mask)), vdupq_n_u32(bits_value));
  }
};
struct Always {
  static constexpr MaskKind kind = MaskKind::always;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t) const { return vdupq_n_u32(~0u); }
};
struct Never {
  static constexpr MaskKind kind = MaskKind::never;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t) const { return vdupq_n_u32(0); }
};

}  // namespace mask

// Calls visit(mask::X{...}) for the spec: the bridge from a runtime spec to a compile-time predicate. With Fold,
// always and never are visited as the BitsEq that selects the same lanes (bits_mask 0 against bits_value 0: every
// lane; against 1: none): four mask types instead of six, for the same selection. The registry visits so: each of
// its files compiles every kernel once per mask type, and the two constant masks cost a third of a file's compile
// with gcc, a fifth with clang's ASan + UBSan (docs/ci.md).
template <bool Fold = false, class Visitor>
decltype(auto) visit_mask(const MaskSpec& m, Visitor&& visit) {
  switch (m.kind) {
    case MaskKind::less: return visit(mask::Less{m.thd});
    case MaskKind::greater: return visit(mask::Greater{m.thd});
    case MaskKind::not_ge: return visit(mask::NotGe{m.thd});
    case MaskKind::bits_eq: return visit(mask::BitsEq{m.bits_mask, m.bits_value});
    case MaskKind::always:
      if constexpr (Fold)
        return visit(mask::BitsEq{0u, 0u});
      else
        return visit(mask::Always{});
    case MaskKind::never: break;
  }
  if constexpr (Fold)
    return visit(mask::BitsEq{0u, 1u});
  else
    return visit(mask::Never{});
}

}  // namespace maskapply
