// SPDX-License-Identifier: MIT
// maskapply::rapidcheck for your own kernel or pilot: the generators (support.h: floats with every special
// value, tile-structured selections, the article's countertests, options) plus the adversarial families, and
// ready-made properties, each instantiated for your code with one macro. Link maskapply::rapidcheck and
// GTest::gtest_main.
//
//   // a kernel generic over f and mask, as maskapply's: (float* a, size_t n, auto f, auto mask, Workspace& ws)
//   MASKAPPLY_KERNEL_PROPERTIES(MyCompact, "my_compact",
//       [](float* a, size_t n, auto f, auto mask, maskapply::Workspace& ws) { my_compact(a, n, f, mask, ws); })
//   // a pilot: (float* a, size_t n, auto f, auto mask, Workspace& ws, const PilotOptions& o, Trace& trace)
//   MASKAPPLY_PILOT_PROPERTIES(MyPilot, "my_pilot", [](float* a, size_t n, auto f, auto mask,
//       maskapply::Workspace& ws, const maskapply::PilotOptions& o, maskapply::Trace& t) { ... })
//   // a kernel taking f as a function over a span (plugin_catalog.h): checked against every catalog f
//   MASKAPPLY_KERNEL_PROPERTIES(HwyDetour, "hwy_detour", maskapply::testing::over_spans(
//       [](float* a, size_t n, maskapply::SpanFn f, auto mask, maskapply::Workspace& ws) { ... }))
//   // one fixed f and mask: any plug-in subject form (plugin.h) and its scalar reference
//   MASKAPPLY_FIXED_KERNEL_PROPERTIES(MyCube, "my_cube", [](float* a, size_t n) { my_cube(a, n); },
//       (maskapply::testing::Reference{"cube", "less(0.5)", cube, less_half}))
//
// Each failure is first shrunk (testing::minimize: length first, then the tile, then the contents), then writes
// its case file named after the property into testing::failure_dir() ($MASKAPPLY_FAILURE_DIR, default
// ./failures) -- overwritten as RapidCheck shrinks, so the file left is the smallest failing case -- and
// fails with the same message as the bundled kernels (kernel, f, mask, n, misalignment, first differing index,
// its tile and strategy, input / expected / actual bits). RapidCheck prints RC_PARAMS="reproduce=..." to rerun.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <type_traits>

#include "families.h"
#include "maskapply.h"
#include "pilot_regret.h"
#include "plugin.h"
#include "plugin_catalog.h"
#include "support.h"

namespace maskapply::props {

// --- generators ----------------------------------------------------------------------------------------------

// n floats whose selection by less(0.5) follows one of the generators' adversarial families (step, offset,
// k-tile cycle, probe liar, bursts, Markov runs, ...; default knobs, any seed); selected elements in [0, 0.5),
// unselected in [0.5, 1), a tenth of either side replaced by special values on the same side.
inline rc::Gen<prop::Shaped> family_data(size_t n) {
  return rc::gen::exec([n] {
    const auto& fams = gen::families();
    const gen::Family& fam = *rc::gen::elementOf(fams);
    const uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>());
    const auto g = gen::generate(fam.name, n, seed);
    prop::Shaped s{{}, MaskSpec{MaskKind::less, 0.5f, 0, 0}, "family " + fam.name};
    if (const auto* e = std::get_if<std::string>(&g)) RC_FAIL("family " + fam.name + ": " + *e);
    const auto& sel = std::get<gen::Generated>(g).selection;
    static constexpr uint32_t kSel[] = {0x80000000, 0xff800000, 0x80000001, 0x00000001, 0x00000000};
    static constexpr uint32_t kUnsel[] = {0x7fc00000, 0xffc00001, 0x7f800001, 0x7f800000, 0x3f000000};
    s.v.resize(sel.size());
    uint64_t x = seed | 1;
    for (size_t i = 0; i < sel.size(); ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64, from the seed
      const float u = static_cast<float>(x >> 41) * 0x1p-24f;  // [0, 0.5)
      if (x % 10 == 0) s.v[i] = prop::from_bits(sel[i] ? kSel[x / 10 % 5] : kUnsel[x / 10 % 5]);
      else s.v[i] = sel[i] ? u : 0.5f + u;
    }
    return s;
  });
}

// Data for any scalar mask: a tile-structured selection (prop::gen::tiled) mapped onto values the mask does and
// does not select (drawn from specials, unit floats and raw bits, sorted by the mask itself).
inline rc::Gen<std::vector<float>> data_for(std::function<bool(float)> mask, size_t tile = 4096) {
  return rc::gen::exec([mask, tile] {
    if (*rc::gen::weightedElement<bool>({{1, true}, {2, false}})) return (*prop::gen::float_array()).v;
    const prop::Shaped shape = *prop::gen::tiled(tile);
    const uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>());
    // The pools: seeded_data with density 1 and 0 gives values on either side of the mask.
    const std::vector<float> sel = testing::seeded_data(mask, 256, seed, 1.0, 0.0);
    const std::vector<float> unsel = testing::seeded_data(mask, 256, seed + 1, 0.0, 0.0);
    std::vector<float> v(shape.v.size());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = (oracle::selected(shape.mask, shape.v[i]) ? sel : unsel)[(i * 2654435761u + seed) % 256];
    return v;
  });
}

// --- subjects ------------------------------------------------------------------------------------------------

// The catalog f a case of kernel K runs with: any of testing::plugin_fns<K>() (the whole catalog for over_spans).
template <class K>
rc::Gen<Fn> kernel_fn() {
  const std::span<const Fn> fns = testing::plugin_fns<K>();
  return rc::gen::elementOf(std::vector<Fn>(fns.begin(), fns.end()));
}
using testing::catalog_subject;

// --- failures ------------------------------------------------------------------------------------------------

inline std::string property_name() {
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info())
    return std::string(info->test_suite_name()) + "." + info->name();
  return "property";
}

// Writes the case file, logs its path and fails the property with the message.
inline void fail(const testing::UserCase& c, const std::string& message) {
  const std::string path = testing::write_user_case(c, testing::failure_dir(), property_name(),
                                                    "found by the property " + property_name() + "\n" + message);
  RC_LOG() << "case file: " << (path.empty() ? "(could not be written)" : path) << "\n";
  RC_FAIL(message);
}

// A check of one case: its failure message, empty when it passes.
using UserCheck = std::function<std::string(const testing::UserCase&)>;

// Fails the property with the smallest case that still fails `check` (testing::minimize: length first, then
// the tile, then the contents, keeping each element on its side of `mask`): its message, how far it shrank, and
// its case file. A case that passes when rerun is reported as drawn.
inline void fail_minimal(const testing::UserCase& drawn, const UserCheck& check, const std::string& message,
                         const std::function<bool(float)>& mask) {
  const auto as_user = [&drawn](const testing::Case& x) {
    testing::UserCase u = drawn;
    u.options = x.options, u.misalign = x.misalign, u.data = x.data;
    return u;
  };
  testing::Case c;
  c.options = drawn.options, c.misalign = drawn.misalign, c.data = drawn.data;
  const testing::Minimized m =
      testing::minimize(c, [&](const testing::Case& x) { return check(as_user(x)); }, 3000, mask);
  if (m.why.empty()) return fail(drawn, message + " [did not fail when rerun: not minimized]");
  fail(as_user(m.c), m.why + " [" + m.summary() + "]");
}

// --- the properties --------------------------------------------------------------------------------------

// Options, data and mask for one case: a pilot gets pilot options (injected d_max, small tiles mostly) and
// tile-structured data, the article's countertests or an adversarial family; a plain kernel gets arbitrary
// floats with any mask, or tile-structured data.
struct Drawn {
  PilotOptions o;
  std::vector<float> data;
  MaskSpec m;
};
inline Drawn draw(bool pilot) {
  Drawn d;
  if (pilot) {
    d.o = *prop::gen::pilot_options();
    const prop::Shaped s = d.o.tile == 4096 && *rc::gen::arbitrary<bool>()
                               ? *family_data(*rc::gen::inRange<size_t>(4096, 12 * 4096))
                               : *prop::gen::pilot_data(d.o);
    d.data = s.v;
    d.m = *rc::gen::weightedOneOf<MaskSpec>({{3, rc::gen::just(s.mask)}, {1, prop::gen::any_mask(s.v)}});
    RC_TAG(s.kind.substr(0, s.kind.find('(')));
  } else {
    d.o = *prop::gen::plain_options();
    if (*rc::gen::weightedElement<bool>({{2, true}, {1, false}})) {
      d.data = (*prop::gen::float_array()).v;
      d.m = *prop::gen::any_mask(d.data);
    } else {
      const prop::Shaped s = *prop::gen::tiled(d.o.tile);
      d.data = s.v, d.m = s.mask;
    }
  }
  prop::classify(d.data, d.m);
  return d;
}

// Equals the oracle bit for bit for any floats (NaN payloads, ±0, denormals, ±inf), f (kernel_fn), mask (less with any
// threshold, NaN too; greater; NaN-inclusive not_ge; bit patterns; always; never), length and misalignment;
// a pilot's trace partitions the array into runs and tiles.
template <class K>
void equals_oracle(const std::string& name, const K& k, bool pilot) {
  const Drawn d = draw(pilot);
  const Fn f = *kernel_fn<K>();
  const size_t misalign = *rc::gen::inRange<size_t>(0, 16);
  const testing::Reference ref = testing::reference(f, d.m);
  const testing::Subject s = catalog_subject(name, k, f, d.m);
  const UserCheck check = [&](const testing::UserCase& u) {
    const testing::CheckResult r = testing::check(s, ref, u.data, u.options, u.misalign);
    if (!r.ok) return r.message;
    if (!pilot) return std::string();
    const std::string e = testing::check_trace(r.trace, u.data.size());
    return e.empty() ? e : "trace: " + e;
  };
  const testing::UserCase c{name, ref.f_name, ref.mask_name, misalign, d.o, d.data};
  if (const std::string why = check(c); !why.empty()) fail_minimal(c, check, why, ref.mask);
}

// f runs exactly once on every selected element and never on another (bits_inc is not idempotent).
template <class K>
void exactly_once(const std::string& name, const K& k, bool pilot) {
  const Drawn d = draw(pilot);
  const size_t misalign = *rc::gen::inRange<size_t>(0, 16);
  const testing::Subject s = catalog_subject(name, k, Fn::bits_inc, d.m);
  const std::function<bool(float)> mask = [m = d.m](float x) { return oracle::selected(m, x); };
  const UserCheck check = [&](const testing::UserCase& u) {
    return testing::check_exactly_once(s, testing::describe_mask(d.m), mask, u.data, u.options, u.misalign).message;
  };
  const testing::UserCase c{name, "bits_inc", testing::describe_mask(d.m), misalign, d.o, d.data};
  if (const std::string why = check(c); !why.empty()) fail_minimal(c, check, why, mask);
}

// Nothing outside [a, a+n) is read or written: the array flush against a PROT_NONE page at either end.
template <class K>
void stays_inside(const std::string& name, const K& k, bool pilot) {
  const Drawn d = draw(pilot);
  const Fn f = *kernel_fn<K>();
  const testing::Reference ref = testing::reference(f, d.m);
  const testing::Subject s = catalog_subject(name, k, f, d.m);
  const UserCheck check = [&](const testing::UserCase& u) { return testing::check_guarded(s, ref, u.data, u.options); };
  const testing::UserCase c{name, ref.f_name, ref.mask_name, 0, d.o, d.data};
  if (const std::string why = check(c); !why.empty()) fail_minimal(c, check, why, ref.mask);
}

// A fixed kernel against its own reference: bit for bit on data shaped for its mask, and inside guard pages.
inline void fixed_equals_oracle(const testing::Subject& s, const testing::Reference& ref) {
  const std::vector<float> data = *data_for(ref.mask);
  const size_t misalign = *rc::gen::inRange<size_t>(0, 16);
  const UserCheck check = [&](const testing::UserCase& u) {
    const testing::CheckResult r = testing::check(s, ref, u.data, u.options, u.misalign);
    return r.ok ? testing::check_guarded(s, ref, u.data, u.options) : r.message;
  };
  const testing::UserCase c{s.name, ref.f_name, ref.mask_name, misalign, {}, data};
  if (const std::string why = check(c); !why.empty()) fail_minimal(c, check, why, ref.mask);
}

}  // namespace maskapply::props

// Properties for a kernel generic over f and mask: (float* a, size_t n, auto f, auto mask, Workspace& ws).
#define MASKAPPLY_KERNEL_PROPERTIES(Suite, name, ...)                                                      \
  namespace {                                                                                             \
  const auto Suite##_maskapply_kernel = __VA_ARGS__;                                                      \
  }                                                                                                       \
  RC_GTEST_PROP(Suite, equalsOracleBitForBitForAnyFloatsFMaskLengthAndMisalignment, ()) {                 \
    ::maskapply::props::equals_oracle(name, Suite##_maskapply_kernel, false);                             \
  }                                                                                                       \
  RC_GTEST_PROP(Suite, appliesFExactlyOnceToEverySelectedElement, ()) {                                   \
    ::maskapply::props::exactly_once(name, Suite##_maskapply_kernel, false);                              \
  }                                                                                                       \
  RC_GTEST_PROP(Suite, neverReadsOrWritesOutsideTheArray, ()) {                                           \
    ::maskapply::props::stays_inside(name, Suite##_maskapply_kernel, false);                              \
  }

// Properties for a pilot: (float* a, size_t n, auto f, auto mask, Workspace& ws, const PilotOptions& o,
// Trace& trace), reporting its runs and tile decisions to the trace.
#define MASKAPPLY_PILOT_PROPERTIES(Suite, name, ...)                                                       \
  namespace {                                                                                             \
  const auto Suite##_maskapply_pilot = __VA_ARGS__;                                                       \
  }                                                                                                       \
  RC_GTEST_PROP(Suite, equalsOracleAndItsTracePartitionsTheArrayForAnyOptionsAndTileStructuredData, ()) { \
    ::maskapply::props::equals_oracle(name, Suite##_maskapply_pilot, true);                               \
  }                                                                                                       \
  RC_GTEST_PROP(Suite, appliesFExactlyOnceToEverySelectedElement, ()) {                                   \
    ::maskapply::props::exactly_once(name, Suite##_maskapply_pilot, true);                                \
  }                                                                                                       \
  RC_GTEST_PROP(Suite, neverReadsOrWritesOutsideTheArray, ()) {                                           \
    ::maskapply::props::stays_inside(name, Suite##_maskapply_pilot, true);                                \
  }

// Properties for a kernel with its own fixed f and mask: any plug-in subject form and a testing::Reference.
#define MASKAPPLY_FIXED_KERNEL_PROPERTIES(Suite, name, kernel, reference)                                  \
  RC_GTEST_PROP(Suite, equalsItsScalarReferenceBitForBitAndStaysInsideTheArray, ()) {                     \
    ::maskapply::props::fixed_equals_oracle(::maskapply::testing::subject(name, kernel), reference);      \
  }
