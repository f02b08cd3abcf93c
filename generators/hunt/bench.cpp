// SPDX-License-Identifier: MIT
// maskapply_hunt_bench: how many candidate evaluations per second the hunt's fast path does on one core, next
// to the traced kernel path the regret fuzz target uses. Measures, asserts nothing (docs/hunt.md has figures).
//   maskapply_hunt_bench [SECONDS_PER_ROW]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "evaluate.h"
#include "search.h"

using namespace maskapply;
using namespace maskapply::gen;
using namespace maskapply::gen::hunt;

namespace {

template <class F>
double per_second(double seconds, F&& one) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  size_t n = 0;
  double t = 0;
  while ((t = std::chrono::duration<double>(clock::now() - t0).count()) < seconds) one(n++);
  return static_cast<double>(n) / t;
}

}  // namespace

int main(int argc, char** argv) {
  const double s = argc > 1 ? std::atof(argv[1]) : 1.0;
  const CostModel m = CostModel::m5();
  std::printf("n = %zu (36 tiles of 4096), model m5, f = fma13, %.1f s per row, one thread\n", kHuntN, s);
  std::printf("| pilot | from a pattern (evals/s) | from a summary (evals/s) | traced kernel (evals/s) |\n|---|---|---|---|\n");
  for (Kernel k : kPilots) {
    Evaluator ev(k, Fn::fma13, m);
    std::vector<Pattern> ps;
    for (auto& [p, why] : threshold_seeds(ev.scorer().options())) ps.push_back(p);
    double sink = 0;
    const double from_pattern = per_second(s, [&](size_t i) { sink += ev(ps[i % ps.size()]).regret; });
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
    std::printf("| %s | %.0f | %.0f | %.0f |\n", std::string(name(k)).c_str(), from_pattern, from_summary, traced);
    if (sink == 42.4242) std::printf(" ");
  }
  return 0;
}
