// SPDX-License-Identifier: MIT
#include "check.h"

#include <sstream>

#include "buffers.h"
#include "decisions.h"

namespace maskapply::testing {

std::string describe(Kernel k, Fn f, const MaskSpec& m, size_t n, const PilotOptions& o, size_t misalign) {
  std::ostringstream s;
  s << "kernel=" << name(k) << " f=" << name(f) << " mask=" << name(m.kind) << " thd=" << oracle::hex(m.thd);
  if (m.kind == MaskKind::bits_eq) s << " bits_mask=" << m.bits_mask << " bits_value=" << m.bits_value;
  s << " n=" << n << " misalign=" << misalign << " tile=" << o.tile << " probe=" << o.probe;
  if (o.d_max) s << " d_max=" << *o.d_max;
  return s.str();
}

HostileWorkspace hostile_workspace(Kernel k, Fn f, std::span<const float> input, size_t tile, size_t salt) {
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
  };
  mix(static_cast<uint64_t>(k)), mix(static_cast<uint64_t>(f)), mix(input.size()), mix(tile), mix(salt);
  for (const float x : input) mix(oracle::bits(x));
  HostileWorkspace w;
  w.garbage = h | 1;
  const uint64_t pick = (h >> 32) % 3, r = h >> 40;
  w.capacity = pick == 0 ? tile : pick == 1 ? 1 + r % tile : tile + 1 + r % (tile + 64);
  return w;
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
    case Kernel::blend_verified: p = reference::Pilot::verified; break;
    default: return {};
  }
  reference::Params q;
  q.tile = o.tile, q.probe = o.probe, q.xlo = o.xlo, q.lo = o.lo, q.calib_blocks = o.calib_blocks;
  q.calib_len = o.calib_len, q.verify_blocks = o.verify_blocks, q.bail = o.bail, q.distrust = o.distrust;
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
  return check_kernel(k, f, m, input, o, misalign, hostile_workspace(k, f, input, o.tile, misalign));
}

CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                         size_t misalign, const HostileWorkspace& w) {
  CheckResult r;
  std::vector<float> expected(input.begin(), input.end());
  oracle::apply(expected.data(), expected.size(), f, m);
  SentinelBuffer buf(input, misalign);
  Workspace ws(w.capacity ? w.capacity : o.tile);
  if (w.garbage) ws.scribble(w.garbage);
  run_kernel(k, f, m, buf.data(), buf.size(), ws, o, &r.trace);
  r.output.assign(buf.data(), buf.data() + buf.size());
  const oracle::Mismatch mm = oracle::compare(name(k), input, expected, r.output, o.tile, &r.trace);
  const std::string sentinel = buf.check();
  const std::string decisions = check_decisions(k, input, m, o, r.trace);
  r.mismatches = mm.count;
  r.ok = !mm && sentinel.empty() && decisions.empty();
  if (!r.ok) {
    r.message = describe(k, f, m, input.size(), o, misalign) + " workspace=" + std::to_string(ws.capacity()) + ": ";
    std::string sep;
    if (mm) r.message += mm.message, sep = "; ";
    if (!sentinel.empty()) r.message += sep + sentinel, sep = "; ";
    if (!decisions.empty()) r.message += sep + decisions;
  }
  return r;
}

}  // namespace maskapply::testing
