// SPDX-License-Identifier: MIT
// The oracle on hand-computed cases, and the comparator's verdicts and messages.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "buffers.h"
#include "case_file.h"
#include "oracle.h"

namespace maskapply::oracle {
namespace {

TEST(Oracle, AppliesFOnlyWhereTheMaskHolds) {
  float a[] = {4.0f, 9.0f, 0.25f, 16.0f};
  apply(a, 4, Fn::sqrt, MaskSpec{MaskKind::less, 10.0f, 0, 0});
  EXPECT_EQ(a[0], 2.0f);
  EXPECT_EQ(a[1], 3.0f);
  EXPECT_EQ(a[2], 0.5f);
  EXPECT_EQ(a[3], 16.0f);
}

TEST(Oracle, Fma13IsThirteenFusedHalfSteps) {
  // x -> 0.5 + 0.5 x, 13 times, from 0: 1 - 2^-13 exactly.
  EXPECT_EQ(apply_f(Fn::fma13, 0.0f), 1.0f - 0x1p-13f);
  EXPECT_EQ(apply_f(Fn::pow10, 4.0f), 8.0f);  // 4^1.5
  EXPECT_EQ(apply_f(Fn::frfrexp, 12.0f), 0.75f);
  EXPECT_EQ(bits(apply_f(Fn::bits_inc, from_bits(0x3f800000u))), 0x3f800001u);
}

TEST(Oracle, NanInclusiveMaskSelectsNanAndLessDoesNot) {
  const float nan = from_bits(0x7fc01234u);
  EXPECT_FALSE(selected(MaskSpec{MaskKind::less, 1.0f, 0, 0}, nan));
  EXPECT_TRUE(selected(MaskSpec{MaskKind::not_ge, 1.0f, 0, 0}, nan));
  EXPECT_TRUE(selected(MaskSpec{MaskKind::bits_eq, 0, 0xffu, 0x34u}, nan));
}

TEST(Compare, FindsTheFirstDifferingBitPatternIncludingSignedZeroAndNanPayload) {
  const float in[] = {1, 2, 3, 4};
  const float want[] = {0.0f, from_bits(0x7fc00001u), 3, 4};
  const float same[] = {0.0f, from_bits(0x7fc00001u), 3, 4};
  const float negzero[] = {-0.0f, from_bits(0x7fc00001u), 3, 4};
  const float payload[] = {0.0f, from_bits(0x7fc00002u), 3, 4};
  EXPECT_FALSE(compare("k", in, want, same));
  const Mismatch z = compare("k", in, want, negzero);
  EXPECT_EQ(z.count, 1u);
  EXPECT_EQ(z.first, 0u);
  const Mismatch p = compare("k", in, want, payload);
  EXPECT_EQ(p.first, 1u);
  EXPECT_NE(p.message.find("0x7fc00001"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("0x7fc00002"), std::string::npos) << p.message;
}

TEST(Compare, NamesTheTileAndTheStrategyFromTheTrace) {
  std::vector<float> in(10000, 1.0f), want = in, got = in;
  got[9000] = 2.0f;
  Trace t;
  t.run(maskapply::Run{0, 8192, Strategy::blend});
  t.run(maskapply::Run{8192, 10000, Strategy::compact});
  const Mismatch m = compare("pilot_v4", in, want, got, 4096, &t);
  EXPECT_NE(m.message.find("index 9000 (tile 2, strategy compact over [8192, 10000))"), std::string::npos)
      << m.message;
  EXPECT_NE(m.message.find("input 0x3f800000 expected 0x3f800000 actual 0x40000000"), std::string::npos)
      << m.message;
}

TEST(SentinelBuffer, ReportsAWriteJustPastTheEnd) {
  std::vector<float> init(5, 1.0f);
  testing::SentinelBuffer b(init, 3);
  EXPECT_EQ(b.check(), "");
  b.data()[5] = 0;
  EXPECT_NE(b.check().find("offset 5"), std::string::npos) << b.check();
}

}  // namespace
}  // namespace maskapply::oracle

namespace maskapply::testing {
namespace {

TEST(CaseFile, RoundTripsEveryFieldBitForBit) {
  Case c;
  c.kernel = Kernel::pilot_v3_5;
  c.f = Fn::pow10;
  c.mask = MaskSpec{MaskKind::bits_eq, -0.0f, 0xffu, 0x12u};
  c.options.tile = 1000, c.options.probe = 37, c.options.bail = 0.125, c.options.d_max = -1e-300;
  c.misalign = 7;
  c.data = {1.0f, -0.0f, oracle::from_bits(0x7fa00001u), oracle::from_bits(0xffc12345u), 1e-45f};
  const CaseParse p = parse_case(to_text(c, "a comment\nover two lines"));
  ASSERT_TRUE(p.value) << p.error;
  EXPECT_EQ(to_text(*p.value), to_text(c));
  EXPECT_EQ(p.value->kernel, Kernel::pilot_v3_5);
  EXPECT_EQ(*p.value->options.d_max, -1e-300);
  EXPECT_EQ(oracle::bits(p.value->data[3]), 0xffc12345u);
  EXPECT_FALSE(p.value->workspace);  // no workspace line: check_kernel's draw
  c.workspace = HostileWorkspace{.capacity = 12, .garbage = 0xfedcba9876543210ull};
  const CaseParse q = parse_case(to_text(c));
  ASSERT_TRUE(q.value) << q.error;
  EXPECT_NE(to_text(c).find("\nworkspace capacity=12 garbage=0xfedcba9876543210\n"), std::string::npos) << to_text(c);
  ASSERT_TRUE(q.value->workspace);
  EXPECT_EQ(q.value->workspace->capacity, 12u);
  EXPECT_EQ(q.value->workspace->garbage, 0xfedcba9876543210ull);
  EXPECT_EQ(case_workspace(*q.value).capacity, 12u);
}

// A field added to PilotOptions without a line in for_each_option_field (kernels/pilot.h) would be dropped by every
// case file, pattern file and JSON report that walks the list: this size changes with it (54 fields of 8 bytes
// and the optional d_max, on the 64-bit targets maskapply builds for). Add the line, then update the figure.
static_assert(sizeof(size_t) != 8 || sizeof(PilotOptions) == 54 * 8 + sizeof(std::optional<double>),
              "PilotOptions changed: list the new field in for_each_option_field (kernels/pilot.h)");

TEST(CaseFile, CarriesEveryOptionFieldAtAValueNoDefaultHas) {
  Case c;
  c.kernel = Kernel::pilot_v6;
  size_t fields = 0;
  // Every field moved off its default by a valid step (the parser validates), each to a value of its own.
  for_each_option_field([&](const char* name, auto PilotOptions::*p) {
    ++fields;
    c.options.*p = c.options.*p + (std::is_floating_point_v<option_field_t<decltype(p)>> ? 0.001 * fields : 1);
    if (std::string_view(name) == "v6_cs" || std::string_view(name) == "v6_gate")  // a switch: 0 or 1
      c.options.*p = PilotOptions{}.*p ? 0 : 1;
  });
  EXPECT_EQ(fields, 54u);
  const CaseParse r = parse_case(to_text(c));
  ASSERT_TRUE(r.value) << r.error << "\n" << to_text(c);
  const PilotOptions defaults;
  for_each_option_field([&](const char* name, auto PilotOptions::*p) {
    EXPECT_NE(c.options.*p, defaults.*p) << name;
    EXPECT_EQ(r.value->options.*p, c.options.*p) << name;
  });
}

TEST(CaseFile, RejectsMalformedInputNamingTheLine) {
  EXPECT_EQ(parse_case("kernel nope\n").error.rfind("line 1: expected `kernel NAME`", 0), 0u);
  EXPECT_NE(parse_case("kernel blend\nf sqrt\nmask less 0x3f800000\ndata 3\n1 2\n").error.find("line 4: expected 3"),
            std::string::npos);
  EXPECT_NE(parse_case("kernel blend\nf sqrt\nmask less zz\n").error.find("line 3"), std::string::npos);
  EXPECT_NE(parse_case("kernel blend\noptions probe=0\n").error.find("invalid options"), std::string::npos);
  EXPECT_NE(parse_case("").error.find("incomplete"), std::string::npos);
  EXPECT_FALSE(parse_case("kernel blend\nf sqrt\nmask less 0x3f800000\ndata 99999999999999999999\n").value);
  EXPECT_NE(parse_case("kernel blend\nworkspace capacity=0 garbage=0x1\n").error.find("line 2: expected `workspace"),
            std::string::npos);
  EXPECT_NE(parse_case("kernel blend\nworkspace capacity=4 garbage=12\n").error.find("line 2"), std::string::npos);
}

TEST(CaseFile, RunCaseJudgesTheDecodedRunAgainstTheOracle) {
  Case c;
  c.kernel = Kernel::detour;
  c.f = Fn::sqrt;
  c.mask = MaskSpec{MaskKind::less, 2.0f, 0, 0};
  c.data = {4.0f, 1.0f};
  EXPECT_TRUE(run_case(c).ok) << run_case(c).message;
}

}  // namespace
}  // namespace maskapply::testing
