// SPDX-License-Identifier: MIT
// The decision trace: an optional observer that pilots tell, per tile, what they decided and which strategy
// ran over which range, and (work.h) each unit of work their kernels execute. NullObserver compiles to nothing,
// so an untraced call costs nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "work.h"

namespace maskapply {

// The per-range strategies a pilot can run; the names are the canonical kernel names.
// blend_skip_verified (pilot_v6's verified blend for a dear f) is last, so the others keep their numbers.
enum class Strategy : uint8_t {
  blend,
  blend_skip,
  blend_verified,
  detour,
  detour_skip,
  compact,
  compact_skip,
  blend_skip_verified
};
inline constexpr std::array<std::string_view, 8> kStrategyNames{"blend",       "blend_skip", "blend_verified",
                                                                "detour",      "detour_skip", "compact",
                                                                "compact_skip", "blend_skip_verified"};
constexpr std::string_view name(Strategy s) { return kStrategyNames[static_cast<size_t>(s)]; }

// One strategy applied to [begin, end) of the array, offsets from the start of the call.
struct Run {
  size_t begin;
  size_t end;
  Strategy strategy;
  friend bool operator==(const Run&, const Run&) = default;
};

// Where the density a tile was judged by came from.
enum class CountSource : uint8_t { none, probe, previous, calibration };
inline constexpr std::array<std::string_view, 4> kCountSourceNames{"none", "probe", "previous", "calibration"};
constexpr std::string_view name(CountSource s) { return kCountSourceNames[static_cast<size_t>(s)]; }

inline constexpr size_t kNoBail = std::numeric_limits<size_t>::max();

// What a pilot saw and decided for one tile (calibration blocks count as tiles with source `calibration`).
struct TileDecision {
  size_t index = 0;
  size_t begin = 0, end = 0;
  CountSource source = CountSource::none;
  long long count = 0;     // probe count, or v4's count from the previous tile, scaled to the full probe
  size_t probed = 0;       // elements the probe read in this tile (the window, or v5's pairs of blocks); 0: none
  long long hi = 0;        // thresholds in probe counts: hi = d_max * probe, xlo, lo
  long long xlo = 0, lo = 0;
  double d_max = 0;
  size_t distrust = 0;     // v4: tiles left of not trusting the probe, after this tile
  size_t bail = kNoBail;   // where blend_verified stopped (offset from the call's start), or kNoBail
  friend bool operator==(const TileDecision&, const TileDecision&) = default;
};

// A pilot's observer: run, tile and work (work.h). Drops everything.
struct NullObserver {
  static constexpr bool kDropsWork = true;
  void run(const Run&) {}
  void tile(const TileDecision&) {}
  void work(Work, size_t) {}
};

// Records everything; what tests, the report and the fuzzers use.
struct Trace {
  std::vector<Run> runs;
  std::vector<TileDecision> tiles;
  static constexpr bool kDropsWork = true;
  void run(const Run& r) { runs.push_back(r); }
  void tile(const TileDecision& t) { tiles.push_back(t); }
  void work(Work, size_t) {}  // not recorded: see WithWork
  void clear() { runs.clear(), tiles.clear(); }
  // The run that covers element i, if any.
  std::optional<Run> run_at(size_t i) const {
    for (const Run& r : runs)
      if (r.begin <= i && i < r.end) return r;
    return std::nullopt;
  }
  friend bool operator==(const Trace&, const Trace&) = default;
};

// A pilot's observer that tells Obs the runs and tiles and W (e.g. WorkCounts) the work.
template <class Obs, class W>
struct WithWork {
  Obs& obs;
  W& w;
  static constexpr bool kDropsWork = drops_work<W>();
  void run(const Run& r) { obs.run(r); }
  void tile(const TileDecision& t) { obs.tile(t); }
  void work(Work k, size_t units) { w.work(k, units); }
};

}  // namespace maskapply
