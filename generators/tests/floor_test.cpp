// SPDX-License-Identifier: MIT
// The floor under every pilot (generators/hunt/floor.h). It claims: every pilot has a selection whose regret
// exceeds the floor. Checked four ways, each of which a wrong game fails:
// 1. The game's best pilot, and pilots that play one fixed action (a strategy, peeking or not, one run per tile or
//    one per block) against the game's adversary: the selection it answers with, costed by the cost model's
//    strategy_cost and scored by the regret's exact oracle (not the game's charges), has regret above the floor;
//    along each play the game charged the pilot no more than the model and the oracle no less than the exact one
//    (the two inequalities the certificate rests on). On two blocks, the game's value is at most the exact
//    min-max over every pilot policy.
// 2. The game's charges are exact where it claims so, on random selections: a pilot's charge for random runs
//    equals the model's cost of them (packed-pass rounding included) but for a detour or detour_skip run's expand
//    before its first selected block; the least the game charges the oracle equals the regret's oracle cost.
// 3. The certified worst cases of pilot_v1 .. pilot_v4 and v6 (the bound's program, an independent computation)
//    are at or above the floor for the same f and n, as every pilot's worst case must be -- even the floor of the
//    family they belong to (choosing only every 16 blocks, reading only in the probe window).
// 5. The families (FloorFamily): on two blocks the game stays under the exact min-max over the family's pilots,
//    and committing binds; the floor rises as the family narrows.
// 4. The floor is not vacuous: above 1 for every f, above what the old, inexact game gave for sin35 and sin10,
//    and at the value the root finding stopped at it does not certify (the value there is <= 0).
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>

#include "bound.h"
#include "emulation.h"
#include "floor.h"
#include "regret.h"

namespace maskapply::gen::hunt {
namespace {

// Under an emulator (qemu-user: the qemu presets, which set MASKAPPLY_EMULATED, or an emulated arm64 system, which
// gen::under_emulation() recognises by the host's /proc/cpuinfo) fewer f and draws: the same code on the same doubles.

// Two decided tiles after the article's calibration region (natively; one under qemu).
size_t small_n() { return 8192 + (under_emulation() ? 1 : 2) * 4096; }

// What the pilot of a play pays: the model's strategy_cost of each of its runs, plus a probe over every block it
// peeked at (the cost model's formulas, not the game's charges).
double play_cost(const CostModel& m, Fn f, const FloorPlay& p) {
  double cost = static_cast<double>(p.peeked) * probe_cost(m, 16);
  for (const Run& r : p.runs) cost += strategy_cost(m, f, r.strategy, std::span(p.sel).subspan(r.begin, r.end - r.begin));
  return cost;
}

double exact_oracle(const CostModel& m, Fn f, const PilotOptions& o, std::span<const uint8_t> sel) {
  const size_t region = o.calib_blocks * o.calib_len;
  const std::vector<BlockSummary> blocks = summarize(sel);
  return oracle_cost(std::span(blocks).subspan(region / 16), m, f, o, region);
}

TEST(PilotFloor, EveryFixedActionPilotIsAnsweredWithASelectionAboveTheFloor) {
  const CostModel m = CostModel::m5();
  const PilotOptions o;
  const size_t n = small_n();
  // Under qemu one f (the same code on the same doubles is checked natively for three).
  const std::vector<Fn> fns = under_emulation() ? std::vector<Fn>{Fn::sqrt} : std::vector<Fn>{Fn::sqrt, Fn::sin35, Fn::pow10};
  std::vector<FloorAction> actions;
  for (const Strategy s : kOracleStrategies)
    for (const bool peek : {false, true})
      for (const bool new_run : {false, true}) actions.push_back({s, peek, new_run});
  for (const Fn f : fns) {
    const FloorResult r = pilot_floor(f, m, o, n);
    ASSERT_GT(r.floor, 1.0) << name(f);
    const std::vector<FloorPlay> plays = floor_plays(f, m, o, n, r.floor, actions);
    for (size_t i = 0; i < actions.size(); ++i) {
      const auto [s, peek, new_run] = actions[i];
      const FloorPlay& play = plays[i];
      const double pilot = play_cost(m, f, play), oracle = exact_oracle(m, f, o, play.sel);
      const double regret = pilot / oracle;
      const std::string what = std::string(name(f)) + ": " + std::string(name(s)) + (peek ? " peeking" : "") +
                               (new_run ? ", a run per block" : ", a run per tile");
      EXPECT_LE(play.pilot_charged, pilot * (1 + 1e-12)) << what;
      // Exact but for a detour run's expand before its first selected block (a run per block has none).
      const bool expand_forgiven = (s == Strategy::detour || s == Strategy::detour_skip) && !new_run;
      if (!expand_forgiven) {
        EXPECT_NEAR(play.pilot_charged, pilot, 1e-9 * pilot) << what;
      }
      EXPECT_GE(play.oracle_charged, oracle * (1 - 1e-12)) << what;
      EXPECT_GT(regret, r.floor) << what << " floor " << r.floor;
    }
  }
}

// The settings of the exactness checks: tiles of 4 blocks after a calibration region of 2 (many tile edges), and
// the article's options over small_n().
std::vector<std::pair<PilotOptions, size_t>> exactness_settings() {
  PilotOptions small_tiles;
  small_tiles.tile = 64, small_tiles.probe = 16, small_tiles.calib_blocks = 1, small_tiles.calib_len = 32;
  return {{small_tiles, size_t{32 + 64 * 6}}, {PilotOptions{}, small_n()}};
}

// A random selection of n elements, its decided blocks drawn in runs (1 .. max_run blocks) of one selected count,
// empty, full or any, spread over the registers: the packed pass's count lands on every residue.
std::vector<uint8_t> random_runs_selection(std::mt19937_64& rng, const PilotOptions& o, size_t n, size_t max_run) {
  std::vector<uint8_t> sel(n, 0);
  for (size_t b = o.calib_blocks * o.calib_len / 16; b < n / 16;) {
    const unsigned kind = static_cast<unsigned>(rng() % 4);
    const unsigned a = kind == 0 ? 0 : kind == 1 ? 16 : static_cast<unsigned>(rng() % 17);
    const size_t len = 1 + rng() % max_run;
    for (size_t k = 0; k < len && b < n / 16; ++k, ++b)
      for (unsigned i = 0; i < a; ++i) sel[16 * b + (i * 7) % 16] = 1;
  }
  return sel;
}

// The game's oracle, at its cheapest over its moves, is the regret's oracle (no more, no less) on random
// selections: blocks drawn in runs of one (selected count, non-empty registers), often empty or full, so that the
// packed pass's count lands on every residue and runs meet tile edges.
TEST(PilotFloor, TheGamesOracleChargesExactlyTheRegretsOracleCost) {
  const CostModel m = CostModel::m5();
  const uint64_t seed = 29;
  std::mt19937_64 rng(seed);
  for (const auto& [o, n] : exactness_settings())
    for (const Fn f : {Fn::sqrt, Fn::sin35, Fn::pow10, Fn::fma13}) {
      const int draws = under_emulation() ? 10 : o.tile == 64 ? 300 : 30;
      for (int d = 0; d < draws; ++d) {
        const std::vector<uint8_t> sel = random_runs_selection(rng, o, n, o.tile == 64 ? 6 : 40);
        const double game = floor_oracle_charge(f, m, o, sel), exact = exact_oracle(m, f, o, sel);
        ASSERT_NEAR(game, exact, 1e-9 * exact) << name(f) << " tile " << o.tile << " draw " << d << " (seed " << seed
                                               << ", std::mt19937_64)";
      }
    }
}

// The game's pilot charge is the model's cost of the runs but for the expand a detour or detour_skip run pays over
// its blocks before its first selected one, on random selections and random runs (the drawn counts land the
// packed pass on every residue, so a pilot forgiven its rounding fails here).
TEST(PilotFloor, TheGamesPilotChargeIsTheModelsCostButForADetoursExpandBeforeItsFirstSelectedBlock) {
  const CostModel m = CostModel::m5();
  const uint64_t seed = 2929;
  std::mt19937_64 rng(seed);
  for (const auto& [o, n] : exactness_settings())
    for (const Fn f : {Fn::sqrt, Fn::sin35, Fn::pow10, Fn::fma13}) {
      const int draws = under_emulation() ? 10 : o.tile == 64 ? 300 : 30;
      const size_t region = o.calib_blocks * o.calib_len;
      for (int d = 0; d < draws; ++d) {
        const std::vector<uint8_t> sel = random_runs_selection(rng, o, n, 6);
        std::vector<maskapply::Run> runs;
        double model = 0;
        for (size_t at = region; at < n;) {
          const size_t end = std::min(n, at + 16 * (1 + rng() % (o.tile == 64 ? 8 : 60)));
          const Strategy s = kOracleStrategies[rng() % kOracleStrategies.size()];
          runs.push_back(maskapply::Run{at, end, s});
          const std::span<const uint8_t> span = std::span(sel).subspan(at, end - at);
          model += strategy_cost(m, f, s, span);
          if (s == Strategy::detour || s == Strategy::detour_skip) {  // the forgiven expand
            size_t first = 0;
            while (first < span.size() && !span[first]) ++first;
            if (first < span.size()) model -= static_cast<double>(first / 16) * 4 * terms(m, f, s).expand_any;
          }
          at = end;
        }
        const double game = floor_pilot_charge(f, m, o, sel, runs);
        ASSERT_NEAR(game, model, 1e-9 * model) << name(f) << " tile " << o.tile << " draw " << d << " (seed " << seed
                                               << ", std::mt19937_64)";
      }
    }
}

// The game's own best pilot: the model's charges for its play and the exact oracle
// must still leave its regret above the floor (a game that charged the oracle less than the model does, or let
// its detour-family runs cross a tile, fails here).
TEST(PilotFloor, TheGamesBestPilotIsAnsweredWithASelectionAboveTheFloor) {
  const CostModel m = CostModel::m5();
  PilotOptions small_tiles;  // tiles of 4 blocks: many tile edges, where detour-family runs must end
  small_tiles.tile = 64, small_tiles.probe = 16, small_tiles.calib_blocks = 0;
  for (const auto& [o, n] : {std::pair{PilotOptions{}, small_n()}, std::pair{small_tiles, size_t{1024}}})
    for (const Fn f : {Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::sin10, Fn::pow10, Fn::fma13}) {
      if (under_emulation() && f != Fn::sqrt && f != Fn::pow10) continue;  // under qemu two f
      const FloorResult r = pilot_floor(f, m, o, n);
      const FloorPlay play = floor_play(f, m, o, n, r.floor);
      const double pilot = play_cost(m, f, play), oracle = exact_oracle(m, f, o, play.sel);
      EXPECT_LE(play.pilot_charged, pilot * (1 + 1e-12)) << name(f) << " tile " << o.tile;
      EXPECT_GE(play.oracle_charged, oracle * (1 - 1e-12)) << name(f) << " tile " << o.tile;
      EXPECT_GT(pilot / oracle, r.floor) << name(f) << " tile " << o.tile;
    }
}

// The game against the exact one, on two blocks: every pilot policy (an action per block, chosen after seeing the
// earlier blocks), every content of each block, each leaf costed by the model's strategy_cost and probe_cost and
// the regret's exact oracle. The game undercharges the pilot and lets the oracle only over-pay, so its value can
// never exceed the exact min-max at any lambda (a game that charged the oracle's packed pass without rounding, or
// let a detour-family run cross a tile, exceeds it).
struct Exact {
  const CostModel& m;
  Fn f;
  PilotOptions o;
  double lambda;
  static constexpr size_t H = 2;
  struct Step {
    Strategy s;
    bool cont, peek;
    unsigned a, ne;
  };
  std::vector<Step> hist;
  FloorFamily fam;  // the pilot chooses at blocks 0, every, 2 every, ... (in between it goes on with its run) and
                    // reads ahead anywhere or, with probe_reads, only in the probe window

  double leaf() const {
    std::vector<uint8_t> sel(16 * H, 0);
    for (size_t b = 0; b < H; ++b) {
      unsigned left = hist[b].a;
      for (unsigned r = 0; r < hist[b].ne; ++r) sel[16 * b + 4 * r] = 1, --left;
      for (unsigned r = 0; r < hist[b].ne && left; ++r)
        for (unsigned i = 1; i < 4 && left; ++i) sel[16 * b + 4 * r + i] = 1, --left;
    }
    double p = 0;
    size_t start = 0;
    for (size_t b = 0; b < H; ++b) {
      if (hist[b].peek) p += probe_cost(m, 16);
      if (b + 1 == H || !hist[b + 1].cont) {
        p += strategy_cost(m, f, hist[b].s, std::span(sel).subspan(16 * start, 16 * (b + 1 - start)));
        start = b + 1;
      }
    }
    return p - lambda * oracle_cost(summarize(sel), m, f, o, 0);
  }
  double rec() {
    if (hist.size() == H) return leaf();
    double least = std::numeric_limits<double>::infinity();
    const bool decide = hist.size() % fam.every == 0;
    const bool may_peek = !fam.probe_reads || hist.size() % (o.tile / 16) < o.probe / 16;
    for (const bool peek : {false, true})
      for (const Strategy s : kOracleStrategies)
        for (const bool cont : {false, true}) {
          if (peek && !may_peek) continue;
          if (cont && (hist.empty() || hist.back().s != s || s == Strategy::blend)) continue;
          // Between decision points: the same strategy, the same run (blend's run is a block).
          if (!decide && (s != hist.back().s || cont != (s != Strategy::blend))) continue;
          double worst = -std::numeric_limits<double>::infinity();
          for (unsigned a = 0; a <= (peek ? 0u : 16u); ++a)
            for (unsigned ne = (a + 3) / 4; ne <= std::min(4u, a); ++ne) {
              hist.push_back({s, cont, peek, a, ne});
              worst = std::max(worst, rec());
              hist.pop_back();
            }
          least = std::min(least, worst);
        }
    return least;
  }
};

TEST(PilotFloor, TheGamesValueNeverExceedsTheExactMinMaxOnTwoBlocks) {
  const CostModel m = CostModel::m5();
  for (const Fn f : {Fn::sqrt, Fn::pow10})
    for (const size_t tile : {16, 32}) {
      PilotOptions o;
      o.tile = tile, o.probe = 16, o.calib_blocks = 0;
      for (const double lambda : {1.0, 1.3, 1.6, 2.2}) {
        Exact ex{m, f, o, lambda, {}, {}};
        const double exact = ex.rec(), game = floor_value(f, m, o, 32, lambda);
        EXPECT_LE(game, exact + 1e-9) << name(f) << " tile " << tile << " lambda " << lambda;
      }
    }
}

// The hindsight game (floor.cpp's HindsightGame) against its own rules played out on two blocks: every pilot policy
// (a move per block after seeing the blocks before it, or a read of the block, answered with an empty one), every
// content of each block, each leaf charged by this test's own copy of the game's charges (the model's terms; the
// packed pass a / 16 of a group per block; a detour's expand from its first selected block; a read the probe's
// cost) less lambda times the least schedule of blend and blend_skip runs over the two blocks (the model's
// strategy_cost of each run, every schedule enumerated). The game's value equals it: an oracle vector off by a
// step, a read answered with anything, or a charge off the rules, fails.
struct HindsightExact {
  const CostModel& m;
  Fn f;
  PilotOptions o;
  double lambda;
  FloorFamily fam;
  static constexpr size_t H = 2;
  static constexpr std::array<Strategy, 7> kMoves{Strategy::blend,   Strategy::blend_skip, Strategy::detour,
                                                  Strategy::detour_skip, Strategy::compact, Strategy::compact_skip,
                                                  Strategy::blend_verified};
  struct Step {
    size_t k;
    bool cont, peek;
    unsigned a, ne;
  };
  std::vector<Step> hist;

  static bool blendish(size_t k) { return k == 0 || k == 6; }
  double oracle(const std::vector<uint8_t>& sel) const {
    const auto cost = [&](Strategy s, size_t b0, size_t b1) {
      return strategy_cost(m, f, s, std::span(sel).subspan(16 * b0, 16 * (b1 - b0)));
    };
    const double bl0 = cost(Strategy::blend, 0, 1), bl1 = cost(Strategy::blend, 1, 2);
    const double sk0 = cost(Strategy::blend_skip, 0, 1), sk1 = cost(Strategy::blend_skip, 1, 2);
    return std::min({bl0 + bl1, bl0 + sk1, sk0 + bl1, sk0 + sk1, cost(Strategy::blend_skip, 0, 2)});
  }
  double leaf() const {
    std::vector<uint8_t> sel(16 * H, 0);
    double p = 0;
    bool last_empty = false, some = false;
    for (size_t b = 0; b < H; ++b) {
      const Step& st = hist[b];
      unsigned left = st.a;
      for (unsigned r = 0; r < st.ne; ++r) sel[16 * b + 4 * r] = 1, --left;
      for (unsigned r = 0; r < st.ne && left; ++r)
        for (unsigned i = 1; i < 4 && left; ++i) sel[16 * b + 4 * r + i] = 1, --left;
      const StrategyTerms w = terms(m, f, kMoves[st.k]);
      const bool e = st.a == 0;
      p += (e ? w.empty : w.full) + st.ne * w.nonempty_reg + w.group * st.a / 16.0;
      if (w.sw != 0 && e != (st.cont && last_empty)) p += w.sw;
      some = (st.cont && some) || st.a > 0;
      if (w.expand_any != 0 && some) p += 4 * w.expand_any;
      if (st.peek) p += probe_cost(m, 16);
      last_empty = e;
    }
    return p - lambda * oracle(sel);
  }
  template <class F>
  void moves(F&& fn) const {
    if (hist.size() % fam.every != 0) {  // between decision points: go on (a blend run: blend again)
      fn(hist.back().k, !blendish(hist.back().k));
      return;
    }
    for (size_t k = 0; k < kMoves.size(); ++k) fn(k, false);
    if (!hist.empty() && !blendish(hist.back().k)) fn(hist.back().k, true);
  }
  template <class F>
  void contents(F&& fn) const {
    for (unsigned a = 0; a <= 16; ++a)
      for (unsigned ne = (a + 3) / 4; ne <= std::min(4u, a); ++ne) fn(a, ne);
  }
  double rec() {
    if (hist.size() == H) return leaf();
    constexpr double inf = std::numeric_limits<double>::infinity();
    double least = inf;
    moves([&](size_t k, bool cont) {
      double worst = -inf;
      contents([&](unsigned a, unsigned ne) {
        hist.push_back({k, cont, false, a, ne});
        worst = std::max(worst, rec());
        hist.pop_back();
      });
      least = std::min(least, worst);
    });
    if (!fam.probe_reads || hist.size() % (o.tile / 16) < o.probe / 16) {  // a read block is empty
      moves([&](size_t k, bool cont) {
        hist.push_back({k, cont, true, 0, 0});
        least = std::min(least, rec());
        hist.pop_back();
      });
    }
    return least;
  }
};

TEST(PilotFloor, TheHindsightGamesValueIsItsRulesPlayedOutOnTwoBlocks) {
  const CostModel m = CostModel::m5();
  for (const Fn f : {Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::sin10, Fn::pow10, Fn::fma13}) {
    if (under_emulation() && f != Fn::sqrt) continue;  // under qemu one f
    for (const FloorFamily fam : {FloorFamily{1, false}, FloorFamily{2, true}})
      for (const double lambda : {1.0, 1.6, 2.2}) {
        PilotOptions o;
        o.tile = 32, o.probe = 16, o.calib_blocks = 0;
        HindsightExact ex{m, f, o, lambda, fam, {}};
        const double exact = ex.rec(), game = floor_hindsight_value(f, m, o, 32, lambda, fam);
        EXPECT_NEAR(game, exact, 1e-9) << name(f) << " lambda " << lambda << " every " << fam.every
                                       << (fam.probe_reads ? " probe reads" : "");
      }
  }
}

// Reads must teach a pilot nothing it could not plan for, whenever it reads: with reads made free (Q = 0) a pilot
// may read every block before its first move and then run the oracle's own schedule, regret 1, so neither game
// may certify above 1 (a hindsight game that answered a read with anything, just before the block's move,
// certified 1.22 for sqrt here).
TEST(PilotFloor, WithFreeReadsNeitherGameCertifiesAboveOne) {
  CostModel m = CostModel::m5();
  m.Q = 0;
  const PilotOptions o;
  for (const Fn f : {Fn::sqrt, Fn::frfrexp, Fn::sin35}) {
    if (under_emulation() && f != Fn::sqrt) continue;  // under qemu one f
    const FloorResult r = pilot_floor(f, m, o, 8192 + 2048);
    EXPECT_LT(r.menu, 1.0) << name(f);  // a floor of 1.0 would claim every pilot's regret above 1: 0, none found
    EXPECT_LT(r.hindsight, 1.0) << name(f);
  }
}

// With mispredictions free (M = 0), for sqrt blend_skip pays every block the least any strategy on the menu pays it
// (a skipped empty block, a blended non-empty one; the packed strategies pay more on both), so blend_skip over every
// block has regret 1 on every input and neither game may certify 1 or more: an oracle undercharged on some block, or
// a pilot overcharged, would. (Not so for frfrexp: there a sparse block is cheaper packed than blended, and a pilot
// must choose before it sees the block.) A non-empty block's oracle charge 0.2 ns low certified 1.12 here.
TEST(PilotFloor, WithFreeMispredictionsNeitherGameCertifiesOneForSqrt) {
  CostModel m = CostModel::m5();
  m.M = 0;
  const Fn f = Fn::sqrt;
  const StrategyTerms bs = terms(m, f, Strategy::blend_skip);
  for (const Strategy s : kOracleStrategies) {  // the premise: blend_skip's per-block terms are the least
    const StrategyTerms w = terms(m, f, s);
    ASSERT_LE(bs.empty, w.empty) << name(s);
    ASSERT_LE(bs.full, w.full + w.nonempty_reg + 4 * w.expand_any + w.group / 16) << name(s);
  }
  const FloorResult r = pilot_floor(f, m, PilotOptions{}, 8192 + 2048);
  EXPECT_LT(r.menu, 1.0);
  EXPECT_LT(r.hindsight, 1.0);
}

// The hindsight game's certificate, played out: against its answers, pilots that play one fixed action (each
// strategy of its menu, blend_verified too, reading or not, a run per tile or per block) and the game's own best
// pilot are answered with a selection whose regret -- the model's strategy_cost and probe_cost of the play over the
// regret's exact oracle, whose whole menu may be cheaper than blend and blend_skip -- exceeds the hindsight game's
// floor, the game charging the pilot no more than the model and the oracle no less. The floor is the larger of the
// two games', and for sqrt the hindsight game's is the larger by more than 0.05.
TEST(PilotFloor, TheHindsightGamesPilotsAreAnsweredWithASelectionAboveItsFloor) {
  const CostModel m = CostModel::m5();
  const PilotOptions o;
  const size_t n = small_n();
  const std::vector<Fn> fns =
      under_emulation() ? std::vector<Fn>{Fn::sqrt} : std::vector<Fn>{Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::fma13};
  std::vector<std::optional<FloorAction>> actions{std::nullopt};
  for (const Strategy s : {Strategy::blend, Strategy::blend_skip, Strategy::detour, Strategy::detour_skip,
                           Strategy::compact, Strategy::compact_skip, Strategy::blend_verified})
    for (const bool peek : {false, true})
      for (const bool new_run : {false, true}) actions.push_back(FloorAction{s, peek, new_run});
  for (const Fn f : fns) {
    const FloorResult r = pilot_floor(f, m, o, n);
    EXPECT_EQ(r.floor, std::max(r.menu, r.hindsight)) << name(f);
    EXPECT_STREQ(r.game, r.hindsight > r.menu ? "hindsight" : "menu") << name(f);
    if (f == Fn::sqrt) {
      EXPECT_GT(r.hindsight, r.menu + 0.05) << "sqrt: the hindsight game no longer binds";
    }
    ASSERT_GT(r.hindsight, 1.0) << name(f);
    for (const auto& x : actions) {
      const FloorPlay play = floor_hindsight_play(f, m, o, n, r.hindsight, x);
      const double pilot = play_cost(m, f, play), oracle = exact_oracle(m, f, o, play.sel);
      const std::string what = std::string(name(f)) + ": " +
                               (x ? std::string(name(x->s)) + (x->peek ? " reading" : "") +
                                        (x->new_run ? ", a run per block" : ", a run per tile")
                                  : std::string("the game's best pilot"));
      EXPECT_LE(play.pilot_charged, pilot * (1 + 1e-12)) << what;
      EXPECT_GE(play.oracle_charged, oracle * (1 - 1e-12)) << what;
      EXPECT_GT(pilot / oracle, r.hindsight) << what << " floor " << r.hindsight;
    }
  }
}

// The families on two blocks (a tile of two): the game against the exact min-max over every pilot of the family
// (choosing at block 0 only and going on with its run at block 1; reading ahead only in its probe window of one
// block or two; or both): never above it, for every f; and choosing at block 0 only is worth more to the adversary
// than choosing at every block, at some lambda, for each f but sqrt and pow10 (a restriction that did not bind, or
// one that bound more than going on with the run, fails).
TEST(PilotFloor, EachFamilyStaysUnderItsExactMinMaxOnTwoBlocksAndCommittingBinds) {
  const CostModel m = CostModel::m5();
  for (const Fn f : {Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::sin10, Fn::pow10, Fn::fma13}) {
    bool binds = false;
    for (const size_t probe : {16, 32})
      for (const double lambda : {1.0, 1.1, 1.2, 1.3, 1.6, 2.2}) {
        PilotOptions o;
        o.tile = 32, o.probe = probe, o.calib_blocks = 0;
        for (const FloorFamily fam : {FloorFamily{2, false}, FloorFamily{2, true}, FloorFamily{1, true}}) {
          Exact ex{m, f, o, lambda, {}, fam};
          const double exact = ex.rec(), game = floor_value(f, m, o, 32, lambda, fam);
          EXPECT_LE(game, exact + 1e-9) << name(f) << " probe " << probe << " lambda " << lambda << " every "
                                        << fam.every << (fam.probe_reads ? " probe reads" : "");
          if (fam.every == 2 && !fam.probe_reads)
            binds = binds || game > floor_value(f, m, o, 32, lambda) + 1e-9;
        }
      }
    // The best pilots of sqrt and pow10 on two blocks do not change their minds at block 1 (their game values are
    // equal at every lambda here); those of the other four do.
    if (f != Fn::sqrt && f != Fn::pow10) {
      EXPECT_TRUE(binds) << name(f) << ": choosing every 2 blocks is worth no more to the adversary than every block";
    }
  }
}

// A smaller family of pilots has a higher floor: reading only in the probe window, then choosing only every 4 and
// every 16 blocks (a piece of pilot_v6, half one of v3.5), each at or above the last; the two restrictions
// together lift the floor by more than 0.1, and committing to 16 blocks lifts that of a pilot reading only its
// probe by more than 0.05 (a restriction the game ignored fails).
TEST(PilotFloor, RisesAsThePilotsCommitAndReadLess) {
  const CostModel m = CostModel::m5();
  const PilotOptions o;
  const size_t n = 8192 + 4096;
  for (const Fn f : {Fn::sqrt, Fn::sin10}) {
    if (under_emulation() && f != Fn::sqrt) continue;  // under qemu one f
    const auto fl = [&](size_t every, bool probe_reads) { return pilot_floor(f, m, o, n, {every, probe_reads}).floor; };
    const double any = fl(1, false), reads = fl(1, true), c4 = fl(4, true), c16 = fl(16, true), d16 = fl(16, false);
    EXPECT_GE(reads, any) << name(f);
    EXPECT_GE(c4, reads) << name(f);
    EXPECT_GE(c16, c4) << name(f);
    EXPECT_GE(d16, any) << name(f);
    EXPECT_GE(c16, d16) << name(f);
    EXPECT_GT(c16, any + 0.1) << name(f) << ": committing to a piece and reading only the probe should cost the pilot";
    EXPECT_GT(c16, reads + 0.05) << name(f) << ": committing to a piece should cost a pilot that reads only its probe";
  }
}

TEST(PilotFloor, LiesUnderTheCertifiedWorstCaseOfPilotsV1ToV4AndV6EvenForTheirFamily) {
  const CostModel m = CostModel::m5();
  const size_t n = small_n();
  for (const Fn f : {Fn::sqrt, Fn::frfrexp, Fn::sin10}) {
    if (under_emulation() && f != Fn::frfrexp) continue;  // under qemu one f
    PilotOptions o;
    o.d_max = m.d_max(f);
    // Each pilot's own family (its choices at its tile's start and its pieces' edges, its reads in the probe) and
    // every pilot's: the certified bound lies above both.
    const double floor = pilot_floor(f, m, o, n).floor;
    for (const Kernel k : {Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5, Kernel::pilot_v6}) {
      if (under_emulation() && (k == Kernel::pilot_v3_5 || k == Kernel::pilot_v6)) continue;  // minutes under qemu
      PilotOptions ko = o;
      ko.B = m.B, ko.D = m.D;
      if (!bound_unsupported(k, ko, n).empty()) continue;
      const FloorFamily fam = floor_family(k, ko);
      const double family_floor = pilot_floor(f, m, o, n, fam).floor;
      EXPECT_GE(family_floor, floor) << name(f) << " " << name(k);
      // The certified bound is at least the family's floor iff some selection's regret reaches it: F > 0 just
      // below it (bound.h: F(lambda) = max_x [P(x) - lambda O(x)]; one program, no Dinkelbach iterations and no
      // witness; the 1e-9 absorbs rounding where the two would meet).
      // pilot_v6's gate (d_max < 0) is certified by its potential, not the program: its bound itself.
      const bool gate = certified_by_gate(k, ko);
      const double F = gate ? regret_bound(k, f, m, ko, n).bound - family_floor * (1 - 1e-9)
                            : bound_objective(k, f, m, ko, n, family_floor * (1 - 1e-9));
      EXPECT_GT(F, 0) << name(f) << " " << name(k) << " every " << fam.every << ": no selection reaches the floor "
                      << family_floor << " (rerun: maskapply hunt --pilot " << name(k) << " --f " << name(f)
                      << " --n " << n << " --seconds 0 --budget 0)";
    }
  }
}

// The families of the library's pilots under the article's options (tiles of 256 blocks, probe 256 elements): v1
// .. v3 choose per tile, v3.5 and v4 per verify piece of 512 elements, v6 per piece of 256; all but v5 read only
// their probe.
TEST(PilotFloor, EachLibraryPilotBelongsToTheFamilyOfItsPieces) {
  const PilotOptions o;
  const auto is = [&](Kernel k, size_t every, bool probe_reads) {
    const FloorFamily fam = floor_family(k, o);
    EXPECT_EQ(fam.every, every) << name(k);
    EXPECT_EQ(fam.probe_reads, probe_reads) << name(k);
  };
  is(Kernel::pilot_v1, 256, true), is(Kernel::pilot_v2, 256, true), is(Kernel::pilot_v3, 256, true);
  is(Kernel::pilot_v3_5, 32, true), is(Kernel::pilot_v4, 32, true), is(Kernel::pilot_v6, 16, true);
  is(Kernel::pilot_v5, 1, false);
  PilotOptions o2;
  o2.v6_pieces = 12;  // pieces of 4096 / 12 rounded down to 336 elements = 21 blocks: choices every gcd(256, 21) = 1
  EXPECT_EQ(floor_family(Kernel::pilot_v6, o2).every, 1u);
  o2.v6_pieces = 64, o2.probe = 128;  // min(64, 4096 / 128) = 32 pieces of 128 elements: every 8 blocks
  EXPECT_EQ(floor_family(Kernel::pilot_v6, o2).every, 8u);
  // With d_max known and hi below 0 (sqrt under m5) v6 runs no probe and gives a verdict after every block (the
  // switch score), whatever its scores; just above -1 / probe hi truncates to 0 and, without the compact score
  // (v6_cs), the probe's pieces hold.
  PilotOptions o3;
  o3.d_max = -2.0;
  EXPECT_EQ(floor_family(Kernel::pilot_v6, o3).every, 1u);
  EXPECT_TRUE(floor_family(Kernel::pilot_v6, o3).probe_reads);
  o3.v6_score_sample = 8, o3.v6_score_blend = 40;
  EXPECT_EQ(floor_family(Kernel::pilot_v6, o3).every, 1u);
  o3.d_max = -0.001, o3.v6_cs = 0;
  EXPECT_EQ(floor_family(Kernel::pilot_v6, o3).every, 16u);
  // A cheap f (0 <= d_max < v6_band) with the compact score: no probe, a verdict after every block; with v6_cs 0 the
  // probe's pieces.
  PilotOptions o4;
  o4.d_max = 0.2;
  EXPECT_EQ(floor_family(Kernel::pilot_v6, o4).every, 1u);
  o4.v6_cs = 0;
  EXPECT_EQ(floor_family(Kernel::pilot_v6, o4).every, 16u);
}

// What the exact packed pass is for: with the rounding forgiven the pilot and overcharged the oracle the game
// certified only 1.31 for sin35 and 1.20 for sin10 (docs/bound.md); charged exactly on both sides, 1.417 and
// 1.363 on 36 tiles, and about the same on the one tile here.
TEST(PilotFloor, ChargingBothPackedPassesExactlyLiftsSin35AndSin10) {
  const CostModel m = CostModel::m5();
  const PilotOptions o;
  for (const auto& [f, above] : {std::pair{Fn::sin35, 1.40}, std::pair{Fn::sin10, 1.35}}) {
    if (under_emulation() && f != Fn::sin10) continue;  // under qemu one f
    EXPECT_GT(pilot_floor(f, m, o, 8192 + 4096).floor, above) << name(f);
  }
}

TEST(PilotFloor, StopsWhereTheGameNoLongerCertifies) {
  const CostModel m = CostModel::m5();
  const PilotOptions o;
  const size_t n = small_n();
  const double margin = 1e-9 * static_cast<double>(small_n() / 16) * (1 + 4 * m.t_bsl(Fn::fma13));
  // fma13's floor is the menu game's, sqrt's the hindsight game's: each at the floor of the game that gave it.
  for (const Fn f : {Fn::fma13, Fn::sqrt}) {
    const FloorResult r = pilot_floor(f, m, o, n);
    const bool hind = std::string(r.game) == "hindsight";
    EXPECT_EQ(hind, f == Fn::sqrt) << name(f);
    const auto value = [&](double lambda) {
      return hind ? floor_hindsight_value(f, m, o, n, lambda) : floor_value(f, m, o, n, lambda);
    };
    EXPECT_GT(value(r.floor), margin) << name(f);
    EXPECT_LE(value(r.above), margin) << name(f);
    EXPECT_NEAR(r.above - r.floor, 1e-4, 1e-9) << name(f);
  }
}

TEST(PilotFloor, RefusesOptionsOffTheBlockGrid) {
  PilotOptions o;
  o.tile = 4008;  // 250.5 blocks
  EXPECT_FALSE(floor_unsupported(o, 8192 + 4096).empty());
  EXPECT_FALSE(floor_unsupported(PilotOptions{}, 8192 + 8).empty());
  EXPECT_FALSE(floor_unsupported(PilotOptions{}, 8192).empty());
  EXPECT_TRUE(floor_unsupported(PilotOptions{}, 8192 + 16).empty());
  EXPECT_THROW(pilot_floor(Fn::sqrt, CostModel::m5(), o, 8192 + 4096), std::invalid_argument);
  // Decision points must divide the tile's 256 blocks.
  EXPECT_FALSE(floor_unsupported(PilotOptions{}, 8192 + 16, {0}).empty());
  EXPECT_FALSE(floor_unsupported(PilotOptions{}, 8192 + 16, {3}).empty());
  EXPECT_TRUE(floor_unsupported(PilotOptions{}, 8192 + 16, {16, true}).empty());
  EXPECT_THROW(pilot_floor(Fn::sqrt, CostModel::m5(), PilotOptions{}, 8192 + 4096, {3}), std::invalid_argument);
}

}  // namespace
}  // namespace maskapply::gen::hunt
