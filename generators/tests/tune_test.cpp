// SPDX-License-Identifier: MIT
// `maskapply tune` in-process (docs/tune.md): it never returns options with a worse certified bound than its start,
// `maskapply hunt --options LINE` reprints every bound it prints and the library's parser reads every line back, a
// planted model whose answer is known gets it, and bad input exits 2. Small n and tiles of 1024 (the bound then takes
// a fraction of a second), as generators_cli_test's hunts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "cost_model.h"
#include "emulation.h"
#include "pattern_file.h"
#include "run_cli.h"
#include "tune.h"

namespace maskapply::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSmall = "tile=1024 probe=64 calib_len=512";
constexpr const char* kN = "20480";

class Tune : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("maskapply_tune_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string file(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary) << content;
    return path(name);
  }
  // tune --json on the small setting; extra arguments appended.
  nlohmann::json tune(const std::string& pilot, const std::string& f, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"tune", "--pilot", pilot, "--f", f, "--n", kN, "--options", kSmall, "--seconds", "0",
                                  "--out", path("tune"), "--json"};
    if (std::find(extra.begin(), extra.end(), "--budget") == extra.end()) args.insert(args.end(), {"--budget", "6"});
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json(nullptr);
  }
  fs::path dir_;
};

// The bound `maskapply hunt --options LINE` computes for pilot x f on the small setting.
double hunt_bound(const std::string& pilot, const std::string& f, const std::string& line,
                  std::vector<std::string> model = {}) {
  std::vector<std::string> args{"hunt", "--pilot", pilot, "--f", f, "--n", kN, "--options", line, "--budget", "0",
                                "--seconds", "0", "--keep", "1", "--out",
                                (fs::temp_directory_path() / ("maskapply_tune_test_hunt_" + std::to_string(getpid())))
                                    .string(),
                                "--json"};
  args.insert(args.end(), model.begin(), model.end());
  const Result r = run_cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return NAN;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  return j["best"][0]["bound"].get<double>();
}

// Under an emulator (gen::under_emulation(): the qemu presets, an emulated arm64 system) the two heaviest tests run
// one f or one pilot: the same code on the same doubles, natively checked in full (64 s on a 2-core x86-64 VM).
bool emulated() { return gen::under_emulation(); }

TEST_F(Tune, NeverReturnsOptionsWithAWorseCertifiedBoundThanItsStartAndNeverLosesToTheOneKnobSweep) {
  for (const std::string f : {"pow10", "fma13"}) {
    if (emulated() && f != "pow10") continue;
    const nlohmann::json j = tune("v3_5", f, {"--budget", "4"});
    ASSERT_FALSE(j.is_null());
    const auto& r = j["results"][0];
    SCOPED_TRACE(r.dump());
    EXPECT_LE(r["bound_after"].get<double>(), r["bound_before"].get<double>());
    EXPECT_LE(r["sweep"]["bound"].get<double>(), r["bound_before"].get<double>());
    EXPECT_LE(r["bound_after"].get<double>(), r["sweep"]["bound"].get<double>());
    EXPECT_LE(r["plain_worst"].get<double>(), 1.03);
    // The floor of the tuned options' family (v3.5: its verify pieces, its probe) lies under their bound.
    EXPECT_LE(r["floor"].get<double>(), r["bound_after"].get<double>());
    EXPECT_TRUE(r["floor_probe_reads"].get<bool>());
    EXPECT_GE(r["floor_every"].get<size_t>(), 1u);
  }
  // A start at a poor corner (no bail, a tiny probe) under pilot_v4 with two knobs.
  const Result r = run_cli({"tune", "--pilot", "v4", "--f", "sin35", "--n", kN, "--options",
                            "tile=1024 probe=16 calib_len=512 bail=0 distrust=32", "--knobs", "probe,distrust",
                            "--seconds", "0", "--budget", "4", "--out", path("t4"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& e = j["results"][0];
  EXPECT_LE(e["bound_after"].get<double>(), e["bound_before"].get<double>()) << e.dump();
}

// The library tests' start: f's options under m, in tiles of 1024 with a probe of 64 and calibration pieces of 512.
PilotOptions small_start(const gen::CostModel& m, Fn f) {
  PilotOptions o = gen::model_options(m, f);
  o.tile = 1024, o.probe = 64, o.calib_len = 512;
  return o;
}

// The library, under a plain-data rule no candidate can meet (cost at most half the start's): the start comes back.
TEST_F(Tune, ReturnsItsStartWhenNoCandidateMeetsThePlainDataRule) {
  gen::hunt::TuneConfig c;
  c.n = 20480, c.budget = 4, c.seconds = 0, c.plain.max_ratio = 0.5;
  c.knobs = {gen::hunt::Knob::probe, gen::hunt::Knob::lo};
  const gen::CostModel m = gen::CostModel::m5();
  const PilotOptions o = small_start(m, Fn::fma13);
  const gen::hunt::TuneResult r = gen::hunt::tune(Kernel::pilot_v3_5, Fn::fma13, m, o, c);
  EXPECT_EQ(gen::hunt::options_text(r.best.options), gen::hunt::options_text(o));
  EXPECT_EQ(r.best.bound, r.start.bound);
  EXPECT_GT(r.refused_plain, 0u);
  EXPECT_EQ(r.bounds, 1u);  // the start's only
}

// A knob the pilot does not read moves nothing: pilot_v6 runs no probe when d_max < 0 (sqrt), so every probe
// certifies the same bound up to the bisection's last bits, and tune keeps its start instead of reporting a move.
TEST_F(Tune, KeepsItsStartWhenAKnobOnlyTiesItsBound) {
  gen::hunt::TuneConfig c;
  c.n = 20480, c.budget = 2, c.seconds = 0, c.knobs = {gen::hunt::Knob::probe};
  const gen::CostModel m = gen::CostModel::m5();
  const PilotOptions o = small_start(m, Fn::sqrt);
  ASSERT_LT(*o.d_max, 0.0);
  const gen::hunt::TuneResult r = gen::hunt::tune(Kernel::pilot_v6, Fn::sqrt, m, o, c);
  EXPECT_EQ(gen::hunt::options_text(r.best.options), gen::hunt::options_text(o)) << r.best.moved;
  EXPECT_EQ(gen::hunt::options_text(r.sweep.options), gen::hunt::options_text(o)) << r.sweep.moved;
  EXPECT_EQ(r.best.moved, "");
  EXPECT_EQ(r.best.bound, r.start.bound);
}

// A seed (what `maskapply tune` hands a pilot from another pilot's tune of the same f) that no move of the searched
// knob reaches: restricted to verify_blocks, pilot_v4 fma13 gets probe=16 lo=0.2 only from the seed, and keeps it.
TEST_F(Tune, TriesItsSeedsAfterTheSweepAndKeepsOneThatLowersTheBound) {
  gen::hunt::TuneConfig c;
  c.n = 20480, c.budget = 0, c.seconds = 0, c.knobs = {gen::hunt::Knob::verify_blocks};
  const gen::CostModel m = gen::CostModel::m5();
  const PilotOptions o = small_start(m, Fn::fma13);
  PilotOptions seed = o;
  seed.probe = 16, seed.lo = 0.2;
  c.seeds = {o, seed};  // the start itself first: a seed that is no better is passed over
  const gen::hunt::TuneResult r = gen::hunt::tune(Kernel::pilot_v4, Fn::fma13, m, o, c);
  EXPECT_EQ(r.seed, 1);
  EXPECT_LT(r.best.bound, r.sweep.bound);
  EXPECT_LE(r.best.bound, gen::hunt::regret_bound(Kernel::pilot_v4, Fn::fma13, m, seed, c.n).bound);
  EXPECT_NE(r.best.moved.find("probe=16"), std::string::npos) << r.best.moved;
  EXPECT_LE(r.best.plain_worst, 1.03);
}

// `maskapply tune --pilot v3_5,v4`: pilot_v4 is handed pilot_v3_5's tuned knobs for the same f, and says so when its
// best descends from them; the JSON names the pilot (null otherwise).
TEST_F(Tune, HandsEachPilotTheKnobsTheEarlierPilotsTunesMovedForTheSameF) {
  const nlohmann::json j = tune("v3_5,v4", "fma13", {"--knobs", "lo", "--budget", "0"});
  ASSERT_FALSE(j.is_null());
  ASSERT_EQ(j["results"].size(), 2u);
  const auto& v35 = j["results"][0];
  const auto& v4 = j["results"][1];
  SCOPED_TRACE(j.dump());
  EXPECT_TRUE(v35["seeded_by"].is_null());
  EXPECT_EQ(v35["seeds_from"], nlohmann::json::array());
  ASSERT_FALSE(v35["moved"].get<std::string>().empty());  // on this setting pilot_v3_5 moves lo
  EXPECT_EQ(v4["seeds_from"], nlohmann::json::array({"pilot_v3_5"}));
  if (!v4["seeded_by"].is_null()) {
    EXPECT_EQ(v4["seeded_by"], "pilot_v3_5");
  }
}

TEST_F(Tune, HuntOptionsReprintsEveryBoundItPrintsAndTheLibrarysParserReadsEveryLineBack) {
  for (const std::string pilot : {"v3_5", "v4"}) {
    if (emulated() && pilot != "v4") continue;
    const nlohmann::json j = tune(pilot, "fma13", pilot == "v4" ? std::vector<std::string>{"--knobs", "probe,lo,distrust"}
                                                                : std::vector<std::string>{});
    ASSERT_FALSE(j.is_null());
    const auto& r = j["results"][0];
    SCOPED_TRACE(r.dump());
    for (const auto& [line, bound] : {std::pair{r["start_options"], r["bound_before"]},
                                      std::pair{r["sweep"]["options"], r["sweep"]["bound"]},
                                      std::pair{r["options"], r["bound_after"]}}) {
      const std::string text = line.get<std::string>();
      EXPECT_EQ(hunt_bound(pilot, "fma13", text), bound.get<double>()) << text;
      const auto parsed = gen::hunt::parse_options_text(text);
      ASSERT_TRUE(std::holds_alternative<PilotOptions>(parsed)) << std::get<std::string>(parsed);
      EXPECT_EQ(gen::hunt::options_text(std::get<PilotOptions>(parsed)), text);
    }
    // The witness file replays its figure through the real kernel, by the line tune printed.
    std::istringstream words(r["check"].get<std::string>());
    std::vector<std::string> args;
    for (std::string w; words >> w;) args.push_back(w);
    ASSERT_EQ(args.at(0), "maskapply");
    args.erase(args.begin());
    args.push_back("--json");
    const Result c = run_cli(args);
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_EQ(nlohmann::json::parse(c.out)["results"][0]["model_regret"].get<double>(), r["witness_regret"].get<double>());
    EXPECT_NEAR(r["witness_regret"].get<double>(), r["bound_after"].get<double>(), 1e-6 * r["bound_after"].get<double>());
  }
}

// A model whose probe costs 1000 ns a register: the probe dwarfs everything a tile does, so the least bound has the
// least probe on the grid (16), and cheaper probes only lower plain data's cost. Under m5 the answer is another.
TEST_F(Tune, APlantedModelWhoseProbeDwarfsEverythingGetsTheSmallestProbe) {
  gen::CostModel m = gen::CostModel::m5();
  m.name = "planted";
  m.Q = 1000;
  const std::string model = file("planted.json", m.to_json());
  const nlohmann::json p = tune("v3_5", "sin10", {"--knobs", "probe", "--model", model});
  const nlohmann::json q = tune("v3_5", "sin10", {"--knobs", "probe"});
  ASSERT_FALSE(p.is_null());
  ASSERT_FALSE(q.is_null());
  EXPECT_EQ(p["results"][0]["moved"], "probe=16") << p.dump();
  EXPECT_NE(q["results"][0]["moved"], "probe=16") << q.dump();
  EXPECT_LT(p["results"][0]["bound_after"].get<double>(), p["results"][0]["bound_before"].get<double>());
  // Its bound is the planted model's, reprinted by hunt under the same model file.
  EXPECT_EQ(hunt_bound("v3_5", "sin10", p["results"][0]["options"].get<std::string>(), {"--model", model}),
            p["results"][0]["bound_after"].get<double>());
}

TEST_F(Tune, TextNamesTheOptionsLineTheSweepAndTheWitnessesCheckLine) {
  const Result r = run_cli({"tune", "--pilot", "v3_5", "--f", "pow10", "--n", kN, "--options", kSmall, "--knobs",
                            "lo,bail", "--seconds", "0", "--budget", "2", "--out", path("t")});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"plain-data rule: on uniform random selections at densities 0.005 ", "| one-knob sweep |",
                        "| pilot_v3_5 | pow10 | ", "  --options \"tile=1024 probe=64 ",
                        "maskapply check --pattern ", "tune beats the one-knob sweep in "})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_NE(r.err.find("maskapply tune: pilot_v3_5 pow10: bound "), std::string::npos) << r.err;
}

TEST_F(Tune, BadInputExitsTwoWithAMessageAndWritesNothing) {
  const std::string out = path("never");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string bad_model = file("bad.json", "{\"model\": \"x\"");
  for (const Case& c : {Case{{"--pilot", "v5"}, "pilot_v5 has no certified bound to tune"},
                        Case{{"--pilot", "nosuch"}, "unknown pilot 'pilot_nosuch'"},
                        Case{{"--options", "tile=abc"}, "--options: bad value 'abc'"},
                        Case{{"--options", "title=1024"}, "--options: unknown option 'title'"},
                        Case{{"--options", "tile=1000 probe=64"}, "off the certified bound's grid"},
                        Case{{"--model", path("no-such-model.json")}, "unknown model"},
                        Case{{"--model", "host", "--model-file", path("no-such-model.json")}, "cannot read host model"},
                        Case{{"--model", bad_model}, "malformed host model"},
                        Case{{"--knobs", "nosuch"}, "--knobs: unknown knob 'nosuch' (known: tile, probe, xlo, lo, "
                                                        "verify_blocks, bail, distrust, v6_pieces, v6_bail, v6_lo, "
                                                        "v6_floor, v6_band, v6_score_switch, v6_score_blend, v6_score_skip, "
                                                        "v6_score_sample, v6_dense_cut, v6_dense_block, v6_reg, "
                                                        "v6_dear_floor, v6_dear_probe, v6_cheap_probe, v6_cs, "
                                                        "v6_cs_empty, v6_cs_switch, v6_cs_block, v6_cs_reg, "
                                                        "v6_cs_elem, v6_cs_to_skip, v6_cs_to_compact, v6_cs_sample, "
                                                        "v6_cs_probation)"},
                        Case{{"--pilot", "v3_5", "--knobs", "distrust"}, "pilot_v3_5 does not read distrust"},
                        // `all` is every pilot with a bound: v3.5 (the first) and v6 (the only one without bail).
                        Case{{"--pilot", "all", "--knobs", "v6_bail"}, "pilot_v3_5 does not read v6_bail"},
                        Case{{"--pilot", "all", "--knobs", "bail"}, "pilot_v6 does not read bail"},
                        Case{{"--f", "nosuch"}, "unknown f 'nosuch'"},
                        Case{{"--budget", "-1"}, "--budget"},
                        Case{{"--n", "100"}, "--n"}}) {
    std::vector<std::string> args{"tune", "--f", "fma13", "--n", kN, "--seconds", "0", "--budget", "1", "--out", out};
    if (std::find(c.args.begin(), c.args.end(), "--options") == c.args.end()) args.insert(args.end(), {"--options", kSmall});
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Result r = run_cli(args);
    EXPECT_EQ(r.code, 2) << c.message << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.message;
  }
}

}  // namespace
}  // namespace maskapply::cli
