// SPDX-License-Identifier: MIT
#include "guarded.h"

#include <cstring>

namespace maskapply::fuzz {

namespace {

// The guarded run's workspace garbage, without coverage instrumentation (flatten inlines scribble here): a loop
// per workspace byte, up to 40 KB, whose counters say nothing about the kernel and cost more than its run.
#if defined(__clang__)
[[gnu::flatten]] __attribute__((no_sanitize("coverage")))
#endif
void scribble(Workspace& ws, uint64_t garbage) {
  ws.scribble(garbage);
}

}  // namespace

std::string run_guarded(testing::GuardPages& g, Route route, const testing::Case& c, const PilotOptions& o,
                        bool at_end, std::span<const float> expected, Trace* trace) {
  const size_t n = c.data.size();
  float* const a = g.place(n, at_end);
  if (n) std::memcpy(a, c.data.data(), n * sizeof(float));
  const testing::HostileWorkspace hw = testing::hostile_workspace(c.kernel, c.f, c.data, c.options.tile, at_end + 16);
  Workspace ws(hw.capacity);
  scribble(ws, hw.garbage);
  run_fuzzed(route, c.kernel, c.f, c.mask, a, n, ws, o, trace);
  if (!n || std::memcmp(a, expected.data(), n * sizeof(float)) == 0) return {};
  const oracle::Mismatch mm = oracle::compare(name(c.kernel), c.data, expected, {a, n}, o.tile,
                                              trace && !trace->runs.empty() ? trace : nullptr);
  return std::string("next to a guard page at its ") + (at_end ? "end" : "start") + ", " + mm.message;
}

}  // namespace maskapply::fuzz
