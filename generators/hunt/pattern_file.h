// SPDX-License-Identifier: MIT
// The pattern file of a find, as `maskapply hunt` and the regret fuzz target write it (docs/hunt.md): the
// pattern with its model regret, pilot, f, model and n (`length`) on the first line (the wording
// countertest_check parses), how it was found, the mechanism in words and as a key, the exact `maskapply check`
// line that reprints the figure, and what `check` reads back (read_recorded):
//   # options: tile=4096 probe=256 ... rho=1.35     every PilotOptions field but d_max (doubles to 17 digits)
//   # d_max: 0.80571... from model m5               the injected d_max and where it came from
//   # model: m5 hash fnv1a64:...                    the model's name, its file (host models), its content hash
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "search.h"

namespace maskapply::gen::hunt {

struct FileInfo {
  Kernel pilot = Kernel::pilot_v4;
  Fn f = Fn::fma13;
  CostModel model = CostModel::m5();  // its name goes on the first line, its hash on `# model:`
  std::string model_file;         // the file a host model was read from; empty for m5
  std::string model_arg = "m5";   // what `maskapply check` takes to reprint it: "--model m5", "--model host
                                  // --model-file X", "--model X" (a file), without the "--model "
  PilotOptions options;           // with the injected d_max
  bool dmax_given = false;        // d_max came from `--dmax` (recorded so; check then injects it), not the model
  size_t n = kHuntN;              // the array the figure is for
  std::string path;               // where the file goes: its `# reproduce:` line names it
  std::string found_by;           // "maskapply hunt --seed 1", "the regret fuzz target"
};

std::string pattern_file(const Find& f, const FileInfo& i);
// PILOT-F-REGRET.pattern, the regret with 4 decimals (scripts/fuzz-overnight parses these names).
std::string pattern_file_name(Kernel pilot, Fn f, double regret);

// x with `digits` decimals ("1.3100"), "n/a" for NaN, "inf" / "-inf" (file names, tables, the CLI's output).
std::string fixed(double x, int digits);

// The content hash of a model: FNV-1a 64 of its JSON (CostModel::to_json), "fnv1a64:" and 16 hex digits. Two
// models with the same constants and name have the same hash, whatever file they were read from.
std::string model_hash(const CostModel& m);

// The first line as pattern_file writes it, "# model regret R (...) for PILOT, f = F, model M, n = N": R as written
// (4 decimals), PILOT, F, M and N; nullopt when the text does not start with such a line.
struct Head {
  std::string regret, pilot, f, model;
  size_t n = 0;
};
std::optional<Head> read_head(const std::string& text);
// ARGS of the `# reproduce: maskapply ARGS` line ("check --pattern ..."); empty when there is none.
std::string read_reproduce(const std::string& text);

// What a pattern file records for `maskapply check` (each part absent in files written before it existed).
struct Recorded {
  std::optional<PilotOptions> options;  // `# options:`, d_max from `# d_max:` when present
  std::string dmax_source;              // "model NAME", "--dmax", or empty
  std::string model_name, model_file, model_hash;  // `# model:`
};
// The recorded lines of a pattern file's text, or what is malformed in them. A `# options:` line whose first
// word has no '=' is prose (files written before these lines) and is skipped.
std::variant<Recorded, std::string> read_recorded(const std::string& text);

// "tile=4096 probe=256 ...": every field but d_max, as `# options:` holds it.
std::string options_text(const PilotOptions& o);
// The options in such text, any subset of the fields (the rest keep their defaults), validated; else what is wrong
// (an unknown name, a bad value, options validate() refuses). `maskapply hunt --options` and `# options:` read so.
std::variant<PilotOptions, std::string> parse_options_text(const std::string& text);

}  // namespace maskapply::gen::hunt
