// SPDX-License-Identifier: MIT
// Every output says where it ran: `maskapply --version`, `check --json` and report.json carry the version, the git
// commit, the compiler, the platform path, the CPU model, the OS and the date; and CSV fields with embedded quotes,
// commas or line breaks come out as RFC 4180 writes them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
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

void expect_provenance(const nlohmann::json& p) {
  ASSERT_TRUE(p.is_object()) << p.dump();
  EXPECT_EQ(p.at("version"), MASKAPPLY_EXPECTED_VERSION);
  EXPECT_TRUE(std::regex_match(p.at("commit").get<std::string>(), std::regex("[0-9a-f]{12}(-dirty)?|unknown")))
      << p.at("commit");
  EXPECT_TRUE(std::regex_match(p.at("compiler").get<std::string>(), std::regex("(gcc|clang) [0-9].*")))
      << p.at("compiler");
  EXPECT_TRUE(std::regex_match(p.at("platform").get<std::string>(), std::regex(expected_platform_prefix())))
      << p.at("platform");
  EXPECT_FALSE(p.at("cpu").get<std::string>().empty());
  EXPECT_NE(p.at("os").get<std::string>().find("Linux"), std::string::npos) << p.at("os");
  EXPECT_TRUE(std::regex_match(p.at("date").get<std::string>(),
                               std::regex("20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z")))
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
  EXPECT_TRUE(std::regex_search(out, std::regex(std::string("^maskapply ") + MASKAPPLY_EXPECTED_VERSION + "\n")))
      << out;
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

}  // namespace
}  // namespace maskapply::gen
