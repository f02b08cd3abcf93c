// SPDX-License-Identifier: MIT
// The libFuzzer harness template around the Highway kernel: fuzz_hwy_detour (correct) and fuzz_hwy_detour_full_tail
// (the full-width tail load, built with -DFULL_TAIL_LOAD). over_spans: the input's first byte picks any catalog f.
// Without libFuzzer both replay the files they are given.
#include <maskapply/maskapply_fuzz.h>
#include "hwy_detour.h"

#ifdef FULL_TAIL_LOAD
constexpr auto kTail = mine::TailLoad::full;
#else
constexpr auto kTail = mine::TailLoad::partial;
#endif

MASKAPPLY_FUZZ_KERNEL(kTail == mine::TailLoad::full ? "hwy_detour<full-tail-load>" : "hwy_detour",
                      maskapply::testing::over_spans([](float* a, size_t n, maskapply::SpanFn f, auto mask,
                                                        maskapply::Workspace& ws) {
                        mine::hwy_detour<kTail>(a, n, f, mask, ws);
                      }))
