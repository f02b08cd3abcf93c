// SPDX-License-Identifier: MIT
// Every family: its selection has the density and structure its knobs promise, it follows its seed, its
// pattern (when it has one) prints and parses back, and bad knobs are refused with a message.
#include <gtest/gtest.h>

#include <set>

#include "families.h"

namespace maskapply::gen {
namespace {

constexpr size_t kTile = 4096;
constexpr uint64_t kSeed = 424242;

Generated make(std::string_view spec, size_t n, uint64_t seed = kSeed) {
  auto g = generate(spec, n, seed);
  if (auto* e = std::get_if<std::string>(&g)) {
    ADD_FAILURE() << spec << ": " << *e;
    return {};
  }
  return std::get<Generated>(std::move(g));
}

size_t count(const std::vector<uint8_t>& s, size_t b, size_t e) {
  return static_cast<size_t>(std::count(s.begin() + b, s.begin() + e, 1));
}
double tile_density(const std::vector<uint8_t>& s, size_t t, size_t tile = kTile) {
  return static_cast<double>(count(s, t * tile, (t + 1) * tile)) / static_cast<double>(tile);
}

TEST(Families, AtLeastTwelveWithUniqueNamesAndEveryOneTestedHere) {
  const std::set<std::string> tested{"uniform",  "step",     "offset",      "cycle",       "probe_liar",
                                     "bursts",   "markov",   "ramp",        "sawtooth",    "alternating",
                                     "tile_random", "one_per_register", "one_per_tile", "all", "nothing"};
  std::set<std::string> names;
  for (const Family& f : families()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_TRUE(tested.count(f.name)) << "no test for family " << f.name;
    EXPECT_FALSE(f.claim.empty());
  }
  EXPECT_GE(names.size(), 12u);
}

TEST(Families, EveryFamilyFollowsItsSeedAndItsPatternRoundTrips) {
  for (const Family& f : families()) {
    const Generated a = make(f.name, 20000, 1), b = make(f.name, 20000, 1);
    EXPECT_EQ(a.selection, b.selection) << f.name;
    EXPECT_EQ(a.selection.size(), 20000u);
    if (a.pattern) {
      const ParseResult r = parse_pattern(to_text(*a.pattern));
      ASSERT_TRUE(r) << f.name << ": " << r.error().message() << "\n" << to_text(*a.pattern);
      EXPECT_EQ(r.pattern(), *a.pattern) << f.name;
      EXPECT_EQ(selection(r.pattern(), 20000), a.selection) << f.name;
    }
  }
}

TEST(Families, UniformHasDensityD) {
  const Generated g = make("uniform:d=0.2", 100000);
  EXPECT_NEAR(density(g.selection), 0.2, 0.01);
  EXPECT_NE(make("uniform:d=0.2", 1000, 1).selection, make("uniform:d=0.2", 1000, 2).selection);
}

TEST(Families, StepHasADenseHeadAndAnEmptyRestPerPeriod) {
  const Generated g = make("step:head=256", 4 * kTile);
  for (size_t t = 0; t < 4; ++t) {
    EXPECT_EQ(count(g.selection, t * kTile, t * kTile + 256), 256u);
    EXPECT_EQ(count(g.selection, t * kTile + 256, (t + 1) * kTile), 0u);
  }
  const Generated h = make("step:head=100,period=1000,head_density=0.5,tail_density=0.25", 1000);
  EXPECT_EQ(count(h.selection, 0, 100), 50u);
  EXPECT_EQ(count(h.selection, 100, 1000), 225u);
}

TEST(Families, OffsetSelectsTheHeadShiftedByThePhase) {
  const Generated g = make("offset", 2 * kTile);
  EXPECT_EQ(count(g.selection, 0, 390), 390u);
  EXPECT_EQ(count(g.selection, 390, kTile), 0u);
  const Generated s = make("offset:phase=100", 2 * kTile);
  EXPECT_EQ(count(s.selection, 0, 290), 290u);
  EXPECT_EQ(count(s.selection, 290, kTile - 100), 0u);
  EXPECT_EQ(count(s.selection, kTile - 100, kTile), 100u);
}

TEST(Families, CycleIsOnOffThenDenseOverKTiles) {
  const Generated g = make("cycle", 2 * 17 * kTile);
  for (size_t c = 0; c < 2; ++c) {
    const size_t b = c * 17 * kTile;
    EXPECT_EQ(count(g.selection, b, b + 512), 512u);
    EXPECT_EQ(count(g.selection, b + 512, b + 1024), 0u);
    EXPECT_EQ(count(g.selection, b + 1024, b + 17 * kTile), 17 * kTile - 1024);
  }
  const Generated h = make("cycle:tiles=3,tile=64,on=0,off=10", 192);
  EXPECT_EQ(count(h.selection, 0, 10), 0u);
  EXPECT_EQ(count(h.selection, 10, 192), 182u);
}

TEST(Families, ProbeLiarsProbeWindowSaysTheOppositeOfTheRest) {
  const Generated g = make("probe_liar", 16 * kTile);
  for (size_t t = 0; t < 16; ++t) {
    EXPECT_EQ(count(g.selection, t * kTile, t * kTile + 256), 0u) << t;
    EXPECT_NEAR(static_cast<double>(count(g.selection, t * kTile + 256, (t + 1) * kTile)) / (kTile - 256), 0.9, 0.03);
  }
  const Generated h = make("probe_liar:head=1,rest=0,probe=128", 2 * kTile);
  EXPECT_EQ(count(h.selection, 0, 128), 128u);
  EXPECT_EQ(count(h.selection, 128, kTile), 0u);
}

// Runs of equal values: (value, length) pairs.
std::vector<std::pair<uint8_t, size_t>> runs(const std::vector<uint8_t>& s) {
  std::vector<std::pair<uint8_t, size_t>> r;
  for (uint8_t x : s)
    if (!r.empty() && r.back().first == x)
      ++r.back().second;
    else
      r.push_back({x, 1});
  return r;
}

TEST(Families, BurstsAreFullRunsOfBurstLengthWithGapsOfTheMeanGap) {
  const Generated g = make("bursts:burst=48,gap=1024", 1 << 20);
  const auto r = runs(g.selection);
  double gaps = 0, ngaps = 0;
  for (size_t i = 1; i + 1 < r.size(); ++i) {
    if (r[i].first)
      EXPECT_EQ(r[i].second % 48, 0u) << "a burst (adjacent bursts merge into multiples)";
    else
      gaps += static_cast<double>(r[i].second), ++ngaps;
  }
  ASSERT_GT(ngaps, 100);
  EXPECT_NEAR(gaps / ngaps, 1024, 150);
}

TEST(Families, MarkovRunsHaveTheMeanLengths) {
  const Generated g = make("markov:on=24,off=200", 1 << 20);
  const auto r = runs(g.selection);
  double on = 0, off = 0, non = 0, noff = 0;
  for (size_t i = 1; i + 1 < r.size(); ++i) (r[i].first ? on : off) += double(r[i].second), ++(r[i].first ? non : noff);
  EXPECT_NEAR(on / non, 24, 3);
  EXPECT_NEAR(off / noff, 200, 20);
}

TEST(Families, RampRisesAndFallsAcrossTiles) {
  const Generated g = make("ramp:tiles=8,tile=1024", 8 * 1024);
  const double want[] = {0, 0.25, 0.5, 0.75, 1, 0.75, 0.5, 0.25};
  for (size_t t = 0; t < 8; ++t) EXPECT_NEAR(tile_density(g.selection, t, 1024), want[t], 0.06) << t;
}

TEST(Families, SawtoothRisesThenDrops) {
  const Generated g = make("sawtooth:tiles=5,tile=1024,from=0.2,to=0.6", 10 * 1024);
  for (size_t t = 0; t < 10; ++t) EXPECT_NEAR(tile_density(g.selection, t, 1024), 0.2 + 0.1 * (t % 5), 0.05) << t;
}

TEST(Families, AlternatingTilesAtSeveralPeriods) {
  for (size_t period : {1, 2, 5}) {
    const Generated g = make("alternating:period=" + std::to_string(period), 20 * kTile);
    for (size_t t = 0; t < 20; ++t)
      EXPECT_EQ(tile_density(g.selection, t), (t / period) % 2 == 0 ? 1.0 : 0.0) << period << " " << t;
  }
  const Generated h = make("alternating:dense=0.5", 2 * kTile);
  EXPECT_EQ(tile_density(h.selection, 0), 0.5);
}

TEST(Families, TileRandomDrawsEachTilesDensityInLoHi) {
  const Generated g = make("tile_random:lo=0.2,hi=0.4", 64 * kTile);
  double lo = 1, hi = 0;
  for (size_t t = 0; t < 64; ++t) {
    const double d = tile_density(g.selection, t);
    EXPECT_GT(d, 0.17) << t;
    EXPECT_LT(d, 0.43) << t;
    lo = std::min(lo, d), hi = std::max(hi, d);
  }
  EXPECT_GT(hi - lo, 0.1) << "densities should vary across tiles";
}

TEST(Families, OnePerRegisterSelectsExactlyOneLaneOfEveryFour) {
  for (const char* spec : {"one_per_register", "one_per_register:lane=2"}) {
    const Generated g = make(spec, 4000);
    std::set<size_t> lanes;
    for (size_t r = 0; r < 1000; ++r) {
      ASSERT_EQ(count(g.selection, 4 * r, 4 * r + 4), 1u) << spec << " register " << r;
      for (size_t l = 0; l < 4; ++l)
        if (g.selection[4 * r + l]) lanes.insert(l);
    }
    EXPECT_EQ(lanes.size(), std::string(spec).find("lane=") == std::string::npos ? 4u : 1u) << spec;
  }
}

TEST(Families, OnePerTileSelectsExactlyOneElementPerTile) {
  for (const char* spec : {"one_per_tile", "one_per_tile:position=4095", "one_per_tile:position=0,tile=100"}) {
    const Generated g = make(spec, 20 * kTile);
    const size_t tile = std::string(spec).find("tile=100") != std::string::npos ? 100 : kTile;
    for (size_t t = 0; t < 20; ++t) EXPECT_EQ(count(g.selection, t * tile, (t + 1) * tile), 1u) << spec << " " << t;
  }
  EXPECT_EQ(make("one_per_tile:position=4095", kTile).selection[4095], 1);
}

TEST(Families, AllAndNothing) {
  EXPECT_EQ(density(make("all", 1000).selection), 1.0);
  EXPECT_EQ(density(make("nothing", 1000).selection), 0.0);
}

TEST(Families, BadSpecsAreRefusedWithAMessage) {
  for (const char* bad : {"nosuch", "step:nosuch=1", "step:head", "step:head=abc", "step:head=1.5", "uniform:d=2",
                          "uniform:d=nan", "all:x=1", "step:head=0"}) {
    const auto g = generate(bad, 100, 1);
    ASSERT_TRUE(std::holds_alternative<std::string>(g)) << bad;
    EXPECT_FALSE(std::get<std::string>(g).empty());
  }
  const auto spec = std::get<FamilySpec>(parse_family_spec("step:head=300,period=5000"));
  EXPECT_EQ(spec.text(), "step:head=300,period=5000");
}

}  // namespace
}  // namespace maskapply::gen
