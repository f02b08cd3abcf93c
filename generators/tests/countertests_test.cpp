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
#include <set>
#include <sstream>

#include "cli.h"
#include "pattern_file.h"

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
  std::set<std::string> pilots;
  for (const fs::path& p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::optional<gen::hunt::Head> h = gen::hunt::read_head(text);
    const std::string repro = gen::hunt::read_reproduce(text);
    ASSERT_TRUE(h && h->model == "m5") << p << ": no `# model regret R ... model m5, n = N` first line";
    ASSERT_EQ(repro.rfind("check ", 0), 0u) << p << ": no `# reproduce: maskapply check ...` line";
    EXPECT_NE(text.find("\nlength " + std::to_string(h->n) + "\n"), std::string::npos) << p << ": the pattern must record n";
    for (const char* line : {"\n# options: tile=", "\n# d_max: ", "\n# model: m5 hash fnv1a64:"})
      EXPECT_NE(text.find(line), std::string::npos) << p << ": no `" << line + 1 << "` line for check to read back";
    pilots.insert(h->pilot);
    std::vector<std::string> args{"maskapply"};
    std::istringstream words(repro);
    for (std::string w; words >> w;) args.push_back(w);
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--pattern") args[i + 1] = p.string();  // the line names it relative to the repository
    args.push_back("--json");
    std::ostringstream out, err;
    ASSERT_EQ(run(args, out, err), 0) << p << ": " << err.str();
    const auto j = nlohmann::json::parse(out.str());
    ASSERT_EQ(j["n"].get<size_t>(), h->n) << p;
    const auto& res = j["results"][0];
    ASSERT_EQ(res["kernel"], h->pilot) << p;
    ASSERT_TRUE(j.contains("recorded")) << p << ": check did not read the recorded lines";
    EXPECT_EQ(j["recorded"]["model_matches"], true) << p << ": recorded " << j["recorded"]["model_hash"]
                                                    << ", m5 now " << j["model_hash"];
    EXPECT_EQ(res["options"], j["recorded"]["options"]) << p << ": check ran other options than the file records";
    EXPECT_EQ(res["d_max_source"], "model m5") << p;
    ASSERT_EQ(res["f"], h->f) << p;
    char now[32];
    std::snprintf(now, sizeof now, "%.4f", res["model_regret"].get<double>());
    EXPECT_EQ(std::string(now), h->regret) << p.filename() << ": recorded " << h->regret << ", now " << now
                                           << " (rerun: maskapply " << repro << ")";
    std::printf("%-48s %s %-6s recorded %s, now %s\n", p.filename().c_str(), h->pilot.c_str(), h->f.c_str(),
                h->regret.c_str(), now);
  }
  for (const char* k : {"pilot_v1", "pilot_v2", "pilot_v3", "pilot_v3_5", "pilot_v4", "pilot_v5"})
    EXPECT_TRUE(pilots.count(k)) << "no countertest for " << k;
}

}  // namespace
}  // namespace maskapply::cli
