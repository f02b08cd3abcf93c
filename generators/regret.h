// SPDX-License-Identifier: MIT
// Dispatch-decision regret: what a pilot's traced choices cost under a cost model, against the clairvoyant
// per-tile oracle (for each tile, the cheapest strategy for its exact mask) and against the best single fixed
// strategy (one strategy for every tile, the cheapest such), as the article compares pilots with BSL and detour.
//
//   pilot cost   = sum over decided tiles of: the cost of each traced run in the tile (blend_verified counts
//                  its blend and count, the detour after a bail-out is its own run) + the probe when the tile
//                  was probed (source == probe; v4's "previous" tiles pay no probe)
//   oracle cost  = sum over the same tiles of min over {blend, blend_skip, detour, detour_skip, compact,
//                  compact_skip} of the strategy's cost on the tile
//   fixed cost   = min over those strategies s of sum over the tiles of cost(s, tile)
//   vs_oracle    = pilot / oracle   (>= 1 up to the probe; 1 is a perfect pilot)
//   vs_fixed     = pilot / fixed    (< 1 when adapting beats every fixed choice)
// The calibration tiles (source == calibration: blend over the first calib_blocks * calib_len elements,
// the same for every pilot) are left out of the three sums and reported as calibration_cost; with_calibration
// gives the ratio over the whole array. A trace without tile decisions (a plain kernel) is cut into tiles of
// o.tile from 0, and its runs are costed as traced.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "cost_model.h"
#include "pilot.h"
#include "trace.h"

namespace maskapply::gen {

// The strategies the oracle and the fixed choice pick from (blend_verified never beats blend without a bail).
inline constexpr std::array<Strategy, 6> kOracleStrategies{Strategy::blend,       Strategy::blend_skip,
                                                           Strategy::detour,      Strategy::detour_skip,
                                                           Strategy::compact,     Strategy::compact_skip};

struct TileCost {
  size_t begin = 0, end = 0;
  double pilot = 0;                  // the pilot's runs in the tile plus its probe
  std::array<double, 6> cost{};      // by kOracleStrategies
  size_t best = 0;                   // index into kOracleStrategies of the cheapest
};

struct Regret {
  double pilot_cost = 0, oracle_cost = 0, fixed_cost = 0;
  Strategy fixed_strategy = Strategy::blend;
  double vs_oracle = 0, vs_fixed = 0;   // NaN when no tile was decided
  double calibration_cost = 0;          // blend over the calibration tiles, not in the sums above
  double with_calibration = 0;          // (pilot + calibration) / (oracle + calibration)
  size_t tiles = 0;                     // decided tiles
  std::vector<TileCost> per_tile;
};

// ratio(a, b): a / b, with 0 / 0 = 1 and x / 0 = inf.
double ratio(double a, double b);

Regret model_regret(const Trace& trace, std::span<const uint8_t> sel, const CostModel& m, Fn f,
                    const PilotOptions& o = {});

// The options the report and `check` give a pilot under model m: the article's, with d_max = m.d_max(f)
// injected so that the decisions (and so the model regret) are deterministic.
PilotOptions model_options(const CostModel& m, Fn f, PilotOptions o = {});

}  // namespace maskapply::gen
