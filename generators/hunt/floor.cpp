// SPDX-License-Identifier: MIT
// The floor under every pilot (floor.h; docs/bound.md, "The floor under every pilot", has the argument).
#include "floor.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "fast_pilot.h"
#include "regret.h"

namespace maskapply::gen::hunt {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Groups of 16 packed lanes a run's packed pass adds when a block with a selected elements follows a count whose
// residue mod 16 is r: ceil((r + a) / 16) - ceil(r / 16). Summed over a run it telescopes to ceil(P / 16)
// (a count of 16, 32, ... has residue 0 and adds what a count of 0 adds: one group for any a > 0).
inline unsigned inc(unsigned r, unsigned a) { return (r + a + 15) / 16 - (r + 15) / 16; }

// The pilot's menu, in this order.
constexpr std::array<Strategy, 6> kMenu{Strategy::blend,   Strategy::blend_skip, Strategy::detour,
                                        Strategy::detour_skip, Strategy::compact, Strategy::compact_skip};

// Pilot states: its open run's strategy; for the four detour-family strategies the run's selected count mod 16
// (its packed pass's rounding, charged exactly); for detour and detour_skip whether the run has selected anything
// yet (its expand is charged only from then on: less than the model's charge, which covers the whole run).
constexpr size_t PB = 0, PBS = 1, PD0 = 2, PD = 3, PDS0 = 19, PDS = 20, PC = 36, PCS = 52, kPilotStates = 68;
size_t pilot_state(size_t menu, bool some, unsigned r) {
  switch (menu) {
    case 0: return PB;
    case 1: return PBS;
    case 2: return some ? PD + r : PD0;
    case 3: return some ? PDS + r : PDS0;
    case 4: return PC + r;
    default: return PCS + r;
  }
}
size_t menu_of(size_t p) { return p < PD0 ? p : p < PDS0 ? 2 : p < PC ? 3 : p < PCS ? 4 : 5; }
bool some_of(size_t p) { return (p >= PD && p < PDS0) || (p >= PDS && p < PC); }
unsigned res_of(size_t p) {
  if (p >= PCS) return static_cast<unsigned>(p - PCS);
  if (p >= PC) return static_cast<unsigned>(p - PC);
  if (p >= PDS) return static_cast<unsigned>(p - PDS);
  if (p >= PD && p < PDS0) return static_cast<unsigned>(p - PD);
  return 0;
}

// Oracle states: the last block ended a run (a blend block is a run of its own), an open blend_skip run, an open
// detour over empty blocks only, an open run of the detour family k (detour, detour_skip, compact, compact_skip)
// with its selected count mod 16: OW + 16 k + r.
constexpr size_t OEND = 0, OBS = 1, ODE = 2, OW = 3, kOracleStates = OW + 64;
// Values are laid out [pilot state][previous block empty][oracle state]: the oracle state innermost.
constexpr size_t kStates = kPilotStates * 2 * kOracleStates;
size_t index(size_t p, size_t o, bool pe) { return (p * 2 + (pe ? 1 : 0)) * kOracleStates + o; }

struct Content {
  unsigned a = 0, ne = 0;  // selected elements of the block, non-empty registers
};

struct Action {
  size_t menu = 0;
  bool cont = false, peek = false;
};

// What both games share: the decided blocks on the tile grid, the family's decision points and read window, the
// terms of kMenu's strategies and of blend_verified (t[kBV]), and the contents the input answers a block with: each
// selected count at the fewest and at the most non-empty registers it can fill.
constexpr size_t kBV = 6;  // blend_verified's index in t
struct Grid {
  Fn f;
  const CostModel& m;
  size_t blocks = 0, tile_blocks = 0;
  FloorFamily fam;          // which pilots (floor.h)
  size_t probe_blocks = 0;  // the probe window: a tile's first probe_blocks
  std::array<StrategyTerms, 7> t{};
  std::vector<Content> contents;  // contents[0] is the empty block

  Grid(Fn fn, const CostModel& model, const PilotOptions& o, size_t n, const FloorFamily& family)
      : f(fn), m(model), fam(family) {
    const size_t region = o.calib_blocks * o.calib_len;
    blocks = (n - region) / 16, tile_blocks = o.tile / 16, probe_blocks = (o.probe + 15) / 16;
    for (size_t k = 0; k < 6; ++k) t[k] = terms(m, f, kMenu[k]);
    t[kBV] = terms(m, f, Strategy::blend_verified);
    for (unsigned a = 0; a <= 16; ++a) {
      const unsigned lo = (a + 3) / 4, hi = std::min(4u, a);
      contents.push_back({a, lo});
      if (hi != lo) contents.push_back({a, hi});
    }
  }
  // At a decision point (decides(b)) the pilot may start any run or continue its own; elsewhere it goes on with
  // its run (a blend run goes on by starting blend again). It reads ahead where may_peek(b) lets it.
  bool decides(size_t b) const { return b % tile_blocks % fam.every == 0; }
  bool may_peek(size_t b) const { return !fam.probe_reads || b % tile_blocks < probe_blocks; }
};

// Writes content c into a play's block blk: one selected lane in each of c.ne registers, the rest filling them in
// order.
void fill_block(uint8_t* blk, const Content& c) {
  unsigned left = c.a;
  for (unsigned r = 0; r < c.ne; ++r) blk[4 * r] = 1, --left;
  for (unsigned r = 0; r < c.ne && left; ++r)
    for (unsigned i = 1; i < 4 && left; ++i) blk[4 * r + i] = 1, --left;
}

struct Game : Grid {
  std::vector<Action> actions;
  // Tables for the program (from pilot_cost and oracle_moves, so the play and the program agree).
  struct Move {
    size_t o2 = 0;
    double cost = 0;
  };
  std::vector<std::vector<Move>> new_moves;                   // [content]: into o2 from any state
  // [pe][content]: the cost of the move that continues the run of oracle state o, by o (END and DE have none; their
  // entries are never read). Its target: BS from BS; from OW + 16 k + r, OW + 16 k + (r + a) mod 16 for the
  // content's a (checked when built), so the step's inner loop runs over contiguous ranges.
  std::array<std::vector<std::array<double, kOracleStates>>, 2> cont_moves;
  struct NewPlay {
    size_t x = 0;                                             // index into actions
    std::vector<size_t> cis, p2;
    std::vector<double> pc;
  };
  std::vector<NewPlay> new_plays;
  // Continuing the open run of pilot state p: [p][peek][pe] -> per content its cost and next state.
  struct ContPlay {
    bool valid = false;
    std::vector<size_t> cis, p2;
    std::vector<double> pc;
  };
  std::vector<std::array<std::array<ContPlay, 2>, 2>> cont_plays;

  Game(Fn fn, const CostModel& model, const PilotOptions& o, size_t n, const FloorFamily& family = {})
      : Grid(fn, model, o, n, family) {
    for (const bool peek : {false, true})
      for (size_t k = 0; k < 6; ++k) {
        actions.push_back({k, false, peek});
        if (k != 0) actions.push_back({k, true, peek});  // continuing a blend run is starting one
      }
    const size_t nc = contents.size();
    new_moves.resize(nc);
    for (auto& cm : cont_moves) cm.assign(nc, {});
    for (size_t ci = 0; ci < nc; ++ci) {
      oracle_moves(OEND, false, contents[ci], true, [&](size_t o2, double cost) { new_moves[ci].push_back({o2, cost}); });
      for (const bool pe : {false, true})
        for (size_t o = OBS; o < kOracleStates; ++o)
          oracle_continuations(o, pe, contents[ci], [&](size_t o2, double cost) {
            const size_t a = contents[ci].a;
            if (o2 != (o < OW ? o : OW + (o - OW) / 16 * 16 + (o - OW + a) % 16))
              throw std::logic_error("floor: a continuation off the rotation the step assumes");
            cont_moves[pe][ci][o] = cost;
          });
    }
    for (size_t xi = 0; xi < actions.size(); ++xi) {
      const Action& x = actions[xi];
      if (x.cont) continue;
      NewPlay np;
      np.x = xi;
      for (size_t ci = 0; ci < nc; ++ci) {
        if (x.peek && contents[ci].a != 0) continue;
        size_t p2 = 0;
        np.cis.push_back(ci), np.pc.push_back(pilot_cost(x, PB, false, contents[ci], p2)), np.p2.push_back(p2);
      }
      new_plays.push_back(std::move(np));
    }
    cont_plays.resize(kPilotStates);
    for (size_t p = 0; p < kPilotStates; ++p) {
      if (menu_of(p) == 0) continue;
      for (const bool peek : {false, true})
        for (const bool pe : {false, true}) {
          ContPlay& cp = cont_plays[p][peek][pe];
          cp.valid = true;
          const Action x{menu_of(p), true, peek};
          for (size_t ci = 0; ci < nc; ++ci) {
            if (peek && contents[ci].a != 0) continue;
            size_t p2 = 0;
            cp.cis.push_back(ci), cp.pc.push_back(pilot_cost(x, p, pe, contents[ci], p2)), cp.p2.push_back(p2);
          }
        }
    }
  }

  // What the pilot is charged for block content c under action x from pilot state p, previous block pe (no more
  // than the model charges: exact but for detour's expand before the run's first selected block); and its next
  // state.
  double pilot_cost(const Action& x, size_t p, bool pe, const Content& c, size_t& next) const {
    const StrategyTerms& w = t[x.menu];
    const bool e = c.a == 0;
    const unsigned r = x.cont ? res_of(p) : 0;
    double v = (e ? w.empty : w.full) + c.ne * w.nonempty_reg + w.group * inc(r, c.a);
    const bool compare = x.cont ? pe : false;  // a run's first block is compared with "non-empty"
    if (w.sw != 0 && e != compare) v += w.sw;
    const bool some = (x.cont && some_of(p)) || c.a > 0;
    if (w.expand_any != 0 && some) v += 4 * w.expand_any;
    if (x.peek) v += 4 * m.Q;
    next = pilot_state(x.menu, some, (r + c.a) % 16);
    return v;
  }
  bool allowed(const Action& x, size_t p, size_t b) const {
    if (x.peek && !may_peek(b)) return false;
    if (decides(b)) return !x.cont || menu_of(p) == x.menu;
    return menu_of(p) == 0 ? x.menu == 0 && !x.cont : x.cont && x.menu == menu_of(p);
  }

  // The oracle's moves that start a run at a block with content c: fn(next oracle state, cost), each the model's
  // charge for that block of that run (a detour-family run's first block: its packed pass's first group).
  template <class F>
  void oracle_starts(const Content& c, F&& fn) const {
    const bool e = c.a == 0;
    fn(OEND, t[0].full);
    const StrategyTerms& bs = t[1];
    fn(OBS, (e ? bs.empty : bs.full) + (e ? bs.sw : 0.0));
    if (e) fn(ODE, 4 * m.C);
    for (size_t k = 0; k < 4; ++k) {
      const StrategyTerms& w = t[2 + k];
      const double base = (e ? w.empty : w.full) + 4 * w.expand_any + c.ne * w.nonempty_reg;
      fn(OW + 16 * k + c.a % 16, base + w.group * inc(0, c.a) + (e && w.sw != 0 ? w.sw : 0.0));
    }
  }
  // The oracle's move that continues its open run o (blend_skip or the detour family; a detour over empty blocks
  // continues as it starts) at a block with content c: the model's charge, the packed pass's by its residue.
  // Detour-family runs do not cross a tile edge (the caller drops these at a tile's start).
  template <class F>
  void oracle_continuations(size_t o, bool pe, const Content& c, F&& fn) const {
    const bool e = c.a == 0;
    if (o == OBS) {
      const StrategyTerms& bs = t[1];
      fn(OBS, (e ? bs.empty : bs.full) + (e != pe ? bs.sw : 0.0));
    } else if (o >= OW) {
      const size_t k = (o - OW) / 16;
      const unsigned r = static_cast<unsigned>((o - OW) % 16);
      const StrategyTerms& w = t[2 + k];
      const double base = (e ? w.empty : w.full) + 4 * w.expand_any + c.ne * w.nonempty_reg;
      fn(OW + 16 * k + (r + c.a) % 16, base + w.group * inc(r, c.a) + (e != pe && w.sw != 0 ? w.sw : 0.0));
    }
  }
  // Every oracle move from o (no less than the model charges the schedule; equal for every schedule of the
  // oracle's menu). tile_start: detour-family runs cannot continue.
  template <class F>
  void oracle_moves(size_t o, bool pe, const Content& c, bool tile_start, F&& fn) const {
    oracle_starts(c, fn);
    if (tile_start && o >= OW) return;
    oracle_continuations(o, pe, c, fn);
  }

  // One block backwards: from next (values at b + 1) to cur (values at b). best: scratch.
  void step(size_t b, double lambda, const std::vector<double>& next, std::vector<double>& cur,
            std::vector<double>& best) const {
    constexpr size_t K = kOracleStates;
    const bool ts = b % tile_blocks == 0;
    const size_t nc = contents.size();
    // best[((p2 * 2 + pe) * nc + ci) * K + o]: after the pilot moved into p2 and the block holds content ci, the
    // oracle's best move from o (previous block pe) and the value from b + 1 on.
    best.resize(kPilotStates * 2 * nc * K);
    for (size_t p2 = 0; p2 < kPilotStates; ++p2)
      for (size_t ci = 0; ci < nc; ++ci) {
        const bool e = contents[ci].a == 0;
        const double* nx = next.data() + index(p2, 0, e);
        double started = -kInf;
        for (const Move& mv : new_moves[ci]) started = std::max(started, nx[mv.o2] - lambda * mv.cost);
        for (int pe = 0; pe < 2; ++pe) {
          double* bv = best.data() + ((p2 * 2 + static_cast<size_t>(pe)) * nc + ci) * K;
          std::fill(bv, bv + K, started);
          const double* cost = cont_moves[static_cast<size_t>(pe)][ci].data();
          bv[OBS] = std::max(bv[OBS], nx[OBS] - lambda * cost[OBS]);
          if (ts) continue;  // detour-family runs do not cross a tile's start
          // From OW + 16 k + r into OW + 16 k + (r + a) mod 16: two contiguous ranges per k.
          const size_t sh = contents[ci].a % 16;
          for (size_t k = 0; k < 4; ++k) {
            const size_t w = OW + 16 * k;
            for (size_t r = 0; r < 16 - sh; ++r) bv[w + r] = std::max(bv[w + r], nx[w + r + sh] - lambda * cost[w + r]);
            for (size_t r = 16 - sh; r < 16; ++r)
              bv[w + r] = std::max(bv[w + r], nx[w + r + sh - 16] - lambda * cost[w + r]);
          }
        }
      }
    // The pilot's least worst case: over starting a run (the same for every pilot state) and continuing its own;
    // between decision points only going on (blend: starting blend again, in started_blend).
    const bool decide = decides(b), peek_ok = may_peek(b);
    std::array<double, 2 * K> started, started_blend;
    started.fill(kInf), started_blend.fill(kInf);
    std::array<double, K> worst;
    const auto play = [&](const std::vector<size_t>& cis, const std::vector<size_t>& p2s, const std::vector<double>& pcs,
                          size_t pe) {
      worst.fill(-kInf);
      for (size_t i = 0; i < cis.size(); ++i) {
        const double* bv = best.data() + ((p2s[i] * 2 + pe) * nc + cis[i]) * K;
        const double pc = pcs[i];
        for (size_t o = 0; o < K; ++o) worst[o] = std::max(worst[o], pc + bv[o]);
      }
    };
    for (const NewPlay& np : new_plays)
      for (size_t pe = 0; pe < 2; ++pe) {
        if ((!decide && actions[np.x].menu != 0) || (!peek_ok && actions[np.x].peek)) continue;
        play(np.cis, np.p2, np.pc, pe);
        double* s = (decide ? started : started_blend).data() + pe * K;
        for (size_t o = 0; o < K; ++o) s[o] = std::min(s[o], worst[o]);
      }
    cur.resize(kStates);
    for (size_t p = 0; p < kPilotStates; ++p)
      for (size_t pe = 0; pe < 2; ++pe) {
        double* v = cur.data() + index(p, 0, pe != 0);
        const auto& from = decide || menu_of(p) != 0 ? started : started_blend;
        const auto first = from.begin() + static_cast<std::ptrdiff_t>(pe * K);
        std::copy(first, first + static_cast<std::ptrdiff_t>(K), v);
        for (size_t peek = 0; peek < (peek_ok ? 2u : 1u); ++peek) {
          const ContPlay& cp = cont_plays[p][peek][pe];
          if (!cp.valid) continue;
          play(cp.cis, cp.p2, cp.pc, pe);
          for (size_t o = 0; o < K; ++o) v[o] = std::min(v[o], worst[o]);
        }
      }
  }

  // V at block 0 from the start (no open run); with all, every block's values (all[b] for b = 0 .. blocks).
  double value(double lambda, std::vector<std::vector<double>>* all = nullptr) const {
    std::vector<double> next(kStates, 0.0), cur, best;
    if (all) all->assign(blocks + 1, {}), (*all)[blocks] = next;
    for (size_t b = blocks; b-- > 0;) {
      step(b, lambda, next, cur, best);
      next.swap(cur);
      if (all) (*all)[b] = next;
    }
    return next[index(PB, OEND, false)];
  }
};

// The floor's second game, in hindsight (docs/bound.md, "The second game: the oracle in hindsight"). Game above lets
// the input commit the oracle's schedule block by block, where the pilot sees it. This game takes that gift back,
// for a smaller oracle menu:
// - The oracle runs blend and blend_skip only (a schedule of the regret oracle's menu, so what it is charged is at
//   least the regret's oracle) and is charged in hindsight: the least cost of every such schedule of the blocks so
//   far, ending in each of its states. Those states are a blend run or none, a blend_skip run after a non-empty
//   block, and one after an empty block. A new run of either starts from any state at no charge, so the first two
//   cost the same, the least (m), and the three costs are (m, m, m + e) with e in [0, sw]: at e = sw (blend_skip's
//   misprediction) the state after an empty block is no better than a new blend_skip run, and a larger e is cut to
//   it. e takes few values (an empty block lowers it by blend's cost less a skipped block's, down to 0; a non-empty
//   block sets it to sw), so (the pilot's state, e) is the game's state and the pilot sees it.
// - A read is answered with an empty block, as in Game. A pilot may read any block at any time, as the probe
//   reads a tile's first blocks before its first move; a read answered with anything would tell it a block's
//   content before moves this game lets the input make after them (a game that answered reads with anything, only
//   just before the block's move, certified 1.22 for sqrt with reads made free, where reading everything and then
//   running the oracle's own schedule has regret 1). Answered empty, a read teaches nothing the pilot could not
//   plan for, whenever it reads.
// The pilot's charges are Game's but for the packed pass, charged a / 16 of a group per block (no more than the
// model's ceil(P / 16) groups per run), so no residue is carried; blend_verified is on its menu (the counted blend).
// V(lambda) > 0 proves the same as Game's: every pilot has a selection with regret above lambda.
struct HindsightGame : Grid {
  // Pilot states: no run state (after blend: SN; after blend_verified: SNV, which matters only between decision
  // points); blend_skip by its last block's emptiness; detour by whether its run has selected anything; detour_skip
  // by both; compact; compact_skip by its last block's emptiness.
  static constexpr size_t SN = 0, SNV = 1, SBS = 2, SD = 4, SDS = 6, SC = 10, SCS = 11, kStates = 13;
  static size_t state(size_t k, bool some, bool le) {
    switch (k) {
      case 0: return SN;
      case kBV: return SNV;
      case 1: return SBS + le;
      case 2: return SD + some;
      case 3: return SDS + 2 * some + le;
      case 4: return SC;
      default: return SCS + le;
    }
  }
  static size_t menu_of(size_t p) {
    return p == SN ? 0 : p == SNV ? kBV : p < SD ? 1 : p < SDS ? 2 : p < SC ? 3 : p == SC ? 4 : 5;
  }
  static bool some_of(size_t p) { return p == SD + 1 || (p >= SDS + 2 && p < SC); }
  static bool le_of(size_t p) { return p == SBS + 1 || p == SDS + 1 || p == SDS + 3 || p == SCS + 1; }

  std::vector<double> es;                     // the oracle's e values, es[0] = sw (a new oracle)
  std::array<std::vector<double>, 2> dm;      // [empty][e index]: the oracle's m grows by this
  std::array<std::vector<size_t>, 2> e2;      // ... and e becomes es[e2]

  HindsightGame(Fn fn, const CostModel& model, const PilotOptions& o, size_t n, const FloorFamily& family)
      : Grid(fn, model, o, n, family) {
    // The oracle's vector (m, m + e): its values of e from a new oracle (e = sw), closed under both blocks.
    const StrategyTerms &bl = t[0], &bs = t[1];
    const double cap = bs.sw;
    const auto find = [&](double e) {
      for (size_t i = 0; i < es.size(); ++i)
        if (std::abs(es[i] - e) <= 1e-9) return i;
      if (es.size() >= 4096) throw std::logic_error("floor: the hindsight game's oracle took too many states");
      es.push_back(e);
      return es.size() - 1;
    };
    find(cap);
    for (size_t i = 0; i < es.size(); ++i) {
      const double e = es[i];
      // An empty block: blend, or blend_skip after an empty block (e + its skip) or a new one (its misprediction).
      const double skip = bs.empty + std::min(e, cap), least = std::min(bl.empty, skip);
      dm[1].push_back(least);
      const size_t ie = find(std::min(skip - least, cap));
      e2[1].push_back(ie);
      // A non-empty block: blend, or blend_skip from a new run or after a non-empty block; no state after an empty one.
      dm[0].push_back(std::min(bl.full, bs.full));
      e2[0].push_back(0);
    }
  }

  // The pilot's charge for content c under strategy k (continuing its run from state p or starting one), and its
  // next state.
  double pilot_cost(size_t k, bool cont, bool peek, size_t p, const Content& c, size_t& next) const {
    const StrategyTerms& w = t[k];
    const bool e = c.a == 0;
    double v = (e ? w.empty : w.full) + c.ne * w.nonempty_reg + w.group * c.a / 16.0;
    const bool compare = cont && le_of(p);  // a run's first block is compared with "non-empty"
    if (w.sw != 0 && e != compare) v += w.sw;
    const bool some = (cont && some_of(p)) || c.a > 0;
    if (w.expand_any != 0 && some) v += 4 * w.expand_any;
    if (peek) v += 4 * m.Q;
    next = state(k, some, e);
    return v;
  }
  // The moves allowed at block b from state p: (strategy, continue) pairs.
  template <class F>
  void moves(size_t b, size_t p, F&& fn) const {
    const size_t k = menu_of(p);
    if (!decides(b)) {
      fn(k, k != 0 && k != kBV);
      return;
    }
    for (size_t j = 0; j < 7; ++j) fn(j, false);
    if (k != 0 && k != kBV) fn(k, true);
  }
  // What the input gains at most after the pilot's move (k, cont) from (p, ei), unread, at lambda over next (values
  // at b + 1); worst: the content that gains it.
  double answer(size_t k, bool cont, size_t p, size_t ei, double lambda, const std::vector<double>& next,
                const Content** worst = nullptr) const {
    double best = -kInf;
    for (const Content& c : contents) {
      size_t p2 = 0;
      const bool e = c.a == 0;
      const double v = pilot_cost(k, cont, false, p, c, p2) - lambda * dm[e][ei] + next[p2 * es.size() + e2[e][ei]];
      if (v > best) {
        best = v;
        if (worst) *worst = &c;
      }
    }
    return best;
  }
  // After a read of content c: the pilot's least move, its value (and the move).
  double after_read(size_t b, size_t p, size_t ei, const Content& c, double lambda, const std::vector<double>& next,
                    size_t* k_out = nullptr, bool* cont_out = nullptr) const {
    double least = kInf;
    const bool e = c.a == 0;
    moves(b, p, [&](size_t k, bool cont) {
      size_t p2 = 0;
      const double v = pilot_cost(k, cont, true, p, c, p2) - lambda * dm[e][ei] + next[p2 * es.size() + e2[e][ei]];
      if (v < least) {
        least = v;
        if (k_out) *k_out = k, *cont_out = cont;
      }
    });
    return least;
  }
  double value_at(size_t b, size_t p, size_t ei, double lambda, const std::vector<double>& next) const {
    double least = kInf;
    moves(b, p, [&](size_t k, bool cont) { least = std::min(least, answer(k, cont, p, ei, lambda, next)); });
    if (may_peek(b)) {
      least = std::min(least, after_read(b, p, ei, contents[0], lambda, next));  // a read block is empty
    }
    return least;
  }
  double value(double lambda, std::vector<std::vector<double>>* all = nullptr) const {
    const size_t ne = es.size();
    std::vector<double> next(kStates * ne, 0.0), cur(kStates * ne);
    if (all) all->assign(blocks + 1, {}), (*all)[blocks] = next;
    for (size_t b = blocks; b-- > 0;) {
      for (size_t p = 0; p < kStates; ++p)
        for (size_t ei = 0; ei < ne; ++ei) cur[p * ne + ei] = value_at(b, p, ei, lambda, next);
      next.swap(cur);
      if (all) (*all)[b] = next;
    }
    return next[SN * ne + 0];
  }
};

// One play of the hindsight game at lambda over the values all, as floor_play describes it.
FloorPlay play_hindsight(const HindsightGame& g, const PilotOptions& o, size_t n, double lambda,
                     const std::vector<std::vector<double>>& all, const std::optional<FloorAction>& fixed_action) {
  const auto menu_index = [](Strategy s) {
    if (s == Strategy::blend_verified) return kBV;
    size_t k = 0;
    while (k < kMenu.size() && kMenu[k] != s) ++k;
    if (k == kMenu.size()) throw std::invalid_argument("floor_play: a strategy off the hindsight game's menu");
    return k;
  };
  const size_t region = o.calib_blocks * o.calib_len;
  FloorPlay play;
  play.sel.assign(n, 0);
  size_t p = HindsightGame::SN, ei = 0;
  for (size_t b = 0; b < g.blocks; ++b) {
    const std::vector<double>& next = all[b + 1];
    size_t k = 0;
    bool cont = false, peek = false;
    const Content* c = nullptr;
    if (fixed_action) {
      k = menu_index(fixed_action->s), peek = fixed_action->peek && g.may_peek(b);
      const bool blendish = k == 0 || k == kBV;
      cont = (!fixed_action->new_run || !g.decides(b)) && b % g.tile_blocks != 0 && !blendish &&
             HindsightGame::menu_of(p) == k;
      if (!g.decides(b)) k = HindsightGame::menu_of(p), cont = k != 0 && k != kBV;
      if (peek) {  // a read block is empty
        c = &g.contents[0];
      } else {
        g.answer(k, cont, p, ei, lambda, next, &c);
      }
    } else {  // the game's minimizer (the first least move, reading last)
      double least = kInf;
      g.moves(b, p, [&](size_t j, bool cj) {
        const double v = g.answer(j, cj, p, ei, lambda, next);
        if (v < least) least = v, k = j, cont = cj;
      });
      if (g.may_peek(b)) {
        const Content* empty = &g.contents[0];
        size_t rk = 0;
        bool rc = false;
        if (g.after_read(b, p, ei, *empty, lambda, next, &rk, &rc) < least) peek = true, c = empty, k = rk, cont = rc;
      }
      if (!peek) g.answer(k, cont, p, ei, lambda, next, &c);
    }
    const size_t at = region + 16 * b;
    fill_block(play.sel.data() + at, *c);
    size_t p2 = 0;
    const bool e = c->a == 0;
    play.pilot_charged += g.pilot_cost(k, cont, peek, p, *c, p2);
    play.oracle_charged += g.dm[e][ei];
    if (peek) ++play.peeked;
    const Strategy s = k == kBV ? Strategy::blend_verified : kMenu[k];
    if (cont && !play.runs.empty())
      play.runs.back().end = at + 16;
    else
      play.runs.push_back(Run{at, at + 16, s});
    p = p2, ei = g.e2[e][ei];
  }
  return play;
}

}  // namespace

FloorFamily floor_family(Kernel pilot, const PilotOptions& o) {
  const size_t tile_blocks = std::max<size_t>(1, o.tile / 16);
  // Choices at multiples of a piece of len elements: every gcd(tile's blocks, len / 16) blocks.
  const auto pieces = [&](size_t len) {
    return FloorFamily{std::gcd(tile_blocks, std::max<size_t>(1, len / 16)), true};
  };
  switch (pilot) {
    case Kernel::pilot_v3_5:
    case Kernel::pilot_v4: return pieces(verify_len(o.tile, o.verify_blocks));
    case Kernel::pilot_v6:
      // With d_max known and its hi below 0 (the kernels' Thresholds), or a cheap f with the compact score (v6_cs),
      // no probe and a verdict after every block.
      if (o.d_max) {
        const long long hi = Thresholds::from(o, *o.d_max).hi;
        if (hi < 0 || v6_compact_scored(o, *o.d_max, hi)) return {1, true};
      }
      return pieces(verify_len(o.tile, v6_piece_count(o, o.tile)));
    case Kernel::pilot_v5: return {1, false};
    default: return {tile_blocks, true};
  }
}

std::string floor_unsupported(const PilotOptions& o, size_t n, const FloorFamily& fam) {
  if (const std::string why = o.validate(); !why.empty()) return why;
  const size_t region = o.calib_blocks * o.calib_len;
  if (o.tile % 16 != 0) return "the floor needs a tile that is a multiple of 16 (got " + std::to_string(o.tile) + ")";
  if (fam.every == 0 || (o.tile / 16) % fam.every != 0)
    return "the floor's decision points must divide the tile's " + std::to_string(o.tile / 16) + " blocks (got every " +
           std::to_string(fam.every) + ")";
  if (region % 16 != 0) return "the floor needs a calibration region that is a multiple of 16";
  if (n <= region || (n - region) % 16 != 0)
    return "the floor needs n past the calibration region by a positive multiple of 16 (n = " + std::to_string(n) +
           ", region " + std::to_string(region) + ")";
  return {};
}

double floor_value(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda, const FloorFamily& fam) {
  if (const std::string why = floor_unsupported(o, n, fam); !why.empty()) throw std::invalid_argument(why);
  return Game(f, m, o, n, fam).value(lambda);
}

double floor_hindsight_value(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                             const FloorFamily& fam) {
  if (const std::string why = floor_unsupported(o, n, fam); !why.empty()) throw std::invalid_argument(why);
  return HindsightGame(f, m, o, n, fam).value(lambda);
}

namespace {

// The largest lambda on the 1e-4 grid where value(lambda) exceeds margin (0 when 1 does not), the next grid point
// (where it does not), and the programs run. value is decreasing in lambda (the oracle's costs are positive).
struct Root {
  double lo = 0, hi = 1;
  int programs = 0;
};
template <class V>
Root certified_root(V&& value_of, double margin) {
  Root r;
  const auto value = [&](long long k) {
    ++r.programs;
    return value_of(static_cast<double>(k) * 1e-4) - margin;
  };
  long long lo = 10000, hi = 20000;  // lo wins (V > margin) or is 1; hi does not
  double vlo = value(lo);
  if (!(vlo > 0)) return r;
  double vhi = value(hi);
  while (vhi > 0) lo = hi, vlo = vhi, hi *= 2, vhi = value(hi);
  // The Illinois variant of regula falsi on the grid (V is piecewise linear with steep and shallow pieces: plain
  // regula falsi creeps from a shallow end, so the value kept at an end that stays twice is halved for the next
  // guess). Every step keeps lo winning and hi not, so the answer is certified as bisection's would be.
  int side = 0;
  while (hi - lo > 1) {
    const double x = static_cast<double>(lo) + vlo / (vlo - vhi) * static_cast<double>(hi - lo);
    const long long mid = std::clamp(static_cast<long long>(std::floor(x)), lo + 1, hi - 1);
    const double v = value(mid);
    if (v > 0) {
      lo = mid, vlo = v;
      if (side > 0) vhi /= 2;
      side = 1;
    } else {
      hi = mid, vhi = v;
      if (side < 0) vlo /= 2;
      side = -1;
    }
  }
  r.lo = static_cast<double>(lo) * 1e-4, r.hi = static_cast<double>(hi) * 1e-4;
  return r;
}

}  // namespace

FloorResult pilot_floor(Fn f, const CostModel& m, const PilotOptions& o, size_t n, const FloorFamily& fam) {
  if (const std::string why = floor_unsupported(o, n, fam); !why.empty()) throw std::invalid_argument(why);
  const double t0 = cpu_seconds();
  const Game g(f, m, o, n, fam);
  const HindsightGame h(f, m, o, n, fam);
  FloorResult r;
  r.blocks = g.blocks;
  // Certified where V exceeds the rounding of its sums (a relative margin far above double's error over blocks x a
  // few additions).
  const double margin = 1e-9 * static_cast<double>(g.blocks) * (1 + 4 * m.t_bsl(f));
  const Root menu = certified_root([&](double lambda) { return g.value(lambda); }, margin);
  const Root hind = certified_root([&](double lambda) { return h.value(lambda); }, margin);
  r.menu = menu.lo, r.hindsight = hind.lo, r.programs = menu.programs + hind.programs;
  const Root& best = hind.lo > menu.lo ? hind : menu;
  r.floor = best.lo, r.above = best.hi, r.game = &best == &hind ? "hindsight" : "menu";
  r.seconds = cpu_seconds() - t0;
  return r;
}

double floor_oracle_charge(Fn f, const CostModel& m, const PilotOptions& o, std::span<const uint8_t> sel) {
  if (const std::string why = floor_unsupported(o, sel.size()); !why.empty()) throw std::invalid_argument(why);
  const Game g(f, m, o, sel.size());
  const size_t region = o.calib_blocks * o.calib_len;
  // Forward: the least charge of any sequence of the game's oracle moves ending in each state.
  std::array<double, 2 * kOracleStates> cur, nxt;  // [pe][o]
  cur.fill(kInf);
  cur[OEND] = 0;
  for (size_t b = 0; b < g.blocks; ++b) {
    const uint8_t* blk = sel.data() + region + 16 * b;
    Content c;
    for (unsigned r = 0; r < 4; ++r) {
      unsigned k = 0;
      for (unsigned i = 0; i < 4; ++i) k += blk[4 * r + i] != 0;
      c.a += k, c.ne += k != 0;
    }
    const bool e = c.a == 0;
    nxt.fill(kInf);
    for (int pe = 0; pe < 2; ++pe)
      for (size_t os = 0; os < kOracleStates; ++os) {
        const double v = cur[static_cast<size_t>(pe) * kOracleStates + os];
        if (v == kInf) continue;
        g.oracle_moves(os, pe != 0, c, b % g.tile_blocks == 0, [&](size_t o2, double cost) {
          double& d = nxt[(e ? kOracleStates : 0) + o2];
          d = std::min(d, v + cost);
        });
      }
    cur = nxt;
  }
  return *std::min_element(cur.begin(), cur.end());
}

double floor_pilot_charge(Fn f, const CostModel& m, const PilotOptions& o, std::span<const uint8_t> sel,
                          std::span<const Run> runs) {
  if (const std::string why = floor_unsupported(o, sel.size()); !why.empty()) throw std::invalid_argument(why);
  const Game g(f, m, o, sel.size());
  const size_t region = o.calib_blocks * o.calib_len;
  double charge = 0;
  size_t p = PB, b = 0;
  bool pe = false;
  for (const Run& r : runs) {
    if (r.begin != region + 16 * b || r.end <= r.begin || r.end > sel.size() || (r.end - r.begin) % 16 != 0)
      throw std::invalid_argument("floor_pilot_charge: runs must cover the decided blocks in order, block-aligned");
    size_t menu = 0;
    while (menu < kMenu.size() && kMenu[menu] != r.strategy) ++menu;
    if (menu == kMenu.size()) throw std::invalid_argument("floor_pilot_charge: a strategy off the game's menu");
    for (size_t at = r.begin; at < r.end; at += 16, ++b) {
      Content c;
      for (unsigned k = 0; k < 4; ++k) {
        unsigned q = 0;
        for (unsigned i = 0; i < 4; ++i) q += sel[at + 4 * k + i] != 0;
        c.a += q, c.ne += q != 0;
      }
      size_t p2 = 0;
      charge += g.pilot_cost(Action{menu, at != r.begin, false}, p, pe, c, p2);
      p = p2, pe = c.a == 0;
    }
  }
  if (b != g.blocks) throw std::invalid_argument("floor_pilot_charge: runs must cover the decided blocks");
  return charge;
}

namespace {

// One play of the game at lambda over the values all (Game::value's), as floor_play describes it.
FloorPlay play_game(const Game& g, const PilotOptions& o, size_t n, double lambda,
                    const std::vector<std::vector<double>>& all, const std::optional<FloorAction>& fixed_action) {
  size_t menu = 0;
  if (fixed_action)
    while (kMenu[menu] != fixed_action->s) ++menu;
  const size_t region = o.calib_blocks * o.calib_len;
  FloorPlay play;
  play.sel.assign(n, 0);
  size_t p = PB, os = OEND;
  bool pe = false;
  for (size_t b = 0; b < g.blocks; ++b) {
    const bool ts = b % g.tile_blocks == 0;
    // The adversary's answer to action x: the content and oracle move of the largest value, and that value.
    struct Answer {
      double v = -kInf, pc = 0, oc = 0;
      Content c;
      size_t p2 = 0, o2 = OEND;
    };
    const auto answer = [&](const Action& x) {
      Answer best;
      for (const Content& c : g.contents) {
        if (x.peek && c.a != 0) continue;
        size_t p2 = 0;
        const double pc = g.pilot_cost(x, p, pe, c, p2);
        g.oracle_moves(os, pe, c, ts, [&](size_t o2, double cost) {
          const double v = pc - lambda * cost + all[b + 1][index(p2, o2, c.a == 0)];
          if (v > best.v) best.v = v, best.c = c, best.p2 = p2, best.o2 = o2, best.pc = pc, best.oc = cost;
        });
      }
      return best;
    };
    Action x;
    if (fixed_action) {
      x = {menu, (!fixed_action->new_run || !g.decides(b)) && !ts && menu != 0 && menu_of(p) == menu,
           fixed_action->peek};
    } else {  // the game's minimizer (the first least action, as the program takes it)
      double least = kInf;
      for (const Action& y : g.actions) {
        if (!g.allowed(y, p, b)) continue;
        const double v = answer(y).v;
        if (v < least) least = v, x = y;
      }
    }
    const Answer ans = answer(x);
    const size_t at = region + 16 * b;
    fill_block(play.sel.data() + at, ans.c);
    if (x.peek) ++play.peeked;
    play.pilot_charged += ans.pc, play.oracle_charged += ans.oc;
    if (x.cont && !play.runs.empty())
      play.runs.back().end = at + 16;
    else
      play.runs.push_back(Run{at, at + 16, kMenu[x.menu]});
    p = ans.p2, os = ans.o2, pe = ans.c.a == 0;
  }
  return play;
}


}  // namespace

FloorPlay floor_play(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                     const std::optional<FloorAction>& fixed_action, const FloorFamily& fam) {
  if (const std::string why = floor_unsupported(o, n, fam); !why.empty()) throw std::invalid_argument(why);
  const Game g(f, m, o, n, fam);
  std::vector<std::vector<double>> all;
  g.value(lambda, &all);
  return play_game(g, o, n, lambda, all, fixed_action);
}

std::vector<FloorPlay> floor_plays(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                                   const std::vector<FloorAction>& fixed_actions) {
  if (const std::string why = floor_unsupported(o, n); !why.empty()) throw std::invalid_argument(why);
  const Game g(f, m, o, n);
  std::vector<std::vector<double>> all;
  g.value(lambda, &all);
  std::vector<FloorPlay> plays;
  for (const FloorAction& x : fixed_actions) plays.push_back(play_game(g, o, n, lambda, all, x));
  return plays;
}

FloorPlay floor_hindsight_play(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                               const std::optional<FloorAction>& fixed_action, const FloorFamily& fam) {
  if (const std::string why = floor_unsupported(o, n, fam); !why.empty()) throw std::invalid_argument(why);
  const HindsightGame g(f, m, o, n, fam);
  std::vector<std::vector<double>> all;
  g.value(lambda, &all);
  return play_hindsight(g, o, n, lambda, all, fixed_action);
}

}  // namespace maskapply::gen::hunt
