// SPDX-License-Identifier: MIT
// The plug-in API on kernels written here: a correct one passes every check, and each kind of broken one is
// caught with the message the bundled kernels get.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "buffers.h"
#include "check.h"
#include "plugin.h"

namespace maskapply::testing {
namespace {

float cube(float x) { return x * x * x; }
bool below_one(float x) { return std::fabs(x) < 1.0f; }
const Reference kRef{"cube", "|x|<1", cube, below_one};

// A scalar kernel: right by construction.
void good(float* a, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (below_one(a[i])) a[i] = cube(a[i]);
}

TEST(Plugin, aCorrectKernelPassesTheSweepOfEveryNAndMisalignment) {
  EXPECT_EQ(sweep(subject("good", good), kRef, {.max_n = 40}), "");
}

TEST(Plugin, theSweepFindsABreakageAtOneLengthAndLeavesItsCaseFile) {
  const std::string dir = (std::filesystem::temp_directory_path() / "maskapply_plugin_sweep").string();
  setenv("MASKAPPLY_FAILURE_DIR", dir.c_str(), 1);
  const Subject s = subject("breaks_at_37", [](float* a, size_t n) {
    if (n != 37) good(a, n);
  });
  const std::string err = sweep(s, kRef, {.max_n = 40, .seed = 3});
  unsetenv("MASKAPPLY_FAILURE_DIR");
  EXPECT_NE(err.find("sweep (seed 3): kernel=breaks_at_37 f=cube mask=|x|<1 n=37 misalign=0 "), std::string::npos)
      << err;
  EXPECT_NE(err.find("case file: " + dir + "/breaks_at_37.sweep.case"), std::string::npos) << err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/breaks_at_37.sweep.case"));
  std::filesystem::remove_all(dir);
}

TEST(Plugin, aKernelThatSkipsTheLastElementIsReportedWithIndexAndBits) {
  const Subject s = subject("skips_last", [](float* a, size_t n) { good(a, n ? n - 1 : 0); });
  const std::vector<float> in{0.5f, 2.0f, 0.25f};
  const CheckResult r = check(s, kRef, in, {}, 3);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "kernel=skips_last f=cube mask=|x|<1 n=3 misalign=3 tile=4096 probe=256: skips_last: 1 of 3 "
                       "elements differ; first at index 2 (tile 0, strategy untraced): input 0x3e800000 expected "
                       "0x3c800000 actual 0x3e800000");
}

TEST(Plugin, aWritePastTheEndHitsTheSentinelAndTheGuardPage) {
  const Subject s = subject("writes_past_end", [](float* a, size_t n) {
    good(a, n);
    a[n] = 0.0f;
  });
  const std::vector<float> in(20, 0.5f);
  const CheckResult r = check(s, kRef, in);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("sentinel at offset 20 (array is [0, 20)) was overwritten"), std::string::npos) << r.message;
  const std::string g = check_guarded(s, kRef, in);
  EXPECT_NE(g.find("SIGSEGV at address"), std::string::npos) << g;
  EXPECT_NE(g.find("0 bytes past the end of the array (guard page at its end)"), std::string::npos) << g;
}

TEST(GuardPages, aReusedMappingFaultsOneFloatOutsideEveryPlacedArray) {
  // Mapped once, placed many times (as the fuzz targets do): each placement is flush against a guard page, so the
  // float just past the end (at_end) or just before the start (else) faults, and everything inside is usable.
  GuardPages g(3000);
  for (const size_t n : {size_t{0}, size_t{1}, size_t{17}, size_t{1024}, size_t{3000}, size_t{5}})
    for (const bool at_end : {true, false}) {
      float* a = g.place(n, at_end);
      for (size_t i = 0; i < n; ++i) a[i] = static_cast<float>(i);
      float sum = 0;
      EXPECT_EQ(catch_fault([&] {
                  for (size_t i = 0; i < n; ++i) sum += a[i];
                }),
                "")
          << n << " " << at_end;
      volatile float* outside = at_end ? a + n : a - 1;
      const std::string fault = catch_fault([&] { *outside = 1.0f; });
      EXPECT_NE(fault.find("SIGSEGV"), std::string::npos) << "n=" << n << " at_end=" << at_end << ": " << fault;
      EXPECT_EQ(fault_address(), reinterpret_cast<uintptr_t>(outside)) << n << " " << at_end;
    }
  EXPECT_THROW(g.place(3001, true), std::length_error);
}

TEST(Plugin, aKernelApplyingFTwiceFailsExactlyOnce) {
  const auto inc = [](float x) { return oracle::apply_f(Fn::bits_inc, x); };
  const Subject twice = subject("twice", [&](float* a, size_t n) {
    for (size_t i = 0; i < n; ++i)
      if (below_one(a[i])) a[i] = inc(inc(a[i]));
  });
  const std::vector<float> in{2.0f, 0.5f};
  const CheckResult r = check_exactly_once(twice, "|x|<1", below_one, in);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("element 1 (selected) got f 2 times: input 0x3f000000 output 0x3f000002"),
            std::string::npos) << r.message;
}

TEST(Plugin, aTraceWithAGapOrACrossingRunIsRejected) {
  Trace t;
  t.run(maskapply::Run{0, 10, Strategy::blend});
  t.run(maskapply::Run{12, 20, Strategy::detour});
  EXPECT_EQ(check_trace(t, 20), "run 1 detour [12, 20) leaves a gap after 10");
  t.runs[1].begin = 10;
  EXPECT_EQ(check_trace(t, 20), "");
  t.tile(TileDecision{.index = 0, .begin = 0, .end = 16});
  t.tile(TileDecision{.index = 1, .begin = 16, .end = 20});
  EXPECT_EQ(check_trace(t, 20), "run [10, 20) crosses tile 0");
}

TEST(Plugin, aUserCaseFileRoundTripsAndReplays) {
  const UserCase c{"my kernel", "cube", "|x|<1", 5, {}, {0.5f, oracle::from_bits(0x7fc00001u), -0.0f}};
  const auto [parsed, error] = parse_user_case(to_text(c, "a comment"));
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->kernel, "my_kernel");
  EXPECT_EQ(parsed->mask, "|x|<1");
  EXPECT_EQ(parsed->misalign, 5u);
  ASSERT_EQ(parsed->data.size(), 3u);
  EXPECT_EQ(oracle::bits(parsed->data[1]), 0x7fc00001u);
  const std::string dir = (std::filesystem::temp_directory_path() / "maskapply_plugin_test").string();
  const std::string path = write_user_case(c, dir, "roundtrip");
  ASSERT_FALSE(path.empty());
  EXPECT_TRUE(replay_case(path, subject("good", good), kRef).ok);
  EXPECT_FALSE(replay_case(path, subject("noop", [](float*, size_t) {}), kRef).ok);
  std::filesystem::remove_all(dir);
  const auto [none, why] = parse_user_case("kernel x\nf y\nmask z\ndata 2\n00000000\n");
  EXPECT_FALSE(none);
  EXPECT_EQ(why, "line 4: expected 2 hex values after `data`, found 1");
}

TEST(Plugin, aReplayedCaseFileFailsAKernelThatReadsPastTheEndOfTheArray) {
  // Right values, but it reads one float past the end: only the guard pages see it, and the replay runs them.
  const auto over_read = [](float* a, size_t n) {
    volatile float past = n ? a[n] : 0.0f;
    (void)past;
    good(a, n);
  };
  const std::string dir = (std::filesystem::temp_directory_path() / "maskapply_plugin_over_read").string();
  const std::string path = write_user_case({"k", "cube", "|x|<1", 0, {}, {0.5f, 2.0f, 0.25f}}, dir, "over_read");
  ASSERT_FALSE(path.empty());
  EXPECT_TRUE(replay_case(path, subject("good", good), kRef).ok);
  const CheckResult r = replay_case(path, subject("over_read", over_read), kRef);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("0 bytes past the end of the array (guard page at its end)"), std::string::npos) << r.message;
  std::filesystem::remove_all(dir);
}

TEST(Plugin, aMaskDescriptionParsesBackToItsSpecAsACaseFileWritesIt) {
  for (const MaskSpec& m : {MaskSpec{MaskKind::less, 0.5f, 0, 0}, MaskSpec{MaskKind::not_ge, -0.0f, 0, 0},
                            MaskSpec{MaskKind::greater, oracle::from_bits(0x7fc00001u), 0, 0},
                            MaskSpec{MaskKind::bits_eq, 0.0f, 0x80000001u, 1u}, MaskSpec{MaskKind::always, 0, 0, 0},
                            MaskSpec{MaskKind::never, 0, 0, 0}}) {
    std::string d = describe_mask(m);
    for (const std::string& text : {d, (std::replace(d.begin(), d.end(), ' ', '_'), d)}) {
      const std::optional<MaskSpec> p = parse_mask(text);
      ASSERT_TRUE(p) << text;
      EXPECT_EQ(p->kind, m.kind) << text;
      EXPECT_EQ(oracle::bits(p->thd), oracle::bits(m.thd)) << text;
      EXPECT_EQ(p->bits_mask, m.bits_mask) << text;
      EXPECT_EQ(p->bits_value, m.bits_value) << text;
    }
  }
  for (const char* bad : {"", "less", "less thd=", "lesser thd=0x3f000000", "bits_eq thd=0x00000000", "|x|<1"})
    EXPECT_FALSE(parse_mask(bad)) << bad;
}

TEST(Plugin, theBundledCheckIsThePluginCheckOnTheRegistrySubject) {
  const MaskSpec m{MaskKind::less, 0.5f, 0, 0};
  const std::vector<float> in{0.25f, 0.75f, oracle::from_bits(0x7fc00001u)};
  const CheckResult a = check_kernel(Kernel::detour, Fn::sqrt, m, in, {}, 2);
  const CheckResult b = check(kernel_subject(Kernel::detour, Fn::sqrt, m), reference(Fn::sqrt, m), in, {}, 2);
  EXPECT_TRUE(a.ok && b.ok);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(describe(Kernel::detour, Fn::sqrt, m, 3, {}, 2),
            "kernel=detour f=sqrt mask=less thd=0x3f000000 n=3 misalign=2 tile=4096 probe=256");
}

// A kernel with a bug only a dirty workspace shows: it grows its workspace to the tile (as the pilots,
// tiled_detour and blend_verified do) and keeps its progress in idx[0], assuming a grown workspace starts at 0
// (it puts 0 back when done, so a fresh or reused workspace never shows the bug).
void counts_in_idx(float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace&) {
  ws.reserve(o.tile);
  uint32_t& done = ws.idx()[0];
  for (; done < n; ++done)
    if (below_one(a[done])) a[done] = cube(a[done]);
  done = 0;
}

TEST(HostileWorkspace, everyDrawStaysDirtyWhenTheKernelGrowsItToTheTile) {
  // Every draw of the default hostile workspace -- the tile, smaller (grown by the kernel's reserve) or larger --
  // must catch the kernel above. (When an undersized draw was grown into fresh zero-filled buffers, a third of
  // the draws passed it.)
  const Subject s = subject("counts_in_idx", counts_in_idx);
  PilotOptions o;
  o.tile = 64;
  size_t undersized = 0, caught = 0, cases = 0;
  for (size_t n = 1; n <= 90; ++n) {
    const std::vector<float> in = seeded_data(below_one, n, n, 1.0, 0.0);  // every element selected
    const HostileWorkspace w = hostile_workspace(Kernel::pilot_v2, Fn::sqrt, in, o.tile, n % 16);
    undersized += w.capacity < o.tile;
    ++cases;
    const CheckResult r = check(s, kRef, in, o, n % 16, w);
    caught += !r.ok;
    EXPECT_FALSE(r.ok) << "n=" << n << " workspace capacity " << w.capacity << " (tile " << o.tile << ")";
  }
  EXPECT_EQ(caught, cases);
  EXPECT_GT(undersized, cases / 5) << "the draws include undersized workspaces";
  // And the explicit form: a one-element workspace full of garbage, grown to 4096 by the kernel.
  EXPECT_FALSE(check(s, kRef, std::vector<float>{0.5f, 0.25f}, {}, 0, {.capacity = 1, .garbage = 7}).ok);
  // A fresh workspace (no garbage) is zero-filled: this kernel passes it, which is why the draws scribble.
  EXPECT_TRUE(check(s, kRef, std::vector<float>{0.5f, 0.25f}, {}, 0).ok);
}

}  // namespace
}  // namespace maskapply::testing
