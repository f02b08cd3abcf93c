// SPDX-License-Identifier: MIT
// The m5 cost model against every table of the article that has numbers (GiB/s on Apple M5, n = 1e7 + 2432).
// Each cell is modelled as the article ran it: BSL and tiled detour by their formulas over the whole array;
// a pilot by running it here (injected d_max = m5.d_max(f), the article's options) on the same kind of data at
// n = 8192 + 64 * 4096, costing its calibration and its traced runs and probes under the model, the decided
// tiles' mean cost scaled to the article's 2440 tiles (the article's times include its calibration too).
// Every cell is one of three kinds, printed beside it:
//   fitted     its number was used to fit a constant (cost_model.cpp, m5()): left out;
//   restated   it measures again what a fitted cell measured, so agreeing with it tests nothing new: a BSL
//              cell of another table (T), nothing selected (detour: compress only, C; a pilot: every block
//              skipped, S, or v1's empty detour, C), or a pilot that ran blend (or a verified blend that never
//              bailed) on every decided tile (BSL's T + B): left out;
//   independent  every other cell: the statistic.
// Asserted per table: the median and the worst independent cell below ceilings (README, docs/generators.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "article.h"
#include "evaluate.h"
#include "regret.h"

namespace maskapply::gen {
namespace {

enum class Data { uniform, offset390, cycle17 };
enum class Who { bsl, detour, v1, v2, v3, v3_5, v4 };

struct Cell {
  const char* table;
  Who who;
  Fn f;
  Data data;
  double thd;
  double article;  // GiB/s
  const char* fitted = nullptr;  // which constant this cell fits, or null
};

// What a cell's model figure is: its GiB/s, and which fitted quantity it restates (null: independent).
struct Modelled {
  double gib = 0;
  const char* restates = nullptr;
};

const char* who_name(Who w) {
  static const char* names[] = {"BSL", "tiled detour", "pilot_v1", "pilot_v2", "pilot_v3", "pilot_v3.5", "pilot_v4"};
  return names[static_cast<int>(w)];
}

std::vector<Cell> cells() {
  std::vector<Cell> c;
  const auto row = [&](const char* table, Who w, Fn f, Data d, const std::vector<double>& thd,
                       const std::vector<double>& v) {
    for (size_t i = 0; i < v.size(); ++i) c.push_back({table, w, f, d, thd[i], v[i]});
  };
  const std::vector<double> t11{0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1};
  const std::vector<double> t4{0, .3, .6, 1};
  const std::vector<double> tv3{0, .02, .04, .06, .08, .1, .12, .14, .16, .18, .2};
  const std::vector<double> t12{0, .05, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1};
  const std::vector<double> t2{0, 1};
  const Data U = Data::uniform;
  // 1. The first table: detour, and BSL "sqrt 32.1, sin35 9.7, pow10 1.02".
  row("first", Who::detour, Fn::sqrt, U, t11, {38.03, 18.81, 17.78, 16.82, 15.98, 15.21, 14.51, 13.85, 13.24, 12.71, 12.30});
  row("first", Who::detour, Fn::sin35, U, t11, {38.16, 16.70, 14.46, 12.71, 11.36, 10.25, 9.35, 8.59, 7.95, 7.39, 6.95});
  row("first", Who::detour, Fn::pow10, U, t11, {38.09, 6.83, 4.13, 2.96, 2.31, 1.89, 1.60, 1.39, 1.22, 1.10, 0.99});
  row("first", Who::bsl, Fn::sqrt, U, {.5}, {32.1});
  row("first", Who::bsl, Fn::sin35, U, {.5}, {9.7});
  row("first", Who::bsl, Fn::pow10, U, {.5}, {1.02});
  // 2. pilot v1.
  row("v1", Who::detour, Fn::sqrt, U, t4, {38.37, 16.89, 14.54, 12.29});
  row("v1", Who::v1, Fn::sqrt, U, t4, {32.19, 32.18, 32.18, 32.21});
  row("v1", Who::bsl, Fn::sqrt, U, t4, {32.24, 32.24, 32.18, 32.25});
  row("v1", Who::detour, Fn::sin35, U, t4, {38.26, 12.72, 9.25, 6.87});
  row("v1", Who::v1, Fn::sin35, U, t4, {38.16, 12.71, 9.36, 6.86});
  row("v1", Who::bsl, Fn::sin35, U, t4, {9.75, 9.75, 9.75, 9.75});
  // 3. pilot v2 (thd sweep).
  row("v2", Who::v1, Fn::sin35, U, t11, {38.25, 16.72, 14.48, 12.77, 11.41, 10.33, 9.40, 8.62, 7.93, 7.36, 6.91});
  row("v2", Who::v2, Fn::sin35, U, t11, {77.29, 16.55, 14.34, 12.65, 11.33, 10.14, 9.71, 9.73, 9.74, 9.73, 9.73});
  row("v2", Who::bsl, Fn::sin35, U, t11, {9.78, 9.77, 9.77, 9.76, 9.76, 9.78, 9.78, 9.77, 9.78, 9.77, 9.78});
  row("v2", Who::v1, Fn::sin10, U, t11, {38.28, 14.30, 11.18, 9.18, 7.75, 6.73, 5.94, 5.31, 4.78, 4.36, 4.02});
  row("v2", Who::v2, Fn::sin10, U, t11, {76.60, 14.16, 11.09, 9.11, 7.73, 6.70, 5.92, 5.31, 4.82, 4.84, 4.84});
  row("v2", Who::bsl, Fn::sin10, U, t11, {4.85, 4.85, 4.84, 4.85, 4.84, 4.84, 4.85, 4.85, 4.85, 4.85, 4.85});
  // 4. pilot v3 (low thd sweep).
  row("v3", Who::v2, Fn::sin35, U, tv3, {77.29, 18.67, 18.40, 17.70, 17.18, 16.66, 16.15, 15.68, 15.24, 14.82, 14.43});
  row("v3", Who::v3, Fn::sin35, U, tv3, {77.26, 23.71, 22.19, 20.48, 19.03, 17.82, 16.73, 15.76, 15.16, 14.74, 14.38});
  row("v3", Who::v2, Fn::pow10, U, tv3, {72.88, 13.93, 11.32, 9.38, 8.00, 6.97, 6.18, 5.54, 5.02, 4.59, 4.24});
  row("v3", Who::v3, Fn::pow10, U, tv3, {73.71, 16.54, 12.63, 10.07, 8.39, 7.17, 6.26, 5.55, 5.02, 4.59, 4.24});
  // 5. The offset-390 countertest (pow10; at thd 1 the density is 390 / 4096).
  const Data O = Data::offset390;
  row("offset390", Who::detour, Fn::pow10, O, t2, {38.18, 6.94});
  row("offset390", Who::v3, Fn::pow10, O, t2, {68.11, 1.04});
  row("offset390", Who::v3_5, Fn::pow10, O, t2, {68.67, 3.84});
  row("offset390", Who::v4, Fn::pow10, O, t2, {69.51, 7.05});
  row("offset390", Who::bsl, Fn::pow10, O, t2, {1.04, 1.04});
  // 6. The summary: v4 against BSL.
  row("summary", Who::v4, Fn::sqrt, U, t12, {69.81, 31.99, 31.84, 31.73, 31.83, 32.07, 31.98, 31.96, 31.96, 31.89, 31.91, 31.77});
  row("summary", Who::bsl, Fn::sqrt, U, t12, {31.88, 31.93, 31.95, 31.80, 31.89, 31.99, 32.06, 31.92, 31.98, 31.75, 31.93, 31.91});
  row("summary", Who::v4, Fn::frfrexp, U, t12, {69.41, 17.21, 16.57, 15.79, 15.99, 16.06, 15.93, 15.99, 16.39, 15.84, 15.87, 15.80});
  row("summary", Who::bsl, Fn::frfrexp, U, t12, {16.79, 16.87, 16.82, 16.71, 16.78, 16.88, 16.89, 16.83, 16.89, 16.79, 16.75, 16.75});
  row("summary", Who::v4, Fn::sin10, U, t12, {68.19, 18.82, 14.84, 10.84, 8.93, 7.55, 6.56, 5.81, 5.19, 4.69, 4.68, 4.68});
  row("summary", Who::bsl, Fn::sin10, U, t12, {4.78, 4.75, 4.78, 4.72, 4.75, 4.74, 4.75, 4.77, 4.75, 4.76, 4.77, 4.77});
  row("summary", Who::v4, Fn::pow10, U, t12, {64.17, 10.76, 6.85, 4.04, 2.89, 2.25, 1.85, 1.57, 1.36, 1.20, 1.08, 1.00});
  row("summary", Who::bsl, Fn::pow10, U, t12, {1.02, 1.02, 1.02, 1.01, 1.01, 1.01, 1.02, 1.02, 1.02, 1.02, 1.02, 1.01});
  // 7. The 17-tile cycle countertest (fma13).
  const Data Y = Data::cycle17;
  row("cycle17", Who::detour, Fn::fma13, Y, t2, {38.29, 9.44});
  row("cycle17", Who::v3, Fn::fma13, Y, t2, {74.72, 15.81});
  row("cycle17", Who::v3_5, Fn::fma13, Y, t2, {74.84, 15.04});
  row("cycle17", Who::v4, Fn::fma13, Y, t2, {74.89, 9.84});
  row("cycle17", Who::bsl, Fn::fma13, Y, t2, {15.61, 15.60});
  // The fitted cells (cost_model.cpp, m5()): the first table's BSL cells (T = t_bsl - B per f; the other BSL
  // cells restate them), detour at thd 0 in the first table (C), pilot_v2 sin35 at thd 0 (S), and both sides of
  // K's fit: pilot_v2 (detour) and pilot_v3 (compact), sin35 and pow10, at thd 0.02.
  for (Cell& x : c) {
    const std::string_view t(x.table);
    if (t == "first" && x.who == Who::bsl) x.fitted = "T";
    if (t == "first" && x.who == Who::detour && x.thd == 0) x.fitted = "C";
    if (t == "v2" && x.who == Who::v2 && x.f == Fn::sin35 && x.thd == 0) x.fitted = "S";
    if (t == "v3" && (x.who == Who::v3 || x.who == Who::v2) && x.thd == 0.02) x.fitted = "K";
  }
  return c;
}

constexpr size_t kTiles = 64, kArticleTiles = 2440;  // n = 8192 + 2440 * 4096 = 1e7 + 2432

std::vector<float> data_of(Data d, size_t n) {
  switch (d) {
    case Data::uniform: return uniform(n, 1);
    case Data::offset390: return offset390(n);
    case Data::cycle17: return cycle17(n);
  }
  return {};
}

// The model's GiB/s for a cell, and what it restates.
Modelled model_gib(const CostModel& m, const Cell& c) {
  const size_t n = 8192 + kTiles * 4096;
  const std::vector<float> a = data_of(c.data, n);
  const float thd = static_cast<float>(c.thd);
  std::vector<uint8_t> sel(n);
  for (size_t i = 0; i < n; ++i) sel[i] = a[i] < thd;
  const double regs = static_cast<double>(8192 + kArticleTiles * 4096) / 4;
  const bool none = std::find(sel.begin(), sel.end(), 1) == sel.end();
  if (c.who == Who::bsl) return {gib_per_s(m.t_bsl(c.f)), "BSL (T)"};
  if (c.who == Who::detour) {  // tiled detour over every tile of 4096
    double ns = 0;
    for (size_t t = 0; t < n / 4096; ++t)
      ns += strategy_cost(m, c.f, Strategy::detour, std::span<const uint8_t>(sel).subspan(t * 4096, 4096));
    return {gib_per_s(ns / (static_cast<double>(n) / 4)), none ? "empty detour (C)" : nullptr};
  }
  static const std::map<Who, Kernel> kernel{{Who::v1, Kernel::pilot_v1}, {Who::v2, Kernel::pilot_v2},
                                            {Who::v3, Kernel::pilot_v3}, {Who::v3_5, Kernel::pilot_v3_5},
                                            {Who::v4, Kernel::pilot_v4}};
  const PilotOptions o = model_options(m, c.f);
  Workspace ws(o.tile);
  Trace tr;
  std::vector<float> copy = a;
  run_kernel(kernel.at(c.who), c.f, MaskSpec{MaskKind::less, thd, 0, 0}, copy.data(), n, ws, o, &tr);
  const Regret g = model_regret(tr, sel, m, c.f, o);
  const double ns = g.calibration_cost + g.pilot_cost / static_cast<double>(g.tiles) * kArticleTiles;
  const size_t decided = o.calib_blocks * o.calib_len;
  bool all_blend = true;
  for (const Run& r : tr.runs)
    if (r.end > decided && r.strategy != Strategy::blend && r.strategy != Strategy::blend_verified) all_blend = false;
  const char* restates = none ? (c.who == Who::v1 ? "empty detour (C)" : "all skipped (S)")
                         : all_blend ? "blend everywhere (BSL's T + B)"
                                     : nullptr;
  return {gib_per_s(ns / regs), restates};
}

// Ceilings per table on the independent cells: median and worst error (README and docs/generators.md give the
// values this test prints). A change of the model or the pilots that moves a table past its ceiling fails here.
struct Ceiling {
  const char* table;
  double median, worst;
};
constexpr Ceiling kCeilings[] = {{"first", 0.030, 0.21}, {"v1", 0.040, 0.21},        {"v2", 0.030, 0.09},
                                 {"v3", 0.070, 0.12},    {"offset390", 0.030, 0.05}, {"summary", 0.015, 0.25},
                                 {"cycle17", 0.060, 0.12}};
constexpr double kAllMedian = 0.040;

TEST(ArticleTables, M5ModelsEveryIndependentCellOfEachTableWithinItsMedianAndWorstCeilings) {
  const CostModel m = CostModel::m5();
  std::map<std::string, std::vector<double>> by_table;
  std::map<std::string, size_t> restated_by_table, fitted_by_table;
  std::vector<double> all;
  double worst = 0;
  std::string worst_cell;
  std::map<std::string, std::pair<double, std::string>> worst_by_table;
  size_t fitted = 0, restated = 0, above8 = 0;
  std::printf("%-10s %-13s %-8s %5s %9s %9s %7s  %s\n", "table", "row", "f", "thd", "article", "model", "error", "kind");
  for (const Cell& c : cells()) {
    const Modelled got = model_gib(m, c);
    const double err = std::fabs(got.gib - c.article) / c.article;
    char line[240];
    std::snprintf(line, sizeof line, "%-10s %-13s %-8s %5.2f %9.2f %9.2f %6.1f%%  %s%s", c.table, who_name(c.who),
                  std::string(name(c.f)).c_str(), c.thd, c.article, got.gib, 100 * err,
                  c.fitted ? "fitted: " : got.restates ? "restated: " : "independent",
                  c.fitted ? c.fitted : got.restates ? got.restates : "");
    std::printf("%s\n", line);
    if (c.fitted) {
      ++fitted, ++fitted_by_table[c.table];
      continue;
    }
    if (got.restates) {
      ++restated, ++restated_by_table[c.table];
      continue;
    }
    all.push_back(err);
    above8 += err > 0.08;
    by_table[c.table].push_back(err);
    if (err > worst_by_table[c.table].first) worst_by_table[c.table] = {err, line};
    if (err > worst) worst = err, worst_cell = line;
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  std::printf("\nper table (independent cells): median / worst (ceilings)\n");
  for (const Ceiling& k : kCeilings) {
    const std::vector<double>& v = by_table[k.table];
    ASSERT_FALSE(v.empty()) << k.table;
    const double med = median(v), w = worst_by_table[k.table].first;
    std::printf("  %-10s %3zu independent, %2zu restated, %2zu fitted: median %5.1f%% (<= %.1f%%), worst %5.1f%% "
                "(<= %.1f%%): %s\n",
                k.table, v.size(), restated_by_table[k.table], fitted_by_table[k.table], 100 * med, 100 * k.median,
                100 * w, 100 * k.worst, worst_by_table[k.table].second.c_str());
    EXPECT_LE(med, k.median) << k.table;
    EXPECT_LE(w, k.worst) << k.table << ": " << worst_by_table[k.table].second;
  }
  EXPECT_EQ(by_table.size(), std::size(kCeilings)) << "a table without a ceiling";
  const double med = median(all);
  std::printf("all: %zu independent cells (%zu restated, %zu fitted left out): median %.1f%% (<= %.1f%%), %zu above "
              "8%%, worst %.1f%%: %s\n",
              all.size(), restated, fitted, 100 * med, 100 * kAllMedian, above8, 100 * worst, worst_cell.c_str());
  EXPECT_LE(med, kAllMedian);
}

}  // namespace
}  // namespace maskapply::gen
