// SPDX-License-Identifier: MIT
// Shared by the kernel unit tests: the kernel lists, and gtest glue around testing::check_kernel.
#pragma once

#include <gtest/gtest.h>

#include <array>

#include "check.h"

namespace maskapply::test {

inline constexpr std::array<Kernel, 8> kPlainKernels{Kernel::blend,   Kernel::blend_skip,  Kernel::blend_verified,
                                                    Kernel::detour,  Kernel::detour_skip, Kernel::compact,
                                                    Kernel::compact_skip, Kernel::tiled_detour};
inline constexpr std::array<Kernel, 7> kPilots{Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3,
                                              Kernel::pilot_v3_5, Kernel::pilot_v4, Kernel::pilot_v5,
                                              Kernel::pilot_v6};

// Runs the check and turns a failure into a gtest failure carrying the whole reproduction line.
inline testing::CheckResult expect_matches_oracle(Kernel k, Fn f, const MaskSpec& m, std::span<const float> in,
                                                  const PilotOptions& o = {}, size_t misalign = 0) {
  testing::CheckResult r = testing::check_kernel(k, f, m, in, o, misalign);
  EXPECT_TRUE(r.ok) << r.message;
  return r;
}

inline MaskSpec less(float thd) { return MaskSpec{MaskKind::less, thd, 0, 0}; }

inline PilotOptions fixed(double d_max) {
  PilotOptions o;
  o.d_max = d_max;
  return o;
}

}  // namespace maskapply::test
