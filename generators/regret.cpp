// SPDX-License-Identifier: MIT
#include "regret.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace maskapply::gen {

double ratio(double a, double b) {
  if (b == 0) return a == 0 ? 1.0 : std::numeric_limits<double>::infinity();
  return a / b;
}

PilotOptions model_options(const CostModel& m, Fn f, PilotOptions o) {
  o.d_max = m.d_max(f);
  o.B = m.B, o.D = m.D;
  o.C = m.C, o.S = m.S, o.K = m.K, o.M = m.M;  // pilot_v5's break-evens
  o.V = m.V;                                    // pilot_v6's gate (with B, D, C, S, M)
  return o;
}

void summarize(std::span<const uint8_t> sel, std::vector<BlockSummary>& out) {
  out.resize((sel.size() + 15) / 16);
  const size_t full = sel.size() / 16;
  for (size_t b = 0; b < full; ++b) {  // four registers of four bytes: one word each, a bit per non-zero byte
    BlockSummary s;
    for (size_t r = 0; r < 4; ++r) {
      uint32_t u;
      std::memcpy(&u, sel.data() + b * 16 + r * 4, 4);
      u |= u >> 4, u |= u >> 2, u |= u >> 1;
      const uint32_t c = ((u & 0x01010101u) * 0x01010101u) >> 24;
      s.selected = static_cast<uint8_t>(s.selected + c);
      s.nonempty = static_cast<uint8_t>(s.nonempty + (c != 0));
    }
    out[b] = s;
  }
  if (full < out.size()) {  // the tail
    const size_t begin = full * 16, len = sel.size() - begin;
    BlockSummary s;
    s.len = static_cast<uint8_t>(len);
    for (size_t r = 0; r * 4 < len; ++r) {
      unsigned c = 0;
      for (size_t l = r * 4; l < std::min(len, r * 4 + 4); ++l) c += sel[begin + l] != 0;
      s.selected = static_cast<uint8_t>(s.selected + c);
      s.nonempty = static_cast<uint8_t>(s.nonempty + (c != 0));
    }
    out[full] = s;
  }
}

std::vector<BlockSummary> summarize(std::span<const uint8_t> sel) {
  std::vector<BlockSummary> out;
  summarize(sel, out);
  return out;
}

void BlockCosts::assign(std::span<const BlockSummary> blocks) { assign(blocks, 0); }

void BlockCosts::assign(std::span<const BlockSummary> blocks, size_t period) {
  tail_ = !blocks.empty() && blocks.back().len < 16;
  full_ = blocks.size() - tail_;
  n_ = 16 * full_ + (tail_ ? blocks.back().len : 0);
  p_.resize(full_ + 1);
  const bool repeats = period > 0 && period < full_ &&
                       std::memcmp(blocks.data() + period, blocks.data(), (full_ - period) * sizeof(BlockSummary)) == 0;
  const size_t direct = repeats ? period : full_;
  // A record as one vector of its four counts (s, rn, ge, x), added and stored whole.
  using U4 = uint32_t __attribute__((vector_size(16)));
  static_assert(sizeof(Prefix) == sizeof(U4));
  Prefix* out = p_.data();
  U4 acc{0, 0, 0, 0};
  uint32_t prev = 0;  // the block before the first counts as non-empty
  std::memcpy(out, &acc, sizeof acc);
  for (size_t b = 0; b < direct; ++b) {
    const uint32_t s = blocks[b].selected, e = s == 0;
    acc += U4{s, blocks[b].nonempty, e, e ^ prev};
    prev = e;
    std::memcpy(out + b + 1, &acc, sizeof acc);
  }
  if (!repeats) return;
  // Any `period` consecutive blocks from block 1 on are the period's blocks, each compared with its real
  // predecessor: its totals, with block 0 compared with the period's last block rather than with "non-empty".
  const uint32_t e0 = blocks[0].selected == 0;
  const U4 total = acc + U4{0, 0, 0, (e0 ^ prev) - e0};
  for (size_t b = period + 1; b <= full_; ++b) {
    U4 x;
    std::memcpy(&x, out + b - period, sizeof x);
    x += total;
    std::memcpy(out + b, &x, sizeof x);
  }
}

double BlockCosts::run_cost(const CostModel& m, Fn f, Strategy s, size_t begin, size_t end, bool prev_empty) const {
  const size_t bi = std::min(begin / 16, full_), bj = end >= n_ ? full_ : std::min(end / 16, full_);
  const bool tail = end >= n_ && tail_;
  if (bj < bi) return tail ? tail_cost(m, f) : 0.0;
  const StrategyTerms t = terms(m, f, s);
  const size_t G = bj - bi, Ge = p_[bj].ge - p_[bi].ge, P = p_[bj].s - p_[bi].s;
  const size_t X = G ? (empty_block(bi) != prev_empty) + (p_[bj].x - p_[bi + 1].x) : 0;
  return static_cast<double>(G - Ge) * t.full + static_cast<double>(Ge) * t.empty +
         static_cast<double>(p_[bj].rn - p_[bi].rn) * t.nonempty_reg +
         (P ? static_cast<double>(4 * G) * t.expand_any : 0.0) + static_cast<double>(X) * t.sw +
         static_cast<double>((P + 15) / 16) * t.group + (tail ? tail_cost(m, f) : 0.0);
}

double schedule_cost(const BlockCosts& c, std::span<const Run> runs, const CostModel& m, Fn f) {
  double total = 0;
  for (const Run& r : runs) total += c.run_cost(m, f, r.strategy, r.begin, r.end);
  return total;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The window grid: a detour-family run may not cross a boundary. Tiles of o.tile from 0 below the calibration
// region, the pilots' tiles from its end.
struct Windows {
  size_t region, tile;
  // The first boundary at or after pos.
  size_t next(size_t pos) const {
    if (pos <= region) {
      const size_t below = (pos + tile - 1) / tile * tile;
      return below < region ? below : region;
    }
    return region + (pos - region + tile - 1) / tile * tile;
  }
};

// The four detour-family strategies carry the packed pass's rounding: a run from boundary i to j runs
// ceil((S_j - S_i) / 16) groups of 16 lanes, S the prefix count of selected elements. With S = 16 q + rho that is
// q_j - q_i + [rho_j > rho_i]: q_j - q_i accrues block by block like every other term (a shared offset), and
// the last term needs the best start per residue rho_i. sm[r] = min over starts with rho >= r, so the best
// finish is min(sm[rho_j], sm[0] + group), O(1); an insertion lowers sm[0..rho_i]. The four strategies are
// lanes of one structure (detour, detour_skip, compact, compact_skip), so each step is a few vector operations.
constexpr std::array<Strategy, 4> kWindowed{Strategy::detour, Strategy::detour_skip, Strategy::compact,
                                            Strategy::compact_skip};
using Lanes = std::array<double, 4>;

// Four doubles as one vector (GCC / Clang vector extension: element-wise IEEE operations).
using V4 = double __attribute__((vector_size(32)));
inline V4 load(const Lanes& a) {
  V4 v;
  std::memcpy(&v, a.data(), sizeof v);
  return v;
}
inline void store(Lanes& a, V4 v) { std::memcpy(a.data(), &v, sizeof v); }

template <bool Record>
struct Windowed {
  Lanes base[2][2];     // per block by [empty][switch]: the block's term, expand, the switch
  Lanes nr, group, has_sw;
  Lanes off;
  std::array<Lanes, 16> sm;
  std::array<std::array<uint32_t, 4>, 16> smi;

  Windowed(const CostModel& m, Fn f) {
    for (size_t k = 0; k < 4; ++k) {
      const StrategyTerms t = terms(m, f, kWindowed[k]);
      for (int e = 0; e < 2; ++e)
        for (int sw = 0; sw < 2; ++sw) base[e][sw][k] = (e ? t.empty : t.full) + 4 * t.expand_any + (sw ? t.sw : 0.0);
      nr[k] = t.nonempty_reg, group[k] = t.group, has_sw[k] = t.sw != 0 ? 1.0 : 0.0;
    }
    reset();
  }
  void reset() {
    off.fill(0);
    for (Lanes& x : sm) x.fill(kInf);
  }
  void insert(double dp, double start_fix, uint32_t start, unsigned r) {
    Lanes v;
    for (size_t k = 0; k < 4; ++k) v[k] = dp + start_fix * has_sw[k] - off[k];
    static_assert(Record, "run_passes does the passes that record nothing (PassState)");
    for (size_t k = 0; k < 4; ++k)
      for (int q = static_cast<int>(r); q >= 0 && sm[static_cast<size_t>(q)][k] > v[k]; --q)
        sm[static_cast<size_t>(q)][k] = v[k], smi[static_cast<size_t>(q)][k] = start;
  }
  void step(bool e, bool sw, double nonempty, double groups) {
    // As `off[k] += b[k] + nonempty * nr[k] + groups * group[k]` lane by lane (the same operations, the same
    // bits), written on whole vectors so that off is stored as one vector: finish and insert load it as one, and
    // four scalar stores would not forward to that load.
    const V4 n4{nonempty, nonempty, nonempty, nonempty}, g4{groups, groups, groups, groups};
    store(off, load(off) + ((load(base[e][sw]) + n4 * load(nr)) + g4 * load(group)));
  }
  // The cheapest finish at residue r: its cost, lane and start (when recording).
  double finish(unsigned r, size_t* lane, uint32_t* start) const {
    Lanes v;
    for (size_t k = 0; k < 4; ++k) v[k] = off[k] + std::min(sm[r][k], sm[0][k] + group[k]);
    size_t best = 0;
    for (size_t k = 1; k < 4; ++k)
      if (v[k] < v[best]) best = k;
    if constexpr (Record) {
      *lane = best;
      *start = sm[r][best] <= sm[0][best] + group[best] ? smi[r][best] : smi[0][best];
    }
    return v[best];
  }
};

struct Choice {
  uint32_t start;
  Strategy s;
};

template <bool Record>
double oracle_dp(std::span<const BlockSummary> blocks, const CostModel& m, Fn f, const PilotOptions& o, size_t first,
                 std::vector<Run>* out) {
  const bool tail = !blocks.empty() && blocks.back().len < 16;
  const size_t nb = blocks.size() - tail;
  const size_t n = first + 16 * nb + (tail ? blocks.back().len : 0);
  const Windows w{std::min(n, o.calib_blocks * o.calib_len), std::max<size_t>(o.tile, 1)};
  const StrategyTerms blend = terms(m, f, Strategy::blend), bskip = terms(m, f, Strategy::blend_skip);
  const double empty_detour = 4 * m.C;  // a detour over empty blocks only: compress, no expand, no f
  Windowed<Record> wd(m, f);
  std::vector<Choice> choice;
  if constexpr (Record) choice.resize(nb + 1);
  size_t boundary = first;                         // the next window boundary (the first block opens one)
  double dp = 0;                                   // the cheapest schedule of the blocks before boundary j
  double open_bs = kInf, open_de = kInf;           // open blend_skip run; open detour over empty blocks
  uint32_t open_bs_start = 0, open_de_start = 0;
  uint32_t S = 0;                                  // selected elements before boundary j
  bool prev_empty = false;
  for (size_t j = 0; j < nb; ++j) {
    const BlockSummary& b = blocks[j];
    const bool e = b.empty(), sw = e != prev_empty;
    const double start_fix = (static_cast<double>(e) - static_cast<double>(sw)) * m.M;  // a run's first block vs
    const uint32_t jj = static_cast<uint32_t>(j);                                       // "non-empty"
    if (first + 16 * j >= boundary) {
      wd.reset();
      open_de = kInf;
      boundary = w.next(first + 16 * j + 1);
    }
    // Runs starting at boundary j.
    wd.insert(dp, start_fix, jj, S % 16);
    if (dp + start_fix < open_bs) open_bs = dp + start_fix, open_bs_start = jj;
    if (dp < open_de) open_de = dp, open_de_start = jj;
    // Block j.
    const uint32_t S2 = S + b.selected;
    const double groups = static_cast<double>(S2 / 16 - S / 16);
    wd.step(e, sw, b.nonempty, groups);
    open_bs += (e ? bskip.empty : bskip.full) + (sw ? bskip.sw : 0.0);
    open_de = e ? open_de + empty_detour : kInf;
    S = S2;
    prev_empty = e;
    // Boundary j + 1: the cheapest way to end a run here.
    double best = dp + blend.full;
    Choice c{jj, Strategy::blend};
    if (open_bs < best) best = open_bs, c = {open_bs_start, Strategy::blend_skip};
    if (open_de < best) best = open_de, c = {open_de_start, Strategy::detour};
    size_t lane = 0;
    uint32_t start = 0;
    if (const double v = wd.finish(S % 16, &lane, &start); v < best) best = v, c = {start, kWindowed[lane]};
    dp = best;
    if constexpr (Record) choice[j + 1] = c;
  }
  if constexpr (Record) {
    out->clear();
    for (size_t j = nb; j > 0;) {
      const Choice c = choice[j];
      out->push_back(Run{first + 16 * c.start, first + 16 * j, c.s});
      j = c.start;
    }
    std::reverse(out->begin(), out->end());
    std::vector<Run> merged;  // adjacent blend runs are one run (blend has no start cost)
    for (const Run& r : *out)
      if (!merged.empty() && merged.back().strategy == Strategy::blend && r.strategy == Strategy::blend)
        merged.back().end = r.end;
      else
        merged.push_back(r);
    *out = std::move(merged);
    if (tail) {
      if (out->empty())
        out->push_back(Run{first, n, Strategy::blend});
      else
        out->back().end = n;
    }
  }
  return dp + (tail ? tail_cost(m, f) : 0.0);
}

// One window of the dynamic program (oracle_dp's loop, restricted to the window's blocks and with nothing
// recorded), entering with dp and bs (open_bs), the selected count S (mod 16 is all that matters) and whether
// the block before was empty, gives (dp, bs) at its end. A window's transfer is its pass from (dp, bs) =
// (0, inf) and, when needed, from (inf, 0) (see OracleCacheAccess::run). Four passes, of the same window or of
// different windows, run in one loop: independent chains of dependent operations, which the processor overlaps.
// A lane's figures do not depend on its partner: the same operations per lane, and regret.cpp is compiled
// with -ffp-contract=off (no fused multiply-add in one copy and not in another).
//
// What a pass needs per block depends on the block's kind alone: [empty][switch], and for the windowed
// strategies' step also its non-empty registers (0..4) and whether it completes a group of 16 packed lanes (0, 1).
// DpTerms computes each such term once, by the same operations in the same order as oracle_dp computes it per
// block, so a pass reads the same bits from a table.
struct DpTerms {
  double blend_full, empty_detour;
  double sf[2][2];           // start_fix: (e - sw) * M
  double bs[2][2];           // the open blend_skip run's block: (e ? empty : full) + (sw ? sw : 0)
  Lanes sfh[2][2];           // start_fix * has_sw per windowed strategy (Windowed::insert)
  Lanes step[2][2][5][2];    // Windowed::step's increment by [e][sw][non-empty registers][groups]
  Lanes base[2][2], nr, group;

  DpTerms(const CostModel& m, Fn f) {
    const StrategyTerms blend = terms(m, f, Strategy::blend), bskip = terms(m, f, Strategy::blend_skip);
    const Windowed<false> w(m, f);
    blend_full = blend.full, empty_detour = 4 * m.C;
    nr = w.nr, group = w.group;
    for (int e = 0; e < 2; ++e)
      for (int sw = 0; sw < 2; ++sw) {
        sf[e][sw] = (static_cast<double>(e) - static_cast<double>(sw)) * m.M;
        bs[e][sw] = (e ? bskip.empty : bskip.full) + (sw ? bskip.sw : 0.0);
        for (size_t k = 0; k < 4; ++k) sfh[e][sw][k] = sf[e][sw] * w.has_sw[k];
        base[e][sw] = w.base[e][sw];
        for (int n = 0; n <= 4; ++n)
          for (int g = 0; g < 2; ++g) store(step[e][sw][n][g], increment(e, sw, n, g));
      }
  }
  // As Windowed::step: (base + nonempty * nr) + groups * group.
  V4 increment(int e, int sw, double nonempty, double groups) const {
    const V4 n4{nonempty, nonempty, nonempty, nonempty}, g4{groups, groups, groups, groups};
    return (load(base[e][sw]) + n4 * load(nr)) + g4 * load(group);
  }
};

struct Pass {
  std::span<const BlockSummary> w;
  uint32_t S = 0;          // entering
  bool prev_empty = false; // entering
  bool from_bs = false;    // the pass from (inf, 0), else from (0, inf)
  double* dp_out = nullptr;
  double* bs_out = nullptr;
};

// A pass's windowed state: Windowed's sm and off as vectors, without the record of starts.
struct PassState {
  V4 sm[16];
  V4 off;
};

constexpr int kLanes = 4;

inline V4 vmin(V4 a, V4 b) { return b < a ? b : a; }  // std::min(a, b) per lane

[[gnu::noinline]] void run_passes(const Pass (&p)[kLanes], const DpTerms& t, PassState (&ps)[kLanes]) {
  double dp[kLanes], open_bs[kLanes], open_de[kLanes];
  uint32_t S[kLanes];
  bool prev_empty[kLanes];
  size_t len = 0;
  const V4 inf4{kInf, kInf, kInf, kInf}, group = load(t.group);
  for (int z = 0; z < kLanes; ++z) {
    dp[z] = p[z].from_bs ? kInf : 0.0, open_bs[z] = p[z].from_bs ? 0.0 : kInf, open_de[z] = kInf;
    S[z] = p[z].S, prev_empty[z] = p[z].prev_empty;
    for (V4& x : ps[z].sm) x = inf4;
    ps[z].off = V4{0, 0, 0, 0};
    len = std::max(len, p[z].w.size());
  }
  for (size_t i = 0; i < len; ++i) {
#pragma GCC unroll 4
    for (int z = 0; z < kLanes; ++z) {
      if (i >= p[z].w.size()) continue;
      const BlockSummary b = p[z].w[i];
      PassState& st = ps[z];
      const int e = b.empty(), sw = e != prev_empty[z];
      // Runs starting before the block (Windowed::insert without the record): sm[q] lowered to v for every
      // residue q <= S mod 16. A new start is nearly always below every earlier one, so a loop that stops at the
      // first residue it does not lower runs the same r + 1 steps, with a compare more in each.
      const V4 d4{dp[z], dp[z], dp[z], dp[z]};
      const V4 v = (d4 + load(t.sfh[e][sw])) - st.off;
      for (int q = static_cast<int>(S[z] % 16); q >= 0; --q) st.sm[q] = vmin(st.sm[q], v);
      if (const double x = dp[z] + t.sf[e][sw]; x < open_bs[z]) open_bs[z] = x;
      if (dp[z] < open_de[z]) open_de[z] = dp[z];
      // The block.
      const uint32_t S2 = S[z] + b.selected, g = S2 / 16 - S[z] / 16;
      st.off = st.off + (b.nonempty <= 4 && g <= 1 ? load(t.step[e][sw][b.nonempty][g])
                                                   : t.increment(e, sw, b.nonempty, static_cast<double>(g)));
      open_bs[z] += t.bs[e][sw];
      open_de[z] = e ? open_de[z] + t.empty_detour : kInf;
      S[z] = S2;
      prev_empty[z] = e;
      // Runs ending after it (Windowed::finish: the cheapest lane; the minimum's value, whichever lane holds it).
      double best = dp[z] + t.blend_full;
      if (open_bs[z] < best) best = open_bs[z];
      if (open_de[z] < best) best = open_de[z];
      const V4 w = st.off + vmin(st.sm[S2 % 16], st.sm[0] + group);
      const double lo = w[1] < w[0] ? w[1] : w[0], hi = w[3] < w[2] ? w[3] : w[2];
      if (const double x = hi < lo ? hi : lo; x < best) best = x;
      dp[z] = best;
    }
  }
  for (int z = 0; z < kLanes; ++z) *p[z].dp_out = dp[z], *p[z].bs_out = open_bs[z];
}

// One read of a window's blocks: a hash of their bytes and their selected count (mod 256, enough for the count
// mod 16 the windows carry). Eight blocks (24 bytes, three words) at a time, hashed in three independent chains,
// the counts (bytes 0, 3, ..., 21 of the 24) added across a word by one multiplication: each byte holds one
// count <= 16, so no byte carries into the next.
struct WindowScan {
  uint64_t hash;
  uint32_t selected;
};

WindowScan scan_window(std::span<const BlockSummary> w) {
  static_assert(sizeof(BlockSummary) == 3);
  constexpr uint64_t k = 0xff51afd7ed558ccdull, bytes_sum = 0x0101010101010101ull;
  uint64_t h0 = 0x9e3779b97f4a7c15ull, h1 = 0xc2b2ae3d27d4eb4full, h2 = 0x165667b19e3779f9ull;
  uint32_t selected = 0;
  size_t b = 0;
  if constexpr (std::endian::native == std::endian::little) {
    const auto* p = reinterpret_cast<const uint8_t*>(w.data());
    for (; b + 8 <= w.size(); b += 8) {
      uint64_t x0, x1, x2;
      std::memcpy(&x0, p + 3 * b, 8), std::memcpy(&x1, p + 3 * b + 8, 8), std::memcpy(&x2, p + 3 * b + 16, 8);
      h0 = (h0 ^ x0) * k, h1 = (h1 ^ x1) * k, h2 = (h2 ^ x2) * k;
      h0 ^= h0 >> 32, h1 ^= h1 >> 32, h2 ^= h2 >> 32;
      const uint64_t counts = (x0 & 0x00ff0000ff0000ffull) + (x1 & 0xff0000ff0000ff00ull) + (x2 & 0x0000ff0000ff0000ull);
      selected += static_cast<uint32_t>((counts * bytes_sum) >> 56);
    }
  }
  for (; b < w.size(); ++b) {
    selected += w[b].selected;
    h0 = (h0 ^ (w[b].selected | uint64_t{w[b].nonempty} << 8 | uint64_t{w[b].len} << 16)) * k;
    h0 ^= h0 >> 32;
  }
  return {h0 ^ (h1 * 0x100000001b3ull) ^ ((h2 << 21) | (h2 >> 43)), selected};
}

// The cache's key: the window's blocks (their hash), its length, the count mod 16 and the emptiness entering it.
uint64_t window_key(uint64_t blocks_hash, size_t len, uint32_t s, bool prev_empty) {
  uint64_t h = blocks_hash ^ (len * 0x9e3779b97f4a7c15ull) ^ (uint64_t{s} << 1) ^ uint64_t{prev_empty};
  h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

}  // namespace

// The window-by-window oracle (regret.h): the one place its figure is computed, with or without a cache.
//
// A window's pass from (inf, 0) (a blend_skip run continuing into it) is needed only when continuing can beat
// starting afresh: a fresh blend_skip run at the boundary costs dp + start_fix (its first block compared with
// "non-empty"), the continuing one bs >= dp. With start_fix <= 0 (the first block non-empty, or empty after a
// non-empty one) every continuing schedule costs at least the fresh one, so the transfer's from-bs entries are
// +inf and only the pass from (0, inf) runs. The same minimum in real arithmetic; the same bits with or
// without a cache (the rule depends only on the window's key).
struct OracleCacheAccess {
  using Win = OracleCache::Win;

  static double run(std::span<const BlockSummary> blocks, const CostModel& m, Fn f, const PilotOptions& o,
                    size_t first, OracleCache* cache) {
    const bool tail = !blocks.empty() && blocks.back().len < 16;
    const size_t nb = blocks.size() - tail;
    const size_t n = first + 16 * nb + (tail ? blocks.back().len : 0);
    const Windows grid{std::min(n, o.calib_blocks * o.calib_len), std::max<size_t>(o.tile, 1)};
    const DpTerms t(m, f);
    std::vector<Win> local;
    std::vector<Win>& wins = cache ? cache->wins_ : local;
    wins.clear();
    // The windows and their entering state.
    uint32_t s = 0;  // selected elements before the window, mod 16
    bool prev_empty = false;
    for (size_t j = 0; j < nb;) {
      // The window opening at block j ends at the first block at or after the next boundary (oracle_dp's reset).
      const size_t boundary = grid.next(first + 16 * j + 1);
      const size_t end = std::min(nb, std::max(j + 1, (boundary - first + 15) / 16));
      const WindowScan sc = scan_window(blocks.subspan(j, end - j));
      Win w;
      w.j = j, w.end = end, w.s = s, w.prev_empty = prev_empty, w.computed = !cache;
      w.key = window_key(sc.hash, end - j, s, prev_empty);
      wins.push_back(w);
      s = (s + sc.selected) % 16;
      prev_empty = blocks[end - 1].empty();
      j = end;
    }
    // What the cache knows; a window it does not know gets its entry now (filled by the passes below), so a
    // window repeated within this call is computed once.
    if (cache) {
      std::vector<uint32_t>& slots = cache->slots_;
      if (cache->entries_.size() + wins.size() > cache->max_entries_) {
        cache->entries_.clear(), cache->pool_.clear();
        std::fill(slots.begin(), slots.end(), 0u);
      }
      if (2 * (cache->entries_.size() + wins.size()) > slots.size()) {  // grow, and place the entries again
        slots.assign(std::bit_ceil(std::max<size_t>(64, 4 * (cache->entries_.size() + wins.size()))), 0u);
        for (size_t k = 0; k < cache->entries_.size(); ++k) {
          size_t i = cache->entries_[k].key & (slots.size() - 1);
          while (slots[i]) i = (i + 1) & (slots.size() - 1);
          slots[i] = static_cast<uint32_t>(k + 1);
        }
      }
      const size_t mask = slots.size() - 1;
      for (Win& w : wins) {
        const std::span<const BlockSummary> win = blocks.subspan(w.j, w.end - w.j);
        size_t i = w.key & mask;
        bool found = false;
        for (; slots[i]; i = (i + 1) & mask) {  // at most half full: a free slot ends the search
          const OracleCache::Entry& e = cache->entries_[slots[i] - 1];
          if (e.key == w.key && e.len == win.size() && e.s == w.s && e.prev_empty == w.prev_empty &&
              std::memcmp(cache->pool_.data() + e.at, win.data(), win.size_bytes()) == 0) {
            w.entry = slots[i] - 1, found = true;
            break;
          }
        }
        ++(found ? cache->hits_ : cache->misses_);
        if (found) continue;
        w.entry = static_cast<uint32_t>(cache->entries_.size()), w.computed = true;
        slots[i] = w.entry + 1;
        cache->entries_.push_back(OracleCache::Entry{w.key, cache->pool_.size(), win.size(),
                                                     static_cast<uint8_t>(w.s), w.prev_empty, {}});
        cache->pool_.insert(cache->pool_.end(), win.data(), win.data() + win.size());
      }
    }
    // The passes the computed windows need, two at a time.
    PassState wd[kLanes];
    Pass batch[kLanes];
    int filled = 0;
    const auto pass = [&](const Pass& p) {
      batch[filled++] = p;
      if (filled == kLanes) run_passes(batch, t, wd), filled = 0;
    };
    for (Win& w : wins) {
      if (!w.computed) continue;
      OracleTransfer& tr = cache ? cache->entries_[w.entry].t : w.t;
      const std::span<const BlockSummary> win = blocks.subspan(w.j, w.end - w.j);
      const bool e = win.front().empty(), sw = e != w.prev_empty;
      const double start_fix = t.sf[e][sw];
      pass(Pass{win, w.s, w.prev_empty, false, &tr.dd, &tr.db});
      if (start_fix > 0)
        pass(Pass{win, w.s, w.prev_empty, true, &tr.bd, &tr.bb});
      else
        tr.bd = tr.bb = kInf;
    }
    if (filled) {  // the last batch: its empty lanes repeat its first pass into a sink (the same figures)
      double sink[2 * kLanes];
      for (int z = filled; z < kLanes; ++z) {
        batch[z] = batch[0];
        batch[z].dp_out = &sink[2 * z], batch[z].bs_out = &sink[2 * z + 1];
      }
      run_passes(batch, t, wd);
    }
    // Composition, in order.
    double dp = 0, bs = kInf;
    for (const Win& w : wins) {
      const OracleTransfer& tr = cache ? cache->entries_[w.entry].t : w.t;
      const double dp2 = std::min(dp + tr.dd, bs + tr.bd);
      const double bs2 = std::min(dp + tr.db, bs + tr.bb);
      dp = dp2, bs = bs2;
    }
    return dp + (tail ? tail_cost(m, f) : 0.0);
  }
};

double oracle_cost(std::span<const BlockSummary> blocks, const CostModel& m, Fn f, const PilotOptions& o,
                   size_t first) {
  return OracleCacheAccess::run(blocks, m, f, o, first, nullptr);
}

OracleSchedule oracle_schedule(std::span<const BlockSummary> blocks, const CostModel& m, Fn f, const PilotOptions& o,
                               size_t first) {
  OracleSchedule s;
  oracle_dp<true>(blocks, m, f, o, first, &s.runs);
  s.cost = oracle_cost(blocks, m, f, o, first);
  return s;
}

OracleCache::OracleCache(const CostModel& m, Fn f, size_t max_entries)
    : m_(m), f_(f), max_entries_(std::max<size_t>(max_entries, 1)) {}

double OracleCache::cost(std::span<const BlockSummary> blocks, const PilotOptions& o, size_t first) {
  return OracleCacheAccess::run(blocks, m_, f_, o, first, this);
}

Regret model_regret(const Trace& trace, std::span<const uint8_t> sel, const CostModel& m, Fn f,
                    const PilotOptions& o) {
  Regret g;
  const size_t n = sel.size();
  const std::vector<BlockSummary> blocks = summarize(sel);
  const BlockCosts whole(blocks);
  // The tiles: the pilot's decisions, or fixed tiles of o.tile from 0 for a plain kernel (whose detour-family
  // runs work in pieces of the workspace, o.tile).
  struct Tile {
    size_t begin, end;
    bool calibration;
    size_t probed;  // elements the probe read
  };
  std::vector<Tile> tiles;
  PilotOptions grid = o;
  if (!trace.tiles.empty()) {
    for (const TileDecision& t : trace.tiles)
      tiles.push_back({std::min(t.begin, n), std::min(t.end, n), t.source == CountSource::calibration,
                       t.source == CountSource::probe ? t.probed : 0});
  } else {
    grid.calib_blocks = 0;
    const size_t tile = std::max<size_t>(o.tile, 1);
    for (size_t i = 0; i < n; i += tile) tiles.push_back({i, std::min(i + tile, n), false, 0});
  }
  size_t decided_begin = 0;
  for (const Tile& t : tiles)
    if (t.calibration) decided_begin = std::max(decided_begin, t.end);
  const auto cost_of = [&](Strategy s, size_t b, size_t e, bool prev_empty) {
    if (BlockCosts::aligned(b, n) && BlockCosts::aligned(e, n)) return whole.run_cost(m, f, s, b, e, prev_empty);
    g.aligned = false;
    return strategy_cost(m, f, s, sel.subspan(b, e - b));
  };
  // The pilot: each run charged as the kernel executed it (a trace reports every pass: pilots never run across a
  // tile boundary, a plain detour-family kernel reports each workspace pass). A run is attributed to the tiles it
  // covers, cut at a tile edge only where cutting changes no cost: a block-aligned edge inside a run outside the
  // detour family (blend's terms add up block by block; a continuing skip run compares with the block before).
  // Otherwise the run is charged whole to the tile it starts in.
  std::vector<double> pilot(tiles.size(), 0.0);
  for (const Run& r : trace.runs) {
    const size_t rb = std::min(r.begin, n), re = std::min(r.end, n);
    if (rb >= re) continue;
    const bool windowed = terms(m, f, r.strategy).windowed;
    auto it = std::upper_bound(tiles.begin(), tiles.end(), rb, [](size_t x, const Tile& t) { return x < t.begin; });
    size_t k = it == tiles.begin() ? 0 : static_cast<size_t>(it - tiles.begin()) - 1;
    for (size_t b = rb; b < re && k < tiles.size(); ++k) {
      size_t e = std::min(re, std::max(tiles[k].end, b));
      if (e <= b) continue;
      if (windowed || !BlockCosts::aligned(e, n)) e = re;
      const bool cont = b > rb;  // b is then a block-aligned tile edge
      pilot[k] += cost_of(r.strategy, b, e, cont ? whole.empty_block(b / 16 - 1) : false);
      b = e;
    }
  }
  // The decided region: the oracle over its blocks (re-summarized when it does not start on the block grid).
  std::vector<BlockSummary> tail_blocks;
  std::span<const BlockSummary> decided(blocks);
  if (decided_begin % 16 == 0) {
    decided = decided.subspan(std::min(decided_begin / 16, blocks.size()));
  } else {
    g.aligned = false;
    summarize(sel.subspan(decided_begin), tail_blocks);
    decided = tail_blocks;
  }
  if (decided_begin < n) g.oracle = oracle_schedule(decided, m, f, grid, decided_begin);
  const BlockCosts dc(decided);
  std::array<double, kOracleStrategies.size()> fixed{};
  for (size_t k = 0; k < tiles.size(); ++k) {
    const Tile& t = tiles[k];
    if (t.begin >= t.end) continue;
    const double probe = t.probed ? probe_cost(m, t.probed) : 0.0;
    g.probe_cost += probe;
    g.whole_pilot_cost += pilot[k] + probe;
    if (t.calibration) {
      g.calibration_cost += pilot[k];
      continue;
    }
    TileCost c;
    c.begin = t.begin, c.end = t.end;
    c.pilot = pilot[k] + probe;
    for (size_t s = 0; s < kOracleStrategies.size(); ++s) {
      c.cost[s] = cost_of(kOracleStrategies[s], t.begin, t.end, false);
      fixed[s] += c.cost[s];
      if (c.cost[s] < c.cost[c.best]) c.best = s;
    }
    g.pilot_cost += c.pilot;
    g.tile_oracle_cost += c.cost[c.best];
    ++g.tiles;
    g.per_tile.push_back(c);
  }
  // What the oracle's schedule costs inside each decided tile (its runs split at the tile edges; a detour-family
  // run never crosses one, a blend_skip piece that continues a run compares with the block before it).
  if (g.aligned)
    for (const Run& r : g.oracle.runs) {
      auto it = std::upper_bound(g.per_tile.begin(), g.per_tile.end(), r.begin,
                                 [](size_t x, const TileCost& t) { return x < t.begin; });
      size_t k = it == g.per_tile.begin() ? 0 : static_cast<size_t>(it - g.per_tile.begin()) - 1;
      for (size_t b = r.begin; b < r.end && k < g.per_tile.size(); ++k) {
        const size_t e = std::min(r.end, std::max(g.per_tile[k].end, b));
        if (e <= b) continue;
        const size_t lb = b - decided_begin, le = e - decided_begin;
        g.per_tile[k].oracle += dc.run_cost(m, f, r.strategy, lb, le, b > r.begin && dc.empty_block(lb / 16 - 1));
        b = e;
      }
    }
  const size_t best_fixed = static_cast<size_t>(std::min_element(fixed.begin(), fixed.end()) - fixed.begin());
  g.fixed_cost = fixed[best_fixed];
  g.fixed_strategy = kOracleStrategies[best_fixed];
  g.oracle_cost = g.oracle.cost;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  g.vs_oracle = g.tiles ? ratio(g.pilot_cost, g.oracle_cost) : nan;
  g.vs_tile_oracle = g.tiles ? ratio(g.pilot_cost, g.tile_oracle_cost) : nan;
  g.vs_fixed = g.tiles ? ratio(g.pilot_cost, g.fixed_cost) : nan;
  g.whole_oracle_cost = oracle_cost(blocks, m, f, grid, 0);
  g.whole = ratio(g.whole_pilot_cost, g.whole_oracle_cost);
  return g;
}

}  // namespace maskapply::gen
