// SPDX-License-Identifier: MIT
// Property 15: the hunt's fast pilots (generators/hunt/fast_pilot.h) equal the real, traced pilots: from the
// selection alone, simulate() gives the same runs and the same tile decisions as the kernel's Trace, and the
// Scorer the same model regret as regret.h's model_regret of that Trace, for any pilot, f, options, injected
// d_max and data (the suite's tile-structured and article-shaped data, and patterns as the hunt writes them).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <sstream>

#include "fast_pilot.h"
#include "pattern.h"
#include "registry.h"
#include "support.h"

namespace maskapply::prop {
namespace {

// The selection of data under a mask of kind less / greater / not_ge, element by element in scalar code.
std::optional<std::vector<uint8_t>> selection_under(const std::vector<float>& a, const MaskSpec& m) {
  std::vector<uint8_t> sel(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    switch (m.kind) {
      case MaskKind::less: sel[i] = a[i] < m.thd; break;
      case MaskKind::greater: sel[i] = a[i] > m.thd; break;
      case MaskKind::not_ge: sel[i] = !(a[i] >= m.thd); break;
      case MaskKind::always: sel[i] = 1; break;
      case MaskKind::never: sel[i] = 0; break;
      default: return std::nullopt;
    }
  }
  return sel;
}

// A pattern as the hunt builds them: a period of whole or odd tiles, a phase, up to 6 regular / random segments.
rc::Gen<::maskapply::gen::Pattern> hunt_pattern(size_t tile) {
  return rc::gen::exec([tile] {
    ::maskapply::gen::Pattern p;
    const size_t nseg = *rc::gen::inRange<size_t>(1, 7);
    uint64_t sum = 0;
    for (size_t i = 0; i < nseg; ++i) {
      ::maskapply::gen::Segment s;
      s.kind = *rc::gen::element(::maskapply::gen::Segment::Kind::regular, ::maskapply::gen::Segment::Kind::random);
      s.length = *rc::gen::weightedOneOf<uint64_t>({{2, rc::gen::inRange<uint64_t>(1, 2 * tile + 1)},
                                                    {2, rc::gen::element<uint64_t>(16, 256, 512, tile)},
                                                    {1, rc::gen::map(rc::gen::inRange<uint64_t>(1, 9),
                                                                     [tile](uint64_t k) { return k * tile / 8; })}});
      s.density = *rc::gen::weightedOneOf<double>({{3, rc::gen::element(0.0, 1.0, 0.25, 1.0 / 16)},
                                                   {1, rc::gen::map(rc::gen::inRange(0, 1001),
                                                                    [](int k) { return k / 1000.0; })}});
      sum += s.length;
      p.segments.push_back(s);
    }
    p.period = sum + *rc::gen::inRange<uint64_t>(0, 3 * tile);
    if (p.period > sum) p.segments.back().rest = true, p.segments.back().length = 0;
    if (!p.segments.back().rest) p.period = sum;
    p.phase = *rc::gen::inRange<uint64_t>(0, p.period);
    p.seed = *rc::gen::inRange<uint64_t>(0, 1000);
    return p;
  });
}

RC_GTEST_PROP(FastPilots, equalTheTracedPilotRunsDecisionsAndModelRegret, ()) {
  const Kernel k = *gen::pilot_kernel();
  const Fn f = *gen::any_fn();
  // Half the cases: the hunt's own setting (the article's options, the model's d_max, whole tiles: the block-
  // aligned fast path); the rest: any options and d_max (odd sizes go through model_regret for the regret).
  const bool hunt_setting = *rc::gen::arbitrary<bool>();
  PilotOptions o = hunt_setting ? ::maskapply::gen::model_options(::maskapply::gen::CostModel::m5(), f)
                                : *gen::pilot_options();
  if (!o.d_max) o.d_max = *gen::d_max();
  RC_TAG(hunt_setting ? "article options, model d_max" : "any options");
  std::vector<float> data;
  MaskSpec mask{MaskKind::less, 0.5f, 0, 0};
  if (!hunt_setting && *rc::gen::arbitrary<bool>()) {
    Shaped s = *gen::pilot_data(o);
    data = std::move(s.v), mask = s.mask;
    RC_TAG("suite data");
  } else {
    const ::maskapply::gen::Pattern p = *hunt_pattern(o.tile);
    const size_t n = hunt_setting ? 8192 + *rc::gen::inRange<size_t>(0, 21) * 4096
                                  : *rc::gen::inRange<size_t>(0, 12 * o.tile + 40);
    data = ::maskapply::gen::make_data(::maskapply::gen::selection(p, n), 0.5f, *rc::gen::arbitrary<uint64_t>());
    RC_TAG("hunt pattern");
  }
  const auto sel = selection_under(data, mask);
  RC_PRE(sel.has_value());
  Trace real;
  std::vector<float> a = data;
  Workspace ws;
  run_kernel(k, f, mask, a.data(), a.size(), ws, o, &real);

  const ::maskapply::gen::hunt::Summary s(*sel);
  Trace fast;
  ::maskapply::gen::hunt::simulate(k, s, o, fast);
  const auto where = [&] {
    std::ostringstream w;
    w << name(k) << " " << name(f) << " n=" << a.size() << " " << o;
    return w.str();
  };
  RC_ASSERT(fast.runs.size() == real.runs.size());
  for (size_t i = 0; i < real.runs.size(); ++i) {
    if (!(fast.runs[i] == real.runs[i]))
      RC_FAIL(where() + ": run " + std::to_string(i) + " is " + std::string(name(fast.runs[i].strategy)) + " [" +
              std::to_string(fast.runs[i].begin) + ", " + std::to_string(fast.runs[i].end) + ") in the simulation, " +
              std::string(name(real.runs[i].strategy)) + " [" + std::to_string(real.runs[i].begin) + ", " +
              std::to_string(real.runs[i].end) + ") in the kernel's trace");
  }
  RC_ASSERT(fast.tiles.size() == real.tiles.size());
  for (size_t i = 0; i < real.tiles.size(); ++i) {
    const TileDecision &x = fast.tiles[i], &y = real.tiles[i];
    if (!(x == y))
      RC_FAIL(where() + ": tile " + std::to_string(i) + " differs: simulated count " + std::to_string(x.count) +
              " source " + std::string(name(x.source)) + " bail " + std::to_string(x.bail) + " distrust " +
              std::to_string(x.distrust) + "; traced count " + std::to_string(y.count) + " source " +
              std::string(name(y.source)) + " bail " + std::to_string(y.bail) + " distrust " +
              std::to_string(y.distrust));
  }
  const ::maskapply::gen::CostModel m = ::maskapply::gen::CostModel::m5();
  const ::maskapply::gen::Regret want = ::maskapply::gen::model_regret(real, *sel, m, f, o);
  ::maskapply::gen::hunt::Scorer scorer(k, f, m, o);
  const ::maskapply::gen::hunt::Score got = scorer.score(s);
  RC_ASSERT(got.pilot_cost == want.pilot_cost);
  RC_ASSERT(got.oracle_cost == want.oracle_cost);
  RC_ASSERT((got.regret == want.vs_oracle || (std::isnan(got.regret) && std::isnan(want.vs_oracle))));
  RC_ASSERT((got.vs_fixed == want.vs_fixed || (std::isnan(got.vs_fixed) && std::isnan(want.vs_fixed))));
  bool bailed = false, previous = false;
  for (const TileDecision& d : real.tiles) bailed |= d.bail != kNoBail, previous |= d.source == CountSource::previous;
  RC_CLASSIFY(bailed, "a verified blend bailed");
  RC_CLASSIFY(previous, "v4 judged by the previous tile");
}

}  // namespace
}  // namespace maskapply::prop
