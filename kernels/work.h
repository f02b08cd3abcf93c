// SPDX-License-Identifier: MIT
// The work a kernel executes, in the cost model's terms (generators/cost_model.h): the shared building blocks
// tell a work observer each unit as they do it. NoWork, every kernel's default, compiles to nothing; WorkCounts
// counts (property 16 compares each count with what the model charges for the trace).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>


namespace maskapply {

// One kind of work per term of the cost model. The unit is a register of 4 floats, except for `switched`.
enum class Work : uint8_t {
  blended,     // B: a register blended (load, mask, f, bsl, store); a tail is one local block of 4
  counted,     // V: a register of a verified blend's body counted (its vsub)
  compressed,  // C: a register compressed into the workspace
  expanded,    // E = D - C: a register expanded back from the workspace
  booked,      // K: a register compact's bookkeeping took (its s[k], idx[k], k += non-empty)
  skipped,     // S: a register of a block a skip kernel jumped over
  switched,    // M: one block of a skip kernel's span whose emptiness differs from the block before it (the
               //    span's first block is compared with "non-empty")
  probed,      // Q: a register the probe read (a short tail read as one local block of 4)
  packed,      // F, and the packed part of T: a register of the packed f pass (16 lanes at a time)
};
inline constexpr size_t kWorkKinds = 9;
inline constexpr std::array<std::string_view, kWorkKinds> kWorkNames{
    "blended", "counted", "compressed", "expanded", "booked", "skipped", "switched", "probed", "packed"};
constexpr std::string_view name(Work w) { return kWorkNames[static_cast<size_t>(w)]; }

// Drops every report: the default work observer.
struct NoWork {
  static constexpr bool kDropsWork = true;
  void work(Work, size_t) {}
};

// True when an observer of type W drops every work report (it says so with kDropsWork, as NoWork, NullObserver and
// Trace do): a caller then hands the kernels a NoWork lvalue instead, so an unobserved call runs the very same
// kernel instantiations whatever its trace observer.
template <class W>
constexpr bool drops_work() {
  using T = std::remove_cvref_t<W>;
  if constexpr (requires { T::kDropsWork; })
    return T::kDropsWork;
  else
    return false;
}

// Counts every report, by kind.
struct WorkCounts {
  std::array<size_t, kWorkKinds> n{};
  void work(Work w, size_t units) { n[static_cast<size_t>(w)] += units; }
  size_t operator[](Work w) const { return n[static_cast<size_t>(w)]; }
  friend bool operator==(const WorkCounts&, const WorkCounts&) = default;
};

}  // namespace maskapply
