// SPDX-License-Identifier: MIT
// The decision reference: from which elements are selected (one 0/1 per element) and the options' values, the
// exact tile decisions and strategy runs each pilot v1-v4 must make. It keeps its own copy of the article's
// constants and its own threshold arithmetic, and never includes the kernels' pilot.h: a changed constant, a
// wrong truncation or a flipped comparison in the pilots makes the two disagree. It uses only trace.h's record
// types (Run, TileDecision), which carry no rule.
//
// What it encodes, from the article's code and maskapply's documented deviations (docs/library.md):
//   - calibration: the first min(n, calib_blocks * calib_len) elements are blended, reported as tiles of
//     calib_len with source `calibration` (the article: 4 x 2048, i.e. 2 * tile, always);
//   - then tiles of `tile`, the last one possibly shorter;
//   - the probe counts the tile's first min(probe, size) elements; a short probe is scaled: cnt * probe / len;
//   - hi = d_max * probe, xlo = xlo * probe, lo = lo * probe, each truncated toward zero after clamping the
//     fraction to [-2, 2] (no decision changes: a count lies in [0, probe]);
//   - v1: blend when d_max < 0, else detour. v2: cnt > hi: blend (blend_skip when cnt < xlo), else detour
//     (detour_skip when cnt < xlo). v3: below hi, compact_skip under xlo, compact under lo, else detour.
//     v3.5: above hi, blend_verified unless hi < 0. v4: v3.5 with memory (the article's code line by line);
//   - v5 (docs/pilot_v5.md's decision table): probe pairs of blocks at hashed positions, a plan per chunk from
//     cost estimates, counted blend chunks, a bail below d_max that narrows the estimate to the chunk's own pairs;
//   - blend_verified: verify_blocks pieces of whole 16-element blocks, size / verify_blocks rounded down to 16
//     and at least 16 (the last takes the rest; fewer pieces when size < 16 * verify_blocks), bail after a piece
//     (not the last) whose count / length < bail * d_max, detour the rest; v5's chunks are the same pieces;
//   - v6 (docs/pilot_v6.md): d_max < 0 (hi < 0): no probe (source none, probed 0), blend_skip and blend on the
//     switch score with a verdict after every whole block but the tile's last (Decider::v6_scored says it in full),
//     each tile starting in the mode the one before ended in; otherwise the probe; the one-pass compact: compact as one run over the pieces below, ending after a piece (not
//     the last) that has blocks beginning at or after the probe's end and fewer than v6_floor (a dear f's:
//     v6_dear_floor) of them non-empty, then compact_skip; a cheap f (0 <= d_max < v6_band): cnt > hi and cnt > lo: blend_skip over the tile; xlo <= cnt
//     otherwise: the one-pass compact, which for a cheap f also ends after a piece (not the last) with a block
//     beginning at or after the probe's end holding at least v6_dense_block selected, then blend_skip (checked
//     before the sparse end); cnt < xlo: compact_skip; a cheap f's compact_skip (below xlo, and after the
//     one-pass compact ends) is one run ending after a piece (not piece 0, not the last) with at least v6_dense_cut
//     of its length selected, then blend_skip (the tile's bail only when it began at the tile's start); a dear f
//     (d_max >= v6_band): cnt > hi: blend_skip_verified (one blend_skip run, counting) over min(v6_pieces, size /
//     probe) pieces (at least 1), bailing after a piece (not the last) whose count / length < v6_bail * d_max and
//     < 1 (a full piece never bails), then, when that piece's
//     count / length < v6_lo, compact_skip, else the one-pass detour from the next piece; lo6 <= cnt <= hi
//     (lo6 = v6_lo * probe, truncated as the others): the one-pass detour from the tile's start; the one-pass
//     detour: detour as one run over the pieces, ending after a piece (not the last) that has blocks beginning at
//     or after the probe's end and fewer than v6_reg of their registers (4 elements) holding a selected element,
//     then compact_skip (the tile's bail only when it began at the tile's start); xlo <= cnt < lo (and below
//     lo6): the one-pass compact; otherwise compact_skip; a dear f's probe (and every count over the probe: hi,
//     xlo, lo, lo6, the pieces) is min(probe, v6_dear_probe) elements, a cheap f's (0 <= d_max < v6_band)
//     min(probe, v6_cheap_probe), from the calibration tiles on;
//   - probed: the elements the probe read (the window, or v5's 32 per pair), 0 when the tile was not probed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "trace.h"

namespace maskapply::reference {

// The article's constants, copied from its code (tile, probe = 256, 0.014 * probe, 0.16 * probe, B, D,
// bsl_calibrate<tile / 2>(dst, 2 * tile), bsl_verified's 8 blocks and 0.75, v4's 16).
namespace article {
inline constexpr size_t kTile = 4096;
inline constexpr size_t kProbe = 256;
inline constexpr double kXlo = 0.014;
inline constexpr double kLo = 0.16;
inline constexpr double kB = 0.3;
inline constexpr double kD = 0.845;
inline constexpr size_t kCalibBlocks = 4;
inline constexpr size_t kCalibLen = 2048;
inline constexpr size_t kVerifyBlocks = 8;
inline constexpr double kBail = 0.75;
inline constexpr size_t kDistrust = 16;
}  // namespace article

// pilot_v5's constants (docs/pilot_v5.md), copied from that document's decision table: the m5 cost model's C, S,
// K, M (generators/cost_model.cpp's m5()), the estimator's weights, at most 32 probe pairs.
namespace v5 {
inline constexpr double kC = 0.3912;
inline constexpr double kS = 0.1928;
inline constexpr double kK = 0.18;
inline constexpr double kM = 3.0;
inline constexpr double kShrink = 0.5;
inline constexpr double kKappa = 2.0;
inline constexpr double kRho = 1.35;
inline constexpr size_t kMaxPairs = 32;
}  // namespace v5

// pilot_v6's constants (docs/pilot_v6.md's decision table): verified runs in 16 pieces, the blend bailing below
// 1.05 d_max, the one-pass detour from a density of 0.16 ending at a piece with fewer than 0.6 of its registers
// past the probe non-empty, the one-pass compact ending at a piece with fewer than 0.15
// of its blocks past the probe non-empty (a dear f: 0.12), a cheap f below d_max 0.35, d_max < 0's switch score (3
// per switch, blend from 17, back to blend_skip from 6, one block in 4 counted in blend), a cheap f's compact_skip cut at a piece with 0.07 of its elements selected, a cheap f's
// one-pass compact ended at a piece with a block of 8 selected, a dear f's probe at most 128 elements.
namespace v6 {
inline constexpr size_t kPieces = 16;
inline constexpr double kBail = 1.05;
inline constexpr double kLo = 0.16;
inline constexpr double kReg = 0.6;
inline constexpr double kFloor = 0.15;
inline constexpr double kDearFloor = 0.12;
inline constexpr double kBand = 0.35;
inline constexpr size_t kScoreSwitch = 3;
inline constexpr size_t kScoreBlend = 17;
inline constexpr size_t kScoreSkip = 6;
inline constexpr size_t kScoreSample = 4;
// The gate of the switch score (1 = on, the default since 2026-12-07): lambda in hundredths, the thresholds in ns, the safe score's constants, and
// blend_verified's count per register (ns), the one cost the gate reads that pilot_v5's constants do not give.
inline constexpr size_t kGate = 1;
inline constexpr size_t kGateLambda = 188;
inline constexpr size_t kGateG1 = 20;
inline constexpr size_t kGateG2 = 40;
inline constexpr size_t kGateCap = 80;
inline constexpr size_t kSafeSwitch = 3;
inline constexpr size_t kSafeBlend = 3;
inline constexpr size_t kSafeSkip = 2;
inline constexpr size_t kSafeSample = 1;
inline constexpr double kV = 0.02;
inline constexpr double kDenseCut = 0.07;
inline constexpr size_t kDenseBlock = 8;
inline constexpr size_t kDearProbe = 128;
inline constexpr size_t kCheapProbe = 96;
// A cheap f's compact score (1 = on): weights in 1/8 ns (an empty block 12, a switch 24, a non-empty block 12 less
// 4 per selected element up to 4 and 1 per selected element), compact to blend_skip at 96, back at 64, blend_skip
// counting one block in 4, a compact run after blend_skip starting at 88.
inline constexpr size_t kCs = 1;
inline constexpr size_t kCsEmpty = 12;
inline constexpr size_t kCsSwitch = 24;
inline constexpr size_t kCsBlock = 12;
inline constexpr size_t kCsReg = 4;
inline constexpr size_t kCsElem = 1;
inline constexpr size_t kCsToSkip = 96;
inline constexpr size_t kCsToCompact = 64;
inline constexpr size_t kCsSample = 4;
inline constexpr size_t kCsProbation = 88;
}  // namespace v6

// The options' values the decisions depend on (the article's by default) and the calibrated d_max.
struct Params {
  size_t tile = article::kTile;
  size_t probe = article::kProbe;
  double xlo = article::kXlo;
  double lo = article::kLo;
  size_t calib_blocks = article::kCalibBlocks;
  size_t calib_len = article::kCalibLen;
  size_t verify_blocks = article::kVerifyBlocks;
  double bail = article::kBail;
  size_t distrust = article::kDistrust;
  double d_max = 0;
  // pilot_v5 only.
  double B = article::kB, D = article::kD;
  uint64_t seed = 0;
  double C = v5::kC, S = v5::kS, K = v5::kK, M = v5::kM;
  double shrink = v5::kShrink, kappa = v5::kKappa, rho = v5::kRho;
  // pilot_v6 only.
  size_t v6_pieces = v6::kPieces;
  double v6_bail = v6::kBail;
  double v6_lo = v6::kLo;
  double v6_floor = v6::kFloor;
  double v6_dear_floor = v6::kDearFloor;
  double v6_band = v6::kBand;
  size_t v6_score_switch = v6::kScoreSwitch;
  size_t v6_score_blend = v6::kScoreBlend;
  size_t v6_score_skip = v6::kScoreSkip;
  size_t v6_score_sample = v6::kScoreSample;
  size_t v6_gate = v6::kGate, v6_gate_lambda = v6::kGateLambda;
  size_t v6_gate_g1 = v6::kGateG1, v6_gate_g2 = v6::kGateG2, v6_gate_cap = v6::kGateCap;
  size_t v6_safe_switch = v6::kSafeSwitch, v6_safe_blend = v6::kSafeBlend;
  size_t v6_safe_skip = v6::kSafeSkip, v6_safe_sample = v6::kSafeSample;
  double V = v6::kV;
  double v6_dense_cut = v6::kDenseCut;
  size_t v6_dense_block = v6::kDenseBlock;
  double v6_reg = v6::kReg;
  size_t v6_dear_probe = v6::kDearProbe;
  size_t v6_cheap_probe = v6::kCheapProbe;
  size_t v6_cs = v6::kCs;
  size_t v6_cs_empty = v6::kCsEmpty, v6_cs_switch = v6::kCsSwitch, v6_cs_block = v6::kCsBlock;
  size_t v6_cs_reg = v6::kCsReg, v6_cs_elem = v6::kCsElem;
  size_t v6_cs_to_skip = v6::kCsToSkip, v6_cs_to_compact = v6::kCsToCompact;
  size_t v6_cs_sample = v6::kCsSample, v6_cs_probation = v6::kCsProbation;
};

// A fraction of the probe as a count: fraction * probe truncated toward zero, the fraction clamped to [-2, 2].
long long probe_count(double fraction, size_t probe);

struct Limits {
  long long hi, xlo, lo;
};
Limits limits(const Params& p);

// The article's bsl_calibrate formula for a given time: t = max(1e-9, ns_per_register - B), d_max = 1 - (D - B)/t.
double d_max_from_time(double ns_per_register, double B = article::kB, double D = article::kD);

enum class Pilot : uint8_t { v1, v2, v3, v3_5, v4, v5, v6, verified };  // verified: the registry's blend_verified

// The trace a correct pilot produces on a selection (sel[i] != 0: element i selected), run for run and tile for
// tile. `verified` is the registry's plain blend_verified: per tile verified blend, detour after a bail-out,
// runs only. Requires tile >= 1, calib_len >= 1, verify_blocks >= 1, 1 <= probe <= tile.
Trace decide(Pilot k, std::span<const uint8_t> sel, const Params& p);

// Empty when got equals want (tiles and runs); else the first difference, both sides shown.
std::string compare(const Trace& want, const Trace& got);

std::string show(const Run& r);
std::string show(const TileDecision& d);

}  // namespace maskapply::reference
