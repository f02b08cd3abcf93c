// SPDX-License-Identifier: MIT
#include "registry.h"

namespace maskapply {

void run_kernel(Kernel k, Fn f, const MaskSpec& m, float* a, size_t n, Workspace& ws, const PilotOptions& o,
                Trace* trace) {
  switch (f) {
    case Fn::sqrt: return detail::run_kernel_fn<Fn::sqrt>(k, m, a, n, ws, o, trace);
    case Fn::frfrexp: return detail::run_kernel_fn<Fn::frfrexp>(k, m, a, n, ws, o, trace);
    case Fn::sin35: return detail::run_kernel_fn<Fn::sin35>(k, m, a, n, ws, o, trace);
    case Fn::sin10: return detail::run_kernel_fn<Fn::sin10>(k, m, a, n, ws, o, trace);
    case Fn::pow10: return detail::run_kernel_fn<Fn::pow10>(k, m, a, n, ws, o, trace);
    case Fn::fma13: return detail::run_kernel_fn<Fn::fma13>(k, m, a, n, ws, o, trace);
    case Fn::bits_inc: return detail::run_kernel_fn<Fn::bits_inc>(k, m, a, n, ws, o, trace);
  }
}

}  // namespace maskapply
