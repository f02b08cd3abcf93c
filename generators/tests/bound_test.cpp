// SPDX-License-Identifier: MIT
// The certified bound (generators/hunt/bound.h) against exhaustive enumeration on small sizes: for every
// sequence of block summaries (a block's selected count 0..16 with every possible number of non-empty registers;
// each sequence made into a concrete selection here, independently of the bound's witness code) the hunt's own
// Scorer gives the regret; the bound is >= the largest of them, and, the program being exact, equal to it up to
// its stated margin; the bound's witness, scored by the Scorer, reaches it.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>

#include "bound.h"
#include "emulation.h"
#include "fast_pilot.h"
#include "gate_bound.h"
#include "regret.h"
#include "search.h"

namespace maskapply::gen::hunt {
namespace {

struct Case {
  const char* name;
  Kernel pilot;
  Fn f;
  double d_max;
  size_t tile, n, verify_blocks, distrust;
  int alphabet;  // exhaustive test: 0 every block summary (35 per block), 1 the 10-summary alphabet, 2 the 5-summary one
  double xlo = 0.1;
  size_t dense_block = 8;  // pilot_v6's v6_dense_block (a cheap f's one-pass compact ended by a block this full)
  size_t probe = 16;
  size_t dear_probe = 128;  // pilot_v6's v6_dear_probe (a dear f probes min(probe, this))
  // pilot_v6's switch score when d_max < 0: v6_score_switch, v6_score_blend, v6_score_skip, v6_score_sample.
  size_t score_switch = 3, score_blend = 17, score_skip = 6, score_sample = 4;
  size_t cs = 1;  // pilot_v6's v6_cs: a cheap f runs the compact score (small_options' weights), 0 the probe's table
};

// Under an emulator (MASKAPPLY_EMULATED, set by ctest's registration when cross-compiling, or an emulated arm64
// system, recognised by gen::under_emulation()) the enumerations use the smaller alphabets and fewer sequences: the
// same code on the same doubles, natively checked in full.

// The small settings' options: probe 16 (pilot_v6's dear probe above it) and xlo 0.1 (1) unless the case says,
// lo 0.3 (4), no calibration, d_max injected; pilot_v6's one-pass compact ends after a piece with fewer than 0.1 of its blocks past the probe
// non-empty (a piece of one or two blocks: none of them); its pieces are the case's verify pieces, its switch score
// (d_max < 0) the case's, ungated (v6_gate 0).
PilotOptions small_options(const CostModel& m, const Case& c) {
  PilotOptions o;
  o.tile = c.tile, o.probe = c.probe, o.v6_dear_probe = c.dear_probe, o.xlo = c.xlo, o.lo = 0.3, o.calib_blocks = 0, o.verify_blocks = c.verify_blocks;
  o.distrust = c.distrust, o.v6_pieces = c.verify_blocks, o.v6_lo = 0.3, o.v6_floor = 0.1;
  o.v6_dear_floor = 0.1;
  o.v6_dense_block = c.dense_block;
  o.v6_score_switch = c.score_switch, o.v6_score_blend = c.score_blend, o.v6_score_skip = c.score_skip;
  o.v6_score_sample = c.score_sample;
  // A cheap f's compact score at weights and thresholds that change modes within a tile of 4 blocks: empty 2, switch
  // 3, a non-empty block -1 + min(a, 4), blend_skip from 6, compact from 4, one block in 2 counted, probation 3.
  o.v6_cs = c.cs, o.v6_cs_empty = 2, o.v6_cs_switch = 3, o.v6_cs_block = 1, o.v6_cs_reg = 1, o.v6_cs_elem = 0;
  o.v6_cs_to_skip = 6, o.v6_cs_to_compact = 4, o.v6_cs_sample = 2, o.v6_cs_probation = 3;
  o = model_options(m, c.f, o);
  o.d_max = c.d_max;
  o.v6_gate = 0;  // the switch score alone (d_max < 0): the tile program's; the gate has its own tests below
  return o;
}

// Every (selected, non-empty registers) a 16-element block can have: ceil(a / 4) <= ne <= min(4, a).
std::vector<std::pair<unsigned, unsigned>> every_summary() {
  std::vector<std::pair<unsigned, unsigned>> out;
  for (unsigned a = 0; a <= 16; ++a)
    for (unsigned ne = (a + 3) / 4; ne <= std::min(4u, a); ++ne) out.emplace_back(a, ne);
  return out;
}

// A block with a selected in ne registers, spread from the last register down (not how the witness packs them).
void put_block(unsigned a, unsigned ne, uint8_t* out) {
  std::fill(out, out + 16, 0);
  for (unsigned k = 0; k < a; ++k) {
    const unsigned r = 3 - k % ne, lane = k / ne;
    out[r * 4 + (3 - lane)] = 1;
  }
}

TEST(Bound, isAtLeastTheRegretOfEveryBlockSummarySequenceAndItsWitnessReachesIt) {
  const std::vector<Case> cases{
      {"v1 fma13, 2 tiles of 32", Kernel::pilot_v1, Fn::fma13, 0.45, 32, 64, 2, 16, 0},
      {"v2 pow10, 2 tiles of 32", Kernel::pilot_v2, Fn::pow10, 0.45, 32, 64, 2, 16, 0},
      {"v3 sin35, 1 tile of 64", Kernel::pilot_v3, Fn::sin35, 0.45, 64, 64, 2, 16, 0},
      {"v3 sin10, tiles of 32 and a short last one", Kernel::pilot_v3, Fn::sin10, 0.45, 32, 48, 2, 16, 0},
      {"v3 sqrt, d_max 0.45 (compact where blend is cheap)", Kernel::pilot_v3, Fn::sqrt, 0.45, 64, 64, 2, 16, 0},
      {"v3_5 fma13, 1 tile of 64, 4 verify pieces", Kernel::pilot_v3_5, Fn::fma13, 0.45, 64, 64, 4, 16, 0},
      {"v3_5 frfrexp, 2 tiles of 32, 2 verify pieces", Kernel::pilot_v3_5, Fn::frfrexp, 0.7, 32, 64, 2, 16, 0},
      {"v3_5 sqrt, d_max < 0", Kernel::pilot_v3_5, Fn::sqrt, -1.0, 32, 64, 2, 16, 0},
      {"v4 fma13, 3 tiles of 32, distrust 2", Kernel::pilot_v4, Fn::fma13, 0.45, 32, 96, 2, 2, 1},
      {"v4 pow10, 3 tiles of 32, distrust 3", Kernel::pilot_v4, Fn::pow10, 0.45, 32, 96, 2, 3, 1},
      // A probe of one block in four: judged by prev after a bail, the tile can be fooled whole.
      {"v4 fma13, 2 tiles of 64, distrust 2", Kernel::pilot_v4, Fn::fma13, 0.45, 64, 128, 2, 2, 2},
      {"v6 sin35, 1 tile of 64, 4 pieces", Kernel::pilot_v6, Fn::sin35, 0.45, 64, 64, 4, 16, 0},
      {"v6 pow10, tiles of 32 and a short last one", Kernel::pilot_v6, Fn::pow10, 0.45, 32, 48, 2, 16, 0},
      // d_max < 0: no probe; the switch score. With the defaults (blend from 17) 2 tiles of 2 blocks stay in
      // blend_skip; with small scores the modes change within a tile and carry to the next (the chain's state).
      {"v6 sqrt, d_max < 0", Kernel::pilot_v6, Fn::sqrt, -1.0, 32, 64, 2, 16, 0},
      {"v6 sqrt, d_max < 0, 2 tiles of 2 blocks, score 2 / 3 / 1, every block counted", Kernel::pilot_v6, Fn::sqrt,
       -1.0, 32, 64, 2, 16, 0, 0.1, 8, 16, 128, 2, 3, 1, 1},
      {"v6 sqrt, d_max < 0, 1 tile of 4 blocks, score 3 / 5 / 2, every 2nd counted", Kernel::pilot_v6, Fn::sqrt, -1.0,
       64, 64, 2, 16, 0, 0.1, 8, 16, 128, 3, 5, 2, 2},
      {"v6 sqrt, d_max < 0, 2 tiles of 4 blocks, score 2 / 3 / 2, every 2nd counted", Kernel::pilot_v6, Fn::sqrt,
       -1.0, 64, 128, 2, 16, 2, 0.1, 8, 16, 128, 2, 3, 2, 2},
      // d_max 0.2 (hi = 3): a probe of 1 .. 3 runs the one-pass compact, whose residue crosses the pieces.
      {"v6 frfrexp, 1 tile of 64, 4 pieces, one-pass compact", Kernel::pilot_v6, Fn::frfrexp, 0.2, 64, 64, 4, 16, 0,
       0.1, 8, 16, 128, 3, 17, 6, 4, 0},
      // d_max 0.2 with v6_cs (small_options' score): compact and blend_skip on the compact score, switching within
      // the tile, the counted blocks (every 2nd) alone in their runs, the compact run's residue.
      {"v6 frfrexp, compact score, 1 tile of 4 blocks", Kernel::pilot_v6, Fn::frfrexp, 0.2, 64, 64, 4, 16, 0},
      // ... the mode carried from tile to tile (the chain's state).
      {"v6 fma13, compact score, 2 tiles of 4 blocks", Kernel::pilot_v6, Fn::fma13, 0.2, 64, 128, 4, 16, 2},
      // ... ended by a block of 3 selected (v6_dense_block 3: most of the alphabet ends it, blend_skip after).
      {"v6 frfrexp, 1 tile of 64, 4 pieces, one-pass compact, full at 3", Kernel::pilot_v6, Fn::frfrexp, 0.2, 64, 64, 4,
       16, 0, 0.1, 3, 16, 128, 3, 17, 6, 4, 0},
      // A dear f's probe of 1 .. 3 (xlo to lo): the one-pass compact in 3 pieces of 2 blocks, the probe inside
      // piece 0 (its second block counted), its counter holding the non-empty blocks and the residue.
      {"v6 pow10, 1 tile of 96, 3 pieces of 2 blocks, one-pass compact", Kernel::pilot_v6, Fn::pow10, 0.45, 96, 96, 3, 16,
       1},
      // A dear f's probe of 4 .. 7 (lo6 to hi): the one-pass detour in 3 pieces of 2 blocks, piece 0's second block
      // checked (its counter: the non-empty registers, whether the run selected anything, the residue); a probe
      // above hi: the verified blend, its bail going on in the detour from piece 1 or 2.
      {"v6 sin35, 1 tile of 96, 3 pieces of 2 blocks, one-pass detour", Kernel::pilot_v6, Fn::sin35, 0.45, 96, 96, 3, 16,
       1},
      // d_max 0.98: the verified blend's floor (1.05 x 0.98) capped at 1, a full piece goes on; its run skips the
      // empty blocks, its switches crossing the pieces.
      {"v6 pow10, d_max 0.98 (the blend's floor capped at 1), 1 tile of 64, 4 pieces", Kernel::pilot_v6, Fn::pow10,
       0.98, 64, 64, 4, 16, 0},
      // probe 32, v6_dear_probe 16: a dear f probes one block and counts over it (hi = 7), in 4 pieces of one block
      // (min(4, 64 / 16); over the probe of 32 it would be 2 pieces).
      {"v6 sin10, probe 32 narrowed to a dear probe of 16, 1 tile of 64, 4 pieces", Kernel::pilot_v6, Fn::sin10, 0.45,
       64, 64, 4, 16, 0, 0.1, 8, 32, 16},
  };
  const auto all = every_summary();
  ASSERT_EQ(all.size(), 35u);
  // Straddles the thresholds of the options below: probe counts 0, 1 (xlo), 4 (lo), 7 / 8 (hi), a verify
  // piece of 16 bails below 6 (0.75 x 0.45 x 16 = 5.4).
  const std::vector<std::pair<unsigned, unsigned>> few{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 1},
                                                       {5, 2}, {6, 4}, {7, 2}, {8, 4}, {16, 4}};
  // Probe counts 0, 1, 3, 8, 16 (above hi = 7); a verify piece of 32 bails below 11.
  const std::vector<std::pair<unsigned, unsigned>> five{{0, 0}, {1, 1}, {3, 3}, {8, 2}, {16, 4}};
  const CostModel m = CostModel::m5();
  for (const Case& c : cases) {
    const PilotOptions o = small_options(m, c);
    ASSERT_EQ(bound_unsupported(c.pilot, o, c.n), "") << c.name;
    const BoundResult b = regret_bound(c.pilot, c.f, m, o, c.n);
    Scorer scorer(c.pilot, c.f, m, o, false);
    const int kind = under_emulation() ? (c.alphabet == 0 ? 1 : 2) : c.alphabet;  // 35^4 sequences take minutes in qemu
    const auto& alphabet = kind == 0 ? all : kind == 1 ? few : five;
    const size_t blocks = c.n / 16;
    std::vector<size_t> digit(blocks, 0);
    std::vector<uint8_t> sel(c.n);
    Summary s;
    double worst = 0;
    std::vector<size_t> worst_at;
    // Dinkelbach's objective F(lambda) = max over selections of pilot - lambda x oracle, for lambdas on both
    // sides of the ratio (lambda = 0: the costliest pilot run, wherever the oracle is): the program's value
    // against the enumeration's (the bound's argument rests on F, not only on its root).
    const std::vector<double> lambdas{0.0, 0.5, 1.0, 2.0, 0.5 * (1 + b.lambda), b.lambda};
    std::vector<double> fmax(lambdas.size(), -std::numeric_limits<double>::infinity());
    size_t count = 0;
    for (;;) {
      for (size_t k = 0; k < blocks; ++k) put_block(alphabet[digit[k]].first, alphabet[digit[k]].second, &sel[16 * k]);
      s.assign(sel);
      const Score sc = scorer.score(s);
      const double r = sc.regret;
      for (size_t l = 0; l < lambdas.size(); ++l) fmax[l] = std::max(fmax[l], sc.pilot_cost - lambdas[l] * sc.oracle_cost);
      ++count;
      if (r > worst) worst = r, worst_at = digit;
      size_t k = 0;
      while (k < blocks && ++digit[k] == alphabet.size()) digit[k++] = 0;
      if (k == blocks) break;
    }
    std::string at;
    for (size_t d : worst_at) at += " (" + std::to_string(alphabet[d].first) + "," + std::to_string(alphabet[d].second) + ")";
    std::printf("%-48s %zu sequences: max %.9f at%s; bound %.9f, witness %.9f, %d programs\n", c.name, count, worst,
                at.c_str(), b.bound, b.witness, b.iterations);
    EXPECT_GE(b.bound, worst) << c.name << ": a sequence beats the bound:" << at;
    for (size_t l = 0; l < lambdas.size(); ++l) {
      const double F = bound_objective(c.pilot, c.f, m, o, c.n, lambdas[l]);
      const double tol = 1e-9 * (1 + std::abs(fmax[l]));
      EXPECT_GE(F, fmax[l] - tol) << c.name << ": F(" << lambdas[l] << ") below a sequence's pilot - lambda oracle";
      if (kind == 0) {
        EXPECT_LE(F, fmax[l] + tol) << c.name << ": F(" << lambdas[l] << ") above every sequence's";
      }
    }
    // The witness, scored by the Scorer from its pattern, reaches the bound (to its margin).
    Summary ws;
    ws.assign(b.pattern, c.n);
    const double w = scorer.score(ws).regret;
    EXPECT_EQ(w, b.witness) << c.name;
    EXPECT_LE(b.bound, w * (1 + 1e-6)) << c.name << ": the witness does not reach the bound";
    EXPECT_GE(w, worst * (1 - 1e-12)) << c.name << ": the enumeration found more than the witness";
    if (kind == 0) {
      EXPECT_LE(b.bound, worst * (1 + 1e-6)) << c.name << ": the bound is not the enumeration's maximum";
    }
  }
}

// Sequence by sequence: the program with its choice fixed to one sequence gives that sequence's pilot cost
// (lambda = 0) and oracle cost (from lambda = 1) as the Scorer does. Catches what a maximum cannot see: a
// threshold one off, a wrong class of v4's prev, a cost term charged to the wrong block.
TEST(Bound, modelsEachSequencesPilotAndOracleCostAsTheScorerDoes) {
  const std::vector<Case> cases{
      {"v2 sin10, 2 tiles of 32", Kernel::pilot_v2, Fn::sin10, 0.45, 32, 64, 2, 16, 0},
      {"v3 sqrt, tiles of 32 and a short last one", Kernel::pilot_v3, Fn::sqrt, 0.45, 32, 80, 2, 16, 0},
      {"v3_5 fma13, 2 tiles of 64, 4 verify pieces", Kernel::pilot_v3_5, Fn::fma13, 0.45, 64, 128, 4, 16, 0},
      {"v4 fma13, 4 tiles of 64, distrust 2", Kernel::pilot_v4, Fn::fma13, 0.45, 64, 256, 2, 2, 0},
      {"v4 pow10, 5 tiles of 32, distrust 3", Kernel::pilot_v4, Fn::pow10, 0.45, 32, 160, 2, 3, 0},
      {"v6 sin10, 2 tiles of 64, 4 pieces", Kernel::pilot_v6, Fn::sin10, 0.45, 64, 128, 4, 16, 0},
      {"v6 fma13, tiles of 64 and a short last one of 32", Kernel::pilot_v6, Fn::fma13, 0.7, 64, 160, 4, 16, 0},
      {"v6 fma13, one-pass compact, tiles of 64 and a short last one", Kernel::pilot_v6, Fn::fma13, 0.2, 64, 160, 4, 16,
       0, 0.1, 8, 16, 128, 3, 17, 6, 4, 0},
      // v6_dense_block 0 (every block past the probe ends it) and 5.
      {"v6 fma13, one-pass compact ended by any block, tiles of 64 and a short last one", Kernel::pilot_v6, Fn::fma13,
       0.2, 64, 160, 4, 16, 0, 0.1, 0, 16, 128, 3, 17, 6, 4, 0},
      {"v6 frfrexp, one-pass compact ended by a block of 5, tiles of 64 and a short last one", Kernel::pilot_v6,
       Fn::frfrexp, 0.2, 64, 160, 4, 16, 0, 0.1, 5, 16, 128, 3, 17, 6, 4, 0},
      {"v6 frfrexp, compact score, tiles of 64 and a short last one", Kernel::pilot_v6, Fn::frfrexp, 0.2, 64, 160, 4, 16,
       0},
      {"v6 fma13, compact score, tiles of 256 and a short last one", Kernel::pilot_v6, Fn::fma13, 0.2, 256, 640, 4, 16,
       0},
      {"v6 sqrt, d_max < 0, cut, tiles of 64 and a short last one", Kernel::pilot_v6, Fn::sqrt, -1.0, 64, 160, 4, 16, 0,
       0.3},
      {"v6 sqrt, d_max < 0, cut in 2 pieces, tiles of 64 and a short last one", Kernel::pilot_v6, Fn::sqrt, -1.0, 64,
       160, 2, 16, 0, 0.3},
      {"v6 pow10, one-pass compact in pieces of 2 blocks, tiles of 96 and a short last one", Kernel::pilot_v6,
       Fn::pow10, 0.45, 96, 240, 3, 16, 0},
  };
  const auto all = every_summary();
  const CostModel m = CostModel::m5();
  for (const Case& c : cases) {
    const PilotOptions o = small_options(m, c);
    Scorer scorer(c.pilot, c.f, m, o, false);
    const size_t blocks = c.n / 16;
    std::vector<uint8_t> sel(c.n);
    std::vector<std::pair<unsigned, unsigned>> seq(blocks);
    Summary s;
    for (uint64_t k = 0; k < (under_emulation() ? 200u : 1500u); ++k) {
      // Blocks drawn so that counts land on every threshold: runs of one summary, often empty or full.
      for (size_t b = 0; b < blocks; ++b) {
        const uint64_t r = mix(k, b, c.n);
        seq[b] = b > 0 && r % 3 == 0 ? seq[b - 1] : r % 5 == 0 ? std::pair{0u, 0u} : r % 7 == 0 ? std::pair{16u, 4u}
                                                                                               : all[(r >> 8) % all.size()];
        put_block(seq[b].first, seq[b].second, &sel[16 * b]);
      }
      s.assign(sel);
      const Score sc = scorer.score(s);
      const double p = bound_objective_of(c.pilot, c.f, m, o, c.n, 0.0, seq);
      const double q = p - bound_objective_of(c.pilot, c.f, m, o, c.n, 1.0, seq);
      std::string at;
      for (const auto& [a, ne] : seq) at += " (" + std::to_string(a) + "," + std::to_string(ne) + ")";
      ASSERT_NEAR(p, sc.pilot_cost, 1e-9 * sc.pilot_cost) << c.name << ", sequence" << at;
      ASSERT_NEAR(q, sc.oracle_cost, 1e-9 * sc.oracle_cost) << c.name << ", sequence" << at;
    }
  }
}

// pilot_v6's gate (v6_gate = 1, d_max < 0: gate_bound.h). The options: the model's, the gate on, tiles of `tile`.
PilotOptions gate_options(const CostModel& m, Fn f, size_t tile = 4096) {
  PilotOptions o = model_options(m, f);
  o.v6_gate = 1, o.tile = tile;
  return o;
}

// What the gate model's block costs in ns as the Scorer charges it (cost_model.h's blend_skip, blend and
// blend_verified per block).
double gate_price(const GateBlock& k, bool ne, const CostModel& m, Fn f) {
  if (k.skip) return (ne ? 4 * m.t_bsl(f) : 4 * m.S) + (k.mispredicted ? m.M : 0);
  return 4 * m.t_bsl(f) + (k.counted ? 4 * m.V : 0);
}

TEST(Bound, certifiesPilotV6sGatedSqrtAtThePrototypesFigure) {
  const CostModel m = CostModel::m5();
  const PilotOptions o = gate_options(m, Fn::sqrt);
  ASSERT_EQ(bound_unsupported(Kernel::pilot_v6, o, kHuntN), "");
  const BoundResult b = regret_bound(Kernel::pilot_v6, Fn::sqrt, m, o, kHuntN);
  const GateCertificate c = certify_gate(o);
  std::printf("gated sqrt, tiles of 4096, n %zu: bound %.6f (W(start) %.4f, max W %.4f, delta %.4f, g <= %.4f ns, %zu "
              "states, %zu iterations, O_min %.1f), witness %.6f, %.2f s\n",
              kHuntN, b.bound, c.w_start, c.w_max, c.delta, c.gmax, c.states, c.iterations, b.o_min, b.witness,
              b.seconds);
  EXPECT_NEAR(b.bound, 1.8803, 1e-4);  // maskapply_v6_gate_explore's "certified: ... = 1.8803"
  EXPECT_EQ(b.lambda, 1.88);  // the safe score converges at the pilot's lambda: lambda' = lambda
  EXPECT_EQ(c.lambda, 188);
  EXPECT_EQ(b.f_at_lambda, c.gmax);
  EXPECT_NEAR(c.gmax, 2.2369, 1e-4);
  EXPECT_FALSE(b.gave_up);
  // The witness: the Scorer's regret of its pattern, under the bound; the certificate's path reaches W(start).
  Summary s;
  s.assign(b.pattern, kHuntN);
  EXPECT_EQ(Scorer(Kernel::pilot_v6, Fn::sqrt, m, o).score(s).regret, b.witness);
  EXPECT_LE(b.witness, b.bound);
  EXPECT_GT(b.witness, 1.0);
  GateRule r = GateRule::from(o);
  GateModelState st = GateModelState::start(r);
  r.gated = false;  // the safe score alone, as the certificate runs it
  int64_t most = 0;
  for (bool x : c.path) gate_step(st, x, r), most = std::max(most, st.g);
  EXPECT_EQ(static_cast<double>(most) / 6400, c.w_start);
}

// Small tiles: the safe score loses more than the pilot's 1.88 in the long run (tiles of 512: 1.891, of 256: 1.938),
// so its W diverges at 1.88; the certificate is taken at the least lambda' (1/100) whose W' converges, lambda - 0.01
// not converging.
TEST(Bound, certifiesTheGateInEveryTileFrom256AtTheLeastLambdaWhoseWConverges) {
  const CostModel m = CostModel::m5();
  for (const auto& [tile, n] :
       {std::pair<size_t, size_t>{256, kHuntN}, std::pair<size_t, size_t>{512, kHuntN},
        std::pair<size_t, size_t>{512, kHuntN + 256}, std::pair<size_t, size_t>{1024, kHuntN},
        std::pair<size_t, size_t>{1024, kHuntN + 512}, std::pair<size_t, size_t>{2048, kHuntN},
        std::pair<size_t, size_t>{4096, kHuntN + 1024}}) {
    const PilotOptions o = gate_options(m, Fn::sqrt, tile);
    ASSERT_EQ(bound_unsupported(Kernel::pilot_v6, o, n), "") << tile << " " << n;
    const BoundResult b = regret_bound(Kernel::pilot_v6, Fn::sqrt, m, o, n);
    const GateCertificate c = certify_gate(o);
    std::printf("gated sqrt, tiles of %zu, n %zu: lambda' %.2f, bound %.6f (W'(start) %.4f, max W' %.4f, delta' %.4f, "
                "h <= %.4f ns, %zu states, %zu lambda' valued, %zu iterations), witness %.6f, %.2f s\n",
                tile, n, b.lambda, b.bound, c.w_start, c.w_max, c.delta, c.gmax, c.states, c.tried, c.iterations,
                b.witness, b.seconds);
    EXPECT_TRUE(c.converged);
    EXPECT_EQ(b.lambda, static_cast<double>(c.lambda) / 100);
    EXPECT_EQ(b.f_at_lambda, c.gmax);
    EXPECT_GE(b.lambda, 1.88);
    EXPECT_GE(b.bound, b.lambda);
    EXPECT_LT(b.bound, b.lambda + 0.01) << "tiles of " << tile;
    EXPECT_LE(b.witness, b.bound);
    EXPECT_GT(b.witness, 1.0);
    EXPECT_EQ(b.pattern.length, n);
    if (c.lambda > 188) {
      const GateRule r = GateRule::from(o);
      EXPECT_FALSE(certify_score(r, r.safe, 200000, c.lambda - 1).converged) << "tiles of " << tile;
    }
    if (tile >= 1024) {
      EXPECT_EQ(c.lambda, 188) << "tiles of " << tile << ": the safe score's long run is below 1.88";
    } else {
      EXPECT_GT(c.lambda, 188) << "tiles of " << tile << ": the safe score's long run is above 1.88";
    }
  }
}

// The certificate against the suite's oracle, independently of the bound's O_lb: for every input of up to 14 blocks
// (every prefix), the gate model's P (priced as the Scorer prices it) - lambda' x oracle_cost is at most the
// certificate's h bound, at its lambda' (tiles of 256 and 512: above the pilot's 1.88). A wrong O_lb (an unseen block
// counted as non-empty, a misprediction the oracle does not pay) or a wrong W' shows here. And in the model's integers:
// h = P - lambda' O_lb of the gated rule (the pilot's lambda deciding) reaches W'(start) exactly on short inputs (the
// certificate's path is short), so W' valued at another lambda' than the bound's shows too.
TEST(Bound, gatesPotentialIsAtMostItsCertificateOnEveryShortInput) {
  const CostModel m = CostModel::m5();
  for (const size_t tile : {256, 512, 1024, 4096}) {
    const PilotOptions o = gate_options(m, Fn::sqrt, tile);
    const GateRule r = GateRule::from(o);
    const GateCertificate c = certify_gate(o);
    ASSERT_TRUE(c.converged);
    const double lambda = static_cast<double>(c.lambda) / 100;
    const size_t L = under_emulation() ? 10 : 14;
    double most = -1e300;
    int64_t most_h = std::numeric_limits<int64_t>::min();
    std::vector<BlockSummary> bl(L);
    for (uint32_t bits = 0; bits < (1u << L); ++bits) {
      GateModelState st = GateModelState::start(r);
      double P = 0;
      int64_t h = 0;
      for (size_t i = 0; i < L; ++i) {
        const bool ne = bits >> i & 1;
        bl[i] = BlockSummary{static_cast<uint8_t>(ne ? 16 : 0), static_cast<uint8_t>(ne ? 4 : 0), 16};
        const GateBlock k = gate_step(st, ne, r);
        P += gate_price(k, ne, m, Fn::sqrt);
        h += kGateModelDen * k.paid - c.lambda * k.oracle, most_h = std::max(most_h, h);
        most = std::max(most, P - lambda * oracle_cost(std::span(bl.data(), i + 1), m, Fn::sqrt, o, 8192));
      }
    }
    std::printf("tiles of %zu: every input of up to %zu blocks: P - %.2f O at most %.4f ns, h at most %.4f ns, the "
                "certificate %.4f (W'(start) %.4f, its path %zu blocks)\n",
                tile, L, lambda, most, static_cast<double>(most_h) / 6400, c.gmax, c.w_start, c.path.size());
    EXPECT_LE(most, c.gmax + 1e-9) << "tiles of " << tile;
    EXPECT_GE(most, c.gmax - 0.1) << "tiles of " << tile << ": the certificate's binding case is short";
    EXPECT_LE(static_cast<double>(most_h) / 6400, c.gmax) << "tiles of " << tile;
    ASSERT_LE(c.path.size(), L) << "tiles of " << tile;
    EXPECT_EQ(static_cast<double>(most_h) / 6400, c.w_start) << "tiles of " << tile;
  }
}

// The whole argument on long inputs, in the model's integers: the gated rule (the pilot's lambda deciding, g down to
// -cap and back, the plain score and the safe one in turn, tiles and a short last one) keeps h = P - lambda' O_lb at
// most the certificate's gmax after every block, and h rises by at most delta' in one block, reaching it.
TEST(Bound, gatesPotentialAtItsLambdaStaysUnderItsCertificateOnLongInputs) {
  const CostModel m = CostModel::m5();
  for (const size_t tile : {256, 512, 4096}) {
    const PilotOptions o = gate_options(m, Fn::sqrt, tile);
    const GateRule r = GateRule::from(o);
    const GateCertificate c = certify_gate(o);
    ASSERT_TRUE(c.converged);
    const int64_t gmax = std::llround(c.gmax * 6400), delta = std::llround(c.delta * 6400);
    int64_t most = std::numeric_limits<int64_t>::min(), step = most;
    size_t plain = 0, switches = 0;
    const size_t blocks = (kHuntN + tile / 2) / 16;
    for (uint64_t k = 0; k < (under_emulation() ? 20u : 200u); ++k) {
      GateModelState st = GateModelState::start(r);
      int64_t h = 0;
      bool cur = false;
      for (size_t b = 0; b < blocks; ++b) {
        const uint64_t x = mix(k, b / 64, tile);  // stretches of 64 blocks: quiet (empty), alternating, random
        const uint64_t y = mix(k, b, tile + 1);
        cur = x % 3 == 0 ? false : x % 3 == 1 ? (b % (1 + x / 3 % 3) == 0 ? !cur : cur) : y % 2 == 1;
        const bool was = st.safe;
        const GateBlock g = gate_step(st, cur, r);
        const int64_t dh = kGateModelDen * g.paid - c.lambda * g.oracle;
        h += dh, most = std::max(most, h), step = std::max(step, dh);
        plain += !st.safe, switches += st.safe != was;
      }
    }
    std::printf("tiles of %zu, lambda' %.2f: long inputs: h at most %.4f ns (gmax %.4f), one block %.4f (delta' %.4f), "
                "%zu blocks in the plain score, %zu switches\n",
                tile, static_cast<double>(c.lambda) / 100, static_cast<double>(most) / 6400, c.gmax,
                static_cast<double>(step) / 6400, c.delta, plain, switches);
    EXPECT_GT(plain, 0u);
    EXPECT_GT(switches, 0u);
    EXPECT_LE(most, gmax) << "tiles of " << tile;
    EXPECT_EQ(step, delta) << "tiles of " << tile;
  }
}

// The bound's gate model (gate_bound.h) against the Scorer's pilot_v6 with v6_gate = 1 (fast_pilot.cpp, the kernel's
// rule): the pilot's cost of each input to rounding. Inputs built to move g both ways: long empty stretches (g to
// -cap, the plain score) and switch-heavy ones (g back up, the safe score), across tiles and a short last one.
TEST(Bound, gateModelCostsEveryInputAsTheScorerDoes) {
  const CostModel m = CostModel::m5();
  for (const auto& [tile, n] : {std::pair<size_t, size_t>{4096, kHuntN}, std::pair<size_t, size_t>{1024, kHuntN + 512}}) {
    const PilotOptions o = gate_options(m, Fn::sqrt, tile);
    const GateRule r = GateRule::from(o);
    Scorer scorer(Kernel::pilot_v6, Fn::sqrt, m, o);
    const size_t region = o.calib_blocks * o.calib_len, blocks = (n - region) / 16;
    std::vector<uint8_t> sel(n, 0);
    Summary s;
    for (uint64_t k = 0; k < (under_emulation() ? 8u : 40u); ++k) {
      std::vector<bool> ne(blocks);
      bool cur = false;
      for (size_t b = 0; b < blocks; ++b) {
        const uint64_t x = mix(k, b / 64, n);  // stretches of 64 blocks: quiet (empty), alternating, random
        const uint64_t y = mix(k, b, n + 1);
        cur = x % 3 == 0 ? false : x % 3 == 1 ? (b % (1 + x / 3 % 3) == 0 ? !cur : cur) : y % 2 == 1;
        ne[b] = cur;
        std::fill(sel.begin() + static_cast<std::ptrdiff_t>(region + 16 * b),
                  sel.begin() + static_cast<std::ptrdiff_t>(region + 16 * b + 16), cur ? 1 : 0);
      }
      s.assign(sel);
      GateModelState st = GateModelState::start(r);
      double P = 0;
      for (size_t b = 0; b < blocks; ++b) P += gate_price(gate_step(st, ne[b], r), ne[b], m, Fn::sqrt);
      ASSERT_NEAR(scorer.score(s).pilot_cost, P, 1e-9 * P) << "tiles of " << tile << ", input " << k;
    }
  }
}

TEST(Bound, refusesTheGateWhereItsCertificateWouldNotHold) {
  const CostModel m = CostModel::m5();
  const auto has = [](const std::string& s, const char* part) { return s.find(part) != std::string::npos; };
  // bits_inc under m5: blend on an empty block (1.28 ns) is cheaper than a detour over it (1.5648 ns); O_lb charges
  // the lesser, so its oracle stays a lower bound (it charged the detour until the helper's review found it).
  EXPECT_EQ(gate_oracle_unsupported(m, Fn::bits_inc), "");
  EXPECT_EQ(gate_oracle_unsupported(m, Fn::sqrt), "");
  // A model where compact's non-empty block (4 (C + K) + E) is cheaper than blend's.
  CostModel cheap = m;
  cheap.C = 0.05, cheap.K = 0;
  const std::string compact = gate_oracle_unsupported(cheap, Fn::sqrt);
  EXPECT_TRUE(has(compact, "compact costs one")) << compact;
  EXPECT_TRUE(has(bound_unsupported(Kernel::pilot_v6, gate_options(cheap, Fn::sqrt), kHuntN), "compact costs one"));
  // lambda 1.80: below the safe score's long-run 1.836, its W diverges there; certified at a lambda' >= 1.84.
  PilotOptions low = gate_options(m, Fn::sqrt);
  low.v6_gate_lambda = 180;
  const GateRule lr = GateRule::from(low);
  EXPECT_FALSE(certify_score(lr, lr.safe, 4000).converged);
  EXPECT_EQ(bound_unsupported(Kernel::pilot_v6, low, kHuntN), "") << "lambda 1.80";
  const BoundResult lb = regret_bound(Kernel::pilot_v6, Fn::sqrt, m, low, kHuntN);
  std::printf("gated sqrt, lambda 1.80: lambda' %.2f, bound %.6f, witness %.6f\n", lb.lambda, lb.bound, lb.witness);
  EXPECT_GE(lb.lambda, 1.84);
  EXPECT_GE(lb.bound, 1.836);
  EXPECT_LT(lb.bound, 1.85);
  EXPECT_LE(lb.witness, lb.bound);
  // The options' costs must dominate the model's: a pilot's count below the model's 4 V, an oracle's detour above
  // its 4 C. bound_unsupported does not see the model: regret_bound refuses.
  for (const auto& [what, change] : std::vector<std::pair<const char*, std::function<void(PilotOptions&)>>>{
           {"the pilot's a count", [](PilotOptions& o) { o.V = 0.01; }},
           {"the oracle's a detoured empty block", [](PilotOptions& o) { o.C = 0.42; }},
           {"the pilot's a skipped block", [](PilotOptions& o) { o.S = 0.19; }}}) {
    PilotOptions o = gate_options(m, Fn::sqrt);
    change(o);
    try {
      regret_bound(Kernel::pilot_v6, Fn::sqrt, m, o, kHuntN);
      ADD_FAILURE() << what << ": not refused";
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(has(e.what(), "do not dominate") && has(e.what(), what)) << e.what();
    }
  }
  // F(lambda) is the tile program's: not computed for the gate.
  EXPECT_THROW(bound_objective(Kernel::pilot_v6, Fn::sqrt, m, gate_options(m, Fn::sqrt), kHuntN, 1.9),
               std::invalid_argument);
  // The gate off, or d_max >= 0 (pilot_v6 does not run the switch score): the tile program as before.
  PilotOptions off = model_options(m, Fn::bits_inc);
  off.v6_gate = 0;
  EXPECT_EQ(bound_unsupported(Kernel::pilot_v6, off, kHuntN), "");
  EXPECT_EQ(bound_unsupported(Kernel::pilot_v6, gate_options(m, Fn::sin35), kHuntN), "");
}

TEST(Bound, refusesWhatItDoesNotCover) {
  const CostModel m = CostModel::m5();
  PilotOptions o = model_options(m, Fn::fma13);
  EXPECT_NE(bound_unsupported(Kernel::pilot_v5, o, 147456), "");
  EXPECT_EQ(bound_unsupported(Kernel::pilot_v4, o, 147456), "");
  EXPECT_NE(bound_unsupported(Kernel::pilot_v4, o, 147456 + 8), "");  // a last tile off the block grid
  PilotOptions odd = o;
  odd.probe = 100;
  EXPECT_NE(bound_unsupported(Kernel::pilot_v2, odd, 147456), "");
  PilotOptions none = o;
  none.d_max.reset();
  EXPECT_NE(bound_unsupported(Kernel::pilot_v1, none, 147456), "");
  EXPECT_THROW(regret_bound(Kernel::pilot_v5, Fn::fma13, m, o, 147456), std::invalid_argument);
}

}  // namespace
}  // namespace maskapply::gen::hunt
