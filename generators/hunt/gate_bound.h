// SPDX-License-Identifier: MIT
// pilot_v6's gated switch score (d_max < 0 with v6_gate = 1), the bound's own model of it, and its
// certificate (a potential argument; bound.h states how the bound uses it, docs/pilot_v6.md "Rules tried",
// stop 60, how it was found). A reference: the rules and constants are restated here from the options, not
// taken from the kernel (kernels/score_gate.h, blend.h's blend_switch_span); maskapply_v6_gate_explore checks
// this model against the suite's Scorer and oracle.
//
// The rule, per decided block of 16 (tiles of o.tile / 16 blocks from the calibration region's end). Two
// switch scores (blend_skip <-> blend): the plain one (v6_score_switch / _blend / _skip / _sample) and the
// safe one (v6_safe_*). A tile restarts the score at 0 and `last` at "non-empty"; its blend_skip run is a new
// run (its first block compared with "non-empty"); no mode switch after a tile's last block; the mode and the
// gate go on across tiles. In blend_skip the score takes sw at a switch (the block's emptiness differs from
// the run's block before) and then 1 off for an empty block (never below 0); at to_blend or more (a verdict)
// blend runs from the next block, the score at 0, `last` the block's emptiness. In blend the blocks at
// tile-relative index sample - 1 (mod sample) are counted: the score takes 1 for an empty one and then sw off
// when its emptiness differs from `last`; at to_skip or more a new blend_skip run starts at the next block
// with the score at the probation (to_blend - sw, at least 0). The gate keeps g = P - lambda O_lb in integers
// (1/64 ns costs: the pilot's rounded up, the oracle's down; lambda = v6_gate_lambda / 100): after each block
// (its mode switch included) g += 100 x what the pilot paid (blend_skip: skipped 4 S or blended 4 (B + T),
// plus M at a switch; blend: 4 (B + T), plus 4 V when counted) - lambda x what O_lb's minimum rose by,
// clamped at -cap from below; then the safe score runs from the next block while g >= -g1 and the plain one
// once g <= -g2, the new score at 0 (its counted blocks again at tile-relative index sample - 1). It starts
// in blend_skip, safe, g = 0, O_lb's vector (0, M).
//
// O_lb: the block oracle restricted to two entries, R (the oracle's cost so far ending outside a
// blend_skip-like run or with a non-empty block) and S (ending on an empty block inside one), a block the
// pilot did not look at (a blend block not counted) taking the lesser of its two contents. It is a lower
// bound of the suite's whole-menu oracle when, under the model, (i) no strategy's non-empty block costs less
// than blend's 4 (B + T) (detour's 4 D: d_max < 0 says it; compact's 4 (C + K) + E: checked), (ii) no
// strategy outside the skip family costs less on an empty block than the lesser of detour's 4 C and blend's
// 4 (B + T), which O_lb charges it (checked; bits_inc under m5 blends one for 1.28 < 1.5648), (iii) the skip family's empty block costs 4 S and
// each maximal stretch of empty blocks inside one skip run pays at least one misprediction M (its first block
// is compared with a non-empty block or with "non-empty" at the run's start). Then every schedule's cost is
// at least the two-entry charge of its blocks (a stretch of S blocks of O_lb spans one or more of the
// schedule's stretches: one M or more), the oracle's restrictions (a detour-family run inside one tile, the
// packed pass's rounding) only add, and an unseen block's min covers its true content. gate_unsupported
// checks (i) and (ii) for a cost model.
//
// The certificate, at a lambda' >= lambda (the value's lambda, in 1/100; the pilot's lambda, which drives its
// decisions, stays lambda). Let h = P - lambda' O_lb in the same integers, h = 0 at the start, never clamped.
// O_lb's minimum only rises, so h <= P - lambda O_lb <= g after every block (the clamp only raises g). While
// the safe score runs, the moves do not depend on g, so W'(s) = the most h can still rise from the discrete
// state s (mode, the run's block before, score, last, tile position, O_lb's vector relative to its minimum)
// over every input, W'(s) = max(0, max over the block's two contents of [dh + W'(s')]), is a value iteration
// over the safe score's states from the start and from every state a switch to the safe score can enter
// (score 0, any mode, last, position and vector). It converges (integers: exactly) iff no cycle of the safe
// score gains h, i.e. the safe score loses less than lambda' against O_lb in the long run; a cycle's gain
// falls as lambda' rises, so convergence is monotone in lambda' and certify_gate takes the least lambda' from
// lambda up (to lambda + kGateLambdaReach) at which W' converges: lambda itself where the safe score's long
// run is below it (tiles of 1024 or more at 1.88), above it in small tiles. (Diverging is found early: a
// cycle of the iteration's argmax edges, its gain summed; or, a backstop, some W' above what a simple path
// can gain: the states x the most one block gains; a block's gain is floored at -cap as gate_step floors g:
// only larger.) The plain score runs only while g <= -g1 (it is entered at g <= -g2 <= -g1 and left once g >=
// -g1), so h <= -g1 there; a safe stretch is entered at the start (h = 0) or after a block that began in the
// plain score (h
// <= -g1 before it, h <= -g1 + delta' after it; delta': the most h rises in one block, over both scores), and
// h rises by at most W'(entry state) along it. So after every block h <= max(gmax, -g1), gmax =
// max(W'(start), -g1 + delta' + max W'). P - lambda' O <= P - lambda' O_lb <= h (the true costs dominated by
// the integer ones: rounding, checked against the model by gate_model_unsupported; O >= O_lb), for every
// prefix of every input, so for every n and a short last tile too: P / O <= lambda' + max(0, gmax) / O_min.
// At lambda' = lambda this is the certificate of the gate's own potential g (h is g unclamped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cost_model.h"
#include "pilot.h"

namespace maskapply::gen::hunt {

inline constexpr int64_t kGateModelUnit = 64;  // costs in 1/64 ns
inline constexpr int64_t kGateModelDen = 100;  // lambda in 1/100; g in 1/(64 x 100) ns

// A switch score's constants.
struct GateModelScore {
  int sw = 0, to_blend = 0, to_skip = 0, sample = 1;
  int probation() const { return to_blend > sw ? to_blend - sw : 0; }
};

// A block of 16's costs in 1/64 ns from the options (T = (D - B) / (1 - d_max)): the pilot's ceil(64 x), the
// oracle's floor(64 x).
struct GateModelCosts {
  int64_t pb = 0, pe = 0, pM = 0, pV4 = 0;  // the pilot: blended 4 (B + T), skipped 4 S, M, a count's 4 V
  int64_t ob = 0, oe = 0, oM = 0, oc4 = 0;  // the oracle: blended, skipped, M, an empty block detoured 4 C
  static GateModelCosts from(const PilotOptions& o);  // o.d_max set
};

// The gated rule as the options give it.
struct GateRule {
  GateModelScore plain, safe;
  GateModelCosts c;
  int64_t lambda = 188;             // 1/100
  int64_t g1 = 0, g2 = 0, cap = 0;  // 1/(64 x 100) ns
  int tile_blocks = 256;
  bool gated = true;  // false: the score the state starts with throughout, g still kept
  static GateRule from(const PilotOptions& o);  // o.d_max set
};

// The pilot's whole state between blocks (the certificate's states are these with g at 0).
struct GateModelState {
  bool skip = true;   // running blend_skip (else blend)
  bool prev = false;  // blend_skip: the run's block before was empty ("non-empty" at a run's start)
  bool safe = true;   // which score
  bool last =
      false;  // the score's last block (blend_skip: the block before; blend: the last counted) was empty
  int score = 0;
  int pos = 0;             // block index in the tile
  int64_t vr = 0, vs = 0;  // O_lb's vector relative to its minimum: outside / inside a blend_skip run
  int64_t g = 0;
  static GateModelState start(const GateRule& r);
  bool operator==(const GateModelState& o) const {
    return skip == o.skip && prev == o.prev && safe == o.safe && last == o.last && score == o.score &&
           pos == o.pos && vr == o.vr && vs == o.vs && g == o.g;
  }
  size_t hash() const;
};

// What one block ran (for pricing it in doubles: maskapply_v6_gate_explore against the Scorer).
struct GateBlock {
  bool skip = false;          // in blend_skip (else blend)
  bool mispredicted = false;  // blend_skip: a switch
  bool counted = false;       // blend: a counted block (blend_verified)
  int64_t paid = 0;           // 1/64 ns
  int64_t oracle = 0;         // what O_lb's minimum rose by, 1/64 ns
};

// O_lb's (or, with every block seen and exact costs, the block oracle's) two entries after one more block
// (seen: the pilot looked at it; ne: non-empty). S is worth at most M over R (R enters a run for M): clamped
// to R + M (exact).
template <class T>
void gate_oracle_step(T& R, T& S, bool seen, bool ne, T b, T e, T M, T c4) {
  const T lo = R < S ? R : S, r_ne = lo + b,
          r_e = lo + (c4 < b ? c4 : b);  // an empty block: detoured or blended
  const T s_alt = R + e + M, s_e = S + e < s_alt ? S + e : s_alt;
  R = seen ? (ne ? r_ne : r_e) : (r_ne < r_e ? r_ne : r_e);
  const T s_in = seen && ne ? R + M : s_e;
  S = s_in < R + M ? s_in : R + M;
}

// One block (ne: non-empty) through the rule: updates s (g and the gate included).
GateBlock gate_step(GateModelState& s, bool ne, const GateRule& r);

// certify_gate tries lambda' from lambda to lambda + this (1/100).
inline constexpr int64_t kGateLambdaReach = 1000;

struct GateCertificate {
  bool converged = false;
  int64_t lambda = 0;                                  // lambda' (1/100): h = P - lambda' O_lb
  double w_start = 0, w_max = 0, delta = 0, gmax = 0;  // ns (gmax: meaningful when converged)
  size_t states = 0, iterations = 0;
  std::vector<bool>
      path;          // an input from the start (non-empty flags) on which h rises by W'(start) (converged)
  size_t tried = 1;  // certify_gate: the lambda' valued
};
// W' at lambda' (1/100; r.lambda when not given) over the states of `score` run alone (the gate off) from the
// start and every state a switch can enter; delta' over both scores; gmax = max(W'(start), -g1 + delta' + max
// W'). Not converged: W' diverges at lambda' (or max_iter ran out).
GateCertificate certify_score(const GateRule& r, const GateModelScore& score, size_t max_iter = 200000,
                              std::optional<int64_t> lambda = std::nullopt);
// The certificate of the options' gated rule (its safe score) at the least lambda' >= lambda (to lambda +
// kGateLambdaReach) at which W' converges; not converged when none does (at lambda + kGateLambdaReach).
GateCertificate certify_gate(const PilotOptions& o, size_t max_iter = 200000);

// Empty when O_lb is a lower bound of the block oracle for f under m (the comment above: (i), (ii)); else why
// not.
std::string gate_oracle_unsupported(const CostModel& m, Fn f);
// Empty when the options' gate can be certified on its own terms: O_lb a lower bound under the costs the gate
// assumes (the options' B, D, C, S, K, M, V, T from d_max) and the safe score's W' converging at some lambda'
// (certify_gate); else why not.
std::string gate_options_unsupported(const PilotOptions& o);
// Empty when the options' integer costs dominate m's for f (the pilot's >= 4 (B + T), 4 S, M, 4 V; the
// oracle's <= 4 (B + T), 4 S, M, 4 C) and O_lb is a lower bound under m; else why not.
std::string gate_model_unsupported(const PilotOptions& o, const CostModel& m, Fn f);

}  // namespace maskapply::gen::hunt
