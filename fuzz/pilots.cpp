// SPDX-License-Identifier: MIT
// Fuzz target `pilots`: every pilot (v1, v2, v3, v3.5, v4, v5, v6), with an injected or a timed d_max and any options,
// equals the oracle bit for bit, stays inside its array, and decides exactly as the article's code does.
//
// Two targets are built from this file: `pilots` takes n up to kMaxN = 2048 (a larger decoded n is folded into
// [0, 2048]; with tiles of 16 to 512 and a short calibration that is still many tile decisions, v4's distrust
// running out included) and runs each input either through one instantiation for a run-time f and mask or
// through the registry's instantiation for its f and mask, half of the inputs each (one_instance.h, route_of);
// `pilots_large` (MASKAPPLY_FUZZ_LARGE) takes the whole range, up to 100 000 elements (the article's calibration
// of 4 x 2048 and 20 tiles of 4096), always through the registry. Same checks,
// same input layout, same corpus (corpus/pilots). Figures and what each gives up: docs/fuzzing.md, "Throughput".
//
// Invariants, each checked on every input:
//   1. the output equals oracle::apply bit for bit, and the sentinels are intact. f is bits_inc on a quarter
//      of the inputs: it is not idempotent, so an element processed twice (or never) shows: exactly once;
//   2. the trace partitions [0, n): runs in order, non-empty, contiguous, each inside one tile; the tile
//      decisions likewise;
//   3. every tile decision equals the decision reference's (oracle/decisions.h: its own copy of the article's
//      tables, constants and threshold arithmetic, fed only the selection and the options' values): the probe
//      count, the thresholds, where blend_verified bails, v4's distrust and its count from the previous tile, and
//      each strategy run over each range. The workspace is hostile (testing::hostile_workspace: a capacity
//      smaller than, equal to or larger than the tile, filled with garbage);
//   4. rerun with the array flush against a PROT_NONE page (its end or its start: bit 4 of the option flags), the
//      pilot neither reads nor writes outside [a, a+n) by one byte (a fault), and gives the same output, on
//      another hostile workspace; its trace partitions [0, n) again. When bits 5 and 6 of the option flags are
//      both set (a quarter of the inputs) this rerun calibrates by timing blend as the article does (no injected
//      d_max), and its decisions are compared with the decision reference fed the d_max it measured (the trace's
//      TileDecision::d_max); a failure then writes the case with that d_max injected, so it reruns exactly.
// A violation prints the pilot, options, index, tile and hex bits (or the decision that differs), writes a case
// file and the commands that rerun it, and aborts.
//
// Input layout, in the order FuzzedDataProvider consumes it (integers from the end, data bytes from the front):
//   u8  pilot (mod 6)        u8  f: 6 and 7 (mod 8) are bits_inc, else catalog order
//   u8  option flags: bit 0 keeps the article's tile, probe and calibration; bit 1 its xlo, lo, verification,
//       bail and distrust; bit 2 draws v5's seed (below); bit 3 draws pilot_v6's own options when the pilot is v6
//       (below); bit 4 puts the guarded rerun's array at the end of its guard pages,
//       else at the start; bits 5 and 6 both set: the guarded rerun is timed (invariant 4). Otherwise, in this order: tile (u8: < 8 picks {16, 32, 64, 128, 256, 512, 1024,
//       4096}, else u16 in [16, 4096]); probe (u8: 0 the article's 256 clipped to the tile, 1 the tile, else u16
//       in [1, tile]); calib_blocks (u8 mod 5); calib_len (u8: < 4 picks {2048, tile, tile / 2, 1}, else u16 in
//       [1, 4096]); then xlo, lo (f64 in [-0.05, 0.3] and [-0.05, 1]), verify_blocks (1..16), bail (f64 in [0,
//       1.5]), distrust (0..20)
//   u8  d_max: < 12 picks {-1, -0.01, 0, 0.014, 0.1, 0.16, 0.5, 0.75, 0.9, 0.99, 1, 1.5}, else f64 in [-2, 2]
//   u64 v5's probe seed, only when option flag bit 2 is set (else 0, the default)
//   34 x u8 pilot_v6's options, only when option flag bit 3 is set and the pilot is pilot_v6 (else its defaults),
//       in this order: v6_pieces, v6_bail, v6_lo, v6_floor, v6_band, v6_score_switch, v6_dense_cut,
//       v6_score_blend, v6_dense_block, v6_reg, v6_dear_floor, v6_dear_probe, v6_score_skip, v6_score_sample,
//       v6_cheap_probe, v6_cs, v6_cs_empty, v6_cs_switch, v6_cs_block, v6_cs_reg, v6_cs_elem, v6_cs_to_skip,
//       v6_cs_to_compact, v6_cs_sample, v6_cs_probation, v6_gate, v6_gate_lambda, v6_gate_g1, v6_gate_g2,
//       v6_gate_cap, v6_safe_switch, v6_safe_blend, v6_safe_skip, v6_safe_sample (the sixth and eighth were v6_skip_cut and v6_cut_pieces
//       until 2026-12-06; the fifteenth since 2026-12-06, the last nineteen since 2026-12-07); each below 64 keeps the
//       default,
//       else s - 64 = 0 .. 191 picks a value at and beyond its range's ends (consume_v6_options)
//   u32 n (mod min(100000, calibration + 20 tiles) + 1; `pilots`: then mod 2049 when above 2048)
//   u8  misalignment (mod 16)
//   u8  data kind: even = raw (a mask, data.h: consume_mask, then consume_data); odd = tile-structured
//       (structured.h: consume_structured; mask a < 0.5).
#include <sstream>

#include "data.h"
#include "fuzz.h"
#include "guarded.h"
#include "structured.h"

using namespace maskapply;

namespace {

constexpr std::array<Kernel, 7> kPilots{Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5,
                                        Kernel::pilot_v4, Kernel::pilot_v5, Kernel::pilot_v6};
constexpr std::array<size_t, 8> kTiles{16, 32, 64, 128, 256, 512, 1024, 4096};
constexpr std::array<double, 12> kDmax{-1, -0.01, 0, 0.014, 0.1, 0.16, 0.5, 0.75, 0.9, 0.99, 1, 1.5};
#ifdef MASKAPPLY_FUZZ_LARGE
constexpr size_t kMaxN = 100000;
constexpr const char* kTarget = "pilots_large";
constexpr bool kLarge = true;
#else
constexpr size_t kMaxN = 2048;
constexpr const char* kTarget = "pilots";
constexpr bool kLarge = false;
#endif

// The target's only state across inputs (as in kernels.cpp): the guard pages of invariant 4, mapped once.
testing::GuardPages& guard_pages() {
  static testing::GuardPages g(kMaxN);
  return g;
}

PilotOptions consume_options(FuzzedDataProvider& p, uint8_t flags) {
  PilotOptions o;
  if (!(flags & 1)) {
    const uint8_t ts = p.ConsumeIntegral<uint8_t>();
    o.tile = ts < kTiles.size() ? kTiles[ts] : p.ConsumeIntegralInRange<size_t>(16, 4096);
    const uint8_t ps = p.ConsumeIntegral<uint8_t>();
    o.probe = ps == 0 ? std::min<size_t>(256, o.tile) : ps == 1 ? o.tile : p.ConsumeIntegralInRange<size_t>(1, o.tile);
    o.calib_blocks = p.ConsumeIntegral<uint8_t>() % 5;
    const uint8_t cs = p.ConsumeIntegral<uint8_t>();
    const size_t picks[4] = {2048, o.tile, o.tile / 2, 1};
    o.calib_len = cs < 4 ? picks[cs] : p.ConsumeIntegralInRange<size_t>(1, 4096);
  }
  if (!(flags & 2)) {
    o.xlo = p.ConsumeFloatingPointInRange<double>(-0.05, 0.3);
    o.lo = p.ConsumeFloatingPointInRange<double>(-0.05, 1.0);
    o.verify_blocks = 1 + p.ConsumeIntegral<uint8_t>() % 16;
    o.bail = p.ConsumeFloatingPointInRange<double>(0.0, 1.5);
    o.distrust = p.ConsumeIntegral<uint8_t>() % 21;
  }
  const uint8_t ds = p.ConsumeIntegral<uint8_t>();
  o.d_max = ds < kDmax.size() ? kDmax[ds] : p.ConsumeFloatingPointInRange<double>(-2.0, 2.0);
  if (flags & 4) o.seed = p.ConsumeIntegral<uint64_t>();
  return o;
}

// pilot_v6's own options (option flag bit 3): a byte each; below 64 the default, else s = byte - 64 picks the
// pieces 1 .. 40, a full block's count 0 .. 17 (17: never), a dear f's probe 1 .. 320, the switch score's switch 0
// .. 12, thresholds 1 .. 40 and counted blocks one in 1 .. 17 (the compact score: on or off, weights 0 .. 40,
// thresholds 0 .. 160, a probation up to its compact threshold), and each fraction in steps of
// 1/191 over a range reaching past its meaningful ends (a bail and floors of 0 and above 1, a band that makes every
// f cheap or dear).
void consume_v6_options(FuzzedDataProvider& p, PilotOptions& o) {
  const auto byte = [&p]() -> int { return static_cast<int>(p.ConsumeIntegral<uint8_t>()) - 64; };
  const auto fraction = [&](double& v, double lo, double hi) {
    if (const int s = byte(); s >= 0) v = lo + (hi - lo) * s / 191.0;
  };
  if (const int s = byte(); s >= 0) o.v6_pieces = 1 + static_cast<size_t>(s) % 40;
  fraction(o.v6_bail, 0.0, 2.0);
  fraction(o.v6_lo, -0.05, 1.5);
  fraction(o.v6_floor, 0.0, 1.1);
  fraction(o.v6_band, -0.1, 1.1);
  if (const int s = byte(); s >= 0) o.v6_score_switch = static_cast<size_t>(s) % 13;
  fraction(o.v6_dense_cut, 0.0, 1.1);
  if (const int s = byte(); s >= 0) o.v6_score_blend = 1 + static_cast<size_t>(s) % 40;
  if (const int s = byte(); s >= 0) o.v6_dense_block = static_cast<size_t>(s) % 18;
  fraction(o.v6_reg, 0.005, 1.2);  // above 0: v6_reg must be (PilotOptions::validate)
  fraction(o.v6_dear_floor, 0.0, 1.1);
  if (const int s = byte(); s >= 0) o.v6_dear_probe = 1 + static_cast<size_t>(s) % 320;
  if (const int s = byte(); s >= 0) o.v6_score_skip = 1 + static_cast<size_t>(s) % 40;
  if (const int s = byte(); s >= 0) o.v6_score_sample = 1 + static_cast<size_t>(s) % 17;
  if (const int s = byte(); s >= 0) o.v6_cheap_probe = 1 + static_cast<size_t>(s) % 320;
  if (const int s = byte(); s >= 0) o.v6_cs = static_cast<size_t>(s) % 2;
  for (size_t PilotOptions::*w : {&PilotOptions::v6_cs_empty, &PilotOptions::v6_cs_switch, &PilotOptions::v6_cs_block,
                                  &PilotOptions::v6_cs_reg, &PilotOptions::v6_cs_elem})
    if (const int s = byte(); s >= 0) o.*w = static_cast<size_t>(s) % 41;
  if (const int s = byte(); s >= 0) o.v6_cs_to_skip = static_cast<size_t>(s) % 161;
  if (const int s = byte(); s >= 0) o.v6_cs_to_compact = static_cast<size_t>(s) % 161;
  if (const int s = byte(); s >= 0) o.v6_cs_sample = 1 + static_cast<size_t>(s) % 17;
  if (const int s = byte(); s >= 0) o.v6_cs_probation = static_cast<size_t>(s) % (o.v6_cs_to_skip + 1);
  o.v6_cs_probation = std::min(o.v6_cs_probation, o.v6_cs_to_skip);  // validate() requires it
  // The gate (d_max < 0): thresholds of a few ns, so that short inputs cross them both ways.
  if (const int s = byte(); s >= 0) o.v6_gate = static_cast<size_t>(s) % 2;
  if (const int s = byte(); s >= 0) o.v6_gate_lambda = 100 + static_cast<size_t>(s) * 5;
  if (const int s = byte(); s >= 0) o.v6_gate_g1 = static_cast<size_t>(s) % 25;
  if (const int s = byte(); s >= 0) o.v6_gate_g2 = o.v6_gate_g1 + static_cast<size_t>(s) % 25;
  if (const int s = byte(); s >= 0) o.v6_gate_cap = std::max(o.v6_gate_g2, o.v6_gate_g1) + static_cast<size_t>(s) % 50;
  o.v6_gate_g2 = std::max(o.v6_gate_g2, o.v6_gate_g1), o.v6_gate_cap = std::max(o.v6_gate_cap, o.v6_gate_g2);
  if (const int s = byte(); s >= 0) o.v6_safe_switch = static_cast<size_t>(s) % 9;
  if (const int s = byte(); s >= 0) o.v6_safe_blend = 1 + static_cast<size_t>(s) % 20;
  if (const int s = byte(); s >= 0) o.v6_safe_skip = 1 + static_cast<size_t>(s) % 20;
  if (const int s = byte(); s >= 0) o.v6_safe_sample = 1 + static_cast<size_t>(s) % 9;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  FuzzedDataProvider p(bytes, size);
  const fuzz::Route route = fuzz::route_of(bytes, size, kLarge);
  testing::Case c;
  c.kernel = kPilots[p.ConsumeIntegral<uint8_t>() % kPilots.size()];
  const uint8_t fs = p.ConsumeIntegral<uint8_t>() % 8;
  c.f = fs >= 6 ? Fn::bits_inc : static_cast<Fn>(fs);
  const uint8_t flags = p.ConsumeIntegral<uint8_t>();
  c.options = consume_options(p, flags);
  if ((flags & 8) && c.kernel == Kernel::pilot_v6) consume_v6_options(p, c.options);
  const bool at_end = flags & 16, timed = (flags & 0x60) == 0x60;
  const size_t region = c.options.calib_blocks * c.options.calib_len;
  const size_t max_n = std::min<size_t>(100000, region + 20 * c.options.tile);
  size_t n = p.ConsumeIntegral<uint32_t>() % (max_n + 1);
  if (n > kMaxN) n %= kMaxN + 1;  // an n that fits keeps its meaning in both targets
  c.misalign = p.ConsumeIntegral<uint8_t>() % 16;
  if (p.ConsumeIntegral<uint8_t>() % 2 == 0) {
    c.mask = fuzz::consume_mask(p);
    c.data = fuzz::consume_data(p, n);
  } else {
    c.mask = MaskSpec{MaskKind::less, 0.5f, 0, 0};
    const fuzz::Structured s = fuzz::consume_structured(p);
    c.data = fuzz::data_for(fuzz::selection(s, n), s.seed);
  }

  fuzz::verbose(c);
  const std::string through = std::string(" (through ") + fuzz::name(route) + ")";
  const testing::CheckResult r = fuzz::check_fuzzed(c, route);
  if (!r.ok) fuzz::fail(kTarget, r.message + through, &c, fuzz::fuzzed_failure(route));
  // check_fuzzed compared every decision with the decision reference (invariant 3); what is left is the partition.
  if (const std::string bad = fuzz::check_trace_partition(r.trace, n); !bad.empty())
    fuzz::fail(kTarget, testing::describe(c.kernel, c.f, c.mask, n, c.options, c.misalign) + ": " + bad + through, &c);

  // Invariant 4: again flush against a guard page (an access outside [a, a+n) faults: SIGSEGV, libFuzzer reports
  // it), timed on a quarter of the inputs.
  PilotOptions go = c.options;
  if (timed) go.d_max.reset();
  Trace t;
  std::string bad = fuzz::run_guarded(guard_pages(), route, c, go, at_end, r.output, &t);
  if (bad.empty() && !(bad = fuzz::check_trace_partition(t, n)).empty()) bad = "next to a guard page: " + bad;
  if (bad.empty() && timed) {
    bad = testing::check_decisions(c.kernel, c.data, c.mask, go, t);
    if (!bad.empty()) bad = "timed, next to a guard page: " + bad;
  }
  if (!bad.empty()) {
    testing::Case rerun = c;
    std::ostringstream why;
    why.precision(17);
    why << testing::describe(c.kernel, c.f, c.mask, n, go, 0) << ": " << bad << through;
    if (timed && !t.tiles.empty()) {
      rerun.options.d_max = t.tiles.front().d_max;
      why << "; timed calibration measured d_max=" << *rerun.options.d_max << " (the case file injects it)";
    }
    fuzz::fail(kTarget, why.str(), &rerun);
  }
  return 0;
}
