// SPDX-License-Identifier: MIT
#include "families.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>

namespace maskapply::gen {

namespace {

using Values = std::map<std::string, double, std::less<>>;

Knob knob(std::string name, double value, double min, double max, bool integer, std::string help) {
  return Knob{std::move(name), value, min, max, integer, std::move(help)};
}

constexpr double kBig = double(uint64_t{1} << 30);

// A family's body: from its knob values, n and seed, a pattern (preferred) or a selection.
using Body = std::function<std::variant<Pattern, std::vector<uint8_t>>(const Values&, size_t, uint64_t)>;

struct Entry {
  Family family;
  Body body;
};

uint64_t u(const Values& v, const char* k) { return static_cast<uint64_t>(v.find(k)->second); }
double d(const Values& v, const char* k) { return v.find(k)->second; }

Segment regular(uint64_t len, double density) { return Segment{Segment::Kind::regular, false, len, density, {}}; }
Segment random(uint64_t len, double density) { return Segment{Segment::Kind::random, false, len, density, {}}; }
Segment rest_regular(double density) { return Segment{Segment::Kind::regular, true, 0, density, {}}; }
Segment rest_random(double density) { return Segment{Segment::Kind::random, true, 0, density, {}}; }

Pattern pattern(uint64_t period, std::vector<Segment> segs, uint64_t seed = 0, uint64_t phase = 0) {
  Pattern p;
  p.period = period, p.phase = phase, p.seed = seed, p.segments = std::move(segs);
  return p;
}

// mix(...) < threshold with probability p.
uint64_t probability_threshold(double p) {
  if (!(p > 0)) return 0;
  if (p >= 1) return ~uint64_t{0};
  return static_cast<uint64_t>(p * 18446744073709551616.0);
}

// Uniform in [0, 1) from a counter.
double unit(uint64_t seed, uint64_t a, uint64_t b = 0) {
  return static_cast<double>(mix(seed, a, b, 0x5eed) >> 11) * 0x1p-53;
}

// Density per tile over `tiles` tiles, as a pattern of one random segment per tile.
Pattern per_tile(uint64_t tile, const std::vector<double>& dens, uint64_t seed) {
  std::vector<Segment> segs;
  for (double x : dens) segs.push_back(random(tile, std::clamp(x, 0.0, 1.0)));
  return pattern(tile * dens.size(), std::move(segs), seed);
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all = [] {
    std::vector<Entry> e;
    const Knob tile = knob("tile", 4096, 16, 1 << 20, true, "elements per tile (the pilots' decision unit)");
    e.push_back({{"uniform", "each element selected independently with probability d (the article's data)",
                  {knob("d", 0.3, 0, 1, false, "density")}},
                 [](const Values& v, size_t, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   return pattern(1, {random(1, d(v, "d"))}, seed);
                 }});
    e.push_back({{"step", "the head of each period at one density, the rest at another (article: v3's countertest)",
                  {knob("head", 256, 1, kBig, true, "elements at the head of each period"),
                   knob("period", 4096, 2, kBig, true, "period (a tile)"),
                   knob("head_density", 1, 0, 1, false, "regular density of the head"),
                   knob("tail_density", 0, 0, 1, false, "regular density of the rest")}},
                 [](const Values& v, size_t, uint64_t) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const uint64_t head = std::min(u(v, "head"), u(v, "period") - 1);
                   return pattern(u(v, "period"), {regular(head, d(v, "head_density")),
                                                   rest_regular(d(v, "tail_density"))});
                 }});
    e.push_back({{"offset", "a selected head of `head` elements per tile, shifted by `phase` (article: v3.5's, 390)",
                  {knob("head", 390, 1, kBig, true, "selected elements at the head of each period"),
                   knob("period", 4096, 2, kBig, true, "period (a tile)"),
                   knob("phase", 0, 0, kBig, true, "element i takes position (i + phase) mod period")}},
                 [](const Values& v, size_t, uint64_t) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const uint64_t period = u(v, "period"), head = std::min(u(v, "head"), period - 1);
                   return pattern(period, {regular(head, 1), rest_regular(0)}, 0, u(v, "phase") % period);
                 }});
    e.push_back({{"cycle", "per k-tile cycle: `on` selected, `off` not, the rest selected (article: v4's, 17 tiles)",
                  {knob("tiles", 17, 1, 1 << 16, true, "cycle length in tiles"), tile,
                   knob("on", 512, 0, kBig, true, "selected elements at the start of the cycle"),
                   knob("off", 512, 1, kBig, true, "then unselected elements")}},
                 [](const Values& v, size_t, uint64_t) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const uint64_t period = u(v, "tiles") * u(v, "tile");
                   const uint64_t off = std::min(u(v, "off"), period - 1);
                   const uint64_t on = std::min(u(v, "on"), period - off - 1);
                   std::vector<Segment> segs;
                   if (on) segs.push_back(regular(on, 1));
                   segs.push_back(regular(off, 0));
                   segs.push_back(rest_regular(1));
                   return pattern(period, std::move(segs));
                 }});
    e.push_back({{"probe_liar", "the probe window of each tile at one random density, the rest at the opposite",
                  {tile, knob("probe", 256, 1, kBig, true, "the pilots' probe length"),
                   knob("head", 0, 0, 1, false, "random density in the probe window"),
                   knob("rest", 0.9, 0, 1, false, "random density in the rest of the tile")}},
                 [](const Values& v, size_t, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const uint64_t probe = std::min(u(v, "probe"), u(v, "tile") - 1);
                   return pattern(u(v, "tile"), {random(probe, d(v, "head")), rest_random(d(v, "rest"))}, seed);
                 }});
    e.push_back({{"bursts", "fully selected bursts of `burst` elements at random starts, gaps geometric",
                  {knob("burst", 48, 1, kBig, true, "elements per burst"),
                   knob("gap", 1024, 1, kBig, true, "mean unselected gap between bursts")}},
                 [](const Values& v, size_t n, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   std::vector<uint8_t> s(n);
                   const double p = 1.0 / d(v, "gap");
                   size_t i = 0;
                   for (uint64_t k = 0; i < n; ++k) {
                     // Geometric gap with mean `gap`, then a burst.
                     const double r = std::max(unit(seed, k), 1e-300);
                     i += p >= 1 ? 0 : static_cast<size_t>(std::log(r) / std::log1p(-p));
                     for (uint64_t j = 0; j < u(v, "burst") && i < n; ++j) s[i++] = 1;
                     if (i < n) ++i;  // at least one unselected element between bursts
                   }
                   return s;
                 }});
    e.push_back({{"markov", "on/off runs from a two-state Markov chain with the given mean run lengths",
                  {knob("on", 24, 1, kBig, false, "mean selected run"),
                   knob("off", 200, 1, kBig, false, "mean unselected run")}},
                 [](const Values& v, size_t n, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   std::vector<uint8_t> s(n);
                   const uint64_t leave_on = probability_threshold(1.0 / d(v, "on"));
                   const uint64_t leave_off = probability_threshold(1.0 / d(v, "off"));
                   bool on = false;
                   for (size_t i = 0; i < n; ++i) {
                     s[i] = on;
                     if (mix(seed, i, 7) < (on ? leave_on : leave_off)) on = !on;
                   }
                   return s;
                 }});
    e.push_back({{"ramp", "density per tile rises from `from` to `to` and back over `tiles` tiles (a triangle)",
                  {tile, knob("tiles", 32, 2, 1 << 16, true, "tiles per up-and-down"),
                   knob("from", 0, 0, 1, false, "lowest density"), knob("to", 1, 0, 1, false, "highest density")}},
                 [](const Values& v, size_t, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const uint64_t k = u(v, "tiles"), half = k / 2;
                   std::vector<double> dens;
                   for (uint64_t t = 0; t < k; ++t) {
                     const double x = t <= half ? double(t) / double(half) : double(k - t) / double(k - half);
                     dens.push_back(d(v, "from") + (d(v, "to") - d(v, "from")) * x);
                   }
                   return per_tile(u(v, "tile"), dens, seed);
                 }});
    e.push_back({{"sawtooth", "density per tile rises from `from` to `to` over `tiles` tiles, then drops back",
                  {tile, knob("tiles", 8, 2, 1 << 16, true, "tiles per tooth"),
                   knob("from", 0, 0, 1, false, "density of the first tile of a tooth"),
                   knob("to", 1, 0, 1, false, "density of the last tile of a tooth")}},
                 [](const Values& v, size_t, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const uint64_t k = u(v, "tiles");
                   std::vector<double> dens;
                   for (uint64_t t = 0; t < k; ++t)
                     dens.push_back(d(v, "from") + (d(v, "to") - d(v, "from")) * double(t) / double(k - 1));
                   return per_tile(u(v, "tile"), dens, seed);
                 }});
    e.push_back({{"alternating", "`period` tiles at density `dense`, then `period` empty tiles, repeated",
                  {tile, knob("period", 1, 1, 1 << 16, true, "tiles per half-cycle"),
                   knob("dense", 1, 0, 1, false, "regular density of the dense tiles")}},
                 [](const Values& v, size_t, uint64_t) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const uint64_t half = u(v, "period") * u(v, "tile");
                   return pattern(2 * half, {regular(half, d(v, "dense")), regular(half, 0)});
                 }});
    e.push_back({{"tile_random", "each tile's density drawn uniformly in [lo, hi], over `tiles` tiles, repeated",
                  {tile, knob("tiles", 64, 1, 1 << 16, true, "tiles before the densities repeat"),
                   knob("lo", 0, 0, 1, false, "lowest density"), knob("hi", 1, 0, 1, false, "highest density")}},
                 [](const Values& v, size_t, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   std::vector<double> dens;
                   const double lo = std::min(d(v, "lo"), d(v, "hi")), hi = std::max(d(v, "lo"), d(v, "hi"));
                   for (uint64_t t = 0; t < u(v, "tiles"); ++t) dens.push_back(lo + (hi - lo) * unit(seed, t, 1));
                   return per_tile(u(v, "tile"), dens, seed);
                 }});
    e.push_back({{"one_per_register", "exactly one selected lane in every register of 4 (lane -1: random lane)",
                  {knob("lane", -1, -1, 3, true, "the selected lane, or -1 for a random one per register")}},
                 [](const Values& v, size_t n, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const int lane = static_cast<int>(d(v, "lane"));
                   if (lane >= 0) {
                     Segment s{Segment::Kind::bits, false, 4, 0, "0000"};
                     s.bits[static_cast<size_t>(lane)] = '1';
                     return pattern(4, {s});
                   }
                   std::vector<uint8_t> s(n);
                   for (size_t r = 0; r * 4 < n; ++r) {
                     const size_t i = r * 4 + mix(seed, r, 3) % 4;
                     if (i < n) s[i] = 1;
                   }
                   return s;
                 }});
    e.push_back({{"one_per_tile", "exactly one selected element per tile (position -1: random per tile)",
                  {tile, knob("position", -1, -1, kBig, true, "its offset in the tile, or -1 for random")}},
                 [](const Values& v, size_t n, uint64_t seed) -> std::variant<Pattern, std::vector<uint8_t>> {
                   const uint64_t t = u(v, "tile");
                   const double pos = d(v, "position");
                   if (pos >= 0) {
                     const uint64_t at = std::min(static_cast<uint64_t>(pos), t - 1);
                     std::vector<Segment> segs;
                     if (at) segs.push_back(regular(at, 0));
                     segs.push_back(regular(1, 1));
                     if (at + 1 < t) segs.push_back(rest_regular(0));
                     return pattern(t, std::move(segs));
                   }
                   std::vector<uint8_t> s(n);
                   for (size_t k = 0; k * t < n; ++k) {
                     const size_t i = k * t + mix(seed, k, 5) % t;
                     if (i < n) s[i] = 1;
                   }
                   return s;
                 }});
    e.push_back({{"all", "every element selected", {}},
                 [](const Values&, size_t, uint64_t) -> std::variant<Pattern, std::vector<uint8_t>> {
                   return pattern(1, {regular(1, 1)});
                 }});
    e.push_back({{"nothing", "no element selected", {}},
                 [](const Values&, size_t, uint64_t) -> std::variant<Pattern, std::vector<uint8_t>> {
                   return pattern(1, {regular(1, 0)});
                 }});
    return e;
  }();
  return all;
}

std::string format_value(double v) {
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("?");
}

}  // namespace

const std::vector<Family>& families() {
  static const std::vector<Family> f = [] {
    std::vector<Family> out;
    for (const Entry& e : entries()) out.push_back(e.family);
    return out;
  }();
  return f;
}

const Family* find_family(std::string_view name) {
  for (const Family& f : families())
    if (f.name == name) return &f;
  return nullptr;
}

std::string FamilySpec::text() const {
  std::string s = family;
  for (size_t i = 0; i < knobs.size(); ++i) s += (i ? "," : ":") + knobs[i].first + "=" + format_value(knobs[i].second);
  return s;
}

std::variant<FamilySpec, std::string> parse_family_spec(std::string_view text) {
  FamilySpec spec;
  const size_t colon = text.find(':');
  spec.family = std::string(text.substr(0, colon));
  if (!find_family(spec.family)) {
    std::string names;
    for (const Family& f : families()) names += (names.empty() ? "" : ", ") + f.name;
    return "unknown family '" + spec.family + "' (known: " + names + ")";
  }
  if (colon == std::string_view::npos) return spec;
  std::string_view rest = text.substr(colon + 1);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return "expected knob=value in '" + std::string(item) + "'";
    const std::string_view val = item.substr(eq + 1);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (val.empty() || ec != std::errc() || ptr != val.data() + val.size() || !std::isfinite(v))
      return "expected a number for knob '" + std::string(item.substr(0, eq)) + "', got '" + std::string(val) + "'";
    spec.knobs.emplace_back(std::string(item.substr(0, eq)), v);
  }
  return spec;
}

std::variant<Generated, std::string> generate(const FamilySpec& spec, size_t n, uint64_t seed) {
  const Entry* entry = nullptr;
  for (const Entry& e : entries())
    if (e.family.name == spec.family) entry = &e;
  if (!entry) return "unknown family '" + spec.family + "'";
  Values v;
  for (const Knob& k : entry->family.knobs) v[k.name] = k.value;
  for (const auto& knob : spec.knobs) {
    const std::string& name = knob.first;  // not a structured binding: clang 14 cannot capture those
    const double value = knob.second;
    const auto it = std::find_if(entry->family.knobs.begin(), entry->family.knobs.end(),
                                 [&](const Knob& k) { return k.name == name; });
    if (it == entry->family.knobs.end()) {
      std::string names;
      for (const Knob& k : entry->family.knobs) names += (names.empty() ? "" : ", ") + k.name;
      return "family '" + spec.family + "' has no knob '" + name + "' (knobs: " + (names.empty() ? "none" : names) +
             ")";
    }
    if (!(value >= it->min && value <= it->max))
      return "knob " + spec.family + "." + name + " = " + format_value(value) + " is outside [" +
             format_value(it->min) + ", " + format_value(it->max) + "]";
    if (it->integer && value != std::floor(value))
      return "knob " + spec.family + "." + name + " must be a whole number (got " + format_value(value) + ")";
    v[name] = value;
  }
  Generated g;
  g.seed = seed;
  g.label = spec.family;
  for (const Knob& k : entry->family.knobs) g.knobs.emplace_back(k.name, v[k.name]);
  if (!g.knobs.empty()) {
    g.label += "(";
    for (size_t i = 0; i < g.knobs.size(); ++i)
      g.label += (i ? ", " : "") + g.knobs[i].first + "=" + format_value(g.knobs[i].second);
    g.label += ")";
  }
  auto body = entry->body(v, n, seed);
  if (auto* p = std::get_if<Pattern>(&body)) {
    g.selection = selection(*p, n);
    g.pattern = std::move(*p);
  } else {
    g.selection = std::move(std::get<std::vector<uint8_t>>(body));
  }
  return g;
}

std::variant<Generated, std::string> generate(std::string_view spec, size_t n, uint64_t seed) {
  auto s = parse_family_spec(spec);
  if (auto* e = std::get_if<std::string>(&s)) return *e;
  return generate(std::get<FamilySpec>(s), n, seed);
}

double density(std::span<const uint8_t> sel) {
  if (sel.empty()) return 0;
  size_t c = 0;
  for (uint8_t x : sel) c += x != 0;
  return static_cast<double>(c) / static_cast<double>(sel.size());
}

}  // namespace maskapply::gen
