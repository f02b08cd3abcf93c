// SPDX-License-Identifier: MIT
// The certified worst case (bound.h; docs/bound.md has the argument this code follows, part by part).
#include "bound.h"

#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <tuple>
#include <stdexcept>

#include "fast_pilot.h"
#include "gate_bound.h"
#include "regret.h"
#include "search.h"

namespace maskapply::gen::hunt {

namespace {

constexpr double kNeg = -std::numeric_limits<double>::infinity();

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Groups of 16 packed lanes a run's packed pass adds when a block with a selected elements follows a count whose
// residue mod 16 is r: ceil((r + a) / 16) - ceil(r / 16). Summed over a run it telescopes to ceil(P / 16).
inline unsigned inc(unsigned r, unsigned a) { return (r + a + 15) / 16 - (r + 15) / 16; }

// A count carried in the state: exact below K; from K on only "at least K" and, with residue, its value mod 16
// (what the packed pass's rounding needs). Indices 0 .. K-1 exact, K .. K+15 (or K) saturated.
// With KB > 0 it is two counts in one (pilot_v6's one-pass compact): the non-empty blocks (with KE: the selected
// elements, pilot_v6's cut compact_skip), saturated at KB, and
// the selected elements mod 16; index = 16 * blocks + residue, and that index is also the count routes read and
// write (a route decodes it; K is unused). With KD > 0 as well (a cheap f's one-pass compact), three: index =
// 16 * (blocks * (KD + 1) + full) + residue, full the blocks with at least DA selected, saturated at KD.
struct Ctr {
  size_t K = 1;
  bool residue = true;
  size_t KB = 0;
  bool KE = false;  // a KB counter's first count counts selected elements, not non-empty blocks
  bool KR = false;  // a KB counter's first count counts non-empty registers (the adversary's choice per block)
  size_t KD = 0;     // with KB: a third count, the blocks with at least DA selected, saturated at KD
  unsigned DA = 16;
  // A state machine instead (pilot_v6's compact score): index i goes to (*next)[17 i + a] after a block with a
  // selected; its residue is i % 16 (K, KB unused; an index is its own count).
  std::shared_ptr<const std::vector<size_t>> next;
  size_t size() const { return next ? next->size() / 17 : KB ? (KB + 1) * (KD + 1) * 16 : K + (residue ? 16 : 1); }
  size_t from_count(size_t c) const {
    if (next) return c;
    if (KB) return std::min(c / 16, KB) * 16 + c % 16;
    return c < K ? c : K + (residue ? c % 16 : 0);
  }
  // A count the index stands for: itself, or the least c >= K with the index's residue (any c >= K with that
  // residue routes alike: every predicate a stage's end reads is constant from K on, by the choice of K).
  size_t rep(size_t i) const {
    if (next || KB || i < K) return i;
    if (!residue) return K;
    const size_t r = i - K;
    return K + (r + 16 - K % 16) % 16;
  }
  // After a block with a selected elements in ne non-empty registers.
  size_t add(size_t i, unsigned a, unsigned ne = 0) const {
    if (next) return (*next)[17 * i + a];
    const size_t step = KR ? ne : KE ? a : (a > 0 ? 1 : 0);
    if (KB && KD) {
      const size_t first = i / 16, b = first / (KD + 1), d = first % (KD + 1);
      const size_t first2 = std::min(b + step, KB) * (KD + 1) + std::min(d + (a >= DA ? 1 : 0), KD);
      return first2 * 16 + (i % 16 + a) % 16;
    }
    if (KB) return std::min(i / 16 + step, KB) * 16 + (i % 16 + a) % 16;
    if (i < K) return from_count(i + a);
    return residue ? K + (i - K + a) % 16 : K;
  }
  unsigned res(size_t i) const { return static_cast<unsigned>(next || KB || i < K ? i % 16 : i - K); }
};

// Oracle states inside a tile: a run that just ended (END; a blend block is END -> END), an open blend_skip
// run (BS), an open detour over empty blocks only (DE), an open detour-family run k with its count since its
// start mod 16 (W + 16 k + r). Boundary states between tiles: END or BS, each with the last block's emptiness.
constexpr size_t END = 0, BS = 1, DE = 2, W = 3, NO = 3 + 64;
constexpr std::array<Strategy, 4> kWin{Strategy::detour, Strategy::detour_skip, Strategy::compact,
                                       Strategy::compact_skip};

using Emit = std::function<void(int target, size_t count, double extra)>;  // target >= 0 stage, < 0 exit -1-label
struct Stage {
  size_t b0 = 0, b1 = 0;  // blocks of the tile
  Strategy s = Strategy::blend;
  bool run_start = true;  // b0 starts a pilot run (its first block compared with "non-empty"; count from 0)
  bool alone_if_full = false;  // a non-empty block is a run of its own (compared with "non-empty"): a counted block
  bool count_blocks = false;  // the counter counts non-empty blocks, not selected elements
  Ctr ctr;
  // A run whose expand visits every register once it selects anything (the one-pass detour): e4 per block, charged
  // as the run goes; the blocks of the run before its first selected one (from run_b0) when that block comes.
  // Whether the run has selected anything, at counter index i: its count is above 0 (a K counter counting from the
  // run's start), its third count (KD = DA = 1), its first count (a KR counter whose run began at b0), or always.
  enum class Any { count, third, first, always };
  double e4 = 0;
  size_t run_b0 = 0;
  Any any_from = Any::count;
  bool any(size_t i) const {
    switch (any_from) {
      case Any::count: return i > 0;
      case Any::third: return (i / 16) % (ctr.KD + 1) > 0;
      case Any::first: return i / 16 / (ctr.KD + 1) > 0;
      default: return true;
    }
  }
  double expand(size_t i, unsigned a, size_t j) const {
    return e4 == 0 ? 0.0 : any(i) ? e4 : a > 0 ? e4 * static_cast<double>(j - run_b0 + 1) : 0.0;
  }
  // What a block with a selected elements adds to the counter (a two-count counter takes a itself).
  unsigned counted(unsigned a) const { return count_blocks && !ctr.KB ? (a > 0 ? 1u : 0u) : a; }
  std::function<void(size_t count, const Emit&)> route;  // at b1: where each count goes
};

struct TileModel {
  size_t blocks = 0;
  double init = 0;  // the probe's cost
  size_t labels = 1;
  std::vector<Stage> stages;
};

// The pilots' rules in counts, restated from the article and hunt::simulate (same thresholds, same integer
// conversions). Outcome: a Strategy for the whole tile, or kVerified.
constexpr int kVerified = 100;
constexpr int kVerifiedDetour = 101;  // pilot_v6: the one-pass detour
constexpr int kVerifiedCompact = 102;  // pilot_v6: compact, one run, until a sparse piece
struct Rules {
  Kernel pilot;
  PilotOptions o;
  double dm;
  long long hi, xlo, lo, lo6;
  explicit Rules(Kernel k, const PilotOptions& opt) : pilot(k), o(opt), dm(*opt.d_max) {
    const double p = static_cast<double>(o.probe);
    const auto conv = [&](double x) { return static_cast<long long>(std::min(2.0, std::max(-2.0, x)) * p); };
    hi = conv(dm), xlo = conv(o.xlo), lo = conv(o.lo), lo6 = conv(o.v6_lo);
  }
  Strategy blend_branch(long long c) const { return c < xlo ? Strategy::blend_skip : Strategy::blend; }
  Strategy below_hi(long long c) const {
    return c < xlo ? Strategy::compact_skip : c < lo ? Strategy::compact : Strategy::detour;
  }
  long long scaled_probe(size_t c, size_t len) const {
    return static_cast<long long>(len == o.probe ? c : c * o.probe / len);
  }
  long long scaled(size_t c, size_t len) const { return static_cast<long long>(c * o.probe / len); }
  // Judged by the probe (v2, v3, v3.5, v4 trusting it, v6).
  int probe_outcome(long long c) const {
    switch (pilot) {
      case Kernel::pilot_v6:
        return dm < o.v6_band ? (c > hi && c > lo ? static_cast<int>(Strategy::blend_skip)
                                   : c >= xlo      ? kVerifiedCompact
                                                   : static_cast<int>(Strategy::compact_skip))
               : c > hi  ? kVerified
               : c >= lo6 ? kVerifiedDetour
               : (c >= xlo && c < lo) ? kVerifiedCompact
                          : static_cast<int>(Strategy::compact_skip);
      case Kernel::pilot_v2:
        return static_cast<int>(c > hi ? blend_branch(c) : c < xlo ? Strategy::detour_skip : Strategy::detour);
      case Kernel::pilot_v3: return static_cast<int>(c > hi ? blend_branch(c) : below_hi(c));
      default: return c > hi ? (hi < 0 ? static_cast<int>(blend_branch(c)) : kVerified) : static_cast<int>(below_hi(c));
    }
  }
  // v4 not trusting the probe, judged by prev: the strategy, and whether the tile's count becomes prev.
  std::pair<Strategy, bool> prev_outcome(long long c) const {
    if (c > hi) return hi < 0 ? std::pair{blend_branch(c), false} : std::pair{Strategy::detour, true};
    return {below_hi(c), true};
  }
  // The verified blend's piece bails when cur / len < bail * d_max (the same double expression): the least
  // count that does not bail.
  size_t no_bail_from(size_t len) const { return least_not_below(len, o.bail * dm); }
  // The least count c in [0, len] with !(c / len < floor) (the same double expression as the kernels), else len + 1.
  static size_t least_not_below(size_t len, double floor) {
    for (size_t c = 0; c <= len; ++c)
      if (!(static_cast<double>(c) / static_cast<double>(len) < floor)) return c;
    return len + 1;
  }
};

// K for a predicate over counts 0..max: one past its last change (constant from there on), at least lo.
size_t cap_for(size_t max, size_t lo, const std::function<long long(size_t)>& key) {
  size_t K = lo;
  for (size_t c = 0; c < max; ++c)
    if (key(c) != key(c + 1)) K = std::max(K, c + 2);
  return K;
}

// v4's classes of prev: the distinct outcomes of prev_outcome over 0..probe.
struct Classes {
  std::vector<std::pair<Strategy, bool>> keys;
  std::vector<int> of;  // class of each prev value 0..probe
  Classes(const Rules& r) {
    for (size_t p = 0; p <= r.o.probe; ++p) {
      const auto k = r.prev_outcome(static_cast<long long>(p));
      auto it = std::find(keys.begin(), keys.end(), k);
      if (it == keys.end()) keys.push_back(k), it = keys.end() - 1;
      of.push_back(static_cast<int>(it - keys.begin()));
    }
  }
  int cls(long long p) const { return of[static_cast<size_t>(std::clamp<long long>(p, 0, static_cast<long long>(of.size()) - 1))]; }
};


// pilot_v6's pieces of a tile of `blocks` blocks: the verify pieces of (size, v6_piece_count(o, size)) (fast_pilot.h);
// nb pieces of lb blocks, the last to the tile's end.
struct V6Pieces {
  size_t blocks, len, nb, lb;
  V6Pieces(const Rules& r, size_t b) : V6Pieces(b, v6_piece_count(r.o, b * 16)) {}
  V6Pieces(size_t b, size_t np) : blocks(b) {
    const size_t size = blocks * 16;
    len = verify_len(size, np), nb = verify_count(size, np), lb = len / 16;
  }
  size_t end(size_t k) const { return k + 1 == nb ? blocks : (k + 1) * lb; }
  // The least count a piece (not the last) needs not to fall back below `floor` (1 when no piece is checked).
  size_t need(double floor) const { return nb == 1 ? 1 : std::max<size_t>(Rules::least_not_below(len, floor), 1); }
};

// Piece 0 of a v6 verified run of strategy s: the probe's stage over its first pb blocks (counter K at least Kp,
// its count kept), then, when the probe ends inside the piece, the piece's rest; `after` routes piece 0's count.
void add_piece0(TileModel& t, const V6Pieces& vp, Strategy s, size_t pb,
                const std::function<long long(size_t)>& member, size_t Kp, size_t need, bool residue,
                const std::function<void(size_t, const Emit&)>& after) {
  const size_t head = t.stages.size();
  const bool split = pb < vp.end(0);
  Stage a;
  a.b0 = 0, a.b1 = split ? pb : vp.end(0), a.s = s;
  a.ctr.K = std::max(Kp, need), a.ctr.residue = residue;
  if (split) {
    a.route = [=](size_t c, const Emit& emit) {
      if (member(c)) emit(static_cast<int>(head + 1), c, 0.0);
    };
    t.stages.push_back(a);
    Stage b;
    b.b0 = pb, b.b1 = vp.end(0), b.s = s, b.run_start = false;
    b.ctr.K = need, b.ctr.residue = residue;
    b.route = after;
    t.stages.push_back(b);
    return;
  }
  a.route = [=](size_t c, const Emit& emit) {
    if (member(c)) after(c, emit);
  };
  t.stages.push_back(a);
}

// The fallback s (compact_skip unless said) from the end of piece k to the tile's end, for k = 0 .. nb - 2, as
// consecutive stages.
void add_fallbacks(TileModel& t, const V6Pieces& vp, Strategy s = Strategy::compact_skip) {
  for (size_t k = 0; k + 1 < vp.nb; ++k) {
    Stage d;
    d.b0 = vp.end(k), d.b1 = vp.blocks, d.s = s;
    d.ctr.K = 1;
    d.route = [](size_t, const Emit& emit) { emit(-1, 0, 0.0); };
    t.stages.push_back(d);
  }
}

// A cheap f's cut compact_skip (pilot_v6): one compact_skip run from piece j >= 1 of vp on, counting each piece's
// selected elements and the run's residue (a two-count counter, Ctr::KE); after a piece but the last with at least
// T of them (T / len >= v6_dense_cut, the kernels' expression), blend_skip to the tile's end. Stages from the
// returned base: start[j] (a run starts at piece j) base + j - 1, cont[j] (the run goes on into piece j) base +
// nb - 1 + j - 1, blend_skip after piece j (0 .. nb - 2; after piece 0 for the one-pass compact's full-block end)
// base + 2 (nb - 1) + j.
bool dense_cut(const Rules& r) { return r.pilot == Kernel::pilot_v6 && r.hi >= 0 && r.dm < r.o.v6_band; }
size_t add_dense_cut(TileModel& t, const Rules& r, const V6Pieces& vp) {
  const size_t nb = vp.nb, lb = vp.lb, base = t.stages.size();
  const size_t T = Rules::least_not_below(vp.len, r.o.v6_dense_cut), KT = std::max<size_t>(T, 1);
  for (int start = 1; start >= 0; --start)
    for (size_t j = 1; j < nb; ++j) {
      Stage p;
      p.b0 = j * lb, p.b1 = vp.end(j), p.s = Strategy::compact_skip, p.run_start = start;
      if (j + 1 == nb) {
        p.ctr.K = 1;
        p.route = [](size_t, const Emit& emit) { emit(-1, 0, 0.0); };
      } else {
        p.ctr.K = 0, p.ctr.KB = KT, p.ctr.KE = true;
        p.route = [=](size_t c, const Emit& emit) {
          if (c / 16 >= T) emit(static_cast<int>(base + 2 * (nb - 1) + j), 0, 0.0);
          else emit(static_cast<int>(base + nb - 1 + j), c % 16, 0.0);
        };
      }
      t.stages.push_back(p);
    }
  add_fallbacks(t, vp, Strategy::blend_skip);
  return base;
}

// pilot_v6's one-pass detour (a dear f) over V6Pieces: one detour run (one packed pass; its expand visits every
// register of the run once the run selects anything: Stage::e4) that, after a piece but the last with registers
// past the probe and fewer than v6_reg of them non-empty, compresses no more; compact_skip to the tile's end.
// Its counter holds the piece's non-empty registers (Ctr::KR, saturated at the least count that goes on: every
// value a block can have is the adversary's choice) and the run's selected elements mod 16; whether the run has
// selected anything is read from the first count (a run that began at this piece), known (a run going on into
// piece j >= 2: piece j - 1 had non-empty registers), or a third count (KD = DA = 1: the tile's run going on into
// piece 1 from its unchecked probe piece). Stages from the returned base: start[j] (a run starts at piece j >= 1:
// after the verified blend bailed on piece j - 1) base + j - 1, cont[j] (the run goes on into piece j)
// base + nb - 1 + j - 1, compact_skip after piece k (0 .. nb - 2) base + 2 (nb - 1) + k.
// A piece of the one-pass detour over blocks [b0, b1) (expand charged per block, e4): its counter holds the non-empty
// registers (Ctr::KR, saturated at T, the least count that goes on: returned), KD flag counts and the residue; the
// caller sets where the run starts, whether it has selected anything, and the route.
size_t detour_piece(Stage& p, const Rules& r, double e4, size_t b0, size_t b1, size_t KD) {
  p.b0 = b0, p.b1 = b1, p.s = Strategy::detour, p.e4 = e4;
  const size_t T = Rules::least_not_below(4 * (b1 - b0), r.o.v6_reg);
  p.ctr.K = 0, p.ctr.KB = std::max<size_t>(T, 1), p.ctr.KR = true, p.ctr.KD = KD, p.ctr.DA = 1;
  return T;
}

size_t add_detour_pass(TileModel& t, const Rules& r, const CostModel& m, Fn f, const V6Pieces& vp) {
  const size_t nb = vp.nb, lb = vp.lb, base = t.stages.size();
  const double e4 = 4 * terms(m, f, Strategy::detour).expand_any;
  for (int start = 1; start >= 0; --start)
    for (size_t j = 1; j < nb; ++j) {
      // Whether the run has selected anything: a run starting here has iff its first count is above 0; one going
      // on into piece j >= 2 has (piece j - 1 had non-empty registers); into piece 1, a flag (the tile's run).
      const bool flag = !start && j == 1;
      const size_t KD = flag ? 1 : 0;
      Stage p;
      const size_t T = detour_piece(p, r, e4, j * lb, vp.end(j), KD);
      p.run_start = start, p.run_b0 = start ? j * lb : 0;
      p.any_from = start ? Stage::Any::first : flag ? Stage::Any::third : Stage::Any::always;
      p.route = [=](size_t c, const Emit& emit) {
        if (j + 1 == nb) return emit(-1, 0, 0.0);
        if (c / 16 / (KD + 1) < T) return emit(static_cast<int>(base + 2 * (nb - 1) + j), 0, 0.0);
        emit(static_cast<int>(base + nb - 1 + j), c % 16, 0.0);
      };
      t.stages.push_back(p);
    }
  add_fallbacks(t, vp);
  return base;
}

// pilot_v6's one-pass detour from the tile's start, whose probe covers its first pb blocks: the probe's stage (the
// run's head, counting selected elements: counter K at least Kp), the rest of piece 0 past the probe when the probe
// ends inside it (checked), then add_detour_pass's cont[1].
void add_detour_tile(TileModel& t, const Rules& r, const CostModel& m, Fn f, size_t blocks, size_t pb,
                     const std::function<long long(size_t)>& member, size_t Kp) {
  const V6Pieces vp(r, blocks);
  const size_t nb = vp.nb;
  const bool split = pb < vp.end(0);
  const size_t head = t.stages.size(), base = head + (split ? 2 : 1);
  const size_t cont1 = base + nb - 1, stop0 = base + 2 * (nb - 1);
  const double e4 = 4 * terms(m, f, Strategy::detour).expand_any;
  // Into cont[1] (its counter: first count 0, the flag, the residue) after a count c with the flag `any`.
  const auto into_cont1 = [=](bool any, size_t c, const Emit& emit) {
    emit(static_cast<int>(cont1), 16 * (any ? 1 : 0) + c % 16, 0.0);
  };
  Stage a;
  a.b0 = 0, a.b1 = split ? pb : vp.end(0), a.s = Strategy::detour, a.e4 = e4, a.any_from = Stage::Any::count;
  a.ctr.K = std::max<size_t>(Kp, 1);
  if (split) {
    a.route = [=](size_t c, const Emit& emit) {
      if (member(c)) emit(static_cast<int>(head + 1), 16 * (c > 0) + c % 16, 0.0);
    };
    t.stages.push_back(a);
    Stage b;  // the rest of piece 0, past the probe: its registers checked
    const size_t T = detour_piece(b, r, e4, pb, vp.end(0), 1);
    b.run_start = false, b.any_from = Stage::Any::third;
    b.route = [=](size_t c, const Emit& emit) {
      if (nb == 1) return emit(-1, 0, 0.0);
      if (c / 16 / 2 < T) return emit(static_cast<int>(stop0), 0, 0.0);
      into_cont1(c / 16 % 2 > 0, c, emit);
    };
    t.stages.push_back(b);
  } else {
    a.route = [=](size_t c, const Emit& emit) {  // no block past the probe: no check
      if (!member(c)) return;
      if (nb == 1) return emit(-1, 0, 0.0);
      into_cont1(c > 0, c, emit);
    };
    t.stages.push_back(a);
  }
  add_detour_pass(t, r, m, f, vp);
}

// pilot_v6's verified blend for a tile of `blocks` blocks whose probe covers its first pb blocks: blend piece by
// piece in V6Pieces; after a piece but the last whose count is below its least non-bailing count (the floor
// v6_bail * d_max), the one-pass detour from the next piece on (add_detour_pass's start[k + 1]) when that
// count is at least v6_lo of the piece, else compact_skip (its stage after piece k). The probe's stage is the head
// of piece 0 (the same run), keeping the count.
void add_verified_v6(TileModel& t, const Rules& r, const CostModel& m, Fn f, size_t blocks, size_t pb,
                     const std::function<long long(size_t)>& member, size_t Kp) {
  const V6Pieces vp(r, blocks);
  const size_t nb = vp.nb, lb = vp.lb;
  const Strategy s = Strategy::blend_skip_verified;
  const double floor = std::min(r.o.v6_bail * r.dm, 1.0);  // a full piece never bails
  const size_t thr = Rules::least_not_below(vp.len, floor), need = vp.need(floor);
  const size_t cthr = Rules::least_not_below(vp.len, r.o.v6_lo);  // a bailing piece below it: compact_skip
  const bool split = pb < vp.end(0);
  const size_t pieces_from = t.stages.size() + (split ? 2 : 1);  // piece k >= 1: stage pieces_from + k - 1
  const size_t detour_from = pieces_from + (nb - 1);             // after piece k bails: stage detour_from + k
  const auto after_piece = [=](size_t k) {
    return [=](size_t c, const Emit& emit) {
      if (k + 1 == nb) emit(-1, 0, 0.0);
      else if (c < thr && c < cthr) emit(static_cast<int>(detour_from + 2 * (nb - 1) + k), 0, 0.0);
      else if (c < thr) emit(static_cast<int>(detour_from + k), 0, 0.0);
      else emit(static_cast<int>(pieces_from + k), 0, 0.0);
    };
  };
  add_piece0(t, vp, s, pb, member, Kp, need, false, after_piece(0));
  for (size_t k = 1; k < nb; ++k) {
    Stage p;
    p.b0 = k * lb, p.b1 = vp.end(k), p.s = s, p.run_start = false;  // a blend piece continues the verified run
    p.ctr.K = k + 1 == nb ? 1 : need, p.ctr.residue = false;
    p.route = after_piece(k);
    t.stages.push_back(p);
  }
  add_detour_pass(t, r, m, f, vp);
}

// pilot_v6's one-pass compact for a tile of `blocks` blocks whose probe covers its first pb blocks: compact as one
// run (one packed pass) over V6Pieces until a piece but the last that has blocks past the probe and fewer than
// v6_floor of them non-empty; then compact_skip to the tile's end. Past the probe its counter holds two counts
// (Ctr::KB): the piece's non-empty blocks and the run's selected elements mod 16 (its packed pass's rounding),
// which crosses the pieces: each piece's stage starts from the residue the piece before it ended with.
void add_verified_compact(TileModel& t, const Rules& r, size_t blocks, size_t pb,
                          const std::function<long long(size_t)>& member, size_t Kp) {
  const V6Pieces vp(r, blocks);
  const size_t nb = vp.nb, lb = vp.lb;
  // The least count of non-empty blocks among `past` (> 0) that does not stop the run (the kernels' expression).
  const double floor = r.dm < r.o.v6_band ? r.o.v6_floor : r.o.v6_dear_floor;  // a cheap f's, a dear f's
  const auto need_of = [floor](size_t past) { return Rules::least_not_below(past, floor); };
  const size_t T = need_of(lb);
  const bool split = pb < vp.end(0);
  const size_t head = t.stages.size();
  // Piece k in 1 .. nb-2: stage mid_from + k - 1; the last piece: last_stage; after a stop at the end of piece k:
  // fallback_from + k.
  const size_t mid_from = head + (split ? 2 : 1);
  const size_t last_stage = nb > 1 ? mid_from + (nb - 2) : 0;
  const size_t fallback_from = last_stage + 1;
  // After piece k with `nonempty` of its blocks past the probe non-empty (`need` to go on) and the run's residue r1.
  // A cheap f's (a dense cut's) counter holds a third count: whether a block has at least v6_dense_block selected
  // (above 16: never; KD 0, no third count).
  const size_t KD = dense_cut(r) && r.o.v6_dense_block <= 16 ? 1 : 0;
  const unsigned DA = static_cast<unsigned>(std::min<size_t>(r.o.v6_dense_block, 17));
  // After a full-block end at piece k: add_dense_cut's blend_skip after piece k (its base is fallback_from, below).
  const size_t dense_from = fallback_from + 2 * (nb - 1);
  const auto next = [=](size_t k, size_t first, size_t need, size_t r1, const Emit& emit) {
    if (k + 1 == nb) return emit(-1, 0, 0.0);
    const size_t nonempty = first / (KD + 1), dense = first % (KD + 1);
    if (KD && dense >= KD) return emit(static_cast<int>(dense_from + k), 0, 0.0);
    if (nonempty < need) return emit(static_cast<int>(fallback_from + k), 0, 0.0);
    if (k + 2 == nb) return emit(static_cast<int>(last_stage), r1, 0.0);
    emit(static_cast<int>(mid_from + k), r1, 0.0);
  };
  Stage a;  // the probe: counts selected elements for the branch (and the residue)
  a.b0 = 0, a.b1 = split ? pb : vp.end(0), a.s = Strategy::compact;
  a.ctr.K = Kp;
  if (split) {
    a.route = [=](size_t c, const Emit& emit) {
      if (member(c)) emit(static_cast<int>(head + 1), c % 16, 0.0);
    };
    t.stages.push_back(a);
    const size_t need0 = need_of(vp.end(0) - pb);
    Stage b;  // the rest of piece 0, past the probe
    b.b0 = pb, b.b1 = vp.end(0), b.s = Strategy::compact, b.run_start = false;
    b.ctr.K = 0, b.ctr.KB = std::max<size_t>(need0, 1), b.ctr.KD = KD, b.ctr.DA = DA;
    b.route = [=](size_t c, const Emit& emit) { next(0, c / 16, need0, c % 16, emit); };
    t.stages.push_back(b);
  } else {
    a.route = [=](size_t c, const Emit& emit) {
      if (member(c)) next(0, 0, 0, c % 16, emit);  // no block past the probe: no check
    };
    t.stages.push_back(a);
  }
  for (size_t k = 1; k + 1 < nb; ++k) {
    Stage p;
    p.b0 = k * lb, p.b1 = vp.end(k), p.s = Strategy::compact, p.run_start = false;
    p.ctr.K = 0, p.ctr.KB = std::max<size_t>(T, 1), p.ctr.KD = KD, p.ctr.DA = DA;
    p.route = [=](size_t c, const Emit& emit) { next(k, c / 16, T, c % 16, emit); };
    t.stages.push_back(p);
  }
  if (nb > 1) {
    Stage p;
    p.b0 = (nb - 1) * lb, p.b1 = blocks, p.s = Strategy::compact, p.run_start = false;
    p.ctr.K = 1;
    p.route = [](size_t, const Emit& emit) { emit(-1, 0, 0.0); };
    t.stages.push_back(p);
  }
  // After a stop at the end of piece k: compact_skip, for a cheap f cut (add_dense_cut's start[k + 1] is at
  // fallback_from + k, where add_fallbacks puts its stage k).
  if (dense_cut(r))
    add_dense_cut(t, r, vp);
  else
    add_fallbacks(t, vp);
}

// pilot_v6's tile when d_max < 0 (no probe): the switch score, a stage per block and mode (blend_skip starting a
// run, blend_skip going on, blend; the blend stage of a counted block is blend_verified), each counting whether its
// block is non-empty on top of what its route was handed: 4 * score + 2 * (the block before in the run, or the last
// counted block, was empty), so index = 4 * score + 2 * last empty + this block non-empty (Ctr K exact up to
// 4 * (max threshold + 1)). The score is clamped at the threshold that ends the mode (what the kernels do at or
// above it is the same). The tile starts in blend_skip (mode 0) or blend (mode 1), the mode the tile before ended in;
// its exit label is the mode it ends in (the chain's state, Chain::v6_mode). The stages of the other mode's first
// block are made empty (b1 = b0 = 0): entered, never stepped.
void add_switch_score(TileModel& t, const Rules& r, size_t blocks, int mode) {
  const long sw = static_cast<long>(r.o.v6_score_switch);
  const long to_blend = static_cast<long>(r.o.v6_score_blend), to_skip = static_cast<long>(r.o.v6_score_skip);
  const long again = std::max(0L, to_blend - sw);
  const size_t sample = r.o.v6_score_sample, G = blocks;
  t.labels = 2;
  const auto skip_at = [](size_t g, bool start) { return 3 * g + (start ? 0 : 1); };
  const auto blend_at = [](size_t g) { return 3 * g + 2; };
  t.stages.resize(3 * G);
  const size_t K = 4 * static_cast<size_t>(std::max(to_blend, to_skip) + 1);
  for (size_t g = 0; g < G; ++g) {
    for (const bool start : {true, false}) {
      Stage p;
      p.b0 = g, p.b1 = g + 1, p.s = Strategy::blend_skip, p.run_start = start, p.count_blocks = true;
      p.ctr.K = K, p.ctr.residue = false;
      if (g == 0 && (!start || mode != 0)) p.b1 = 0;
      p.route = [=](size_t i, const Emit& emit) {
        const long score = static_cast<long>(i / 4);
        const bool before = start ? false : (i / 2) % 2, empty = i % 2 == 0;
        const long next = std::min(to_blend, std::max(0L, score + (empty != before ? sw : 0) - (empty ? 1 : 0)));
        if (g + 1 == G) return emit(-1, 0, 0.0);
        if (next >= to_blend) return emit(static_cast<int>(blend_at(g + 1)), 2 * empty, 0.0);
        emit(static_cast<int>(skip_at(g + 1, false)), 4 * static_cast<size_t>(next) + 2 * empty, 0.0);
      };
      t.stages[skip_at(g, start)] = p;
    }
    Stage b;
    const bool counted = g % sample == sample - 1;
    b.b0 = g, b.b1 = g + 1, b.s = counted ? Strategy::blend_verified : Strategy::blend, b.count_blocks = true;
    b.ctr.K = K, b.ctr.residue = false;
    if (g == 0 && mode != 1) b.b1 = 0;
    b.route = [=](size_t i, const Emit& emit) {
      long score = static_cast<long>(i / 4);
      bool last = (i / 2) % 2;
      const bool empty = i % 2 == 0;
      if (counted) score = std::min(to_skip, std::max(0L, score + (empty ? 1 : 0) - (empty != last ? sw : 0))), last = empty;
      if (g + 1 == G) return emit(-2, 0, 0.0);
      if (score >= to_skip) return emit(static_cast<int>(skip_at(g + 1, true)), 4 * static_cast<size_t>(again), 0.0);
      emit(static_cast<int>(blend_at(g + 1)), 4 * static_cast<size_t>(score) + 2 * last, 0.0);
    };
    t.stages[blend_at(g)] = b;
  }
}

// pilot_v6's tile for a cheap f with v6_cs (no probe): the compact score, the bound's own copy of the rule
// (docs/pilot_v6.md). A stage per block and mode: compact (its counter a state machine over 16 (2 score + last) +
// the run's residue mod 16: what the packed pass's rounding needs), blend_skip starting a run, blend_skip going on
// (2 score + last; a counted block's stage is blend_skip_verified, a non-empty block alone in its run). The score
// is clamped at the threshold that ends the mode (what the kernels do at or above it is the same). The tile starts
// in compact (mode 0) or blend_skip (mode 1), the mode the tile before ended in, and exits with the mode it ends in
// (Chain::v6_mode); the stages of the other mode's first block are made empty: entered, never stepped.
bool compact_score(const Rules& r) { return r.pilot == Kernel::pilot_v6 && r.hi >= 0 && r.dm < r.o.v6_band && r.o.v6_cs; }
void add_compact_score(TileModel& t, const Rules& r, size_t blocks, int mode) {
  using L = long long;
  const PilotOptions& o = r.o;
  const L E = static_cast<L>(o.v6_cs_empty), S = static_cast<L>(o.v6_cs_switch), N = static_cast<L>(o.v6_cs_block);
  const L R = static_cast<L>(o.v6_cs_reg), A = static_cast<L>(o.v6_cs_elem);
  const L TA = static_cast<L>(o.v6_cs_to_skip), TB = static_cast<L>(o.v6_cs_to_compact);
  const L SAMP = static_cast<L>(o.v6_cs_sample), PA = static_cast<L>(o.v6_cs_probation);
  const auto compact_next = [&](L score, bool last, L a) {
    const bool e = a == 0;
    return std::clamp(score + (e ? E : -N + R * std::min<L>(a, 4) + A * a) - (e != last ? S : 0), L{0}, TA);
  };
  const auto skip_next = [&](L score, bool last, L a, bool counted) {
    const bool e = a == 0;
    const L d = e ? -E : counted ? SAMP * (N - R * std::min<L>(a, 4) - A * a) : 0;
    return std::clamp(score + d + (e != last ? S : 0), L{0}, TB);
  };
  // Compact: i = 16 (2 score + last) + residue. blend_skip: i = 2 score + last.
  auto ta = std::make_shared<std::vector<size_t>>(static_cast<size_t>(TA + 1) * 32 * 17);
  for (size_t i = 0; i < ta->size() / 17; ++i)
    for (unsigned a = 0; a <= 16; ++a) {
      const L score = static_cast<L>(i / 32);
      const bool last = (i / 16) % 2;
      (*ta)[17 * i + a] = static_cast<size_t>(compact_next(score, last, a)) * 32 + (a == 0 ? 16 : 0) + (i % 16 + a) % 16;
    }
  std::array<std::shared_ptr<std::vector<size_t>>, 2> tb;
  for (const bool counted : {false, true}) {
    tb[counted] = std::make_shared<std::vector<size_t>>(static_cast<size_t>(TB + 1) * 2 * 17);
    for (size_t i = 0; i < tb[counted]->size() / 17; ++i)
      for (unsigned a = 0; a <= 16; ++a)
        (*tb[counted])[17 * i + a] = static_cast<size_t>(skip_next(static_cast<L>(i / 2), i % 2, a, counted)) * 2 + (a == 0);
  }
  const size_t G = blocks, sample = o.v6_cs_sample;
  t.labels = 2;
  const auto compact_at = [](size_t g) { return 3 * g; };
  const auto skip_at = [](size_t g, bool start) { return 3 * g + (start ? 1 : 2); };
  t.stages.resize(3 * G);
  for (size_t g = 0; g < G; ++g) {
    Stage c;
    c.b0 = g, c.b1 = g + 1, c.s = Strategy::compact, c.run_start = false;
    c.ctr.next = ta;
    if (g == 0 && mode != 0) c.b1 = 0;
    c.route = [=](size_t i, const Emit& emit) {
      if (g + 1 == G) return emit(-1, 0, 0.0);
      if (static_cast<L>(i / 32) >= TA) return emit(static_cast<int>(skip_at(g + 1, true)), 0, 0.0);
      emit(static_cast<int>(compact_at(g + 1)), i, 0.0);
    };
    t.stages[compact_at(g)] = c;
    const bool counted = g % sample == sample - 1;
    for (const bool start : {true, false}) {
      Stage p;
      p.b0 = g, p.b1 = g + 1, p.run_start = start;
      p.s = counted ? Strategy::blend_skip_verified : Strategy::blend_skip, p.alone_if_full = counted;
      p.ctr.next = tb[counted];
      if (g == 0 && (!start || mode != 1)) p.b1 = 0;
      p.route = [=](size_t i, const Emit& emit) {
        if (g + 1 == G) return emit(-2, 0, 0.0);
        if (static_cast<L>(i / 2) >= TB) return emit(static_cast<int>(compact_at(g + 1)), static_cast<size_t>(PA) * 32, 0.0);
        emit(static_cast<int>(skip_at(g + 1, false)), i, 0.0);
      };
      t.stages[skip_at(g, start)] = p;
    }
  }
}

// The stages of one tile of `blocks` blocks. mode 0: v1 (no probe) or judged by the probe; mode 1 + k: v4 judged
// by prev of class k. Labels: v4 probe mode 0 = no bail, 1 + k = bailed with the rest's class k; v4 prev mode: the
// class of the tile's count (or k when it does not update prev); else 0.
TileModel build_tile(const Rules& r, const Classes& cl, const CostModel& m, Fn f, size_t blocks, int mode) {
  TileModel t;
  t.blocks = blocks;
  const size_t size = blocks * 16;
  const bool v4 = r.pilot == Kernel::pilot_v4;
  const CostModel* mm = &m;  // lives in the Setting, as the routes do
  const auto expand_extra = [mm, f](Strategy s, size_t run_blocks, size_t c) {
    return c > 0 ? static_cast<double>(run_blocks) * 4 * terms(*mm, f, s).expand_any : 0.0;
  };
  // pilot_v6 when d_max < 0: no probe, the switch score from the mode the tile before ended in.
  if (r.pilot == Kernel::pilot_v6 && r.hi < 0) {
    add_switch_score(t, r, blocks, mode);
    return t;
  }
  if (compact_score(r)) {
    add_compact_score(t, r, blocks, mode);
    return t;
  }
  if (r.pilot == Kernel::pilot_v1 || mode > 0) {
    Strategy s;
    bool updates = false;
    int keep = 0;
    if (mode == 0) {
      s = r.dm < 0 ? Strategy::blend : Strategy::detour;
    } else {
      keep = mode - 1;
      std::tie(s, updates) = cl.keys[static_cast<size_t>(keep)];
      t.labels = cl.keys.size();
    }
    Stage st;
    st.b0 = 0, st.b1 = blocks, st.s = s;
    st.ctr.K = updates ? cap_for(size, 1, [&](size_t c) { return cl.cls(r.scaled(c, size)); }) : 1;
    st.route = [=, &cl](size_t c, const Emit& emit) {
      emit(-1 - (updates ? cl.cls(r.scaled(c, size)) : keep), 0, expand_extra(s, blocks, c));
    };
    t.stages.push_back(st);
    return t;
  }

  // Judged by the probe.
  const size_t plen = std::min(r.o.probe, size), pb = plen / 16;
  t.init = probe_cost(m, plen);
  if (v4) t.labels = 1 + cl.keys.size();
  std::vector<int> outcomes;
  for (size_t c = 0; c <= plen; ++c) {
    const int oc = r.probe_outcome(r.scaled_probe(c, plen));
    if (std::find(outcomes.begin(), outcomes.end(), oc) == outcomes.end()) outcomes.push_back(oc);
  }
  for (const int oc : outcomes) {
    const auto member = [=](size_t c) { return static_cast<long long>(r.probe_outcome(r.scaled_probe(c, plen)) == oc); };
    const size_t Kp = cap_for(plen, 1, member);
    if (r.pilot == Kernel::pilot_v6 && oc == kVerified) {
      add_verified_v6(t, r, m, f, blocks, pb, member, Kp);
      continue;
    }
    if (oc == kVerifiedDetour) {
      add_detour_tile(t, r, m, f, blocks, pb, member, Kp);
      continue;
    }
    if (oc == kVerifiedCompact) {
      add_verified_compact(t, r, blocks, pb, member, Kp);
      continue;
    }
    // A cheap f's compact_skip over the tile: the probe's stage and the rest of piece 0 (never checked), then the
    // cut compact_skip's run going on into piece 1.
    if (oc == static_cast<int>(Strategy::compact_skip) && dense_cut(r) && V6Pieces(r, blocks).nb > 1) {
      const V6Pieces vp(r, blocks);
      const bool split = pb < vp.end(0);
      const size_t cont1 = t.stages.size() + (split ? 2 : 1) + vp.nb - 1;  // add_dense_cut's cont[1], after piece 0
      add_piece0(t, vp, Strategy::compact_skip, pb, member, Kp, 1, true,
                 [=](size_t c, const Emit& emit) { emit(static_cast<int>(cont1), c % 16, 0.0); });
      add_dense_cut(t, r, vp);
      continue;
    }
    if (oc != kVerified) {
      const Strategy s = static_cast<Strategy>(oc);
      const size_t head = t.stages.size();
      Stage a;
      a.b0 = 0, a.b1 = pb, a.s = s;
      a.ctr.K = Kp;
      if (pb == blocks) {
        a.route = [=](size_t c, const Emit& emit) {
          if (member(c)) emit(-1, 0, expand_extra(s, blocks, c));
        };
        t.stages.push_back(a);
        continue;
      }
      a.route = [=](size_t c, const Emit& emit) {
        if (member(c)) emit(static_cast<int>(head + 1), c, 0.0);
      };
      Stage b;
      b.b0 = pb, b.b1 = blocks, b.s = s, b.run_start = false;
      b.ctr.K = 1;
      b.route = [=](size_t c, const Emit& emit) { emit(-1, 0, expand_extra(s, blocks, c)); };
      t.stages.push_back(a), t.stages.push_back(b);
      continue;
    }
    // The verified blend: pieces of len (the last one to the tile's end), each but the last may bail.
    const size_t vb = r.o.verify_blocks;
    const size_t len = size / vb ? size / vb : size, nb = size / vb ? vb : 1, lb = len / 16;
    const size_t thr = r.no_bail_from(len);
    // Stage indices: head = probe part of piece 0, then piece 0's rest (when the probe ends inside it), then
    // pieces 1 .. nb-1, then the detour after a bail at the end of piece k (k < nb - 1).
    const size_t head = t.stages.size();
    const bool split = pb < (nb == 1 ? blocks : lb);
    const size_t first_piece = head + (split ? 1 : 0);  // the stage that ends piece 0
    const size_t pieces_from = first_piece + 1;          // piece k >= 1 is stage pieces_from + k - 1
    const size_t detours_from = pieces_from + (nb - 1);  // bail after piece k: stage detours_from + k
    const auto piece_end = [=](size_t k) { return k + 1 == nb ? blocks : (k + 1) * lb; };
    const auto after_piece = [=](size_t k) {
      // Where piece k's count goes at its end (the last piece never bails).
      return [=, &cl](size_t c, const Emit& emit) {
        if (k + 1 == nb) {
          emit(-1, 0, 0.0);
        } else if (c < thr) {
          emit(static_cast<int>(detours_from + k), 0, 0.0);
        } else {
          emit(static_cast<int>(pieces_from + k), 0, 0.0);
        }
        (void)cl;
      };
    };
    const size_t last_need = nb == 1 ? 0 : thr;  // piece 0's count is read at its end unless it is the last
    Stage a;
    a.b0 = 0, a.b1 = pb, a.s = Strategy::blend_verified;
    a.ctr.K = std::max<size_t>({Kp, last_need, 1});
    a.ctr.residue = false;
    if (split) {
      a.route = [=](size_t c, const Emit& emit) {
        if (member(c)) emit(static_cast<int>(head + 1), c, 0.0);
      };
      t.stages.push_back(a);
      Stage b;
      b.b0 = pb, b.b1 = piece_end(0), b.s = Strategy::blend_verified, b.run_start = false;
      b.ctr.K = std::max<size_t>(last_need, 1), b.ctr.residue = false;
      b.route = after_piece(0);
      t.stages.push_back(b);
    } else {
      const auto next = after_piece(0);
      a.route = [=](size_t c, const Emit& emit) {
        if (member(c)) next(c, emit);
      };
      t.stages.push_back(a);
    }
    for (size_t k = 1; k < nb; ++k) {
      Stage p;
      p.b0 = k * lb, p.b1 = piece_end(k), p.s = Strategy::blend_verified, p.run_start = false;
      p.ctr.K = k + 1 == nb ? 1 : std::max<size_t>(thr, 1), p.ctr.residue = false;
      p.route = after_piece(k);
      t.stages.push_back(p);
    }
    for (size_t k = 0; k + 1 < nb; ++k) {
      Stage d;
      d.b0 = piece_end(k), d.b1 = blocks, d.s = Strategy::detour;
      const size_t rest = size - 16 * d.b0, run_blocks = blocks - d.b0;
      d.ctr.K = v4 ? cap_for(rest, 1, [&](size_t c) { return cl.cls(r.scaled(c, rest)); }) : 1;
      d.route = [=, &cl](size_t c, const Emit& emit) {
        emit(v4 ? -2 - cl.cls(r.scaled(c, rest)) : -1, 0, expand_extra(Strategy::detour, run_blocks, c));
      };
      t.stages.push_back(d);
    }
  }
  return t;
}

// What a block costs the oracle by its run, and the pilot by its stage (StrategyTerms of cost_model.h, per
// block of 4 registers, as regret.cpp's oracle_dp and BlockCosts::run_cost charge them).
struct Costs {
  StrategyTerms blend, bskip, win[4];
  double C4, M;
  Costs(const CostModel& m, Fn f) : blend(terms(m, f, Strategy::blend)), bskip(terms(m, f, Strategy::blend_skip)) {
    for (size_t k = 0; k < 4; ++k) win[k] = terms(m, f, kWin[k]);
    C4 = 4 * m.C, M = m.M;
  }
  // The least any block costs the oracle (every term below is >= it): O(x) >= blocks x this.
  double min_block() const {
    double v = std::min({blend.full, bskip.empty, bskip.full, C4});
    for (const StrategyTerms& t : win) v = std::min({v, t.empty + 4 * t.expand_any, t.full + 4 * t.expand_any});
    return v;
  }
};

struct Block {
  uint8_t a = 0, ne = 0;
};

// The value arrays of stages that have ended, handed to stages that start later, to the next run and to the next
// tile program. A tile program may have a stage per block (pilot_v6's switch score: 2 x 256), each array up to
// NO x 2 x its counter's size; allocated afresh, every page of every array was a page fault, and zeroing them took
// as long as the program itself (sys time 42 % of sqrt's bound).
class ArrPool {
 public:
  // v sized n, every value kNeg, on a recycled array when v's own is too small: the smallest that holds n (a
  // fresh allocation's pages fault in one by one; handing out whichever array came last cost sin35's bound half its
  // time). When none holds n, v grows and the pool keeps its arrays.
  void fill(std::vector<double>& v, size_t n) {
    if (v.capacity() < n) {
      size_t best = free_.size();
      for (size_t k = 0; k < free_.size(); ++k)
        if (free_[k].capacity() >= n && (best == free_.size() || free_[k].capacity() < free_[best].capacity())) best = k;
      if (best < free_.size()) {
        std::swap(v, free_[best]);
        if (free_[best].capacity() == 0) {
          if (best + 1 != free_.size()) free_[best] = std::move(free_.back());
          free_.pop_back();
        }
      }
    }
    v.assign(n, kNeg);
  }
  void give(std::vector<double>& v) {
    if (v.capacity() != 0) free_.push_back(std::move(v));
    v = {};
  }

 private:
  std::vector<std::vector<double>> free_;
};

// One tile's dynamic program, for one entry boundary state (END / BS, previous block empty), giving the best
// value per exit (boundary state x label); with witness, also the blocks of the best path to `want`.
class TileDP {
 public:
  // forced: the tile's blocks when the adversary's choice is fixed (bound_objective_of), else null.
  TileDP(const TileModel& t, const Costs& c, const CostModel& m, Fn f, double lambda, ArrPool& pool,
         const Block* forced = nullptr)
      : t_(t), c_(c), lambda_(lambda), forced_(forced), pool_(pool) {
    for (const Stage& s : t_.stages) pilot_.push_back(terms(m, f, s.s));
  }
  TileDP(const TileDP&) = delete;
  TileDP& operator=(const TileDP&) = delete;
  ~TileDP() {  // the witness's kept arrays go back to the pool, for the next tile's witness
    for (auto* kept : {&post_, &pre_})
      for (Kept& k : *kept)
        for (auto& sa : k) pool_.give(sa.second.v);
  }
  std::vector<double> run(size_t entry, bool keep = false);
  std::vector<Block> backtrack(size_t exit_index);

 private:
  struct Arr {
    std::vector<double> v;  // [(o * 2 + pe) * L + i]
    bool alive[NO][2] = {};
  };
  const TileModel& t_;
  const Costs& c_;
  double lambda_;
  const Block* forced_;
  ArrPool& pool_;
  std::vector<StrategyTerms> pilot_;
  // step's scratch (reused: step runs once per stage and block).
  mutable std::vector<double> any_, gi_;
  // The counter's map i -> add(i) for one block's count, as maximal runs with add(i0 + k) = t0 + k: each move's
  // update is then a contiguous loop per run (vectorized) instead of a scatter through an index per counter value
  // (the bound's hot loop).
  struct Run {
    size_t i0, len, t0;
  };
  mutable std::vector<Run> runs_;
  struct Move {
    int from;  // a source oracle state, or -1: the best over all (a new run)
    size_t o2;
    double ob, onr;
  };
  mutable std::vector<Move> moves_;
  bool keep_ = false;
  // Kept for the witness, per boundary j: the live stages' arrays (post_: before block j, pre_: the stages ending
  // at j before they route), in stage order. Only the live ones: a stage per block made a dense table of every
  // stage at every boundary the witness's whole cost.
  using Kept = std::vector<std::pair<size_t, Arr>>;
  std::vector<Kept> post_, pre_;
  static const Arr& kept(const Kept& k, size_t si) {
    for (const auto& [s, a] : k)
      if (s == si) return a;
    throw std::logic_error("maskapply bound: no kept array for a stage on the witness's path");
  }
  std::vector<double> exits_;
  // run's scratch: a stage's routes per counter value (route_at_[i] .. route_at_[i + 1] in routed_).
  struct Routed {
    int target;    // >= 0 a stage, < 0 an exit (-1 - label)
    size_t index;  // a stage's: the routed count's index in its counter (Ctr::from_count)
    size_t size;   // a stage's: its counter's size
    double extra;
  };
  std::vector<Routed> routed_;
  std::vector<size_t> route_at_;

  void step(size_t si, size_t j, const Arr& in, Arr& out) const;
  // The moves into oracle state o2 (calls fn(source o or -1 for "any ended", oracle cost without ne, oracle
  // ne coefficient)). Sources: END: blend from any; BS: continue or new; DE (empty): continue or new; W.
  template <class Fn2>
  void moves(unsigned a, bool pe, Fn2&& fn) const;
  double pilot_block(size_t si, size_t j, unsigned a, bool pe, unsigned ne) const {
    const Stage& s = t_.stages[si];
    const StrategyTerms& p = pilot_[si];
    const bool e = a == 0, pe_eff = (s.run_start && j == s.b0) || (s.alone_if_full && !e) ? false : pe;
    return (e ? p.empty : p.full) + ne * p.nonempty_reg + (e != pe_eff ? p.sw : 0.0);
  }
};

template <class Fn2>
void TileDP::moves(unsigned a, bool pe, Fn2&& fn) const {
  const bool e = a == 0;
  const double M = c_.M;
  fn(-1, END, c_.blend.full, 0.0);
  fn(-1, BS, (e ? c_.bskip.empty : c_.bskip.full) + (e ? M : 0.0), 0.0);
  fn(static_cast<int>(BS), BS, (e ? c_.bskip.empty : c_.bskip.full) + (e != pe ? M : 0.0), 0.0);
  if (e) fn(-1, DE, c_.C4, 0.0), fn(static_cast<int>(DE), DE, c_.C4, 0.0);
  for (size_t k = 0; k < 4; ++k) {
    const StrategyTerms& w = c_.win[k];
    const double base = (e ? w.empty : w.full) + 4 * w.expand_any;
    fn(-1, W + 16 * k + a % 16, base + (e ? w.sw : 0.0) + w.group * inc(0, a), w.nonempty_reg);
    for (unsigned r = 0; r < 16; ++r)
      fn(static_cast<int>(W + 16 * k + r), W + 16 * k + (r + a) % 16,
         base + (e != pe ? w.sw : 0.0) + w.group * inc(r, a), w.nonempty_reg);
  }
}

void TileDP::step(size_t si, size_t j, const Arr& in, Arr& out) const {
  const Stage& s = t_.stages[si];
  const Ctr& ct = s.ctr;
  const size_t L = ct.size();
  pool_.fill(out.v, NO * 2 * L);
  for (auto& x : out.alive) x[0] = x[1] = false;
  std::vector<double>& any = any_;  // the best over oracle states: where a new run may start
  any.assign(2 * L, kNeg);
  bool any_alive[2] = {false, false};
  for (size_t o = 0; o < NO; ++o)
    for (int pe = 0; pe < 2; ++pe) {
      if (!in.alive[o][pe]) continue;
      any_alive[pe] = true;
      const double* src = in.v.data() + (o * 2 + pe) * L;
      double* d = any.data() + pe * L;
      for (size_t i = 0; i < L; ++i) d[i] = std::max(d[i], src[i]);
    }
  const StrategyTerms& p = pilot_[si];
  std::vector<double>& gi = gi_;
  std::vector<Run>& runs = runs_;
  std::vector<Move>& mv = moves_;
  gi.resize(L);
  for (unsigned a = 0; a <= 16; ++a) {
    if (forced_ && forced_[j].a != a) continue;
    const unsigned ca = s.counted(a);
    const unsigned ne_lo = (a + 3) / 4, ne_hi = std::min(4u, a);
    const bool e = a == 0;
    for (size_t i = 0; i < L; ++i) gi[i] = (p.group != 0 ? p.group * inc(ct.res(i), a) : 0.0) + s.expand(i, a, j);
    // The moves of both previous-block states (the same sources and targets in the same order; only their costs
    // differ), each move's two in a row: the target array is written twice while it is in cache.
    mv.clear();
    for (int pe = 0; pe < 2; ++pe)
      moves(a, pe, [&](int from, size_t o2, double ob, double onr) { mv.push_back({from, o2, ob, onr}); });
    const size_t half = mv.size() / 2;
    for (size_t m = 0; m < half; ++m)
      if (mv[m].from != mv[half + m].from || mv[m].o2 != mv[half + m].o2)
        throw std::logic_error("maskapply bound: the moves after an empty and a non-empty block differ in order");
    // A counter of non-empty registers reads the block's: every value in [ne_lo, ne_hi] is a choice of its own.
    // Else the costs are linear in it and no decision reads it: the extreme each move prefers.
    const unsigned r0 = !ct.KR ? 0 : forced_ ? forced_[j].ne : ne_lo, r1 = !ct.KR ? 0 : forced_ ? forced_[j].ne : ne_hi;
    for (unsigned rn = r0; rn <= r1; ++rn) {
      runs.clear();
      for (size_t i = 0; i < L; ++i) {
        const size_t t = ct.add(i, ca, rn);
        if (!runs.empty() && runs.back().t0 + runs.back().len == t)
          ++runs.back().len;
        else
          runs.push_back({i, 1, t});
      }
      for (size_t m = 0; m < half; ++m)
        for (int pe = 0; pe < 2; ++pe) {
          if (!any_alive[pe]) continue;
          const Move& mo = mv[pe * half + m];
          const double* src;
          if (mo.from < 0) {
            src = any.data() + pe * L;
          } else {
            if (!in.alive[mo.from][pe]) continue;
            src = in.v.data() + (static_cast<size_t>(mo.from) * 2 + pe) * L;
          }
          const double coef = p.nonempty_reg - lambda_ * mo.onr;
          const unsigned ne = ct.KR ? rn : forced_ ? forced_[j].ne : coef > 0 ? ne_hi : ne_lo;
          const double w = pilot_block(si, j, a, pe, ne) - lambda_ * (mo.ob + ne * mo.onr);
          double* dst = out.v.data() + (mo.o2 * 2 + e) * L;
          out.alive[mo.o2][e] = true;
          // Runs in any order: max is exact and commutative, so the result is the scatter's to the bit.
          for (const Run& r : runs) {
            double* __restrict ds = dst + r.t0;
            const double* __restrict sr = src + r.i0;
            const double* __restrict g = gi.data() + r.i0;
            for (size_t k = 0; k < r.len; ++k) {
              const double x = (sr[k] + g[k]) + w;
              ds[k] = ds[k] < x ? x : ds[k];
            }
          }
        }
    }
  }
}

std::vector<double> TileDP::run(size_t entry, bool keep) {
  keep_ = keep;
  const size_t G = t_.blocks, S = t_.stages.size();
  exits_.assign(4 * t_.labels, kNeg);
  std::vector<Arr> cur(S), nxt(S);
  std::vector<bool> live(S, false);
  if (keep) post_.assign(G + 1, {}), pre_.assign(G + 1, {});
  const size_t eo = entry / 2 ? BS : END;
  const bool epe = entry % 2;
  for (size_t si = 0; si < S; ++si) {
    const Stage& s = t_.stages[si];
    if (s.b0 != 0) continue;
    pool_.fill(cur[si].v, NO * 2 * s.ctr.size());
    cur[si].v[(eo * 2 + epe) * s.ctr.size() + s.ctr.from_count(0)] = t_.init;
    cur[si].alive[eo][epe] = true;
    live[si] = true;
  }
  for (size_t j = 0; j < G; ++j) {
    std::vector<bool> nlive(S, false), stepped(S, false);
    for (size_t si = 0; si < S; ++si) {
      if (!live[si] || t_.stages[si].b1 <= j) continue;
      step(si, j, cur[si], nxt[si]);
      stepped[si] = true;
      // The witness keeps the stage's state before block j (moved: step no longer needs it).
      if (keep) post_[j].emplace_back(si, std::move(cur[si]));
    }
    // Boundary j + 1: stages that end here route their counts; the others carry on.
    for (size_t si = 0; si < S; ++si)
      if (stepped[si] && t_.stages[si].b1 != j + 1) std::swap(cur[si], nxt[si]), nlive[si] = true;
    for (size_t si = 0; si < S; ++si) {
      if (!stepped[si]) continue;
      const Stage& s = t_.stages[si];
      if (s.b1 != j + 1) continue;
      const size_t L = s.ctr.size();
      // Where each counter value goes depends on the value alone, not on the oracle's state: the stage's routes
      // once per value (an Emit per call was a heap-allocated closure, a fifth of the bound's time), then applied
      // to every live oracle state. The targets' arrays are made live here, as the routes name them.
      routed_.clear(), route_at_.assign(L + 1, 0);
      const Emit collect = [this](int target, size_t count, double extra) {
        // A stage target's index in its array (per oracle state), and that array's length, once.
        const Ctr* tc = target >= 0 ? &t_.stages[static_cast<size_t>(target)].ctr : nullptr;
        routed_.push_back({target, tc ? tc->from_count(count) : 0, tc ? tc->size() : 0, extra});
      };
      for (size_t i = 0; i < L; ++i) {
        route_at_[i] = routed_.size();
        s.route(s.ctr.rep(i), collect);
      }
      route_at_[L] = routed_.size();
      for (size_t o = 0; o < NO; ++o)
        for (int pe = 0; pe < 2; ++pe) {
          if (!nxt[si].alive[o][pe]) continue;
          const size_t x = (o == BS ? 2 : 0) + pe;
          for (size_t i = 0; i < L; ++i) {
            const double v = nxt[si].v[(o * 2 + pe) * L + i];
            if (v == kNeg) continue;
            for (size_t q = route_at_[i]; q < route_at_[i + 1]; ++q) {
              const Routed& r = routed_[q];
              if (r.target < 0) {
                double& ex = exits_[x * t_.labels + static_cast<size_t>(-1 - r.target)];
                ex = std::max(ex, v + r.extra);
                continue;
              }
              const size_t ti = static_cast<size_t>(r.target);
              Arr& dst = cur[ti];
              if (!nlive[ti]) {
                pool_.fill(dst.v, NO * 2 * r.size);
                for (auto& y : dst.alive) y[0] = y[1] = false;
                nlive[ti] = true;
              }
              double& d = dst.v[(o * 2 + pe) * r.size + r.index];
              d = std::max(d, v + r.extra);
              dst.alive[o][pe] = true;
            }
          }
        }
      // The stage has ended: the witness keeps its state before routing; else its arrays go back to the pool.
      if (keep) pre_[j + 1].emplace_back(si, std::move(nxt[si]));
      pool_.give(nxt[si].v), pool_.give(cur[si].v);
    }
    live = nlive;
  }
  for (size_t si = 0; si < S; ++si) pool_.give(cur[si].v), pool_.give(nxt[si].v);
  return exits_;
}

std::vector<Block> TileDP::backtrack(size_t exit_index) {
  const size_t G = t_.blocks;
  const size_t label = exit_index % t_.labels, x = exit_index / t_.labels;
  std::vector<Block> out(G);
  // The state at boundary j (before routing when at a stage's end).
  size_t si = 0, o = 0, i = 0;
  int pe = 0;
  const auto best_route_into = [&](size_t j, auto accept) {  // over stages ending at j: the best pre-route state
    double best = kNeg;
    size_t bs = 0, bo = 0, bi = 0;
    int bpe = 0;
    for (const auto& kv : pre_[j]) {
      const size_t s2 = kv.first;  // not a structured binding: the lambda below captures it (clang 14)
      const Arr& arr = kv.second;
      const Stage& s = t_.stages[s2];
      if (s.b1 != j || arr.v.empty()) continue;
      const size_t L = s.ctr.size();
      for (size_t oo = 0; oo < NO; ++oo)
        for (int p = 0; p < 2; ++p) {
          if (!arr.alive[oo][p]) continue;
          for (size_t ii = 0; ii < L; ++ii) {
            const double v = arr.v[(oo * 2 + p) * L + ii];
            if (v == kNeg) continue;
            s.route(s.ctr.rep(ii), [&](int target, size_t count, double extra) {
              if (accept(target, count, oo, p) && v + extra > best) best = v + extra, bs = s2, bo = oo, bi = ii, bpe = p;
            });
          }
        }
    }
    si = bs, o = bo, i = bi, pe = bpe;
    return best;
  };
  best_route_into(G, [&](int target, size_t, size_t oo, int p) {
    return target == -1 - static_cast<int>(label) && ((oo == BS ? 2u : 0u) + static_cast<unsigned>(p)) == x;
  });
  for (size_t j = G; j-- > 0;) {
    // (si, o, pe, i) after block j (pre-route at j + 1). Find its predecessor at boundary j.
    const Stage& s = t_.stages[si];
    const Arr& in = kept(post_[j], si);
    const size_t L = s.ctr.size();
    const StrategyTerms& p = pilot_[si];
    double best = kNeg;
    size_t bo = 0, bi = 0;
    int bpe = 0;
    Block bb;
    for (unsigned a = 0; a <= 16; ++a) {
      if ((a == 0) != (pe == 1)) continue;
      const unsigned ne_lo = (a + 3) / 4, ne_hi = std::min(4u, a);
      const unsigned r0 = s.ctr.KR ? ne_lo : 0, r1 = s.ctr.KR ? ne_hi : 0;
      for (unsigned rn = r0; rn <= r1; ++rn)
      for (int ppe = 0; ppe < 2; ++ppe)
        moves(a, ppe, [&](int from, size_t o2, double ob, double onr) {
          if (o2 != o) return;
          const double coef = p.nonempty_reg - lambda_ * onr;
          const unsigned ne = s.ctr.KR ? rn : coef > 0 ? ne_hi : ne_lo;
          const double w = pilot_block(si, j, a, ppe, ne) - lambda_ * (ob + ne * onr);
          for (size_t ii = 0; ii < L; ++ii) {
            if (s.ctr.add(ii, s.counted(a), rn) != i) continue;
            const double g = (p.group != 0 ? p.group * inc(s.ctr.res(ii), a) : 0.0) + s.expand(ii, a, j);
            size_t src_o = 0;
            double sv = kNeg;
            if (from < 0) {
              for (size_t oo = 0; oo < NO; ++oo)
                if (in.alive[oo][ppe] && in.v[(oo * 2 + ppe) * L + ii] > sv) sv = in.v[(oo * 2 + ppe) * L + ii], src_o = oo;
            } else if (in.alive[from][ppe]) {
              sv = in.v[(static_cast<size_t>(from) * 2 + ppe) * L + ii], src_o = static_cast<size_t>(from);
            }
            if (sv == kNeg) continue;
            const double v = (sv + g) + w;
            if (v > best) best = v, bo = src_o, bi = ii, bpe = ppe, bb = Block{static_cast<uint8_t>(a), static_cast<uint8_t>(ne)};
          }
        });
    }
    out[j] = bb;
    o = bo, i = bi, pe = bpe;
    if (j > 0 && s.b0 == j) {  // the stage began here: find the route into it
      const size_t want_stage = si, want_o = o, want_i = i;
      const int want_pe = pe;
      best_route_into(j, [&](int target, size_t count, size_t oo, int pp) {
        return target == static_cast<int>(want_stage) && oo == want_o && pp == want_pe &&
               t_.stages[want_stage].ctr.from_count(count) == want_i;
      });
    }
  }
  return out;
}

// The chain over tiles: cross-tile pilot state (v4: distrust left and prev's class; v6 when d_max < 0: the mode,
// 0 blend_skip or 1 blend; others: none) x the oracle's boundary state. Modes: 0 = probe (or v1, or v6's
// blend_skip), 1 + k = v4 judged by prev of class k (v6: 1 = blend).
struct Chain {
  Kernel pilot;
  size_t D = 0, classes = 1;
  bool v6_mode = false;  // pilot_v6 with d_max < 0 or a cheap f's compact score: the state is the mode the tile ended in (its exit label)
  size_t states() const { return v6_mode ? 2 : pilot == Kernel::pilot_v4 ? (D + 1) * classes : 1; }
  int mode(size_t st) const {
    if (v6_mode) return static_cast<int>(st);
    if (pilot != Kernel::pilot_v4) return 0;
    const size_t d = st / classes, k = st % classes;
    const size_t d2 = d > 0 ? d - 1 : 0;
    return d2 > 0 ? static_cast<int>(1 + k) : 0;
  }
  size_t next(size_t st, size_t label) const {
    if (v6_mode) return label;
    if (pilot != Kernel::pilot_v4) return 0;
    const size_t d = st / classes;
    const size_t d2 = d > 0 ? d - 1 : 0;
    if (d2 > 0) return d2 * classes + label;
    return label == 0 ? 0 : D * classes + (label - 1);
  }
};

struct Setting {
  Kernel pilot;
  Fn f;
  CostModel m;
  PilotOptions o;
  size_t n;
  Rules rules;
  Classes classes;
  Costs costs;
  Chain chain;
  size_t region, tiles, full_blocks, last_blocks;
  std::map<std::pair<int, size_t>, TileModel> models;
  ArrPool pool;  // the tile programs' arrays, across tiles, runs and Dinkelbach's iterations
  Setting(Kernel k, Fn fn, const CostModel& mm, const PilotOptions& oo, size_t nn)
      : pilot(k), f(fn), m(mm), o(as_run(k, oo)), n(nn), rules(k, o), classes(rules), costs(mm, fn) {
    chain.pilot = k, chain.D = o.distrust, chain.classes = classes.keys.size();
    chain.v6_mode = k == Kernel::pilot_v6 && (rules.hi < 0 || compact_score(rules));
    region = std::min(n, o.calib_blocks * o.calib_len);
    tiles = (n - region + o.tile - 1) / o.tile;
    full_blocks = o.tile / 16;
    last_blocks = (n - region - (tiles - 1) * o.tile) / 16;
  }
  const TileModel& model(int mode, size_t blocks) {
    auto it = models.find({mode, blocks});
    if (it == models.end()) it = models.emplace(std::pair{mode, blocks}, build_tile(rules, classes, m, f, blocks, mode)).first;
    return it->second;
  }
  size_t tile_blocks(size_t t) const { return t + 1 == tiles ? last_blocks : full_blocks; }
};

struct Solved {
  double F = kNeg;
  std::vector<std::vector<Block>> tiles;  // the argmax (when asked)
};

// forced: every decided block's summary fixed (then the value is P(x) - lambda O(x) of that x).
Solved solve(Setting& st, double lambda, bool witness, const std::vector<Block>* forced = nullptr) {
  const size_t NS = st.chain.states();
  // Transfers per (mode, blocks) (and tile, when forced): [entry][exit * labels + label].
  std::map<std::tuple<int, size_t, size_t>, std::array<std::vector<double>, 4>> tr;
  size_t tile_at = 0, block_at = 0;
  const auto transfer = [&](int mode, size_t blocks) -> const std::array<std::vector<double>, 4>& {
    const auto key = std::tuple{mode, blocks, forced ? tile_at : 0};
    auto it = tr.find(key);
    if (it != tr.end()) return it->second;
    const TileModel& tm = st.model(mode, blocks);
    TileDP dp(tm, st.costs, st.m, st.f, lambda, st.pool, forced ? forced->data() + block_at : nullptr);
    std::array<std::vector<double>, 4> t;
    for (size_t e = 0; e < 4; ++e) t[e] = dp.run(e);
    return tr.emplace(key, std::move(t)).first->second;
  };
  std::vector<double> val(NS * 4, kNeg);
  val[0 * 4 + 0] = 0;  // v4 starts trusting the probe; the oracle's first block is compared with "non-empty"
  struct Back {
    size_t st, entry, label;
  };
  std::vector<std::vector<Back>> back(st.tiles, std::vector<Back>(NS * 4));
  for (size_t t = 0; t < st.tiles; ++t) {
    std::vector<double> nv(NS * 4, kNeg);
    const size_t blocks = st.tile_blocks(t);
    tile_at = t;
    for (size_t s = 0; s < NS; ++s) {
      bool any = false;
      for (size_t e = 0; e < 4; ++e) any = any || val[s * 4 + e] != kNeg;
      if (!any) continue;
      const int mode = st.chain.mode(s);
      const auto& T = transfer(mode, blocks);
      const size_t labels = st.model(mode, blocks).labels;
      for (size_t e = 0; e < 4; ++e) {
        if (val[s * 4 + e] == kNeg) continue;
        for (size_t x = 0; x < 4; ++x)
          for (size_t l = 0; l < labels; ++l) {
            const double v = val[s * 4 + e] + T[e][x * labels + l];
            const size_t s2 = st.chain.next(s, l);
            if (v > nv[s2 * 4 + x]) nv[s2 * 4 + x] = v, back[t][s2 * 4 + x] = Back{s, e, l};
          }
      }
    }
    val = std::move(nv);
    block_at += blocks;
  }
  Solved out;
  size_t arg = 0;
  for (size_t k = 0; k < val.size(); ++k)
    if (val[k] > out.F) out.F = val[k], arg = k;
  if (!witness) return out;
  // Back through the chain, then through each tile (one kept dynamic program per distinct tile path).
  out.tiles.resize(st.tiles);
  std::map<std::tuple<int, size_t, size_t, size_t>, std::vector<Block>> memo;
  for (size_t t = st.tiles; t-- > 0;) {
    const Back b = back[t][arg];
    const size_t x = arg % 4;
    const int mode = st.chain.mode(b.st);
    const size_t blocks = st.tile_blocks(t);
    const TileModel& tm = st.model(mode, blocks);
    const auto key = std::tuple{mode, blocks, b.entry, x * tm.labels + b.label};
    auto it = memo.find(key);
    if (it == memo.end()) {
      TileDP dp(tm, st.costs, st.m, st.f, lambda, st.pool);
      dp.run(b.entry, true);
      it = memo.emplace(key, dp.backtrack(x * tm.labels + b.label)).first;
    }
    out.tiles[t] = it->second;
    arg = b.st * 4 + b.entry;
  }
  return out;
}

// The witness as a pattern: the calibration region unselected (no pilot v1 .. v4 reads it, no figure counts it),
// each block's a selected elements packed at the start of its ne non-empty registers. One tile's period when every
// decided tile is the same and the tiles fall on the period's grid.
Pattern runs_pattern(const std::vector<uint8_t>& bits, size_t phase, size_t n) {
  Pattern p;
  p.period = bits.size();
  p.phase = phase;
  p.length = n;
  for (size_t i = 0; i < bits.size();) {
    size_t j = i;
    while (j < bits.size() && bits[j] == bits[i]) ++j;
    Segment g;
    g.length = j - i, g.density = bits[i] ? 1.0 : 0.0;
    p.segments.push_back(g);
    i = j;
  }
  return p;
}

void block_bits(const Block& b, std::vector<uint8_t>& out) {
  for (unsigned r = 0; r < 4; ++r) {
    const unsigned take = r < b.ne ? (b.a / b.ne + (r < b.a % b.ne ? 1u : 0u)) : 0u;
    for (unsigned l = 0; l < 4; ++l) out.push_back(l < take);
  }
}

// The witness as a pattern: the calibration region unselected (no pilot v1 .. v4 reads it, no figure counts it),
// each block's a selected elements packed at the start of its ne non-empty registers. When the decided region
// repeats with a period p (a multiple of 16, up to 8 tiles), one period with the phase that puts the first decided
// element at its start (the calibration region then holds copies: read by nothing); else the whole array.
Pattern witness_pattern(const Setting& st, const std::vector<std::vector<Block>>& tiles) {
  std::vector<uint8_t> bits;
  for (const auto& t : tiles)
    for (const Block& b : t) block_bits(b, bits);
  const size_t len = bits.size();
  for (size_t p = 16; p <= std::min(len / 2, 8 * st.o.tile); p += 16) {
    if (len % p) continue;
    if (!std::equal(bits.begin() + static_cast<std::ptrdiff_t>(p), bits.end(), bits.begin())) continue;
    return runs_pattern(std::vector<uint8_t>(bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(p)),
                        (p - st.region % p) % p, st.n);
  }
  std::vector<uint8_t> all(st.region, 0);
  all.insert(all.end(), bits.begin(), bits.end());
  return runs_pattern(all, 0, st.n);
}

// The most frequent full decided tile of the witness, repeated.
Pattern tile_pattern(const Setting& st, const std::vector<std::vector<Block>>& tiles) {
  std::map<std::vector<std::pair<int, int>>, size_t> seen;
  std::vector<std::pair<int, int>> best;
  size_t most = 0;
  for (const auto& t : tiles) {
    if (t.size() != st.full_blocks) continue;
    std::vector<std::pair<int, int>> k;
    for (const Block& b : t) k.emplace_back(b.a, b.ne);
    if (++seen[k] > most) most = seen[k], best = k;
  }
  std::vector<uint8_t> bits;
  for (const auto& [a, ne] : best) block_bits(Block{static_cast<uint8_t>(a), static_cast<uint8_t>(ne)}, bits);
  if (bits.empty()) bits.assign(st.o.tile, 0);
  return runs_pattern(bits, (bits.size() - st.region % bits.size()) % bits.size(), st.n);
}

// pilot_v6's gated switch score (v6_gate = 1 where pilot_v6 runs the switch score: hi < 0): certified by its
// potential (gate_bound.h), not by the tile program.
bool gated(const Rules& r) { return r.pilot == Kernel::pilot_v6 && r.hi < 0 && r.o.v6_gate == 1; }

// The gate's bound: lambda' + max(0, gmax + margin) / O_min (bound.h), lambda' >= the pilot's lambda the least (in
// 1/100) at which the safe score's W' converges (certify_gate; lambda' = lambda where the safe score's long run is
// below lambda). Sound at any lambda' >= lambda: h = P - lambda' O_lb <= P - lambda O_lb <= g (O_lb's minimum only
// rises, the clamp only raises g), h <= -g1 while the plain score runs (g <= -g1 there), and along a safe stretch the
// pilot's moves do not depend on g, so h rises by at most W'(entry); so h <= max(W'(start), -g1 + delta' + max W') =
// gmax after every block and P - lambda' O <= h (gate_bound.h). margin: the Scorer's sums in doubles (decided_blocks x
// big: a block's largest term), at lambda'. The witness: the certificate's argmax path from the start (the decided
// blocks from the first; non-empty blocks full, empty ones empty), cut at the decided blocks, then filled with empty
// blocks or with the path repeated, whichever the Scorer scores higher.
BoundResult gated_bound(Setting& st, Scorer& scorer, BoundResult r, double blocks_big, double give_up_above,
                        double t0) {
  if (const std::string e = gate_model_unsupported(st.o, st.m, st.f); !e.empty())
    throw std::invalid_argument("maskapply bound: " + e);
  const GateCertificate c = certify_gate(st.o);
  if (!c.converged) throw std::invalid_argument("maskapply bound: " + gate_options_unsupported(st.o));
  r.lambda = static_cast<double>(c.lambda) / 100.0, r.f_at_lambda = c.gmax, r.iterations = static_cast<int>(c.tried);
  const double margin = 1e-9 * (1 + r.lambda) * blocks_big;
  Summary sum;
  double best_r = -1;
  for (const bool repeat : {false, true}) {
    if (repeat && c.path.empty()) break;
    std::vector<std::vector<Block>> tiles(st.tiles);
    for (size_t t = 0, k = 0; t < st.tiles; ++t)
      for (size_t j = 0; j < st.tile_blocks(t); ++j, ++k) {
        const bool ne = k < c.path.size() ? c.path[k] : repeat && c.path[k % c.path.size()];
        tiles[t].push_back(ne ? Block{16, 4} : Block{0, 0});
      }
    const Pattern p = witness_pattern(st, tiles);
    sum.assign(p, st.n);
    const double w = scorer.score(sum).regret;
    if (w > best_r) best_r = w, r.pattern = p, r.tile_pattern = tile_pattern(st, tiles);
  }
  r.witness = best_r;
  r.bound = (r.lambda + std::max(c.gmax + margin, 0.0) / r.o_min) * (1 + 1e-12);
  if (best_r >= give_up_above) r.gave_up = true, r.bound = best_r;
  r.seconds = cpu_seconds() - t0;
  return r;
}

}  // namespace

std::string bound_unsupported(Kernel pilot, const PilotOptions& given, size_t n) {
  const PilotOptions o = as_run(pilot, given);  // pilot_v6's probe for a dear f
  if (pilot == Kernel::pilot_v5)
    return "pilot_v5 plans each chunk from 16 blocks spread over the whole tile, read before the tile runs: the "
           "bound's left-to-right program does not carry them (the hunt's seed-aware column and `maskapply floor` "
           "bound its worst case from below)";
  if (pilot < Kernel::pilot_v1 || pilot > Kernel::pilot_v6) return "not a pilot";
  if (const std::string e = o.validate(); !e.empty()) return e;
  if (!o.d_max) return "the options need an injected d_max";
  // pilot_v6's gate: O_lb a lower bound under the options' costs, the safe score's W' converging at some lambda' >=
  // lambda (gate_bound.h).
  if (gated(Rules(pilot, o)))
    if (const std::string e = gate_options_unsupported(o); !e.empty()) return e;
  const size_t region = std::min(n, o.calib_blocks * o.calib_len);
  if (region >= n) return "no decided tile (n within the calibration region)";
  if (o.tile % 16 || region % 16 || (n - region) % 16)
    return "tile, the calibration region and n - region must be multiples of 16";
  const size_t last = n - region - ((n - region - 1) / o.tile) * o.tile;
  for (const size_t size : {std::min(o.tile, n - region), last}) {
    if (std::min(o.probe, size) % 16)
      return "the probe (min(probe, tile); pilot_v6 with a dear f: min(probe, v6_dear_probe, tile)) must be a multiple "
             "of 16";
    if (pilot == Kernel::pilot_v3_5 || pilot == Kernel::pilot_v4) {
      const size_t len = size / o.verify_blocks ? size / o.verify_blocks : size;
      if (len % 16) return "tile / verify_blocks must be a multiple of 16";
      if (std::min(o.probe, size) > len && size / o.verify_blocks) return "the probe must lie in the first verify piece";
    }
  }
  return {};
}

bool certified_by_gate(Kernel pilot, const PilotOptions& o) {
  return o.d_max && gated(Rules(pilot, as_run(pilot, o)));
}

namespace {

// bound_objective and bound_objective_of compute the tile program's F(lambda): none for the gate.
void refuse_the_gate(const Rules& r) {
  if (gated(r))
    throw std::invalid_argument(
        "maskapply bound: pilot_v6's gated switch score (v6_gate = 1) is certified by its potential (gate_bound.h), "
        "not by the bound's tile program: F(lambda) is not computed for it");
}

}  // namespace

double bound_objective(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda) {
  if (const std::string e = bound_unsupported(pilot, o, n); !e.empty()) throw std::invalid_argument("maskapply bound: " + e);
  Setting st(pilot, f, m, o, n);
  refuse_the_gate(st.rules);
  return solve(st, lambda, false).F;
}

double bound_objective_of(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, size_t n, double lambda,
                          const std::vector<std::pair<unsigned, unsigned>>& blocks) {
  if (const std::string e = bound_unsupported(pilot, o, n); !e.empty()) throw std::invalid_argument("maskapply bound: " + e);
  Setting st(pilot, f, m, o, n);
  refuse_the_gate(st.rules);
  if (blocks.size() != (n - st.region) / 16) throw std::invalid_argument("maskapply bound: one summary per decided block");
  std::vector<Block> forced;
  for (const auto& [a, ne] : blocks) forced.push_back(Block{static_cast<uint8_t>(a), static_cast<uint8_t>(ne)});
  return solve(st, lambda, false, &forced).F;
}

BoundResult regret_bound(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o, size_t n, double start,
                         double give_up_above) {
  if (const std::string e = bound_unsupported(pilot, o, n); !e.empty()) throw std::invalid_argument("maskapply bound: " + e);
  const double t0 = cpu_seconds();
  Setting st(pilot, f, m, o, n);
  Scorer scorer(pilot, f, m, o);
  Summary sum;
  BoundResult r;
  const double decided_blocks = static_cast<double>((n - st.region) / 16);
  r.o_min = decided_blocks * st.costs.min_block();
  // A per-block magnitude no block's pilot or oracle term exceeds, for the rounding margin.
  double big = 4 * st.costs.C4 + st.costs.M;
  for (const Strategy s : {Strategy::blend, Strategy::blend_skip, Strategy::blend_verified, Strategy::detour,
                           Strategy::detour_skip, Strategy::compact, Strategy::compact_skip}) {
    const StrategyTerms t = terms(m, f, s);
    big = std::max(big, std::max(t.full, t.empty) + 4 * t.nonempty_reg + 4 * t.expand_any + t.sw + t.group);
  }
  big += probe_cost(m, st.o.probe) / 16 + st.costs.M;
  // pilot_v6's gate: P - lambda' O <= gmax for every input (gate_bound.h), O >= o_min (every strategy's block costs
  // the oracle at least min_block: Costs), the Scorer's sums in doubles within the same margin as the program's.
  if (gated(st.rules)) return gated_bound(st, scorer, r, decided_blocks * big, give_up_above, t0);
  double lambda = std::isfinite(start) && start > 0 ? start : 1.0;
  Pattern best;
  double best_r = -1;
  bool achieved = false;  // lambda is a regret some selection has (then F(lambda) >= 0)
  for (int it = 0; it < 40; ++it) {
    const Solved s = solve(st, lambda, true);
    ++r.iterations;
    const Pattern p = witness_pattern(st, s.tiles);
    sum.assign(p, n);
    const double w = scorer.score(sum).regret;
    if (w > best_r) best_r = w, best = p, r.tile_pattern = tile_pattern(st, s.tiles);
    r.lambda = lambda, r.f_at_lambda = s.F;
    if (w >= give_up_above) {
      r.gave_up = true, r.bound = r.witness = best_r, r.pattern = best, r.seconds = cpu_seconds() - t0;
      return r;
    }
    // Dinkelbach: the argmax's own ratio is the next lambda; stop when it no longer rises (from a start above
    // the maximum, the first argmax's ratio is a start below it).
    if (!(w > lambda * (1 + 1e-12)) && achieved) break;
    lambda = w, achieved = true;
  }
  const double margin = 1e-9 * (1 + r.lambda) * decided_blocks * big;
  r.bound = (r.lambda + std::max(r.f_at_lambda + margin, 0.0) / r.o_min) * (1 + 1e-12);
  r.witness = best_r;
  r.pattern = best;
  r.seconds = cpu_seconds() - t0;
  return r;
}

}  // namespace maskapply::gen::hunt
