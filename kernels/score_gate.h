// SPDX-License-Identifier: MIT
// pilot_v6's switch score and its gate (d_max < 0; docs/pilot_v6.md). blend_switch_scored (blend.h) runs
// blend_skip and blend on a switch score; with a gate it runs one of two scores, a "plain" one (sticky: cheap
// on uniform data) and a "safe" one (certified low against an adversary), chosen by a potential the pilot
// keeps in integers:
//   g = P - lambda * O_lb,
// P what the pilot ran (its costs rounded up), O_lb the least the block oracle can have paid for what the
// pilot saw (the oracle's costs rounded down; a block the pilot did not look at may be either). The safe
// score runs while g >= -g1 and the plain one once g <= -g2; g never goes below -cap. While the safe score
// runs, the pilot's moves do not depend on g, which is what the bound's certificate rests on (docs/bound.md).
// Integers only: no rounding differs between platforms, and the decision reference reproduces every switch.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "platform.h"

namespace maskapply {

// The constants of a switch score (their defaults are PilotOptions' v6_score_* and v6_safe_*).
struct SwitchScore {
  size_t sw;        // what a switch adds to the score (an empty block takes 1 off)
  size_t to_blend;  // blend_skip hands over to blend at this score
  size_t to_skip;   // blend hands back to blend_skip at this score
  size_t
      sample;  // blend counts one block in this many (the blocks sample - 1, 2 sample - 1, ... of the tile)
  // The score blend_skip starts from after blend: one switch short of blend again.
  size_t probation() const { return to_blend > sw ? to_blend - sw : 0; }
};

inline constexpr int64_t kGateUnit = 64;  // the gate's costs are in 1/64 ns
inline constexpr int64_t kGateDen = 100;  // lambda is in hundredths; g in 1/(64 * 100) ns

// A block of 16's costs in 1/kGateUnit ns, from the options' cost model and d_max (T = (D - B) / (1 -
// d_max)): the pilot's rounded up, the oracle's rounded down, so that g is at least the true P - lambda O_lb.
struct GateCosts {
  int64_t pb, pe, pM, pV4;  // the pilot: a blended block (4 (B + T)), a skipped empty one (4 S), a
                            // misprediction (M), a counted block's count (4 V)
  int64_t ob, oe, oM,
      oc4;  // the oracle: a blended block, a skipped empty one, a misprediction, an empty block
            // detoured (4 C; an empty block costs the oracle min(oc4, ob) outside a skip run)
  static GateCosts from(double B, double D, double S, double M, double V, double C, double d_max) {
    const double T = (D - B) / (1.0 - std::max(d_max, -1e12));
    const auto up = [](double x) { return static_cast<int64_t>(std::ceil(x * kGateUnit)); };
    const auto dn = [](double x) { return static_cast<int64_t>(std::floor(x * kGateUnit)); };
    const double b = 4 * (B + T);
    return {up(b), up(4 * S), up(M), up(4 * V), dn(b), dn(4 * S), dn(M), dn(4 * C)};
  }
};

// The gate: two scores, the costs, lambda and the thresholds (in 1/(kGateUnit kGateDen) ns).
struct SwitchGate {
  SwitchScore plain, safe;
  GateCosts c;
  int64_t lambda;       // in 1/kGateDen
  int64_t g1, g2, cap;  // safe while g >= -g1, plain once g <= -g2, g >= -cap
  // O_lb as a state machine (detail::gate_tabulate; `states` 0: none, the arithmetic of gate_oracle_block runs):
  // from state i a block of kind k (0: read, non-empty; 1: read, empty; 2: not read) goes to steps[3 i + k].next
  // and takes steps[3 i + k].fall = lambda x what O_lb's minimum rose by off g. State 0 is the start. The same
  // numbers as the arithmetic, a load instead of a dozen operations per block.
  struct Step {
    int64_t fall;
    uint32_t next;
  };
  static constexpr size_t kStates = 128;
  std::array<Step, 3 * kStates> steps{};
  size_t states = 0;
};

// What the gate carries from block to block and tile to tile (it starts safe: no slack yet). O_lb is a
// two-entry min-plus vector kept relative to its minimum: r, the oracle ending outside a blend_skip run (the
// last block non-empty, or detoured empty); s, inside one (the last block empty and skipped).
struct GateState {
  bool safe = true;
  int64_t g = 0, r = 0, s = 0;
  uint32_t at = 0;  // with SwitchGate::states, O_lb's state instead of (r, s)
  static GateState start(const GateCosts& c) {
    return {true, 0, 0, c.oM};
  }  // the oracle enters a run by a misprediction
};

namespace detail {

// O_lb after one more block (seen: the pilot looked at it; ne: it is non-empty): a non-empty block is
// blended, an empty one outside a skip run detoured or blended (the lesser), an empty one in a skip run
// skipped. A block not seen takes the lesser of its two contents. s is worth at most oM over r (r enters a
// run for oM). Returns what the minimum rose by.
MASKAPPLY_INLINE int64_t gate_oracle_block(GateState& st, const GateCosts& c, bool seen, bool ne) {
  const int64_t lo = std::min(st.r, st.s), r_ne = lo + c.ob, r_e = lo + std::min(c.oc4, c.ob);
  const int64_t s_e = std::min(st.s + c.oe, st.r + c.oe + c.oM);
  const int64_t r = seen ? (ne ? r_ne : r_e) : std::min(r_ne, r_e);
  const int64_t s = std::min(seen && ne ? r + c.oM : s_e, r + c.oM);
  const int64_t base = std::min(r, s);
  st.r = r - base, st.s = s - base;
  return base;
}

// One block through the gate: the pilot paid `paid` (1/kGateUnit ns), the oracle's vector takes the block.
// Then the gate may switch score; returns true when it did (the score then restarts at 0).
MASKAPPLY_INLINE bool gate_block(GateState& st, const SwitchGate& gate, bool seen, bool ne, int64_t paid) {
  int64_t fall;
  if (gate.states) {
    const SwitchGate::Step& step = gate.steps[3 * st.at + (seen ? (ne ? 0 : 1) : 2)];
    st.at = step.next, fall = step.fall;
  } else {
    fall = gate.lambda * gate_oracle_block(st, gate.c, seen, ne);
  }
  st.g = std::max(st.g + kGateDen * paid - fall, -gate.cap);
  const bool to_safe = !st.safe && st.g >= -gate.g1, to_plain = st.safe && st.g <= -gate.g2;
  if (to_safe || to_plain) st.safe = to_safe;
  return to_safe || to_plain;
}

// Fills gate.steps with every O_lb vector reachable from the start (GateState::start), found breadth first, when
// there are at most SwitchGate::kStates of them; else leaves gate.states at 0 (the arithmetic runs).
inline void gate_tabulate(SwitchGate& gate) {
  GateState vec[SwitchGate::kStates];
  size_t count = 1;
  vec[0] = GateState::start(gate.c);
  gate.states = 0;
  for (size_t i = 0; i < count; ++i)
    for (int kind = 0; kind < 3; ++kind) {
      GateState t = vec[i];
      const int64_t rise = gate_oracle_block(t, gate.c, kind < 2, kind == 0);
      size_t j = 0;
      while (j < count && !(vec[j].r == t.r && vec[j].s == t.s)) ++j;
      if (j == count) {
        if (count == SwitchGate::kStates) return;
        vec[count++] = t;
      }
      gate.steps[3 * i + static_cast<size_t>(kind)] = {gate.lambda * rise, static_cast<uint32_t>(j)};
    }
  gate.states = count;
}

}  // namespace detail
}  // namespace maskapply
