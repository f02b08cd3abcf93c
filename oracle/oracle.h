// SPDX-License-Identifier: MIT
// The reference: `for i: if (mask(a[i])) a[i] = f(a[i])`, in plain scalar code (no intrinsics, built with
// -ffp-contract=off), and a comparator of uint32 bit patterns that explains the first mismatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "catalog.h"
#include "trace.h"

namespace maskapply::oracle {

// Scalar twin of the catalog entry f.
float apply_f(Fn f, float x);
// Scalar evaluation of the mask spec.
bool selected(const MaskSpec& m, float x);
// The reference loop.
void apply(float* a, size_t n, Fn f, const MaskSpec& m);
// How many elements the mask selects.
size_t count(const float* a, size_t n, const MaskSpec& m);

uint32_t bits(float x);
float from_bits(uint32_t u);
std::string hex(float x);  // "0x3f800000"

struct Mismatch {
  size_t count = 0;    // elements whose bits differ
  size_t first = 0;    // index of the first
  std::string message; // empty when count == 0
  explicit operator bool() const { return count != 0; }
};

// Compares expected and actual bit for bit. On a difference the message names the kernel, the first index, its
// tile (index / tile), the strategy that wrote it (from the trace, when given), and input / expected / actual as
// hex bits.
Mismatch compare(std::string_view kernel, std::span<const float> input, std::span<const float> expected,
                 std::span<const float> actual, size_t tile = 4096, const Trace* trace = nullptr);

}  // namespace maskapply::oracle
