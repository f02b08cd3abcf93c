// SPDX-License-Identifier: MIT
// `maskapply tune`'s search (docs/tune.md): for one pilot, f, model and n, the option set on the certified bound's
// grid (bound.h) with the least certified worst case, among those that cost at most max_ratio x the starting
// options on plain data (uniform random selections at a fixed list of densities and seeds, priced by the same
// model). Three phases, every candidate scored the same way:
//   1. the start's bound;
//   2. the one-knob sweep a user would try first: each knob over its grid, the others at the start's values;
//   3. a search from the sweep's best (so tune never loses to the sweep): coordinate passes over the knobs, then
//      seeded random moves of one to three knobs from the incumbent, until the budget.
// A candidate is refused when it is off the bound's grid or fails the plain-data rule; it is dismissed without a
// bound when a witness kept from an earlier bound already scores at or above the incumbent's bound under it (a
// selection that costs that much is a lower bound on its worst case); else its bound is computed (regret_bound,
// with the same arguments `maskapply hunt` uses, so `hunt --options` reprints every figure to the bit).
// Deterministic for a seed and budget; time is only a cap, and the result says when it cut the search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bound.h"
#include "search.h"

namespace maskapply::gen::hunt {

// The options tune moves. d_max, the calibration region and the model's constants are not knobs: d_max and the
// constants come from the model, the region from the start.
enum class Knob {
  tile, probe, xlo, lo, verify_blocks, bail, distrust, v6_pieces, v6_bail, v6_lo, v6_floor, v6_band,
  v6_score_switch, v6_score_blend, v6_score_skip, v6_score_sample, v6_dense_cut, v6_dense_block, v6_reg, v6_dear_floor, v6_dear_probe,
  v6_cheap_probe, v6_cs, v6_cs_empty, v6_cs_switch, v6_cs_block, v6_cs_reg, v6_cs_elem, v6_cs_to_skip,
  v6_cs_to_compact, v6_cs_sample, v6_cs_probation
};
std::string_view name(Knob k);
std::optional<Knob> knob_from_name(std::string_view s);
// Every knob's name, comma-separated (for messages).
std::string knob_names();
double knob_value(const PilotOptions& o, Knob k);
void set_knob(PilotOptions& o, Knob k, double v);
// The values tune tries for a knob (the start's own value is tried too). Tiles stop at 4096: pilot_v4's bound at
// 8192 takes about a minute and 1 GB.
const std::vector<double>& knob_grid(Knob k);

// A pilot tune can tune: it needs a certified bound (bound.h) and the knobs its rules read. A new pilot with a
// bound is one more line in tunable_pilots().
struct TunablePilot {
  Kernel pilot;
  std::vector<Knob> knobs;
};
const std::vector<TunablePilot>& tunable_pilots();
const TunablePilot* tunable(Kernel k);
// The tunable pilots' names, comma-separated (for messages).
std::string tunable_pilot_names();

// The plain-data rule: on the uniform random selection at each density (every element selected with probability
// d, from each seed), the candidate's model cost of the decided tiles is at most max_ratio x the start's.
struct PlainData {
  std::vector<double> densities{0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2,
                                0.3,   0.4,  0.5,   0.6,  0.7,  0.8,  0.9,  1.0};
  std::vector<uint64_t> seeds{1, 2};
  double max_ratio = 1.03;
};
// The uniform random selection of n elements at density d from seed: `period n, seed s, seg rest:~d`
// (generators_v5_uniform_test's data).
Pattern uniform_pattern(size_t n, double density, uint64_t seed);
// The pilot's model cost over the decided tiles on each (density, seed) of the rule, densities outer.
std::vector<double> plain_costs(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, size_t n,
                                const PlainData& p);

// One option set as tune scored it.
struct Candidate {
  PilotOptions options;
  double bound = 0;             // certified (regret_bound); +inf when not computed
  double plain_worst = 0;       // max over the rule's cases of cost / the start's cost
  double plain_density = 0;     // where that worst is
  uint64_t plain_seed = 0;
  std::string moved;            // what differs from the start: "probe=128 bail=0.5" ("" for the start)
};

struct TuneProgress {
  std::string phase;            // "start", "sweep", "seeds", "search", "done"
  size_t evaluations = 0, bounds = 0;
  double best = 0, seconds = 0;
};

struct TuneConfig {
  uint64_t seed = 1;
  size_t budget = 40;           // candidates of phase 3 (each refused, dismissed or bounded counts one)
  double seconds = 600;         // cap on the whole tune of this pilot x f; 0: none
  size_t n = kHuntN;
  PlainData plain;
  std::vector<Knob> knobs;      // empty: the pilot's (tunable_pilots)
  // Scored after the one-knob sweep, before the search, like any candidate (the plain-data rule against the start
  // included): `maskapply tune` hands a pilot the knobs other pilots' tunes moved for the same f.
  std::vector<PilotOptions> seeds;
  std::function<void(const TuneProgress&)> progress;
};

struct TuneResult {
  Candidate start, sweep, best; // sweep: the one-knob sweep's best (the start when no knob helps)
  BoundResult best_bound;       // regret_bound of best.options (its witness)
  size_t evaluations = 0;       // distinct candidates scored, the start and the sweep included
  size_t bounds = 0;            // ... of which bounded
  size_t off_grid = 0, refused_plain = 0, dismissed = 0;
  double seconds = 0;           // wall clock
  double cpu_seconds = 0;       // CPU of this thread (on a shared machine, what the search itself took)
  bool capped = false;          // the time cap stopped the search before its budget
  int seed = -1;                // the index in TuneConfig::seeds the best descends from, -1: none
};

// Throws std::invalid_argument when the pilot is not tunable or the start is off the bound's grid (the message
// says why). start carries d_max (options_for / model_options).
TuneResult tune(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& start, const TuneConfig& c);

}  // namespace maskapply::gen::hunt
