// SPDX-License-Identifier: MIT
// A prototype for sqrt (docs/pilot_v6.md, "Rules tried", stop 60): pilot_v6's switch score gated by a
// potential, as pilot_v6 runs it with v6_gate = 1. Not a kernel: the bound's block-level model of the rule and its
// certificate (gate_bound.h: the rule, O_lb and the potential argument are stated there, shared with the bound),
// and checks of both against the suite's model.
//
// The rule. Two switch scores (v6's d_max < 0 branch: blend_skip <-> blend, one block in `samp` counted in
// blend): the "plain" one (v6's defaults 3/17/6/4: 1.027 on uniform data, 2.258 in the long run against the
// adversary) and a "safe" one (3/3/2, every blended block counted: 1.836 in the long run, 1.091 on uniform
// data). The pilot keeps
//   g = P - lambda * O_lb
// in integers (1/U ns; its own costs rounded up, the oracle's down), where P is what it ran and O_lb is the
// least the block oracle can have paid for what the pilot saw: a two-entry min-plus vector (the oracle's cost
// so far ending outside / inside a blend_skip run), a block the pilot did not look at counted as empty. It
// runs the safe score while g >= -G1 and goes back to the plain one once g <= -G2; g is clamped at -CAP from
// below. Runs and tiles as pilot_v6's: a tile's blend_skip run is a new run, the score and `last` restart at 0
// in every tile, no mode switch after a tile's last block; the mode and the gate go on across tiles.
//
// The certificate (a potential argument, not the bound's tile program). While the safe score runs, the
// pilot's moves do not depend on g, so W(s) = the most g can still rise from the discrete state s over every
// input, W(s) = max(0, max over the block's two contents of [dg + W(s')]), is a value iteration over the safe
// score's states (the tile position included) from every state a switch can enter. It converges iff the safe
// score loses less than lambda against O_lb in the long run. Then g never exceeds max(W(start), -G1 + delta +
// max W) (delta: the most one block adds; the plain score runs only while g < -G1), so P - lambda O <= that
// for every input (O >= O_lb), and P / O <= lambda + that / O_min(n), O_min the all-empty input's oracle.
//
// Checked here (each check fails the run, exit 1): the model's step, run as pilot_v6 is built, and its oracle
// against the suite's Scorer on uniform data and on the pattern files given (to 1e-9); the two-entry oracle
// against the suite's whole-menu oracle on structured random inputs; every input of 1 .. CHECKL blocks
// against the certificate; W(start) against an exact forward dynamic program over every input of up to DPL
// blocks (the safe score alone); the gated rule's trace (gated_trace) costed by the Scorer against the
// model's step; with --check, the suite's hunt against that trace (its best under the certificate, SUITEHUNT
// = budget, SUITEHUNT_SEED) and hill-climbs on P / O (the gated rule, the plain score alone) and on the most
// P - lambda O after any block (the gated rule: above the certificate's g refutes it). Not covered: the
// kernel, the decision reference, the bound's program, the pilot's bookkeeping time (the model charges
// neither the score's nor the potential's scalar work), any f but sqrt (for sin35 a per-block machine
// certifies 1.996 over 36 tiles and could be the safe half, but its O_lb needs the whole menu's oracle:
// docs/pilot_v6.md).
//
// Run: build/x86/generators/maskapply_v6_gate_explore [--check [pattern files]] (--time: the gate on the kernel, below)
// (pilot_v6's gate options: lambda 1.88, G1 20, G2 40, CAP 80 ns; it prints "certified: P / O <= 1.88 + 2.237 /
// 6715.4 = 1.8803 over the bound's 8704 decided blocks"). ctest runs it as generators_v6_gate_prototype_test
// (--check and pilot_v6's sqrt witness). Knobs (environment, into the options): LAMBDA (v6_gate_lambda, in 1/100),
// G1 G2 CAP (whole ns), P_SW P_TB P_TS P_SAMP (v6_score_*), S_SW S_TB S_TS S_SAMP (v6_safe_*), TILE (elements),
// NOGATE=1 (uniform data: the plain score alone), NOUNI=1, SWEEP=1 (only the safe score's long-run ratio), CHECKR
// (random inputs), CHECKL (blocks), DPL (blocks), HUNT (steps), HUNTN, HUNTSEEDS, PATTERNS=file,file. The
// probation score is the kernel's (to_blend - sw); the units are the kernel's (1/64 ns).
#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "emulation.h"
#include "gate_bound.h"
#include "registry.h"
#include "pattern.h"
#include "regret.h"
#include "search.h"
#include "tune.h"

using namespace maskapply;
using namespace maskapply::gen;
using namespace maskapply::gen::hunt;
using ll = long long;

namespace {

double env(const char* k, double d) { return getenv(k) ? atof(getenv(k)) : d; }

constexpr size_t kUniformN = 8192 + 94 * 4096;  // generators_v6_test's uniform data
constexpr size_t kCalibBlocks = 8192 / 16;      // the calibration region (not decided)
// The decided blocks of the bound's and the hunt's n (36 tiles).
constexpr size_t kBoundBlocks = kHuntN / 16 - kCalibBlocks;

struct Costs {  // sqrt under m5, ns per block of 16
  double b, e, M, V4, c4;
};

// What a block the model's step ran costs in doubles (the Scorer's figure); ne: it is non-empty.
double price(const GateBlock& k, bool ne, const Costs& c) {
  if (k.skip) return (ne ? c.b : c.e) + (k.mispredicted ? c.M : 0);
  return c.b + (k.counted ? c.V4 : 0);
}

double run_pilot(const std::vector<bool>& ne, const GateRule& G, const Costs& c, bool start_safe) {
  GateModelState s = GateModelState::start(G);
  s.safe = start_safe;
  double P = 0;
  for (bool x : ne) P += price(gate_step(s, x, G), x, c);
  return P;
}

// The block oracle for sqrt in doubles: O_lb's recurrence with every block seen, a block at a time.
struct TwoEntryOracle {
  double R = 0, S;
  explicit TwoEntryOracle(const Costs& c) : S(c.M) {}
  double add(bool ne, const Costs& c) {
    gate_oracle_step<double>(R, S, true, ne, c.b, c.e, c.M, c.c4);
    return std::min(R, S);
  }
};
double two_entry_oracle(const std::vector<bool>& ne, const Costs& c) {
  TwoEntryOracle o(c);
  double cost = 0;
  for (bool x : ne) cost = o.add(x, c);
  return cost;
}

std::vector<bool> decided_blocks(const Summary& s) {
  std::vector<bool> ne;
  for (size_t i = kCalibBlocks; i < s.blocks().size(); ++i) ne.push_back(!s.blocks()[i].empty());
  return ne;
}

// The gated rule as the suite's Scorer sees a pilot: its trace (calibration tiles blended, then per decided
// tile a blend_skip run from the tile's start or a switch, blend runs, and a blend_verified run per counted
// block), so that the Scorer costs it, its oracle judges it and the hunt searches it. Costs to the model's
// step: checked.
void gated_trace(const Summary& sm, const PilotOptions& o, Trace& out, const GateRule& G) {
  out.clear();
  const size_t n = sm.size(), region = std::min(n, o.calib_blocks * o.calib_len);
  size_t index = 0;
  const auto tile = [&](size_t b, size_t e, CountSource src) {
    TileDecision d;
    d.index = index++, d.begin = b, d.end = e, d.source = src;
    out.tiles.push_back(d);
  };
  for (size_t i = 0; i < region; i += o.calib_len) {
    tile(i, std::min(i + o.calib_len, region), CountSource::calibration);
    out.runs.push_back(Run{i, std::min(i + o.calib_len, region), Strategy::blend});
  }
  GateModelState st = GateModelState::start(G);
  for (size_t i = region; i < n; i += o.tile) {
    const size_t end = std::min(i + o.tile, n);
    tile(i, end, CountSource::none);
    size_t from = i;
    Strategy running = Strategy::blend;
    bool open = false;
    const auto close = [&](size_t at) {
      if (open && from < at) out.runs.push_back(Run{from, at, running});
      open = false, from = at;
    };
    for (size_t b = i; b + 16 <= end; b += 16) {
      const GateModelScore& sc = st.safe ? G.safe : G.plain;
      const bool counted = !st.skip && st.pos % sc.sample == sc.sample - 1;
      const Strategy now = st.skip   ? Strategy::blend_skip
                           : counted ? Strategy::blend_verified
                                     : Strategy::blend;
      if (!open || now != running || now == Strategy::blend_verified) close(b), running = now, open = true;
      gate_step(st, !sm.blocks()[b / 16].empty(), G);
      if (now == Strategy::blend_verified) close(b + 16);
    }
    if (from < end)
      out.runs.push_back(Run{from, end, open ? running : Strategy::blend});  // a short tail joins
  }
}

}  // namespace

// --time: the gate's bookkeeping, measured on the kernel users run (run_kernel, pilot_v6, sqrt, the model's d_max
// injected): per density of uniform data, the least of REPS runs of each, alternating, in one process. Measures,
// asserts nothing; not under an emulator.
int time_gate() {
  if (under_emulation()) {
    printf("--time: not under an emulator (its times are not the machine's)\n");
    return 0;
  }
  const CostModel m = CostModel::m5();
  PilotOptions on = model_options(m, Fn::sqrt), off = on;
  off.v6_gate = 0;
  const int reps = static_cast<int>(env("REPS", 15));
  const size_t n = kUniformN;
  const auto now = [] {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
  };
  printf("pilot_v6, sqrt, n = %zu, the least of %d runs each (ns per element): density, gate off, gate on, on / off\n",
         n, reps);
  Workspace ws;
  for (const double d : {0.0, 0.005, 0.02, 0.1, 0.5, 1.0}) {
    const std::vector<float> data = make_data(selection(uniform_pattern(n, d, 1), n), 0.5f, 1);
    std::vector<float> a(n);
    double best[2] = {1e300, 1e300};
    for (int r = 0; r < reps; ++r)
      for (int g = 0; g < 2; ++g) {
        if (getenv("ONLY") && g != atoi(getenv("ONLY"))) continue;  // ONLY=0 or 1: one of the two (for a profiler)
        a = data;
        const double t0 = now();
        run_kernel(Kernel::pilot_v6, Fn::sqrt, MaskSpec{MaskKind::less, 0.5f, 0, 0}, a.data(), n, ws, g ? on : off);
        best[g] = std::min(best[g], now() - t0);
      }
    printf("  %5.3f  %.4f  %.4f  %.4f\n", d, best[0] / static_cast<double>(n), best[1] / static_cast<double>(n),
           best[1] / best[0]);
  }
  return 0;
}

int main(int argc, char** argv) {
  // --check: the hill-climbs too (HUNT 20000 unless given); the exit status says whether every check held.
  // Pattern files after it (or in PATTERNS=file,file) are scored too.
  if (argc == 2 && std::string(argv[1]) == "--time") return time_gate();
  const bool check = argc >= 2 && std::string(argv[1]) == "--check";
  if (argc >= 2 && !check) {
    fprintf(stderr,
            "usage: maskapply_v6_gate_explore [--check [pattern files] | --time] (knobs in the environment: see the "
            "file's top)\n");
    return 2;
  }
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) files.push_back(argv[i]);
  if (const char* list = getenv("PATTERNS")) {
    std::stringstream names(list);
    for (std::string file; std::getline(names, file, ',');) files.push_back(file);
  }
  bool failed = false;
  const CostModel m = CostModel::m5();
  const Fn f = Fn::sqrt;
  // The options: the model's costs, pilot_v6's gate (v6_gate = 1) with the knobs above.
  PilotOptions o = model_options(m, f);
  const auto knob = [](const char* k, size_t& field) {
    if (getenv(k)) field = static_cast<size_t>(atof(getenv(k)));
  };
  o.v6_gate = getenv("NOGATE") ? 0 : 1;  // the plain score alone
  knob("LAMBDA", o.v6_gate_lambda), knob("G1", o.v6_gate_g1), knob("G2", o.v6_gate_g2), knob("CAP", o.v6_gate_cap);
  knob("P_SW", o.v6_score_switch), knob("P_TB", o.v6_score_blend), knob("P_TS", o.v6_score_skip);
  knob("P_SAMP", o.v6_score_sample);
  knob("S_SW", o.v6_safe_switch), knob("S_TB", o.v6_safe_blend), knob("S_TS", o.v6_safe_skip);
  knob("S_SAMP", o.v6_safe_sample), knob("TILE", o.tile);
  if (const std::string e = o.validate(); !e.empty() || o.tile % 16) {
    fprintf(stderr, "maskapply_v6_gate_explore: %s\n", e.empty() ? "TILE must be a multiple of 16" : e.c_str());
    return 2;
  }
  const Costs c{4 * m.t_bsl(f), 4 * m.S, m.M, 4 * m.V, 4 * m.C};
  const GateRule G = GateRule::from(o);
  PilotOptions ungated = model_options(m, f);  // v6 with its score alone (v6_gate = 0), tiles of 4096
  ungated.v6_gate = 0;
  const GateRule built = GateRule::from(ungated);
  if (const std::string e = gate_model_unsupported(o, m, f); !e.empty()) {
    printf("the gate's costs: %s\n", e.c_str());
    failed = true;
  }
  const double lambda = static_cast<double>(G.lambda) / 100.0;
  printf(
      "sqrt under m5, a block: blend %.4f, skipped %.4f, misprediction %.4f, counted +%.4f, detour (empty) "
      "%.4f ns\n",
      c.b, c.e, c.M, c.V4, c.c4);
  printf(
      "plain score %d/%d/%d/%d (probation %d), safe score %d/%d/%d/%d (probation %d), lambda %.2f, G1 %zu G2 %zu "
      "CAP %zu ns, tiles of %d blocks\n",
      G.plain.sw, G.plain.to_blend, G.plain.to_skip, G.plain.sample, G.plain.probation(), G.safe.sw,
      G.safe.to_blend, G.safe.to_skip, G.safe.sample, G.safe.probation(), lambda, o.v6_gate_g1, o.v6_gate_g2,
      o.v6_gate_cap, G.tile_blocks);

  const Scorer::Simulate gated_sim = [&](const Summary& sm, const PilotOptions& po, Trace& t) {
    gated_trace(sm, po, t, G);
  };
  Scorer gated(gated_sim, Kernel::pilot_v6, f, m, o);
  // 1. Uniform data (generators_v6_test's): the model's v6 and oracle against the Scorer, then the gated
  // rule.
  if (!getenv("NOUNI")) {
    double worst = 0, at = 0, worst6 = 0;
    size_t mismatches = 0;
    for (double d :
         {0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.6, 0.7, 0.9, 1.0})
      for (uint64_t seed : {1, 2}) {
        Summary s;
        s.assign(uniform_pattern(kUniformN, d, seed), kUniformN);
        double best = 1e300;
        for (Kernel k : kPilots)
          if (k < Kernel::pilot_v5) best = std::min(best, Scorer(k, f, m).score(s).pilot_cost);
        const Score v6 = Scorer(Kernel::pilot_v6, f, m, ungated).score(s);
        const std::vector<bool> ne = decided_blocks(s);
        const double mine = run_pilot(ne, built, c, false), orc = two_entry_oracle(ne, c);
        if (std::fabs(mine - v6.pilot_cost) > 1e-9 * mine || std::fabs(orc - v6.oracle_cost) > 1e-9 * orc)
          ++mismatches, failed = true;
        const double P = run_pilot(ne, G, c, G.gated);
        if (G.gated && std::fabs(P - gated.score(s).pilot_cost) > 1e-9 * P) ++mismatches, failed = true;
        // pilot_v6 as built (the hunt's model of the kernel, the gate included) with these options.
        if (G.gated && std::fabs(P - Scorer(Kernel::pilot_v6, f, m, o).score(s).pilot_cost) > 1e-9 * P)
          ++mismatches, failed = true;
        const double r = P / best;
        if (r > worst) worst = r, at = d;
        worst6 = std::max(worst6, v6.pilot_cost / best);
      }
    printf(
        "uniform data, the best of v1-v4 = 1: %s %.4f (density %g), v6 without the gate %.4f; the model against "
        "the Scorer (v6 without the gate; the gated rule's trace; pilot_v6 with these options): %zu of 34 differ\n",
        G.gated ? "gated" : "the plain score alone", worst, at, worst6, mismatches);
  }

  if (!G.gated)
    return failed ? 1 : 0;  // NOGATE: the plain score alone has no certificate here (its long run: 2.258)

  // 2. The certificate (SWEEP=1: only each score's long-run ratio below).
  const GateCertificate safe = certify_score(G, G.safe, getenv("SWEEP") ? 1 : 200000);
  const double gmax = safe.gmax;
  failed = failed || !safe.converged;
  const double omin = two_entry_oracle(std::vector<bool>(kBoundBlocks, false), c);
  const double certified = lambda + std::max(0.0, gmax) / omin;
  printf(
      "certificate: the safe score's W over %zu states, %zu iterations%s: W(start) %.3f, max W %.3f, one "
      "block "
      "%.3f ns; g <= %.3f ns\n",
      safe.states, safe.iterations, safe.converged ? "" : " (NOT converged)", safe.w_start, safe.w_max,
      safe.delta, gmax);
  if (safe.converged)
    printf("certified: P / O <= %.2f + %.3f / %.1f = %.4f over the bound's %zu decided blocks\n", lambda,
           gmax, omin, certified, kBoundBlocks);
  // Each score alone: the least lambda (to 0.01) at which its W converges, its long-run ratio against O_lb.
  for (const auto& [name, sc] : {std::pair{"safe", G.safe}, std::pair{"plain", G.plain}}) {
    if (getenv("SWEEP") && std::string(name) == "plain") return 0;
    double lo = 1.0, hi = 3.0;
    for (int it = 0; it < 8; ++it) {
      GateRule Z = G;
      Z.lambda = static_cast<ll>(std::round((lo + hi) / 2 * 100));
      (certify_score(Z, sc, 4000).converged ? hi : lo) = (lo + hi) / 2;
    }
    printf("the %s score alone: W converges from lambda %.3f (not at %.3f)\n", name, hi, lo);
  }

  // 3. Checks: the two-entry oracle against the suite's on structured random inputs; every short input.
  {
    uint64_t x = 12345;
    const auto rnd = [&]() { return x ^= x << 13, x ^= x >> 7, x ^= x << 17, x; };
    size_t bad = 0;
    const int tries = int(env("CHECKR", 300));
    for (int t = 0; t < tries; ++t) {
      const size_t nb = 1 + rnd() % 2000;
      std::vector<BlockSummary> bl;
      std::vector<bool> ne;
      bool cur = false;
      for (size_t i = 0; i < nb; ++i) {
        if (t % 3 == 0)
          cur = rnd() % 2;
        else if (t % 3 == 1)
          cur = rnd() % (1 + t % 7) == 0 ? !cur : cur;
        else
          cur = rnd() % 10 < static_cast<uint64_t>(t % 10);
        const uint8_t sel = cur ? static_cast<uint8_t>(1 + rnd() % 16) : 0;
        bl.push_back(
            BlockSummary{sel, static_cast<uint8_t>(std::min<int>(sel, sel ? 1 + rnd() % 4 : 0)), 16});
        ne.push_back(cur);
      }
      const double a = two_entry_oracle(ne, c), b = oracle_cost(bl, m, f, o, 8192);
      bad += std::fabs(a - b) > 1e-9 * b;
    }
    printf("the two-entry oracle against the suite's whole-menu oracle: %zu of %d inputs differ\n", bad,
           tries);
    failed = failed || bad;
    // Every input of 1 .. L blocks (so every prefix of the longest), each against the suite's oracle: the
    // certificate bounds P - lambda O after every block, and its binding case is short (2 blocks).
    const int L = int(env("CHECKL", 18));
    double worst = -1e300;
    for (int len = 1; len <= L; ++len)
      for (uint32_t bits = 0; bits < (1u << len); ++bits) {
        std::vector<bool> ne;
        std::vector<BlockSummary> bl;
        for (int i = 0; i < len; ++i) {
          const bool v = bits >> i & 1;
          ne.push_back(v);
          bl.push_back(BlockSummary{uint8_t(v), uint8_t(v), 16});
        }
        worst = std::max(worst, run_pilot(ne, G, c, true) - lambda * oracle_cost(bl, m, f, o, 8192));
      }
    printf("every input of 1 to %d blocks: P - lambda O at most %.4f ns (the certificate: %.4f)%s\n", L,
           worst, gmax, worst <= gmax + 1e-9 ? "" : "  VIOLATED");
    failed = failed || worst > gmax + 1e-9;
  }

  // 3b. The certificate's W by another road: the exact sup over every input of up to DPL blocks of P - lambda
  // O for the safe score alone (a forward dynamic program over its states and the oracle's vector in doubles;
  // at most W(start), which rounds against the pilot).
  {
    GateRule Z = G;
    Z.gated = false;
    struct Key {
      GateModelState s;
      ll d;  // the oracle's R - S, in 1e-6 ns
      bool operator==(const Key& k) const { return s == k.s && d == k.d; }
    };
    struct KeyHash {
      size_t operator()(const Key& k) const { return k.s.hash() ^ std::hash<ll>()(k.d); }
    };
    struct Val {
      double v, R, S;
    };
    std::unordered_map<Key, Val, KeyHash> cur, next;
    GateModelState s0 = GateModelState::start(G);
    s0.vr = s0.vs = 0;
    cur[Key{s0, 0}] = Val{0, 0, c.M};
    double sup = -1e300;
    const int L = int(env("DPL", 1200));
    for (int k = 0; k < L; ++k) {
      next.clear();
      for (const auto& [key, val] : cur)
        for (bool x : {false, true}) {
          GateModelState t = key.s;
          const double p = price(gate_step(t, x, Z), x, c);
          t.vr = t.vs = 0, t.g = 0;
          TwoEntryOracle orc(c);
          orc.R = val.R, orc.S = val.S;
          const double base = orc.add(x, c), v = val.v + p - lambda * base;
          sup = std::max(sup, v);
          const Key nk{t, std::llround((orc.R - orc.S) * 1e6)};
          const auto it = next.find(nk);
          if (it == next.end() || it->second.v < v) next[nk] = Val{v, orc.R - base, orc.S - base};
        }
      std::swap(cur, next);
    }
    const bool ok = sup <= safe.w_start + 1e-9;
    failed = failed || !ok;
    printf(
        "the safe score alone, every input of up to %d blocks: P - lambda O at most %.4f ns (W(start): "
        "%.4f)%s\n",
        L, sup, safe.w_start, ok ? "" : "  ABOVE W");
  }

  // 4. Hill-climbs over the decided blocks: the ratio against the gated rule and against the plain score
  // alone, and P - lambda O against the gated rule (the certificate's quantity: above g's bound would refute
  // it).
  if (getenv("HUNT") || check) {
    const size_t N = size_t(env("HUNTN", 2048)), iters = size_t(env("HUNT", 20000));
    for (int goal = 0; goal < 3; ++goal) {
      GateRule Z = G;
      Z.gated = goal != 1;
      const auto objective = [&](const std::vector<bool>& ne) {
        if (goal != 2) return run_pilot(ne, Z, c, Z.gated) / two_entry_oracle(ne, c);
        // The most P - lambda O over the input's prefixes.
        GateModelState st = GateModelState::start(G);
        TwoEntryOracle orc(c);
        double P = 0, most = -1e300;
        for (bool x : ne) {
          P += price(gate_step(st, x, Z), x, c);
          most = std::max(most, P - lambda * orc.add(x, c));
        }
        return most;
      };
      double overall = -1e300;
      for (uint64_t seed = 1; seed <= uint64_t(env("HUNTSEEDS", 4)); ++seed) {
        uint64_t x = seed * 0x9e3779b97f4a7c15ull;
        const auto rnd = [&]() { return x ^= x << 13, x ^= x >> 7, x ^= x << 17, x; };
        std::vector<bool> cur(N);
        for (size_t i = 0; i < N; ++i) cur[i] = rnd() % 2;
        double best = objective(cur);
        for (size_t it = 0; it < iters; ++it) {
          std::vector<bool> t = cur;
          const size_t a = rnd() % N, len = 1 + rnd() % (rnd() % 4 == 0 ? N : 40), per = 1 + rnd() % 30;
          const uint64_t kind = rnd() % 5, on = rnd() % (per + 1);
          for (size_t j = a; j < std::min(N, a + len); ++j)
            t[j] = kind == 0   ? !t[j]
                   : kind == 1 ? false
                   : kind == 2 ? true
                   : kind == 3 ? (j - a) % per < on
                               : rnd() % 2;
          const double r = objective(t);
          if (r >= best) best = r, cur = t;
        }
        overall = std::max(overall, best);
      }
      failed = failed || (goal == 2 && overall > gmax + 1e-9);
      const char* what[] = {"P / O, gated", "P / O, the plain score alone",
                            "P - lambda O (ns) after any block, gated"};
      printf("hill-climb (%zu blocks, %zu steps, seeds 1-%g): %s %.4f%s\n", N, iters, env("HUNTSEEDS", 4),
             what[goal], overall,
             goal == 2 ? (overall <= gmax + 1e-9 ? " (under the certificate's g)" : "  ABOVE THE CERTIFICATE")
                       : "");
    }
  }

  // 4b. The suite's hunt (threshold seeds, the adversary, the evolutionary search, shrinking: docs/hunt.md)
  // against the gated rule's trace, over the hunt's n; its best find must lie under the certificate, and its
  // trace cost must be the model's.
  if (check || getenv("SUITEHUNT")) {
    Evaluator ev(gated_sim, Kernel::pilot_v6, f, m, o, kHuntN);
    HuntConfig hc;
    hc.seed = uint64_t(env("SUITEHUNT_SEED", 1)), hc.budget = size_t(env("SUITEHUNT", 3000)), hc.seconds = 0;
    const HuntResult hr = maskapply::gen::hunt::hunt(ev, hc);
    double best = 0, model = 0, scored = 0;
    std::string mech;
    for (const Find& fd : hr.finds)
      if (fd.score.regret > best) {
        best = fd.score.regret, mech = fd.score.mechanism.key();
        Summary sm;
        sm.assign(fd.pattern, kHuntN);
        model = run_pilot(decided_blocks(sm), G, c, true), scored = fd.score.pilot_cost;
      }
    const bool ok = best <= certified + 1e-9 && std::fabs(model - scored) <= 1e-9 * model;
    failed = failed || !ok;
    printf(
        "the suite's hunt (seed %llu, budget %zu, %zu evaluations): best regret %.4f (%s), certified %.4f "
        "over "
        "its n%s\n",
        (unsigned long long)hc.seed, hc.budget, hr.evaluations, best, mech.c_str(), certified,
        ok ? "" : "  ABOVE THE CERTIFICATE OR THE MODEL AND THE SCORER DIFFER");
  }

  // 5. Pattern files: their decided blocks, against the gated rule, the plain score alone and pilot_v6 as
  // built (by the Scorer, and by this model's step: the two must agree).
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const ParseResult p = parse_pattern(text.str());
    if (!in || !p) {
      printf("%s: not a readable pattern file\n", file.c_str());
      failed = true;
      continue;
    }
    Summary s;
    s.assign(p.pattern(), p.pattern().length);
    const std::vector<bool> ne = decided_blocks(s);
    GateRule Z = G;  // the plain score alone
    Z.gated = false;
    const double O = two_entry_oracle(ne, c);
    const Score v6 = Scorer(Kernel::pilot_v6, f, m, ungated).score(s);
    const double mine = run_pilot(ne, built, c, false);
    const bool agree =
        std::fabs(mine - v6.pilot_cost) <= 1e-9 * mine && std::fabs(O - v6.oracle_cost) <= 1e-9 * O;
    failed = failed || !agree;
    printf("%s: gated %.4f, the plain score alone %.4f, v6 without the gate %.4f (the Scorer: %.4f)%s\n",
           file.c_str(), run_pilot(ne, G, c, true) / O, run_pilot(ne, Z, c, false) / O, mine / O,
           v6.regret, agree ? "" : "  THE MODEL AND THE SCORER DIFFER");
  }
  if (failed) printf("FAILED: a check above did not hold\n");
  return failed ? 1 : 0;
}
