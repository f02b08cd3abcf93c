// SPDX-License-Identifier: MIT
// The minimizer (minimize.h) on kernels broken on purpose, written here: a tail bug is reported at n < 16 and
// a wrong lane code for one register mask at one or two blocks, whatever n the failing case was drawn at.
#include <gtest/gtest.h>

#include "minimize.h"
#include "plugin.h"

namespace maskapply::testing {
namespace {

const MaskSpec kLess{MaskKind::less, 0.5f, 0, 0};

// Blocks of 16, then a tail whose last element is never processed (an off-by-one in the tail loop): wrong only
// when n % 16 != 0 and the last element is selected.
void tail_off_by_one(float* a, size_t n) {
  const size_t body = n / 16 * 16;
  const size_t end = body < n ? n - 1 : n;
  for (size_t i = 0; i < end; ++i)
    if (a[i] < 0.5f) a[i] = std::sqrt(a[i]);
}

// Registers of four, each through a lane-code table with one wrong entry: lane mask 0b1011 (lanes 0, 1, 3
// selected) applies f to lanes 0 and 1 only. The scalar tail is right.
void wrong_table_entry(float* a, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    unsigned m = 0;
    for (unsigned j = 0; j < 4; ++j) m |= (a[i + j] < 0.5f ? 1u : 0u) << j;
    const unsigned applied = m == 0b1011 ? 0b0011 : m;
    for (unsigned j = 0; j < 4; ++j)
      if (applied >> j & 1u) a[i + j] = std::sqrt(a[i + j]);
  }
  for (; i < n; ++i)
    if (a[i] < 0.5f) a[i] = std::sqrt(a[i]);
}

Failure failure_of(void (*kernel)(float*, size_t)) {
  return [kernel](const Case& c) {
    const CheckResult r = check(subject("planted", kernel), reference(c.f, c.mask), c.data, c.options, c.misalign);
    return r.ok ? std::string() : r.message;
  };
}

Case drawn(size_t n, uint64_t seed) {
  Case c;
  c.kernel = Kernel::blend, c.f = Fn::sqrt, c.mask = kLess, c.misalign = 5;
  c.data = seeded_data([](float x) { return x < 0.5f; }, n, seed, 0.5);
  return c;
}

TEST(Minimize, reportsATailBugAtFewerThan16Elements) {
  size_t seen = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Case c = drawn(861 + 16 * (seed % 5), seed);
    const Failure fails = failure_of(tail_off_by_one);
    if (fails(c).empty()) continue;  // the last element unselected: nothing to minimize
    ++seen;
    const Minimized m = minimize(c, fails);
    EXPECT_LT(m.c.data.size(), 16u) << "seed " << seed << ": " << m.summary();
    EXPECT_FALSE(fails(m.c).empty()) << "the minimal case still fails";
    EXPECT_EQ(m.why, fails(m.c));
    EXPECT_NE(m.why.find(" n=" + std::to_string(m.c.data.size()) + " "), std::string::npos) << m.why;
  }
  EXPECT_GT(seen, 5u);
}

TEST(Minimize, reportsAWrongLaneCodeAtOneOrTwoBlocks) {
  size_t seen = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Case c = drawn(1152, seed);
    const Failure fails = failure_of(wrong_table_entry);
    if (fails(c).empty()) continue;
    ++seen;
    const Minimized m = minimize(c, fails);
    EXPECT_LE(m.c.data.size(), 32u) << "seed " << seed << ": " << m.summary();
    EXPECT_FALSE(fails(m.c).empty());
  }
  EXPECT_GT(seen, 15u);
}

TEST(Minimize, shrinksTheTileAndTheContentsAndIsDeterministic) {
  // A kernel wrong only when the tile is at most 64 and n is over 100: the tile goes down to 16, n to 101.
  const Failure fails = [](const Case& c) {
    return c.options.tile <= 64 && c.data.size() > 100 ? std::string("wrong") : std::string();
  };
  Case c = drawn(700, 3);
  c.options.tile = 64, c.options.probe = 64;
  const Minimized m = minimize(c, fails);
  EXPECT_EQ(m.c.data.size(), 101u);
  EXPECT_EQ(m.c.options.tile, 16u);
  EXPECT_EQ(m.c.options.probe, 16u);
  EXPECT_EQ(m.c.misalign, 0u);
  for (const float x : m.c.data) EXPECT_TRUE(x == 0.0f || x == 0.5f) << x;  // the simplest selected / unselected
  const Minimized again = minimize(c, fails);
  EXPECT_EQ(to_text(again.c), to_text(m.c));
  EXPECT_EQ(m.summary().rfind("minimized from n=700 tile=64 to n=101 tile=16 in ", 0), 0u) << m.summary();
}

TEST(Minimize, aPassingCaseComesBackUnchanged) {
  const Case c = drawn(50, 1);
  const Minimized m = minimize(c, [](const Case&) { return std::string(); });
  EXPECT_TRUE(m.why.empty());
  EXPECT_EQ(to_text(m.c), to_text(c));
  EXPECT_EQ(m.runs, 1u);
}

}  // namespace
}  // namespace maskapply::testing
