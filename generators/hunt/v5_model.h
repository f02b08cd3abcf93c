// SPDX-License-Identifier: MIT
// Exploration model of pilot_v5 candidates; the defaults are the chosen rule (docs/pilot_v5.md): a pilot's decision rule as a function of the
// selection's prefix counts, written as a Trace, so the hunt and the article's cases can measure a rule before
// any kernel is written. Not a kernel: nothing here runs f.
#pragma once

#include <cstdint>
#include <vector>

#include "fast_pilot.h"

namespace maskapply::gen::hunt {

struct V5Params {
  // The cost model's constants the rule reads (m5 by default; the model's own when set from a CostModel).
  double C = 0.3912, S = 0.1928, K = 0.18, M = 3.0, V = 0.02;
  uint64_t seed = 0;           // probe positions
  bool spread = true;          // probe: pairs of adjacent blocks spread over the tile (else the head, as v2-v4)
  bool random = true;          // spread positions: hashed from (seed, tile, pair); else the middle of each slice
  double bail_f = 1.0;         // a counted blend chunk bails below bail_f * d_max
  bool blend_after_bail = true;   // after a bail, may the rest be blended again (verified)?
  size_t esc_chunks = 0;       // detour-family runs of this many chunks, re-decided after each (0: to tile end)
  double esc_f = 1.0;          // escalate to blend when the run's exact density > esc_f * d_max
  bool skip_blend_skip = false;   // never choose blend_skip
  bool reg_upper = true;       // nonempty registers per sampled block (exact per register)
  double prior = 0.0;          // pseudo-blocks of "one element per block" added to the sample
  size_t window = 0;           // a chunk's plan reads the samples of chunks within this distance
  size_t bail_window = 0;      // after a bail, the rest of the tile is planned with this window
  double bail_shrink = 0;      // after a bail, the shrink weight for the rest of the tile
  double shrink = 0.5;         // samples outside the window count with this weight (0: not at all)
  double kappa = 2;            // pseudo-pairs of independent placement (switch rate 2e(1-e)) in the switch estimate
  double rho = 1.35;           // bs_mode 2: blend_skip allowed when blend / compact on one sparse block <= rho
  size_t cheap_pairs = 0;      // pairs read when d_max <= 0 (0: as many as otherwise)
  double lambda = 0;           // pseudo-pairs that switched, in the switch-rate estimate (a pessimistic prior)
  double split = 0;            // a packed run continues over a chunk whose switch saves at most split x T
  int x_mode = 0;              // 1: switch rate from every pair at weight 1, prior from the tile's e; 2: prior from the chunk's e
  bool adapt = false;          // the others' weight: shrink + (1 - shrink) min(1, observed switches / independence's)
  bool kappa_adapt = false;    // kappa x min(1, observed switches / independence's) over all pairs
  double indep_z = 0;          // > 0: when the pairs' switches are within indep_z sd of independence's, x = 2e(1 - e)
  int skip_feedback = 0;       // exploration: blend_skip chunk by chunk, reporting its counts (no such kernel):
                               // 1: blend the rest after a chunk it lost; 2: the counts join the estimates
  double fb_w = 1;             // skip_feedback 2: weight per reported block
  double skip_margin = 0;      // a skip row must beat its twin by this fraction of the twin's estimate
  int bs_mode = 2;             // 0: blend_skip only when no bail can happen (d_max <= 0); 1: always; 2: rho rule
};

void simulate_v5(const Summary& s, const PilotOptions& o, const V5Params& p, Trace& out);
// The blocks (of 16 elements, from the tile's start) the chosen rule's probe reads in the tile with this index
// (calibration tiles counted) and size: two per pair, pair by pair. With the seed known, an input can fill them
// as it likes (search.h, seed_aware).
std::vector<size_t> v5_probe_blocks(const PilotOptions& o, size_t tile_index, size_t size);
// The chosen rule's parameters from the options (what the kernel pilot_v5 reads): the fast path of pilot_v5.
V5Params v5_params(const PilotOptions& o);

// v5's per-block cost estimates for each strategy of the menu from sample statistics (density d, fraction of
// empty blocks e, switch probability x, nonempty registers per block r), in ns per block of 16.
struct V5Estimate {
  double d = 0, e = 0, x = 0, r = 0;
};

}  // namespace maskapply::gen::hunt
