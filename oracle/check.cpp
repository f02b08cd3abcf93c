// SPDX-License-Identifier: MIT
#include "check.h"

namespace maskapply::testing {

std::string describe(Kernel k, Fn f, const MaskSpec& m, size_t n, const PilotOptions& o, size_t misalign) {
  return describe(name(k), name(f), describe_mask(m), n, o, misalign);
}

Subject kernel_subject(Kernel k, Fn f, const MaskSpec& m) {
  return Subject{std::string(name(k)), [k, f, m](float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace& t) {
                   run_kernel(k, f, m, a, n, ws, o, &t);
                 }};
}

CheckResult check_kernel(Kernel k, Fn f, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                         size_t misalign) {
  return check(kernel_subject(k, f, m), reference(f, m), input, o, misalign);
}

}  // namespace maskapply::testing
