// SPDX-License-Identifier: MIT
// The pilots' decision tables: fixed d_max values force each branch, and the trace proves the branch ran (and
// the output still equals the oracle). Plus the article's countertests as decisions, the partition of the
// trace, the timed calibration and option validation.
#include <set>

#include "article.h"
#include "test_util.h"

namespace maskapply::test {
namespace {

constexpr size_t kRegion = 4 * 2048;  // the calibration region, blended

std::multiset<Strategy> decided(const Trace& t) {
  std::multiset<Strategy> s;
  for (const maskapply::Run& r : t.runs)
    if (r.begin >= kRegion) s.insert(r.strategy);
  return s;
}

// Runs pilot k on data and asserts that the strategies after calibration are exactly `want` (as a set).
void expect_branches(Kernel k, const std::vector<float>& data, float thd, double d_max, std::set<Strategy> want,
                     Fn f = Fn::sqrt) {
  const auto r = expect_matches_oracle(k, f, less(thd), data, fixed(d_max));
  const auto got = decided(r.trace);
  const std::set<Strategy> got_set(got.begin(), got.end());
  std::string names;
  for (Strategy s : got_set) names += std::string(name(s)) + " ";
  EXPECT_EQ(got_set, want) << name(k) << " thd=" << thd << " d_max=" << d_max << " ran: " << names;
}

const std::vector<float>& uniform_data() {
  static const std::vector<float> data = gen::uniform(6 * 4096, 11);
  return data;
}

TEST(PilotV1, BlendsEverywhereWhenDmaxIsNegativeAndDetoursOtherwise) {
  expect_branches(Kernel::pilot_v1, uniform_data(), 0.5f, -0.1, {Strategy::blend});
  expect_branches(Kernel::pilot_v1, uniform_data(), 0.5f, 0.1, {Strategy::detour});
}

TEST(PilotV2, TakesEachOfItsFourBranches) {
  expect_branches(Kernel::pilot_v2, uniform_data(), 0.9f, 0.5, {Strategy::blend});
  expect_branches(Kernel::pilot_v2, uniform_data(), 0.0f, -1.0, {Strategy::blend_skip});
  expect_branches(Kernel::pilot_v2, uniform_data(), 0.3f, 0.5, {Strategy::detour});
  expect_branches(Kernel::pilot_v2, uniform_data(), 0.0f, 0.5, {Strategy::detour_skip});
}

TEST(PilotV3, TakesEachOfItsFiveBranches) {
  expect_branches(Kernel::pilot_v3, uniform_data(), 0.9f, 0.5, {Strategy::blend});
  expect_branches(Kernel::pilot_v3, uniform_data(), 0.0f, -1.0, {Strategy::blend_skip});
  expect_branches(Kernel::pilot_v3, uniform_data(), 0.3f, 0.5, {Strategy::detour});
  expect_branches(Kernel::pilot_v3, uniform_data(), 0.05f, 0.5, {Strategy::compact});
  expect_branches(Kernel::pilot_v3, uniform_data(), 0.0f, 0.5, {Strategy::compact_skip});
}

TEST(PilotV3_5, VerifiesBlendWhenHiIsNonNegativeAndFallsBackToDetourOnBail) {
  expect_branches(Kernel::pilot_v3_5, uniform_data(), 0.9f, 0.5, {Strategy::blend_verified});
  expect_branches(Kernel::pilot_v3_5, uniform_data(), 0.9f, -0.5, {Strategy::blend});
  expect_branches(Kernel::pilot_v3_5, uniform_data(), 0.05f, 0.5, {Strategy::compact});
  // The step pattern: a dense head passes the probe, the first block of 512 is 50% dense, the second empty.
  expect_branches(Kernel::pilot_v3_5, gen::step(6 * 4096), 1.0f, 0.9, {Strategy::blend_verified, Strategy::detour});
}

TEST(PilotV3_5, OffsetPatternBailsAfterTheSecondBlockOfEveryTile) {
  // The article's v3.5 countertest: 390 selected of the first 512 pass 0.75 * d_max, the second block fails.
  const auto r = expect_matches_oracle(Kernel::pilot_v3_5, Fn::pow10, less(1.0f), gen::offset390(8 * 4096),
                                       fixed(0.9));
  size_t tiles = 0;
  for (const TileDecision& t : r.trace.tiles) {
    if (t.source != CountSource::probe) continue;
    ++tiles;
    EXPECT_EQ(t.bail, t.begin + 1024) << "tile " << t.index;
  }
  EXPECT_EQ(tiles, 6u);
}

TEST(PilotV4, DistrustsTheProbeForTheNextTilesAfterABailOut) {
  const auto r = expect_matches_oracle(Kernel::pilot_v4, Fn::pow10, less(1.0f), gen::offset390(24 * 4096),
                                       fixed(0.9));
  std::vector<const TileDecision*> decided_tiles;
  for (const TileDecision& t : r.trace.tiles)
    if (t.source != CountSource::calibration) decided_tiles.push_back(&t);
  ASSERT_EQ(decided_tiles.size(), 22u);
  // Tile 0 after calibration: probed, verified blend bails at 1024, distrust set to 16.
  EXPECT_EQ(decided_tiles[0]->source, CountSource::probe);
  EXPECT_EQ(decided_tiles[0]->bail, decided_tiles[0]->begin + 1024);
  EXPECT_EQ(decided_tiles[0]->distrust, 16u);
  // The next 15 tiles decide from the previous tile's density (9.5% < lo): compact or detour, never blend.
  for (size_t i = 1; i <= 15; ++i) {
    EXPECT_EQ(decided_tiles[i]->source, CountSource::previous) << "tile " << i;
    EXPECT_EQ(decided_tiles[i]->distrust, 16u - i) << "tile " << i;
    EXPECT_EQ(decided_tiles[i]->bail, kNoBail);
  }
  // Then the probe is trusted again and fooled again.
  EXPECT_EQ(decided_tiles[16]->source, CountSource::probe);
  EXPECT_EQ(decided_tiles[16]->bail, decided_tiles[16]->begin + 1024);
  const auto strategies = decided(r.trace);
  EXPECT_EQ(strategies.count(Strategy::blend), 0u);
  EXPECT_GT(strategies.count(Strategy::compact) + strategies.count(Strategy::detour), 10u);
}

TEST(PilotV4, TakesEveryBranchOfItsTable) {
  expect_branches(Kernel::pilot_v4, uniform_data(), 0.9f, -0.5, {Strategy::blend});
  expect_branches(Kernel::pilot_v4, uniform_data(), 0.0f, -1.0, {Strategy::blend_skip});
  expect_branches(Kernel::pilot_v4, uniform_data(), 0.9f, 0.5, {Strategy::blend_verified});
  expect_branches(Kernel::pilot_v4, uniform_data(), 0.3f, 0.5, {Strategy::detour});
  expect_branches(Kernel::pilot_v4, uniform_data(), 0.05f, 0.5, {Strategy::compact});
  expect_branches(Kernel::pilot_v4, uniform_data(), 0.0f, 0.5, {Strategy::compact_skip});
}

TEST(PilotV3, IsFooledByTheStepPatternIntoBlendingEveryTile) {
  expect_branches(Kernel::pilot_v3, gen::step(6 * 4096), 1.0f, 0.9, {Strategy::blend}, Fn::pow10);
}

TEST(Pilots, TraceRunsPartitionTheArrayInOrder) {
  for (Kernel k : kPilots)
    for (size_t n : {size_t{0}, size_t{5}, size_t{2048}, size_t{8192}, size_t{8193}, size_t{5 * 4096 + 77}}) {
      const auto in = gen::offset390(n);
      const auto r = expect_matches_oracle(k, Fn::pow10, less(1.0f), in, fixed(0.9));
      size_t at = 0;
      for (const maskapply::Run& run : r.trace.runs) {
        EXPECT_EQ(run.begin, at) << name(k) << " n=" << n;
        EXPECT_LT(run.begin, run.end);
        at = run.end;
      }
      EXPECT_EQ(at, n) << name(k);
    }
}

TEST(Pilots, TimedCalibrationGivesAFiniteDmaxAndOracleResults) {
  for (Kernel k : kPilots) {
    const auto r = expect_matches_oracle(k, Fn::sin35, less(0.4f), uniform_data(), PilotOptions{});
    ASSERT_FALSE(r.trace.tiles.empty());
    EXPECT_TRUE(std::isfinite(r.trace.tiles.back().d_max)) << name(k);
  }
}

TEST(Pilots, HonourNonDefaultOptions) {
  PilotOptions o = fixed(0.6);
  o.tile = 1000, o.probe = 37, o.calib_blocks = 1, o.calib_len = 333, o.verify_blocks = 3, o.distrust = 2;
  for (Kernel k : kAllKernels)
    expect_matches_oracle(k, Fn::frfrexp, less(1.0f), gen::offset390(9 * 1000 + 13, 1000), o);
}

TEST(Pilots, RejectInvalidOptionsWithAMessage) {
  std::vector<float> a(100, 0.5f);
  Workspace ws;
  PilotOptions o;
  o.probe = 0;
  EXPECT_THROW(run_kernel(Kernel::pilot_v4, Fn::sqrt, less(1), a.data(), a.size(), ws, o), std::invalid_argument);
  o = PilotOptions{};
  o.tile = 8;
  EXPECT_THROW(run_kernel(Kernel::pilot_v2, Fn::sqrt, less(1), a.data(), a.size(), ws, o), std::invalid_argument);
  o = PilotOptions{};
  o.d_max = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(run_kernel(Kernel::pilot_v1, Fn::sqrt, less(1), a.data(), a.size(), ws, o), std::invalid_argument);
}

}  // namespace
}  // namespace maskapply::test
