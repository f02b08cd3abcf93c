// SPDX-License-Identifier: MIT
// Plain scalar code only: this file is the reference the kernels are judged by. Built with -ffp-contract=off so
// the compiler fuses nothing the source does not.
#include "oracle.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sleef.h>

namespace maskapply::oracle {

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
float from_bits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
std::string hex(float x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", bits(x));
  return buf;
}

float apply_f(Fn f, float x) {
  switch (f) {
    case Fn::sqrt: return std::sqrt(x);
    case Fn::frfrexp: return Sleef_finz_frfrexpf1_purecfma(x);
    case Fn::sin35: return Sleef_finz_sinf1_u35purecfma(x);
    case Fn::sin10: return Sleef_finz_sinf1_u10purecfma(x);
    case Fn::pow10: return Sleef_finz_powf1_u10purecfma(x, kPowExponent);
    case Fn::fma13: {
      for (int i = 0; i < 13; ++i) x = std::fma(x, 0.5f, 0.5f);
      return x;
    }
    case Fn::bits_inc: return from_bits(bits(x) + 1u);
  }
  return x;
}

bool selected(const MaskSpec& m, float x) {
  switch (m.kind) {
    case MaskKind::less: return x < m.thd;
    case MaskKind::greater: return x > m.thd;
    case MaskKind::not_ge: return !(x >= m.thd);
    case MaskKind::bits_eq: return (bits(x) & m.bits_mask) == m.bits_value;
    case MaskKind::always: return true;
    case MaskKind::never: return false;
  }
  return false;
}

void apply(float* a, size_t n, Fn f, const MaskSpec& m) {
  for (size_t i = 0; i < n; ++i)
    if (selected(m, a[i])) a[i] = apply_f(f, a[i]);
}

size_t count(const float* a, size_t n, const MaskSpec& m) {
  size_t c = 0;
  for (size_t i = 0; i < n; ++i) c += selected(m, a[i]);
  return c;
}

Mismatch compare(std::string_view kernel, std::span<const float> input, std::span<const float> expected,
                 std::span<const float> actual, size_t tile, const Trace* trace) {
  Mismatch r;
  if (expected.size() != actual.size()) {
    r.count = expected.size() > actual.size() ? expected.size() : actual.size();
    r.message = std::string(kernel) + ": size differs: expected " + std::to_string(expected.size()) +
                " elements, actual " + std::to_string(actual.size());
    return r;
  }
  for (size_t i = 0; i < expected.size(); ++i)
    if (bits(expected[i]) != bits(actual[i])) {
      if (r.count++ == 0) r.first = i;
    }
  if (r.count == 0) return r;
  const size_t i = r.first;
  std::string strategy = "untraced";
  if (trace) {
    const auto run = trace->run_at(i);
    strategy = run ? std::string(name(run->strategy)) + " over [" + std::to_string(run->begin) + ", " +
                         std::to_string(run->end) + ")"
                   : "no run covers it";
  }
  r.message = std::string(kernel) + ": " + std::to_string(r.count) + " of " + std::to_string(expected.size()) +
              " elements differ; first at index " + std::to_string(i) + " (tile " +
              std::to_string(tile ? i / tile : 0) + ", strategy " + strategy + "): input " +
              (i < input.size() ? hex(input[i]) : std::string("?")) + " expected " + hex(expected[i]) +
              " actual " + hex(actual[i]);
  return r;
}

}  // namespace maskapply::oracle
