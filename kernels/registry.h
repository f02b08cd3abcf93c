// SPDX-License-Identifier: MIT
// Runtime access to every canonical kernel and pilot by name, with a catalog f and a mask spec: what the tests,
// the fuzzers and the command-line tool call. The kernels themselves are the header-only templates.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <type_traits>

#include "functions.h"
#include "masks.h"
#include "pilot.h"

namespace maskapply {

enum class Kernel : uint8_t {
  blend, blend_skip, blend_verified, detour, detour_skip, compact, compact_skip, tiled_detour,
  pilot_v1, pilot_v2, pilot_v3, pilot_v3_5, pilot_v4, pilot_v5, pilot_v6
};
inline constexpr std::array<std::string_view, 15> kKernelNames{
    "blend",   "blend_skip",   "blend_verified", "detour",   "detour_skip", "compact",  "compact_skip",
    "tiled_detour", "pilot_v1", "pilot_v2",      "pilot_v3", "pilot_v3_5",  "pilot_v4", "pilot_v5", "pilot_v6"};
inline constexpr std::array<Kernel, 15> kAllKernels{
    Kernel::blend,    Kernel::blend_skip, Kernel::blend_verified, Kernel::detour,     Kernel::detour_skip,
    Kernel::compact,  Kernel::compact_skip, Kernel::tiled_detour, Kernel::pilot_v1,   Kernel::pilot_v2,
    Kernel::pilot_v3, Kernel::pilot_v3_5, Kernel::pilot_v4,   Kernel::pilot_v5, Kernel::pilot_v6};

constexpr std::string_view name(Kernel k) { return kKernelNames[static_cast<size_t>(k)]; }
constexpr bool is_pilot(Kernel k) { return k >= Kernel::pilot_v1; }
constexpr std::optional<Kernel> kernel_from_name(std::string_view s) {
  for (size_t i = 0; i < kKernelNames.size(); ++i)
    if (kKernelNames[i] == s) return static_cast<Kernel>(i);
  return std::nullopt;
}

// Runs kernel k over [a, a+n) with f and mask; a trace, when given, receives the runs it executes (a plain kernel
// reports its strategy over [0, n), one run per pass of the workspace for the detour family, per tile for
// tiled_detour, which reports detour) and, for pilots, the tile decisions.
// Plain kernels take from o: tile (tiled_detour, blend_verified) and d_max, verify_blocks, bail
// (blend_verified, which here is the complete strategy the pilots use: per tile, verified blend and detour on
// the rest after a bail-out; d_max defaults to 0). Throws std::invalid_argument on invalid options.
void run_kernel(Kernel k, Fn f, const MaskSpec& m, float* a, size_t n, Workspace& ws, const PilotOptions& o = {},
                Trace* trace = nullptr);

// The same for a compile-time f and mask (any callables of the kernel concept). w, when given, is told the work
// every kernel executes (work.h; e.g. a WorkCounts).
template <class F, class M, class W = NoWork>
void run_kernel_with(Kernel k, F f, M mask, float* a, size_t n, Workspace& ws, const PilotOptions& o,
                     Trace* trace, W&& w = {}) {
  NullObserver none;
  const auto pilot = [&](auto&& body) {
    if constexpr (drops_work<W>()) {  // the pilots' usual instantiations: Trace& or NullObserver&
      if (trace)
        body(*trace);
      else
        body(none);
    } else if (trace) {
      WithWork<Trace, std::remove_reference_t<W>> obs{*trace, w};
      body(obs);
    } else {
      WithWork<NullObserver, std::remove_reference_t<W>> obs{none, w};
      body(obs);
    }
  };
  // A plain kernel reports what it executes: one run for blend and blend_skip, one per pass of the detour family
  // (pieces of the workspace's capacity, or of the tile for tiled_detour), as each pass packs and expands alone.
  const auto plain = [&](Strategy s, size_t piece = 0) {
    if (!trace) return;
    piece = piece ? piece : std::max<size_t>(n, 1);
    for (size_t i = 0; i < n; i += piece) trace->run(Run{i, std::min(n, i + piece), s});
  };
  switch (k) {
    case Kernel::blend: blend(a, n, f, mask, w); return plain(Strategy::blend);
    case Kernel::blend_skip: blend_skip(a, n, f, mask, w); return plain(Strategy::blend_skip);
    case Kernel::detour: detour(a, n, f, mask, ws, w); return plain(Strategy::detour, ws.capacity());
    case Kernel::detour_skip: detour_skip(a, n, f, mask, ws, w); return plain(Strategy::detour_skip, ws.capacity());
    case Kernel::compact: compact(a, n, f, mask, ws, w); return plain(Strategy::compact, ws.capacity());
    case Kernel::compact_skip:
      compact_skip(a, n, f, mask, ws, w);
      return plain(Strategy::compact_skip, ws.capacity());
    case Kernel::tiled_detour: tiled_detour(a, n, f, mask, ws, o.tile, w); return plain(Strategy::detour, o.tile);
    case Kernel::blend_verified: {
      if (const std::string err = o.validate(); !err.empty()) throw std::invalid_argument("maskapply: " + err);
      ws.reserve(o.tile);
      const double d_max = o.d_max.value_or(0.0);
      for (size_t i = 0; i < n; i += o.tile) {
        const size_t len = std::min(o.tile, n - i);
        const size_t did = blend_verified(a + i, len, f, mask, d_max, o.verify_blocks, o.bail, w);
        if (did < len) detour(a + i + did, len - did, f, mask, ws, w);
        if (trace) {
          if (did) trace->run(Run{i, i + did, Strategy::blend_verified});
          if (did < len) trace->run(Run{i + did, i + len, Strategy::detour});
        }
      }
      return;
    }
    case Kernel::pilot_v1: return pilot([&](auto& obs) { pilot_v1(a, n, f, mask, ws, o, obs); });
    case Kernel::pilot_v2: return pilot([&](auto& obs) { pilot_v2(a, n, f, mask, ws, o, obs); });
    case Kernel::pilot_v3: return pilot([&](auto& obs) { pilot_v3(a, n, f, mask, ws, o, obs); });
    case Kernel::pilot_v3_5: return pilot([&](auto& obs) { pilot_v3_5(a, n, f, mask, ws, o, obs); });
    case Kernel::pilot_v4: return pilot([&](auto& obs) { pilot_v4(a, n, f, mask, ws, o, obs); });
    case Kernel::pilot_v5: return pilot([&](auto& obs) { pilot_v5(a, n, f, mask, ws, o, obs); });
    case Kernel::pilot_v6: return pilot([&](auto& obs) { pilot_v6(a, n, f, mask, ws, o, obs); });
  }
}

namespace detail {
template <Fn F>
void run_kernel_fn(Kernel k, const MaskSpec& m, float* a, size_t n, Workspace& ws, const PilotOptions& o,
                   Trace* trace);
}

}  // namespace maskapply
