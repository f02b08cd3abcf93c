// SPDX-License-Identifier: MIT
// The pattern format: the article's countertests in a few lines, exact selections, canonical printing that
// parses back to the same pattern, errors that name the line and what was expected, and data whose `a < thd`
// selection is exactly the pattern.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "article.h"
#include "pattern.h"

namespace maskapply::gen {
namespace {

Pattern parse_ok(std::string_view text) {
  const ParseResult r = parse_pattern(text);
  if (!r) ADD_FAILURE() << "did not parse: " << r.error().message() << "\n" << text;
  return r ? r.pattern() : Pattern{};
}

// The article's data selects the zeros under a < 1.
std::vector<uint8_t> zeros(const std::vector<float>& a) {
  std::vector<uint8_t> s(a.size());
  for (size_t i = 0; i < a.size(); ++i) s[i] = a[i] < 1.0f;
  return s;
}

TEST(Pattern, ArticleCountertestsFitInAtMostThreeLinesAndSelectExactlyTheArticlesElements) {
  const size_t n = 3 * 17 * 4096 + 123;
  EXPECT_EQ(selection(parse_ok("period 4096\nseg 256:1 rest:0\n"), n), zeros(step(n)));
  EXPECT_EQ(selection(parse_ok("period 4096\nseg 390:1 rest:0"), n), zeros(offset390(n)));
  EXPECT_EQ(selection(parse_ok("# v4's\nperiod 69632\nseg 512:1 512:0 rest:1\n"), n), zeros(cycle17(n)));
}

TEST(Pattern, PrintsCanonicallyAndParsesBackToTheSamePattern) {
  const Pattern p = parse_ok(" seg  =0110 3:0.5\t rest:~0.25 # comment\r\nseed 9\nperiod 100\nphase 7\nlength 1000\n");
  EXPECT_EQ(to_text(p), "period 100\nphase 7\nseed 9\nlength 1000\nseg =0110 3:0.5 rest:~0.25\n");
  EXPECT_EQ(parse_ok(to_text(p)), p);
  for (const char* text : {"seg 1:1", "seg 5:0.3333333333333333 7:~1e-05", "period 8\nseg rest:~0.1 =1",
                           "seg 4096:0.1\nseg 10:0"}) {
    const Pattern q = parse_ok(text);
    EXPECT_EQ(parse_ok(to_text(q)), q) << text;
    EXPECT_EQ(to_text(parse_ok(to_text(q))), to_text(q)) << text;
  }
}

TEST(Pattern, RegularSegmentsSelectFloorOfLengthTimesDensityEvenlySpaced) {
  const auto s = selection(parse_ok("seg 10:0.25 6:0"), 16);
  // floor((j+1)/4) > floor(j/4) at j = 3 and 7: two of ten (floor(2.5)).
  const std::vector<uint8_t> want{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(s, want);
  const auto t = selection(parse_ok("seg 1000:0.3"), 1000);
  EXPECT_EQ(std::count(t.begin(), t.end(), 1), 300);
}

TEST(Pattern, PhaseShiftsThePatternAndPeriodsRepeat) {
  const Pattern p = parse_ok("period 8\nphase 3\nseg =11000000");
  const std::vector<uint8_t> want{0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0};
  EXPECT_EQ(selection(p, 16), want);
  for (uint64_t i = 0; i < 16; ++i) EXPECT_EQ(selected_at(p, i), want[i] != 0) << i;
}

TEST(Pattern, RandomSegmentsFollowTheSeedAndDensityAndDifferPerRepetition) {
  const auto a = selection(parse_ok("seed 1\nseg 4096:~0.3"), 8 * 4096);
  const auto b = selection(parse_ok("seed 1\nseg 4096:~0.3"), 8 * 4096);
  const auto c = selection(parse_ok("seed 2\nseg 4096:~0.3"), 8 * 4096);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const double d = static_cast<double>(std::count(a.begin(), a.end(), 1)) / static_cast<double>(a.size());
  EXPECT_NEAR(d, 0.3, 0.02);
  EXPECT_FALSE(std::equal(a.begin(), a.begin() + 4096, a.begin() + 4096)) << "every period draws anew";
  const auto all = selection(parse_ok("seg 7:~1"), 70);
  EXPECT_EQ(std::count(all.begin(), all.end(), 1), 70);
}

TEST(Pattern, HandBuiltPatternsTheParserWouldRefuseStillHaveASelection) {
  Pattern p;
  p.period = 10, p.phase = 13;
  p.segments = {Segment{Segment::Kind::bits, false, 6, 0, "11"}, Segment{Segment::Kind::regular, true, 0, 1, {}},
                Segment{Segment::Kind::regular, false, 0, 1, {}}};
  // bits "11" then 4 missing bits (0), rest gets 10 - 6 = 4 selected, the zero-length segment nothing.
  const std::vector<uint8_t> want{0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0};
  EXPECT_EQ(selection(p, 20), want);
  for (uint64_t i = 0; i < 20; ++i) EXPECT_EQ(selected_at(p, i), want[i] != 0) << i;
  p.segments = {Segment{Segment::Kind::regular, false, 0, 1, {}}};
  EXPECT_EQ(selection(p, 5), std::vector<uint8_t>(5, 0)) << "all segments empty: nothing, and no endless loop";
  p.period = 0;
  EXPECT_EQ(selection(p, 5), std::vector<uint8_t>(5, 0));
}

struct Bad {
  const char* text;
  size_t line;
  const char* expected;  // a substring of the message
};

TEST(Pattern, MalformedInputNamesTheLineAndWhatWasExpected) {
  const Bad cases[] = {
      {"", 0, "at least one 'seg' line"},
      {"# only a comment\n\n", 0, "at least one 'seg' line"},
      {"seg 4:1\nfoo 3\n", 2, "a line starting with 'period', 'phase', 'seed', 'length', 'seg'"},
      {"period\nseg 1:1", 1, "'period' followed by exactly one non-negative integer"},
      {"period -4\nseg 1:1", 1, "a non-negative decimal integer after 'period'"},
      {"period 0\nseg 1:1", 1, "a period in [1, 2^40]"},
      {"period 4\nperiod 4\nseg 4:1", 2, "at most one 'period' line (the first is line 1)"},
      {"seg 4:1\n\nseg 4:2", 3, "a density in [0, 1]"},
      {"seg 4:0.5x", 1, "a density in [0, 1]"},
      {"seg 4:nan", 1, "a density in [0, 1]"},
      {"seg 0:1", 1, "a segment length: a positive integer"},
      {"seg 4", 1, "a segment LEN:DENSITY"},
      {"seg", 1, "at least one segment after 'seg'"},
      {"seg =012", 1, "only 0 and 1 after '='"},
      {"seg =", 1, "at least one 0 or 1 after '='"},
      {"seg rest:1", 1, "a 'period' line: 'rest' needs it"},
      {"period 10\nseg 4:1\nseg rest:0 rest:1", 3, "at most one 'rest' segment"},
      {"period 10\nseg 4:1 rest:0 6:1", 2, "room for the 'rest' segment"},
      {"period 10\nseg 4:1", 1, "segments that sum to the period"},
      {"phase 4\nseg 4:1", 1, "a phase below the period 4"},
      {"seg 4:1\nseed 99999999999999999999", 2, "a non-negative decimal integer after 'seed'"},
      {"seg 4:1\nlength 1 2", 2, "'length' followed by exactly one"},
      {"seg 4:1\n\xff\xfe", 2, "a line starting with"},
  };
  for (const Bad& b : cases) {
    const ParseResult r = parse_pattern(b.text);
    ASSERT_FALSE(r) << "accepted: " << b.text;
    EXPECT_EQ(r.error().line, b.line) << b.text << " -> " << r.error().message();
    EXPECT_NE(r.error().message().find(b.expected), std::string::npos) << b.text << " -> " << r.error().message();
    if (b.line) {
      EXPECT_EQ(r.error().message().rfind("line " + std::to_string(b.line) + ": ", 0), 0u);
    }
  }
  EXPECT_EQ(parse_pattern("seg 4:1\n\xff\xfe").error().got, "\\xff\\xfe");
}

TEST(Pattern, AnyBytesParseOrFailWithAMessageAndWhatParsesRoundTrips) {
  const uint64_t seed = 20260401;
  std::mt19937_64 rng(seed);
  // Texts assembled from plausible lines and tokens, with a random byte thrown in now and then.
  const char* keys[] = {"seg", "seg", "seg", "period", "phase", "seed", "length", "#", "rest", ""};
  const char* words[] = {"4:1", "rest:0", "=0101", "3:~0.5", "0.5:1", "12:0.25", "rest:~1e-3", "7", "100",
                         "2:1.5",  "=",  "1:~",  "0", "18446744073709551616", "5:0.1", "=1", "rest:1", "64:~0.9"};
  size_t accepted = 0;
  for (int k = 0; k < 3000; ++k) {
    std::string text;
    const size_t lines = 1 + rng() % 4;
    for (size_t l = 0; l < lines; ++l) {
      text += keys[rng() % std::size(keys)];
      const size_t nw = rng() % 4;
      for (size_t w = 0; w < nw; ++w) text += std::string(rng() % 5 ? " " : "\t") + words[rng() % std::size(words)];
      if (rng() % 10 == 0) text.insert(rng() % (text.size() + 1), 1, static_cast<char>(rng() % 256));
      text += rng() % 4 ? "\n" : "\r\n";
    }
    const ParseResult r = parse_pattern(text);
    if (!r) {
      EXPECT_FALSE(r.error().message().empty());
      continue;
    }
    ++accepted;
    const ParseResult again = parse_pattern(to_text(r.pattern()));
    ASSERT_TRUE(again) << "seed=" << seed << " k=" << k << ": " << again.error().message();
    EXPECT_EQ(again.pattern(), r.pattern()) << "seed=" << seed << " k=" << k;
  }
  EXPECT_GT(accepted, 20u) << "seed=" << seed;
}

TEST(MakeData, SelectsExactlyThePatternUnderLessThanThd) {
  const auto sel = selection(parse_ok("seed 3\nseg 100:~0.4 =1010 rest:1\nperiod 300"), 5000);
  const float inf = std::numeric_limits<float>::infinity();
  for (float thd : {0.5f, 0.0f, 1.0f, -3.0f, 1e-40f, 2.5f, inf, std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::lowest()}) {
    for (double rate : {0.0, 0.3}) {
      Specials sp;
      sp.rate = rate;
      const auto a = make_data(sel, thd, 17, sp);
      ASSERT_EQ(a.size(), sel.size());
      size_t specials = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i] < thd, sel[i] != 0) << "thd=" << thd << " rate=" << rate << " i=" << i << " a=" << a[i];
        specials += std::isnan(a[i]) || std::isinf(a[i]) || a[i] == 0 || std::fpclassify(a[i]) == FP_SUBNORMAL;
      }
      if (thd == 0.5f) {
        if (rate > 0) {
          EXPECT_GT(specials, 1000u);
        } else {
          EXPECT_EQ(specials, 0u);
        }
      }
    }
  }
  EXPECT_EQ(make_data(sel, 0.5f, 1), make_data(sel, 0.5f, 1));
  EXPECT_NE(make_data(sel, 0.5f, 1), make_data(sel, 0.5f, 2));
  EXPECT_THROW(make_data(sel, std::numeric_limits<float>::quiet_NaN(), 1), std::invalid_argument);
  EXPECT_THROW(make_data(sel, -inf, 1), std::invalid_argument);
}

}  // namespace
}  // namespace maskapply::gen
