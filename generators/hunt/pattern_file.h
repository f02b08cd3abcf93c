// SPDX-License-Identifier: MIT
// The pattern file of a find, as `maskapply hunt` and the regret fuzz target write it (docs/hunt.md): the
// pattern with its model regret, pilot, f, model and n (`length`) on the first line (the wording
// countertest_check parses), how it was found, the options and d_max, the mechanism in words and as a key,
// and the exact `maskapply check` line that reprints the figure.
#pragma once

#include <string>

#include "search.h"

namespace maskapply::gen::hunt {

struct FileInfo {
  Kernel pilot = Kernel::pilot_v4;
  Fn f = Fn::fma13;
  std::string model_name = "m5";  // the model's name, on the first line
  std::string model_arg = "m5";   // what `maskapply check --model` takes to reprint it (m5, host, a file)
  PilotOptions options;           // with the injected d_max
  size_t n = kHuntN;              // the array the figure is for
  std::string path;               // where the file goes: its `# reproduce:` line names it
  std::string found_by;           // "maskapply hunt --seed 1", "the regret fuzz target"
};

std::string pattern_file(const Find& f, const FileInfo& i);
// PILOT-F-REGRET.pattern, the regret with 4 decimals (scripts/fuzz-overnight parses these names).
std::string pattern_file_name(Kernel pilot, Fn f, double regret);

// x with `digits` decimals ("1.3100"), "n/a" for NaN, "inf" / "-inf" (file names, tables, the CLI's output).
std::string fixed(double x, int digits);

}  // namespace maskapply::gen::hunt
