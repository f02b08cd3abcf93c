// SPDX-License-Identifier: MIT
// How the fast targets (`kernels`, `pilots`) run a kernel: half of their inputs through every kernel and pilot
// instantiated once, for an f and a mask chosen at run time inside the vector code (AnyFn, AnyMask below: callables
// of the kernel concept), the other half through the registry's 7 f x 6 masks instantiations (Route below).
//
// Why: the kernels' and pilots' branches depend on which lanes the mask selects, never on which f or which mask
// computed them, so under coverage the registry's 42 instantiations are 42 copies of the same counters. Each input
// touches one copy; libFuzzer sees 42 rarely-hit copies of every feature, and its Entropic bookkeeping
// (AddRareFeature, UpdateFeatureFrequency) was 40 % of a `pilots` run (docs/fuzzing.md, "Throughput"). With one
// instance every input feeds the same counters.
//
// The registry's own instantiations (kernels/registry_fn.cpp.in) are not given up: half of the inputs of `kernels`
// and `pilots` run through them (Route below), and the `_large` twins always do. Rates: docs/fuzzing.md,
// "Throughput".
#pragma once

#include "case_file.h"
#include "check.h"
#include "fuzz.h"
#include "minimize.h"
#include "registry.h"

namespace maskapply::fuzz {

// run_kernel's contract (kernels/registry.h), through the one instance.
void run_one_instance(Kernel k, Fn f, const MaskSpec& m, float* a, size_t n, Workspace& ws,
                      const PilotOptions& o = {}, Trace* trace = nullptr);

// Which instantiation runs an input: the one instance above, or the registry's compile-time instantiation for
// its f and mask (run_kernel, kernels/registry.h: what users call). `kernels` and `pilots` take it from a hash of
// the whole input (route_of: half of all inputs each way, whatever the mutator changes and whatever the corpus
// holds; the same input always takes the same route, so a crash file reruns it); their `_large` twins always take
// the registry. The kernels' source is the same either way, so an input passes or fails the same checks through
// both, except for a bug in the registry's own dispatch (an f, mask or kernel mapped to another) or in the one
// instance's. Under libFuzzer the fast targets' registry carries no coverage instrumentation (fuzz/CMakeLists.txt):
// the one instance's counters guide the search, the registry's would only repeat them 42 times.
enum class Route : uint8_t { one_instance, registry };
constexpr const char* name(Route r) { return r == Route::registry ? "the registry" : "the one instance"; }

inline Route route_of(const uint8_t* bytes, size_t size, bool large) {
  if (large) return Route::registry;
  return (fnv1a({reinterpret_cast<const char*>(bytes), size}) >> 32) & 1 ? Route::registry : Route::one_instance;
}

inline void run_fuzzed(Route route, Kernel k, Fn f, const MaskSpec& m, float* a, size_t n, Workspace& ws,
                       const PilotOptions& o = {}, Trace* trace = nullptr) {
  if (route == Route::registry)
    run_kernel(k, f, m, a, n, ws, o, trace);
  else
    run_one_instance(k, f, m, a, n, ws, o, trace);
}

// testing::run_case (sentinels, hostile workspace, oracle, decision reference) with the kernel run through route.
inline testing::CheckResult check_fuzzed(const testing::Case& c, Route route) {
  const testing::Subject s{std::string(name(c.kernel)),
                           [&c, route](float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace& t) {
                             run_fuzzed(route, c.kernel, c.f, c.mask, a, n, ws, o, &t);
                           }};
  return testing::check_kernel(s, c.kernel, c.f, c.mask, c.data, c.options, c.misalign);
}

// check_fuzzed as the minimizer's predicate (testing::minimize): a failing case shrinks through the instantiation
// it failed on, so a failure only the one instance shows is minimized too.
inline testing::Failure fuzzed_failure(Route route) {
  return [route](const testing::Case& x) {
    const testing::CheckResult r = check_fuzzed(x, route);
    return r.ok ? std::string() : r.message;
  };
}

}  // namespace maskapply::fuzz
