// SPDX-License-Identifier: MIT
// maskapply_hunt_bench: how many candidate evaluations per second the hunt's fast path does on one core, next
// to the traced kernel path. Measures, asserts nothing (docs/hunt.md has figures).
//   maskapply_hunt_bench [CPU_SECONDS_PER_COLUMN] [BUDGET]
// Every figure is per CPU second of this thread (clock_gettime(CLOCK_THREAD_CPUTIME_ID)): per core, whatever
// else the machine runs.
// Columns, all n = 147 456 (36 tiles), m5, fma13, one thread:
//   fresh oracle    from a pattern (the selection, its summary, the simulation, the costing), every oracle
//                   computed afresh (Scorer without its cache): what one never-seen candidate costs
//   cached          the same with the Scorer's window cache, cycling over the threshold seeds (so after the
//                   first round every window has been seen: the cache's best case, not a hunt's; the
//                   Evaluator's memo of whole patterns is not used here)
//   summary         from a ready summary with the cache (the simulation and costing alone)
//   in a hunt       hunt() from seed 1 with BUDGET (default 3000) evolution steps and no time cap: evaluations
//                   / seconds over seeds, adversary, evolution and shrinking, archive bookkeeping included;
//                   the realistic figure, with the share answered by the Evaluator's memo (a pattern scored
//                   before) and the window cache's hit rate over the rest
//   traced kernel   the selection as floats, the traced pilot kernel, regret.h's model_regret (the slow path)
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

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

}  // namespace

int main(int argc, char** argv) {
  const double s = argc > 1 ? std::atof(argv[1]) : 1.0;
  const size_t budget = argc > 2 ? static_cast<size_t>(std::atol(argv[2])) : 3000;
  const CostModel m = CostModel::m5();
  std::printf("n = %zu (36 tiles of 4096), model m5, f = fma13, %.1f s of CPU per column, hunt budget %zu, one thread, evaluations per CPU second\n",
              kHuntN, s, budget);
  std::printf("| pilot | fresh oracle (evals/s) | cached (evals/s) | summary (evals/s) | in a hunt (evals/s) | hunt "
              "memo | hunt window-cache hits | traced kernel (evals/s) |\n|---|---|---|---|---|---|---|---|\n");
  for (Kernel k : kPilots) {
    Evaluator fresh(k, Fn::fma13, m, PilotOptions{}, kHuntN, false);
    Scorer cached(k, Fn::fma13, m);
    Summary cs;
    std::vector<Pattern> ps;
    for (auto& [p, why] : threshold_seeds(fresh.scorer().options())) ps.push_back(p);
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
    Evaluator hev(k, Fn::fma13, m);
    HuntConfig cfg;
    cfg.seed = 1, cfg.budget = budget, cfg.seconds = 0;
    const double h0 = cpu_seconds();
    const HuntResult hr = maskapply::gen::hunt::hunt(hev, cfg);
    const double hcpu = cpu_seconds() - h0;
    const OracleCache* oc = hev.scorer().cache();
    const double hit = oc ? 100.0 * static_cast<double>(oc->hits()) / static_cast<double>(oc->hits() + oc->misses()) : 0;
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
    const double memo = 100.0 * static_cast<double>(hev.memo_hits()) / static_cast<double>(hev.evaluations());
    std::printf("| %s | %.0f | %.0f | %.0f | %.0f (%zu in %.2f s CPU) | %.0f %% | %.0f %% | %.0f |\n",
                std::string(name(k)).c_str(), from_fresh, from_cached, from_summary,
                static_cast<double>(hr.evaluations) / hcpu, hr.evaluations, hcpu, memo, hit, traced);
    if (sink == 42.4242) std::printf(" ");
  }
  return 0;
}
