// SPDX-License-Identifier: MIT
// The `maskapply` tool in-process (so it runs under qemu too): exit codes 0 / 1 / 2, the JSON shape scripts rely
// on, files written only on success, and every kind of bad usage refused with a message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "commands.h"
#include "cost_model.h"
#include "pattern.h"
#include "registry.h"
#include "run_cli.h"

namespace maskapply::cli {
namespace {

namespace fs = std::filesystem;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("maskapply_cli_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& content) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

const char* kCycle = "period 69632\nseg 512:1 512:0 rest:1\n";

TEST_F(Cli, CheckAPatternIsBitExactAndItsJsonHasTheDocumentedShape) {
  const std::string p = file("cycle.pattern", kCycle);
  const Result r = run_cli({"check", "--pattern", p, "--f", "fma13", "--kernel", "blend,pilot_v4", "--model", "m5",
                            "--n", "40960", "--json"});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["results"].is_array());
  ASSERT_EQ(j["results"].size(), 2u);
  for (const auto& x : j["results"]) {
    EXPECT_TRUE(x["kernel"].is_string());
    EXPECT_EQ(x["f"], "fma13");
    EXPECT_EQ(x["bit_exact"], true);
    EXPECT_EQ(x["mismatches"], 0);
  }
  EXPECT_EQ(j["results"][0]["kernel"], "blend");
  EXPECT_TRUE(j["results"][0]["model_regret"].is_null()) << "plain kernels have no regret";
  EXPECT_EQ(j["results"][1]["kernel"], "pilot_v4");
  EXPECT_TRUE(j["results"][1]["model_regret"].is_number());
  EXPECT_GE(j["results"][1]["model_regret"].get<double>(), 1.0);
  EXPECT_NEAR(j["results"][1]["d_max"].get<double>(), 0.1681, 1e-3) << "m5's d_max for fma13 is injected";
}

TEST_F(Cli, CheckUsesOneModelForDecisionsAndCostsAndSaysWhereDmaxCameFrom) {
  const std::string p = file("cycle.pattern", kCycle);
  const Result plain = run_cli({"check", "--pattern", p, "--f", "sqrt", "--kernel", "pilot_v4", "--n", "40960"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.out.find("costs under model m5, pilots' d_max from model m5"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("d_max -2.3"), std::string::npos) << "m5's d_max for sqrt, not a timed one: " << plain.out;
  const Result forced = run_cli({"check", "--pattern", p, "--f", "sqrt", "--kernel", "pilot_v4", "--n", "40960",
                                 "--dmax", "0.25", "--json"});
  ASSERT_EQ(forced.code, 0) << forced.err;
  const auto j = nlohmann::json::parse(forced.out);
  EXPECT_EQ(j["dmax_source"], "--dmax");
  EXPECT_EQ(j["results"][0]["d_max"], 0.25);
  EXPECT_EQ(j["results"][0]["d_max_source"], "--dmax");
  const Result both = run_cli({"check", "--pattern", p, "--dmax", "0.25", "--timed-dmax"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("at most one of --dmax and --timed-dmax"), std::string::npos) << both.err;
}

TEST_F(Cli, CheckTraceShowsEveryDecidedTileWithThePilotsAndTheOraclesRuns) {
  const std::string p = file("cycle.pattern", kCycle);
  const Result r = run_cli({"check", "--pattern", p, "--f", "fma13", "--kernel", "pilot_v4", "--n", "40960",
                            "--trace", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& res = j["results"][0];
  ASSERT_TRUE(res["trace"].is_array());
  ASSERT_EQ(res["trace"].size(), 8u) << "(40960 - 8192) / 4096 decided tiles";
  double pilot = 0, oracle = 0;
  for (const auto& t : res["trace"]) {
    for (const char* k : {"tile", "begin", "end", "count", "count_source", "hi", "xlo", "lo", "pilot_runs",
                          "oracle_runs", "pilot_ns", "oracle_ns", "gap_ns"})
      EXPECT_TRUE(t.contains(k)) << k;
    EXPECT_FALSE(t["pilot_runs"].empty());
    EXPECT_FALSE(t["oracle_runs"].empty());
    pilot += t["pilot_ns"].get<double>(), oracle += t["oracle_ns"].get<double>();
  }
  EXPECT_NEAR(pilot, res["model_cost_ns"]["pilot"].get<double>(), 1e-6 * pilot) << "the tiles add up";
  EXPECT_NEAR(oracle, res["model_cost_ns"]["oracle"].get<double>(), 1e-6 * oracle) << "the tiles add up";
  const Result text = run_cli({"check", "--pattern", p, "--f", "fma13", "--kernel", "pilot_v4", "--n", "40960",
                               "--trace"});
  EXPECT_NE(text.out.find("tile 4 [8192, 12288): count"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("    oracle "), std::string::npos) << text.out;
}

TEST_F(Cli, CheckPrintsOneLinePerKernelAndFInText) {
  const std::string p = file("mixed.pattern", "period 64\nseed 3\nseg =1011 30:~0.3 rest:0.125\n");
  const Result r = run_cli({"check", "--pattern", p, "--f", "sqrt,pow10", "--n", "50000", "--dmax", "0.5"});
  ASSERT_EQ(r.code, 0) << r.err;
  size_t lines = 0;
  for (size_t at = 0; (at = r.out.find("bit-exact", at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, 2u * 15u) << r.out;  // every kernel of the registry, pilot_v5 and pilot_v6 included
  EXPECT_NE(r.out.find("model regret"), std::string::npos);
}

TEST_F(Cli, CheckRawFloat32Input) {
  std::string bytes;
  for (int i = 0; i < 10000; ++i) {
    const float x = static_cast<float>(i % 97) / 97.0f;
    char b[4];
    std::memcpy(b, &x, 4);  // the test hosts are little-endian, as the format
    bytes.append(b, 4);
  }
  const std::string p = file("in.f32", bytes);
  const Result r = run_cli({"check", "--input", p, "--f", "sin35", "--thd", "0.3", "--kernel", "all", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["n"], 10000);
}

TEST_F(Cli, ACorruptedRunExitsOneAndExplainsTheFirstMismatch) {
  const std::string p = file("cycle.pattern", kCycle);
  const Result r = run_cli({"check", "--pattern", p, "--f", "pow10", "--kernel", "compact", "--n", "4096",
                            "--json", "--corrupt-for-test"});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& x = j["results"][0];
  EXPECT_EQ(x["bit_exact"], false);
  EXPECT_EQ(x["mismatches"], 1);
  EXPECT_EQ(x["first_mismatch"]["index"], 2048);
  EXPECT_EQ(x["first_mismatch"]["strategy"], "compact");
  EXPECT_TRUE(x["first_mismatch"]["expected"].is_string());
  const Result t = run_cli({"check", "--pattern", p, "--f", "pow10", "--kernel", "compact", "--n", "4096",
                            "--corrupt-for-test"});
  EXPECT_EQ(t.code, 1);
  EXPECT_NE(t.out.find("MISMATCH 1 of 4096: first at index 2048 (tile 0, strategy compact)"), std::string::npos)
      << t.out;
}

TEST_F(Cli, BadUsageExitsTwoWithAMessage) {
  const std::string good = file("good.pattern", kCycle);
  const std::string bad = file("bad.pattern", "period 4096\nseg 256:1 rest:0\nseg 12:x\n");
  const std::string odd = file("odd.f32", "12345");
  const std::string empty = file("empty.f32", "");
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const Case cases[] = {
      {{"check", "--pattern", good, "--kernel", "nosuch"}, "unknown kernel 'nosuch'"},
      {{"check", "--pattern", good, "--f", "cos"}, "unknown f 'cos'"},
      {{"check", "--pattern", path("missing.pattern")}, "cannot read"},
      {{"check", "--pattern", bad}, "line 3: expected a density"},
      {{"check", "--pattern", good, "--input", odd}, "exactly one of --pattern"},
      {{"check"}, "exactly one of --pattern"},
      {{"check", "--input", odd}, "not a multiple of 4"},
      {{"check", "--input", empty}, "is empty"},
      {{"check", "--pattern", good, "--n", "0"}, "impossible size"},
      {{"check", "--pattern", good, "--n", "1000000000000"}, "impossible size"},
      {{"check", "--pattern", good, "--thd", "abc"}, "--thd"},
      {{"check", "--pattern", good, "--thd", "nan"}, "--thd"},
      {{"check", "--pattern", good, "--model", "bogus"}, "unknown model 'bogus'"},
      {{"check", "--pattern", good, "--model", "host", "--model-file", path("none.json")}, "maskapply calibrate"},
      {{"check", "--pattern", good, "--model", "host", "--model-file", good}, "malformed host model"},
      {{"check", "--pattern", good, "--bogus"}, ""},
      {{"nosuchcommand"}, ""},
      {{}, ""},
      {{"report", "--tiles", "0"}, "impossible size"},
      {{"report", "--family", "nosuch"}, "unknown family 'nosuch'"},
      {{"report", "--family", "step:head=1.5"}, "whole number"},
      {{"report", "--pilots", "blend"}, "unknown kernel 'blend'"},
      {{"gen", "--family", "bursts", "--pattern-out", path("x.pattern")}, "no pattern form"},
  };
  for (const Case& c : cases) {
    const Result r = run_cli(c.args);
    std::string joined;
    for (const auto& s : c.args) joined += s + " ";
    EXPECT_EQ(r.code, 2) << joined << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << joined;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << joined << "\n" << r.err;
  }
}

// --help names every valid f, kernel and pilot next to the option that takes it; a bad name is refused by the
// same parser, at parse time, with the same names.
TEST_F(Cli, HelpListsTheValidFKernelAndPilotNames) {
  const auto option_line = [](const std::string& help, const std::string& option) {
    const size_t at = help.find("  " + option + " ");
    return at == std::string::npos ? std::string() : help.substr(at, help.find('\n', at) - at);
  };
  std::string fns;
  for (std::string_view n : maskapply::kFnNames) fns += (fns.empty() ? "" : ", ") + std::string(n);
  std::string kernels, pilots;
  for (std::string_view n : maskapply::kKernelNames) {
    kernels += (kernels.empty() ? "" : ", ") + std::string(n);
    if (n.rfind("pilot_", 0) == 0) pilots += (pilots.empty() ? "" : ", ") + std::string(n);
  }
  const Result check = run_cli({"check", "--help"});
  ASSERT_EQ(check.code, 0) << check.err;
  EXPECT_NE(option_line(check.out, "--f").find("{" + fns + "}"), std::string::npos) << check.out;
  EXPECT_NE(option_line(check.out, "--kernel").find("{" + kernels + "}"), std::string::npos) << check.out;
  const Result report = run_cli({"report", "--help"});
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_NE(option_line(report.out, "--f").find("{" + fns + "}"), std::string::npos) << report.out;
  EXPECT_NE(option_line(report.out, "--pilots").find("{" + pilots + "}"), std::string::npos) << report.out;
  const Result hunt = run_cli({"hunt", "--help"});
  ASSERT_EQ(hunt.code, 0) << hunt.err;
  EXPECT_NE(option_line(hunt.out, "--f").find("{" + fns + "}"), std::string::npos) << hunt.out;
  EXPECT_NE(option_line(hunt.out, "--pilot").find("{" + pilots + "}"), std::string::npos) << hunt.out;
  // The short pilot names the hunt's parser takes pass its check too.
  EXPECT_EQ(run_cli({"hunt", "--pilot", "v4,v3.5", "--f", "sqrt", "--budget", "0", "--help"}).code, 0);
  const Result bad = run_cli({"hunt", "--pilot", "v4,v9", "--f", "sqrt"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("maskapply hunt: error: --pilot: unknown pilot 'pilot_v9' (known: pilot_v1"), std::string::npos) << bad.err;
}

// pilot_v5's default seed is fixed (reproducible runs), so its worst case is the seed-aware figure, and the
// help says so where users look: maskapply --help and hunt --help.
TEST_F(Cli, HelpSaysPilotV5sWorstCaseIsItsSeedAwareFigure) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"}, std::vector<std::string>{"hunt", "--help"}}) {
    const Result h = run_cli(args);
    ASSERT_EQ(h.code, 0) << h.err;
    EXPECT_NE(h.out.find("pilot_v5's worst case is its seed-aware figure"), std::string::npos) << h.out;
    EXPECT_NE(h.out.find("3.23 (sqrt) to 13.10 (pow10)"), std::string::npos) << h.out;
  }
}

TEST_F(Cli, ReportRefusesAnOutPathThatIsAFileAndLeavesItAlone) {
  const std::string f = file("not_a_dir", "keep me");
  const Result r = run_cli({"report", "--quick", "--family", "all", "--f", "sqrt", "--no-article", "--out", f});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(slurp(f), "keep me");
}

TEST_F(Cli, QuickReportWritesMarkdownJsonCsvAndSvg) {
  const std::string out = path("rep");
  const Result r = run_cli({"report", "--quick", "--no-measure", "--tiles", "20", "--family", "step", "--family",
                            "uniform:d=0.05", "--f", "pow10,fma13", "--out", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| case | f | thd | pilot | correct | model regret |"), std::string::npos);
  EXPECT_NE(r.out.find("n/a"), std::string::npos) << "no measured regret with --no-measure";
  EXPECT_NE(r.out.find("article/cycle17 (fma13): v4"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("seed 1"), std::string::npos) << "the seed is printed";
  for (const char* name : {"report.md", "report.csv", "report.json", "heatmap.svg"})
    EXPECT_TRUE(fs::exists(fs::path(out) / name)) << name;
  const auto j = nlohmann::json::parse(slurp(out + "/report.json"));
  EXPECT_EQ(j["all_bit_exact"], true);
  // step and uniform x 2 f + 3 article countertests, x 7 pilots (v1 .. v6).
  EXPECT_EQ(j["rows"].size(), (2u * 2u + 3u) * 7u);
  for (const auto& row : j["rows"]) {
    EXPECT_TRUE(row["model_regret"].is_number());
    EXPECT_TRUE(row["measured_regret"].is_null());
  }
  EXPECT_EQ(slurp(out + "/heatmap.svg").rfind("<svg", 0), 0u);
  // report.csv's numbers read back to the very values report.json carries (both shortest round-trip forms).
  std::istringstream csv(slurp(out + "/report.csv"));
  std::string line;
  std::getline(csv, line);
  const std::vector<std::string> header = split(line, ',');
  const auto column = [&](const char* name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  size_t row = 0;
  for (; std::getline(csv, line); ++row) {
    // The quoted fields (case, label) may hold commas: drop them, they are the first and third columns.
    std::vector<std::string> f;
    bool quoted = false;
    std::string cur;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      if (ch == ',' && !quoted) f.push_back(cur), cur.clear();
      else cur += ch;
    }
    f.push_back(cur);
    ASSERT_EQ(f.size(), header.size()) << line;
    ASSERT_LT(row, j["rows"].size());
    const nlohmann::json& jr = j["rows"][row];
    for (const char* key : {"model_regret", "model_vs_fixed", "d_max"}) {
      const std::string& text = f[column(key)];
      if (jr[key].is_null()) {  // NaN or infinite: null in JSON
        EXPECT_TRUE(text == "nan" || text == "-nan" || text == "inf" || text == "-inf") << key << " " << text;
        continue;
      }
      double v = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      ASSERT_EQ(r.ec, std::errc()) << key << " '" << text << "'";
      const double want = jr[key].get<double>();
      EXPECT_EQ(std::memcmp(&v, &want, sizeof v), 0) << key << ": csv " << text << " json " << jr[key].dump();
    }
  }
  EXPECT_EQ(row, j["rows"].size());
}

TEST_F(Cli, CalibrateWritesAHostModelThatCheckReads) {
  const std::string m = path("host.json");
  const Result c = run_cli({"calibrate", "--tiles", "1", "--reps", "1", "--out", m});
  ASSERT_EQ(c.code, 0) << c.err;
  const Result r = run_cli({"check", "--pattern", file("p", kCycle), "--f", "sqrt", "--kernel", "pilot_v3", "--n",
                            "20000", "--model", "host", "--model-file", m, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["model"], "host");
}

TEST_F(Cli, GenWritesAPatternThatParsesAndHelpExitsZero) {
  const std::string p = path("step.pattern");
  ASSERT_EQ(run_cli({"gen", "--family", "step:head=300", "--pattern-out", p}).code, 0);
  EXPECT_TRUE(gen::parse_pattern(slurp(p)));
  const Result h = run_cli({"--help"});
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("report"), std::string::npos);
  const Result hc = run_cli({"check", "--help"});
  EXPECT_EQ(hc.code, 0);
  EXPECT_NE(hc.out.find("--pattern"), std::string::npos);
  EXPECT_EQ(run_cli({"families"}).code, 0);
}

TEST_F(Cli, HuntWritesFindsThatCheckReprintsAndItsJsonListsTheBestFirst) {
  const std::string out = path("hunt");
  // Options with a tile of 1024: the bound for pilot_v4 then takes a second, not 13 (10x that under qemu).
  const Result r = run_cli({"hunt", "--pilot", "v4", "--f", "fma13", "--budget", "300", "--seconds", "0", "--seed",
                            "5", "--n", "24576", "--options", "tile=1024 probe=64 calib_len=512", "--out", out,
                            "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["best"].is_array());
  ASSERT_FALSE(j["best"].empty());
  double last = 1e300;
  for (const auto& b : j["best"]) {
    for (const char* k : {"pilot", "f", "model_regret", "pattern", "file", "mechanism"}) ASSERT_TRUE(b.contains(k)) << k;
    EXPECT_LE(b["model_regret"].get<double>(), last);
    last = b["model_regret"].get<double>();
    // The certified bound holds every find, and its witness reaches it.
    ASSERT_TRUE(b["bound"].is_number()) << b.dump();
    EXPECT_LE(b["model_regret"].get<double>(), b["bound"].get<double>());
    EXPECT_GE(b["bound_witness"].get<double>(), b["bound"].get<double>() * (1 - 1e-6));
    EXPECT_NEAR(b["of_bound"].get<double>(), b["model_regret"].get<double>() / b["bound"].get<double>(), 1e-12);
  }
  const auto& best = j["best"][0];
  {  // The witness's file reprints its figure through the real kernel.
    const Result w = run_cli({"check", "--pattern", best["bound_file"].get<std::string>(), "--f", "fma13", "--model",
                              "m5", "--kernel", "pilot_v4", "--json"});
    ASSERT_EQ(w.code, 0) << w.err;
    EXPECT_NEAR(nlohmann::json::parse(w.out)["results"][0]["model_regret"].get<double>(),
                best["bound_witness"].get<double>(), 1e-12);
  }
  EXPECT_EQ(best["pilot"], "pilot_v4");
  EXPECT_EQ(best["f"], "fma13");
  const std::string text = slurp(best["file"].get<std::string>());
  EXPECT_NE(text.find("# reproduce: maskapply check --pattern"), std::string::npos) << text;
  EXPECT_NE(text.find("for pilot_v4, f = fma13, model m5, n = 24576"), std::string::npos) << text;
  // `maskapply check` on the file prints the same model regret.
  const Result c = run_cli({"check", "--pattern", best["file"].get<std::string>(), "--f", "fma13", "--model", "m5",
                            "--kernel", "pilot_v4", "--json"});
  ASSERT_EQ(c.code, 0) << c.err;
  const nlohmann::json cj = nlohmann::json::parse(c.out);
  EXPECT_NEAR(cj["results"][0]["model_regret"].get<double>(), best["model_regret"].get<double>(), 1e-12);
}

// Splits a `# reproduce: maskapply ...` line of a file into arguments (no quoting: the tools write none).
std::vector<std::string> reproduce_args(const std::string& text) {
  const size_t at = text.find("# reproduce: maskapply ");
  if (at == std::string::npos) return {};
  std::istringstream words(text.substr(at + 23, text.find('\n', at) - at - 23));
  std::vector<std::string> args;
  for (std::string w; words >> w;) args.push_back(w);
  return args;
}

// Runs a file's `# reproduce:` line as written, with --json: its parsed output, or null (a failure recorded)
// when the file has no such line or the command fails.
nlohmann::json run_reproduce_line(const std::string& text) {
  std::vector<std::string> line = reproduce_args(text);
  EXPECT_FALSE(line.empty()) << "no `# reproduce:` line";
  if (line.empty()) return nullptr;
  line.push_back("--json");
  const Result c = run_cli(line);
  EXPECT_EQ(c.code, 0) << c.err;
  return c.code == 0 ? nlohmann::json::parse(c.out) : nlohmann::json(nullptr);
}

// A host model unlike m5 in every constant that reaches a pilot (B, D, C, S, K, M) and in T.
std::string host_model_json() {
  gen::CostModel m = gen::CostModel::m5();
  m.name = "host";
  m.B = 0.41, m.D = 1.07, m.C = 0.52, m.S = 0.23, m.K = 0.29, m.M = 4.5;
  for (double& t : m.T) t *= 1.3;
  return m.to_json();
}

TEST_F(Cli, HuntFilesRecordWhatCheckNeedsAndTheirReproduceLineWorksForM5HostAndAModelFile) {
  const std::string model = file("my-model.json", host_model_json());
  struct Kind {
    std::vector<std::string> model_args;
    std::string expect_in_line;
  };
  for (const Kind& k : {Kind{{"--model", "m5"}, "--model m5 "},
                        Kind{{"--model", "host", "--model-file", model}, "--model host --model-file " + model + " "},
                        Kind{{"--model", model}, "--model " + model + " "}}) {
    const std::string out = path("hunt-" + std::to_string(k.model_args.size()) + k.model_args[1].substr(0, 2));
    std::vector<std::string> args{"hunt", "--pilot", "v3_5,v5", "--f", "pow10", "--budget", "200", "--seconds", "0",
                                  "--keep", "1", "--n", "40960", "--no-bound", "--out", out, "--json"};
    args.insert(args.end(), k.model_args.begin(), k.model_args.end());
    const Result r = run_cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["best"].size(), 2u);
    for (const auto& b : j["best"]) {
      const std::string text = slurp(b["file"].get<std::string>());
      SCOPED_TRACE(text);
      EXPECT_NE(text.find(k.expect_in_line), std::string::npos);
      EXPECT_NE(text.find("\n# options: tile=4096 probe=256 "), std::string::npos);
      EXPECT_NE(text.find("\n# d_max: "), std::string::npos);
      EXPECT_NE(text.find("\n# model: " + j["model"].get<std::string>() +
                          (k.model_args[1] == "m5" ? std::string() : " file " + model) + " hash " +
                          j["model_hash"].get<std::string>() + "\n"),
                std::string::npos);
      EXPECT_NE(text.find("\nlength 40960\n"), std::string::npos);
      // The reproduce line, run as written: the same figure, the recorded model and options.
      const nlohmann::json cj = run_reproduce_line(text);
      ASSERT_FALSE(cj.is_null());
      EXPECT_EQ(cj["n"], 40960);
      EXPECT_EQ(cj["recorded"]["model_matches"], true);
      EXPECT_EQ(cj["results"][0]["kernel"], b["pilot"]);
      EXPECT_EQ(cj["results"][0]["options"], cj["recorded"]["options"]);
      EXPECT_EQ(cj["results"][0]["model_regret"].get<double>(), b["model_regret"].get<double>());
    }
  }
}

// A user's own options and d_max: the hunt, its certified bound and its files all use them, and the reproduce
// line reprints the figure through the real kernel; bad options are usage errors.
TEST_F(Cli, HuntTakesTheUsersOptionsAndDmaxForTheFindsTheBoundAndTheFiles) {
  const std::string out = path("hunt-opts");
  const Result r = run_cli({"hunt", "--pilot", "v4", "--f", "fma13", "--budget", "100", "--seconds", "0", "--keep",
                            "1", "--n", "20480", "--options", "tile=2048 probe=128 verify_blocks=4 distrust=3",
                            "--dmax", "0.3", "--out", out, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["best"].size(), 1u);
  const auto& b = j["best"][0];
  const std::string options = b["options"].get<std::string>();
  for (const char* o : {"tile=2048 ", "probe=128 ", "verify_blocks=4 ", "distrust=3 "})
    EXPECT_NE(options.find(o), std::string::npos) << options;
  EXPECT_EQ(b["d_max"], 0.3);
  ASSERT_TRUE(b["bound"].is_number()) << b["bound_note"];
  EXPECT_GE(b["bound"].get<double>(), b["model_regret"].get<double>());
  for (const std::string& f : {b["file"].get<std::string>(), b["bound_file"].get<std::string>()}) {
    const std::string text = slurp(f);
    SCOPED_TRACE(text);
    EXPECT_NE(text.find("\n# options: tile=2048 probe=128 "), std::string::npos);
    EXPECT_NE(text.find("\n# d_max: 0.29999999999999999 from --dmax\n"), std::string::npos);
    const nlohmann::json cj = run_reproduce_line(text);
    ASSERT_FALSE(cj.is_null());
    EXPECT_EQ(cj["results"][0]["options"]["tile"], 2048);
    EXPECT_EQ(cj["results"][0]["options"]["d_max"], 0.3);
    if (f == b["file"].get<std::string>()) {
      EXPECT_EQ(cj["results"][0]["model_regret"].get<double>(), b["model_regret"].get<double>());
    }
  }
  for (const std::string bad : {"tile=8 probe=4", "tile=abc", "title=2048", "probe", "v6_score_blend=0", "v6_reg=0",
                                "v6_dear_probe=0", "v6_cheap_probe=0", "v6_cut_pieces=8"}) {
    const Result e = run_cli({"hunt", "--pilot", "v4", "--f", "fma13", "--budget", "0", "--seconds", "0", "--options",
                              bad, "--out", path("bad")});
    EXPECT_EQ(e.code, 2) << bad;
    EXPECT_NE(e.err.find("--options: "), std::string::npos) << e.err;
    if (bad == "v6_reg=0") {
      EXPECT_NE(e.err.find("v6_reg must be finite and > 0"), std::string::npos) << e.err;
    }
    if (bad == "v6_dear_probe=0" || bad == "v6_cheap_probe=0") {
      EXPECT_NE(e.err.find(bad.substr(0, bad.size() - 2) + " must be positive"), std::string::npos) << e.err;
    }
    if (bad == "v6_score_blend=0") {
      EXPECT_NE(e.err.find("v6_score_blend, v6_score_skip and v6_score_sample must be positive"), std::string::npos)
          << e.err;
    }
    if (bad == "v6_cut_pieces=8") {  // a retired option says what replaced it
      EXPECT_NE(e.err.find("v6_cut_pieces was retired on 2026-12-06"), std::string::npos) << e.err;
      EXPECT_NE(e.err.find("v6_score_switch"), std::string::npos) << e.err;
    }
  }
}

TEST_F(Cli, CheckReadsTheRecordedOptionsAndDmaxBackAndRefusesMalformedOnes) {
  const std::string head = "# options: tile=2048 probe=128 calib_blocks=2 calib_len=1024 verify_blocks=4 distrust=3 "
                           "seed=7 xlo=0.02 lo=0.2 B=0.3 D=0.845 bail=0.5 C=0.4 S=0.2 K=0.18 M=3 shrink=0.25 "
                           "kappa=1 rho=1.5 v6_score_switch=2 v6_score_blend=9 v6_score_skip=4 "
                           "v6_score_sample=3 v6_dense_cut=0.25 v6_dense_block=5 v6_reg=0.75 "
                           "v6_dear_floor=0.25 v6_dear_probe=64\n"
                           "# d_max: 0.625 from --dmax\n";
  const std::string p = file("rec.pattern", head + "period 4096\nlength 20480\nseg 300:1 rest:0\n");
  const Result r = run_cli({"check", "--pattern", p, "--f", "sin10", "--kernel", "pilot_v4,pilot_v5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dmax"], 0.625);
  for (const auto& res : j["results"]) {
    const auto& o = res["options"];
    EXPECT_EQ(o["tile"], 2048);
    EXPECT_EQ(o["probe"], 128);
    EXPECT_EQ(o["calib_blocks"], 2);
    EXPECT_EQ(o["verify_blocks"], 4);
    EXPECT_EQ(o["distrust"], 3);
    EXPECT_EQ(o["seed"], 7);
    EXPECT_EQ(o["bail"], 0.5);
    EXPECT_EQ(o["shrink"], 0.25);
    EXPECT_EQ(o["rho"], 1.5);
    EXPECT_EQ(o["v6_score_switch"], 2);
    EXPECT_EQ(o["v6_score_blend"], 9);
    EXPECT_EQ(o["v6_score_skip"], 4);
    EXPECT_EQ(o["v6_score_sample"], 3);
    EXPECT_EQ(o["v6_dense_cut"], 0.25);
    EXPECT_EQ(o["v6_dense_block"], 5);
    EXPECT_EQ(o["v6_reg"], 0.75);
    EXPECT_EQ(o["v6_dear_floor"], 0.25);
    EXPECT_EQ(o["v6_dear_probe"], 64);
    EXPECT_EQ(o["d_max"], 0.625);
    EXPECT_EQ(res["d_max"], 0.625);
    EXPECT_EQ(res["d_max_source"], "--dmax recorded in the file");
  }
  // A file written under another model (its hash differs from this run's m5): said in JSON and in text.
  const std::string other = file("other.pattern", "# model: m5 hash fnv1a64:0000000000000000\nperiod 4096\nlength 20480\n"
                                                  "seg 300:1 rest:0\n");
  const Result o = run_cli({"check", "--pattern", other, "--f", "sin10", "--kernel", "pilot_v4", "--json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["recorded"]["model_matches"], false);
  const Result ot = run_cli({"check", "--pattern", other, "--f", "sin10", "--kernel", "pilot_v4"});
  EXPECT_NE(ot.out.find("note: the file was written under model m5, hash fnv1a64:0000000000000000; this run's model "
                        "m5 has hash fnv1a64:"),
            std::string::npos)
      << ot.out;
  // A given --dmax wins over the recorded one.
  const Result g = run_cli({"check", "--pattern", p, "--f", "sin10", "--kernel", "pilot_v4", "--dmax", "0.5", "--json"});
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(nlohmann::json::parse(g.out)["results"][0]["d_max"], 0.5);
  for (const std::string& bad : {std::string("# options: tile=4096 nosuch=1\n"), std::string("# options: tile=-3\n"),
                                 std::string("# options: tile=4096 probe=9999\n"),
                                 std::string("# options: tile=4096 v6_score_sample=0\n"),
                                 std::string("# options: tile=4096 v6_skip_cut=0.3\n"),
                                 std::string("# options: tile=4096\n# d_max: x from model m5\n"),
                                 std::string("# model: m5\n")}) {
    const Result b = run_cli({"check", "--pattern", file("bad.pattern", bad + "period 4096\nseg 1:1 rest:0\n")});
    EXPECT_EQ(b.code, 2) << bad;
    EXPECT_NE(b.err.find("malformed recorded lines"), std::string::npos) << bad << b.err;
  }
}

TEST_F(Cli, CheckTimedDmaxUnderAHostModelTakesEveryOtherConstantFromThatModel) {
  const std::string m = file("host.json", host_model_json());
  const Result r = run_cli({"check", "--pattern", file("p", kCycle), "--f", "sqrt", "--kernel", "pilot_v5", "--n",
                            "20480", "--timed-dmax", "--model", "host", "--model-file", m, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& o = j["results"][0]["options"];
  EXPECT_EQ(o["d_max"], nullptr) << "timed by the pilot";
  EXPECT_EQ(o["B"], 0.41);
  EXPECT_EQ(o["D"], 1.07);
  EXPECT_EQ(o["C"], 0.52);
  EXPECT_EQ(o["S"], 0.23);
  EXPECT_EQ(o["K"], 0.29);
  EXPECT_EQ(o["M"], 4.5);
  const Result t = run_cli({"check", "--pattern", file("q", kCycle), "--f", "sqrt", "--kernel", "pilot_v5", "--n",
                            "20480", "--timed-dmax", "--model", "host", "--model-file", m});
  EXPECT_NE(t.out.find("the calibration's B and D from model host), v5's plan constants C, S, K, M and the costs "
                       "from model host"),
            std::string::npos)
      << t.out;
}

TEST_F(Cli, HuntHonoursNInItsJsonAndFiles) {
  const std::string out = path("hunt");
  const Result r = run_cli({"hunt", "--pilot", "v4", "--f", "sin35", "--budget", "200", "--seconds", "0", "--n",
                            "20480", "--no-bound", "--out", out, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["n"], 20480);
  ASSERT_FALSE(j["best"].empty());
  for (const auto& b : j["best"]) {
    EXPECT_TRUE(b["bound"].is_null());  // --no-bound
    EXPECT_EQ(b["bound_note"], "not computed (--no-bound)");
    EXPECT_NE(b["pattern"].get<std::string>().find("length 20480\n"), std::string::npos) << b["pattern"];
    const std::string text = slurp(b["file"].get<std::string>());
    EXPECT_NE(text.find(", n = 20480\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nlength 20480\n"), std::string::npos) << text;
  }
}

TEST_F(Cli, HuntFailAboveExitsOneNamingEachFindAboveTheBar) {
  const std::vector<std::string> base{"hunt", "--pilot", "v3", "--f", "pow10", "--budget", "100", "--seconds", "0",
                                      "--keep", "2", "--n", "20480", "--out", path("h")};
  std::vector<std::string> low = base, high = base, json = base;
  low.insert(low.end(), {"--fail-above", "1.0"});
  high.insert(high.end(), {"--fail-above", "1000"});
  json.insert(json.end(), {"--fail-above", "1.0", "--json"});
  const Result l = run_cli(low);
  EXPECT_EQ(l.code, 1) << l.err;
  EXPECT_NE(l.err.find("above --fail-above 1"), std::string::npos) << l.err;
  EXPECT_NE(l.err.find("  pilot_v3 pow10 "), std::string::npos) << l.err;
  EXPECT_EQ(run_cli(high).code, 0);
  const Result js = run_cli(json);
  EXPECT_EQ(js.code, 1);
  const nlohmann::json j = nlohmann::json::parse(js.out);
  EXPECT_EQ(j["fail_above"], 1.0);
  EXPECT_EQ(j["above"].size(), j["best"].size() + 1) << "every find and the certified bound";
}

// The dispatch gate (docs/tune.md): --fail-above reads the certified bound too, and --summary appends the table with
// the witness's `check` line, which replays the figure.
TEST_F(Cli, HuntFailAboveAppliesToTheCertifiedBoundAndTheSummaryCarriesTheWitnesssCheckLine) {
  const std::vector<std::string> base{"hunt", "--pilot", "v4", "--f", "fma13", "--budget", "0", "--seconds", "0",
                                      "--keep", "1", "--n", "20480", "--options", "tile=1024 probe=64 calib_len=512",
                                      "--out", path("g"), "--json"};
  const Result first = run_cli(base);
  ASSERT_EQ(first.code, 0) << first.err;
  const nlohmann::json b = nlohmann::json::parse(first.out)["best"][0];
  const double bound = b["bound"].get<double>(), find = b["model_regret"].get<double>();
  ASSERT_LE(find, bound);
  std::vector<std::string> below = base, above = base;
  const std::string summary = path("summary.md");
  below.insert(below.end(), {"--fail-above", std::to_string(bound * 1.001), "--summary", summary});
  above.insert(above.end(), {"--fail-above", std::to_string(bound * 0.999), "--summary", summary});
  const Result pass = run_cli(below);
  EXPECT_EQ(pass.code, 0) << pass.err;
  const Result fail = run_cli(above);
  EXPECT_EQ(fail.code, 1) << fail.err;
  EXPECT_NE(fail.err.find("  pilot_v4 fma13 bound " + fixed(bound, 4) + " (" + b["bound_file"].get<std::string>() + ")"),
            std::string::npos)
      << fail.err;
  const std::string text = slurp(summary);  // both runs appended
  const std::string check = "maskapply check --pattern " + b["bound_file"].get<std::string>() +
                            " --f fma13 --model m5 --kernel pilot_v4";
  EXPECT_NE(text.find("| pilot_v4 | fma13 | " + fixed(bound, 4) + " | " + fixed(find, 4) + " | ok | `" + check + "` |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| **above** | `" + check + "` |"), std::string::npos) << text;
  std::vector<std::string> replay;
  std::istringstream words(check.substr(10));
  for (std::string w; words >> w;) replay.push_back(w);
  replay.push_back("--json");
  const Result c = run_cli(replay);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(nlohmann::json::parse(c.out)["results"][0]["model_regret"].get<double>(), b["bound_witness"].get<double>());
}

TEST_F(Cli, HuntJsonCarriesCheckJsonsProvenanceAndASchemaVersion) {
  const Result r = run_cli({"hunt", "--pilot", "v1", "--f", "sqrt", "--budget", "50", "--seconds", "0", "--n",
                            "20480", "--out", path("h"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Result c = run_cli({"check", "--pattern", file("p", kCycle), "--f", "sqrt", "--kernel", "blend", "--json"});
  const nlohmann::json j = nlohmann::json::parse(r.out), cj = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["schema_version"], 2);
  for (const char* k : {"version", "commit", "compiler", "platform", "cpu", "os", "date"}) {
    ASSERT_TRUE(j["provenance"].contains(k)) << k;
    if (std::string(k) != "date") {
      EXPECT_EQ(j["provenance"][k], cj["provenance"][k]) << k;
    }
  }
}

TEST_F(Cli, HuntRefusesToWriteAFindTheTracedKernelDoesNotConfirm) {
  const std::string out = path("h");
  const Result r = run_cli({"hunt", "--pilot", "v4", "--f", "fma13", "--budget", "50", "--seconds", "0", "--n",
                            "20480", "--no-bound", "--out", out, "--corrupt-for-test"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the traced kernel does not confirm, so no file was written: pilot_v4 fma13: the hunt's fast "
                       "evaluation gives model regret"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Cli, HuntRefusesBadNumbersWithExitCode2AndSaysWhatIsExpected) {
  struct Case {
    const char* option;
    const char* value;
  };
  for (const Case& c : {Case{"--budget", "-1"}, Case{"--budget", "1e9"}, Case{"--budget", "100000001"},
                        Case{"--budget", "lots"}, Case{"--n", "-5"}, Case{"--n", "99999999999999999999999"},
                        Case{"--keep", "0"}, Case{"--keep", "18446744073709551616"}, Case{"--jobs", "-1"},
                        Case{"--seed", "-3"}, Case{"--seed", "1.5"}, Case{"--seconds", "-1"},
                        Case{"--seconds", "nan"}, Case{"--fail-above", "x"}, Case{"--fail-above", "-2"}}) {
    const Result r = run_cli({"hunt", "--pilot", "v1", "--f", "sqrt", c.option, c.value, "--out", path("h")});
    EXPECT_EQ(r.code, 2) << c.option << " " << c.value;
    EXPECT_NE(r.err.find(std::string(c.option) + ": expected a"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("h")));
  }
  for (const std::vector<std::string>& args : {std::vector<std::string>{"check", "--pattern", file("p", kCycle),
                                                                         "--seed", "-1"},
                                               {"gen", "--family", "step", "--n", "-1", "--pattern-out", path("x")},
                                               {"report", "--tiles", "-2"}, {"calibrate", "--reps", "-1"}}) {
    const Result r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[0];
    EXPECT_NE(r.err.find(": expected a whole number"), std::string::npos) << r.err;
  }
}

TEST_F(Cli, HuntRefusesUnknownPilotsFunctionsAndModelsWithExitCode2) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"hunt", "--pilot", "pilot_v9"}, {"hunt", "--pilot", "blend"},
        {"hunt", "--f", "cos"}, {"hunt", "--model", "nosuch-model.json"}, {"hunt", "--jobs", "0"},
        {"hunt", "--save", "--corpus", "/nonexistent/dir"}}) {
    const Result r = run_cli(args);
    EXPECT_EQ(r.code, 2) << args[1] << " " << (args.size() > 2 ? args[2] : "");
    EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
  }
}

TEST_F(Cli, HuntReportsPilotV5sSeedAwareFindAndCheckReprintsIt) {
  const std::string out = path("hunt");
  const Result r = run_cli({"hunt", "--pilot", "v5,v4", "--f", "pow10", "--budget", "100", "--seconds", "0", "--n",
                            "24576", "--no-bound", "--out", out, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& best = j["best"][0];
  EXPECT_EQ(best["pilot"], "pilot_v5");
  EXPECT_GT(best["seed_aware"].get<double>(), 5.0);
  EXPECT_EQ(best["model_regret"].get<double>(), best["seed_aware"].get<double>());
  EXPECT_EQ(best["origin"].get<std::string>().rfind("seed-aware adversary", 0), 0u) << best["origin"];
  for (const auto& b : j["best"])
    if (b["pilot"] == "pilot_v4") {
      EXPECT_TRUE(b["seed_aware"].is_null());
    }
  const Result c = run_cli({"check", "--pattern", best["file"].get<std::string>(), "--f", "pow10", "--model", "m5",
                            "--kernel", "pilot_v5", "--json"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NEAR(nlohmann::json::parse(c.out)["results"][0]["model_regret"].get<double>(),
              best["model_regret"].get<double>(), 1e-12);
}

TEST_F(Cli, FloorPrintsEachFsCertifiedFloorAndRefusesOptionsOffTheGrid) {
  const Result r = run_cli({"floor", "--f", "sqrt,pow10", "--n", "12288", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["floors"].size(), 2u);
  EXPECT_EQ(j["floors"][0]["f"], "sqrt");
  EXPECT_EQ(j["floors"][0]["blocks"], 256);
  // sqrt's floor: above the 1.45 that issue 25 asked of pilot_v5 against a seed-knowing input.
  EXPECT_GT(j["floors"][0]["floor"].get<double>(), 1.45);
  EXPECT_NEAR(j["floors"][1]["above"].get<double>() - j["floors"][1]["floor"].get<double>(), 1e-4, 1e-9);
  // The larger of the two games' floors, and which: sqrt's is the hindsight game's (1.6279 against the menu game's
  // 1.5303 on this tile), pow10's the menu game's.
  EXPECT_EQ(j["floors"][0]["game"], "hindsight");
  EXPECT_EQ(j["floors"][0]["floor"], j["floors"][0]["hindsight"]);
  EXPECT_GT(j["floors"][0]["hindsight"].get<double>(), j["floors"][0]["menu"].get<double>() + 0.05);
  EXPECT_EQ(j["floors"][1]["game"], "menu");
  EXPECT_EQ(j["floors"][1]["floor"], j["floors"][1]["menu"]);
  const Result text = run_cli({"floor", "--f", "sqrt", "--n", "12288"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("sqrt      1.6279    1.6280       1.5303    1.6279"), std::string::npos) << text.out;
  const Result bad = run_cli({"floor", "--options", "tile=4008"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("multiple of 16"), std::string::npos) << bad.err;
  const Result short_n = run_cli({"floor", "--n", "8192"});
  EXPECT_EQ(short_n.code, 2);
  EXPECT_NE(short_n.err.find("past the calibration region"), std::string::npos) << short_n.err;
  EXPECT_EQ(run_cli({"floor", "--f", "nosuch"}).code, 2);
  const Result huge = run_cli({"floor", "--n", "4194304"});
  EXPECT_EQ(huge.code, 2);
  EXPECT_NE(huge.err.find("at most 2^21"), std::string::npos) << huge.err;
  // --every: the floor under pilots that choose only every N blocks; N must divide the tile's blocks.
  const Result every = run_cli({"floor", "--f", "sqrt", "--n", "12288", "--every", "16", "--probe-reads", "--json"});
  ASSERT_EQ(every.code, 0) << every.err;
  const auto je = nlohmann::json::parse(every.out);
  EXPECT_EQ(je["every"], 16);
  EXPECT_EQ(je["probe_reads"], true);
  EXPECT_GT(je["floors"][0]["floor"].get<double>(), j["floors"][0]["floor"].get<double>());
  const Result every3 = run_cli({"floor", "--every", "3"});
  EXPECT_EQ(every3.code, 2);
  EXPECT_NE(every3.err.find("must divide the tile's 256 blocks"), std::string::npos) << every3.err;
  EXPECT_EQ(run_cli({"floor", "--every", "0"}).code, 2);
}

}  // namespace
}  // namespace maskapply::cli
