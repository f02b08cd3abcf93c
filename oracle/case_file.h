// SPDX-License-Identifier: MIT
// A case file: one kernel run, complete enough to rerun and judge against the oracle. Properties and fuzzers
// write one for every failure; the corpus replay runs every *.case file it is given.
//
//   # maskapply case v1
//   kernel pilot_v4
//   f pow10
//   mask less 0x3f800000                 (mask bits_eq <thd bits> <bits_mask> <bits_value> for bits_eq)
//   misalign 3
//   options tile=4096 probe=256 xlo=0.014 lo=0.16 B=0.3 D=0.845 calib_blocks=4 calib_len=2048
//           verify_blocks=8 bail=0.75 distrust=16 d_max=0.9      (one line; d_max=timed for timing)
//   workspace capacity=12 garbage=0x9e3779b97f4a7c15      (optional: the workspace the run gets; when absent,
//                                                          check_kernel's hostile draw from the case)
//   data 3
//   3f800000 00000000 7fc00001
//
// Lines starting with '#' and blank lines are ignored; `data N` is followed by exactly N hex bit patterns
// separated by white space (any line breaks).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check.h"

namespace maskapply::testing {

struct Case {
  Kernel kernel = Kernel::blend;
  Fn f = Fn::sqrt;
  MaskSpec mask;
  PilotOptions options;
  size_t misalign = 0;
  std::vector<float> data;
  // The workspace to run on, pinned (a minimized case keeps the one it failed on, since the default draw
  // changes with the data); when empty, check_kernel's default (hostile_workspace drawn from the case).
  std::optional<HostileWorkspace> workspace;
};

// The workspace c runs on: c.workspace, or check_kernel's default draw for c.
HostileWorkspace case_workspace(const Case& c);

std::string to_text(const Case& c, std::string_view comment = {});

struct CaseParse {
  std::optional<Case> value;
  std::string error;  // "line 4: expected ..." when value is empty
};
CaseParse parse_case(std::string_view text);

// Runs the case against the oracle (check_kernel).
CheckResult run_case(const Case& c);

// Writes the case to dir/<name>.case (dir created if missing); returns the path, or empty on failure.
std::string write_case_file(const Case& c, const std::string& dir, const std::string& name,
                            std::string_view comment = {});

}  // namespace maskapply::testing
