// SPDX-License-Identifier: MIT
#include "one_instance.h"

namespace maskapply::fuzz {

namespace {

// f and mask chosen at run time, per vector: a switch the branch predictor settles at once.
struct AnyFn {
  Fn f;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const {
    return visit_fn(f, [x](auto fn) { return fn(x); });
  }
};
struct AnyMask {
  MaskSpec m;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t v) const {
    return visit_mask(m, [v](auto mask) { return mask(v); });
  }
};

}  // namespace

void run_one_instance(Kernel k, Fn f, const MaskSpec& m, float* a, size_t n, Workspace& ws, const PilotOptions& o,
                      Trace* trace) {
  run_kernel_with(k, AnyFn{f}, AnyMask{m}, a, n, ws, o, trace);
}

}  // namespace maskapply::fuzz
