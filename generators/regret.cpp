// SPDX-License-Identifier: MIT
#include "regret.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace maskapply::gen {

double ratio(double a, double b) {
  if (b == 0) return a == 0 ? 1.0 : std::numeric_limits<double>::infinity();
  return a / b;
}

PilotOptions model_options(const CostModel& m, Fn f, PilotOptions o) {
  o.d_max = m.d_max(f);
  o.B = m.B, o.D = m.D;
  return o;
}

namespace {

double run_cost(const CostModel& m, Fn f, const Run& r, std::span<const uint8_t> sel) {
  const size_t b = std::min(r.begin, sel.size()), e = std::min(r.end, sel.size());
  return strategy_cost(m, f, r.strategy, sel.subspan(b, e - b));
}

}  // namespace

Regret model_regret(const Trace& trace, std::span<const uint8_t> sel, const CostModel& m, Fn f,
                    const PilotOptions& o) {
  Regret g;
  // The tiles: the pilot's decisions, or fixed tiles for a plain kernel.
  struct Tile {
    size_t begin, end;
    bool calibration, probed;
  };
  std::vector<Tile> tiles;
  if (!trace.tiles.empty()) {
    for (const TileDecision& t : trace.tiles)
      tiles.push_back({t.begin, std::min(t.end, sel.size()), t.source == CountSource::calibration,
                       t.source == CountSource::probe});
  } else {
    const size_t tile = std::max<size_t>(o.tile, 1);
    for (size_t i = 0; i < sel.size(); i += tile) tiles.push_back({i, std::min(i + tile, sel.size()), false, false});
  }
  // Each run is charged to the tile holding its first element (pilots never run across a tile boundary).
  std::vector<double> pilot(tiles.size(), 0.0);
  for (const Run& r : trace.runs) {
    const auto it = std::upper_bound(tiles.begin(), tiles.end(), r.begin,
                                     [](size_t x, const Tile& t) { return x < t.begin; });
    const size_t k = it == tiles.begin() ? 0 : static_cast<size_t>(it - tiles.begin()) - 1;
    if (k < pilot.size()) pilot[k] += run_cost(m, f, r, sel);
  }
  std::array<double, kOracleStrategies.size()> fixed{};
  for (size_t k = 0; k < tiles.size(); ++k) {
    const Tile& t = tiles[k];
    if (t.begin >= t.end) continue;
    const std::span<const uint8_t> span = sel.subspan(t.begin, t.end - t.begin);
    if (t.calibration) {
      g.calibration_cost += pilot[k];
      continue;
    }
    TileCost c;
    c.begin = t.begin, c.end = t.end;
    c.pilot = pilot[k] + (t.probed ? probe_cost(m, std::min(o.probe, t.end - t.begin)) : 0.0);
    const SpanStats st = span_stats(span);
    for (size_t s = 0; s < kOracleStrategies.size(); ++s) {
      c.cost[s] = strategy_cost(m, f, kOracleStrategies[s], st);
      fixed[s] += c.cost[s];
      if (c.cost[s] < c.cost[c.best]) c.best = s;
    }
    g.pilot_cost += c.pilot;
    g.oracle_cost += c.cost[c.best];
    ++g.tiles;
    g.per_tile.push_back(c);
  }
  const size_t best_fixed = static_cast<size_t>(std::min_element(fixed.begin(), fixed.end()) - fixed.begin());
  g.fixed_cost = fixed[best_fixed];
  g.fixed_strategy = kOracleStrategies[best_fixed];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  g.vs_oracle = g.tiles ? ratio(g.pilot_cost, g.oracle_cost) : nan;
  g.vs_fixed = g.tiles ? ratio(g.pilot_cost, g.fixed_cost) : nan;
  g.with_calibration = ratio(g.pilot_cost + g.calibration_cost, g.oracle_cost + g.calibration_cost);
  return g;
}

}  // namespace maskapply::gen
