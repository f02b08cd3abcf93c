// SPDX-License-Identifier: MIT
// maskapply_v5_explore: measures candidate pilot_v5 rules (v5_model.h) under the m5 model before any kernel
// exists: the article's three countertests against the block oracle, uniform data over the thd sweep against
// the best of v1-v4 (model cost of the decided tiles), and the hunt's worst regret per f. A measurement tool
// for docs/pilot_v5.md; asserts nothing.
//   maskapply_v5_explore [--budget N] [--seconds S] [--f a,b] [--no-hunt] [--cells] [--data-seed N] [--hunt-seed N]
//                        [key=value ...]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "article.h"
#include "search.h"
#include "v5_model.h"

using namespace maskapply;
using namespace maskapply::gen;
using namespace maskapply::gen::hunt;

namespace {

std::vector<uint8_t> select(const std::vector<float>& a, float thd) {
  std::vector<uint8_t> s(a.size());
  for (size_t i = 0; i < a.size(); ++i) s[i] = a[i] < thd;
  return s;
}

bool set_param(V5Params& p, const std::string& kv) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos) return false;
  const std::string k = kv.substr(0, eq);
  const double v = std::atof(kv.c_str() + eq + 1);
  if (k == "seed") p.seed = static_cast<uint64_t>(v);
  else if (k == "spread") p.spread = v != 0;
  else if (k == "random") p.random = v != 0;
  else if (k == "bail_f") p.bail_f = v;
  else if (k == "blend_after_bail") p.blend_after_bail = v != 0;
  else if (k == "esc_chunks") p.esc_chunks = static_cast<size_t>(v);
  else if (k == "esc_f") p.esc_f = v;
  else if (k == "skip_blend_skip") p.skip_blend_skip = v != 0;
  else if (k == "prior") p.prior = v;
  else if (k == "window") p.window = static_cast<size_t>(v);
  else if (k == "bs_mode") p.bs_mode = static_cast<int>(v);
  else if (k == "bail_window") p.bail_window = static_cast<size_t>(v);
  else if (k == "rho") p.rho = v;
  else if (k == "shrink") p.shrink = v;
  else if (k == "kappa") p.kappa = v;
  else if (k == "bail_shrink") p.bail_shrink = v;
  else if (k == "cheap_pairs") p.cheap_pairs = static_cast<size_t>(v);
  else if (k == "skip_margin") p.skip_margin = v;
  else if (k == "lambda") p.lambda = v;
  else if (k == "split") p.split = v;
  else if (k == "skip_feedback") p.skip_feedback = static_cast<int>(v);
  else if (k == "fb_w") p.fb_w = v;
  else if (k == "indep_z") p.indep_z = v;
  else if (k == "kappa_adapt") p.kappa_adapt = v != 0;
  else if (k == "adapt") p.adapt = v != 0;
  else if (k == "x_mode") p.x_mode = static_cast<int>(v);
  else return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  size_t budget = 3000;
  uint64_t data_seed = 1, hunt_seed = 1;
  double seconds = 60;
  bool do_hunt = true, cells = false;
  std::vector<Fn> fns{Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::sin10, Fn::pow10, Fn::fma13};
  V5Params p;
  PilotOptions base;  // v5's chunks: chunks=N sets verify_blocks for v5 only
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--budget" && i + 1 < argc) budget = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (a == "--hunt-seed" && i + 1 < argc) hunt_seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--data-seed" && i + 1 < argc) data_seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--no-hunt") do_hunt = false;
    else if (a == "--cells") cells = true;
    else if (a == "--pattern" && i + 2 < argc) {
      std::string text = argv[++i];
      for (char& ch : text) if (ch == ';') ch = '\n';
      const auto f = fn_from_name(argv[++i]);
      const auto pp = parse_pattern(text);
      if (!f || !pp) return std::fprintf(stderr, "bad pattern or f\n"), 2;
      for (int j = i + 1; j < argc; ++j) set_param(p, argv[j]);
      Summary s;
      s.assign(pp.pattern(), kHuntN);
      const CostModel m = CostModel::m5();
      Scorer v5([p](const Summary& s, const PilotOptions& o, Trace& t) { simulate_v5(s, o, p, t); }, Kernel::pilot_v3, *f, m);
      const Score sc = v5.score(s);
      Trace tr;
      simulate_v5(s, v5.options(), p, tr);
      const Regret rg = model_regret(tr, s.selection(), m, *f, v5.options());
      std::printf("regret %.4f pilot %.1f oracle %.1f; best single strategy per tile / oracle %.4f\n", sc.regret,
                  sc.pilot_cost, sc.oracle_cost, sc.regret / sc.vs_fixed);
      for (size_t t = 0; t < 6 && t < rg.per_tile.size(); ++t) {
        const TileCost& tc = rg.per_tile[t];
        std::printf("tile [%zu,%zu) pilot %.1f oracle %.1f:", tc.begin, tc.end, tc.pilot, tc.oracle);
        for (const Run& r : tr.runs) if (r.begin >= tc.begin && r.begin < tc.end) std::printf(" %s[%zu,%zu)", std::string(name(r.strategy)).c_str(), r.begin - tc.begin, r.end - tc.begin);
        std::printf("\n   oracle:");
        for (const Run& r : rg.oracle.runs) if (r.end > tc.begin && r.begin < tc.end) std::printf(" %s[%ld,%ld)", std::string(name(r.strategy)).c_str(), (long)r.begin - (long)tc.begin, (long)r.end - (long)tc.begin);
        std::printf("\n");
      }
      return 0;
    }
    else if (a == "--f" && i + 1 < argc) {
      fns.clear();
      std::string l = argv[++i];
      size_t at = 0;
      while (at <= l.size()) {
        const size_t c = l.find(',', at);
        const std::string nm = l.substr(at, c == std::string::npos ? std::string::npos : c - at);
        const auto f = fn_from_name(nm);
        if (!f) return std::fprintf(stderr, "unknown f %s\n", nm.c_str()), 2;
        fns.push_back(*f);
        if (c == std::string::npos) break;
        at = c + 1;
      }
    } else if (a.rfind("chunks=", 0) == 0) {
      base.verify_blocks = std::strtoull(a.c_str() + 7, nullptr, 10);
    } else if (!set_param(p, a)) {
      return std::fprintf(stderr, "unknown argument %s\n", a.c_str()), 2;
    }
  }
  const CostModel m = CostModel::m5();
  const auto sim = [p](const Summary& s, const PilotOptions& o, Trace& t) { simulate_v5(s, o, p, t); };
  const size_t n = 8192 + 94 * 4096;  // the report's 96 tiles
  std::printf("candidate:");
  for (int i = 1; i < argc; ++i) std::printf(" %s", argv[i]);
  std::printf("\n");
  // The article's countertests.
  for (const ArticleCase& c : article_countertests()) {
    if (std::find(fns.begin(), fns.end(), c.f) == fns.end()) continue;
    Summary s(select(c.data(n, 1), c.thd));
    Scorer v5(sim, Kernel::pilot_v3, c.f, m, base);
    std::printf("%-18s %-6s v5 %.4f |", c.name.c_str(), std::string(name(c.f)).c_str(), v5.score(s).regret);
    for (Kernel k : kPilots)
      if (k != Kernel::pilot_v5) std::printf(" %s %.4f", std::string(name(k)).c_str() + 6, Scorer(k, c.f, m).score(s).regret);
    std::printf("\n");
  }
  // Uniform data over the thd sweep (the low densities finer): v5's model cost against the best of v1-v4.
  const std::vector<float> data = uniform(n, data_seed);
  const std::vector<float> thds{0, 0.01f, 0.02f, 0.03f, 0.05f, 0.07f, 0.1f, 0.15f, 0.2f, 0.3f,
                                0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1};
  for (Fn f : fns) {
    double worst = 0, worst_thd = 0, worst_reg = 0;
    for (const float thd : thds) {
      Summary s(select(data, thd));
      Scorer v5(sim, Kernel::pilot_v3, f, m, base);
      const Score sv = v5.score(s);
      double best = 1e300;
      for (Kernel k : kPilots)
        if (k != Kernel::pilot_v5) best = std::min(best, Scorer(k, f, m).score(s).pilot_cost);
      const double r = sv.pilot_cost / best;
      if (cells && std::getenv("V5_RUNS")) {
        Trace tr;
        simulate_v5(s, v5.options(), p, tr);
        std::map<std::string, size_t> h;
        for (const Run& r : tr.runs) h[std::string(name(r.strategy))] += r.end - r.begin;
        for (auto& [k, v] : h) std::printf("    %s %zu\n", k.c_str(), v);
      }
      if (cells) std::printf("  uniform %-7s thd %.2f v5/best(v1-v4) %.4f regret %.4f\n", std::string(name(f)).c_str(), thd, r, sv.regret);
      if (r > worst) worst = r, worst_thd = thd, worst_reg = sv.regret;
    }
    std::printf("uniform %-7s worst v5/best(v1-v4) %.4f at thd %.2f (regret %.4f)\n", std::string(name(f)).c_str(), worst,
                worst_thd, worst_reg);
  }
  if (!do_hunt) return 0;
  for (Fn f : fns) {
    const auto t0 = std::chrono::steady_clock::now();
    Evaluator ev(sim, Kernel::pilot_v3, f, m, base);
    HuntConfig cfg;
    cfg.seed = hunt_seed, cfg.budget = budget, cfg.seconds = seconds, cfg.keep = 2;
    const HuntResult r = maskapply::gen::hunt::hunt(ev, cfg);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r.finds.empty()) continue;
    const Find& b = r.finds.front();
    std::string pat = to_text(b.pattern);
    for (char& ch : pat) if (ch == '\n') ch = ';';
    const Find step = step_sweep(ev);
    // The seed-aware adversary (search.h) against the candidate, its probe positions from the chosen rule's.
    Evaluator aware_ev(sim, Kernel::pilot_v5, f, m, base);
    const std::vector<Find> aware = seed_aware(aware_ev);
    std::printf("hunt %-7s worst %.4f (adversary %.4f, step sweep %.4f, seed-aware %.4f, %zu evals, %.0f s%s) %s | %s\n",
                std::string(name(f)).c_str(), b.score.regret, r.adversary, step.score.regret,
                aware.empty() ? 0.0 : aware.front().score.regret, r.evaluations, secs, r.capped ? ", capped" : "",
                pat.c_str(), b.score.mechanism.words().c_str());
  }
  return 0;
}
