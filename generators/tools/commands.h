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
  std::optional<double> fail_above;  // exit 1 when a find's model regret is above this
  std::string options;               // "tile=2048 probe=128 ...": the pilots' options (the article's otherwise)
  std::optional<double> dmax;        // inject this d_max instead of the model's
  bool bound = true;                 // compute the certified bound (docs/bound.md) before each search
  bool corrupt_for_test = false;     // nudge each find's figure so the traced re-score refuses it (tests only)
};
int hunt_cmd(const HuntArgs& a, std::ostream& out, std::ostream& err);

struct FloorArgs {
  std::string fns = "all";
  std::string model = "m5", model_file = kDefaultHostModel;
  size_t n = 8192 + 34 * 4096;
  std::string options;  // the tile and calibration region, as hunt's --options
  bool json = false;
};
// The floor under every pilot (hunt/floor.h): per f, the regret no pilot on the menu can be certified below against
// an adversary who knows the pilot (its seed included).
int floor_cmd(const FloorArgs& a, std::ostream& out, std::ostream& err);

}  // namespace maskapply::cli
