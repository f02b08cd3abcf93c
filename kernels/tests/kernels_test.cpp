// SPDX-License-Identifier: MIT
// Every plain kernel against the oracle: uniform data over a thd sweep for every f, every length up to two tiles
// + 33, every misalignment, the article's countertests, and guard pages at both ends.
#include <cstdio>

#include "article.h"
#include "buffers.h"
#include "test_util.h"

namespace maskapply::test {
namespace {

constexpr float kThdSweep[] = {0.0f, 0.01f, 0.1f, 0.3f, 0.5f, 0.7f, 0.9f, 1.0f};

TEST(PlainKernels, EqualOracleOnUniformDataOverThdSweepForEveryF) {
  const auto in = gen::uniform(3 * 4096 + 77, 1);
  for (Kernel k : kPlainKernels)
    for (Fn f : kArticleFns)
      for (float thd : kThdSweep) expect_matches_oracle(k, f, less(thd), in, fixed(0.5));
}

TEST(PlainKernels, EqualOracleForEveryLengthFrom0To2TilesPlus33) {
  const size_t max_n = 2 * 4096 + 33;
  const auto in = gen::uniform(max_n, 2);
  for (Kernel k : kPlainKernels)
    for (size_t n = 0; n <= max_n; ++n) {
      const auto r = testing::check_kernel(k, Fn::bits_inc, less(0.4f), std::span(in).first(n), fixed(0.5));
      ASSERT_TRUE(r.ok) << r.message;
    }
}

TEST(PlainKernels, DetourCompactAndDensityReturnTheOracleCountForEveryShortLength) {
  const auto in = gen::uniform(300, 7);
  const auto m = mask::Less{0.5f};
  Workspace ws(64);
  for (size_t n = 0; n <= in.size(); ++n) {
    const size_t want = oracle::count(in.data(), n, less(0.5f));
    std::vector<float> a(in.begin(), in.begin() + n);
    EXPECT_EQ(density(a.data(), n, m), want) << "density n=" << n;
    EXPECT_EQ(detour(a.data(), n, fn::BitsInc{}, m, ws), want) << "detour n=" << n;
    a.assign(in.begin(), in.begin() + n);
    EXPECT_EQ(detour_skip(a.data(), n, fn::BitsInc{}, m, ws), want) << "detour_skip n=" << n;
    a.assign(in.begin(), in.begin() + n);
    EXPECT_EQ(compact(a.data(), n, fn::BitsInc{}, m, ws), want) << "compact n=" << n;
    a.assign(in.begin(), in.begin() + n);
    EXPECT_EQ(compact_skip(a.data(), n, fn::BitsInc{}, m, ws), want) << "compact_skip n=" << n;
  }
}

// A workspace made with capacity 0 (or reserved to 0) holds one element: the pieces are one element long, and
// the kernels finish (a piece of 0 elements would never advance) with the oracle's result.
TEST(PlainKernels, FinishAndEqualTheOracleOnAWorkspaceMadeWithCapacityZero) {
  const auto in = gen::uniform(100, 9);
  const auto m = mask::Less{0.5f};
  const size_t want = oracle::count(in.data(), in.size(), less(0.5f));
  std::vector<float> expect(in);
  oracle::apply(expect.data(), expect.size(), Fn::bits_inc, less(0.5f));
  Workspace ws(0);
  EXPECT_EQ(ws.capacity(), 1u);
  ws.reserve(0);
  EXPECT_EQ(ws.capacity(), 1u);
  using Plain = size_t (*)(float*, size_t, fn::BitsInc, mask::Less, Workspace&);
  const std::pair<const char*, Plain> kernels[] = {{"detour", detour<fn::BitsInc, mask::Less>},
                                                   {"detour_skip", detour_skip<fn::BitsInc, mask::Less>},
                                                   {"compact", compact<fn::BitsInc, mask::Less>},
                                                   {"compact_skip", compact_skip<fn::BitsInc, mask::Less>}};
  for (const auto& [name, kernel] : kernels) {
    std::vector<float> a(in);
    EXPECT_EQ(kernel(a.data(), a.size(), fn::BitsInc{}, m, ws), want) << name;
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_EQ(oracle::bits(a[i]), oracle::bits(expect[i])) << name << " at " << i;
  }
}

// The article's compact detour pads its register list with entries pointing at register 0; when register 0 is
// selected and shares the last group of four with them, its result is overwritten by its original value.
TEST(PlainKernels, ExpandRegisterZeroCorrectlyWhenFewRegistersAreSelected) {
  const std::vector<std::vector<size_t>> selections{{0}, {1}, {3}, {0, 100}, {2, 70, 2001}, {0, 4, 8, 12, 16}};
  for (const auto& sel : selections) {
    std::vector<float> in(4096 + 16, 1.0f);
    for (size_t i : sel) in[i] = 0.25f;
    for (Kernel k : kAllKernels) expect_matches_oracle(k, Fn::sqrt, less(0.5f), in, fixed(0.5));
    for (size_t n : {size_t{16}, size_t{64}}) expect_matches_oracle(Kernel::compact, Fn::sqrt, less(0.5f),
                                                                    std::span(in).first(n), fixed(0.5));
  }
}

TEST(AllKernels, EqualOracleAtEveryMisalignment) {
  const auto in = gen::uniform(4096 + 37, 3);
  for (Kernel k : kAllKernels)
    for (size_t mis = 0; mis < 16; ++mis) expect_matches_oracle(k, Fn::sin35, less(0.3f), in, fixed(0.5), mis);
}

TEST(AllKernels, EqualOracleOnTheArticleCountertests) {
  const size_t n = 2 * 17 * 4096 + 100;
  struct Case {
    const char* name;
    std::vector<float> data;
    Fn f;
  };
  const Case cases[] = {{"step", gen::step(n), Fn::pow10},
                        {"offset390", gen::offset390(n), Fn::pow10},
                        {"cycle17", gen::cycle17(n), Fn::fma13}};
  for (const Case& c : cases)
    for (Kernel k : kAllKernels)
      for (float thd : {0.0f, 1.0f})
        for (double d_max : {-1.0, 0.5, 0.9}) {
          SCOPED_TRACE(c.name);
          expect_matches_oracle(k, c.f, less(thd), c.data, fixed(d_max));
        }
}

TEST(AllKernels, EqualOracleForEveryMaskKind) {
  auto in = gen::uniform(2 * 4096 + 5, 4);
  in[7] = std::numeric_limits<float>::quiet_NaN();
  in[100] = -0.0f;
  const MaskSpec masks[] = {{MaskKind::greater, 0.5f, 0, 0}, {MaskKind::not_ge, 0.2f, 0, 0},
                            {MaskKind::bits_eq, 0, 0x3u, 0x1u}, {MaskKind::always, 0, 0, 0},
                            {MaskKind::never, 0, 0, 0}};
  for (Kernel k : kAllKernels)
    for (const MaskSpec& m : masks) expect_matches_oracle(k, Fn::sqrt, m, in, fixed(0.5));
}

// Arrays flush against PROT_NONE pages: one element read or written past either end faults the test.
TEST(AllKernels, NeverTouchMemoryOutsideTheArrayGuardPages) {
  for (Kernel k : kAllKernels)
    for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{15}, size_t{16}, size_t{17}, size_t{4095},
                     size_t{4097}, size_t{3 * 4096 + 9}})
      for (bool at_end : {true, false}) {
        std::fprintf(stderr, "guard: kernel=%s n=%zu at_end=%d\n", name(k).data(), n, at_end);
        testing::GuardedArray g(n, at_end);
        const auto in = gen::uniform(n, 5);
        std::copy(in.begin(), in.end(), g.data());
        std::vector<float> want = in;
        oracle::apply(want.data(), n, Fn::sqrt, less(0.6f));
        Workspace ws;
        run_kernel(k, Fn::sqrt, less(0.6f), g.data(), n, ws, fixed(0.5));
        const auto mm = oracle::compare(name(k), in, want, g.span());
        EXPECT_FALSE(mm) << mm.message;
      }
}

TEST(Workspace, TwoWorkspacesGiveTheSameResultAsOne) {
  // No hidden state: running on one workspace, then another, then the first again gives identical output.
  const auto in = gen::uniform(4096 * 3 + 11, 6);
  Workspace a, b;
  for (Kernel k : kAllKernels) {
    std::vector<float> x = in, y = in, z = in;
    run_kernel(k, Fn::sin10, less(0.2f), x.data(), x.size(), a, fixed(0.3));
    run_kernel(k, Fn::sin10, less(0.2f), y.data(), y.size(), b, fixed(0.3));
    run_kernel(k, Fn::sin10, less(0.2f), z.data(), z.size(), a, fixed(0.3));
    EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * 4)) << name(k);
    EXPECT_EQ(0, std::memcmp(x.data(), z.data(), x.size() * 4)) << name(k);
  }
}

TEST(Workspace, ScribbleWritesTheLcgStreamByteByByteThroughTmpThenSThenIdx) {
  // The contract of Workspace::scribble, restated one step per byte (the case files' garbage depends on it):
  // byte i is the top byte of x(i+1) = a x(i) + c mod 2^64, x(0) = seed, through tmp (capacity + 16 floats),
  // then s (capacity / 4 + 4 bytes), then idx (capacity / 4 + 4 words). Capacities give every remainder mod 8.
  for (size_t cap : {1, 2, 3, 4, 5, 7, 8, 12, 13, 16, 17, 28, 29, 31, 64, 100, 1000, 4096})
    for (uint64_t seed : {0ull, 1ull, 0x9e3779b97f4a7c15ull, ~0ull}) {
      Workspace ws(cap);
      ws.scribble(seed);
      const size_t slots = cap / 4 + 4;
      uint64_t x = seed;
      const auto expect_stream = [&](const void* p, size_t bytes, const char* what) {
        const auto* b = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < bytes; ++i) {
          x = x * 6364136223846793005ull + 1442695040888963407ull;
          ASSERT_EQ(b[i], static_cast<unsigned char>(x >> 56))
              << what << " byte " << i << " of " << bytes << ", capacity " << cap << ", seed " << seed;
        }
      };
      expect_stream(ws.tmp(), (cap + 16) * sizeof(float), "tmp");
      expect_stream(ws.s(), slots, "s");
      expect_stream(ws.idx(), slots * sizeof(uint32_t), "idx");
    }
}

TEST(Workspace, StaysDirtyWhenAScribbledWorkspaceGrows) {
  // After scribble(seed), a reserve() that grows the workspace to c fills it as scribble(seed + c) would (a test
  // workspace stays hostile when a pilot grows it to its tile); one that does not grow leaves it as it is.
  for (const uint64_t seed : {0ull, 5ull, ~0ull})
    for (const size_t c : {2, 17, 100, 4096}) {
      Workspace grown(1), direct(c);
      grown.scribble(seed);
      grown.reserve(c);
      direct.scribble(seed + c);
      ASSERT_EQ(grown.capacity(), c);
      EXPECT_EQ(0, std::memcmp(grown.tmp(), direct.tmp(), (c + 16) * sizeof(float))) << "capacity " << c;
      EXPECT_EQ(0, std::memcmp(grown.s(), direct.s(), c / 4 + 4)) << "capacity " << c;
      EXPECT_EQ(0, std::memcmp(grown.idx(), direct.idx(), (c / 4 + 4) * sizeof(uint32_t))) << "capacity " << c;
      grown.reserve(c / 2);  // no growth: untouched
      EXPECT_EQ(0, std::memcmp(grown.tmp(), direct.tmp(), (c + 16) * sizeof(float))) << "capacity " << c;
    }
}

TEST(Workspace, StartsZeroFilledWithItsSlack) {
  for (size_t cap : {0, 1, 5, 4096}) {
    Workspace ws(cap);
    const size_t c = cap ? cap : 1, slots = c / 4 + 4;
    for (size_t i = 0; i < c + 16; ++i) ASSERT_EQ(oracle::bits(ws.tmp()[i]), 0u) << "tmp " << i << ", capacity " << cap;
    for (size_t i = 0; i < slots; ++i) ASSERT_EQ(ws.s()[i], 0) << "s " << i << ", capacity " << cap;
    for (size_t i = 0; i < slots; ++i) ASSERT_EQ(ws.idx()[i], 0u) << "idx " << i << ", capacity " << cap;
  }
}

}  // namespace
}  // namespace maskapply::test
