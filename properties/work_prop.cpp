// SPDX-License-Identifier: MIT
// Property 16: the work the cost model charges for a trace is the work that ran. Every kernel and pilot runs with
// an f and a mask that count their vector calls (one call = one register of 4 lanes); the trace it reported is
// then priced by regret.h's model_regret under two unit models, one that charges only f (T = 1 per register,
// every other constant 0) and one that charges only the mask (B = C = D = S = Q = 1 per register, the rest 0).
// The charges must equal the counts exactly: f over whole 16-lane groups of packed values and whole blocks, the
// tail as one local block, the probe over what it read, the calibration, every verify piece and every workspace
// pass. So a printed regret prices executed work, not a simplified trace of it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>

#include "oracle.h"
#include "registry.h"
#include "regret.h"
#include "support.h"

namespace maskapply::prop {
namespace {

struct Calls {
  size_t f = 0, mask = 0;
};

// The catalog's f and mask, chosen at run time, each vector call counted.
struct CountingFn {
  Fn id;
  Calls* calls;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const {
    ++calls->f;
    return visit_fn(id, [x](auto fn) { return fn(x); });
  }
};
struct CountingMask {
  MaskSpec spec;
  Calls* calls;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t v) const {
    ++calls->mask;
    return visit_mask(spec, [v](auto m) { return m(v); });
  }
};

// A model under which the cost of a trace is the number of vector f calls it makes.
::maskapply::gen::CostModel f_calls() {
  ::maskapply::gen::CostModel m;
  m.name = "f calls";
  m.B = m.D = m.C = m.S = m.K = m.M = m.V = m.Q = m.F = 0;
  m.T.fill(1.0);
  return m;
}

// A model under which the cost of a trace is the number of vector mask calls it makes: every register a
// strategy loads is masked once (blend B, compress C, a skipped block S, the probe Q); expand, f and the
// bookkeeping call no mask (E = D - C = 0, T = K = V = F = 0).
::maskapply::gen::CostModel mask_calls() {
  ::maskapply::gen::CostModel m;
  m.name = "mask calls";
  m.B = m.D = m.C = m.S = m.Q = 1;
  m.K = m.M = m.V = m.F = 0;
  m.T.fill(0.0);
  return m;
}

// 16. For any kernel or pilot, f, mask, options (injected or timed d_max), n and workspace capacity: the vector
//     f calls and mask calls it makes equal what the model charges for the trace it reported.
RC_GTEST_PROP(ExecutedWork, equalsWhatTheModelChargesForTheTrace, ()) {
  testing::Case c;
  c.kernel = *gen::any_kernel();
  c.f = *gen::any_fn();
  const auto shaped = gen::options_and_data(c);
  c.mask = shaped ? *shaped : *gen::any_mask(c.data);
  if (is_pilot(c.kernel) && *rc::gen::weightedElement<bool>({{9, false}, {1, true}})) c.options.d_max.reset();
  const size_t capacity = *rc::gen::element(c.options.tile, size_t{16}, size_t{100}, size_t{4096}, size_t{20000});
  RC_TAG(name(c.kernel));
  classify(c.data, c.mask);

  std::vector<float> a = c.data;
  Workspace ws(capacity);
  Trace trace;
  Calls calls;
  run_kernel_with(c.kernel, CountingFn{c.f, &calls}, CountingMask{c.mask, &calls}, a.data(), a.size(), ws, c.options,
                  &trace);

  std::vector<uint8_t> sel(c.data.size());
  for (size_t i = 0; i < sel.size(); ++i) sel[i] = oracle::selected(c.mask, c.data[i]) ? 1 : 0;
  const double f_charged = ::maskapply::gen::model_regret(trace, sel, f_calls(), c.f, c.options).whole_pilot_cost;
  const double mask_charged =
      ::maskapply::gen::model_regret(trace, sel, mask_calls(), c.f, c.options).whole_pilot_cost;
  RC_CLASSIFY(calls.f > 4 * ((sel.size() + 15) / 16), "f ran more often than one blend over the array would");
  if (f_charged != static_cast<double>(calls.f) || mask_charged != static_cast<double>(calls.mask)) {
    std::ostringstream why;
    why << name(c.kernel) << " over n = " << c.data.size() << " (workspace capacity " << capacity
        << "): executed " << calls.f << " vector f calls and " << calls.mask << " mask calls; the model charges "
        << f_charged << " and " << mask_charged << " for its trace of " << trace.runs.size() << " runs and "
        << trace.tiles.size() << " tiles";
    save_case(c, why.str());
    RC_FAIL(why.str());
  }
}

}  // namespace
}  // namespace maskapply::prop
