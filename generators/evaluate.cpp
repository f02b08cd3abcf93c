// SPDX-License-Identifier: MIT
#include "evaluate.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

#include "buffers.h"
#include "oracle.h"

namespace maskapply::gen {

namespace {
MaskSpec less(float thd) { return MaskSpec{MaskKind::less, thd, 0, 0}; }
}  // namespace

PilotOptions options_for(const PilotOptions& base, Fn f, const CostModel* model, std::optional<double> dmax) {
  PilotOptions o = base;
  if (model) o = model_options(*model, f, o);
  if (dmax) o.d_max = *dmax;
  return o;
}

std::vector<float> oracle_output(std::span<const float> input, Fn f, float thd) {
  std::vector<float> out(input.begin(), input.end());
  oracle::apply(out.data(), out.size(), f, less(thd));
  return out;
}

std::vector<uint8_t> selection_of(std::span<const float> input, float thd) {
  std::vector<uint8_t> s(input.size());
  for (size_t i = 0; i < input.size(); ++i) s[i] = oracle::selected(less(thd), input[i]);
  return s;
}

Evaluation evaluate(Kernel k, Fn f, float thd, std::span<const float> input, std::span<const float> expected,
                    const PilotOptions& o, const CostModel& regret_model, bool corrupt_for_test) {
  Evaluation e;
  e.kernel = k, e.f = f;
  testing::SentinelBuffer buf(input);
  Workspace ws(o.tile);
  run_kernel(k, f, less(thd), buf.data(), buf.size(), ws, o, &e.trace);
  if (corrupt_for_test && buf.size()) {
    uint32_t u;
    std::memcpy(&u, buf.data() + buf.size() / 2, 4);
    u ^= 1u;
    std::memcpy(buf.data() + buf.size() / 2, &u, 4);
  }
  const std::span<const float> out(buf.data(), buf.size());
  const oracle::Mismatch mm = oracle::compare(name(k), input, expected, out, o.tile, &e.trace);
  const std::string sentinel = buf.check();
  e.mismatches = mm.count;
  e.bit_exact = !mm && sentinel.empty();
  if (mm && mm.first < input.size() && mm.first < out.size()) {
    const size_t i = mm.first;
    e.first = FirstMismatch{i, i / std::max<size_t>(o.tile, 1), "untraced", oracle::hex(input[i]),
                            oracle::hex(expected[i]), oracle::hex(out[i])};
    if (const auto run = e.trace.run_at(i)) e.first->strategy = std::string(name(run->strategy));
  }
  if (!e.bit_exact) e.message = mm ? mm.message : sentinel;
  if (!sentinel.empty() && mm) e.message += "; " + sentinel;
  if (is_pilot(k)) {
    if (!e.trace.tiles.empty()) e.d_max = e.trace.tiles.front().d_max;
    e.regret = model_regret(e.trace, selection_of(input, thd), regret_model, f, o);
  }
  return e;
}

namespace {
using Clock = std::chrono::steady_clock;

template <class Body>
double min_ns(int reps, std::span<const float> input, Body&& body) {
  std::vector<float> copy(input.size());
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < std::max(reps, 1); ++r) {
    std::copy(input.begin(), input.end(), copy.begin());
    const auto st = Clock::now();
    body(copy.data(), copy.size());
    const auto ed = Clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(ed - st).count());
  }
  return best;
}

// Strategy s run over a span, as the pilots run it (the verified blends are never a candidate: blend_skip_verified,
// which no plain kernel runs alone, is refused).
void run_strategy(Strategy s, Fn f, float thd, float* a, size_t n, Workspace& ws) {
  Kernel k = Kernel::blend;
  switch (s) {
    case Strategy::blend: k = Kernel::blend; break;
    case Strategy::blend_skip: k = Kernel::blend_skip; break;
    case Strategy::blend_verified: k = Kernel::blend_verified; break;
    case Strategy::detour: k = Kernel::detour; break;
    case Strategy::detour_skip: k = Kernel::detour_skip; break;
    case Strategy::compact: k = Kernel::compact; break;
    case Strategy::compact_skip: k = Kernel::compact_skip; break;
    case Strategy::blend_skip_verified:
      throw std::invalid_argument("maskapply: blend_skip_verified is not timed alone");
  }
  run_kernel(k, f, less(thd), a, n, ws);
}
}  // namespace

double time_kernel(Kernel k, Fn f, float thd, std::span<const float> input, const PilotOptions& o, int reps) {
  Workspace ws(o.tile);
  return min_ns(reps, input, [&](float* a, size_t n) { run_kernel(k, f, less(thd), a, n, ws, o); });
}

CaseTimings time_case(Fn f, float thd, std::span<const float> input, const std::vector<Run>& oracle_runs,
                      size_t tile, int reps) {
  CaseTimings t;
  Workspace ws(std::max<size_t>(tile, 16));
  t.oracle_ns = min_ns(reps, input, [&](float* a, size_t) {
    for (const Run& r : oracle_runs) run_strategy(r.strategy, f, thd, a + r.begin, r.end - r.begin, ws);
  });
  t.fixed_ns = std::numeric_limits<double>::infinity();
  for (Strategy s : kOracleStrategies) {
    const double ns = min_ns(reps, input, [&](float* a, size_t n) {
      for (size_t i = 0; i < n; i += tile) run_strategy(s, f, thd, a + i, std::min(tile, n - i), ws);
    });
    if (ns < t.fixed_ns) t.fixed_ns = ns, t.fixed = s;
  }
  return t;
}

Measured measured_regret(double pilot_ns, size_t n, const CaseTimings& t) {
  Measured m;
  m.pilot_ns = pilot_ns, m.oracle_ns = t.oracle_ns, m.fixed_ns = t.fixed_ns;
  m.gib_per_s = pilot_ns > 0 ? static_cast<double>(n) * 4.0 / pilot_ns / 1.073741824 : 0;
  m.vs_oracle = ratio(pilot_ns, t.oracle_ns);
  m.vs_fixed = ratio(pilot_ns, t.fixed_ns);
  return m;
}

}  // namespace maskapply::gen
