// SPDX-License-Identifier: MIT
// Properties 2, 9 and 10: the pilots equal the oracle for any calibration and options on data whose strategy
// changes from tile to tile; the trace partitions the array; a run is a function of input and calibration.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "support.h"

namespace maskapply::prop {
namespace {

void tag_decisions(const Trace& t) {
  bool bailed = false, previous = false, at_threshold = false, trusted_again = false;
  for (const TileDecision& d : t.tiles) {
    bailed |= d.bail != kNoBail;
    trusted_again |= previous && d.source == CountSource::probe;
    previous |= d.source == CountSource::previous;
    at_threshold |= d.source == CountSource::probe && (d.count == d.hi || d.count == d.xlo || d.count == d.lo);
  }
  RC_CLASSIFY(at_threshold, "a probe count exactly at hi, xlo or lo");
  RC_CLASSIFY(trusted_again, "v4 trusted the probe again after distrust ran out");
  std::vector<Strategy> seen;
  for (const Run& r : t.runs)
    if (std::find(seen.begin(), seen.end(), r.strategy) == seen.end()) seen.push_back(r.strategy);
  RC_CLASSIFY(seen.size() >= 3, "3+ strategies in one call");
  RC_CLASSIFY(bailed, "blend_verified bailed");
  RC_CLASSIFY(previous, "v4 judged by the previous tile");
}

// 2. Each pilot equals the oracle for any injected d_max (very negative, 0, in (0, 1), >= 1; sometimes timed)
//    and any option set, on arbitrary data and on tile-structured data whose density changes between tiles.
RC_GTEST_PROP(Pilots, equalOracleForAnyInjectedDmaxOptionsAndTileStructuredData, ()) {
  testing::Case c;
  c.kernel = *gen::pilot_kernel();
  c.f = *gen::any_fn();
  c.options = *gen::pilot_options();
  if (*rc::gen::weightedElement<bool>({{9, false}, {1, true}})) c.options.d_max.reset();  // timed, as the article
  const Shaped s = *gen::pilot_data(c.options);
  c.data = s.v;
  c.mask = s.mask;
  c.misalign = *rc::gen::inRange<size_t>(0, 16);
  RC_CLASSIFY(!c.options.d_max, "timed calibration");
  RC_TAG(s.kind == "tiled" || s.kind == "arbitrary" || s.kind == "edges" ? s.kind : "article pattern");
  const testing::CheckResult r = expect_oracle(c);
  tag_decisions(r.trace);
}

// What property 9 checks on a case: the trace partitions [0, n) (testing::check_trace: the runs, and the tile
// decisions when the kernel reports any), and the run equals the oracle.
std::string trace_broken(const testing::Case& c) {
  const testing::CheckResult r = testing::run_case(c);
  if (const std::string err = testing::check_trace(r.trace, c.data.size()); !err.empty())
    return testing::describe(c.kernel, c.f, c.mask, c.data.size(), c.options, c.misalign) + ": trace: " + err;
  return r.message;
}

// 9. The trace partitions [0, n): every element is covered by exactly one strategy run; for pilots the tile
//    decisions partition it too, each run lies inside one tile and a bail point lies inside its tile. The plain
//    kernels' trace is one run the registry writes, [0, n): mostly pilots and blend_verified are drawn, whose
//    traces are their own decisions.
RC_GTEST_PROP(DecisionTrace, partitionsTheArrayIntoRunsCoveringEachElementExactlyOnce, ()) {
  testing::Case c;
  c.kernel = *rc::gen::weightedOneOf<Kernel>({{6, gen::pilot_kernel()},
                                              {2, rc::gen::just(Kernel::blend_verified)},
                                              {1, gen::plain_kernel()}});
  c.f = *rc::gen::element(Fn::sqrt, Fn::bits_inc, Fn::fma13);
  const auto shaped = gen::options_and_data(c);
  c.mask = shaped ? *shaped : *gen::less_mask();
  RC_TAG(name(c.kernel));
  const testing::CheckResult r = testing::run_case(c);
  RC_CLASSIFY(r.trace.runs.size() <= 1, "one run or none");
  RC_CLASSIFY(r.trace.tiles.size() >= 3, "3+ tiles");
  if (!r.ok || !testing::check_trace(r.trace, c.data.size()).empty()) fail_minimal(c, trace_broken, trace_broken(c));
}

// 10. Determinism: the same input and the same injected calibration give the same trace and the same output
//     bits, whether the workspace is fresh, reused after another call, or of another capacity.
RC_GTEST_PROP(AllKernels, giveTheSameTraceAndOutputForTheSameInputAndCalibration, ()) {
  testing::Case c;
  c.kernel = *gen::any_kernel();
  c.f = *gen::any_fn();
  const auto shaped = gen::options_and_data(c);
  c.mask = shaped ? *shaped : *gen::any_mask(c.data);
  const std::vector<float> other = (*gen::float_array()).v;
  const size_t capacity = *rc::gen::element(size_t{16}, size_t{100}, size_t{4096}, size_t{20000});
  const uint64_t garbage = *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>());  // a stale slot would show
  RC_TAG(name(c.kernel));

  // A plain detour-family kernel reports one run per workspace pass, so on a workspace of another capacity its
  // runs are cut elsewhere: compared with adjacent runs of one strategy merged. A pilot's trace must be equal.
  const auto merged = [](Kernel k, Trace t) {
    if (is_pilot(k)) return t;
    std::vector<Run> runs;
    for (const Run& r : t.runs)
      if (!runs.empty() && runs.back().end == r.begin && runs.back().strategy == r.strategy) runs.back().end = r.end;
      else runs.push_back(r);
    t.runs = runs;
    return t;
  };
  // Three runs of c: on a fresh workspace; on the same one, dirtied by a call on other data in between; on a
  // workspace of another capacity filled with garbage.
  const auto differs = [&](const testing::Case& x) -> std::string {
    std::vector<float> o1, o2, o3, scratch = other;
    Trace s1, s2, s3, ignored;
    Workspace fresh(x.options.tile), sized(capacity);
    sized.scribble(garbage);
    const auto run = [&](Workspace& ws, std::vector<float>& out, Trace& t) {
      out = x.data;
      run_kernel(x.kernel, x.f, x.mask, out.data(), out.size(), ws, x.options, &t);
    };
    run(fresh, o1, s1);
    run_kernel(x.kernel, x.f, x.mask, scratch.data(), scratch.size(), fresh, x.options, &ignored);
    run(fresh, o2, s2);
    run(sized, o3, s3);
    const std::string where = testing::describe(x.kernel, x.f, x.mask, x.data.size(), x.options, x.misalign) + ": ";
    for (const auto* pair : {&o2, &o3}) {
      const std::vector<float>& o = *pair;
      for (size_t i = 0; i < o.size(); ++i)
        if (bits(o[i]) != bits(o1[i]))
          return where + (pair == &o2 ? "reused workspace" : "workspace of capacity " + std::to_string(capacity)) +
                 ": output differs at " + std::to_string(i) + ": " + oracle::hex(o1[i]) + " then " + oracle::hex(o[i]);
    }
    if (!(s1 == s2) || !(merged(x.kernel, s1) == merged(x.kernel, s3)))
      return where + "the trace differs between runs (" + std::to_string(s1.runs.size()) + "/" +
             std::to_string(s2.runs.size()) + "/" + std::to_string(s3.runs.size()) + " runs, " +
             std::to_string(s1.tiles.size()) + "/" + std::to_string(s2.tiles.size()) + "/" +
             std::to_string(s3.tiles.size()) + " tiles)";
    return {};
  };
  if (const std::string why = differs(c); !why.empty()) fail_minimal(c, differs, why);
}

}  // namespace
}  // namespace maskapply::prop
