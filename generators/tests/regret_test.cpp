// SPDX-License-Identifier: MIT
// Regret arithmetic on a hand-built trace over five tiny tiles, every expected number worked out by hand from
// the formulas in cost_model.h and regret.h (not from the code under test).
#include <gtest/gtest.h>

#include "regret.h"
#include "toy_model.h"

namespace maskapply::gen {
namespace {

using testing::toy;  // toy_model.h

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
  o.tile = 32, o.probe = 8, o.calib_blocks = 1, o.calib_len = 32;
  return o;
}

TileDecision decision(size_t index, size_t begin, CountSource source) {
  TileDecision t;
  t.index = index, t.begin = begin, t.end = begin + 32, t.source = source;
  if (source == CountSource::probe) t.probed = 8;  // the probe read 8 elements
  return t;
}

TEST(Regret, HandComputedTraceAgainstBlockOracleTileOracleAndBestFixedStrategy) {
  Trace tr;
  tr.tiles = {decision(0, 0, CountSource::calibration), decision(1, 32, CountSource::probe),
              decision(2, 64, CountSource::probe), decision(3, 96, CountSource::previous),
              decision(4, 128, CountSource::probe)};
  tr.runs = {{0, 32, Strategy::blend},           {32, 64, Strategy::blend_verified}, {64, 96, Strategy::blend},
             {96, 128, Strategy::detour},        {128, 144, Strategy::blend_verified},
             {144, 160, Strategy::detour}};
  const Regret g = model_regret(tr, selection_of_five_tiles(), toy(), Fn::sqrt, tiny());
  // Per tile, by hand (B + T = 11, E = 2, a group of 16 packed lanes 4 (T + F) = 40, probe of 8 = one local block, 4 * 0.5 = 2):
  //   tile 1 dense:  blend 88, blend_skip 88, detour 8+16+2*40 = 104, detour_skip 104, compact 10+16+80 = 106,
  //                  compact_skip 106; best blend 88. Pilot: verified 8 * 11.125 = 89, + probe 2 = 91.
  //   tile 2 empty:  blend 88, blend_skip 2*4*0.5 + 1 switch * 4 = 8, detour 8, detour_skip 4+4 = 8,
  //                  compact 10, compact_skip 8; best blend_skip 8. Pilot: blend 88 + probe 2 = 90.
  //   tile 3 sparse: blend 88, blend_skip 88, detour 8+16+40 (2 selected: one group of 16) = 64, detour_skip 64,
  //                  compact 10+4+40 = 54, compact_skip 54; best compact 54. Pilot: detour 64, no probe.
  //   tile 4 half:   blend 88, blend_skip 44+2+4 = 50, detour 8+16+40 = 64, detour_skip 4+2+4+16+40 = 66,
  //                  compact 10+8+40 = 58, compact_skip 5+2+4+8+40 = 59; best blend_skip 50.
  //                  Pilot: verified 4 * 11.125 = 44.5, detour over empty 16 = 4, probe 2 = 50.5.
  // The block oracle may switch inside a tile: tile 4 is blend on its full block (44) and a detour over its
  // empty block (4C = 4): 48 < 50. Tiles 1-3 as the tile oracle: 88, 8 (detour over two empty blocks, 4 + 4),
  // 54. Decided: 198. Whole array: the calibration tile is two full blocks, blend 88: 286.
  EXPECT_TRUE(g.aligned);
  EXPECT_EQ(g.tiles, 4u);
  ASSERT_EQ(g.per_tile.size(), 4u);
  EXPECT_DOUBLE_EQ(g.per_tile[0].pilot, 91);
  EXPECT_DOUBLE_EQ(g.per_tile[1].pilot, 90);
  EXPECT_DOUBLE_EQ(g.per_tile[2].pilot, 64);
  EXPECT_DOUBLE_EQ(g.per_tile[3].pilot, 50.5);
  EXPECT_EQ(kOracleStrategies[g.per_tile[0].best], Strategy::blend);
  EXPECT_EQ(kOracleStrategies[g.per_tile[1].best], Strategy::blend_skip);
  EXPECT_EQ(kOracleStrategies[g.per_tile[2].best], Strategy::compact);
  EXPECT_EQ(kOracleStrategies[g.per_tile[3].best], Strategy::blend_skip);
  EXPECT_DOUBLE_EQ(g.per_tile[0].oracle, 88);
  EXPECT_DOUBLE_EQ(g.per_tile[1].oracle, 8);
  EXPECT_DOUBLE_EQ(g.per_tile[2].oracle, 54);
  EXPECT_DOUBLE_EQ(g.per_tile[3].oracle, 48);
  EXPECT_DOUBLE_EQ(g.pilot_cost, 295.5);
  EXPECT_DOUBLE_EQ(g.probe_cost, 6);
  EXPECT_DOUBLE_EQ(g.oracle_cost, 198);
  EXPECT_DOUBLE_EQ(g.tile_oracle_cost, 88 + 8 + 54 + 50);  // 200
  // Fixed: blend 352, blend_skip 234, detour 240, detour_skip 242, compact 228, compact_skip 227.
  EXPECT_DOUBLE_EQ(g.fixed_cost, 227);
  EXPECT_EQ(g.fixed_strategy, Strategy::compact_skip);
  EXPECT_DOUBLE_EQ(g.calibration_cost, 88);
  EXPECT_NEAR(g.vs_oracle, 295.5 / 198, 1e-12);
  EXPECT_NEAR(g.vs_tile_oracle, 295.5 / 200, 1e-12);
  EXPECT_NEAR(g.vs_fixed, 295.5 / 227, 1e-12);
  EXPECT_DOUBLE_EQ(g.whole_pilot_cost, 383.5);
  EXPECT_DOUBLE_EQ(g.whole_oracle_cost, 286);
  EXPECT_NEAR(g.whole, 383.5 / 286, 1e-12);
  // The oracle's schedule costs what it says, run by run.
  const std::vector<BlockSummary> blocks = summarize(selection_of_five_tiles());
  const BlockCosts c(blocks);
  EXPECT_NEAR(schedule_cost(c, g.oracle.runs, toy(), Fn::sqrt), 198, 1e-9);
}

TEST(BlockCosts, APeriodHintGivesTheSameSumsWhetherTheBlocksRepeatOrNot) {
  // Blocks that repeat every P blocks (P = 1 included, with and without a tail), the same with one block changed
  // (the hint is then wrong and must be ignored), and hints of 0 and past the end: every prefix sum equal to
  // the ones assign(blocks) builds block by block.
  uint64_t x = 20261203;  // the seed
  const auto rnd = [&x] { x ^= x << 13, x ^= x >> 7, x ^= x << 17; return x; };
  for (int c = 0; c < 300; ++c) {
    const size_t period = 1 + rnd() % (c % 3 ? 8 : 300), reps = 1 + rnd() % 12;
    std::vector<BlockSummary> one(period);
    for (BlockSummary& b : one) {
      const unsigned sel = rnd() % 3 ? 0 : static_cast<unsigned>(rnd() % 17);
      b.selected = static_cast<uint8_t>(sel), b.nonempty = static_cast<uint8_t>(sel ? 1 + rnd() % 4 : 0);
    }
    std::vector<BlockSummary> blocks;
    for (size_t r = 0; r < reps; ++r) blocks.insert(blocks.end(), one.begin(), one.end());
    blocks.resize(blocks.size() - rnd() % period);
    if (c % 4 == 1 && blocks.size() > 1) blocks[1 + rnd() % (blocks.size() - 1)].selected ^= 1;  // breaks it
    if (c % 5 == 2) blocks.push_back(BlockSummary{3, 1, 7});  // a tail
    const BlockCosts want(blocks);
    for (size_t hint : {period, size_t{0}, blocks.size() + 1}) {
      BlockCosts got;
      got.assign(blocks, hint);
      ASSERT_EQ(got.size(), want.size());
      const size_t full = want.size() / 16;
      for (size_t b = 0; b <= full; ++b) {
        ASSERT_EQ(got.selected_before(b), want.selected_before(b)) << "case " << c << " block " << b << " hint " << hint;
        ASSERT_EQ(got.nonempty_before(b), want.nonempty_before(b)) << "case " << c << " block " << b;
        ASSERT_EQ(got.empty_before(b), want.empty_before(b)) << "case " << c << " block " << b;
        ASSERT_EQ(got.switches_before(b), want.switches_before(b)) << "case " << c << " block " << b << " hint " << hint;
      }
    }
  }
}

TEST(Regret, APlainKernelIsCutIntoFixedTilesAndCostedAsTraced) {
  Trace tr;
  tr.runs = {{0, 160, Strategy::blend}};
  const Regret g = model_regret(tr, selection_of_five_tiles(), toy(), Fn::sqrt, tiny());
  // blend over 40 registers = 440; tile oracle 88 (tile 0, blend) + 88 + 8 + 54 + 50 = 288; block oracle 286.
  EXPECT_EQ(g.tiles, 5u);
  EXPECT_DOUBLE_EQ(g.pilot_cost, 440);
  EXPECT_DOUBLE_EQ(g.tile_oracle_cost, 288);
  EXPECT_DOUBLE_EQ(g.oracle_cost, 286);
  EXPECT_NEAR(g.vs_oracle, 440.0 / 286, 1e-12);
}

TEST(Regret, PackedFIsCostedInGroupsOf16LanesAsApplyPackedRunsIt) {
  // One selected element in a tile of 4096 with pow10 under m5: f runs on 16 lanes (4 registers), not 1/4.
  const CostModel m = CostModel::m5();
  std::vector<uint8_t> sel(4096, 0);
  sel[100] = 1;
  const double T = m.T[static_cast<size_t>(Fn::pow10)];
  const double want = 1024 * (m.C + m.K) + 1 * m.E() + 4 * (T + m.F);
  EXPECT_NEAR(strategy_cost(m, Fn::pow10, Strategy::compact, sel), want, 1e-9);
  sel[200] = 1;  // two selected: still one group
  EXPECT_NEAR(strategy_cost(m, Fn::pow10, Strategy::compact, sel), want + m.E(), 1e-9);
  for (size_t i = 300; i < 315; ++i) sel[i] = 1;  // 17 selected: two groups
  EXPECT_GT(strategy_cost(m, Fn::pow10, Strategy::compact, sel), want + 4 * T);
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
