// SPDX-License-Identifier: MIT
// Regret arithmetic on a hand-built trace over five tiny tiles, every expected number worked out by hand from
// the formulas in cost_model.h and regret.h (not from the code under test).
#include <gtest/gtest.h>

#include "regret.h"

namespace maskapply::gen {
namespace {

CostModel toy() {
  CostModel m;
  m.name = "toy";
  m.B = 1, m.D = 3, m.C = 1, m.S = 0.5, m.K = 0.25, m.M = 4, m.V = 0.125, m.Q = 0.5;
  m.T.fill(0);
  m.T[static_cast<size_t>(Fn::sqrt)] = 10;
  return m;
}

// Tiles of 32 (R = 8, G = 2): 0 calibration (all selected), 1 all selected, 2 empty, 3 one element in each
// block, 4 first block selected and second empty.
std::vector<uint8_t> selection_of_five_tiles() {
  std::vector<uint8_t> s(160, 0);
  for (size_t i = 0; i < 64; ++i) s[i] = 1;
  s[96] = s[112] = 1;
  for (size_t i = 128; i < 144; ++i) s[i] = 1;
  return s;
}

PilotOptions tiny() {
  PilotOptions o;
  o.tile = 32, o.probe = 8;
  return o;
}

TileDecision decision(size_t index, size_t begin, CountSource source) {
  TileDecision t;
  t.index = index, t.begin = begin, t.end = begin + 32, t.source = source;
  return t;
}

TEST(Regret, HandComputedTraceAgainstOracleAndBestFixedStrategy) {
  Trace tr;
  tr.tiles = {decision(0, 0, CountSource::calibration), decision(1, 32, CountSource::probe),
              decision(2, 64, CountSource::probe), decision(3, 96, CountSource::previous),
              decision(4, 128, CountSource::probe)};
  tr.runs = {{0, 32, Strategy::blend},           {32, 64, Strategy::blend_verified}, {64, 96, Strategy::blend},
             {96, 128, Strategy::detour},        {128, 144, Strategy::blend_verified},
             {144, 160, Strategy::detour}};
  const Regret g = model_regret(tr, selection_of_five_tiles(), toy(), Fn::sqrt, tiny());
  // Per tile, by hand (B + T = 11, E = 2, probe of 8 = 2 registers * 0.5 = 1):
  //   tile 1 dense:  blend 88, blend_skip 88, detour 8+16+80 = 104, detour_skip 104, compact 10+16+80 = 106,
  //                  compact_skip 106; best blend 88. Pilot: verified 8 * 11.125 = 89, + probe 1 = 90.
  //   tile 2 empty:  blend 88, blend_skip 2*4*0.5 + 1 switch * 4 = 8, detour 8, detour_skip 4+4 = 8,
  //                  compact 10, compact_skip 8; best blend_skip 8. Pilot: blend 88 + probe 1 = 89.
  //   tile 3 sparse: blend 88, blend_skip 88, detour 8+16+10*0.5 = 29, detour_skip 29, compact 10+4+5 = 19,
  //                  compact_skip 19; best compact 19. Pilot: detour 29, no probe (previous) = 29.
  //   tile 4 half:   blend 88, blend_skip 44+2+4 = 50, detour 8+16+40 = 64, detour_skip 4+2+4+16+40 = 66,
  //                  compact 10+8+40 = 58, compact_skip 5+2+4+8+40 = 59; best blend_skip 50.
  //                  Pilot: verified 4 * 11.125 = 44.5, detour over empty 16 = 4, probe 1 = 49.5.
  EXPECT_EQ(g.tiles, 4u);
  ASSERT_EQ(g.per_tile.size(), 4u);
  EXPECT_DOUBLE_EQ(g.per_tile[0].pilot, 90);
  EXPECT_DOUBLE_EQ(g.per_tile[1].pilot, 89);
  EXPECT_DOUBLE_EQ(g.per_tile[2].pilot, 29);
  EXPECT_DOUBLE_EQ(g.per_tile[3].pilot, 49.5);
  EXPECT_EQ(kOracleStrategies[g.per_tile[0].best], Strategy::blend);
  EXPECT_EQ(kOracleStrategies[g.per_tile[1].best], Strategy::blend_skip);
  EXPECT_EQ(kOracleStrategies[g.per_tile[2].best], Strategy::compact);
  EXPECT_EQ(kOracleStrategies[g.per_tile[3].best], Strategy::blend_skip);
  EXPECT_DOUBLE_EQ(g.pilot_cost, 257.5);
  EXPECT_DOUBLE_EQ(g.oracle_cost, 88 + 8 + 19 + 50);  // 165
  // Fixed: blend 352, blend_skip 234, detour 205, detour_skip 207, compact 193, compact_skip 192.
  EXPECT_DOUBLE_EQ(g.fixed_cost, 192);
  EXPECT_EQ(g.fixed_strategy, Strategy::compact_skip);
  EXPECT_DOUBLE_EQ(g.calibration_cost, 88);
  EXPECT_NEAR(g.vs_oracle, 257.5 / 165, 1e-12);  // 1.5606
  EXPECT_NEAR(g.vs_fixed, 257.5 / 192, 1e-12);   // 1.3411
  EXPECT_NEAR(g.with_calibration, 345.5 / 253, 1e-12);
}

TEST(Regret, APlainKernelIsCutIntoFixedTilesAndCostedAsTraced) {
  Trace tr;
  tr.runs = {{0, 160, Strategy::blend}};
  const Regret g = model_regret(tr, selection_of_five_tiles(), toy(), Fn::sqrt, tiny());
  // blend over 40 registers = 440; oracle 88 (tile 0, blend) + 88 + 8 + 19 + 50 = 253.
  EXPECT_EQ(g.tiles, 5u);
  EXPECT_DOUBLE_EQ(g.pilot_cost, 440);
  EXPECT_DOUBLE_EQ(g.oracle_cost, 253);
  EXPECT_NEAR(g.vs_oracle, 440.0 / 253, 1e-12);
}

TEST(Regret, RatioHandlesZeroAndNoDecidedTilesGiveNaN) {
  EXPECT_EQ(ratio(0, 0), 1.0);
  EXPECT_TRUE(std::isinf(ratio(1, 0)));
  Trace tr;
  tr.tiles = {decision(0, 0, CountSource::calibration)};
  tr.runs = {{0, 32, Strategy::blend}};
  const Regret g = model_regret(tr, std::vector<uint8_t>(32, 1), toy(), Fn::sqrt, tiny());
  EXPECT_EQ(g.tiles, 0u);
  EXPECT_TRUE(std::isnan(g.vs_oracle));
  EXPECT_DOUBLE_EQ(g.calibration_cost, 88);
}

TEST(Regret, ModelOptionsInjectTheModelsDmax) {
  const CostModel m = CostModel::m5();
  const PilotOptions o = model_options(m, Fn::pow10);
  ASSERT_TRUE(o.d_max.has_value());
  EXPECT_DOUBLE_EQ(*o.d_max, m.d_max(Fn::pow10));
  EXPECT_EQ(o.tile, 4096u);
}

}  // namespace
}  // namespace maskapply::gen
