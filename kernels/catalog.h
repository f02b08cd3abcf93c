// SPDX-License-Identifier: MIT
// The run-time names shared by kernels, oracle, tests and tools: the f catalog and the built-in masks. No
// intrinsics here, so the scalar oracle can include it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace maskapply {

// The f catalog, in the order of kFnNames. `bits_inc` is not from the article: it adds 1 to the bit pattern, a
// cheap f that is not idempotent, so applying it twice is visible (the exactly-once tests).
enum class Fn : uint8_t { sqrt, frfrexp, sin35, sin10, pow10, fma13, bits_inc };
inline constexpr std::array<std::string_view, 7> kFnNames{"sqrt",  "frfrexp", "sin35",   "sin10",
                                                          "pow10", "fma13",   "bits_inc"};
// The article's f, without the test-only bits_inc.
inline constexpr std::array<Fn, 6> kArticleFns{Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::sin10, Fn::pow10, Fn::fma13};
// The exponent of pow10: f(x) = powf(x, kPowExponent), SLEEF powf with a 1.0-ULP bound.
inline constexpr float kPowExponent = 1.5f;

constexpr std::string_view name(Fn f) { return kFnNames[static_cast<size_t>(f)]; }
constexpr std::optional<Fn> fn_from_name(std::string_view s) {
  for (size_t i = 0; i < kFnNames.size(); ++i)
    if (kFnNames[i] == s) return static_cast<Fn>(i);
  return std::nullopt;
}

enum class MaskKind : uint8_t { less, greater, not_ge, bits_eq, always, never };
inline constexpr std::array<std::string_view, 6> kMaskNames{"less", "greater", "not_ge", "bits_eq", "always", "never"};

// less: a < thd (the article's). greater: a > thd. not_ge: !(a >= thd), so NaN is selected. bits_eq:
// (bits(a) & bits_mask) == bits_value. always / never: constant.
struct MaskSpec {
  MaskKind kind = MaskKind::less;
  float thd = 0.5f;
  uint32_t bits_mask = 0;
  uint32_t bits_value = 0;
};

constexpr std::string_view name(MaskKind k) { return kMaskNames[static_cast<size_t>(k)]; }
constexpr std::optional<MaskKind> mask_from_name(std::string_view s) {
  for (size_t i = 0; i < kMaskNames.size(); ++i)
    if (kMaskNames[i] == s) return static_cast<MaskKind>(i);
  return std::nullopt;
}

}  // namespace maskapply
