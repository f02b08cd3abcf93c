// SPDX-License-Identifier: MIT
// The floor under every pilot (floor.h; docs/bound.md, "The floor under every pilot", has the argument).
#include "floor.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace maskapply::gen::hunt {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The pilot's menu, in this order; pilot states: the strategy of its open run, and for detour / detour_skip
// whether that run has selected anything yet (its expand is charged only from then on: less than the model's
// charge, which covers the whole run).
constexpr std::array<Strategy, 6> kMenu{Strategy::blend,   Strategy::blend_skip, Strategy::detour,
                                        Strategy::detour_skip, Strategy::compact, Strategy::compact_skip};
constexpr size_t kPilotStates = 8;  // blend, blend_skip, detour (none yet / some), detour_skip (none / some),
                                    // compact, compact_skip
size_t pilot_state(size_t menu, bool some) {
  switch (menu) {
    case 0: return 0;
    case 1: return 1;
    case 2: return some ? 3 : 2;
    case 3: return some ? 5 : 4;
    default: return menu + 2;
  }
}
size_t menu_of(size_t p) {
  static constexpr std::array<size_t, kPilotStates> m{0, 1, 2, 2, 3, 3, 4, 5};
  return m[p];
}
bool some_of(size_t p) { return p == 3 || p == 5; }

// Oracle states: the last block ended a run (a blend block is a run of its own), an open blend_skip run, an open
// detour run over empty blocks only, an open run of the detour family (detour, detour_skip, compact,
// compact_skip).
constexpr size_t OEND = 0, OBS = 1, ODE = 2, OW = 3, kOracleStates = 7;
constexpr size_t kStates = kPilotStates * kOracleStates * 2;
size_t index(size_t p, size_t o, bool pe) { return (p * kOracleStates + o) * 2 + (pe ? 1 : 0); }

struct Content {
  unsigned a = 0, ne = 0;  // selected elements of the block, non-empty registers
};

struct Action {
  size_t menu = 0;
  bool cont = false, peek = false;
};

struct Game {
  Fn f;
  const CostModel& m;
  size_t blocks = 0, tile_blocks = 0;
  std::array<StrategyTerms, 6> t{};
  std::vector<Content> contents;
  std::vector<Action> actions;

  Game(Fn fn, const CostModel& model, const PilotOptions& o, size_t n) : f(fn), m(model) {
    const size_t region = o.calib_blocks * o.calib_len;
    blocks = (n - region) / 16, tile_blocks = o.tile / 16;
    for (size_t k = 0; k < 6; ++k) t[k] = terms(m, f, kMenu[k]);
    for (unsigned a = 0; a <= 16; ++a) {
      const unsigned lo = (a + 3) / 4, hi = std::min(4u, a);
      contents.push_back({a, lo});
      if (hi != lo) contents.push_back({a, hi});
    }
    for (const bool peek : {false, true})
      for (size_t k = 0; k < 6; ++k) {
        actions.push_back({k, false, peek});
        if (k != 0) actions.push_back({k, true, peek});  // continuing a blend run is starting one
      }
  }

  // What the pilot is charged for block content c under action x from pilot state p, previous block pe (no more
  // than the model charges); and its next state.
  double pilot_cost(const Action& x, size_t p, bool pe, const Content& c, size_t& next) const {
    const StrategyTerms& w = t[x.menu];
    const bool e = c.a == 0;
    double v = (e ? w.empty : w.full) + c.ne * w.nonempty_reg + w.group * c.a / 16.0;
    const bool compare = x.cont ? pe : false;  // a run's first block is compared with "non-empty"
    if (w.sw != 0 && e != compare) v += w.sw;
    const bool some = (x.cont && some_of(p)) || c.a > 0;
    if (w.expand_any != 0 && some) v += 4 * w.expand_any;
    if (x.peek) v += 4 * m.Q;
    next = pilot_state(x.menu, some);
    return v;
  }
  bool allowed(const Action& x, size_t p) const { return !x.cont || menu_of(p) == x.menu; }

  // Calls fn(next oracle state, cost) for every oracle move from o at a block with content c (no less than the
  // model charges the schedule). tile_start: detour-family runs cannot continue.
  template <class F>
  void oracle_moves(size_t o, bool pe, const Content& c, bool tile_start, F&& fn) const {
    const bool e = c.a == 0;
    fn(OEND, t[0].full);
    const StrategyTerms& bs = t[1];
    fn(OBS, (e ? bs.empty : bs.full) + (e ? bs.sw : 0.0));
    if (o == OBS) fn(OBS, (e ? bs.empty : bs.full) + (e != pe ? bs.sw : 0.0));
    if (e) fn(ODE, 4 * m.C);
    for (size_t k = 0; k < 4; ++k) {
      const StrategyTerms& w = t[2 + k];
      const double base = (e ? w.empty : w.full) + 4 * w.expand_any + c.ne * w.nonempty_reg + w.group * c.a / 16.0;
      // A run's packed pass costs ceil(P / 16) groups <= P / 16 + 15 / 16: charged at its start.
      fn(OW + k, base + w.group * 15.0 / 16.0 + (e && w.sw != 0 ? w.sw : 0.0));
      if (o == OW + k && !tile_start) fn(OW + k, base + (e != pe && w.sw != 0 ? w.sw : 0.0));
    }
  }

  // One block backwards: from next (values at b + 1) to cur (values at b); best: per pilot state p', oracle state
  // o, pe and content, the oracle's best move. Returns nothing; fills cur.
  void step(size_t b, double lambda, const std::vector<double>& next, std::vector<double>& cur,
            std::vector<double>& best) const {
    const bool ts = b % tile_blocks == 0;
    const size_t nc = contents.size();
    best.assign(kPilotStates * kOracleStates * 2 * nc, -kInf);
    for (size_t p2 = 0; p2 < kPilotStates; ++p2)
      for (size_t o = 0; o < kOracleStates; ++o)
        for (int pe = 0; pe < 2; ++pe)
          for (size_t ci = 0; ci < nc; ++ci) {
            const Content& c = contents[ci];
            double& bv = best[((p2 * kOracleStates + o) * 2 + pe) * nc + ci];
            oracle_moves(o, pe != 0, c, ts, [&](size_t o2, double cost) {
              bv = std::max(bv, next[index(p2, o2, c.a == 0)] - lambda * cost);
            });
          }
    cur.assign(kStates, kInf);
    for (size_t p = 0; p < kPilotStates; ++p)
      for (size_t o = 0; o < kOracleStates; ++o)
        for (int pe = 0; pe < 2; ++pe) {
          double v = kInf;
          for (const Action& x : actions) {
            if (!allowed(x, p)) continue;
            double worst = -kInf;
            for (size_t ci = 0; ci < nc; ++ci) {
              const Content& c = contents[ci];
              if (x.peek && c.a != 0) continue;  // a peeked block is answered with an empty one
              size_t p2 = 0;
              const double pc = pilot_cost(x, p, pe != 0, c, p2);
              worst = std::max(worst, pc + best[((p2 * kOracleStates + o) * 2 + pe) * nc + ci]);
            }
            v = std::min(v, worst);
          }
          cur[index(p, o, pe != 0)] = v;
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
    return next[index(0, OEND, false)];
  }
};

}  // namespace

std::string floor_unsupported(const PilotOptions& o, size_t n) {
  if (const std::string why = o.validate(); !why.empty()) return why;
  const size_t region = o.calib_blocks * o.calib_len;
  if (o.tile % 16 != 0) return "the floor needs a tile that is a multiple of 16 (got " + std::to_string(o.tile) + ")";
  if (region % 16 != 0) return "the floor needs a calibration region that is a multiple of 16";
  if (n <= region || (n - region) % 16 != 0)
    return "the floor needs n past the calibration region by a positive multiple of 16 (n = " + std::to_string(n) +
           ", region " + std::to_string(region) + ")";
  return {};
}

double floor_value(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda) {
  if (const std::string why = floor_unsupported(o, n); !why.empty()) throw std::invalid_argument(why);
  return Game(f, m, o, n).value(lambda);
}

FloorResult pilot_floor(Fn f, const CostModel& m, const PilotOptions& o, size_t n) {
  if (const std::string why = floor_unsupported(o, n); !why.empty()) throw std::invalid_argument(why);
  const double t0 = cpu_seconds();
  const Game g(f, m, o, n);
  FloorResult r;
  r.blocks = g.blocks;
  // V is nonincreasing in lambda (the oracle's costs are positive). Certified where V exceeds the rounding of its
  // sums (a relative margin far above double's error over blocks x a few additions).
  const double margin = 1e-9 * static_cast<double>(g.blocks) * (1 + 4 * m.t_bsl(f));
  const auto wins = [&](long long k) {
    ++r.programs;
    return g.value(static_cast<double>(k) * 1e-4) > margin;
  };
  long long lo = 10000, hi = 20000;  // lo wins (or is 1), hi does not
  if (!wins(lo)) {
    r.floor = 0, r.above = 1;
    r.seconds = cpu_seconds() - t0;
    return r;
  }
  while (wins(hi)) lo = hi, hi *= 2;
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    (wins(mid) ? lo : hi) = mid;
  }
  r.floor = static_cast<double>(lo) * 1e-4, r.above = static_cast<double>(hi) * 1e-4;
  r.seconds = cpu_seconds() - t0;
  return r;
}

FloorPlay floor_play(Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                     const std::optional<FloorAction>& fixed_action) {
  if (const std::string why = floor_unsupported(o, n); !why.empty()) throw std::invalid_argument(why);
  const Game g(f, m, o, n);
  std::vector<std::vector<double>> all;
  g.value(lambda, &all);
  size_t menu = 0;
  if (fixed_action)
    while (kMenu[menu] != fixed_action->s) ++menu;
  const size_t region = o.calib_blocks * o.calib_len;
  FloorPlay play;
  play.sel.assign(n, 0);
  size_t p = 0, os = OEND;
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
      x = {menu, !fixed_action->new_run && !ts && menu != 0 && menu_of(p) == menu, fixed_action->peek};
    } else {  // the game's minimizer (the first least action, as the program takes it)
      double least = kInf;
      for (const Action& y : g.actions) {
        if (!g.allowed(y, p)) continue;
        const double v = answer(y).v;
        if (v < least) least = v, x = y;
      }
    }
    const Answer ans = answer(x);
    // ans.c.a selected elements over ans.c.ne registers: one in each, the rest filling them in order.
    const size_t at = region + 16 * b;
    uint8_t* blk = play.sel.data() + at;
    unsigned left = ans.c.a;
    for (unsigned r = 0; r < ans.c.ne; ++r) blk[4 * r] = 1, --left;
    for (unsigned r = 0; r < ans.c.ne && left; ++r)
      for (unsigned i = 1; i < 4 && left; ++i) blk[4 * r + i] = 1, --left;
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

}  // namespace maskapply::gen::hunt
