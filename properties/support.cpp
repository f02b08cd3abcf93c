// SPDX-License-Identifier: MIT
#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>
#include <utility>

#include "decisions.h"

namespace maskapply {

std::ostream& operator<<(std::ostream& os, Fn f) { return os << name(f); }
std::ostream& operator<<(std::ostream& os, Kernel k) { return os << name(k); }
std::ostream& operator<<(std::ostream& os, const MaskSpec& m) {
  os << name(m.kind);
  if (m.kind == MaskKind::bits_eq) {
    char b[40];
    std::snprintf(b, sizeof b, "(&0x%08x==0x%08x)", m.bits_mask, m.bits_value);
    os << b;
  } else if (m.kind != MaskKind::always && m.kind != MaskKind::never) {
    os << "(thd " << oracle::hex(m.thd) << " = " << m.thd << ")";
  }
  return os;
}
std::ostream& operator<<(std::ostream& os, const PilotOptions& o) {
  const char* sep = "{";
  for_each_option_field([&](const char* k, auto PilotOptions::*p) { os << std::exchange(sep, " ") << k << '=' << o.*p; });
  os << " d_max=";
  if (o.d_max)
    os << *o.d_max;
  else
    os << "timed";
  return os << "}";
}

namespace prop {

uint32_t bits(float x) { return oracle::bits(x); }
float from_bits(uint32_t u) { return oracle::from_bits(u); }

std::ostream& operator<<(std::ostream& os, const Floats& a) {
  os << "[" << a.v.size() << " floats:";
  const size_t shown = std::min<size_t>(a.v.size(), 32);
  char b[12];
  for (size_t i = 0; i < shown; ++i) {
    std::snprintf(b, sizeof b, " %08x", bits(a.v[i]));
    os << b;
  }
  return os << (shown < a.v.size() ? " ...]" : "]");
}
std::ostream& operator<<(std::ostream& os, const Shaped& s) {
  return os << s.kind << " data for mask " << s.mask << " " << Floats{s.v};
}

// --- the platform -------------------------------------------------------------------------------------------

bool emulated() {
  if (const char* e = std::getenv("MASKAPPLY_PROP_EMULATED")) return std::strcmp(e, "0") != 0;
#if defined(__aarch64__)
  // Under qemu-user, /proc/cpuinfo is the host's: an x86 "model name" line means we are emulated.
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return true;
#endif
  return false;
}

std::string configure_budget() {
  long cases = emulated() ? 25 : 100;
  if (const char* c = std::getenv("MASKAPPLY_PROP_CASES")) cases = std::max(1L, std::atol(c));
  if (const char* s = std::getenv("MASKAPPLY_PROP_SCALE")) cases = std::max(1L, std::lround(cases * std::atof(s)));
  std::string params = "max_success=" + std::to_string(cases);
  if (const char* user = std::getenv("RC_PARAMS")) params += std::string(" ") + user;  // later keys win
  setenv("RC_PARAMS", params.c_str(), 1);
  return params;
}

// --- generators ---------------------------------------------------------------------------------------------

const std::vector<uint32_t>& special_bits() {
  static const std::vector<uint32_t> s{
      0x00000000, 0x80000000,                          // ±0
      0x7f800000, 0xff800000,                          // ±inf
      0x7fc00000, 0xffc00000, 0x7fc00001, 0x7fffffff,  // quiet NaNs, with payloads
      0x7f800001, 0x7fa00000, 0xffbfffff, 0x7fa5a5a4,  // signalling NaNs, with payloads
      0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00400000,  // denormals
      0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,  // smallest and largest normals
      0x3f800000, 0xbf800000, 0x3f7fffff, 0x3f800001,  // ±1 and its neighbours
      0x3f000000, 0x3effffff, 0x3f000001, 0xbf000000,  // 0.5 and its neighbours
      0x33800000, 0x4b800000, 0x40490fdb, 0x49742400,  // 2^-24, 2^24, pi, 1e6
  };
  return s;
}

namespace gen {

rc::Gen<float> unit_float() {
  return rc::gen::map(rc::gen::resize(100, rc::gen::inRange<uint32_t>(0, 1u << 24)),
                      [](uint32_t k) { return (static_cast<float>(k) + 0.5f) * 0x1p-24f; });
}

rc::Gen<float> any_float() {
  const auto nan = rc::gen::apply(
      [](bool sign, bool quiet, uint32_t payload) {
        return from_bits((sign ? 0x80000000u : 0u) | 0x7f800000u | (quiet ? 0x400000u : 0u) | payload);
      },
      rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(), rc::gen::inRange<uint32_t>(1, 1u << 22));
  const auto denormal = rc::gen::apply(
      [](bool sign, uint32_t m) { return from_bits((sign ? 0x80000000u : 0u) | m); }, rc::gen::arbitrary<bool>(),
      rc::gen::inRange<uint32_t>(1, 1u << 23));
  const auto wide = rc::gen::apply(
      [](bool sign, uint32_t m) { return from_bits((sign ? 0x80000000u : 0u) | m); }, rc::gen::arbitrary<bool>(),
      rc::gen::resize(100, rc::gen::inRange<uint32_t>(0x00800000u, 0x7f800000u)));
  return rc::gen::weightedOneOf<float>({
      {3, rc::gen::map(rc::gen::elementOf(special_bits()), from_bits)},
      {3, rc::gen::map(rc::gen::resize(100, rc::gen::arbitrary<uint32_t>()), from_bits)},
      {2, nan},
      {1, denormal},
      {2, wide},
      {5, unit_float()},
  });
}

rc::Gen<float> any_thd() {
  return rc::gen::weightedOneOf<float>({
      {5, unit_float()},
      {1, rc::gen::element(0.0f, 1.0f, 0.5f)},
      {2, any_float()},
  });
}

namespace {

// Fills n floats from seed: a special or a random bit pattern with probability `rate`, else uniform in (0, 1).
std::vector<float> seeded_floats(size_t n, uint64_t seed, double rate) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const auto& sp = special_bits();
  std::vector<float> v(n);
  for (float& x : v) {
    if (u01(rng) < rate)
      x = (rng() & 1) ? from_bits(sp[rng() % sp.size()]) : from_bits(static_cast<uint32_t>(rng()));
    else
      x = (static_cast<float>(rng() >> 40) + 0.5f) * 0x1p-24f;
  }
  return v;
}

}  // namespace

rc::Gen<Floats> float_array(size_t max_long) {
  return rc::gen::exec([max_long] {
    if (!*rc::gen::weightedElement<bool>({{3, false}, {1, true}}))
      return Floats{*rc::gen::scale(2.5, rc::gen::container<std::vector<float>>(any_float()))};
    const size_t n = *rc::gen::resize(100, rc::gen::inRange<size_t>(0, max_long + 1));
    const uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>());
    const double rate = *rc::gen::element(0.0, 0.01, 0.1, 0.5, 1.0);
    return Floats{seeded_floats(n, seed, rate)};
  });
}

namespace {

// The article's data, written out here so the properties depend only on kernels, oracle and testing. Its 0/1
// patterns select the zeros under a < 1, but f(0) = 0 for five of the seven f: the selected elements here are
// values in (0, 0.5) from rng instead, which every f changes (or, under bits_inc, any value).
float selected_in_pattern(std::mt19937_64& rng) { return (static_cast<float>(rng() >> 41) + 0.5f) * 0x1p-24f; }
std::vector<float> step_data(size_t n, size_t tile, size_t head, std::mt19937_64& rng) {
  std::vector<float> a(n);
  for (size_t i = 0; i < n; ++i) a[i] = i % tile >= head ? 1.0f : selected_in_pattern(rng);
  return a;
}
std::vector<float> uniform_data(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> a(n);
  for (float& x : a) x = (static_cast<float>(rng() >> 40) + 0.5f) * 0x1p-24f;
  return a;
}

enum class Layout { scatter, head, tail, blocks };

// One value that `less(thd)` selects (sel) or not, from rng; special with probability `rate`.
float shaped_value(std::mt19937_64& rng, bool sel, float thd, double rate) {
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  if (u01(rng) < rate) {
    static const uint32_t sel_specials[] = {0x80000000, 0xff800000, 0x80000001, 0x00000001, 0xf149f2ca, 0x00000000};
    static const uint32_t unsel_specials[] = {0x7fc00000, 0xffc00001, 0x7f800001, 0x7fa00000,
                                              0x7f800000, 0x40000000, 0x7149f2ca};
    return from_bits(sel ? sel_specials[rng() % std::size(sel_specials)]
                         : unsel_specials[rng() % std::size(unsel_specials)]);
  }
  const double x = u01(rng);
  // Selected: in [0, thd) ; unselected: in [thd, 1).
  const float v = sel ? static_cast<float>(x * thd) : static_cast<float>(thd + x * (1.0 - thd));
  if (sel && !(v < thd)) return 0.0f;
  if (!sel && v < thd) return thd;
  return v;
}

}  // namespace

// Segments of independently drawn length, density and layout; values below thd where selected.
static rc::Gen<Shaped> tiled_n(size_t tile, size_t n) {
  return rc::gen::exec([tile, n] {
    const float thd = *rc::gen::element(0.5f, 1.0f, 0.25f);
    const uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>());
    const double rate = *rc::gen::weightedElement<double>({{4, 0.0}, {2, 0.01}, {1, 0.2}});
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    Shaped s{{}, MaskSpec{MaskKind::less, thd, 0, 0}, "tiled"};
    s.v.reserve(n);
    const size_t block = std::max<size_t>(16, tile / 8);
    while (s.v.size() < n) {
      const size_t len = std::min(n - s.v.size(), std::max<size_t>(1, *rc::gen::weightedOneOf<size_t>({
                                                       {3, rc::gen::inRange<size_t>(1, 2 * tile + 1)},
                                                       {2, rc::gen::element(tile, block, size_t{16}, tile - block)},
                                                   })));
      const double d = *rc::gen::weightedOneOf<double>({
          {6, rc::gen::element(0.0, 1.0, 0.005, 0.014, 0.05, 0.16, 0.3, 0.5, 0.75, 0.9)},
          {2, rc::gen::map(rc::gen::inRange(0, 1001), [](int k) { return k / 1000.0; })},
      });
      const Layout layout = *rc::gen::element(Layout::scatter, Layout::head, Layout::tail, Layout::blocks);
      double block_d = d;
      for (size_t i = 0; i < len; ++i) {
        bool sel = false;
        switch (layout) {
          case Layout::scatter: sel = u01(rng) < d; break;
          case Layout::head: sel = static_cast<double>(i) < d * static_cast<double>(len); break;
          case Layout::tail: sel = static_cast<double>(i) >= (1.0 - d) * static_cast<double>(len); break;
          case Layout::blocks:
            if (i % block == 0) block_d = u01(rng) < 0.5 ? 0.0 : std::min(1.0, 2 * d);
            sel = u01(rng) < block_d;
            break;
        }
        s.v.push_back(shaped_value(rng, sel, thd, rate));
      }
    }
    return s;
  });
}

rc::Gen<Shaped> tiled(size_t tile) {
  return rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange<size_t>(0, 6 * tile)),
                         [tile](size_t n) { return tiled_n(tile, n); });
}

static rc::Gen<Shaped> article_n(size_t tile, size_t n) {
  return rc::gen::exec([tile, n] {
    // thd 1 selects the pattern (values in (0, 0.5)); 0.5 too; 0 selects nothing.
    const float thd = *rc::gen::weightedElement<float>({{4, 1.0f}, {1, 0.0f}, {1, 0.5f}});
    std::mt19937_64 rng(*rc::gen::noShrink(rc::gen::arbitrary<uint64_t>()));
    Shaped s{{}, MaskSpec{MaskKind::less, thd, 0, 0}, ""};
    switch (*rc::gen::element(0, 1, 2)) {
      case 0: {  // the step (v3's countertest) and offset390 (v3.5's) with any head
        const size_t head = *rc::gen::weightedOneOf<size_t>({
            {2, rc::gen::inRange<size_t>(0, tile + 1)},
            {1, rc::gen::element(std::min<size_t>(256, tile), std::min<size_t>(390, tile))},
        });
        s.v = step_data(n, tile, head, rng);
        s.kind = "step(head " + std::to_string(head) + ")";
        break;
      }
      case 1: {  // v4's countertest: a window of ones inside a cycle of c tiles
        const size_t cycle = tile * *rc::gen::inRange<size_t>(1, 18);
        const size_t lo = *rc::gen::inRange<size_t>(0, cycle), hi = *rc::gen::inRange<size_t>(lo, cycle + 1);
        s.v.resize(n);
        for (size_t i = 0; i < n; ++i) s.v[i] = i % cycle >= lo && i % cycle < hi ? 1.0f : selected_in_pattern(rng);
        s.kind = "cycle(" + std::to_string(cycle) + ", [" + std::to_string(lo) + ", " + std::to_string(hi) + "))";
        break;
      }
      default: {  // uniform (0, 1) with any threshold: the article's benchmark data
        s.v = uniform_data(n, *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>()));
        s.mask.thd = *unit_float();
        s.kind = "uniform";
        break;
      }
    }
    return s;
  });
}

rc::Gen<Shaped> article_pattern(size_t tile) {
  return rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange<size_t>(0, 6 * tile)),
                         [tile](size_t n) { return article_n(tile, n); });
}

// Data aimed at the decision edges for options o (mask a < 0.5): n at a boundary of the calibration region or
// of the first tiles (-1, 0, +1 element); per tile a probe count at hi, xlo or lo -1 / = / +1, then either a dense
// rest with one verify block just below (bails) or exactly at (does not bail) bail * d_max, or a rest of the
// probe's density. Long enough, sometimes, for v4's distrust to run out and the probe to be trusted again.
rc::Gen<Shaped> edges(const PilotOptions& o) {
  return rc::gen::exec([o] {
    const size_t region = o.calib_blocks * o.calib_len;
    const size_t max_tiles = std::max<size_t>(1, std::min<size_t>(o.distrust + 3, 40000 / o.tile));
    const size_t base = *rc::gen::weightedOneOf<size_t>({
        {1, rc::gen::just(std::min(o.calib_len, region))},
        {1, rc::gen::just(region)},
        {1, rc::gen::just(region + o.tile)},
        {1, rc::gen::just(region + 2 * o.tile)},
        {2, rc::gen::map(rc::gen::inRange<size_t>(0, max_tiles + 1), [=](size_t k) { return region + k * o.tile; })},
        {2, rc::gen::just(region + max_tiles * o.tile)},  // room for v4's distrust to run out
    });
    const int delta = *rc::gen::element(-1, 0, 1);
    const size_t n = base == 0 && delta < 0 ? 0 : base + delta;
    reference::Params q;
    q.probe = o.probe, q.xlo = o.xlo, q.lo = o.lo, q.d_max = o.d_max.value_or(0.5);
    const reference::Limits lim = reference::limits(q);
    const double bar = o.bail * q.d_max;  // blend_verified bails below this density
    std::mt19937_64 rng(*rc::gen::noShrink(rc::gen::arbitrary<uint64_t>()));
    std::uniform_real_distribution<> u01(0, 1);
    const auto value = [&rng](bool sel) {
      const float u = (static_cast<float>(rng() >> 41) + 0.5f) * 0x1p-24f;  // (0, 0.5)
      return sel ? u : 0.5f + u;
    };
    Shaped s{{}, MaskSpec{MaskKind::less, 0.5f, 0, 0}, "edges"};
    s.v.reserve(n);
    // The calibration region: any density (it is blended whatever it holds).
    const double cd = *rc::gen::element(0.0, 0.5, 1.0);
    for (size_t i = 0; i < std::min(n, region); ++i) s.v.push_back(value(u01(rng) < cd));
    while (s.v.size() < n) {
      const size_t size = std::min(o.tile, n - s.v.size());
      const size_t plen = std::min(o.probe, size);
      std::vector<uint8_t> sel(size, 0);
      if (*rc::gen::arbitrary<bool>()) {
        // A probe count at hi, xlo or lo, -1 / = / +1 (as a full-probe count: the fewest c selected in a probe
        // of plen with c * probe / plen >= want), the rest of the tile as dense as the probe.
        const long long want = *rc::gen::element(lim.hi, lim.xlo, lim.lo) + *rc::gen::element(-1, 0, 1);
        const auto pl = static_cast<long long>(plen), pr = static_cast<long long>(o.probe);
        const long long c = std::clamp<long long>(want <= 0 ? 0 : (want * pl + pr - 1) / pr, 0, pl);
        for (long long i = 0; i < c; ++i) sel[static_cast<size_t>(i)] = 1;
        std::shuffle(sel.begin(), sel.begin() + static_cast<long>(plen), rng);
        for (size_t i = plen; i < size; ++i) sel[i] = u01(rng) * static_cast<double>(plen) < static_cast<double>(c);
      } else {
        // Dense (the probe passes hi), except verify block `weak`, just below or exactly at bail * d_max: it
        // bails there (below) or not (at), at each verify block in turn.
        std::fill(sel.begin(), sel.end(), 1);
        const size_t len = std::max<size_t>(16, size / o.verify_blocks / 16 * 16);
        const size_t vb = std::min(o.verify_blocks, (size + len - 1) / len);  // the verify pieces, whole blocks
        const size_t weak = *rc::gen::inRange<size_t>(0, vb);
        const size_t b0 = weak * len, b1 = weak + 1 == vb ? size : b0 + len;
        // The fewest selected not below the bar; a NaN bar (bail 0 times an infinite d_max) bails nowhere.
        const double at = std::isnan(bar) ? 0.0 : std::ceil(bar * static_cast<double>(len));
        const long long k = static_cast<long long>(std::clamp(at, 0.0, static_cast<double>(len))) -
                            *rc::gen::element(0, 1);
        for (size_t i = b0; i < b1; ++i) sel[i] = static_cast<long long>(i - b0) < k;
      }
      for (const uint8_t x : sel) s.v.push_back(value(x));
    }
    return s;
  });
}

rc::Gen<Shaped> pilot_data(const PilotOptions& o) {
  const size_t region = std::min<size_t>(o.calib_blocks * o.calib_len, 1 << 14);
  const size_t max_tiles = std::max<size_t>(1, std::min<size_t>(8, 40000 / o.tile));
  return rc::gen::exec([=] {
    const size_t tiles = *rc::gen::inRange<size_t>(0, max_tiles + 1);
    const size_t n = region + tiles * o.tile + *rc::gen::inRange<size_t>(0, o.tile);
    switch (*rc::gen::weightedElement<int>({{4, 0}, {3, 1}, {2, 2}, {3, 3}})) {
      case 0: return *tiled_n(o.tile, n);
      case 1: return *article_n(o.tile, n);
      case 3: return *edges(o);
      default: {
        const uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<uint64_t>());
        const double rate = *rc::gen::element(0.0, 0.01, 0.3);
        return Shaped{seeded_floats(n, seed, rate), *less_mask(), "arbitrary"};
      }
    }
  });
}

rc::Gen<Kernel> plain_kernel() {
  return rc::gen::element(Kernel::blend, Kernel::blend_skip, Kernel::blend_verified, Kernel::detour,
                          Kernel::detour_skip, Kernel::compact, Kernel::compact_skip, Kernel::tiled_detour);
}
rc::Gen<Kernel> pilot_kernel() {
  return rc::gen::element(Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5, Kernel::pilot_v4,
                          Kernel::pilot_v5, Kernel::pilot_v6);
}
rc::Gen<Kernel> any_kernel() { return rc::gen::elementOf(kAllKernels); }
rc::Gen<Fn> any_fn() {
  return rc::gen::element(Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::sin10, Fn::pow10, Fn::fma13, Fn::bits_inc);
}

rc::Gen<MaskSpec> less_mask() {
  return rc::gen::map(any_thd(), [](float thd) { return MaskSpec{MaskKind::less, thd, 0, 0}; });
}

rc::Gen<MaskSpec> generic_mask(const std::vector<float>& data) {
  return rc::gen::exec([data] {
    MaskSpec m;
    m.kind = *rc::gen::element(MaskKind::greater, MaskKind::not_ge, MaskKind::bits_eq, MaskKind::always,
                               MaskKind::never);
    m.thd = *any_thd();
    if (m.kind == MaskKind::bits_eq) {
      m.bits_mask = *rc::gen::weightedOneOf<uint32_t>({
          {4, rc::gen::element(0x80000000u, 0x7f800000u, 0x7fc00000u, 0xffffffffu, 0x1u, 0x0u, 0x00400000u)},
          {1, rc::gen::arbitrary<uint32_t>()},
      });
      // Mostly a value some element has, so the mask selects something.
      if (!data.empty() && *rc::gen::weightedElement<bool>({{3, true}, {1, false}}))
        m.bits_value = bits(data[*rc::gen::inRange<size_t>(0, data.size())]) & m.bits_mask;
      else
        m.bits_value = *rc::gen::arbitrary<uint32_t>() & m.bits_mask;
    }
    return m;
  });
}

rc::Gen<MaskSpec> any_mask(const std::vector<float>& data) {
  return rc::gen::weightedOneOf<MaskSpec>({{1, less_mask()}, {2, generic_mask(data)}});
}

rc::Gen<double> d_max() {
  return rc::gen::weightedOneOf<double>({
      {3, rc::gen::element(-1e300, -1e9, -1.0, -0.1, 0.0, 1e-9, 0.5, 0.9, 1.0, 1.5, 1e9, HUGE_VAL, -HUGE_VAL)},
      {2, rc::gen::map(rc::gen::inRange(1, 1000000), [](int k) { return k / 1e6; })},
  });
}

rc::Gen<PilotOptions> pilot_options() {
  return rc::gen::exec([] {
    PilotOptions o;
    o.tile = *rc::gen::weightedOneOf<size_t>({
        {4, rc::gen::inRange<size_t>(16, 300)},
        {3, rc::gen::element(size_t{64}, size_t{128}, size_t{256}, size_t{512}, size_t{1024})},
        {1, rc::gen::just<size_t>(4096)},
    });
    o.probe = *rc::gen::weightedOneOf<size_t>({
        {2, rc::gen::just(std::min<size_t>(256, o.tile))},
        {2, rc::gen::inRange<size_t>(1, o.tile + 1)},
        {1, rc::gen::just(o.tile)},
    });
    o.xlo = *rc::gen::weightedElement<double>({{4, 0.014}, {1, 0.0}, {1, 0.05}, {1, 0.5}, {1, -0.5}, {1, 1.5}});
    o.lo = *rc::gen::weightedElement<double>({{4, 0.16}, {1, 0.0}, {1, 0.3}, {1, 1.0}, {1, 2.0}});
    o.calib_blocks = *rc::gen::inRange<size_t>(0, 5);
    o.calib_len = *rc::gen::weightedOneOf<size_t>({
        {2, rc::gen::just(std::min<size_t>(2048, o.tile / 2 ? o.tile / 2 : 1))},
        {1, rc::gen::inRange<size_t>(1, 2 * o.tile + 1)},
    });
    o.verify_blocks = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(8)},
                                                      {2, rc::gen::inRange<size_t>(1, 40)}});
    o.bail = *rc::gen::weightedElement<double>({{4, 0.75}, {1, 0.0}, {1, 0.5}, {1, 1.0}, {1, 2.0}, {1, -1.0}});
    o.distrust = *rc::gen::weightedOneOf<size_t>({{2, rc::gen::just<size_t>(16)},
                                                 {2, rc::gen::inRange<size_t>(0, 25)}});
    o.d_max = *d_max();
    o.seed = *rc::gen::weightedOneOf<uint64_t>({{1, rc::gen::just<uint64_t>(0)}, {1, rc::gen::arbitrary<uint64_t>()}});
    // pilot_v6's own options: its defaults mostly, else values at and beyond the ends of their ranges.
    o.v6_pieces = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(16)}, {2, rc::gen::inRange<size_t>(1, 40)}});
    o.v6_bail = *rc::gen::weightedElement<double>({{4, 1.05}, {1, 0.0}, {1, 0.75}, {1, 2.0}});
    o.v6_lo = *rc::gen::weightedElement<double>({{4, 0.16}, {1, 0.0}, {1, 0.6}, {1, 0.3}, {1, 1.5}});
    o.v6_floor = *rc::gen::weightedElement<double>({{4, 0.15}, {1, 0.0}, {1, 0.5}, {1, 1.0}});
    o.v6_band = *rc::gen::weightedElement<double>({{4, 0.35}, {1, 0.0}, {1, 1.0}, {1, 2.0}});
    o.v6_score_switch = *rc::gen::weightedOneOf<size_t>({{4, rc::gen::just<size_t>(3)}, {1, rc::gen::just<size_t>(0)},
                                                        {1, rc::gen::inRange<size_t>(0, 13)}});
    o.v6_score_blend =
        *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(17)}, {2, rc::gen::inRange<size_t>(1, 41)}});
    o.v6_score_skip =
        *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(6)}, {2, rc::gen::inRange<size_t>(1, 41)}});
    o.v6_score_sample = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(4)}, {1, rc::gen::just<size_t>(1)},
                                                        {2, rc::gen::inRange<size_t>(1, 18)}});
    // The gate (d_max < 0): on half the time; thresholds of a few ns, so that short inputs cross them both ways.
    o.v6_gate = *rc::gen::element<size_t>(0, 1);
    o.v6_gate_lambda = *rc::gen::weightedElement<size_t>({{3, 188}, {1, 100}, {1, 150}, {1, 300}, {1, 1000}});
    o.v6_gate_g1 = *rc::gen::weightedElement<size_t>({{2, 20}, {2, 0}, {2, 1}, {1, 3}});
    o.v6_gate_g2 = o.v6_gate_g1 + *rc::gen::weightedElement<size_t>({{2, 20}, {2, 0}, {2, 1}, {1, 5}});
    o.v6_gate_cap = o.v6_gate_g2 + *rc::gen::weightedElement<size_t>({{2, 40}, {2, 0}, {2, 2}});
    o.v6_safe_switch = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(3)}, {1, rc::gen::inRange<size_t>(0, 8)}});
    o.v6_safe_blend = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(3)}, {1, rc::gen::inRange<size_t>(1, 20)}});
    o.v6_safe_skip = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(2)}, {1, rc::gen::inRange<size_t>(1, 20)}});
    o.v6_safe_sample = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(1)}, {1, rc::gen::inRange<size_t>(1, 9)}});
    o.v6_dense_cut = *rc::gen::weightedElement<double>({{4, 0.07}, {1, 0.0}, {1, 0.25}, {1, 1.0}, {1, 2.0}});
    o.v6_dense_block = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(8)}, {2, rc::gen::inRange<size_t>(0, 18)}});
    o.v6_reg = *rc::gen::weightedElement<double>({{4, 0.6}, {1, 0.01}, {1, 0.25}, {1, 1.0}, {1, 1.5}});
    o.v6_dear_floor = *rc::gen::weightedElement<double>({{4, 0.12}, {1, 0.0}, {1, 0.5}, {1, 1.0}});
    o.v6_dear_probe = *rc::gen::weightedOneOf<size_t>({{4, rc::gen::just<size_t>(128)},
                                                      {2, rc::gen::inRange<size_t>(1, o.tile + 1)},
                                                      {1, rc::gen::just<size_t>(100000)}});
    o.v6_cheap_probe = *rc::gen::weightedOneOf<size_t>({{4, rc::gen::just<size_t>(96)},
                                                       {2, rc::gen::inRange<size_t>(1, o.tile + 1)},
                                                       {1, rc::gen::just<size_t>(100000)}});
    // The compact score (a cheap f): on mostly, its weights and thresholds at m5's or small enough that short
    // tiles switch modes.
    o.v6_cs = *rc::gen::weightedElement<size_t>({{4, 1}, {1, 0}});
    const auto small = [](size_t dflt, size_t hi) {
      return *rc::gen::weightedOneOf<size_t>({{2, rc::gen::just(dflt)}, {2, rc::gen::inRange<size_t>(0, hi)}});
    };
    o.v6_cs_empty = small(12, 30), o.v6_cs_switch = small(24, 40), o.v6_cs_block = small(12, 30);
    o.v6_cs_reg = small(4, 10), o.v6_cs_elem = small(1, 5);
    o.v6_cs_to_skip = small(96, 130), o.v6_cs_to_compact = small(64, 80);
    o.v6_cs_sample = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(4)}, {1, rc::gen::just<size_t>(1)},
                                                     {2, rc::gen::inRange<size_t>(1, 18)}});
    o.v6_cs_probation = *rc::gen::weightedOneOf<size_t>({{2, rc::gen::just(std::min<size_t>(88, o.v6_cs_to_skip))},
                                                        {2, rc::gen::inRange<size_t>(0, o.v6_cs_to_skip + 1)}});
    return o;
  });
}

rc::Gen<PilotOptions> plain_options() {
  return rc::gen::exec([] {
    PilotOptions o;
    o.tile = *rc::gen::weightedOneOf<size_t>({
        {3, rc::gen::inRange<size_t>(16, 300)},
        {1, rc::gen::element(size_t{16}, size_t{64}, size_t{1024})},
        {2, rc::gen::just<size_t>(4096)},
    });
    o.probe = std::min(o.probe, o.tile);
    o.verify_blocks = *rc::gen::weightedOneOf<size_t>({{3, rc::gen::just<size_t>(8)},
                                                      {1, rc::gen::inRange<size_t>(1, 40)}});
    o.bail = *rc::gen::weightedElement<double>({{4, 0.75}, {1, 0.0}, {1, 1.0}, {1, 2.0}});
    o.d_max = *d_max();
    return o;
  });
}

std::optional<MaskSpec> options_and_data(testing::Case& c) {
  if (is_pilot(c.kernel)) {
    c.options = *pilot_options();
    Shaped s = *pilot_data(c.options);
    c.data = std::move(s.v);
    return s.mask;
  }
  c.options = *plain_options();
  c.data = (*float_array()).v;
  return std::nullopt;
}

}  // namespace gen

// --- the case mix and failures ------------------------------------------------------------------------------

void classify(const std::vector<float>& data, const MaskSpec& m) {
  const size_t n = data.size();
  size_t nans = 0;
  for (float x : data) nans += std::isnan(x);
  const size_t sel = oracle::count(data.data(), n, m);
  // Two tags per case (length, selection) and a third for NaN-heavy data, so the table stays short.
  const char* length = n == 0 ? "n = 0" : n < 16 ? "n < 16" : n >= 4096 ? "n >= 4096" : n % 16 ? "tail" : "n % 16 = 0";
  const char* selection = sel == 0 ? "none selected" : sel == n ? "all selected" : sel * 50 < n ? "sparse (< 2%)"
                          : sel * 2 > n ? "dense (> 50%)" : "2-50% selected";
  if (n > 0 && nans * 10 > n)
    RC_TAG(length, selection, "NaN-heavy");
  else
    RC_TAG(length, selection);
}

std::string failure_dir() {
  const char* d = std::getenv("MASKAPPLY_FAILURE_DIR");
  std::error_code ec;
  const auto p = std::filesystem::absolute(d && *d ? d : "failures", ec);
  return ec ? std::string(d && *d ? d : "failures") : p.string();
}

std::string save_case(const testing::Case& c, const std::string& why, const std::string& suffix) {
  std::string test = "property";
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info())
    test = std::string(info->test_suite_name()) + "." + info->name();
  const std::string comment = "found by the property " + test + "\n" + why +
                              "\nreplay: the corpus replay, or testing::run_case(parse_case(text))";
  const std::string path = testing::write_case_file(c, failure_dir(), test + suffix, comment);
  RC_LOG() << "case file: " << (path.empty() ? "(could not be written to " + failure_dir() + ")" : path)
           << " (copy it into corpus/regressions/)\n";
  return path;
}

void fail_minimal(const testing::Case& c, const testing::Failure& check, const std::string& why) {
  const testing::Minimized m = testing::minimize(c, check);
  if (m.why.empty()) {  // did not fail again (a failure that needs more than the case): report it as drawn
    save_case(c, why + "\n(did not fail when rerun: not minimized)");
    RC_FAIL(why + " [did not fail when rerun: not minimized]");
  }
  if (m.c.data.size() != c.data.size() || m.c.options.tile != c.options.tile) save_case(c, why, ".drawn");
  save_case(m.c, m.why + "\n" + m.summary());
  RC_FAIL(m.why + " [" + m.summary() + "]");
}

testing::CheckResult expect_oracle(const testing::Case& c) {
  testing::CheckResult r = testing::run_case(c);
  if (!r.ok) fail_minimal(c, testing::oracle_failure, r.message);
  return r;
}

// --- faults -------------------------------------------------------------------------------------------------
// One fault handler per process: the plug-in API's (two handlers would replace each other's sigaction).

uintptr_t last_fault_address() { return testing::fault_address(); }

std::string internal::run_catching_fault(void (*call)(void*), void* ctx) {
  return testing::catch_fault([&] { call(ctx); });
}

}  // namespace prop
}  // namespace maskapply
