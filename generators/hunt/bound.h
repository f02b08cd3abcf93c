// SPDX-License-Identifier: MIT
// The certified worst case: a proven upper bound on a pilot's model regret over EVERY selection of length n, and
// a witness selection that reaches it. docs/bound.md gives the argument; in short:
//
// The regret is hunt::Scorer's figure, R(x) = P(x) / O(x): the pilot's cost over the decided tiles (runs and
// probes) against the block oracle's, O(x) = min over block schedules s of cost(s, x). Dinkelbach: for a
// lambda, F(lambda) = max_x [P(x) - lambda O(x)] = max over (x, s) of [P(x) - lambda cost(s, x)], and
// R(x) <= lambda + max(F(lambda), 0) / O_min for every x (O_min: a lower bound on any O). F is computed EXACTLY
// (real arithmetic; a stated floating-point margin is added) by a dynamic program over 16-element blocks: the
// adversary picks each block's summary (selected 0..16 and its non-empty registers, of which only the two
// extremes are needed: both costs are linear in them and no decision reads them) and the oracle's run, the
// pilot's decisions follow from counts carried in the state (the probe count, each verify piece's count, the
// count since the pilot's run began mod 16 for its packed pass, v4's distrust and the class of its `prev`, pilot_v6's
// non-empty blocks per piece of its cut blend_skip and its one-pass compact, its non-empty registers per piece of its
// one-pass detour: a decision that reads a block's registers makes every register count the adversary's choice),
// and the tiles compose by max-plus products of per-tile transfers (a detour-family run never crosses a tile).
// lambda is iterated to the fixed point (the witness's own regret); the bound is certified from the last one.
//
// pilot_v6 with v6_gate = 1 where it runs the switch score (hi < 0: d_max < 0) is certified otherwise, by the gate's
// potential (gate_bound.h states the rule, O_lb and the argument): for the least lambda' >= v6_gate_lambda / 100 (in
// hundredths) at which the safe score's W' converges, the certificate bounds P - lambda' O_lb, so P - lambda' O, by
// gmax after every block of every input; so R(x) <= lambda' + max(0, gmax + margin) / O_min for every n. A short last
// tile is a prefix of a full one (its blocks run as a full tile's first blocks do; only the verdict after its last
// block is dropped, and nothing follows it), and the bound holds after every prefix. It needs O_lb to be a lower
// bound of the oracle under the options' costs and under the model's, the options' integer costs to dominate the
// model's, and some lambda' up to lambda + 10 to converge (refused with the reason otherwise: bound_unsupported, and
// regret_bound for the model). Its witness is the certificate's argmax path
// from the start, filled; bound_objective and bound_objective_of refuse it (no F(lambda) is computed).
//
// Covers pilot_v1 .. pilot_v4 (pilot_v3_5 included) with block-aligned options: tile, the calibration region,
// probe, tile / verify_blocks and n - region multiples of 16 (the last tile may be shorter), the probe inside
// the first verify piece. Not pilot_v5 (its plan reads 16 blocks spread over the tile before the tile runs: not carried left to right).
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cost_model.h"
#include "pattern.h"
#include "pilot.h"
#include "registry.h"

namespace maskapply::gen::hunt {

struct BoundResult {
  double bound = 0;            // certified: every selection of length n has Scorer regret <= bound
  double witness = 0;          // the witness's regret, scored by hunt::Scorer (not by the bound's program)
  Pattern pattern;             // the witness (`length` n)
  Pattern tile_pattern;        // its most frequent decided tile repeated (one tile's period): compact, near it
  double lambda = 0;           // the last Dinkelbach iterate (the witness's regret before the last check); pilot_v6's
                               // gate: the lambda' its certificate holds at
  double f_at_lambda = 0;      // F(lambda) computed there (<= 0 up to rounding at the fixed point); the gate: gmax (ns)
  double o_min = 0;            // the lower bound on any selection's oracle cost used in the certificate
  int iterations = 0;          // dynamic programs run
  double seconds = 0;          // CPU of this thread
  bool gave_up = false;        // give_up_above was reached: `bound` is then the witness's regret, a LOWER bound
};

// Empty when the bound covers this pilot, options and n; else why not (the options must carry d_max).
std::string bound_unsupported(Kernel pilot, const PilotOptions& o, size_t n);

// The bound and its witness for the pilot, f and model, with options o (d_max injected; model_options(m, f) is
// what the hunt uses) over n elements. start: the first lambda (any value; a known regret saves iterations).
// Throws std::invalid_argument when bound_unsupported says why. give_up_above: stop as soon as a witness's regret
// reaches it (maskapply tune starts at its incumbent's bound: a loser costs one program); the result then has
// gave_up set and is no certificate.
BoundResult regret_bound(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, size_t n,
                         double start = 1.0, double give_up_above = INFINITY);

// True when regret_bound certifies this pilot and options by pilot_v6's gate potential (gate_bound.h), not by the tile
// program: pilot_v6 where it runs its switch score (hi < 0) with v6_gate = 1 (the options must carry d_max). Then
// bound_objective and bound_objective_of refuse them.
bool certified_by_gate(Kernel pilot, const PilotOptions& o);

// For tests: F(lambda) for the same setting (the dynamic program's maximum, no margin).
double bound_objective(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda);
// For tests: the same program with the adversary's choice fixed to one summary (selected, non-empty registers) per
// decided block: P(x) - lambda O(x) of that x as the program models it (lambda = 0: the pilot's cost).
double bound_objective_of(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                          const std::vector<std::pair<unsigned, unsigned>>& blocks);

}  // namespace maskapply::gen::hunt
