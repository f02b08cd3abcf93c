// SPDX-License-Identifier: MIT
// The article's story by model regret (m5, d_max injected, so it is deterministic and runs under qemu): each
// countertest makes the pilot it was built against lose, and every run is bit-exact.
//   step (pow10):      v3 has the highest regret of v3, v3.5, v4
//   offset 390 (pow10): v3.5 loses to v4 (v3, fooled by the same dense probe, loses too, as in the article)
//   17-tile cycle (fma13): v4 has the highest regret of v3, v3.5, v4
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "article.h"
#include "evaluate.h"

namespace maskapply::gen {
namespace {

constexpr size_t kCycleTiles = 40;  // two cycle starts of the 17-tile cycle after calibration

std::map<Kernel, double> regrets_on(const ArticleCase& c) {
  const CostModel m = CostModel::m5();
  const auto input = c.data(kCycleTiles * 4096, 0);
  const auto expected = oracle_output(input, c.f, c.thd);
  std::map<Kernel, double> out;
  for (Kernel k : {Kernel::pilot_v3, Kernel::pilot_v3_5, Kernel::pilot_v4}) {
    const Evaluation e = evaluate(k, c.f, c.thd, input, expected, model_options(m, c.f), m);
    EXPECT_TRUE(e.bit_exact) << c.name << " " << name(k) << ": " << e.message;
    EXPECT_TRUE(e.regret.has_value());
    out[k] = e.regret->vs_oracle;
    std::printf("%-18s %-6s %-10s model regret %.3f (vs best fixed %s: %.3f)\n", c.name.c_str(),
                std::string(name(c.f)).c_str(), std::string(name(k)).c_str(), e.regret->vs_oracle,
                std::string(name(e.regret->fixed_strategy)).c_str(), e.regret->vs_fixed);
  }
  return out;
}

const ArticleCase& countertest(std::string_view name) {
  static const auto all = article_countertests();
  for (const ArticleCase& c : all)
    if (c.name == name) return c;
  throw std::logic_error("no such case");
}

TEST(Story, StepMakesV3TheWorst) {
  auto r = regrets_on(countertest("article/step"));
  EXPECT_GT(r[Kernel::pilot_v3], r[Kernel::pilot_v3_5]);
  EXPECT_GT(r[Kernel::pilot_v3], r[Kernel::pilot_v4]);
  EXPECT_GT(r[Kernel::pilot_v3], 3.0) << "blending a 6%-dense tile with pow10 is far from the oracle";
}

TEST(Story, Offset390MakesV3_5LoseToV4) {
  auto r = regrets_on(countertest("article/offset390"));
  EXPECT_GT(r[Kernel::pilot_v3_5], r[Kernel::pilot_v4] * 1.3);
  EXPECT_GT(r[Kernel::pilot_v3_5], 1.5);
  EXPECT_LT(r[Kernel::pilot_v4], 1.5) << "v4 remembers the bail-out";
}

TEST(Story, Cycle17WithFma13MakesV4TheWorst) {
  auto r = regrets_on(countertest("article/cycle17"));
  EXPECT_GT(r[Kernel::pilot_v4], r[Kernel::pilot_v3]);
  EXPECT_GT(r[Kernel::pilot_v4], r[Kernel::pilot_v3_5]);
  EXPECT_GT(r[Kernel::pilot_v4], 1.15) << "15 dense tiles detoured after one bail-out";
}

}  // namespace
}  // namespace maskapply::gen
