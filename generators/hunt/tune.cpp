// SPDX-License-Identifier: MIT
// `maskapply tune`'s search: tune.h says what it does, docs/tune.md why.
#include "tune.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <type_traits>

#include <ctime>

#include "pattern_file.h"

namespace maskapply::gen::hunt {

namespace {

constexpr std::array<std::string_view, 32> kKnobNames{
    "tile",  "probe",    "xlo",     "lo",          "verify_blocks", "bail",        "distrust", "v6_pieces",
    "v6_bail", "v6_lo", "v6_floor", "v6_band", "v6_score_switch", "v6_score_blend", "v6_score_skip",
    "v6_score_sample", "v6_dense_cut",
    "v6_dense_block", "v6_reg", "v6_dear_floor", "v6_dear_probe", "v6_cheap_probe", "v6_cs", "v6_cs_empty",
    "v6_cs_switch", "v6_cs_block", "v6_cs_reg", "v6_cs_elem", "v6_cs_to_skip", "v6_cs_to_compact", "v6_cs_sample",
    "v6_cs_probation"};

const std::vector<Knob> kV35Knobs{Knob::tile, Knob::probe, Knob::xlo, Knob::lo, Knob::verify_blocks, Knob::bail};
const std::vector<Knob> kV4Knobs{Knob::tile,          Knob::probe, Knob::xlo,     Knob::lo,
                                 Knob::verify_blocks, Knob::bail,  Knob::distrust};
const std::vector<Knob> kV6Knobs{Knob::tile,    Knob::probe,  Knob::xlo,      Knob::lo,
                                 Knob::v6_pieces, Knob::v6_bail, Knob::v6_lo, Knob::v6_floor, Knob::v6_band,
                                 Knob::v6_score_switch, Knob::v6_score_blend, Knob::v6_score_skip,
                                 Knob::v6_score_sample, Knob::v6_dense_cut,
                                 Knob::v6_dense_block, Knob::v6_reg, Knob::v6_dear_floor, Knob::v6_dear_probe,
                                 Knob::v6_cheap_probe, Knob::v6_cs, Knob::v6_cs_empty, Knob::v6_cs_switch,
                                 Knob::v6_cs_block, Knob::v6_cs_reg, Knob::v6_cs_elem, Knob::v6_cs_to_skip,
                                 Knob::v6_cs_to_compact, Knob::v6_cs_sample, Knob::v6_cs_probation};

// Every knob is a PilotOptions field of its name (for_each_option_field); `visit` gets its member pointer.
template <class Visit>
void with_knob_field(Knob k, Visit&& visit) {
  bool found = false;
  for_each_option_field([&](const char* n, auto PilotOptions::*p) {
    if (n == name(k)) found = true, visit(p);
  });
  if (!found) throw std::logic_error("tune: knob " + std::string(name(k)) + " is no PilotOptions field");
}

// Whether a knob's option holds a whole number (for_each_option_field's fields are size_t, uint64_t or double).
bool whole_knob(Knob k) {
  bool whole = false;
  with_knob_field(k, [&](auto PilotOptions::*p) { whole = !std::is_floating_point_v<option_field_t<decltype(p)>>; });
  return whole;
}

// A knob's value as it reads back: a whole number, or the shortest decimal that gives the same double.
std::string value_text(Knob k, double v) {
  char buf[40];
  if (whole_knob(k)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// A bound lower than another by more than a millionth: two certifications of the same maximum differ in their
// last digits (the iteration's stopping point and its safety margin; 1.3e-9 relative for pilot_v6 sqrt under
// probe 16 and 256, which it does not read), and the tables print four decimals. A tie is not a move.
bool lower(double a, double b) { return a < b * (1 - 1e-6); }

}  // namespace

std::string_view name(Knob k) { return kKnobNames[static_cast<size_t>(k)]; }

std::optional<Knob> knob_from_name(std::string_view s) {
  for (size_t i = 0; i < kKnobNames.size(); ++i)
    if (kKnobNames[i] == s) return static_cast<Knob>(i);
  return std::nullopt;
}

double knob_value(const PilotOptions& o, Knob k) {
  double v = 0;
  with_knob_field(k, [&](auto PilotOptions::*p) { v = static_cast<double>(o.*p); });
  return v;
}

void set_knob(PilotOptions& o, Knob k, double v) {
  with_knob_field(k, [&](auto PilotOptions::*p) { o.*p = static_cast<option_field_t<decltype(p)>>(v); });
}

const std::vector<double>& knob_grid(Knob k) {
  static const std::vector<double> grids[] = {
      {1024, 2048, 4096},                          // tile
      {16, 32, 64, 128, 256, 512},                 // probe
      {0, 0.004, 0.008, 0.014, 0.02, 0.03, 0.05},  // xlo
      {0.04, 0.08, 0.12, 0.16, 0.2, 0.25, 0.3, 0.4},  // lo
      {1, 2, 4, 8, 16},                            // verify_blocks
      {0, 0.25, 0.5, 0.625, 0.75, 0.875, 1},       // bail
      {0, 1, 2, 4, 8, 16, 32},                     // distrust
      {1, 2, 4, 8, 16},                            // v6_pieces
      {0.75, 1, 1.05, 1.2, 1.5},                   // v6_bail
      {0.08, 0.12, 0.16, 0.3, 0.5, 0.6},           // v6_lo
      {0.05, 0.1, 0.15, 0.2, 0.3},                 // v6_floor (non-empty blocks per piece)
      {0, 0.2, 0.35, 0.6, 1},                      // v6_band (0: every f dear; 1: every f cheap)
      {2, 3, 4},                                   // v6_score_switch (d_max < 0 only)
      {8, 12, 17, 24},                             // v6_score_blend (d_max < 0 only)
      {3, 4, 6, 8, 12},                            // v6_score_skip (d_max < 0 only)
      {1, 2, 4, 8},                                // v6_score_sample (d_max < 0 only)
      {0.03, 0.05, 0.07, 0.1, 0.15, 0.25},         // v6_dense_cut (selected per piece; a cheap f only)
      {4, 6, 7, 8, 10, 12, 17},                    // v6_dense_block (selected per block; a cheap f only; 17: never)
      {0.4, 0.5, 0.6, 0.7, 0.8},                   // v6_reg (non-empty registers per piece; a dear f only)
      {0.05, 0.1, 0.12, 0.15, 0.2},                // v6_dear_floor (non-empty blocks per piece; a dear f only)
      {32, 64, 128, 256, 512},                     // v6_dear_probe (a dear f only; the probe is min(probe, this))
      {16, 32, 64, 96, 128, 256},                  // v6_cheap_probe (a cheap f only; the probe is min(probe, this))
      {0, 1},                                      // v6_cs (a cheap f only: 1 the compact score, 0 the probe's table)
      {8, 10, 12, 14, 16},                         // v6_cs_empty (the compact score's weights, 1/8 ns; a cheap f only)
      {16, 20, 24, 28, 32},                        // v6_cs_switch
      {6, 8, 10, 12, 14},                          // v6_cs_block
      {2, 3, 4, 5, 6},                             // v6_cs_reg
      {0, 1, 2},                                   // v6_cs_elem
      {64, 80, 96, 112, 128, 160},                 // v6_cs_to_skip
      {32, 48, 64, 80, 96},                        // v6_cs_to_compact
      {1, 2, 4, 8},                                // v6_cs_sample
      {0, 48, 72, 88, 104},                        // v6_cs_probation (at most v6_cs_to_skip)
  };
  return grids[static_cast<size_t>(k)];
}

const std::vector<TunablePilot>& tunable_pilots() {
  static const std::vector<TunablePilot> pilots{
      {Kernel::pilot_v3_5, kV35Knobs},
      {Kernel::pilot_v4, kV4Knobs},
      {Kernel::pilot_v6, kV6Knobs},
  };
  return pilots;
}

std::string tunable_pilot_names() {
  std::string known;
  for (const TunablePilot& t : tunable_pilots()) known += (known.empty() ? "" : ", ") + std::string(name(t.pilot));
  return known;
}

std::string knob_names() {
  std::string known;
  for (const std::string_view k : kKnobNames) known += (known.empty() ? "" : ", ") + std::string(k);
  return known;
}

const TunablePilot* tunable(Kernel k) {
  for (const TunablePilot& p : tunable_pilots())
    if (p.pilot == k) return &p;
  return nullptr;
}

Pattern uniform_pattern(size_t n, double density, uint64_t seed) {
  char text[160];
  std::snprintf(text, sizeof text, "period %zu\nseed %llu\nseg rest:~%.17g\n", n, static_cast<unsigned long long>(seed),
                density);
  const ParseResult p = parse_pattern(text);
  if (!p) throw std::invalid_argument(std::string("uniform_pattern: ") + p.error().message());
  return p.pattern();
}

std::vector<double> plain_costs(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, size_t n,
                                const PlainData& p) {
  Scorer sc(pilot, f, m, o);
  Summary s;
  std::vector<double> out;
  for (const double d : p.densities)
    for (const uint64_t seed : p.seeds) {
      s.assign(uniform_pattern(n, d, seed), n);
      out.push_back(sc.score(s).pilot_cost);
    }
  return out;
}

namespace {
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
}  // namespace

TuneResult tune(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& start, const TuneConfig& c) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const double cpu0 = thread_cpu_seconds();
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const TunablePilot* tp = tunable(pilot);
  if (!tp)
    throw std::invalid_argument(std::string(name(pilot)) + " has no certified bound to tune (tune knows: " +
                                tunable_pilot_names() + ")");
  if (!start.d_max) throw std::invalid_argument("the starting options need an injected d_max");
  if (const std::string e = bound_unsupported(pilot, start, c.n); !e.empty())
    throw std::invalid_argument("the starting options are off the certified bound's grid: " + e);
  const std::vector<Knob> knobs = c.knobs.empty() ? tp->knobs : c.knobs;
  for (const Knob k : knobs)
    if (std::find(tp->knobs.begin(), tp->knobs.end(), k) == tp->knobs.end())
      throw std::invalid_argument(std::string(name(pilot)) + " does not read " + std::string(name(k)));

  TuneResult res;
  // The plain-data rule's selections, summarized once, and the start's costs on them.
  std::vector<Summary> plain;
  std::vector<std::pair<double, uint64_t>> cases;
  for (const double d : c.plain.densities)
    for (const uint64_t seed : c.plain.seeds) {
      plain.emplace_back();
      plain.back().assign(uniform_pattern(c.n, d, seed), c.n);
      cases.emplace_back(d, seed);
    }
  const auto costs_of = [&](const PilotOptions& o) {
    Scorer sc(pilot, f, m, o);
    std::vector<double> v;
    for (const Summary& s : plain) v.push_back(sc.score(s).pilot_cost);
    return v;
  };
  const std::vector<double> start_costs = costs_of(start);

  const auto moved = [&](const PilotOptions& o) {
    std::string s;
    for (const Knob k : tp->knobs)
      if (knob_value(o, k) != knob_value(start, k))
        s += (s.empty() ? "" : " ") + std::string(name(k)) + "=" + value_text(k, knob_value(o, k));
    return s;
  };

  // Every candidate once (by its options' text); its outcome.
  enum class Outcome { off_grid, plain, dismissed, bounded };
  struct Scored {
    Outcome outcome;
    Candidate cand;
  };
  std::map<std::string, Scored> memo;
  std::vector<Pattern> witnesses;  // kept from earlier bounds: under a candidate, each is a lower bound's selection
  Candidate best;
  best.bound = INFINITY;
  BoundResult best_bound;
  const auto report = [&](const std::string& phase) {
    if (c.progress) c.progress(TuneProgress{phase, res.evaluations, res.bounds, best.bound, elapsed()});
  };
  const auto out_of_time = [&] { return c.seconds > 0 && elapsed() > c.seconds; };

  // Scores o; bar: the bound it must beat to matter (a witness scoring at or above it dismisses o). Returns the
  // candidate when it was bounded and passed the rule (the start passes it by definition: ratio 1).
  const std::string start_key = options_text(start);
  const auto score = [&](const PilotOptions& o, double bar) -> std::optional<Candidate> {
    const std::string key = options_text(o);
    if (const auto it = memo.find(key); it != memo.end()) {
      if (it->second.outcome == Outcome::bounded) return it->second.cand;
      if (it->second.outcome != Outcome::dismissed || !(bar > it->second.cand.bound)) return std::nullopt;
      memo.erase(it);  // dismissed under a lower bar: score again
    }
    ++res.evaluations;
    Scored sc{Outcome::off_grid, Candidate{o, INFINITY, 0, 0, 0, moved(o)}};
    if (!bound_unsupported(pilot, o, c.n).empty()) {
      ++res.off_grid;
      memo.emplace(key, sc);
      return std::nullopt;
    }
    const std::vector<double> costs = costs_of(o);
    for (size_t i = 0; i < costs.size(); ++i) {
      const double r = start_costs[i] > 0 ? costs[i] / start_costs[i] : costs[i] > 0 ? INFINITY : 1.0;
      if (r > sc.cand.plain_worst || i == 0)
        sc.cand.plain_worst = r, sc.cand.plain_density = cases[i].first, sc.cand.plain_seed = cases[i].second;
    }
    if (!(sc.cand.plain_worst <= c.plain.max_ratio) && key != start_key) {
      ++res.refused_plain;
      sc.outcome = Outcome::plain;
      memo.emplace(key, sc);
      return std::nullopt;
    }
    if (std::isfinite(bar)) {
      Evaluator ev(pilot, f, m, o, c.n);
      for (const Pattern& w : witnesses) {
        const double r = ev(w).regret;
        if (r >= bar) {
          ++res.dismissed;
          sc.outcome = Outcome::dismissed;
          sc.cand.bound = r;  // a lower bound only
          memo.emplace(key, sc);
          return std::nullopt;
        }
      }
    }
    // From the bar: a candidate whose first witness reaches it is dismissed after one program.
    const BoundResult b = std::isfinite(bar) ? regret_bound(pilot, f, m, o, c.n, bar, bar) : regret_bound(pilot, f, m, o, c.n);
    ++res.bounds;
    if (b.pattern.segments.size() <= 512) witnesses.push_back(b.pattern);
    witnesses.push_back(b.tile_pattern);
    if (witnesses.size() > 24) witnesses.erase(witnesses.begin(), witnesses.begin() + (witnesses.size() - 24));
    if (b.gave_up) {
      ++res.dismissed;
      sc.outcome = Outcome::dismissed;
      sc.cand.bound = b.bound;  // a lower bound only
      memo.emplace(key, sc);
      return std::nullopt;
    }
    sc.outcome = Outcome::bounded;
    sc.cand.bound = b.bound;
    memo.emplace(key, sc);
    if (lower(b.bound, best.bound)) best = sc.cand, best_bound = b;
    return sc.cand;
  };

  // 1. The start.
  report("start");
  res.start = *score(start, INFINITY);
  const BoundResult start_bound = best_bound;  // the start's, from lambda = 1
  report("sweep");
  // 2. The one-knob sweep, from the start.
  res.sweep = res.start;
  for (const Knob k : knobs)
    for (const double v : knob_grid(k)) {
      if (out_of_time()) break;
      PilotOptions o = start;
      set_knob(o, k, v);
      if (const auto cd = score(o, res.sweep.bound); cd && lower(cd->bound, res.sweep.bound)) res.sweep = *cd;
      report("sweep");
    }
  res.capped = out_of_time();
  // 2b. The seeds: another pilot's moves, which no single knob of this pilot's need reach.
  Candidate x = res.sweep;
  for (size_t i = 0; i < c.seeds.size() && !out_of_time(); ++i) {
    PilotOptions o = c.seeds[i];
    o.d_max = start.d_max;  // the model's, as the start's
    if (const auto cd = score(o, x.bound); cd && lower(cd->bound, x.bound)) x = *cd, res.seed = static_cast<int>(i);
    report("seeds");
  }
  // 3. From the best so far: coordinate passes, then seeded random moves of one to three knobs.
  size_t spent = 0, attempts = 0;
  const auto try_move = [&](const PilotOptions& o) {
    const size_t before = res.evaluations;
    const auto cd = score(o, x.bound);
    spent += res.evaluations - before;
    ++attempts;
    report("search");
    if (cd && lower(cd->bound, x.bound)) {
      x = *cd;
      return true;
    }
    return false;
  };
  const auto done = [&] { return spent >= c.budget || attempts >= 50 * c.budget + 100 || out_of_time(); };
  for (bool improved = true; improved && !done();) {
    improved = false;
    for (const Knob k : knobs) {
      const PilotOptions base = x.options;
      for (const double v : knob_grid(k)) {
        if (done()) break;
        PilotOptions o = base;
        set_knob(o, k, v);
        improved |= try_move(o);
      }
    }
  }
  uint64_t state = mix(c.seed, static_cast<uint64_t>(pilot), static_cast<uint64_t>(f), 0x74756e65);  // "tune"
  const auto next = [&](uint64_t bound) { return (state = mix(state, 1)) % bound; };
  while (!done()) {
    PilotOptions o = x.options;
    const size_t moves = 1 + next(3);
    for (size_t i = 0; i < moves; ++i) {
      const Knob k = knobs[next(knobs.size())];
      const std::vector<double>& g = knob_grid(k);
      const auto at = std::find(g.begin(), g.end(), knob_value(o, k));
      if (at != g.end() && next(2)) {  // a neighbour on the grid
        const size_t j = static_cast<size_t>(at - g.begin());
        set_knob(o, k, g[next(2) ? std::min(j + 1, g.size() - 1) : j ? j - 1 : 0]);
      } else {
        set_knob(o, k, g[next(g.size())]);
      }
    }
    try_move(o);
  }
  res.capped = res.capped || (out_of_time() && spent < c.budget);
  // The figures printed are regret_bound's from lambda = 1, as `maskapply hunt` computes them (the search started
  // some from its bar: the same maximum, other last bits); the start's already is.
  if (options_text(res.sweep.options) != start_key) {
    res.sweep.bound = regret_bound(pilot, f, m, res.sweep.options, c.n).bound;
    if (!lower(res.sweep.bound, res.start.bound)) res.sweep = res.start;
  }
  res.best = x;
  if (options_text(x.options) != start_key) {
    best_bound = regret_bound(pilot, f, m, x.options, c.n);
    res.best.bound = best_bound.bound;
    if (!lower(res.best.bound, res.start.bound)) res.best = res.start, best_bound = start_bound, res.seed = -1;
  } else {
    best_bound = start_bound;
  }
  res.best_bound = best_bound;
  res.seconds = elapsed();
  res.cpu_seconds = thread_cpu_seconds() - cpu0;
  report("done");
  return res;
}

}  // namespace maskapply::gen::hunt
