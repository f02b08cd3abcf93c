// SPDX-License-Identifier: MIT
#include "check.h"

#include <sstream>

#include "buffers.h"

namespace maskapply::testing {

std::string describe(Kernel k, Fn f, const MaskSpec& m, size_t n, const PilotOptions& o, size_t misalign) {
  std::ostringstream s;
  s << "kernel=" << name(k) << " f=" << name(f) << " mask=" << name(m.kind) << " thd=" << oracle::hex(m.thd);
  if (m.kind == MaskKind::bits_eq) s << " bits_mask=" << m.bits_mask << " bits_value=" << m.bits_value;
  s << " n=" << n << " misalign=" << misalign << " tile=" << o.tile << " probe=" << o.probe;
  if (o.d_max) s << " d_max=" << *o.d_max;
  return s.str();
}

CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                         size_t misalign) {
  CheckResult r;
  std::vector<float> expected(input.begin(), input.end());
  oracle::apply(expected.data(), expected.size(), f, m);
  SentinelBuffer buf(input, misalign);
  Workspace ws(o.tile);
  run_kernel(k, f, m, buf.data(), buf.size(), ws, o, &r.trace);
  r.output.assign(buf.data(), buf.data() + buf.size());
  const oracle::Mismatch mm = oracle::compare(name(k), input, expected, r.output, o.tile, &r.trace);
  const std::string sentinel = buf.check();
  r.mismatches = mm.count;
  r.ok = !mm && sentinel.empty();
  if (!r.ok)
    r.message = describe(k, f, m, input.size(), o, misalign) + ": " + (mm ? mm.message : "") +
                (sentinel.empty() ? "" : (mm ? "; " : "") + sentinel);
  return r;
}

}  // namespace maskapply::testing
