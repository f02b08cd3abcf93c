// SPDX-License-Identifier: MIT
// Fast, exact pilots for the hunt: a pilot's decisions depend only on counts of selected elements (the probe
// window, the verified blend's blocks, the previous tile's count, the calibration length), and the cost model
// only on per-span statistics, so both come from a per-16-element-block summary of the selection with prefix
// sums, without any float data or kernel. simulate() writes the same Trace the traced kernel writes (a property,
// generators/tests/fast_pilot_prop.cpp, proves it on random patterns, options, d_max and f); Scorer turns it
// into the model regret and the mechanism of the costliest tile.
//
// This is a second, independent copy of the pilots' rules (kernels/pilot.h): it shares no code with them, so
// a change to a pilot shows up as a failing equality property rather than silently in both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cost_model.h"
#include "pattern.h"
#include "pilot.h"
#include "registry.h"
#include "regret.h"
#include "trace.h"

namespace maskapply::gen::hunt {

// A selection with its per-block prefix sums (blocks of 16 elements from element 0). count() and stats() of
// a span are O(1) when the span starts on a multiple of 16, else they read the selection itself.
class Summary {
 public:
  Summary() = default;
  explicit Summary(std::span<const uint8_t> sel) { assign(sel); }
  // The selection (any nonzero byte is selected); keeps the buffers' capacity for the next assign.
  void assign(std::span<const uint8_t> sel);
  // The selection of pattern p over [0, n): one period's template copied, random segments drawn per
  // repetition with mix's state hoisted (Mix3); equal to gen::selection(p, n) (a unit test checks it).
  void assign(const Pattern& p, size_t n);

  size_t size() const { return sel_.size(); }
  std::span<const uint8_t> selection() const { return sel_; }
  // Selected elements in [b, e).
  size_t count(size_t b, size_t e) const;
  // gen::span_stats of [b, e).
  SpanStats stats(size_t b, size_t e) const;
  // The selection as regret.h's block summaries and their prefix costs (what the sound oracle reads).
  std::span<const BlockSummary> blocks() const { return blocks_; }
  const BlockCosts& costs() const { return costs_; }

 private:
  // The block summaries and their prefix sums from sel_. period > 0: the whole blocks repeat every `period`
  // blocks (a pattern whose period and phase are multiples of 16, without random segments), so one period is
  // summarized and the rest copied.
  void build(size_t period = 0);
  std::vector<uint8_t> sel_, period_;
  std::vector<uint64_t> starts_;  // segment starts in the period (assign(Pattern))
  std::vector<BlockSummary> blocks_;
  BlockCosts costs_;
};

// The pilot's trace on a selection, with o.d_max injected (std::invalid_argument when o is invalid or d_max is
// not set, as the pilots). pilot must be one of pilot_v1 .. pilot_v5 (v5: v5_model.h). out is cleared first (its capacity kept).
void simulate(Kernel pilot, const Summary& s, const PilotOptions& o, Trace& out);

// What happened in one tile, in the terms the search keeps diversity by.
struct Mechanism {
  size_t tile = 0;                        // index among decided tiles (0 = first after calibration)
  CountSource source = CountSource::none; // what the decision read
  std::string runs;                       // the strategies run in the tile, e.g. "blend_verified+detour"
  size_t bail_block = 0;                  // 1-based verify block (v6: piece) after which the verified run
                                          // stopped; 0: none
  bool pieces = false;                    // pilot_v6: its verified runs stop after a piece (v6_piece_count)
  Strategy oracle = Strategy::blend;      // the cheapest single strategy for the whole tile
  bool distrust = false;                  // v4 was not trusting the probe in this tile (source previous)
  double excess = 0;                      // pilot cost - that strategy's cost in the tile, ns
  std::string key() const;                // compact, for deduplication: "probe:blend_verified+detour@2>compact_skip"
  std::string words() const;              // a sentence
};

struct Score {
  double regret = 0;      // pilot / oracle: regret.h's vs_oracle (the block DP oracle); NaN when no tile decided
  double vs_fixed = 0;
  double pilot_cost = 0, oracle_cost = 0;
  Mechanism mechanism;    // of the tile with the largest excess
  std::string signature;  // the sorted set of tile mechanisms' keys (how the whole array fools the pilot)
};

// Scores selections for one pilot, f, model and options (d_max injected from the model when o has none).
// The one place that decides what "regret" means for the hunt: regret.h's vs_oracle, the pilot's cost over
// the decided tiles against the clairvoyant block-level oracle (oracle_cost), both from the block summaries.
// Runs or a calibration region off the 16-element grid (odd options only) go through model_regret itself.
// The oracle does not depend on the pilot's decisions: a Scorer keeps its window transfers (OracleCache,
// regret.h) from one candidate to the next, which gives the same bits as a fresh oracle_cost (property 15 and
// generators_hunt_test check it); cache = false computes every oracle afresh (for those checks and the bench).
class Scorer {
 public:
  // A pilot's decisions as a function of the selection (exploration of candidate rules: docs/pilot_v5.md).
  using Simulate = std::function<void(const Summary&, const PilotOptions&, Trace&)>;
  Scorer(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o = {}, bool cache = true);
  // A candidate rule instead of a registered pilot; `pilot` is what the search treats it as.
  Scorer(Simulate sim, Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o = {}, bool cache = true);
  Score score(const Summary& s);
  // The same regret from a Trace the caller supplies (the traced kernel's, in tests).
  Score score_trace(const Summary& s, const Trace& t);
  const OracleCache* cache() const { return cache_ ? &*cache_ : nullptr; }
  const PilotOptions& options() const { return o_; }
  // The options the pilot decides by: as_run(pilot, options()) (pilot_v6's probe for a dear f); what the hunt's
  // seeds and adversary aim at.
  const PilotOptions& decides_by() const { return run_; }
  Kernel pilot() const { return pilot_; }
  Fn f() const { return f_; }
  const CostModel& model() const { return m_; }

 private:
  Kernel pilot_;
  Fn f_;
  CostModel m_;
  PilotOptions o_;
  PilotOptions run_;  // as_run(pilot_, o_), once
  Trace trace_;
  std::optional<OracleCache> cache_;
  Simulate sim_;
};

// The verify pieces of a tile of `size` (and v5's chunks), the hunt's own copy of the kernels' rule: whole blocks
// of 16, size / blocks rounded down to 16 and at least 16; at most `blocks` pieces, the last taking the rest.
inline size_t verify_len(size_t size, size_t blocks) { return std::max<size_t>(16, size / blocks / 16 * 16); }
inline size_t verify_count(size_t size, size_t blocks) {
  return size == 0 ? 0 : std::min(blocks, (size + verify_len(size, blocks) - 1) / verify_len(size, blocks));
}
// The options a pilot decides by, the hunt's copy of pilot_v6's rule: with a dear f (d_max injected and at least
// v6_band) pilot_v6 probes min(probe, v6_dear_probe) elements, with a cheap f (0 <= d_max < v6_band) and v6_cs 0
// min(probe, v6_cheap_probe), and counts hi, xlo, lo, v6_lo and its pieces over them; any other pilot or f: o as
// it is.
inline PilotOptions as_run(Kernel pilot, const PilotOptions& o) {
  PilotOptions r = o;
  if (pilot == Kernel::pilot_v6 && o.d_max && !(*o.d_max < o.v6_band)) r.probe = std::min(o.probe, o.v6_dear_probe);
  else if (pilot == Kernel::pilot_v6 && o.d_max && *o.d_max >= 0 && o.v6_cs == 0)
    r.probe = std::min(o.probe, o.v6_cheap_probe);
  return r;
}
// Whether pilot_v6 runs a tile on the compact score (no probe; docs/pilot_v6.md): a cheap f, its thresholds' hi at
// least 0 and d_max below v6_band, with v6_cs on. The hunt's copy of the rule, for its model, seeds and floor family
// (the bound states its own).
inline bool v6_compact_scored(const PilotOptions& o, double d_max, long long hi) {
  return hi >= 0 && d_max < o.v6_band && o.v6_cs != 0;
}
// pilot_v6's pieces of a tile of `size`: min(v6_pieces, size / probe), at least one (the probe lies in the first).
inline size_t v6_piece_count(const PilotOptions& o, size_t size) {
  return std::max<size_t>(1, std::min(o.v6_pieces, size / o.probe));
}

// The pilots the hunt knows, in order.
inline constexpr std::array<Kernel, 7> kPilots{Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3,
                                               Kernel::pilot_v3_5, Kernel::pilot_v4, Kernel::pilot_v5,
                                               Kernel::pilot_v6};

}  // namespace maskapply::gen::hunt
