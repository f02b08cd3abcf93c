// SPDX-License-Identifier: MIT
// The smallest failing case: a deterministic minimizer for a case that fails a check, length first (n), then the
// tile, then the contents, keeping every step that still fails. The properties and the fuzz targets run it
// before they print a failure and write its case file, so a tail bug is reported at n < 16 and a bug in one
// register's lane code at one or two blocks, not at the n the generator happened to draw.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "case_file.h"

namespace maskapply::testing {

// Why c fails the check (empty: it passes).
using Failure = std::function<std::string(const Case& c)>;

// check_kernel's verdict on c (run_case): its message, empty when c passes.
std::string oracle_failure(const Case& c);

struct Minimized {
  Case c;               // the smallest case found that still fails
  std::string why;      // why it fails (fails(c))
  size_t original_n = 0, original_tile = 0;
  size_t runs = 0;      // how many times fails() was called
  std::string summary() const;  // "minimized from n=861 tile=4096 to n=5 tile=4096 in 212 runs"
};

// Starts from a case c that fails (fails(c) not empty; else c comes back unchanged, why empty) and keeps each
// change under which it still fails, in this order:
//  0. the workspace it failed on (case_workspace) pinned in the case, since the default draw changes with the
//     data;
//  1. length: the prefixes of 0 to 32 elements, shortest first; cutting the end (halving the cut); dropping the
//     front by whole periods (16, the workspace's capacity, the tile, and their common multiples with 16), so
//     the elements after the cut keep their place in a block, a workspace piece and a tile; then removing
//     aligned chunks of 2^k elements anywhere (from half the array down to 16; down to 1 once n <= 256);
//  2. the tile: 16, 32, 64, ... below the case's (probe and calib_len cut to fit), and fewer calibration blocks;
//     after a smaller tile, length again;
//  3. the contents (n <= 256): misalignment 0, a workspace of the tile's capacity, then each element replaced
//     by the first of 0, 0.5, 0.25, 1, 2, -1, 0.75, 3 that the mask selects or leaves alone as it did the
//     element.
// Stops after `budget` calls of fails(). Deterministic: the same case and check give the same result.
// selected: which values the mask selects, for step 3 (default: c.mask, as the oracle evaluates it); a user's
// kernel with its own mask passes that mask.
Minimized minimize(const Case& c, const Failure& fails, size_t budget = 3000,
                   const std::function<bool(float)>& selected = {});

}  // namespace maskapply::testing
