// SPDX-License-Identifier: MIT
// Your kernel, generic over f and mask as maskapply's are, instantiated with a catalog f and a catalog mask and
// wrapped as a plug-in subject: what the ready-made properties (maskapply_rapidcheck.h) and the fuzz harness
// template (maskapply_fuzz.h) check it through. A kernel is
//   (float* a, size_t n, auto f, auto mask, Workspace& ws)                                   plain
//   (float* a, size_t n, auto f, auto mask, Workspace& ws, const PilotOptions& o, Trace& t)  pilot
// f comes as a catalog functor (fn::Sqrt, ...: f(float32x4_t), and f(p, n) over a span), or, for a kernel wrapped
// in over_spans(k), as a SpanFn (f(p, n) only). mask is a catalog mask (mask::Less, ...: m(float32x4_t), and
// M::kind with its fields for a kernel that evaluates it with other vector types).
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

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
// The whole catalog, in catalog order: what a kernel wrapped in over_spans is checked against.
inline constexpr std::array<Fn, 7> kAllFns{Fn::sqrt,  Fn::frfrexp, Fn::sin35,   Fn::sin10,
                                           Fn::pow10, Fn::fma13,   Fn::bits_inc};

// A kernel that takes f as a function over a span -- SpanFn, f(p, n) applying f in place to p[0, n), which is what
// a detour applies to its compacted values -- rather than as a vector functor: a kernel written with Highway or
// any vector types other than maskapply's NEON ones. One instantiation per mask kind serves every f, so the
// properties and the fuzz harness check it against the whole catalog (kAllFns: sqrt, SLEEF's frfrexp, sin35,
// sin10 and pow10, fma13, bits_inc). Wrap it where a kernel is expected:
//   MASKAPPLY_KERNEL_PROPERTIES(HwyDetour, "hwy_detour", maskapply::testing::over_spans(
//       [](float* a, size_t n, maskapply::SpanFn f, auto mask, maskapply::Workspace& ws) { ... }))
template <class K>
struct OverSpans {
  K kernel;
};
template <class K>
OverSpans<K> over_spans(K kernel) {
  return {std::move(kernel)};
}
template <class K>
inline constexpr bool kOverSpans = false;
template <class K>
inline constexpr bool kOverSpans<OverSpans<K>> = true;

// The catalog f's kernel k is checked against: kAllFns for over_spans, else kPluginFns.
template <class K>
constexpr std::span<const Fn> plugin_fns() {
  if constexpr (kOverSpans<K>)
    return kAllFns;
  else
    return kPluginFns;
}

// Kernel k with catalog f (one of plugin_fns<K>(); others run as sqrt) and the catalog mask m, as a subject.
template <class K>
Subject catalog_subject(const std::string& name, const K& k, Fn f, const MaskSpec& m) {
  if constexpr (kOverSpans<K>) {
    return visit_mask(m, [&](auto vm) {
      return subject(name, [kk = k.kernel, sf = span_fn(f), vm](float* a, size_t n, Workspace& ws,
                                                               const PilotOptions& o, Trace& t) {
        invoke(kk, a, n, sf, vm, ws, o, t);
      });
    });
  } else {
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
}

// Replays a case file written for kernel k (by the properties or the fuzz harness: its f a catalog name, its mask
// as describe_mask writes it) with that f and mask: bit for bit inside sentinels, exactly once when f is bits_inc,
// and against guard pages. The result's message is the first failure's; ok when all pass.
template <class K>
CheckResult replay_catalog_case(const std::string& path, const std::string& name, const K& k) {
  CheckResult r;
  const auto [c, error] = read_user_case(path);
  if (!c) {
    r.ok = false, r.message = error;
    return r;
  }
  const std::optional<Fn> f = fn_from_name(c->f);
  const std::optional<MaskSpec> m = parse_mask(c->mask);
  if (!f || !m) {
    r.ok = false, r.message = path + ": f `" + c->f + "` or mask `" + c->mask + "` is not the catalog's";
    return r;
  }
  const Reference ref = reference(*f, *m);
  const Subject s = catalog_subject(name, k, *f, *m);
  r = check(s, ref, c->data, c->options, c->misalign);
  if (r.ok && *f == Fn::bits_inc) r = check_exactly_once(s, ref.mask_name, ref.mask, c->data, c->options, c->misalign);
  if (r.ok)
    if (std::string e = check_guarded(s, ref, c->data, c->options); !e.empty()) r.ok = false, r.message = std::move(e);
  return r;
}

}  // namespace maskapply::testing
