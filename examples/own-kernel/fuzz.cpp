// SPDX-License-Identifier: MIT
// The libFuzzer harness template around the user's kernel: fuzz_my_compact (fixed) and fuzz_my_compact_padded
// (the article's padding, built with -DPADDED). Without libFuzzer both replay the files they are given.
#include <maskapply/maskapply_fuzz.h>
#include "my_compact.h"

#ifdef PADDED
constexpr bool kPadded = true;
#else
constexpr bool kPadded = false;
#endif

MASKAPPLY_FUZZ_KERNEL(kPadded ? "my_compact<padded>" : "my_compact",
                      [](float* a, size_t n, auto f, auto mask, maskapply::Workspace& ws) {
                        mine::my_compact<kPadded>(a, n, f, mask, ws);
                      })
