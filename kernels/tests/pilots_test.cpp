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

// v5's data: per `period` elements, the selected ones where `sel(i)` holds (value 0.25), the rest 0.75; thd 0.5.
std::vector<float> shaped(size_t n, size_t period, bool (*sel)(size_t)) {
  std::vector<float> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = sel(i % period) ? 0.25f : 0.75f;
  return a;
}

TEST(PilotV5, TakesEachRowOfItsDecisionTable) {
  // Nothing selected: every block empty, compact_skip's estimate is the least (4S per block).
  expect_branches(Kernel::pilot_v5, uniform_data(), 0.0f, 0.5, {Strategy::compact_skip});
  // Dense for d_max 0.5 (blend above the break-even d_max): counted blend chunks; d_max <= 0: plain blend.
  expect_branches(Kernel::pilot_v5, uniform_data(), 0.9f, 0.5, {Strategy::blend_verified});
  expect_branches(Kernel::pilot_v5, uniform_data(), 0.9f, -0.5, {Strategy::blend});
  // Half dense, no empty block, expensive f (d_max 0.9): detour_skip ties detour and comes first in the table.
  expect_branches(Kernel::pilot_v5, uniform_data(), 0.5f, 0.9, {Strategy::detour_skip});
  // One empty block in four, three full: the switches make skip dear, 3 registers of 4 make compact dear.
  expect_branches(Kernel::pilot_v5, shaped(6 * 4096, 64, [](size_t i) { return i >= 16; }), 0.5f, 0.9,
                  {Strategy::detour});
  // One selected element every other block: sparse (compact) and switchy (no skip).
  expect_branches(Kernel::pilot_v5, shaped(6 * 4096, 32, [](size_t i) { return i == 0; }), 0.5f, 0.5,
                  {Strategy::compact});
  // d_max < 0 (no bail possible, blend_skip on the menu), a dense half and an empty run per 512: blend_skip on
  // the chunks whose pairs see both (a chunk whose own pair sees only the empty half may compact_skip instead).
  const auto r = expect_matches_oracle(Kernel::pilot_v5, Fn::sqrt, less(0.5f),
                                       shaped(6 * 4096, 512, [](size_t i) { return i < 256; }), fixed(-0.1));
  EXPECT_GT(decided(r.trace).count(Strategy::blend_skip), 0u);
}

TEST(PilotV5, BlendChunksThatCountBelowTheBreakEvenBail) {
  // Uniform density 0.5 with d_max 0.5: some chunks are planned blend and count just under 0.5.
  const auto r = expect_matches_oracle(Kernel::pilot_v5, Fn::sin10, less(0.5f), gen::uniform(40 * 4096, 3),
                                       fixed(0.5));
  size_t bails = 0;
  for (const TileDecision& t : r.trace.tiles) bails += t.bail != kNoBail;
  EXPECT_GT(bails, 0u);
}

TEST(PilotV5, IsNotFooledByTheArticlesCountertests) {
  // pow10 (d_max 0.962): the step's dense head and offset 390's are 6-10% of a tile; v5 never blends there.
  for (const auto& data : {gen::step(12 * 4096), gen::offset390(12 * 4096)}) {
    const auto r = expect_matches_oracle(Kernel::pilot_v5, Fn::pow10, less(1.0f), data, fixed(0.962));
    const auto s = decided(r.trace);
    EXPECT_EQ(s.count(Strategy::blend) + s.count(Strategy::blend_verified) + s.count(Strategy::blend_skip), 0u);
  }
}

TEST(PilotV5, TheSeedMovesTheProbeAndOnlyTheSeed) {
  const auto data = gen::step(12 * 4096);
  PilotOptions o = fixed(0.962);
  const auto a = expect_matches_oracle(Kernel::pilot_v5, Fn::pow10, less(1.0f), data, o);
  const auto again = expect_matches_oracle(Kernel::pilot_v5, Fn::pow10, less(1.0f), data, o);
  EXPECT_EQ(a.trace, again.trace);
  o.seed = 12345;
  const auto b = expect_matches_oracle(Kernel::pilot_v5, Fn::pow10, less(1.0f), data, o);
  bool differ = false;
  for (size_t i = 0; i < a.trace.tiles.size() && i < b.trace.tiles.size(); ++i)
    differ = differ || a.trace.tiles[i].count != b.trace.tiles[i].count;
  EXPECT_TRUE(differ) << "seeds 0 and 12345 probed the same counts on every tile of the step pattern";
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
  o = PilotOptions{};
  o.M = std::numeric_limits<double>::infinity();
  EXPECT_THROW(run_kernel(Kernel::pilot_v5, Fn::sqrt, less(1), a.data(), a.size(), ws, o), std::invalid_argument);
}

}  // namespace
}  // namespace maskapply::test
