// SPDX-License-Identifier: MIT
#include "fuzz.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "oracle.h"

namespace maskapply::fuzz {
namespace {

std::string g_program = "<fuzz target>";
std::string g_input;

size_t count(std::span<const float> in, size_t begin, size_t end, const MaskSpec& m) {
  return oracle::count(in.data() + begin, end - begin, m);
}

// The pilots' decisions as the article's code makes them, computed from the input with the scalar oracle's
// counts: the trace a correct pilot must produce, run for run and tile for tile.
class ReferencePilot {
 public:
  ReferencePilot(Kernel k, const MaskSpec& m, std::span<const float> in, const PilotOptions& o)
      : k_(k), m_(m), in_(in), o_(o), d_max_(*o.d_max), th_(Thresholds::from(o, *o.d_max)) {}

  Trace run() {
    const size_t n = in_.size();
    const size_t region = std::min(n, o_.calib_blocks * o_.calib_len);
    size_t index = 0;
    for (size_t i = 0; i < region; i += o_.calib_len) {
      TileDecision d = start(index++, i, std::min(i + o_.calib_len, region));
      d.source = CountSource::calibration;
      report(d.begin, d.end, Strategy::blend);
      t_.tile(d);
    }
    for (size_t i = region; i < n; i += o_.tile) {
      TileDecision d = start(index++, i, std::min(i + o_.tile, n));
      decide(d);
      t_.tile(d);
    }
    return t_;
  }

 private:
  TileDecision start(size_t index, size_t begin, size_t end) const {
    TileDecision d;
    d.index = index, d.begin = begin, d.end = end;
    d.hi = th_.hi, d.xlo = th_.xlo, d.lo = th_.lo, d.d_max = d_max_;
    return d;
  }
  void report(size_t b, size_t e, Strategy s) {
    if (b < e) t_.run(Run{b, e, s});
  }
  long long probe(TileDecision& d) const {
    const size_t len = std::min(o_.probe, d.end - d.begin);
    const size_t cnt = count(in_, d.begin, d.begin + len, m_);
    d.source = CountSource::probe;
    d.count = static_cast<long long>(len == o_.probe ? cnt : cnt * o_.probe / len);
    return d.count;
  }
  // Runs s over the range; returns the selected count (what detour and compact return).
  size_t run(Strategy s, size_t b, size_t e) {
    report(b, e, s);
    return count(in_, b, e, m_);
  }
  void blend_branch(const TileDecision& d, long long cnt) {
    run(cnt < th_.xlo ? Strategy::blend_skip : Strategy::blend, d.begin, d.end);
  }
  size_t below_hi(const TileDecision& d, long long cnt) {
    if (cnt < th_.xlo) return run(Strategy::compact_skip, d.begin, d.end);
    if (cnt < th_.lo) return run(Strategy::compact, d.begin, d.end);
    return run(Strategy::detour, d.begin, d.end);
  }
  // blend_verified's rule (blend.h): blocks of size / verify_blocks, bail after a block below bail * d_max.
  size_t verified_did(size_t b, size_t e) const {
    const size_t n = e - b, blocks = o_.verify_blocks;
    const size_t len = n / blocks ? n / blocks : n;
    const size_t nblocks = n / blocks ? blocks : 1;
    for (size_t i = 0; i < nblocks; ++i) {
      const size_t bb = i * len, be = i + 1 == nblocks ? n : bb + len;
      const size_t cur = count(in_, b + bb, b + be, m_);
      if (be < n && static_cast<double>(cur) / static_cast<double>(be - bb) < o_.bail * d_max_) return be;
    }
    return n;
  }
  size_t verified(TileDecision& d, size_t* rest) {
    const size_t did = verified_did(d.begin, d.end);
    report(d.begin, d.begin + did, Strategy::blend_verified);
    *rest = 0;
    if (did < d.end - d.begin) {
      d.bail = d.begin + did;
      *rest = run(Strategy::detour, d.begin + did, d.end);
    }
    return did;
  }
  long long scaled(size_t c, size_t len) const { return static_cast<long long>(c * o_.probe / len); }

  void decide(TileDecision& d) {
    const size_t size = d.end - d.begin;
    size_t rest;
    switch (k_) {
      case Kernel::pilot_v1: run(d_max_ < 0 ? Strategy::blend : Strategy::detour, d.begin, d.end); return;
      case Kernel::pilot_v2: {
        const long long cnt = probe(d);
        if (cnt > th_.hi) blend_branch(d, cnt);
        else run(cnt < th_.xlo ? Strategy::detour_skip : Strategy::detour, d.begin, d.end);
        return;
      }
      case Kernel::pilot_v3: {
        const long long cnt = probe(d);
        if (cnt > th_.hi) blend_branch(d, cnt);
        else below_hi(d, cnt);
        return;
      }
      case Kernel::pilot_v3_5: {
        const long long cnt = probe(d);
        if (cnt > th_.hi) {
          if (th_.hi < 0) blend_branch(d, cnt);
          else verified(d, &rest);
        } else {
          below_hi(d, cnt);
        }
        return;
      }
      case Kernel::pilot_v4: {
        if (distrust_) --distrust_;
        long long cnt;
        if (distrust_) {
          cnt = d.count = prev_;
          d.source = CountSource::previous;
        } else {
          cnt = probe(d);
        }
        if (cnt > th_.hi) {
          if (th_.hi < 0) {
            blend_branch(d, cnt);
          } else if (distrust_ == 0) {
            const size_t did = verified(d, &rest);
            if (did < size) {
              distrust_ = o_.distrust;
              prev_ = scaled(rest, size - did);
            }
          } else {
            prev_ = scaled(run(Strategy::detour, d.begin, d.end), size);
          }
        } else {
          prev_ = scaled(below_hi(d, cnt), size);
        }
        d.distrust = distrust_;
        return;
      }
      default: return;
    }
  }

  Kernel k_;
  const MaskSpec& m_;
  std::span<const float> in_;
  const PilotOptions& o_;
  double d_max_;
  Thresholds th_;
  Trace t_;
  size_t distrust_ = 0;
  long long prev_ = 0;
};

std::string show(const Run& r) {
  return std::string(name(r.strategy)) + " [" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
}
std::string show(const TileDecision& d) {
  std::ostringstream s;
  s << "tile " << d.index << " [" << d.begin << ", " << d.end << ") source=" << name(d.source) << " count=" << d.count
    << " hi=" << d.hi << " xlo=" << d.xlo << " lo=" << d.lo << " d_max=" << d.d_max << " distrust=" << d.distrust
    << " bail=" << (d.bail == kNoBail ? std::string("none") : std::to_string(d.bail));
  return s.str();
}

}  // namespace

void set_program(const char* argv0) {
  if (argv0) g_program = argv0;
}
void verbose(const testing::Case& c) {
  static const bool on = std::getenv("MASKAPPLY_FUZZ_VERBOSE") != nullptr;
  if (!on) return;
  size_t selected = oracle::count(c.data.data(), c.data.size(), c.mask);
  std::fprintf(stderr, "%s selected=%zu%s\n",
               testing::describe(c.kernel, c.f, c.mask, c.data.size(), c.options, c.misalign).c_str(), selected,
               g_input.empty() ? "" : (" input=" + g_input).c_str());
}

void set_current_input(std::string path) { g_input = std::move(path); }
const std::string& program() { return g_program; }

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}
std::string hex64(uint64_t x) {
  char b[20];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(x));
  return b;
}

void fail(std::string_view target, std::string_view what, const testing::Case* c) {
  std::fprintf(stderr, "\n==== maskapply fuzz target `%.*s`: FAILED\n%.*s\n", int(target.size()), target.data(),
               int(what.size()), what.data());
  if (c) {
    const char* env = std::getenv("MASKAPPLY_FUZZ_CASES");
    const std::string dir = env && *env ? env : "fuzz-cases";
    const std::string text = testing::to_text(*c);
    const std::string base = std::string(target) + "-" + std::string(name(c->kernel)) + "-" + hex64(fnv1a(text));
    const std::string path = testing::write_case_file(*c, dir, base, std::string("fuzz target ") +
                                                                         std::string(target) + ": " + std::string(what));
    if (!path.empty())
      std::fprintf(stderr, "case file: %s\nrerun the case:  case_replay %s   (build/<preset>/fuzz/case_replay)\n",
                   path.c_str(), path.c_str());
  }
  if (!g_input.empty())
    std::fprintf(stderr, "rerun the input: %s %s\n", g_program.c_str(), g_input.c_str());
  else
    std::fprintf(stderr, "rerun the input: %s <the crash- file libFuzzer names below>\n", g_program.c_str());
  std::fflush(stderr);
  std::abort();
}

std::string check_pilot_trace(Kernel k, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                              const Trace& t) {
  const size_t n = input.size();
  // The runs partition [0, n), in order.
  size_t at = 0;
  for (const Run& r : t.runs) {
    if (r.begin != at || r.end <= r.begin || r.end > n)
      return "the runs do not partition [0, " + std::to_string(n) + "): got " + show(r) + " where a run starting at " +
             std::to_string(at) + " was due";
    at = r.end;
  }
  if (at != n) return "the runs cover [0, " + std::to_string(at) + ") of [0, " + std::to_string(n) + ")";
  // So do the tiles, and every run lies inside one tile.
  at = 0;
  size_t ri = 0;
  for (size_t i = 0; i < t.tiles.size(); ++i) {
    const TileDecision& d = t.tiles[i];
    if (d.index != i || d.begin != at || d.end <= d.begin || d.end > n)
      return "the tiles do not partition [0, " + std::to_string(n) + "): got " + show(d);
    while (ri < t.runs.size() && t.runs[ri].end <= d.end) {
      if (t.runs[ri].begin < d.begin) return show(t.runs[ri]) + " straddles the start of " + show(d);
      ++ri;
    }
    at = d.end;
  }
  if (at != n) return "the tiles cover [0, " + std::to_string(at) + ") of [0, " + std::to_string(n) + ")";
  if (!o.d_max) return {};  // timed calibration: the decisions depend on the clock
  // Every decision is the one the article's code makes on this input.
  const Trace want = ReferencePilot(k, m, input, o).run();
  for (size_t i = 0; i < std::min(want.tiles.size(), t.tiles.size()); ++i)
    if (!(want.tiles[i] == t.tiles[i]))
      return "decision differs from the reference:\n  expected " + show(want.tiles[i]) + "\n  actual   " +
             show(t.tiles[i]);
  for (size_t i = 0; i < std::min(want.runs.size(), t.runs.size()); ++i)
    if (!(want.runs[i] == t.runs[i]))
      return "run " + std::to_string(i) + " differs from the reference: expected " + show(want.runs[i]) +
             ", actual " + show(t.runs[i]);
  if (want.tiles.size() != t.tiles.size() || want.runs.size() != t.runs.size())
    return "the reference has " + std::to_string(want.tiles.size()) + " tiles and " +
           std::to_string(want.runs.size()) + " runs, the pilot " + std::to_string(t.tiles.size()) + " and " +
           std::to_string(t.runs.size());
  return {};
}

}  // namespace maskapply::fuzz
