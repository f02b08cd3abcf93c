// SPDX-License-Identifier: MIT
// Every countertest in corpus/countertests/ reproduces exactly: its `# reproduce: maskapply check ...` line,
// run as written (the tool in-process, the file's own path), prints the model regret its first line records,
// to the 4 decimals recorded, with the options, d_max and model the file records (`# options:`, `# d_max:`,
// `# model:` with the model's hash), which check reads back and must run with. A figure that moved fails with
// both numbers (regenerate the file and say why). pilot_v5 has countertests too.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "cli.h"

namespace maskapply::cli {
namespace {

namespace fs = std::filesystem;

TEST(Countertests, EveryFilesReproduceLinePrintsItsRecordedRegret) {
  const fs::path dir = MASKAPPLY_COUNTERTESTS_DIR;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".pattern") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 7u) << "countertests in " << dir;
  const std::regex head(R"(^# model regret ([0-9.]+) .*for (pilot_v[0-9_]+), f = ([a-z0-9_]+), model m5, n = ([0-9]+))");
  const std::regex repro(R"(\n# reproduce: maskapply (check [^\n]*))");
  std::set<std::string> pilots;
  for (const fs::path& p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::smatch h, r;
    ASSERT_TRUE(std::regex_search(text, h, head)) << p << ": no `# model regret R ... n = N` first line";
    ASSERT_TRUE(std::regex_search(text, r, repro)) << p << ": no `# reproduce: maskapply check ...` line";
    EXPECT_NE(text.find("\nlength " + h[4].str() + "\n"), std::string::npos) << p << ": the pattern must record n";
    for (const char* line : {"\n# options: tile=", "\n# d_max: ", "\n# model: m5 hash fnv1a64:"})
      EXPECT_NE(text.find(line), std::string::npos) << p << ": no `" << line + 1 << "` line for check to read back";
    pilots.insert(h[2].str());
    std::vector<std::string> args{"maskapply"};
    std::istringstream words(r[1].str());
    for (std::string w; words >> w;) args.push_back(w);
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--pattern") args[i + 1] = p.string();  // the line names it relative to the repository
    args.push_back("--json");
    std::ostringstream out, err;
    ASSERT_EQ(run(args, out, err), 0) << p << ": " << err.str();
    const auto j = nlohmann::json::parse(out.str());
    ASSERT_EQ(j["n"].get<size_t>(), std::stoul(h[4].str())) << p;
    const auto& res = j["results"][0];
    ASSERT_EQ(res["kernel"], h[2].str()) << p;
    ASSERT_TRUE(j.contains("recorded")) << p << ": check did not read the recorded lines";
    EXPECT_EQ(j["recorded"]["model_matches"], true) << p << ": recorded " << j["recorded"]["model_hash"]
                                                    << ", m5 now " << j["model_hash"];
    EXPECT_EQ(res["options"], j["recorded"]["options"]) << p << ": check ran other options than the file records";
    EXPECT_EQ(res["d_max_source"], "model m5") << p;
    ASSERT_EQ(res["f"], h[3].str()) << p;
    char now[32];
    std::snprintf(now, sizeof now, "%.4f", res["model_regret"].get<double>());
    EXPECT_EQ(std::string(now), h[1].str()) << p.filename() << ": recorded " << h[1] << ", now " << now
                                            << " (rerun: maskapply " << r[1] << ")";
    std::printf("%-48s %s %-6s recorded %s, now %s\n", p.filename().c_str(), h[2].str().c_str(), h[3].str().c_str(),
                h[1].str().c_str(), now);
  }
  for (const char* k : {"pilot_v1", "pilot_v2", "pilot_v3", "pilot_v3_5", "pilot_v4", "pilot_v5"})
    EXPECT_TRUE(pilots.count(k)) << "no countertest for " << k;
}

}  // namespace
}  // namespace maskapply::cli
