// SPDX-License-Identifier: MIT
// Every output says where it ran: `maskapply --version`, `check --json` and report.json carry the version, the git
// commit, the compiler, the platform path, the CPU model, the OS and the date; and CSV fields with embedded quotes,
// commas or line breaks come out as RFC 4180 writes them, CSV numbers as text that reads back to the same bits.
#include <gtest/gtest.h>
#include <regex.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "cli.h"
#include "csv.h"
#include "provenance.h"

namespace maskapply::gen {
namespace {

namespace fs = std::filesystem;

// What this build must say, decided here from the compiler's own macros, not by the code under test.
const char* expected_platform_prefix() {
#if defined(__aarch64__)
  return "(native NEON \\(aarch64\\)|NEON under qemu-aarch64 \\(emulated on .+\\))";
#else
  return "NEON through SIMDe \\(x86-64\\)";
#endif
}

// s matches the POSIX extended expression re as a whole (<regex.h>: std::regex alone costs 4.7 s of compile).
bool matches(const std::string& s, const std::string& re) {
  regex_t r;
  if (regcomp(&r, ("^(" + re + ")$").c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
    ADD_FAILURE() << "not a POSIX extended expression: " << re;
    return false;
  }
  const bool ok = regexec(&r, s.c_str(), 0, nullptr, 0) == 0;
  regfree(&r);
  return ok;
}

void expect_provenance(const nlohmann::json& p) {
  ASSERT_TRUE(p.is_object()) << p.dump();
  EXPECT_EQ(p.at("version"), MASKAPPLY_EXPECTED_VERSION);
  EXPECT_TRUE(matches(p.at("commit").get<std::string>(), "[0-9a-f]{12}(-dirty)?|unknown"))
      << p.at("commit");
  EXPECT_TRUE(matches(p.at("compiler").get<std::string>(), "(gcc|clang) [0-9].*"))
      << p.at("compiler");
  EXPECT_TRUE(matches(p.at("platform").get<std::string>(), expected_platform_prefix()))
      << p.at("platform");
  EXPECT_FALSE(p.at("cpu").get<std::string>().empty());
  EXPECT_NE(p.at("os").get<std::string>().find("Linux"), std::string::npos) << p.at("os");
  EXPECT_TRUE(matches(p.at("date").get<std::string>(), "20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z"))
      << p.at("date");
}

int run_cli(std::vector<std::string> args, std::string& out) {
  args.insert(args.begin(), "maskapply");
  std::ostringstream o, e;
  const int code = cli::run(args, o, e);
  out = o.str();
  return code;
}

TEST(Provenance, VersionFlagPrintsVersionCommitCompilerPlatformAndCpu) {
  std::string out;
  ASSERT_EQ(run_cli({"--version"}, out), 0);
  EXPECT_EQ(out.rfind(std::string("maskapply ") + MASKAPPLY_EXPECTED_VERSION + "\n", 0), 0u) << out;
  for (const char* key : {"commit: ", "compiler: ", "platform: ", "cpu: ", "os: ", "date: "})
    EXPECT_NE(out.find(std::string("\n") + key), std::string::npos) << key << " missing in:\n" << out;
}

TEST(Provenance, CheckJsonCarriesIt) {
  std::string out;
  ASSERT_EQ(run_cli({"check", "--pattern", MASKAPPLY_PATTERNS "/step.pattern", "--f", "sqrt", "--kernel", "blend",
                     "--dmax", "0.5", "--n", "4096", "--json"},
                    out),
            0);
  expect_provenance(nlohmann::json::parse(out).at("provenance"));
}

TEST(Provenance, ReportJsonCarriesItAndTheMarkdownSaysWhereItRan) {
  const fs::path dir = fs::temp_directory_path() / ("maskapply_provenance_test_" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::string out;
  ASSERT_EQ(run_cli({"report", "--quick", "--no-measure", "--no-article", "--family", "step", "--f", "sqrt",
                     "--pilots", "pilot_v4", "--tiles", "4", "--out", dir.string()},
                    out),
            0);
  std::ifstream j(dir / "report.json");
  expect_provenance(nlohmann::json::parse(j).at("provenance"));
  std::ifstream m(dir / "report.md");
  const std::string md((std::istreambuf_iterator<char>(m)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("Ran on: maskapply " MASKAPPLY_EXPECTED_VERSION " ("), std::string::npos);
  fs::remove_all(dir);
}

TEST(Csv, FieldsAreQuotedWithEmbeddedQuotesDoubled) {
  EXPECT_EQ(csv_field(""), "\"\"");
  EXPECT_EQ(csv_field("step"), "\"step\"");
  EXPECT_EQ(csv_field("k=4, offset 390"), "\"k=4, offset 390\"");
  EXPECT_EQ(csv_field("the \"liar\" probe"), "\"the \"\"liar\"\" probe\"");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

// csv_number writes the shortest text that reads back to the same bits: every float and double drawn from all
// bit patterns (NaN aside: "nan" keeps no payload) parses back with std::from_chars to exactly its bits.
template <class T, class Bits>
void expect_round_trip(Bits bits) {
  T x;
  std::memcpy(&x, &bits, sizeof x);
  const std::string text = csv_number(x);
  T back = -x;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), back);
  if (std::isnan(x)) {
    EXPECT_TRUE(text == "nan" || text == "-nan") << text;
    return;
  }
  ASSERT_EQ(r.ec, std::errc()) << text;
  ASSERT_EQ(r.ptr, text.data() + text.size()) << text;
  Bits back_bits;
  std::memcpy(&back_bits, &back, sizeof back);
  ASSERT_EQ(back_bits, bits) << text;
}

TEST(Csv, NumbersAreTheShortestTextThatReadsBackToTheSameBits) {
  EXPECT_EQ(csv_number(0.1f), "0.1");
  EXPECT_EQ(csv_number(0.1), "0.1");
  EXPECT_EQ(csv_number(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(csv_number(1.0160417906745678), "1.0160417906745678");  // 6 significant digits would say 1.01604
  EXPECT_EQ(csv_number(-0.0), "-0");
  EXPECT_EQ(csv_number(std::numeric_limits<double>::infinity()), "inf");
  std::mt19937_64 rng(24);
  for (int i = 0; i < 200000; ++i) {
    expect_round_trip<double>(static_cast<uint64_t>(rng()));
    expect_round_trip<float>(static_cast<uint32_t>(rng()));
  }
  for (uint64_t b : {0x0000000000000001ull, 0x000fffffffffffffull, 0x7fefffffffffffffull, 0x8000000000000000ull})
    expect_round_trip<double>(b);
  for (uint32_t b : {0x00000001u, 0x007fffffu, 0x7f7fffffu, 0x3f000000u, 0x3f000001u}) expect_round_trip<float>(b);
}

}  // namespace
}  // namespace maskapply::gen
