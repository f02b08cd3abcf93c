// SPDX-License-Identifier: MIT
// Dispatch-decision regret: what a pilot's traced schedule costs under a cost model (cost_model.h), against a
// clairvoyant oracle that knows the mask.
//
// The oracle is the cheapest schedule over the pilots' whole menu (blend, blend_skip, detour, detour_skip,
// compact, compact_skip) at the finest granularity a kernel can switch at, the 16-element block, computed
// exactly by dynamic programming over blocks. A schedule is a partition of the blocks into runs, each run one
// strategy, costed by strategy_cost exactly as a pilot's run is (so starting a run is charged as the model
// charges it: the packed f pass rounds P up to 16 lanes per run, a skip run compares its first block with
// "non-empty", a detour run with anything selected expands all of its registers). A run of the detour family
// lives in one workspace tile, as in the kernels: inside one window of the pilots' tile grid (tiles of o.tile
// from 0 up to the calibration region, then the pilots' tiles from its end). blend_verified is not on the
// oracle's menu: it costs at least blend over the same blocks.
//
// The pilot's side charges what executed: the trace reports every pass (verify pieces and v5's chunks are whole
// blocks, a plain detour-family kernel reports each workspace pass, TileDecision::probed what the probe read), and
// property 16 checks the model's f and mask terms against counted calls.
// Lower bound: when every run boundary of the trace is a multiple of 16 or n (`Regret::aligned`; true whenever
// tile and calib_len are multiples of 16, e.g. the article's options, for any n), the oracle's menu contains that
// block-aligned schedule (a verified blend priced at least as the blend of its blocks): the oracle costs at most
// the pilot's runs, and pilot / oracle >= 1 (the pilot also pays its probes).
// A misaligned schedule (a tile or calib_len off the grid) pays tails the block grid cannot express: the figure
// is then reported, but the bound is not guaranteed (aligned = false says so).
//
// Figures (Regret):
//   decided tiles  vs_oracle = pilot / oracle over [end of calibration, n): the pilot's runs and probes
//                  there, against the oracle scheduling those blocks freely. What the pilot's decisions cost.
//   whole array    whole = whole_pilot / whole_oracle over [0, n): the pilot's calibration blend included, the
//                  oracle scheduling the calibration region as freely as the rest. What a user pays.
//   tile_oracle    vs_tile_oracle = pilot / (per decided tile, the cheapest single strategy): the old per-tile
//                  figure; NOT a lower bound (v3.5 / v4 switch strategy inside a tile and can beat it).
//   fixed          vs_fixed = pilot / (the best single strategy for every decided tile): below 1 when adapting
//                  beats every fixed choice (the article compares pilots with BSL and detour so).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cost_model.h"
#include "pilot.h"
#include "trace.h"

namespace maskapply::gen {

// The strategies the oracle, the tile oracle and the fixed choice pick from.
inline constexpr std::array<Strategy, 6> kOracleStrategies{Strategy::blend,       Strategy::blend_skip,
                                                           Strategy::detour,      Strategy::detour_skip,
                                                           Strategy::compact,     Strategy::compact_skip};

// What the model needs of one block of 16 elements. An array is summarized as blocks from element 0; only its
// last block may be shorter (len < 16: the tail, which every strategy blends as one local block).
struct BlockSummary {
  uint8_t selected = 0;   // selected elements, 0..16
  uint8_t nonempty = 0;   // registers of 4 with a selected lane, 0..4
  uint8_t len = 16;       // elements; < 16 only for the array's tail
  bool empty() const { return selected == 0; }
};
std::vector<BlockSummary> summarize(std::span<const uint8_t> sel);
void summarize(std::span<const uint8_t> sel, std::vector<BlockSummary>& out);  // reuses out's storage

// Prefix sums over a summary: the cost of any block-aligned run in O(1).
class BlockCosts {
 public:
  BlockCosts() = default;
  explicit BlockCosts(std::span<const BlockSummary> blocks) { assign(blocks); }
  void assign(std::span<const BlockSummary> blocks);  // reuses the prefix arrays' storage
  // The same sums when the whole blocks may repeat every `period` blocks (a hint: checked, 0 for none). When they
  // do, each sum past the first period is the one a period before plus the period's totals (integers: the same
  // figures as assign(blocks), in one vector addition per block); when they do not, assign(blocks).
  void assign(std::span<const BlockSummary> blocks, size_t period);
  size_t size() const { return n_; }   // elements
  // The cost of strategy s over [begin, end) (elements; begin a multiple of 16, end a multiple of 16 or n)
  // as strategy_cost gives it. prev_empty: what a skip run compares its first block with (false: "non-empty",
  // a run's start; a block's predecessor when costing the piece of a run that continues).
  double run_cost(const CostModel& m, Fn f, Strategy s, size_t begin, size_t end, bool prev_empty = false) const;
  static bool aligned(size_t pos, size_t n) { return pos % 16 == 0 || pos == n; }
  bool empty_block(size_t b) const { return p_[b + 1].ge != p_[b].ge; }
  // Over whole blocks [0, b): selected elements, non-empty registers, empty blocks, switches (a block whose
  // emptiness differs from the one before it; block 0 compared with "non-empty").
  uint32_t selected_before(size_t b) const { return p_[b].s; }
  uint32_t nonempty_before(size_t b) const { return p_[b].rn; }
  uint32_t empty_before(size_t b) const { return p_[b].ge; }
  uint32_t switches_before(size_t b) const { return p_[b].x; }

 private:
  size_t n_ = 0, full_ = 0;  // elements, whole blocks
  bool tail_ = false;
  struct Prefix {  // over blocks [0, b): selected, non-empty registers, empty blocks, switches
    uint32_t s, rn, ge, x;
  };
  std::vector<Prefix> p_;  // one record per block boundary: one store per block when built
};

// The cost of a schedule (runs in element offsets, block-aligned) plus nothing else.
double schedule_cost(const BlockCosts& c, std::span<const Run> runs, const CostModel& m, Fn f);

struct OracleSchedule {
  double cost = 0;
  std::vector<Run> runs;  // element offsets (first + ...), the last one holding the tail if any
};
// The clairvoyant oracle over blocks that start at element `first` of an array whose end is the end of blocks
// (first must be a multiple of 16). o gives the window grid (tile, calib_blocks * calib_len). O(blocks) time.
//
// The cost is computed window by window (the grid above): nothing but two numbers and two small facts cross a
// window boundary — dp (the cheapest schedule of all blocks before it) and bs (the cheapest one whose last run is
// a blend_skip run, which may continue), the selected count mod 16 (the packed pass's rounding) and whether the
// block before was empty (a switch). A window's dynamic program is min-plus linear in (dp, bs), so it is run
// from (0, inf) and from (inf, 0) — the second only when a continuing blend_skip run can beat a fresh one
// (regret.cpp) — giving a transfer T (OracleTransfer), and the windows are composed in order: dp' = min(dp + T.dd, bs + T.bd), bs' = min(dp + T.db, bs + T.bb). Exact in real arithmetic (the same
// minimum as one pass over all blocks; oracle_test checks it against a brute force); in floating point this
// order of additions *is* the definition, so OracleCache, which reuses transfers, gives the same bits.
double oracle_cost(std::span<const BlockSummary> blocks, const CostModel& m, Fn f, const PilotOptions& o,
                   size_t first = 0);
// The schedule: one pass of the dynamic program over all blocks, recording choices; its cost field is
// oracle_cost's figure (the schedule's own sum, schedule_cost, agrees to rounding: oracle_test).
OracleSchedule oracle_schedule(std::span<const BlockSummary> blocks, const CostModel& m, Fn f,
                               const PilotOptions& o, size_t first = 0);

// A window's min-plus transfer (see oracle_cost): [from][to] over dp and bs.
struct OracleTransfer {
  double dd = 0, db = 0, bd = 0, bb = 0;
};

// oracle_cost with the window transfers kept between calls: a window whose blocks, entering count mod 16 and
// entering emptiness were seen before (compared in full, not by hash alone) reuses its transfer, so a candidate
// that repeats a tile, or shares tiles with an earlier candidate, pays only for its new windows. The same
// figure as oracle_cost to the last bit (both compose the same transfers in the same order;
// generators_oracle_test, generators_hunt_test and property 15 check it). For one model and f; at most max_entries windows, then
// it starts afresh. Owned by its user (a Scorer), not shared between threads.
class OracleCache {
 public:
  OracleCache(const CostModel& m, Fn f, size_t max_entries = 4096);
  double cost(std::span<const BlockSummary> blocks, const PilotOptions& o, size_t first = 0);
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }
  size_t size() const { return entries_.size(); }

 private:
  friend struct OracleCacheAccess;
  struct Entry {
    uint64_t key = 0;        // hash of (blocks, s, prev_empty)
    size_t at = 0, len = 0;  // its blocks in pool_
    uint8_t s = 0;           // selected count mod 16 entering the window
    bool prev_empty = false; // the block before it empty
    OracleTransfer t;
  };
  CostModel m_;
  Fn f_;
  size_t max_entries_;
  std::vector<BlockSummary> pool_;
  std::vector<Entry> entries_;
  // Open addressing over the keys' hashes, linear probing: entry + 1 (0: free); at most half full.
  std::vector<uint32_t> slots_;
  struct Win {  // a window of one call: its blocks [j, end), entering state, key, transfer
    size_t j = 0, end = 0;
    uint32_t s = 0;
    bool prev_empty = false;
    uint64_t key = 0;    // hash of (blocks, s, prev_empty)
    uint32_t entry = 0;  // in entries_
    bool computed = false; // its passes run in this call (a miss, or every window without a cache)
    OracleTransfer t;      // without a cache
  };
  std::vector<Win> wins_;  // scratch of one call
  size_t hits_ = 0, misses_ = 0;
};

// Per decided tile: what the pilot paid there and what the oracle did there.
struct TileCost {
  size_t begin = 0, end = 0;
  double pilot = 0;                  // the pilot's runs in the tile plus its probe
  double oracle = 0;                 // the oracle's schedule restricted to the tile (runs split at its edges)
  std::array<double, 6> cost{};      // by kOracleStrategies: each strategy over the whole tile
  size_t best = 0;                   // index into kOracleStrategies of the cheapest (the tile oracle)
};

struct Regret {
  // Decided tiles.
  double pilot_cost = 0, oracle_cost = 0, tile_oracle_cost = 0, fixed_cost = 0;
  Strategy fixed_strategy = Strategy::blend;
  double vs_oracle = 0, vs_tile_oracle = 0, vs_fixed = 0;  // NaN when no tile was decided
  // Whole array.
  double calibration_cost = 0;   // the pilot's runs in the calibration region
  double probe_cost = 0;         // every probe, included in pilot_cost and whole_pilot_cost
  double whole_pilot_cost = 0, whole_oracle_cost = 0, whole = 0;
  bool aligned = true;           // every run boundary a multiple of 16 or n: vs_oracle, whole >= 1 guaranteed
  size_t tiles = 0;              // decided tiles
  std::vector<TileCost> per_tile;
  OracleSchedule oracle;         // over the decided tiles
};

// ratio(a, b): a / b, with 0 / 0 = 1 and x / 0 = inf.
double ratio(double a, double b);

// A thin wrapper: summarize sel, cost the trace's runs and probes, run the oracles.
Regret model_regret(const Trace& trace, std::span<const uint8_t> sel, const CostModel& m, Fn f,
                    const PilotOptions& o = {});

// The options the report and `check` give a pilot under model m: the article's, with d_max = m.d_max(f)
// injected so that the decisions (and so the model regret) are deterministic.
PilotOptions model_options(const CostModel& m, Fn f, PilotOptions o = {});

}  // namespace maskapply::gen
