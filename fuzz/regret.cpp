// SPDX-License-Identifier: MIT
// Fuzz target `regret`: searches for countertests. It decodes a structured selection pattern, scores a pilot on
// it with the hunt's fast exact evaluation (generators/hunt/: the pilot simulated from prefix counts, the model
// regret against the clairvoyant block oracle with its window cache; the same figure as the traced kernel's
// model_regret, property 15), m5 model, d_max injected, and rewards higher regret through two ratchets of
// libFuzzer extra counters:
//   per mechanism  a PerfFuzz-style ladder for each (pilot, f, mechanism of the costliest tile: what the decision
//                  read, the strategies run, the bail block, the cheapest single strategy there; hunt::Mechanism
//                  key) hashed into kSlots slots: the counters up to the regret's level (steps of 2 %) are set, so
//                  an input that raises the best regret of its mechanism is new coverage and stays in the corpus,
//                  and every way of fooling a pilot climbs its own ladder rather than one number;
//   per pilot x f  the same with steps of 0.5 %, so the top keeps climbing finely.
// Each new best for a (pilot, f) is shrunk (hunt::shrink, >= 99 % of its regret kept) and written as the same
// pattern file `maskapply hunt` writes (hunt::pattern_file: regret, pilot, f, model, n, options, d_max, the
// model's hash, mechanism in words, the `maskapply check` line), once the traced kernel has confirmed its figure,
// and logged as `#regret new best PILOT F REGRET -> FILE` (scripts/fuzz-overnight parses it).
//
// Invariants checked: the pattern text it builds parses (parse_pattern); and, on every input in the replay build
// (ctest replays corpus/regret), on every input that climbs a ladder under libFuzzer, and on every input with
// MASKAPPLY_REGRET_VERIFY=1: the pilot's kernel is run traced, its trace partitions [0, n) with every decision as
// the reference pilot's (fuzz.cpp: check_pilot_trace), and its model_regret equals the fast evaluation's to the
// last bit.
//
// Input layout, in the order FuzzedDataProvider consumes it (all integers, from the end of the input):
//   u8  pilot (mod 5: v1, v2, v3, v3.5, v4)    u8 f (mod 6: sqrt frfrexp sin35 sin10 pow10 fma13)
//   u8  segments (1..6)    u32 phase (mod period)    u64 seed (random segments)
//   per segment: u8 kind (bit 0: random, else regular; bit 1 on the last segment: `rest`, the period then
//   comes from u8 period tiles below), u8 unit (mod 6: 1, 16, 64, 256, 512, 4096 elements), u8 count (+1),
//   u8 density (/255)
//   u8  period tiles (1..24, x4096), only with a `rest` segment
// Always: the article's options (tile 4096, probe 256, calibration 4 x 2048), n = 8192 + 34 * 4096 (the
// calibration and two 17-tile cycles), data 0 / 1 with mask a < 0.5 (selected = 0).
// Environment: MASKAPPLY_REGRET_PILOT / MASKAPPLY_REGRET_F pin the pilot and f (a focused campaign);
// MASKAPPLY_REGRET_DIR is where new bests go (default ./fuzz-regret under libFuzzer; none in replay);
// MASKAPPLY_REGRET_VERIFY=1 checks every input against the traced kernel.
//
// The harness's state (the ladders, the bests, one Evaluator per pilot x f with its cache) lives in this file
// only: the libraries hold none.
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "cost_model.h"
#include "data.h"
#include "fuzz.h"
#include "pattern.h"
#include "pattern_file.h"
#include "regret.h"
#include "regret_eval.h"
#include "search.h"

using namespace maskapply;
namespace hunt = maskapply::gen::hunt;

namespace {

constexpr std::array<Kernel, 7> kPilots{Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5,
                                        Kernel::pilot_v4, Kernel::pilot_v5, Kernel::pilot_v6};
constexpr size_t kN = fuzz::kRegretN;
static_assert(kN == hunt::kHuntN, "the fuzz target and the hunt score the same array");
constexpr size_t kBuckets = 1024;  // per pilot x f: regret 1.005^b, up to about 164
constexpr double kStep = 1.005;
constexpr size_t kSlots = 512;     // per mechanism: (pilot, f, mechanism key) hashed into slots
constexpr size_t kLevels = 256;    // regret 1.02^l, up to about 159
constexpr double kLevelStep = 1.02;

// The ratchets. In the libFuzzer build the section makes libFuzzer read these as coverage counters.
struct Ladders {
  uint8_t fine[kPilots.size()][kArticleFns.size()][kBuckets];
  uint8_t mechanism[kSlots][kLevels];
};
#if defined(MASKAPPLY_LIBFUZZER)
__attribute__((section("__libfuzzer_extra_counters")))
#endif
Ladders g_ladders;

size_t g_top[kSlots];  // the highest level set per mechanism slot (+1; 0: none)
double g_best[kPilots.size()][kArticleFns.size()];
double g_written[kPilots.size()][kArticleFns.size()];
std::unique_ptr<hunt::Evaluator> g_eval[kPilots.size()][kArticleFns.size()];
std::optional<size_t> g_pin_pilot, g_pin_f;
std::string g_dir;
bool g_verify_all = false;

size_t level(double regret, double step, size_t count) {
  if (!(regret > 1.0)) return 0;
  return std::min(count - 1, static_cast<size_t>(std::log(regret) / std::log(step)));
}

hunt::Evaluator& evaluator(size_t pi, size_t fi) {
  if (!g_eval[pi][fi])
    g_eval[pi][fi] = std::make_unique<hunt::Evaluator>(kPilots[pi], kArticleFns[fi], gen::CostModel::m5(),
                                                       PilotOptions{}, kN);
  return *g_eval[pi][fi];
}

struct Built {
  std::string text;
  gen::Pattern pattern;
};

std::optional<Built> consume_pattern(FuzzedDataProvider& p) {
  static constexpr size_t kUnit[6] = {1, 16, 64, 256, 512, 4096};
  const size_t count = 1 + p.ConsumeIntegral<uint8_t>() % 6;
  const uint32_t phase = p.ConsumeIntegral<uint32_t>();
  const uint64_t seed = p.ConsumeIntegral<uint64_t>();
  std::ostringstream seg;
  uint64_t fixed = 0;
  bool rest = false;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t kind = p.ConsumeIntegral<uint8_t>();
    const size_t len = kUnit[p.ConsumeIntegral<uint8_t>() % 6] * (1 + size_t{p.ConsumeIntegral<uint8_t>()});
    const uint8_t dens = p.ConsumeIntegral<uint8_t>();
    char d[32];
    std::snprintf(d, sizeof d, "%s%.17g", kind & 1 ? "~" : "", dens / 255.0);
    rest = i + 1 == count && (kind & 2);
    if (rest) seg << " rest:" << d;
    else seg << " " << len << ":" << d, fixed += len;
  }
  uint64_t period = fixed;
  if (rest) period = std::max<uint64_t>(fixed + 1, 4096 * (1 + p.ConsumeIntegral<uint8_t>() % 24));
  std::ostringstream text;
  text << "period " << period << "\nphase " << phase % period << "\nseed " << seed << "\nseg" << seg.str() << "\n";
  Built b;
  b.text = text.str();
  const gen::ParseResult r = gen::parse_pattern(b.text);
  if (!r) fuzz::fail("regret", "the pattern it built does not parse: " + r.error().message() + "\n" + b.text);
  b.pattern = r.pattern();
  return b;
}

// The traced kernel's model regret must equal the fast evaluation's, and its trace the reference pilot's.
void verify(Kernel k, Fn f, const gen::Pattern& p, const hunt::Score& fast) {
  const fuzz::RegretEval e = fuzz::evaluate_regret(k, f, p, kN);
  const std::string where = std::string(name(k)) + " " + std::string(name(f)) + ": ";
  if (!e.trace_error.empty()) fuzz::fail("regret", where + e.trace_error + "\npattern:\n" + gen::to_text(p));
  const double want = e.regret.vs_oracle;
  if (!(fast.regret == want || (std::isnan(fast.regret) && std::isnan(want)))) {
    char msg[256];
    std::snprintf(msg, sizeof msg, "the hunt's fast evaluation gives model regret %.17g, the traced kernel %.17g",
                  fast.regret, want);
    fuzz::fail("regret", where + msg + "\npattern:\n" + gen::to_text(p));
  }
}

// A new best for pilot k and f: shrunk by the hunt's shrinking, written as the hunt's pattern file. Returns the
// shrunk pattern's regret (which may be higher than the input's).
double log_best(size_t pi, size_t fi, const hunt::Score& score, const gen::Pattern& p) {
  const Kernel k = kPilots[pi];
  const Fn f = kArticleFns[fi];
  hunt::Evaluator& ev = evaluator(pi, fi);
  const hunt::Find shrunk = hunt::shrink(ev, hunt::Find{p, score, "a new best for its pilot and f", 0});
  verify(k, f, shrunk.pattern, shrunk.score);  // the file's figure is the traced kernel's, or nothing is written
  const std::string base = hunt::pattern_file_name(k, f, shrunk.score.regret);
  std::error_code ec;
  std::filesystem::create_directories(g_dir, ec);
  const std::string file = g_dir + "/" + base;
  hunt::FileInfo info;  // m5, as the Evaluator
  info.pilot = k, info.f = f, info.options = ev.scorer().options(), info.n = kN;
  info.path = file, info.found_by = "the regret fuzz target";
  std::ofstream(file) << hunt::pattern_file(shrunk, info);
  std::fprintf(stderr, "#regret new best %s %s %.4f -> %s (unshrunk %.4f; %s)\n", std::string(name(k)).c_str(),
               std::string(name(f)).c_str(), shrunk.score.regret, file.c_str(), score.regret,
               shrunk.score.mechanism.key().c_str());
  return shrunk.score.regret;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char*** argv) {
  fuzz::set_program((*argv)[0]);
  if (const char* e = std::getenv("MASKAPPLY_REGRET_PILOT"); e && *e)
    for (size_t i = 0; i < kPilots.size(); ++i)
      if (name(kPilots[i]) == e) g_pin_pilot = i;
  if (const char* e = std::getenv("MASKAPPLY_REGRET_F"); e && *e)
    for (size_t i = 0; i < kArticleFns.size(); ++i)
      if (name(kArticleFns[i]) == e) g_pin_f = i;
  if (const char* e = std::getenv("MASKAPPLY_REGRET_DIR"); e && *e) g_dir = e;
  if (const char* e = std::getenv("MASKAPPLY_REGRET_VERIFY"); e && *e && *e != '0') g_verify_all = true;
#if defined(MASKAPPLY_LIBFUZZER)
  if (g_dir.empty()) g_dir = "fuzz-regret";
#else
  g_verify_all = true;  // the replay: every corpus input against the traced kernel
#endif
  // The bar: the article's 17-tile cycle against v4 with fma13.
  const gen::ParseResult cycle = gen::parse_pattern("period 69632\nseg 512:1 512:0 rest:1\n");
  const hunt::Score g = evaluator(4, 5)(cycle.pattern());
  verify(Kernel::pilot_v4, Fn::fma13, cycle.pattern(), g);
  std::fprintf(stderr, "#regret baseline: the article's 17-tile cycle, pilot_v4, fma13, m5, n = %zu: %.4f\n", kN,
               g.regret);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  FuzzedDataProvider p(bytes, size);
  size_t pi = p.ConsumeIntegral<uint8_t>() % kPilots.size();
  size_t fi = p.ConsumeIntegral<uint8_t>() % kArticleFns.size();
  if (g_pin_pilot) pi = *g_pin_pilot;
  if (g_pin_f) fi = *g_pin_f;
  const std::optional<Built> b = consume_pattern(p);
  if (!b) return 0;
  const Kernel k = kPilots[pi];
  const Fn f = kArticleFns[fi];
  const hunt::Score g = evaluator(pi, fi)(b->pattern);
  static const bool verbose = std::getenv("MASKAPPLY_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s %s regret %.4f (vs fixed %.4f) %s\n", std::string(name(k)).c_str(),
                 std::string(name(f)).c_str(), g.regret, g.vs_fixed, g.mechanism.key().c_str());
  const bool finite = std::isfinite(g.regret);
  // The mechanism's ladder.
  const std::string key = std::string(name(k)) + " " + std::string(name(f)) + " " + g.mechanism.key();
  const size_t slot = fuzz::fnv1a(key) % kSlots;
  const size_t top = finite ? level(g.regret, kLevelStep, kLevels) : 0;
  const bool climbed = finite && top + 1 > g_top[slot];
  if (g_verify_all || climbed) verify(k, f, b->pattern, g);
  if (!finite) return 0;
  for (size_t i = 0; i <= top; ++i) g_ladders.mechanism[slot][i] = 1;
  g_top[slot] = std::max(g_top[slot], top + 1);
  // The pilot x f's fine ladder.
  const size_t fine = level(g.regret, kStep, kBuckets);
  for (size_t i = 0; i <= fine; ++i) g_ladders.fine[pi][fi][i] = 1;
  if (g.regret > g_best[pi][fi]) {
    g_best[pi][fi] = g.regret;
    // A file when it beats the last one written by 1 % (shrinking costs a few hundred evaluations). The bar is
    // then the higher of the input's and the shrunk pattern's regret, so the logged bests only climb.
    if (!g_dir.empty() && g.regret > 1.01 * g_written[pi][fi]) {
      const double shrunk = log_best(pi, fi, g, b->pattern);
      g_written[pi][fi] = std::max(g.regret, shrunk);
      g_best[pi][fi] = std::max(g.regret, shrunk);
    }
  }
  return 0;
}
