// SPDX-License-Identifier: MIT
// Fuzz target `regret`: searches for countertests. It decodes a structured selection pattern, runs a pilot on
// it with the m5 model's calibration injected (d_max = 1 - (D - B) / T, so the run is deterministic and works
// under qemu), computes the model regret (generators/regret.h: pilot cost / clairvoyant block oracle), and
// rewards higher regret through a ratchet: for every (pilot, f) it sets one extra libFuzzer counter per regret
// bucket up to the one reached (buckets of 0.5% in log scale, up to 164), so an input that climbs higher than any before
// is new coverage and stays in the corpus, as Jazzer's `maximize` does. Each new best for a (pilot, f) is
// logged as a pattern file with its regret, n (its `length`), options and the `maskapply check` line that
// prints the same figure.
//
// Invariants checked on every input: the pattern text it builds parses (parse_pattern) and the trace of the
// pilot partitions [0, n) with every decision as the reference pilot's (fuzz.cpp: check_pilot_trace).
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
// MASKAPPLY_REGRET_DIR is where new bests go (default ./fuzz-regret under libFuzzer; none in replay).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cost_model.h"
#include "data.h"
#include "fuzz.h"
#include "pattern.h"
#include "regret.h"
#include "regret_eval.h"

using namespace maskapply;

namespace {

constexpr std::array<Kernel, 6> kPilots{Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5,
                                        Kernel::pilot_v4, Kernel::pilot_v5};
constexpr size_t kN = fuzz::kRegretN;
constexpr size_t kBuckets = 1024;  // regret 1.005^b: up to about 164
constexpr double kStep = 1.005;

// The ratchet. In the libFuzzer build the section makes libFuzzer read these as coverage counters.
#if defined(MASKAPPLY_LIBFUZZER)
__attribute__((section("__libfuzzer_extra_counters")))
#endif
uint8_t g_counters[kPilots.size()][kArticleFns.size()][kBuckets];

double g_best[kPilots.size()][kArticleFns.size()];
std::optional<size_t> g_pin_pilot, g_pin_f;
std::string g_dir;

size_t bucket(double regret) {
  if (!(regret > 1.0)) return 0;
  return std::min(kBuckets - 1, static_cast<size_t>(std::log(regret) / std::log(kStep)));
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

void log_best(Kernel k, Fn f, const gen::Regret& g, gen::Pattern p) {
  char r[32];
  std::snprintf(r, sizeof r, "%.4f", g.vs_oracle);
  const std::string base = std::string(name(k)) + "-" + std::string(name(f)) + "-" + r + ".pattern";
  const std::string file = g_dir + "/" + base;
  std::error_code ec;
  std::filesystem::create_directories(g_dir, ec);
  std::ofstream out(file);
  p.length = kN;  // `maskapply check` generates exactly the n the figure was computed at
  char head[512];
  std::snprintf(head, sizeof head,
                "# model regret %.4f (pilot cost / clairvoyant block oracle over the decided tiles; whole array "
                "%.4f; vs best fixed strategy %.4f) for %s, f = %s, model m5, n = %zu\n"
                "# options: the article's (tile 4096, probe 256, calibration 4 x 2048, verify 8 blocks, bail 0.75, "
                "distrust 16), d_max = m5's for f\n"
                "# reproduce: maskapply check --pattern %s --kernel %s --f %s --model m5\n",
                g.vs_oracle, g.whole, g.vs_fixed, std::string(name(k)).c_str(), std::string(name(f)).c_str(), kN,
                base.c_str(), std::string(name(k)).c_str(), std::string(name(f)).c_str());
  out << head << "# found by the regret fuzz target\n" << gen::to_text(p);
  std::fprintf(stderr, "#regret new best %s %s %.4f -> %s\n", std::string(name(k)).c_str(),
               std::string(name(f)).c_str(), g.vs_oracle, file.c_str());
}

// The model regret of pilot k with f on pattern p; a trace that differs from the reference pilot is a failure.
gen::Regret regret_of(Kernel k, Fn f, const gen::Pattern& p) {
  const fuzz::RegretEval e = fuzz::evaluate_regret(k, f, p, kN);
  if (!e.trace_error.empty())
    fuzz::fail("regret", std::string(name(k)) + " " + std::string(name(f)) + ": " + e.trace_error + "\npattern:\n" +
                             gen::to_text(p));
  return e.regret;
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
#if defined(MASKAPPLY_LIBFUZZER)
  if (g_dir.empty()) g_dir = "fuzz-regret";
#endif
  // The bar: the article's 17-tile cycle against v4 with fma13.
  const gen::ParseResult cycle = gen::parse_pattern("period 69632\nseg 512:1 512:0 rest:1\n");
  const gen::Regret g = regret_of(Kernel::pilot_v4, Fn::fma13, cycle.pattern());
  std::fprintf(stderr, "#regret baseline: the article's 17-tile cycle, pilot_v4, fma13, m5, n = %zu: %.4f\n", kN,
               g.vs_oracle);
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
  const gen::Regret g = regret_of(k, f, b->pattern);
  static const bool verbose = std::getenv("MASKAPPLY_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s %s regret %.4f (vs fixed %.4f)\n", std::string(name(k)).c_str(),
                 std::string(name(f)).c_str(), g.vs_oracle, g.vs_fixed);
  if (!std::isfinite(g.vs_oracle)) return 0;
  const size_t top = bucket(g.vs_oracle);
  for (size_t i = 0; i <= top; ++i) g_counters[pi][fi][i] = 1;
  if (g.vs_oracle > g_best[pi][fi]) {
    g_best[pi][fi] = g.vs_oracle;
    if (!g_dir.empty()) log_best(k, f, g, b->pattern);
  }
  return 0;
}
