// SPDX-License-Identifier: MIT
// The cost model: its formulas on a hand-computed span, and the m5 constants against the article's first table
// (detour sqrt / sin35 / pow10 at thd 0..1, and BSL constant).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "article.h"
#include "cost_model.h"
#include "toy_model.h"

namespace maskapply::gen {
namespace {

using testing::toy;  // toy_model.h

std::vector<uint8_t> bits(std::string_view s) {
  std::vector<uint8_t> v;
  for (char c : s)
    if (c == '0' || c == '1') v.push_back(c == '1');
  return v;
}

TEST(CostModel, SpanStatsCountRegistersBlocksSwitchesAndTail) {
  // block 0: registers 1000 0000 1100 0000; block 1 empty; tail 1000.
  const auto sel = bits("1000 0000 1100 0000  0000 0000 0000 0000  1000");
  const SpanStats st = span_stats(sel);
  EXPECT_EQ(st.len, 36u);
  EXPECT_EQ(st.body, 32u);
  EXPECT_EQ(st.registers, 8u);
  EXPECT_EQ(st.blocks, 2u);
  EXPECT_EQ(st.empty_blocks, 1u);
  EXPECT_EQ(st.nonempty_registers, 2u);
  EXPECT_EQ(st.selected, 3u);
  EXPECT_EQ(st.tail, 4u);
  EXPECT_EQ(st.tail_selected, 1u);
  EXPECT_EQ(st.switches, 1u);  // non-empty (as assumed before the span), then empty
}

TEST(CostModel, StrategyCostsOnAHandComputedSpan) {
  // R = 8, G = 2, Ge = 1, Rn = 2, P = 3, X = 1, tail = 4 (B + T) = 44; B + T = 11, E = 2.
  const auto sel = bits("1000 0000 1100 0000  0000 0000 0000 0000  1000");
  const CostModel m = toy();
  const auto cost = [&](Strategy s) { return strategy_cost(m, Fn::sqrt, s, sel); };
  EXPECT_DOUBLE_EQ(cost(Strategy::blend), 8 * 11 + 44.0);                                  // 132
  EXPECT_DOUBLE_EQ(cost(Strategy::blend_skip), 1 * 4 * 11 + 1 * 4 * 0.5 + 1 * 4 + 44.0);   // 94
  EXPECT_DOUBLE_EQ(cost(Strategy::blend_verified), 8 * 11.125 + 44.0);                     // 133
  // pilot_v6's verified blend_skip: blend_skip's terms, the count (V) on the non-empty block only.
  EXPECT_DOUBLE_EQ(cost(Strategy::blend_skip_verified), 1 * 4 * 11.125 + 1 * 4 * 0.5 + 1 * 4 + 44.0);  // 94.5
  // f runs on whole groups of 16 packed lanes: P = 3 is one group, 4 registers * (T + F) = 40.
  EXPECT_DOUBLE_EQ(cost(Strategy::detour), 8 * 1 + 8 * 2 + 40 + 44.0);                     // 108
  EXPECT_DOUBLE_EQ(cost(Strategy::detour_skip), 4 * 1 + 4 * 0.5 + 4 + 16 + 40 + 44.0);     // 110
  EXPECT_DOUBLE_EQ(cost(Strategy::compact), 8 * 1.25 + 2 * 2 + 40 + 44.0);                 // 98
  EXPECT_DOUBLE_EQ(cost(Strategy::compact_skip), 4 * 1.25 + 2 + 4 + 2 * 2 + 40 + 44.0);    // 99
  EXPECT_DOUBLE_EQ(probe_cost(m, 6), 4 * 0.5);  // a short probe is one local block, as density() runs it
  EXPECT_DOUBLE_EQ(probe_cost(m, 32), 8 * 0.5);
  EXPECT_DOUBLE_EQ(probe_cost(m, 33), 12 * 0.5);
  // An empty span: detour skips expand and f entirely.
  EXPECT_DOUBLE_EQ(strategy_cost(m, Fn::sqrt, Strategy::detour, std::vector<uint8_t>(32, 0)), 8.0);
}

TEST(CostModel, M5DerivesTFromTheArticlesBslThroughputs) {
  const CostModel m = CostModel::m5();
  // t_bsl = 16 B / (GiB/s): sqrt 32.1 GiB/s -> 16 / (32.1 * 1.073741824) = 0.46421 ns; T = 0.16421.
  EXPECT_NEAR(m.T[static_cast<size_t>(Fn::sqrt)], 0.16421, 1e-4);
  EXPECT_NEAR(m.T[static_cast<size_t>(Fn::pow10)], 16 / (1.02 * 1.073741824) - 0.3, 1e-9);
  // d_max = 1 - (D - B) / T: pow10 0.96188, fma13 0.16810, sqrt < 0 (BSL always).
  EXPECT_NEAR(m.d_max(Fn::pow10), 0.96188, 1e-4);
  EXPECT_NEAR(m.d_max(Fn::fma13), 0.16810, 1e-4);
  EXPECT_LT(m.d_max(Fn::sqrt), 0);
  auto back = CostModel::from_json(m.to_json());
  ASSERT_TRUE(std::holds_alternative<CostModel>(back)) << std::get<std::string>(back);
  EXPECT_EQ(std::get<CostModel>(back).T, m.T);
  EXPECT_TRUE(std::holds_alternative<std::string>(CostModel::from_json("{\"B\": 1}")));
  EXPECT_TRUE(std::holds_alternative<std::string>(CostModel::from_json("not json")));
}

// The article's first table (GiB/s, Apple M5): detour at thd = 0, 0.1, ..., 1; BSL is constant.
struct Row {
  Fn f;
  double bsl;
  double detour[11];
};
constexpr Row kArticle[] = {
    {Fn::sqrt, 32.1, {38.03, 18.81, 17.78, 16.82, 15.98, 15.21, 14.51, 13.85, 13.24, 12.71, 12.30}},
    {Fn::sin35, 9.7, {38.16, 16.70, 14.46, 12.71, 11.36, 10.25, 9.35, 8.59, 7.95, 7.39, 6.95}},
    {Fn::pow10, 1.02, {38.09, 6.83, 4.13, 2.96, 2.31, 1.89, 1.60, 1.39, 1.22, 1.10, 0.99}},
};

// The model's GiB/s for strategy s over uniform data at thd, per tile of 4096 as tiled_detour runs it.
double model_gib(const CostModel& m, Fn f, Strategy s, float thd) {
  const size_t tile = 4096, tiles = 16;
  const auto a = uniform(tile * tiles, 5);
  std::vector<uint8_t> sel(a.size());
  for (size_t i = 0; i < a.size(); ++i) sel[i] = a[i] < thd;
  double ns = 0;
  for (size_t t = 0; t < tiles; ++t)
    ns += strategy_cost(m, f, s, std::span<const uint8_t>(sel).subspan(t * tile, tile));
  return gib_per_s(ns / static_cast<double>(tile * tiles / 4));
}

TEST(CostModel, M5ReproducesTheArticlesDetourAndBslTableWithin15PercentMedian) {
  const CostModel m = CostModel::m5();
  std::vector<double> errors, detour_errors;
  double worst = 0;
  std::string worst_cell;
  for (const Row& row : kArticle) {
    for (int k = 0; k <= 10; ++k) {
      const float thd = static_cast<float>(k) / 10.0f;
      const double detour = model_gib(m, row.f, Strategy::detour, thd);
      const double bsl = model_gib(m, row.f, Strategy::blend, thd);
      for (const auto& [got, want, what] :
           {std::tuple{detour, row.detour[k], "detour"}, std::tuple{bsl, row.bsl, "BSL"}}) {
        const double err = std::fabs(got - want) / want;
        errors.push_back(err);
        if (std::string_view(what) == "detour") detour_errors.push_back(err);
        if (err > worst) {
          worst = err;
          worst_cell = std::string(what) + " " + std::string(name(row.f)) + " thd=" + std::to_string(thd).substr(0, 3) +
                       ": model " + std::to_string(got) + " GiB/s, article " + std::to_string(want);
        }
      }
    }
  }
  std::sort(errors.begin(), errors.end());
  std::sort(detour_errors.begin(), detour_errors.end());
  const double median = errors[errors.size() / 2], detour_median = detour_errors[detour_errors.size() / 2];
  std::printf("model vs article: %zu cells, median error %.1f%% (detour cells alone %.1f%%), worst %.1f%% (%s)\n",
              errors.size(), 100 * median, 100 * detour_median, 100 * worst, worst_cell.c_str());
  EXPECT_LE(median, 0.15);
  EXPECT_LE(detour_median, 0.15);
  EXPECT_LE(worst, 0.25) << worst_cell;
}

}  // namespace
}  // namespace maskapply::gen
