// SPDX-License-Identifier: MIT
// maskapply_hunt_bench: how fast the hunt runs, measured on what a user runs. Measures, asserts nothing
// (docs/hunt.md has figures).
//   maskapply_hunt_bench [BUDGET] [--micro CPU_SECONDS_PER_COLUMN]
// Every figure is per CPU second of this thread (clock_gettime(CLOCK_THREAD_CPUTIME_ID)): per core, whatever
// else the machine runs.
// The first table is the default hunt of `maskapply hunt` for every pilot and f, one job as the tool runs it: the
// seed mix(1, pilot, f) of `--seed 1`, n = 147 456 (36 tiles), m5, BUDGET evolution steps (default 20 000, the
// tool's), keep 3, then the one-knob step sweep the tool runs after it; no time cap (the tool's 60 s cap did not
// bind here; with it a slower machine would do less work, not the same work slower). Per pilot x f: evaluations
// (every call of the Evaluator), the memo's answers (a pattern scored before: the earlier Score handed back) and
// the real evaluations (the rest, each a scoring), the CPU seconds, and both rates.
// With --micro, a second table for f = fma13: the per-candidate paths apart.
//   fresh oracle    from a pattern (the selection, its summary, the simulation, the costing), every oracle
//                   computed afresh (Scorer without its cache): what one never-seen candidate costs
//   cached          the same with the Scorer's window cache, cycling over the threshold seeds (the cache's best
//                   case, not a hunt's; no memo)
//   summary         from a ready summary with the cache (the simulation and costing alone)
//   traced kernel   the selection as floats, the traced pilot kernel, regret.h's model_regret (the slow path)
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "evaluate.h"
#include "search.h"

using namespace maskapply;
using namespace maskapply::gen;
using namespace maskapply::gen::hunt;

namespace {

// CPU time of this thread: the figure is per core, and the machine may be shared.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <class F>
double per_second(double seconds, F&& one) {
  const double t0 = cpu_seconds();
  size_t n = 0;
  double t = 0;
  while ((t = cpu_seconds() - t0) < seconds) one(n++);
  return static_cast<double>(n) / t;
}

struct Totals {
  size_t evals = 0, memo = 0;
  double cpu = 0;
};

void default_hunts(size_t budget) {
  const CostModel m = CostModel::m5();
  std::printf("The default hunt (maskapply hunt --seed 1 --budget %zu --keep 3, one job, no time cap) per pilot and "
              "f: n = %zu, model m5, one thread, per CPU second\n\n",
              budget, kHuntN);
  std::printf("| pilot | f | evaluations | memo answers | real evaluations | CPU s | evals/s (all) | real evals/s |\n"
              "|---|---|---|---|---|---|---|---|\n");
  std::vector<std::pair<Kernel, Totals>> per_pilot;
  for (Kernel k : kPilots) {
    Totals tp;
    for (Fn f : kArticleFns) {
      const double t0 = cpu_seconds();
      Evaluator ev(k, f, m, PilotOptions{}, kHuntN);
      HuntConfig cfg;
      cfg.seed = mix(1, static_cast<uint64_t>(k), static_cast<uint64_t>(f));  // maskapply hunt --seed 1
      cfg.budget = budget, cfg.seconds = 0, cfg.keep = 3;
      (void)maskapply::gen::hunt::hunt(ev, cfg);
      Evaluator base(k, f, m, PilotOptions{}, kHuntN);
      (void)step_sweep(base, base.scorer().options().tile);
      const double cpu = cpu_seconds() - t0;
      const size_t evals = ev.evaluations() + base.evaluations(), memo = ev.memo_hits() + base.memo_hits();
      std::printf("| %s | %s | %zu | %zu (%.0f %%) | %zu | %.2f | %.0f | %.0f |\n", std::string(name(k)).c_str(),
                  std::string(name(f)).c_str(), evals, memo, 100.0 * static_cast<double>(memo) / static_cast<double>(evals),
                  evals - memo, cpu, static_cast<double>(evals) / cpu, static_cast<double>(evals - memo) / cpu);
      std::fflush(stdout);
      tp.evals += evals, tp.memo += memo, tp.cpu += cpu;
    }
    per_pilot.emplace_back(k, tp);
  }
  std::printf("\nPer pilot, over its %zu f:\n\n| pilot | evaluations | memo answers | CPU s | evals/s (all) | real "
              "evals/s |\n|---|---|---|---|---|---|\n", kArticleFns.size());
  for (const auto& [k, t] : per_pilot)
    std::printf("| %s | %zu | %zu (%.0f %%) | %.1f | %.0f | %.0f |\n", std::string(name(k)).c_str(), t.evals, t.memo,
                100.0 * static_cast<double>(t.memo) / static_cast<double>(t.evals), t.cpu,
                static_cast<double>(t.evals) / t.cpu, static_cast<double>(t.evals - t.memo) / t.cpu);
}

void micro(double s) {
  const CostModel m = CostModel::m5();
  std::printf("\nPer candidate, f = fma13, %.1f s of CPU per column, evaluations per CPU second:\n\n", s);
  std::printf("| pilot | fresh oracle | cached | summary | traced kernel |\n|---|---|---|---|---|\n");
  for (Kernel k : kPilots) {
    Evaluator fresh(k, Fn::fma13, m, PilotOptions{}, kHuntN, false);
    Scorer cached(k, Fn::fma13, m);
    Summary cs;
    std::vector<Pattern> ps;
    for (auto& [p, why] : threshold_seeds(fresh.scorer())) ps.push_back(p);
    double sink = 0;
    const double from_fresh = per_second(s, [&](size_t i) { sink += fresh(ps[i % ps.size()]).regret; });
    const double from_cached = per_second(s, [&](size_t i) {
      cs.assign(ps[i % ps.size()], kHuntN);
      sink += cached.score(cs).regret;
    });
    std::vector<Summary> sums(ps.size());
    for (size_t i = 0; i < ps.size(); ++i) sums[i].assign(ps[i], kHuntN);
    Scorer sc(k, Fn::fma13, m);
    const double from_summary = per_second(s, [&](size_t i) { sink += sc.score(sums[i % sums.size()]).regret; });
    const PilotOptions o = model_options(m, Fn::fma13);
    const double traced = per_second(s, [&](size_t i) {
      const std::vector<uint8_t> sel = selection(ps[i % ps.size()], kHuntN);
      std::vector<float> a(sel.size());
      for (size_t j = 0; j < a.size(); ++j) a[j] = sel[j] ? 0.0f : 1.0f;
      Workspace ws(o.tile);
      Trace t;
      run_kernel(k, Fn::fma13, MaskSpec{}, a.data(), a.size(), ws, o, &t);
      sink += model_regret(t, sel, m, Fn::fma13, o).vs_oracle;
    });
    std::printf("| %s | %.0f | %.0f | %.0f | %.0f |\n", std::string(name(k)).c_str(), from_fresh, from_cached,
                from_summary, traced);
    if (sink == 42.4242) std::printf(" ");
  }
}

}  // namespace

int main(int argc, char** argv) {
  size_t budget = 20000;
  double micro_s = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--micro") == 0 && i + 1 < argc) micro_s = std::atof(argv[++i]);
    else budget = static_cast<size_t>(std::atol(argv[i]));
  }
  default_hunts(budget);
  if (micro_s > 0) micro(micro_s);
  return 0;
}
