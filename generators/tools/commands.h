// SPDX-License-Identifier: MIT
// What the subcommands of `maskapply` share: their arguments, usage errors, name lists and the cost model.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cost_model.h"
#include "pattern_file.h"
#include "registry.h"

namespace maskapply::cli {

// Bad usage: reported as "maskapply <cmd>: error: ..." with exit code 2, before anything is written.
struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A result the tool refuses to stand behind (a hunt's find the traced kernel does not confirm): exit code 1, nothing
// written.
struct Unconfirmed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr size_t kMaxElements = size_t{1} << 26;  // 256 MiB of floats: anything above is refused
inline constexpr const char* kDefaultHostModel = "maskapply-host.json";

// "all" or a comma-separated list of names.
std::vector<Fn> parse_fns(const std::string& list, const std::vector<Fn>& all);
std::vector<Kernel> parse_kernels(const std::string& list, const std::vector<Kernel>& all);
// maskapply hunt's --pilot: pilot_v4 or v4 (v3.5, v3_5), or all.
std::vector<Kernel> parse_pilots(const std::string& list);
// "m5", "host" (read from file), a model file written by `maskapply calibrate`, or "" (none).
std::optional<gen::CostModel> load_model(const std::string& which, const std::string& file);
std::vector<std::string> split(const std::string& s, char sep);
using gen::hunt::fixed;  // "1.31", "n/a" for NaN, "inf" (hunt/pattern_file.h)
std::string json_escape(const std::string& s);
// Writes text to path through a temporary file and a rename, so a failure leaves the old file intact.
void write_file(const std::string& path, const std::string& text);

struct ReportArgs {
  std::string out = "report";
  size_t tiles = 96;
  uint64_t seed = 1;
  std::vector<std::string> families;  // empty: the default list
  std::string fns = "all", pilots = "all";
  bool no_article = false, no_sweeps = false, no_measure = false, quick = false;
  int reps = 5;
  std::string model = "m5", model_file = kDefaultHostModel;
};
int report(const ReportArgs& a, std::ostream& out, std::ostream& err);

struct CheckArgs {
  std::string pattern, input;
  std::string fns = "all", kernels = "all";
  float thd = 0.5f;
  std::optional<double> dmax;
  std::string model = "m5", model_file = kDefaultHostModel;
  bool timed = false;  // pilots time d_max on this host instead of taking the model's
  bool trace = false;  // per decided tile: decisions, runs, the oracle's runs, the gap
  bool json = false;
  std::optional<size_t> n;
  uint64_t seed = 1;
  double specials = 0;
  bool corrupt_for_test = false;
};
int check(const CheckArgs& a, std::ostream& out, std::ostream& err);

struct CalibrateArgs {
  std::string out = kDefaultHostModel;
  size_t tiles = 64;
  int reps = 5;
};
int calibrate(const CalibrateArgs& a, std::ostream& out, std::ostream& err);

struct HuntArgs {
  std::string pilots = "all", fns = "all";
  std::string model = "m5", model_file = kDefaultHostModel;
  double seconds = 60;         // cap per pilot x f
  size_t budget = 20000;       // evaluations of the evolutionary search per pilot x f
  uint64_t seed = 1;
  std::string out = "hunt";
  std::string corpus = "corpus/countertests";
  bool json = false, save = false;
  bool progress = false;       // a progress line on stderr (set when stderr is a terminal)
  size_t keep = 3;             // finds per pilot x f
  size_t n = 8192 + 34 * 4096;
  int jobs = 1;
  std::optional<double> fail_above;  // exit 1 when a certified bound or a find's model regret is above this
  std::string summary;               // append the gate's Markdown table here ($GITHUB_STEP_SUMMARY)
  std::string options;               // "tile=2048 probe=128 ...": the pilots' options (the article's otherwise)
  std::optional<double> dmax;        // inject this d_max instead of the model's
  bool bound = true;                 // compute the certified bound (docs/bound.md) before each search
  bool corrupt_for_test = false;     // nudge each find's figure so the traced re-score refuses it (tests only)
};
int hunt_cmd(const HuntArgs& a, std::ostream& out, std::ostream& err);

// A find scored again as `maskapply check` scores its file: data made from the pattern (thd 0.5, seed 1, as
// check's defaults), the real pilot kernel traced and compared with the oracle, its trace priced by
// gen::model_regret. Empty when it confirms the claimed figure to the bit; else what differs.
std::string rescore(Kernel pilot, Fn fn, const gen::hunt::Find& f, const gen::CostModel& m, const PilotOptions& o,
                    size_t n, double claimed);

struct TuneArgs {
  std::string pilots = "v3_5,v4", fns = "all";
  std::string model = "m5", model_file = kDefaultHostModel;
  std::string options;       // where the search starts ("tile=2048 ..."; the article's otherwise)
  std::string knobs;         // the knobs it moves, comma-separated; empty: every knob the pilot reads
  size_t n = 8192 + 34 * 4096;
  double seconds = 600;      // cap per pilot x f
  size_t budget = 40;        // candidates of the search after the one-knob sweep, per pilot x f
  uint64_t seed = 1;
  std::string out = "tune";  // the witnesses' pattern files
  bool json = false;
  bool progress = false;     // a progress line on stderr (set when stderr is a terminal)
  int jobs = 1;
};
// `maskapply tune` (docs/tune.md): per pilot x f, the options with the least certified bound that cost at most
// 1.03x the start's on uniform random data; the one-knob sweep beside it.
int tune_cmd(const TuneArgs& a, std::ostream& out, std::ostream& err);

struct FloorArgs {
  std::string fns = "all";
  std::string model = "m5", model_file = kDefaultHostModel;
  size_t n = 8192 + 34 * 4096;
  std::string options;  // the tile and calibration region, as hunt's --options
  size_t every = 1;     // the family of pilots (floor.h's FloorFamily)
  bool probe_reads = false;
  bool json = false;
};
// The floor under every pilot (hunt/floor.h): per f, the regret no pilot on the menu can be certified below against
// an adversary who knows the pilot (its seed included).
int floor_cmd(const FloorArgs& a, std::ostream& out, std::ostream& err);

}  // namespace maskapply::cli
