// SPDX-License-Identifier: MIT
// The cost model: what each strategy costs on a span, in ns, from the span's exact mask, in the article's
// terms (B, D, T per register of 4 floats) plus what skip, compact, verification, the packed f pass and the
// probe add. Every formula lives here, in one place: `terms(m, f, s)` gives a strategy's coefficients and
// `strategy_cost` applies them to a span; the oracle (regret.h) uses the same coefficients block by block.
//
// Per span of len elements: the kernels work on blocks of 16 (4 registers) and finish a tail of len % 16
// elements with one blended block. From the mask (SpanStats):
//   R  registers in the body (body = len rounded down to 16, R = body / 4), G = R / 4 blocks
//   Ge empty blocks, Rn non-empty registers, P selected elements in the body
//   X  switches: blocks whose emptiness differs from the previous block's (the first block is compared with
//      "non-empty"); a predictor that guesses "as last time" mispredicts exactly these
//   W  packed registers f runs on: apply_packed works 16 lanes at a time, so W = 4 ceil(P / 16)
//   tail = 4 (B + T) when len % 16 != 0, else 0   (blend_tail: one whole local block)
// Costs (T is f per register, F the packed pass's load and store per packed register):
//   blend           R (B + T)                                                    + tail
//   blend_skip      (G - Ge) 4 (B + T) + Ge 4 S + X M                            + tail
//   blend_verified  R (B + T + V)                                                + tail
//   blend_skip_verified (G - Ge) 4 (B + T + V) + Ge 4 S + X M                    + tail
//   detour          R C + [P > 0] (R E + W (T + F))                              + tail
//   detour_skip     (G - Ge) 4 C + Ge 4 S + X M + [P > 0] (R E + W (T + F))      + tail
//   compact         R (C + K) + Rn E + W (T + F)                                 + tail
//   compact_skip    (G - Ge) 4 (C + K) + Ge 4 S + X M + Rn E + W (T + F)         + tail
//   probe           4 ceil(len / 16) Q   (the density count over what the probe read: whole blocks, a short
//                                         tail as one local block, as density() executes it)
// where C + E = D: a detour over an empty span skips expand ("for free" in the article), so compress costs C
// and expand E; the skip variants pay S per register of a skipped block and M per misprediction.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "catalog.h"
#include "trace.h"

namespace maskapply::gen {

struct CostModel {
  std::string name = "m5";
  double B = 0.3;     // blend overhead per register: load, mask, bsl, store
  double D = 0.845;   // detour overhead per register: compress + expand
  double C = 0.3912;  // compress part of D (detour over an empty span)
  double S = 0.1928;  // per register of a block the skip check jumps over
  double K = 0.18;    // compact's bookkeeping per compressed register (s[k], idx[k], k += bool)
  double M = 3.0;     // one branch misprediction
  double V = 0.02;    // blend_verified's count (one vsub) per register
  double Q = 0.1928;  // the probe per register (load, mask, vsub)
  double F = 0.0;     // the packed f pass's load and store per packed register (on top of T)
  std::array<double, kFnNames.size()> T{};  // f per register, by Fn

  double E() const { return D - C; }
  double t_bsl(Fn f) const { return B + T[static_cast<size_t>(f)]; }
  // The article's d_max = 1 - (D - B) / T (T floored at 1e-9 as in bsl_calibrate).
  double d_max(Fn f) const;

  // The article's constants, Apple M5 (see m5() in cost_model.cpp for where each comes from).
  static CostModel m5();
  std::string to_json() const;
  // A model written by to_json (e.g. by `maskapply calibrate`); an error message when malformed.
  static std::variant<CostModel, std::string> from_json(std::string_view text);
};

// ns per register from the article's GiB/s (a register is 16 bytes): 16 / (GiB/s * 2^30 / 1e9).
double ns_per_register(double gib_per_s);
double gib_per_s(double ns_per_register);

struct SpanStats {
  size_t len = 0, body = 0, registers = 0, blocks = 0, empty_blocks = 0, nonempty_registers = 0;
  size_t selected = 0;        // in the body
  size_t tail = 0;            // len - body
  size_t tail_selected = 0;
  size_t switches = 0;
};
SpanStats span_stats(std::span<const uint8_t> sel);

// A strategy's formula as coefficients (see the table on top); strategy_cost and the oracle both use these.
struct StrategyTerms {
  double full = 0;        // per non-empty block (4 registers)
  double empty = 0;       // per empty block
  double nonempty_reg = 0;// per non-empty register (compact's expand)
  double expand_any = 0;  // per register of the span when the span selects anything (detour's expand)
  double sw = 0;          // per switch (X)
  double group = 0;       // per 16 packed lanes: 4 (T + F); 0 when f runs in place (blend)
  bool windowed = false;  // a detour-family run: it lives in one workspace tile
};
StrategyTerms terms(const CostModel& m, Fn f, Strategy s);
// The tail's cost: one blended block (every strategy finishes a span's last len % 16 elements so).
inline double tail_cost(const CostModel& m, Fn f) { return 4 * m.t_bsl(f); }

// The cost of strategy s over a span with stats st, for f.
double strategy_cost(const CostModel& m, Fn f, Strategy s, const SpanStats& st);
inline double strategy_cost(const CostModel& m, Fn f, Strategy s, std::span<const uint8_t> sel) {
  return strategy_cost(m, f, s, span_stats(sel));
}
// The probe over len elements (TileDecision::probed).
double probe_cost(const CostModel& m, size_t len);

}  // namespace maskapply::gen
