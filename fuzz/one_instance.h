// SPDX-License-Identifier: MIT
// How the fast targets (`kernels`, `pilots`) run a kernel: every kernel and pilot instantiated once, for an f and
// a mask chosen at run time inside the vector code (AnyFn, AnyMask below: callables of the kernel concept), instead
// of through the registry's 7 f x 6 masks instantiations.
//
// Why: the kernels' and pilots' branches depend on which lanes the mask selects, never on which f or which mask
// computed them, so under coverage the registry's 42 instantiations are 42 copies of the same counters. Each input
// touches one copy; libFuzzer sees 42 rarely-hit copies of every feature, and its Entropic bookkeeping
// (AddRareFeature, UpdateFeatureFrequency) was 40 % of a `pilots` run (docs/fuzzing.md, "Throughput"). With one
// instance every input feeds the same counters.
//
// What it does not cover: the registry's own instantiations (kernels/registry_fn.cpp.in). The `_large` twins run
// those (run_fuzzed below), and ctest replays the same corpus through both; the properties call the registry with
// f and masks drawn from the whole catalog. The kernels' source is the same template code either way.
#pragma once

#include "case_file.h"
#include "check.h"
#include "registry.h"

namespace maskapply::fuzz {

// run_kernel's contract (kernels/registry.h), through the one instance.
void run_one_instance(Kernel k, Fn f, const MaskSpec& m, float* a, size_t n, Workspace& ws,
                      const PilotOptions& o = {}, Trace* trace = nullptr);

// What the targets run: the one instance in `kernels` and `pilots`, the registry in their `_large` twins.
inline void run_fuzzed(Kernel k, Fn f, const MaskSpec& m, float* a, size_t n, Workspace& ws,
                       const PilotOptions& o = {}, Trace* trace = nullptr) {
#ifdef MASKAPPLY_FUZZ_LARGE
  run_kernel(k, f, m, a, n, ws, o, trace);
#else
  run_one_instance(k, f, m, a, n, ws, o, trace);
#endif
}

// testing::run_case (sentinels, hostile workspace, oracle, decision reference) with the kernel run by run_fuzzed.
inline testing::CheckResult check_fuzzed(const testing::Case& c) {
  const testing::Subject s{std::string(name(c.kernel)),
                           [&c](float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace& t) {
                             run_fuzzed(c.kernel, c.f, c.mask, a, n, ws, o, &t);
                           }};
  return testing::check_kernel(s, c.kernel, c.f, c.mask, c.data, c.options, c.misalign);
}

}  // namespace maskapply::fuzz
