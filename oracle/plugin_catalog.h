// SPDX-License-Identifier: MIT
// Your kernel, generic over f and mask as maskapply's are, instantiated with a catalog f and a catalog mask and
// wrapped as a plug-in subject: what the ready-made properties (maskapply_rapidcheck.h) and the fuzz harness
// template (maskapply_fuzz.h) check it through. A kernel is
//   (float* a, size_t n, auto f, auto mask, Workspace& ws)                                   plain
//   (float* a, size_t n, auto f, auto mask, Workspace& ws, const PilotOptions& o, Trace& t)  pilot
#pragma once

#include <array>
#include <string>
#include <type_traits>

#include "functions.h"
#include "masks.h"
#include "plugin.h"

namespace maskapply::testing {

template <class K, class F, class M>
void invoke(const K& k, float* a, size_t n, F f, M m, Workspace& ws, const PilotOptions& o, Trace& t) {
  if constexpr (std::is_invocable_v<const K&, float*, size_t, F, M, Workspace&, const PilotOptions&, Trace&>)
    k(a, n, f, m, ws, o, t);
  else if constexpr (std::is_invocable_v<const K&, float*, size_t, F, M, Workspace&>)
    k(a, n, f, m, ws);
  else
    static_assert(std::is_invocable_v<const K&, float*, size_t, F, M, Workspace&>,
                  "a kernel is (float*, size_t, f, mask, Workspace&) [+ (const PilotOptions&, Trace&) for a pilot]");
}

// The catalog entries your kernel is instantiated with: sqrt (IEEE-exact), fma13 (fused steps) and bits_inc (not
// idempotent: exactly-once). Few, because each is one compile-time instantiation of your kernel per mask kind.
inline constexpr std::array<Fn, 3> kPluginFns{Fn::sqrt, Fn::fma13, Fn::bits_inc};

// Kernel k with catalog f (one of kPluginFns; others run as sqrt) and the catalog mask m, as a subject.
template <class K>
Subject catalog_subject(const std::string& name, const K& k, Fn f, const MaskSpec& m) {
  const auto with_f = [&](auto vf) {
    return visit_mask(m, [&](auto vm) {
      return subject(name, [k, vf, vm](float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace& t) {
        invoke(k, a, n, vf, vm, ws, o, t);
      });
    });
  };
  switch (f) {
    case Fn::fma13: return with_f(fn::Fma13{});
    case Fn::bits_inc: return with_f(fn::BitsInc{});
    default: return with_f(fn::Sqrt{});
  }
}

}  // namespace maskapply::testing
