// SPDX-License-Identifier: MIT
#include "check.h"

#include "decisions.h"

namespace maskapply::testing {

std::string describe(Kernel k, Fn f, const MaskSpec& m, size_t n, const PilotOptions& o, size_t misalign) {
  return describe(name(k), name(f), describe_mask(m), n, o, misalign);
}

Subject kernel_subject(Kernel k, Fn f, const MaskSpec& m) {
  return Subject{std::string(name(k)), [k, f, m](float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace& t) {
                   run_kernel(k, f, m, a, n, ws, o, &t);
                 }};
}

HostileWorkspace hostile_workspace(Kernel k, Fn f, std::span<const float> input, size_t tile, size_t salt) {
  return draw_hostile_workspace({static_cast<uint64_t>(k), static_cast<uint64_t>(f)}, input, tile, salt);
}

reference::Params reference_params(const PilotOptions& o) {
  reference::Params q;
  q.tile = o.tile, q.probe = o.probe, q.xlo = o.xlo, q.lo = o.lo, q.calib_blocks = o.calib_blocks;
  q.calib_len = o.calib_len, q.verify_blocks = o.verify_blocks, q.bail = o.bail, q.distrust = o.distrust;
  q.B = o.B, q.D = o.D, q.seed = o.seed, q.C = o.C, q.S = o.S, q.K = o.K, q.M = o.M;
  q.shrink = o.shrink, q.kappa = o.kappa, q.rho = o.rho;
  q.v6_pieces = o.v6_pieces, q.v6_bail = o.v6_bail, q.v6_lo = o.v6_lo;
  q.v6_floor = o.v6_floor, q.v6_band = o.v6_band;
  q.v6_score_switch = o.v6_score_switch, q.v6_score_blend = o.v6_score_blend;
  q.v6_score_skip = o.v6_score_skip, q.v6_score_sample = o.v6_score_sample;
  q.v6_gate = o.v6_gate, q.v6_gate_lambda = o.v6_gate_lambda;
  q.v6_gate_g1 = o.v6_gate_g1, q.v6_gate_g2 = o.v6_gate_g2, q.v6_gate_cap = o.v6_gate_cap;
  q.v6_safe_switch = o.v6_safe_switch, q.v6_safe_blend = o.v6_safe_blend;
  q.v6_safe_skip = o.v6_safe_skip, q.v6_safe_sample = o.v6_safe_sample;
  q.V = o.V;
  q.v6_dense_cut = o.v6_dense_cut;
  q.v6_dense_block = o.v6_dense_block;
  q.v6_reg = o.v6_reg, q.v6_dear_floor = o.v6_dear_floor, q.v6_dear_probe = o.v6_dear_probe;
  q.v6_cheap_probe = o.v6_cheap_probe;
  q.v6_cs = o.v6_cs, q.v6_cs_empty = o.v6_cs_empty, q.v6_cs_switch = o.v6_cs_switch, q.v6_cs_block = o.v6_cs_block;
  q.v6_cs_reg = o.v6_cs_reg, q.v6_cs_elem = o.v6_cs_elem, q.v6_cs_to_skip = o.v6_cs_to_skip;
  q.v6_cs_to_compact = o.v6_cs_to_compact, q.v6_cs_sample = o.v6_cs_sample, q.v6_cs_probation = o.v6_cs_probation;
  return q;
}

std::string check_decisions(Kernel k, std::span<const float> input, const MaskSpec& m, const PilotOptions& o,
                            const Trace& t) {
  reference::Pilot p;
  switch (k) {
    case Kernel::pilot_v1: p = reference::Pilot::v1; break;
    case Kernel::pilot_v2: p = reference::Pilot::v2; break;
    case Kernel::pilot_v3: p = reference::Pilot::v3; break;
    case Kernel::pilot_v3_5: p = reference::Pilot::v3_5; break;
    case Kernel::pilot_v4: p = reference::Pilot::v4; break;
    case Kernel::pilot_v5: p = reference::Pilot::v5; break;
    case Kernel::pilot_v6: p = reference::Pilot::v6; break;
    case Kernel::blend_verified: p = reference::Pilot::verified; break;
    default: return {};
  }
  reference::Params q = reference_params(o);
  if (o.d_max)
    q.d_max = *o.d_max;
  else if (k == Kernel::blend_verified)
    q.d_max = 0;  // the registry's default
  else if (!t.tiles.empty())
    q.d_max = t.tiles.front().d_max;  // timed: the decisions given the measured d_max are still fixed
  else
    return t.runs.empty() ? std::string() : "a timed pilot reported runs but no tile";
  std::vector<uint8_t> sel(input.size());
  for (size_t i = 0; i < input.size(); ++i) sel[i] = oracle::selected(m, input[i]);
  return reference::compare(reference::decide(p, sel, q), t);
}

CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                         size_t misalign) {
  return check_kernel(kernel_subject(k, f, m), k, f, m, input, o, misalign);
}

CheckResult check_kernel(const Subject& s, Kernel k, Fn f, const MaskSpec& m, std::span<const float> input,
                         const PilotOptions& o, size_t misalign) {
  return check_kernel(s, k, f, m, input, o, misalign, hostile_workspace(k, f, input, o.tile, misalign));
}

CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                         size_t misalign, const HostileWorkspace& w) {
  return check_kernel(kernel_subject(k, f, m), k, f, m, input, o, misalign, w);
}

CheckResult check_kernel(const Subject& s, Kernel k, Fn f, const MaskSpec& m, std::span<const float> input,
                         const PilotOptions& o, size_t misalign, const HostileWorkspace& w) {
  CheckResult r = check(s, reference(f, m), input, o, misalign, w);
  if (const std::string decisions = check_decisions(k, input, m, o, r.trace); !decisions.empty()) {
    r.message = r.ok ? describe(k, f, m, input.size(), o, misalign) + " workspace=" +
                           std::to_string(w.capacity ? w.capacity : o.tile) + ": " + decisions
                     : r.message + "; " + decisions;
    r.ok = false;
  }
  return r;
}

}  // namespace maskapply::testing
