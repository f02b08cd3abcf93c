// SPDX-License-Identifier: MIT
// Adversarial selection families: each a name, a one-line claim, and named numeric knobs with defaults and
// ranges. generate() turns a family, its knobs, n and a seed into a selection (0 / 1 per element) and, when
// the family fits the pattern format, the Pattern that produced it. Every random choice comes from the seed.
//
//   auto g = gen::generate("step:head=256", 1 << 20, 7);   // or a FamilySpec
//   if (auto* e = std::get_if<std::string>(&g)) ... else use std::get<gen::Generated>(g).selection
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "pattern.h"

namespace maskapply::gen {

struct Knob {
  std::string name;
  double value;         // the default
  double min, max;      // accepted range, inclusive
  bool integer;         // must be a whole number
  std::string help;
};

struct Family {
  std::string name;
  std::string claim;    // what the family does, in one line
  std::vector<Knob> knobs;
};

// Every family, in a fixed order (the report's column order).
const std::vector<Family>& families();
const Family* find_family(std::string_view name);

// A family with knob overrides: "name" or "name:knob=value,knob=value".
struct FamilySpec {
  std::string family;
  std::vector<std::pair<std::string, double>> knobs;
  std::string text() const;  // back to "name:knob=value,..." (no ':' without overrides)
};
std::variant<FamilySpec, std::string> parse_family_spec(std::string_view text);

struct Generated {
  std::string label;                 // "step(head=256, period=4096, ...)" with every knob's value
  uint64_t seed = 0;
  std::vector<uint8_t> selection;    // n elements, 0 / 1
  std::optional<Pattern> pattern;    // the pattern that gives this selection, when the family has one
  std::vector<std::pair<std::string, double>> knobs;  // every knob's value (defaults filled in)
};

// Builds the selection of n elements. Errors (unknown family or knob, value out of range or not whole) come
// back as a message; never throws for bad input.
std::variant<Generated, std::string> generate(const FamilySpec& spec, size_t n, uint64_t seed);
std::variant<Generated, std::string> generate(std::string_view spec, size_t n, uint64_t seed);

// The fraction of selected elements.
double density(std::span<const uint8_t> sel);

}  // namespace maskapply::gen
