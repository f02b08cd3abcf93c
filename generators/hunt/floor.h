// SPDX-License-Identifier: MIT
// The floor under every pilot: a certified LOWER bound on the worst model regret of ANY pilot on the menu, for an
// adversary that knows the pilot (its seed included). docs/bound.md, "The floor under every pilot", gives the
// argument; in short:
//
// A pilot here is anything that covers the decided blocks with runs of the menu's six strategies (blend,
// blend_skip, detour, detour_skip, compact, compact_skip; blend_verified costs at least blend) and may read
// ("peek at") blocks before processing them, paying the probe's Q per register, as every library pilot does. The
// game: block after block, the pilot chooses whether it has peeked at the block, its strategy, and whether the
// block continues its run or starts one; the adversary answers a peeked block with an empty one and any other
// with the content (selected count, non-empty registers) that hurts most, and picks the oracle's run (a
// schedule of the regret's oracle menu, detour-family runs inside one tile). Both sides' packed passes are charged
// exactly: the state carries the selected count mod 16 of the pilot's and of the oracle's open detour-family run,
// so each run pays ceil(P / 16) groups as the model charges. The pilot is charged no more than the model charges
// (exactly, but for a detour run's expand, charged only from its first selected block on), the oracle's schedule
// exactly its model cost; the pilot sees the whole state (more than any real pilot knows). A backward dynamic
// program gives the game's value V(lambda) = min over pilots of max over adversaries of [pilot - lambda * oracle];
// when V(lambda) > 0, every pilot has a selection of n elements whose Scorer regret exceeds lambda. The floor is
// the largest such lambda on a 1e-4 grid.
//
// So no change of probe, plan or chunking lowers a pilot's worst case, against an adversary who knows its seed,
// below the floor; pilot_v5's figures below the floor hold only while its seed is unknown to the input.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cost_model.h"
#include "pilot.h"
#include "registry.h"
#include "trace.h"

namespace maskapply::gen::hunt {

struct FloorResult {
  double floor = 0;       // certified: every pilot has a selection of n elements with Scorer regret > floor
  double above = 0;       // the grid's next lambda, where the game's value is <= 0 (the floor is within 1e-4 of it)
  double menu = 0;        // each game's floor: the menu game's (the oracle's whole menu, committed block by block)
  double hindsight = 0;   // ... and the hindsight game's (blend and blend_skip, in hindsight; reads answered empty)
  const char* game = "menu";  // the game whose floor is the larger (floor = max(menu, hindsight))
  size_t blocks = 0;      // decided blocks of n the game ran over
  int programs = 0;       // dynamic programs run
  double seconds = 0;     // CPU of this thread
};

// Empty when the floor covers these options and n; else why not (block-aligned: the calibration region, tile
// and n - region multiples of 16, at least one decided block).
// Which pilots the floor is under. The defaults: every pilot on the menu. every > 1: only pilots that choose (a
// strategy, or a new run) at every `every`-th block of a tile from its first and go on with their run in between.
// probe_reads: only pilots that read ahead within a tile's first o.probe elements (its probe window) and nowhere
// else. pilot_v1 .. v4 and v6 are pilots of {16, true}: their pieces are multiples of 16 blocks and their probes
// the tile's first o.probe elements; so that floor lies under each of them (docs/bound.md, "Pilots that commit").
struct FloorFamily {
  size_t every = 1;
  bool probe_reads = false;
};

// The least family a library pilot with options o belongs to, on a whole tile: pilot_v1 .. v3 {tile's blocks,
// probe only}, v3.5 and v4 {their verify pieces' blocks}, v6 {its pieces' blocks} (each as a divisor of the
// tile's blocks), v5 (which reads blocks spread over the tile) every pilot {1, anywhere}.
FloorFamily floor_family(Kernel pilot, const PilotOptions& o);

std::string floor_unsupported(const PilotOptions& o, size_t n, const FloorFamily& fam = {});

// The floor for f under model m, options o (tile and calibration region) and n elements.
// fam: the floor under the pilots of that family only (fam.every must divide the tile's blocks).
// Throws std::invalid_argument when floor_unsupported says why.
FloorResult pilot_floor(Fn f, const CostModel& m, const PilotOptions& o, size_t n, const FloorFamily& fam = {});

// For tests: the menu game's value V(lambda) over the decided blocks; the hindsight game's.
double floor_value(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                   const FloorFamily& fam = {});
double floor_hindsight_value(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                             const FloorFamily& fam = {});

// For tests: the least the game charges the oracle on sel (n elements; over every sequence of its oracle moves).
// The game charges each oracle schedule its model cost, so this is the regret's oracle cost of sel's decided blocks.
double floor_oracle_charge(Fn f, const CostModel& m, const PilotOptions& o, std::span<const uint8_t> sel);

// For tests: what the game charges a pilot that plays runs (element offsets covering the decided blocks in
// order, block-aligned; a run's blocks after its first continue it) on sel, reading nothing ahead: the model's cost
// of the runs but for a detour or detour_skip run's expand over its blocks before its first selected one.
double floor_pilot_charge(Fn f, const CostModel& m, const PilotOptions& o, std::span<const uint8_t> sel,
                          std::span<const Run> runs);

// For tests: a play of the game at lambda. The adversary answers as the game's maximizer; the pilot plays either
// one fixed action on every block (FloorAction) or, without one, the game's minimizer (the best pilot the game
// knows). The selection (one byte per element), the pilot's runs over the decided blocks and the blocks it peeked.
struct FloorAction {
  Strategy s = Strategy::blend;
  bool peek = false;        // read the block first (the adversary then leaves it empty)
  bool new_run = false;     // start a run at every block (else one run per tile)
};
struct FloorPlay {
  std::vector<uint8_t> sel;
  std::vector<Run> runs;    // element offsets
  size_t peeked = 0;        // blocks
  double pilot_charged = 0; // what the game charged the pilot (<= the model's cost of runs and probes)
  double oracle_charged = 0;// ... and the oracle's schedule it played (its model cost: >= the regret's oracle on sel)
};
FloorPlay floor_play(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                     const std::optional<FloorAction>& fixed_action = std::nullopt, const FloorFamily& fam = {});
// The same in the hindsight game (its fixed actions may also be Strategy::blend_verified). The oracle charged is its
// least blend and blend_skip schedule, in hindsight.
FloorPlay floor_hindsight_play(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                               const std::optional<FloorAction>& fixed_action = std::nullopt,
                               const FloorFamily& fam = {});
// The same for several fixed actions, over one program (the values of every block are kept: for small n).
std::vector<FloorPlay> floor_plays(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                                   const std::vector<FloorAction>& fixed_actions);

}  // namespace maskapply::gen::hunt
