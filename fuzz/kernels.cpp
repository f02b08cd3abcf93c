// SPDX-License-Identifier: MIT
// Fuzz target `kernels`: every plain kernel (blend, blend_skip, blend_verified, detour, detour_skip, compact,
// compact_skip, tiled_detour) equals the scalar oracle bit for bit, for any f, mask, n, misalignment, tile and
// float bits.
//
// Two targets are built from this file: `kernels` takes n up to kMaxN = 1024 (a larger decoded n is folded into
// [0, 1024]; tiles of 16 to 512 still give several tiles and workspace pieces per input) and runs each input
// either through one instantiation for a run-time f and mask or through the registry's instantiation for its f
// and mask, half of the inputs each (one_instance.h, route_of: a hash of the input); `kernels_large` (MASKAPPLY_FUZZ_LARGE) takes the
// whole range, up to 9000 elements (two tiles of 4096 and a tail), always through the registry. Same checks, same input layout, same corpus (corpus/kernels). Figures and what each gives up:
// docs/fuzzing.md, "Throughput".
//
// Invariants, each checked on every input:
//   1. the output equals oracle::apply bit for bit: f ran exactly once on every selected element (bits_inc is
//      not idempotent) and never on another; unselected elements keep their bits, NaN payloads included;
//   2. the sentinels around the array are intact: no write outside [a, a+n);
//   3. rerun with the array flush against a PROT_NONE page (the end, or the start), the kernel neither reads
//      nor writes outside [a, a+n) by one byte, and gives the same output.
// Both runs use a hostile workspace (testing::hostile_workspace): a capacity smaller than, equal to or larger
// than the tile, every buffer filled with garbage, so a stale code or an undersized buffer shows.
// A violation prints kernel, f, mask, n, misalignment, the first differing index, its tile and strategy, input /
// expected / actual as hex bits, writes a case file and the commands that rerun it, and aborts.
//
// Input layout, in the order FuzzedDataProvider consumes it (integers from the end of the input, the data bytes
// from the front):
//   u8  kernel (mod 8, the order above)          u8  f (mod 7, catalog order; 6 = bits_inc)
//   u8  mask kind (mod 6) + threshold (data.h: consume_threshold) [+ u32 bits_mask, u32 bits_value for bits_eq]
//   u16 n (mod 9001; `kernels`: then mod 1025 when above 1024)   u8  misalignment in floats (mod 16)
//   u8  tile selector: < 8 picks {4096, 16, 32, 48, 64, 256, 1000, 2048}, else u16 tile in [16, 4096]
//       (the workspace capacity too: detour and compact work in pieces of it)
//   blend_verified only: f64 d_max in [-1.5, 1.5], u8 verify_blocks (1..16), f64 bail in [0, 1.5]
//   u8  guard: bit 0 puts the array at the end of its guard pages, else at the start
//   the data (data.h: consume_data): raw bits, runs, or seeded uniform with special values.
#include "data.h"
#include "fuzz.h"
#include "guarded.h"

using namespace maskapply;

namespace {

constexpr std::array<Kernel, 8> kPlain{Kernel::blend,  Kernel::blend_skip,  Kernel::blend_verified,
                                       Kernel::detour, Kernel::detour_skip, Kernel::compact,
                                       Kernel::compact_skip, Kernel::tiled_detour};
constexpr std::array<size_t, 8> kTiles{4096, 16, 32, 48, 64, 256, 1000, 2048};
#ifdef MASKAPPLY_FUZZ_LARGE
constexpr size_t kMaxN = 9000;
constexpr const char* kTarget = "kernels_large";
constexpr bool kLarge = true;
#else
constexpr size_t kMaxN = 1024;
constexpr const char* kTarget = "kernels";
constexpr bool kLarge = false;
#endif

// The target's only state across inputs, owned here (the library keeps none): the guard pages of invariant 3,
// mapped once with room for the largest n and reused by every input, instead of a mapping per input.
testing::GuardPages& guard_pages() {
  static testing::GuardPages g(kMaxN);
  return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  FuzzedDataProvider p(bytes, size);
  testing::Case c;
  const fuzz::Route route = fuzz::route_of(bytes, size, kLarge);
  c.kernel = kPlain[p.ConsumeIntegral<uint8_t>() % kPlain.size()];
  c.f = static_cast<Fn>(p.ConsumeIntegral<uint8_t>() % kFnNames.size());
  c.mask = fuzz::consume_mask(p);
  size_t n = p.ConsumeIntegral<uint16_t>() % 9001;
  if (n > kMaxN) n %= kMaxN + 1;  // an n that fits keeps its meaning in both targets
  c.misalign = p.ConsumeIntegral<uint8_t>() % 16;
  const uint8_t tile_sel = p.ConsumeIntegral<uint8_t>();
  c.options.tile = tile_sel < kTiles.size() ? kTiles[tile_sel] : p.ConsumeIntegralInRange<size_t>(16, 4096);
  c.options.probe = std::min(c.options.probe, c.options.tile);
  if (c.kernel == Kernel::blend_verified) {
    c.options.d_max = p.ConsumeFloatingPointInRange<double>(-1.5, 1.5);
    c.options.verify_blocks = 1 + p.ConsumeIntegral<uint8_t>() % 16;
    c.options.bail = p.ConsumeFloatingPointInRange<double>(0.0, 1.5);
  }
  const bool at_end = p.ConsumeIntegral<uint8_t>() & 1;
  c.data = fuzz::consume_data(p, n);

  fuzz::verbose(c);
  const testing::CheckResult r = fuzz::check_fuzzed(c, route);
  if (!r.ok)
    fuzz::fail(kTarget, r.message + " (through " + fuzz::name(route) + ")", &c, fuzz::fuzzed_failure(route));

  // Again flush against a guard page: an access outside [a, a+n) faults (SIGSEGV; libFuzzer reports it).
  if (const std::string bad = fuzz::run_guarded(guard_pages(), route, c, c.options, at_end, r.output); !bad.empty())
    fuzz::fail(kTarget, testing::describe(c.kernel, c.f, c.mask, n, c.options, 0) + ": " + bad + " (through " +
                            fuzz::name(route) + ")", &c);
  return 0;
}
