// SPDX-License-Identifier: MIT
// The decision reference and the pilots' constants against hand-computed values: the article's defaults, the
// thresholds (negative and huge d_max too), the calibration formula, and whole decision sequences worked out by
// hand on small selections, which both the reference and the kernels' trace must reproduce.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "check.h"
#include "decisions.h"

namespace maskapply::reference {
namespace {

TEST(PilotOptions, DefaultsAreTheArticlesConstants) {
  const PilotOptions o;
  EXPECT_EQ(o.tile, 4096u);
  EXPECT_EQ(o.probe, 256u);
  EXPECT_EQ(o.xlo, 0.014);
  EXPECT_EQ(o.lo, 0.16);
  EXPECT_EQ(o.B, 0.3);
  EXPECT_EQ(o.D, 0.845);
  EXPECT_EQ(o.calib_blocks, 4u);
  EXPECT_EQ(o.calib_len, 2048u);
  EXPECT_EQ(o.verify_blocks, 8u);
  EXPECT_EQ(o.bail, 0.75);
  EXPECT_EQ(o.distrust, 16u);
  EXPECT_FALSE(o.d_max.has_value());
  const Params p;  // the reference's own copy
  EXPECT_EQ(p.tile, 4096u);
  EXPECT_EQ(p.probe, 256u);
  EXPECT_EQ(p.xlo, 0.014);
  EXPECT_EQ(p.lo, 0.16);
  EXPECT_EQ(p.calib_blocks * p.calib_len, 2 * p.tile);  // the article calibrates on 2 * tile
  EXPECT_EQ(p.verify_blocks, 8u);
  EXPECT_EQ(p.bail, 0.75);
  EXPECT_EQ(p.distrust, 16u);
  EXPECT_EQ(article::kB, 0.3);
  EXPECT_EQ(article::kD, 0.845);
  // pilot_v5's: the m5 model's C, S, K, M (docs/generators.md) and docs/pilot_v5.md's weights.
  EXPECT_EQ(o.seed, 0u);
  EXPECT_EQ(o.C, 0.3912);
  EXPECT_EQ(o.S, 0.1928);
  EXPECT_EQ(o.K, 0.18);
  EXPECT_EQ(o.M, 3.0);
  EXPECT_EQ(o.shrink, 0.5);
  EXPECT_EQ(o.kappa, 2.0);
  EXPECT_EQ(o.rho, 1.35);
  EXPECT_EQ(p.C, o.C);
  EXPECT_EQ(p.S, o.S);
  EXPECT_EQ(p.K, o.K);
  EXPECT_EQ(p.M, o.M);
  EXPECT_EQ(p.shrink, o.shrink);
  EXPECT_EQ(p.kappa, o.kappa);
  EXPECT_EQ(p.rho, o.rho);
  // pilot_v6's (docs/pilot_v6.md).
  EXPECT_EQ(o.v6_pieces, 16u);
  EXPECT_EQ(o.v6_bail, 1.05);
  EXPECT_EQ(o.v6_lo, 0.16);
  EXPECT_EQ(o.v6_floor, 0.15);
  EXPECT_EQ(o.v6_band, 0.35);
  EXPECT_EQ(o.v6_score_switch, 3u);
  EXPECT_EQ(o.v6_score_blend, 17u);
  EXPECT_EQ(o.v6_score_skip, 6u);
  EXPECT_EQ(o.v6_score_sample, 4u);
  EXPECT_EQ(o.v6_dense_cut, 0.07);
  EXPECT_EQ(o.v6_dense_block, 8u);
  EXPECT_EQ(o.v6_reg, 0.6);
  EXPECT_EQ(o.v6_dear_floor, 0.12);
  EXPECT_EQ(o.v6_dear_probe, 128u);
  EXPECT_EQ(o.v6_cheap_probe, 96u);
  EXPECT_EQ(o.v6_cs, 1u);
  EXPECT_EQ(o.v6_cs_empty, 12u);
  EXPECT_EQ(o.v6_cs_switch, 24u);
  EXPECT_EQ(o.v6_cs_block, 12u);
  EXPECT_EQ(o.v6_cs_reg, 4u);
  EXPECT_EQ(o.v6_cs_elem, 1u);
  EXPECT_EQ(o.v6_cs_to_skip, 96u);
  EXPECT_EQ(o.v6_cs_to_compact, 64u);
  EXPECT_EQ(o.v6_cs_sample, 4u);
  EXPECT_EQ(o.v6_cs_probation, 88u);
  EXPECT_EQ(o.v6_gate, 1u);
  EXPECT_EQ(o.v6_gate_lambda, 188u);
  EXPECT_EQ(o.v6_gate_g1, 20u);
  EXPECT_EQ(o.v6_gate_g2, 40u);
  EXPECT_EQ(o.v6_gate_cap, 80u);
  EXPECT_EQ(o.v6_safe_switch, 3u);
  EXPECT_EQ(o.v6_safe_blend, 3u);
  EXPECT_EQ(o.v6_safe_skip, 2u);
  EXPECT_EQ(o.v6_safe_sample, 1u);
  EXPECT_EQ(o.V, 0.02);
  EXPECT_EQ(p.v6_pieces, o.v6_pieces);
  EXPECT_EQ(p.v6_bail, o.v6_bail);
  EXPECT_EQ(p.v6_lo, o.v6_lo);
  EXPECT_EQ(p.v6_floor, o.v6_floor);
  EXPECT_EQ(p.v6_band, o.v6_band);
  EXPECT_EQ(p.v6_score_switch, o.v6_score_switch);
  EXPECT_EQ(p.v6_score_blend, o.v6_score_blend);
  EXPECT_EQ(p.v6_score_skip, o.v6_score_skip);
  EXPECT_EQ(p.v6_score_sample, o.v6_score_sample);
  EXPECT_EQ(p.v6_dense_cut, o.v6_dense_cut);
  EXPECT_EQ(p.v6_dense_block, o.v6_dense_block);
  EXPECT_EQ(p.v6_reg, o.v6_reg);
  EXPECT_EQ(p.v6_dear_floor, o.v6_dear_floor);
  EXPECT_EQ(p.v6_dear_probe, o.v6_dear_probe);
  EXPECT_EQ(p.v6_cheap_probe, o.v6_cheap_probe);
  EXPECT_EQ(p.v6_cs, o.v6_cs);
  EXPECT_EQ(p.v6_cs_empty, o.v6_cs_empty);
  EXPECT_EQ(p.v6_cs_switch, o.v6_cs_switch);
  EXPECT_EQ(p.v6_cs_block, o.v6_cs_block);
  EXPECT_EQ(p.v6_cs_reg, o.v6_cs_reg);
  EXPECT_EQ(p.v6_cs_elem, o.v6_cs_elem);
  EXPECT_EQ(p.v6_cs_to_skip, o.v6_cs_to_skip);
  EXPECT_EQ(p.v6_cs_to_compact, o.v6_cs_to_compact);
  EXPECT_EQ(p.v6_cs_sample, o.v6_cs_sample);
  EXPECT_EQ(p.v6_cs_probation, o.v6_cs_probation);
  EXPECT_EQ(p.v6_gate, o.v6_gate);
  EXPECT_EQ(p.v6_gate_lambda, o.v6_gate_lambda);
  EXPECT_EQ(p.v6_gate_g1, o.v6_gate_g1);
  EXPECT_EQ(p.v6_gate_g2, o.v6_gate_g2);
  EXPECT_EQ(p.v6_gate_cap, o.v6_gate_cap);
  EXPECT_EQ(p.v6_safe_switch, o.v6_safe_switch);
  EXPECT_EQ(p.v6_safe_blend, o.v6_safe_blend);
  EXPECT_EQ(p.v6_safe_skip, o.v6_safe_skip);
  EXPECT_EQ(p.v6_safe_sample, o.v6_safe_sample);
  EXPECT_EQ(p.V, o.V);
}

struct Hand {
  double d_max;
  long long hi;
};

TEST(Thresholds, AreTheArticlesTruncatedProductsForNegativeTinyAndHugeDmax) {
  // xlo = 0.014 * 256 = 3.584 -> 3; lo = 0.16 * 256 = 40.96 -> 40 (size_t conversions in the article).
  // hi = d_max * 256 truncated toward zero; beyond [-2, 2] it saturates at -512 / 512 (no count exceeds 256).
  const Hand cases[] = {{0.5, 128},   {0.3, 76},     {0.999, 255},   {1.0, 256},    {0.0, 0},
                        {-0.01, -2},  {-0.001, 0},   {-1.0, -256},   {1.5, 384},    {1e-9, 0},
                        {1e300, 512}, {-1e300, -512}, {HUGE_VAL, 512}, {-HUGE_VAL, -512}, {-5.4e8, -512}};
  for (const Hand& h : cases) {
    PilotOptions o;
    const Thresholds t = Thresholds::from(o, h.d_max);
    EXPECT_EQ(t.hi, h.hi) << "kernels, d_max " << h.d_max;
    EXPECT_EQ(t.xlo, 3) << "kernels";
    EXPECT_EQ(t.lo, 40) << "kernels";
    Params p;
    p.d_max = h.d_max;
    const Limits l = limits(p);
    EXPECT_EQ(l.hi, h.hi) << "reference, d_max " << h.d_max;
    EXPECT_EQ(l.xlo, 3) << "reference";
    EXPECT_EQ(l.lo, 40) << "reference";
  }
  // Another probe: 100 * 0.014 = 1.4 -> 1, 100 * 0.16 = 16, 100 * 0.755 = 75.5 -> 75, negative options too.
  PilotOptions o;
  o.probe = 100, o.xlo = -0.014, o.lo = 0.16;
  const Thresholds t = Thresholds::from(o, 0.755);
  EXPECT_EQ(t.hi, 75);
  EXPECT_EQ(t.xlo, -1);
  EXPECT_EQ(t.lo, 16);
  EXPECT_EQ(probe_count(0.755, 100), 75);
  EXPECT_EQ(probe_count(-0.014, 100), -1);
}

TEST(Calibration, DmaxFromTimeIsOneMinusDminusBOverTheTimeMinusB) {
  // d_max = 1 - (0.845 - 0.3) / (t - 0.3), t - 0.3 at least 1e-9:
  //   t = 1.0: 1 - 0.545 / 0.7 = 0.2214285714...;  t = 2.0: 1 - 0.545 / 1.7 = 0.6794117647...;
  //   t = 0.845: 0;  t = 0.3 or less: 1 - 0.545e9 = -544999999.
  const double want[][2] = {{1.0, 0.22142857142857142}, {2.0, 0.67941176470588235}, {0.845, 0.0},
                            {10.0, 0.94381443298969072}, {0.3, -544999999.0}, {0.1, -544999999.0}};
  for (const auto& w : want) {
    const double tol = 1e-12 * std::max(1.0, std::fabs(w[1]));
    EXPECT_NEAR(maskapply::d_max_from_time(w[0], 0.3, 0.845), w[1], tol) << "kernels, t = " << w[0];
    EXPECT_NEAR(d_max_from_time(w[0]), w[1], tol) << "reference, t = " << w[0];
  }
  // Other B and D: t = 3, B = 1, D = 2: 1 - 1 / 2 = 0.5.
  EXPECT_EQ(maskapply::d_max_from_time(3.0, 1.0, 2.0), 0.5);
}

// bsl_calibrate times blend per register of four floats, not per element: with f sleeping at least 1 ms per
// call (one call per register) and D - B = 1e6 ns, every block's time is at least 1e6 ns per register, so
// d_max = 1 - 1e6 / t is at least 0 however slow the host. (Per element it would be a quarter of that, d_max
// negative unless a 1 ms sleep overran by 3 ms in every block.) Only a lower bound: a sleep never ends early.
// It also processes what it times: every selected element gets f.
TEST(Calibration, BslCalibrateTimesBlendPerRegisterOfFourFloatsAndAppliesF) {
  const auto f = [](float32x4_t v) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return vaddq_f32(v, vdupq_n_f32(1.0f));
  };
  const auto mask = [](float32x4_t v) { return vcltq_f32(v, vdupq_n_f32(100.0f)); };
  std::vector<float> a(64);
  for (size_t i = 0; i < a.size(); ++i) a[i] = (i % 3 == 0) ? 200.0f + static_cast<float>(i) : static_cast<float>(i);
  const std::vector<float> before = a;
  const double d = maskapply::bsl_calibrate(a.data(), a.size(), 16, f, mask, 0.0, 1e6);
  EXPECT_GE(d, 0.0) << "a time per register of at least 1e6 ns must give d_max >= 0";
  EXPECT_LT(d, 1.0);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i], before[i] < 100.0f ? before[i] + 1.0f : before[i]) << "element " << i;
}

// Selection helpers: a tile of `len` whose first `head` elements hold `k` selected, the rest as given.
std::vector<uint8_t> tile_of(size_t len, size_t k_in_head, size_t head, uint8_t rest) {
  std::vector<uint8_t> s(len, rest);
  for (size_t i = 0; i < head; ++i) s[i] = i < k_in_head;
  return s;
}
void append(std::vector<uint8_t>& a, const std::vector<uint8_t>& b) { a.insert(a.end(), b.begin(), b.end()); }

// Small options: tile 64, probe 16, no calibration. hi = 0.5 * 16 = 8, xlo = 0.1 * 16 = 1.6 -> 1,
// lo = 0.4 * 16 = 6.4 -> 6, verify in 4 blocks of 16 with bail 0.75, distrust 3.
PilotOptions small() {
  PilotOptions o;
  o.tile = 64, o.probe = 16, o.calib_blocks = 0, o.xlo = 0.1, o.lo = 0.4, o.verify_blocks = 4, o.bail = 0.75;
  o.distrust = 3, o.d_max = 0.5;
  return o;
}

// Runs the kernel through the registry on data selecting exactly sel (a < 0.5: selected values in (0, 0.5)).
Trace kernel_trace(Kernel k, const std::vector<uint8_t>& sel, const PilotOptions& o) {
  std::vector<float> a(sel.size());
  for (size_t i = 0; i < sel.size(); ++i) a[i] = sel[i] ? 0.25f + 0.0001f * static_cast<float>(i % 100) : 0.75f;
  const testing::CheckResult r =
      testing::check_kernel(k, Fn::bits_inc, MaskSpec{MaskKind::less, 0.5f, 0, 0}, a, o);
  EXPECT_TRUE(r.ok) << r.message;
  return r.trace;
}

Params params(const PilotOptions& o) {
  Params p = maskapply::testing::reference_params(o);
  p.d_max = *o.d_max;
  return p;
}

std::vector<Strategy> strategies(const Trace& t) {
  std::vector<Strategy> s;
  for (const maskapply::Run& r : t.runs) s.push_back(r.strategy);
  return s;
}

TEST(Decisions, ProbeCountsAtHiXloAndLoMinusOneEqualAndPlusOneTakeTheArticlesBranches) {
  const PilotOptions o = small();  // hi = 8, xlo = 1, lo = 6 (0.4 * 16 = 6.4)
  std::vector<uint8_t> sel;
  // Probe counts 9 (hi + 1), 8 (= hi), 7 (hi - 1), 0, 1 (= xlo), 2 (xlo + 1), 5 (lo - 1), 6 (= lo).
  for (size_t k : {9, 8, 7, 0, 1, 2, 5, 6}) append(sel, tile_of(64, k, 16, 0));
  using S = Strategy;
  const std::vector<S> v2{S::blend, S::detour, S::detour, S::detour_skip, S::detour, S::detour, S::detour, S::detour};
  const std::vector<S> v3{S::blend,        S::detour,  S::detour,  S::compact_skip,
                          S::compact,      S::compact, S::compact, S::detour};
  for (const auto& [k, pilot, want] : {std::tuple{Kernel::pilot_v2, Pilot::v2, v2}, {Kernel::pilot_v3, Pilot::v3, v3}}) {
    const Trace ref = decide(pilot, sel, params(o));
    EXPECT_EQ(strategies(ref), want) << name(k) << ": reference";
    const Trace got = kernel_trace(k, sel, o);
    EXPECT_EQ(strategies(got), want) << name(k) << ": kernel";
    ASSERT_EQ(got.tiles.size(), 8u);
    const long long counts[] = {9, 8, 7, 0, 1, 2, 5, 6};
    for (size_t i = 0; i < 8; ++i) {
      EXPECT_EQ(got.tiles[i].count, counts[i]) << name(k) << " tile " << i;
      EXPECT_EQ(got.tiles[i].hi, 8);
      EXPECT_EQ(got.tiles[i].xlo, 1);
      EXPECT_EQ(got.tiles[i].lo, 6);
    }
    EXPECT_EQ(compare(ref, got), "");
  }
}

TEST(Decisions, ABailAtEachVerifyBlockStopsThereAndDetoursTheRest) {
  // v3.5, probe full (16 > hi = 8): blend_verified in blocks of 16; it bails when a block's density is below
  // 0.75 * 0.5 = 0.375: 5 of 16 (0.3125) bails, 6 of 16 (0.375, equal) does not; the last block never bails.
  const PilotOptions o = small();
  for (size_t block = 1; block < 4; ++block)  // block 0 holds the probe: the probe edges are tested above
    for (size_t k : {6u, 5u}) {
      std::vector<uint8_t> sel(64, 1);
      for (size_t i = 0; i < 16; ++i) sel[16 * block + i] = i < k;
      const bool bails = k == 5 && block < 3;
      std::vector<maskapply::Run> want{{0, bails ? 16 * (block + 1) : 64, Strategy::blend_verified}};
      if (bails) want.push_back({16 * (block + 1), 64, Strategy::detour});
      const Trace got = kernel_trace(Kernel::pilot_v3_5, sel, o);
      EXPECT_EQ(got.runs, want) << "block " << block << ", " << k << " selected";
      EXPECT_EQ(got.runs, decide(Pilot::v3_5, sel, params(o)).runs);
      ASSERT_EQ(got.tiles.size(), 1u);
      EXPECT_EQ(got.tiles[0].bail, bails ? 16 * (block + 1) : kNoBail);
    }
}

TEST(Decisions, V6VerifiesEachBranchPieceByPieceAndFallsBackToCompactSkipOrTheOnePassDetour) {
  // Small options with 4 pieces of 16 (min(4, 64 / 16)), one block each: hi = 8, lo = 6 (0.4), lo6 = 6 (v6_lo
  // 0.4). Above hi the verified blend bails after a piece below min(v6_bail * d_max, 1), here 1.2 * 0.5 = 0.6 (9 of
  // 16 = 0.5625 bails, 10 = 0.625 does not); after a bail on a piece at least v6_lo dense (6.4 of 16: 9 is, 6 is
  // not) the one-pass detour runs on from the next piece, else compact_skip. From lo6 to hi the one-pass detour from
  // the tile's start: one detour run, ending after a piece (not the last) whose registers past the probe (piece 0
  // is the probe's: never checked) are fewer than v6_reg = 0.6 non-empty (a prefix of 7 fills 2 of 4 registers:
  // stops; 9 fills 3: goes on). From xlo (1) below lo the one-pass compact (every piece here holds a non-empty
  // block: it never stops); below xlo compact_skip.
  PilotOptions o = small();
  o.v6_pieces = 4, o.v6_lo = 0.4, o.v6_bail = 1.2;
  using S = Strategy;
  struct Row {
    size_t probe, piece1, piece2;
    std::vector<maskapply::Run> want;
    size_t bail;
  };
  const std::vector<Row> rows{
      {16, 10, 16, {{0, 64, S::blend_skip_verified}}, kNoBail},
      {16, 9, 16, {{0, 32, S::blend_skip_verified}, {32, 64, S::detour}}, 32},
      {16, 9, 7, {{0, 32, S::blend_skip_verified}, {32, 48, S::detour}, {48, 64, S::compact_skip}}, 32},
      {16, 6, 16, {{0, 32, S::blend_skip_verified}, {32, 64, S::compact_skip}}, 32},
      {9, 16, 16, {{0, 16, S::blend_skip_verified}, {16, 64, S::detour}}, 16},
      {8, 7, 16, {{0, 32, S::detour}, {32, 64, S::compact_skip}}, 32},
      {7, 9, 16, {{0, 64, S::detour}}, kNoBail},
      {6, 16, 7, {{0, 48, S::detour}, {48, 64, S::compact_skip}}, 48},
      {6, 0, 16, {{0, 32, S::detour}, {32, 64, S::compact_skip}}, 32},
      {5, 16, 16, {{0, 64, S::compact}}, kNoBail},
      {0, 16, 16, {{0, 64, S::compact_skip}}, kNoBail},
  };
  for (const Row& r : rows) {
    std::vector<uint8_t> sel(64, 1);
    for (size_t i = 0; i < 16; ++i) sel[i] = i < r.probe, sel[16 + i] = i < r.piece1, sel[32 + i] = i < r.piece2;
    const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
    const std::string at = "probe " + std::to_string(r.probe) + ", piece 1 " + std::to_string(r.piece1) +
                           ", piece 2 " + std::to_string(r.piece2);
    EXPECT_EQ(got.runs, r.want) << at;
    ASSERT_EQ(got.tiles.size(), 1u);
    EXPECT_EQ(got.tiles[0].bail, r.bail) << at;
    EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << at;
  }
  // The one-pass detour counts registers, not elements: 3 selected in piece 1, one per register of 3 of its 4, go
  // on; the same 3 in one register stop it. The last piece is never checked.
  for (const auto& [spread, want] :
       {std::pair{true, std::vector<maskapply::Run>{{0, 64, S::detour}}},
        std::pair{false, std::vector<maskapply::Run>{{0, 32, S::detour}, {32, 64, S::compact_skip}}}}) {
    std::vector<uint8_t> sel(64, 1);
    for (size_t i = 0; i < 16; ++i) sel[i] = i < 7, sel[16 + i] = spread ? (i % 4 == 0 && i < 12) : i < 3, sel[48 + i] = 0;
    EXPECT_EQ(kernel_trace(Kernel::pilot_v6, sel, o).runs, want) << (spread ? "spread" : "packed");
    EXPECT_EQ(decide(Pilot::v6, sel, params(o)).runs, want) << (spread ? "spread" : "packed");
  }
  // At the floors themselves nothing stops (the kernels' `<`): a piece of 2 non-empty registers of 4 with
  // v6_reg = 0.5 goes on; a bail on a piece of 6 of 16 = 0.375 with v6_lo = 0.375 goes on in the detour.
  o.v6_reg = 0.5, o.v6_lo = 0.375;
  {
    std::vector<uint8_t> sel(64, 1);
    for (size_t i = 0; i < 16; ++i) sel[i] = i < 7, sel[16 + i] = i < 7;  // probe 7: from lo6 = 6 to hi = 8
    EXPECT_EQ(strategies(kernel_trace(Kernel::pilot_v6, sel, o)), std::vector<S>{S::detour});
    EXPECT_EQ(strategies(decide(Pilot::v6, sel, params(o))), std::vector<S>{S::detour});
    for (size_t i = 0; i < 16; ++i) sel[i] = 1, sel[16 + i] = i < 6;  // the blend bails on 6: the detour goes on
    const std::vector<maskapply::Run> want{{0, 32, S::blend_skip_verified}, {32, 64, S::detour}};
    EXPECT_EQ(kernel_trace(Kernel::pilot_v6, sel, o).runs, want);
    EXPECT_EQ(decide(Pilot::v6, sel, params(o)).runs, want);
  }
  o.v6_reg = 0.6, o.v6_lo = 0.4;
  // The default v6_bail, 1.05: the floor is 1.05 * 0.5 = 0.525, 8.4 of 16: a piece of 9 goes on, one of 8 bails.
  // A floor above 1 (v6_bail 2.5: 1.25) is capped at 1: a full piece goes on (pow10's uniform data at density 1
  // is blended), any other bails; on the article's step countertest (a full probe, an empty rest) the run skips
  // the empty piece's block before it bails (compact_skip on: 0 < v6_lo).
  for (const auto& [bail, piece1, want] :
       {std::tuple{1.05, size_t{9}, std::vector<maskapply::Run>{{0, 64, S::blend_skip_verified}}},
        std::tuple{1.05, size_t{8}, std::vector<maskapply::Run>{{0, 32, S::blend_skip_verified}, {32, 64, S::detour}}},
        std::tuple{2.5, size_t{16}, std::vector<maskapply::Run>{{0, 64, S::blend_skip_verified}}},
        std::tuple{2.5, size_t{15}, std::vector<maskapply::Run>{{0, 32, S::blend_skip_verified}, {32, 64, S::detour}}},
        std::tuple{2.5, size_t{0},
                   std::vector<maskapply::Run>{{0, 32, S::blend_skip_verified}, {32, 64, S::compact_skip}}}}) {
    o.v6_bail = bail;
    std::vector<uint8_t> sel(64, 1);
    for (size_t i = 0; i < 16; ++i) sel[16 + i] = i < piece1;
    if (piece1 == 0) std::fill(sel.begin() + 16, sel.end(), uint8_t{0});  // the step: a full probe, an empty rest
    EXPECT_EQ(kernel_trace(Kernel::pilot_v6, sel, o).runs, want) << "v6_bail " << bail << ", piece 1 " << piece1;
    EXPECT_EQ(decide(Pilot::v6, sel, params(o)).runs, want) << "v6_bail " << bail << ", piece 1 " << piece1;
  }
  // d_max < 0: no probe, blend_skip cut short (V6WithoutAProbeCutsItsBlendSkip... below); nothing selected: no cut.
  o.d_max = -0.5;
  std::vector<uint8_t> sel(64, 0);
  EXPECT_EQ(kernel_trace(Kernel::pilot_v6, sel, o).runs, (std::vector<maskapply::Run>{{0, 64, S::blend_skip}}));
  EXPECT_EQ(decide(Pilot::v6, sel, params(o)).runs, (std::vector<maskapply::Run>{{0, 64, S::blend_skip}}));
}

TEST(Decisions, V6CompactsACheapFsTileInOneRunFromXloUntilAPieceBelowTheFloor) {
  // d_max = 0.3 < v6_band = 0.35 (a cheap f): hi = 4, xlo = 1, lo = 6, lo6 = 8 (a cheap f has no detour_skip and
  // no verified blend). A probe from xlo to max(hi, lo) = 6 runs compact as one run over 4 pieces of one block,
  // ending after a piece (not the last) whose block is empty (piece 0 is the probe's: never checked); below xlo
  // compact_skip. The next test has pieces of several blocks. v6_dense_cut above 1: no compact_skip is ever cut
  // (V6CutsACheapFsCompactSkip... below); v6_dense_block 17: no block ends the one-pass compact for being full
  // (V6EndsACheapFsOnePassCompact... below).
  PilotOptions o = small();
  o.v6_pieces = 4, o.d_max = 0.3, o.v6_floor = 0.125, o.v6_dense_cut = 2, o.v6_dense_block = 17;
  o.v6_cs = 0;  // the probe's table for a cheap f
  using S = Strategy;
  struct Row {
    size_t probe, piece1, last;
    std::vector<maskapply::Run> want;
    size_t bail;
  };
  const std::vector<Row> rows{
      {2, 1, 16, {{0, 64, S::compact}}, kNoBail},  // one element makes piece 1's block non-empty
      {4, 16, 0, {{0, 64, S::compact}}, kNoBail},  // the last piece never stops it
      {2, 0, 16, {{0, 32, S::compact}, {32, 64, S::compact_skip}}, 32},
      {1, 0, 16, {{0, 32, S::compact}, {32, 64, S::compact_skip}}, 32},  // xlo itself is in the band
      {0, 16, 16, {{0, 64, S::compact_skip}}, kNoBail},
      {5, 16, 16, {{0, 64, S::compact}}, kNoBail},  // above hi, below lo
      {6, 0, 16, {{0, 32, S::compact}, {32, 64, S::compact_skip}}, 32},  // lo itself
  };
  for (const Row& r : rows) {
    std::vector<uint8_t> sel(64, 1);
    for (size_t i = 0; i < 16; ++i) sel[i] = i < r.probe, sel[16 + i] = i < r.piece1, sel[48 + i] = i < r.last;
    const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
    EXPECT_EQ(got.runs, r.want) << "probe " << r.probe << ", piece 1 " << r.piece1 << ", last " << r.last;
    ASSERT_EQ(got.tiles.size(), 1u);
    EXPECT_EQ(got.tiles[0].bail, r.bail) << "probe " << r.probe << ", piece 1 " << r.piece1;
    EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << "probe " << r.probe << ", piece 1 " << r.piece1;
  }
  // At d_max = v6_band the f is dear: the one-pass compact runs from xlo to lo only. With lo = 0.2 (3) and v6_lo
  // 0.5, a probe of 2 compacts; 3 and 4 (from lo to hi = 4, below lo6 = 8) run compact_skip.
  o.v6_band = 0.3, o.lo = 0.2, o.v6_lo = 0.5;
  for (const auto& [probe, want] : {std::pair{2u, S::compact}, {3u, S::compact_skip}, {4u, S::compact_skip}}) {
    std::vector<uint8_t> sel(64, 1);
    for (size_t i = 0; i < 16; ++i) sel[i] = i < probe;
    EXPECT_EQ(kernel_trace(Kernel::pilot_v6, sel, o).runs, (std::vector<maskapply::Run>{{0, 64, want}})) << probe;
    EXPECT_EQ(decide(Pilot::v6, sel, params(o)).runs, (std::vector<maskapply::Run>{{0, 64, want}})) << probe;
  }
  // A dear f's one-pass compact stops on v6_dear_floor, not v6_floor: a probe of 2, the rest full, goes on under a
  // dear floor of 0.125 whatever v6_floor is (2: a cheap f's would stop after piece 1), and stops after piece 1
  // under a dear floor above 1.
  for (const auto& [floor, dear_floor, want] :
       {std::tuple{2.0, 0.125, std::vector<maskapply::Run>{{0, 64, S::compact}}},
        std::tuple{0.125, 2.0, std::vector<maskapply::Run>{{0, 32, S::compact}, {32, 64, S::compact_skip}}}}) {
    o.v6_floor = floor, o.v6_dear_floor = dear_floor;
    std::vector<uint8_t> sel(64, 1);
    for (size_t i = 0; i < 16; ++i) sel[i] = i < 2;
    EXPECT_EQ(kernel_trace(Kernel::pilot_v6, sel, o).runs, want) << "v6_dear_floor " << dear_floor;
    EXPECT_EQ(decide(Pilot::v6, sel, params(o)).runs, want) << "v6_dear_floor " << dear_floor;
  }
}

TEST(Decisions, V6ProbesADearFsTileOverMinOfProbeAndDearProbeElementsAndCountsItsThresholdsOverThem) {
  // tile 128, probe 32, 10 selected among the first 16 elements and none among the next 16, the rest full. A dear f
  // (d_max 0.5) with v6_dear_probe 16 probes the first 16: 10 > hi = 8, the verified blend_skip over 8 pieces of 16
  // (min(8, 128 / 16)), bailing after the empty piece 1 (below v6_lo: compact_skip on the rest). With v6_dear_probe
  // 32 (or more: the probe is min(probe, v6_dear_probe)) it probes 32: lo6 = 5 <= 10 <= hi = 16, the one-pass
  // detour over 4 pieces of 32. A cheap f (d_max 0.3) keeps the probe of 32 whatever v6_dear_probe is, and probes
  // min(32, v6_cheap_probe): 16 of them with v6_cheap_probe 16 (10 > hi = 4: blend_skip over the tile).
  PilotOptions o = small();
  o.v6_cs = 0;  // the probe's table for a cheap f
  o.tile = 128, o.probe = 32, o.v6_pieces = 8;
  using S = Strategy;
  std::vector<uint8_t> sel(128, 1);
  for (size_t i = 0; i < 32; ++i) sel[i] = i < 10;
  struct Row {
    double d_max;
    size_t dear_probe, cheap_probe, probed;
    long long hi;
    std::vector<maskapply::Run> want;  // empty: only the reference's
  };
  const std::vector<Row> rows{
      {0.5, 16, 1000, 16, 8, {{0, 32, S::blend_skip_verified}, {32, 128, S::compact_skip}}},
      {0.5, 32, 16, 32, 16, {{0, 128, S::detour}}},
      {0.5, 1000, 1000, 32, 16, {{0, 128, S::detour}}},
      {0.3, 16, 1000, 32, 9, {}},
      {0.3, 1000, 16, 16, 4, {{0, 128, S::blend_skip}}},
      {0.3, 16, 32, 32, 9, {}},
  };
  for (const Row& r : rows) {
    o.d_max = r.d_max, o.v6_dear_probe = r.dear_probe, o.v6_cheap_probe = r.cheap_probe;
    const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
    const std::string at = "d_max " + std::to_string(r.d_max) + ", v6_dear_probe " + std::to_string(r.dear_probe) +
                           ", v6_cheap_probe " + std::to_string(r.cheap_probe);
    if (!r.want.empty()) {
      EXPECT_EQ(got.runs, r.want) << at;
    }
    ASSERT_EQ(got.tiles.size(), 1u) << at;
    EXPECT_EQ(got.tiles[0].probed, r.probed) << at;
    EXPECT_EQ(got.tiles[0].hi, r.hi) << at;
    EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << at;
  }
}

TEST(Decisions, V6CutsACheapFsCompactSkipToBlendSkipAfterAPieceWithAtLeastTheDenseCutSelected) {
  // d_max = 0.3 (a cheap f): hi = 4, xlo = 1, lo = 6; 4 pieces of one block; v6_dense_cut 0.25: 4 of a piece's 16.
  // compact_skip (a probe below xlo, or after the one-pass compact stops) is one run until a piece (not piece 0,
  // not the last) with at least 4 selected, then blend_skip; the tile's bail is the cut only when the compact_skip
  // began the tile (else it stays where the one-pass compact stopped).
  PilotOptions o = small();
  o.v6_pieces = 4, o.d_max = 0.3, o.v6_floor = 0.125, o.v6_dense_cut = 0.25;
  o.v6_cs = 0;  // the probe's table for a cheap f
  using S = Strategy;
  struct Row {
    size_t probe, piece1, piece2, last;
    std::vector<maskapply::Run> want;
    size_t bail;
  };
  const std::vector<Row> rows{
      {0, 4, 0, 16, {{0, 32, S::compact_skip}, {32, 64, S::blend_skip}}, 32},  // the cut itself
      {0, 3, 4, 0, {{0, 48, S::compact_skip}, {48, 64, S::blend_skip}}, 48},   // one below it goes on
      {0, 3, 3, 16, {{0, 64, S::compact_skip}}, kNoBail},                      // the last piece is never checked
      {2, 0, 4, 0, {{0, 32, S::compact}, {32, 48, S::compact_skip}, {48, 64, S::blend_skip}}, 32},
      {2, 0, 3, 16, {{0, 32, S::compact}, {32, 64, S::compact_skip}}, 32},
  };
  for (const Row& r : rows) {
    std::vector<uint8_t> sel(64, 0);
    for (size_t i = 0; i < 16; ++i)
      sel[i] = i < r.probe, sel[16 + i] = i < r.piece1, sel[32 + i] = i < r.piece2, sel[48 + i] = i < r.last;
    const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
    const std::string row = "probe " + std::to_string(r.probe) + ", pieces " + std::to_string(r.piece1) + " " +
                            std::to_string(r.piece2) + " " + std::to_string(r.last);
    EXPECT_EQ(got.runs, r.want) << row;
    ASSERT_EQ(got.tiles.size(), 1u);
    EXPECT_EQ(got.tiles[0].bail, r.bail) << row;
    EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << row;
  }
  // A dear f (d_max = v6_band) never cuts: its compact_skip below xlo runs to the tile's end.
  o.v6_band = 0.3;
  std::vector<uint8_t> sel(64, 1);
  for (size_t i = 0; i < 16; ++i) sel[i] = 0;
  EXPECT_EQ(kernel_trace(Kernel::pilot_v6, sel, o).runs, (std::vector<maskapply::Run>{{0, 64, S::compact_skip}}));
  EXPECT_EQ(decide(Pilot::v6, sel, params(o)).runs, (std::vector<maskapply::Run>{{0, 64, S::compact_skip}}));
}

// A tile of 256 elements for the one-pass compact's tables: the first `probe` elements selected (block 0; block 1
// empty), then blocks 2, 3, ... with blocks[0], blocks[1], ... selected elements each, from their first.
std::vector<uint8_t> probe_then_blocks(size_t probe, const std::vector<size_t>& blocks) {
  std::vector<uint8_t> sel(256, 0);
  for (size_t i = 0; i < probe; ++i) sel[i] = 1;
  for (size_t b = 0; b < blocks.size(); ++b)
    for (size_t i = 0; i < blocks[b]; ++i) sel[16 * (b + 2) + i] = 1;
  return sel;
}

TEST(Decisions, V6sOnePassCompactStopsAfterAPieceWithTooFewNonEmptyBlocksPastTheProbe) {
  // Tile 256, probe 32 (blocks 0 and 1), 4 pieces of 4 blocks; d_max = 0.3 (a cheap f): xlo = 3, hi = 9, lo = 12;
  // the probe holds 4 (the one-pass compact). v6_floor = 0.5: piece 0 has 2 blocks past the probe and stops with
  // none of them non-empty (1 of 2 = 0.5 does not: the kernels' <); pieces 1 and 2 need 2 of their 4 blocks
  // non-empty, counted as blocks (one element or sixteen alike: v6_dense_block 17, no block is full enough to end
  // it, V6EndsACheapFsOnePassCompact... below); the last piece never stops it.
  PilotOptions o = small();
  o.tile = 256, o.probe = 32, o.v6_pieces = 4, o.d_max = 0.3, o.v6_floor = 0.5, o.v6_dense_block = 17;
  o.v6_cs = 0;  // the probe's table for a cheap f
  using S = Strategy;
  struct Row {
    std::vector<size_t> blocks;  // selected elements per block 2 .. 15 (the probe's 0 and 1: 4 and 0)
    std::vector<maskapply::Run> want;
  };
  const std::vector<Row> rows{
      {{0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 64, S::compact}, {64, 256, S::compact_skip}}},
      {{0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 256, S::compact}}},
      {{1, 0, 16, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 128, S::compact}, {128, 256, S::compact_skip}}},
      {{1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0}, {{0, 256, S::compact}}},
      {{1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}, {{0, 192, S::compact}, {192, 256, S::compact_skip}}},
  };
  for (const Row& r : rows) {
    const std::vector<uint8_t> sel = probe_then_blocks(4, r.blocks);
    const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
    EXPECT_EQ(got.runs, r.want) << "row " << (&r - rows.data());
    EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << "row " << (&r - rows.data());
  }
}

TEST(Decisions, V6EndsACheapFsOnePassCompactAfterAPieceWithABlockAtLeastTheDenseBlockFull) {
  // As the test before (tile 256, probe 32 = blocks 0 and 1, 4 pieces of 4 blocks, d_max = 0.3: a cheap f, xlo = 3,
  // hi = 9, lo = 12, v6_floor = 0.5), with v6_dense_block = 8: after a piece (not the last) with a block past the
  // probe holding at least 8 selected, the one-pass compact ends and blend_skip runs the rest (also when the piece
  // is sparse as well); the probe's blocks and the last piece are never checked. The tile's bail is the end.
  PilotOptions o = small();
  o.tile = 256, o.probe = 32, o.v6_pieces = 4, o.d_max = 0.3, o.v6_floor = 0.5, o.v6_dense_block = 8;
  o.v6_cs = 0;  // the probe's table for a cheap f
  using S = Strategy;
  struct Row {
    size_t probe;                // selected elements in block 0 (block 1: none)
    std::vector<size_t> blocks;  // selected elements per block 2 .. 15
    std::vector<maskapply::Run> want;
    size_t bail;
  };
  const std::vector<Row> rows{
      {4, {1, 1, 8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 128, S::compact}, {128, 256, S::blend_skip}}, 128},
      {4, {1, 1, 7, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 256, S::compact}}, kNoBail},  // one below
      {4, {8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 64, S::compact}, {64, 256, S::blend_skip}}, 64},
      {8, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 256, S::compact}}, kNoBail},  // the probe's block
      {4, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 16, 16, 16, 16}, {{0, 256, S::compact}}, kNoBail},  // the last piece
      // Full and sparse at once (1 of 4 non-empty): blend_skip, not compact_skip.
      {4, {1, 1, 16, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 128, S::compact}, {128, 256, S::blend_skip}}, 128},
      // Sparse only: compact_skip (its cut, v6_dense_cut 0.07 of 64 = 5, never reached by the last piece).
      {4, {1, 1, 7, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}, {{0, 128, S::compact}, {128, 256, S::compact_skip}}, 128},
  };
  const auto tile = [](const Row& r) { return probe_then_blocks(r.probe, r.blocks); };
  for (const Row& r : rows) {
    const std::vector<uint8_t> sel = tile(r);
    const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
    EXPECT_EQ(got.runs, r.want) << "row " << (&r - rows.data());
    ASSERT_EQ(got.tiles.size(), 1u);
    EXPECT_EQ(got.tiles[0].bail, r.bail) << "row " << (&r - rows.data());
    EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << "row " << (&r - rows.data());
  }
  // A dear f (d_max = v6_band; lo = 12, so the probe's 4 still runs the one-pass compact) never ends it so.
  o.v6_band = 0.3;
  const std::vector<uint8_t> sel = tile(rows[0]);
  EXPECT_EQ(kernel_trace(Kernel::pilot_v6, sel, o).runs, (std::vector<maskapply::Run>{{0, 256, S::compact}}));
  EXPECT_EQ(decide(Pilot::v6, sel, params(o)).runs, (std::vector<maskapply::Run>{{0, 256, S::compact}}));
}

TEST(Decisions, V6BlendSkipsACheapFsTileWhenItsProbeIsAboveBothHiAndLo) {
  // d_max = 0.3 < v6_band = 0.35: hi = 4, lo = 6. A probe above both (7 of 16 and up) runs blend_skip over the
  // tile, whatever follows; at lo itself (6) the one-pass compact, which stops after piece 2 (piece 1's block holds
  // an element, piece 2's is empty); with the f not cheap (v6_band = 0.3) the verified blend_skip, which
  // bails after piece 1 (1 of 16 is below 1.2 * 0.3).
  PilotOptions o = small();
  o.v6_pieces = 4, o.d_max = 0.3;
  o.v6_cs = 0;  // the probe's table for a cheap f
  using S = Strategy;
  struct Row {
    size_t probe;
    double band;
    std::vector<maskapply::Run> want;
  };
  const std::vector<Row> rows{
      {7, 0.35, {{0, 64, S::blend_skip}}},
      {16, 0.35, {{0, 64, S::blend_skip}}},
      {6, 0.35, {{0, 48, S::compact}, {48, 64, S::compact_skip}}},
      {7, 0.3, {{0, 32, S::blend_skip_verified}, {32, 64, S::compact_skip}}},
  };
  for (const Row& r : rows) {
    o.v6_band = r.band;
    std::vector<uint8_t> sel(64, 0);
    for (size_t i = 0; i < 16; ++i) sel[i] = i < r.probe, sel[16 + i] = i < 1;
    const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
    EXPECT_EQ(got.runs, r.want) << "probe " << r.probe << ", v6_band " << r.band;
    EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << "probe " << r.probe << ", v6_band " << r.band;
  }
}

// A pilot_v6 row of the tests below: n elements, one selected element at offset 5 of each listed block, and the
// runs the kernel must report.
struct UnprobedRow {
  size_t n;
  std::vector<size_t> blocks;  // blocks with one selected element (by index in the array)
  std::vector<maskapply::Run> want;
};

std::vector<maskapply::Run> runs_then(std::vector<maskapply::Run> head, const std::vector<maskapply::Run>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// pilot_v6's kernel on each row reports the row's runs, reads no probe and bails nowhere, and its trace equals the
// decision reference's.
void expect_unprobed_runs(const PilotOptions& o, const std::vector<UnprobedRow>& rows) {
  for (const UnprobedRow& r : rows) {
    std::vector<uint8_t> sel(r.n, 0);
    std::string why = "n " + std::to_string(r.n) + ", blocks";
    for (const size_t b : r.blocks) sel[16 * b + 5] = 1, why += " " + std::to_string(b);
    const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
    EXPECT_EQ(got.runs, r.want) << why;
    for (const TileDecision& t : got.tiles) {
      EXPECT_EQ(t.bail, kNoBail) << why;
      EXPECT_EQ(t.source, CountSource::none) << why;
      EXPECT_EQ(t.probed, 0u) << why;
    }
    EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << why;
  }
}

TEST(Decisions, V6WithoutAProbeGoesBetweenBlendSkipAndBlendOnTheSwitchScoreAndCarriesItsModeToTheNextTile) {
  // d_max < 0 (hi < 0): no probe; tiles of 256 (16 blocks); switch 3, blend from 5, back to blend_skip from 2,
  // every second block (1, 3, 5, ...) counted in blend. Worked by hand:
  //  - an empty tile: block 0 switches from "non-empty" (+3 - 1 = 2), then 1, 0, ...: blend_skip throughout;
  //  - elements in blocks 0 and 2: 0, then block 1 (+3 - 1 = 2), block 2 (+3 = 5): blend from block 3, its last
  //    counted emptiness block 2's (non-empty); block 3 counted, empty: +1 - 3 -> 0; block 5: 1; block 7: 2: blend_skip
  //    from block 8 with the score at 5 - 3 = 2; block 8 switches from "non-empty": 4, then 3, 2, 1, 0;
  //  - the same and an element in block 9: block 8: 4, block 9 (+3 = 7): blend from block 10; blocks 11, 13: 0, 1;
  //    block 15 would make 2, but it is the tile's last: no verdict, the tile ends in blend. The next tile starts in
  //    blend (its first counted block compared with "non-empty"): block 1: 0, block 3: 1, block 5: 2: blend_skip
  //    from block 6; a short next tile (2 blocks and 8 elements) stays in blend, its tail blended.
  PilotOptions o = small();
  o.tile = 256, o.probe = 32, o.d_max = -0.5, o.v6_gate = 0;  // the score alone (the gate: the test after the next)
  o.v6_score_switch = 3, o.v6_score_blend = 5, o.v6_score_skip = 2, o.v6_score_sample = 2;
  using S = Strategy;
  using Row = UnprobedRow;
  const std::vector<maskapply::Run> b_runs{{0, 48, S::blend_skip},      {48, 64, S::blend_verified},
                                           {64, 80, S::blend},          {80, 96, S::blend_verified},
                                           {96, 112, S::blend},         {112, 128, S::blend_verified}};
  const auto with = runs_then;
  const std::vector<maskapply::Run> c_runs = with(b_runs, {{128, 160, S::blend_skip}, {160, 176, S::blend},
                                                          {176, 192, S::blend_verified}, {192, 208, S::blend},
                                                          {208, 224, S::blend_verified}, {224, 240, S::blend},
                                                          {240, 256, S::blend_verified}});
  const std::vector<Row> rows{
      {256, {}, {{0, 256, S::blend_skip}}},
      {256, {0, 2}, with(b_runs, {{128, 256, S::blend_skip}})},
      {256, {0, 2, 9}, c_runs},
      {512, {0, 2, 9},
       with(c_runs, {{256, 272, S::blend}, {272, 288, S::blend_verified}, {288, 304, S::blend},
                     {304, 320, S::blend_verified}, {320, 336, S::blend}, {336, 352, S::blend_verified},
                     {352, 512, S::blend_skip}})},
      {296, {0, 2, 9}, with(c_runs, {{256, 272, S::blend}, {272, 288, S::blend_verified}, {288, 296, S::blend}})},
  };
  expect_unprobed_runs(o, rows);
}

TEST(Decisions, V6sGateChangesTheSwitchScoresRunsAndTheKernelTakesEverySwitchTheReferenceDoes) {
  // d_max < 0 (sqrt's under m5: its gate costs are the ones docs/pilot_v6.md works with), the gate on with small
  // thresholds so that short inputs cross them both ways; the runs of blocks in stretches of 1 to 40 (sparse,
  // dense, alternating). The kernel's trace must equal the reference's on every input; and the gate must act: on
  // some inputs the gated trace differs from the same options without the gate, and from those with only the
  // safe score (g1 = g2 = cap = 1000000 ns: never plain).
  uint64_t x = 88172645463325252ull;
  const auto rnd = [&]() { return x ^= x << 13, x ^= x >> 7, x ^= x << 17, x; };
  // The kernel keeps O_lb as a state machine when it has at most SwitchGate::kStates states (sqrt's costs: 6), as
  // arithmetic otherwise (a misprediction of 400 ns: more); both must take every switch the reference does.
  PilotOptions dear = small();
  dear.M = 400;
  EXPECT_GT(v6_gate_of(PilotOptions{}, -2.3189).states, 0u);
  EXPECT_EQ(v6_gate_of(dear, -2.3189).states, 0u);
  for (const auto& [lambda, M] : {std::pair<size_t, double>{188, 3.0}, {120, 3.0}, {300, 3.0}, {188, 400.0}}) {
    PilotOptions o = small();
    o.tile = 512, o.probe = 64, o.d_max = -2.3189, o.M = M;
    o.v6_gate = 1, o.v6_gate_lambda = lambda, o.v6_gate_g1 = 1, o.v6_gate_g2 = 3, o.v6_gate_cap = 6;
    PilotOptions plain = o, safe = o;
    plain.v6_gate = 0;
    safe.v6_gate_g1 = safe.v6_gate_g2 = safe.v6_gate_cap = 1000000;
    size_t differs_plain = 0, differs_safe = 0;
    for (int t = 0; t < 60; ++t) {
      const size_t n = 16 * (1 + rnd() % 200) + (t % 4 == 0 ? rnd() % 16 : 0);
      std::vector<uint8_t> sel(n, 0);
      bool on = rnd() % 2;
      for (size_t b = 0; b * 16 < n; ++b) {
        if (rnd() % (1 + t % 40) == 0) on = !on;
        if (on) sel[std::min(n - 1, 16 * b + rnd() % 16)] = 1;
      }
      const Trace got = kernel_trace(Kernel::pilot_v6, sel, o);
      EXPECT_EQ(compare(decide(Pilot::v6, sel, params(o)), got), "") << "lambda " << lambda << ", input " << t;
      differs_plain += got.runs != kernel_trace(Kernel::pilot_v6, sel, plain).runs;
      differs_safe += got.runs != kernel_trace(Kernel::pilot_v6, sel, safe).runs;
    }
    if (M > 10) continue;  // a misprediction of 400 ns keeps the pilot behind: safe throughout
    EXPECT_GT(differs_plain, 2u) << "lambda " << lambda;
    EXPECT_GT(differs_safe, 2u) << "lambda " << lambda;
  }
}

TEST(Decisions, V6RunsACheapFsTileOnTheCompactScoreCuttingEachCountedBlockOutAndCarriesItsModeToTheNextTile) {
  // d_max = 0.3 < v6_band (a cheap f) with v6_cs: no probe; tiles of 256 (16 blocks); weights empty 2, switch 3,
  // block 1 (reg and elem 0: a non-empty block is worth 1 whatever it holds); blend_skip from 6, compact from 4,
  // every second block (1, 3, 5, ...) counted in blend_skip, probation 3. Worked by hand (one element per listed
  // block):
  //  - an empty tile: compact, block 0 switches from "non-empty" (+2 - 3 -> 0), then 2, 4, 6: blend_skip from block
  //    4 (score 0); block 4 switches (-2 + 3 = 1), then 0: blend_skip to the end;
  //  - blocks 5 and 7: as before to block 4 (1); block 5 counted, non-empty (+2 x 1, +3 switch: 6, clamped to 4):
  //    a blend_skip_verified run of its own, compact from block 6 at 3; block 6 empty (+2 - 3 = 2), block 7
  //    (-1 - 3 -> 0), block 8 (+2 - 3 -> 0), 9: 2, 10: 4, 11: 6: blend_skip from block 12 to the end (1, 0, ...);
  //  - the same and blocks 17 and 19 (a second tile, which starts in blend_skip at 0): block 16 (+1), block 17
  //    counted (4): compact from block 18 at 3: 2, 0, 0, 2, 4, 6 at block 23: blend_skip from block 24;
  //  - blocks 5, 7 and 17 in 296 elements: the short second tile starts in blend_skip; block 17 (its last whole
  //    block: no verdict) is counted and cut out, and its 8 tail elements go with blend_skip.
  PilotOptions o = small();
  o.tile = 256, o.probe = 32, o.d_max = 0.3;
  o.v6_cs = 1, o.v6_cs_empty = 2, o.v6_cs_switch = 3, o.v6_cs_block = 1, o.v6_cs_reg = 0, o.v6_cs_elem = 0;
  o.v6_cs_to_skip = 6, o.v6_cs_to_compact = 4, o.v6_cs_sample = 2, o.v6_cs_probation = 3;
  using S = Strategy;
  using Row = UnprobedRow;
  const std::vector<maskapply::Run> two{{0, 64, S::compact},   {64, 80, S::blend_skip},
                                        {80, 96, S::blend_skip_verified},
                                        {96, 192, S::compact}, {192, 256, S::blend_skip}};
  const auto with = runs_then;
  const std::vector<Row> rows{
      {256, {}, {{0, 64, S::compact}, {64, 256, S::blend_skip}}},
      {256, {5, 7}, two},
      {512, {5, 7, 17, 19},
       with(two, {{256, 272, S::blend_skip}, {272, 288, S::blend_skip_verified}, {288, 384, S::compact},
                  {384, 512, S::blend_skip}})},
      {296, {5, 7, 17}, with(two, {{256, 272, S::blend_skip}, {272, 288, S::blend_skip_verified},
                                   {288, 296, S::blend_skip}})},
  };
  expect_unprobed_runs(o, rows);
}

TEST(Decisions, V4DistrustsTheProbeForDistrustMinusOneTilesThenTrustsItAgain) {
  // distrust 3: a bail-out in tile 0, then tiles 1 and 2 judged by the previous tile, tile 3 by its probe.
  // Tile 0: full probe block, then an empty block -> bails at 32; the rest [32, 64) has 16 selected ->
  // prev = 16 * 16 / 32 = 8 (= hi: not above it) -> tile 1 goes below hi: 8 >= lo = 6 -> detour; its count
  // (64 selected) gives prev = 64 * 16 / 64 = 16 > hi -> tile 2: detour (distrusted blend branch), prev 16;
  // tile 3: the probe again (count 16 > 8) -> blend_verified over a full tile.
  const PilotOptions o = small();
  std::vector<uint8_t> sel(64, 1);
  std::fill(sel.begin() + 16, sel.begin() + 32, 0);
  std::fill(sel.begin() + 48, sel.end(), 0);
  append(sel, std::vector<uint8_t>(64, 1));
  append(sel, std::vector<uint8_t>(64, 1));
  append(sel, std::vector<uint8_t>(64, 1));
  const Trace got = kernel_trace(Kernel::pilot_v4, sel, o);
  const std::vector<maskapply::Run> want{{0, 32, Strategy::blend_verified}, {32, 64, Strategy::detour},
                              {64, 128, Strategy::detour},       {128, 192, Strategy::detour},
                              {192, 256, Strategy::blend_verified}};
  EXPECT_EQ(got.runs, want);
  ASSERT_EQ(got.tiles.size(), 4u);
  const CountSource src[] = {CountSource::probe, CountSource::previous, CountSource::previous, CountSource::probe};
  const long long count[] = {16, 8, 16, 16};
  const size_t left[] = {3, 2, 1, 0};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(got.tiles[i].source, src[i]) << "tile " << i;
    EXPECT_EQ(got.tiles[i].count, count[i]) << "tile " << i;
    EXPECT_EQ(got.tiles[i].distrust, left[i]) << "tile " << i;
  }
  EXPECT_EQ(got.tiles[0].bail, 32u);
  EXPECT_EQ(compare(decide(Pilot::v4, sel, params(o)), got), "");
}

TEST(Decisions, ShortTilesScaleTheProbeAndCalibrationCoversTheFirstBlocks) {
  // calibration 2 x 10 over n = 20 + 64 + 5: two calibration tiles, one full tile, a last tile of 5 whose probe
  // of 5 with 3 selected counts 3 * 16 / 5 = 9 (> hi = 8: blend under v2).
  PilotOptions o = small();
  o.calib_blocks = 2, o.calib_len = 10;
  std::vector<uint8_t> sel(20, 0);
  append(sel, tile_of(64, 0, 16, 0));
  append(sel, {1, 1, 1, 0, 0});
  const Trace got = kernel_trace(Kernel::pilot_v2, sel, o);
  ASSERT_EQ(got.tiles.size(), 4u);
  EXPECT_EQ(got.tiles[0].source, CountSource::calibration);
  EXPECT_EQ(got.tiles[1].end, 20u);
  EXPECT_EQ(got.tiles[3].count, 9);
  const std::vector<maskapply::Run> want{{0, 10, Strategy::blend}, {10, 20, Strategy::blend}, {20, 84, Strategy::detour_skip},
                              {84, 89, Strategy::blend}};
  EXPECT_EQ(got.runs, want);
  EXPECT_EQ(compare(decide(Pilot::v2, sel, params(o)), got), "");
  // v1 with d_max < 0 blends, with d_max >= 0 detours, and never probes.
  o.d_max = -0.001;
  EXPECT_EQ(strategies(kernel_trace(Kernel::pilot_v1, sel, o)),
            (std::vector<Strategy>{Strategy::blend, Strategy::blend, Strategy::blend, Strategy::blend}));
  o.d_max = 0.0;
  const Trace v1 = kernel_trace(Kernel::pilot_v1, sel, o);
  EXPECT_EQ(v1.runs.back().strategy, Strategy::detour);
  EXPECT_EQ(v1.tiles.back().source, CountSource::none);
}

TEST(Decisions, TheArticlesDefaultsOnItsStepPatternMatchTheHandCount) {
  // i % 4096 >= 256 selected-as-zeros under a < 1: each tile's first 256 are selected, the rest not. With
  // d_max = 0.9: hi = 230, the probe counts 256 > 230, v3 blends every tile after the 2 * 4096 calibration.
  const size_t n = 5 * 4096;
  std::vector<uint8_t> sel(n);
  for (size_t i = 0; i < n; ++i) sel[i] = i % 4096 < 256;
  PilotOptions o;
  o.d_max = 0.9;
  const Trace got = kernel_trace(Kernel::pilot_v3, sel, o);
  ASSERT_EQ(got.tiles.size(), 4u + 3u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(got.tiles[i].end, 2048 * (i + 1));
  for (size_t i = 4; i < 7; ++i) {
    EXPECT_EQ(got.tiles[i].count, 256);
    EXPECT_EQ(got.tiles[i].hi, 230);
  }
  EXPECT_EQ(got.runs.back().strategy, Strategy::blend);
  EXPECT_EQ(compare(decide(Pilot::v3, sel, params(o)), got), "");
}

TEST(Decisions, V5OnEmptyFullAndSparseTilesMatchesTheHandWorkedTable) {
  const size_t n = 8192 + 3 * 4096;
  PilotOptions o;
  // Nothing selected: every estimate is d = e - 1 = x = r = 0, e = 1; compact_skip costs 4S = 0.77 per block, the
  // least: one compact_skip run per tile, probe count 0.
  o.d_max = 0.5;
  const std::vector<uint8_t> none(n, 0);
  Trace t = kernel_trace(Kernel::pilot_v5, none, o);
  ASSERT_EQ(t.tiles.size(), 4u + 3u);
  for (size_t i = 4; i < 7; ++i) {
    EXPECT_EQ(t.tiles[i].source, CountSource::probe);
    EXPECT_EQ(t.tiles[i].count, 0);
  }
  EXPECT_EQ(strategies(t), (std::vector<Strategy>{Strategy::blend, Strategy::blend, Strategy::blend, Strategy::blend,
                                                  Strategy::compact_skip, Strategy::compact_skip,
                                                  Strategy::compact_skip}));
  EXPECT_EQ(compare(decide(Pilot::v5, none, params(o)), t), "");
  // Everything selected, d_max 0.5: T = 0.545 / 0.5 = 1.09, blend 4 (0.3 + 1.09) = 5.56 < detour 3.38 + 4.36;
  // the blend runs counted per chunk of 512 (8 per tile), density 1 >= 0.5: no bail; the probe counts 256.
  const std::vector<uint8_t> all(n, 1);
  t = kernel_trace(Kernel::pilot_v5, all, o);
  EXPECT_EQ(t.runs.size(), 4u + 3u * 8u);
  for (size_t i = 4; i < t.runs.size(); ++i) {
    EXPECT_EQ(t.runs[i].strategy, Strategy::blend_verified);
    EXPECT_EQ(t.runs[i].end - t.runs[i].begin, 512u);
  }
  for (size_t i = 4; i < 7; ++i) {
    EXPECT_EQ(t.tiles[i].count, 256);
    EXPECT_EQ(t.tiles[i].bail, kNoBail);
  }
  EXPECT_EQ(compare(decide(Pilot::v5, all, params(o)), t), "");
  // d_max -0.5: no bail can happen, the blend runs plain, one run per tile.
  o.d_max = -0.5;
  t = kernel_trace(Kernel::pilot_v5, all, o);
  EXPECT_EQ(t.runs.size(), 4u + 3u);
  EXPECT_EQ(t.runs.back().strategy, Strategy::blend);
  EXPECT_EQ(t.runs.back().end - t.runs.back().begin, 4096u);
  EXPECT_EQ(compare(decide(Pilot::v5, all, params(o)), t), "");
  // A changed constant in the reference's copy shows: M = 0 makes skip free of switches, and on an alternating
  // selection (one element every other block) the plan moves from compact to compact_skip.
  std::vector<uint8_t> alt(n, 0);
  for (size_t i = 0; i < n; i += 32) alt[i] = 1;
  o.d_max = 0.5;
  t = kernel_trace(Kernel::pilot_v5, alt, o);
  EXPECT_EQ(t.runs.back().strategy, Strategy::compact);
  Params q = params(o);
  q.M = 0;
  EXPECT_NE(compare(decide(Pilot::v5, alt, q), t), "");
}

}  // namespace
}  // namespace maskapply::reference
