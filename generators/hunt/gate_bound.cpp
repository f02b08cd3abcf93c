// SPDX-License-Identifier: MIT
// pilot_v6's gated switch score: the bound's model and its certificate (gate_bound.h).
#include "gate_bound.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace maskapply::gen::hunt {

namespace {

std::string ns(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  return buf;
}

bool same(const GateModelScore& a, const GateModelScore& b) {
  return a.sw == b.sw && a.to_blend == b.to_blend && a.to_skip == b.to_skip && a.sample == b.sample;
}
bool same(const GateRule& a, const GateRule& b) {
  const GateModelCosts &x = a.c, &y = b.c;
  return same(a.plain, b.plain) && same(a.safe, b.safe) && x.pb == y.pb && x.pe == y.pe && x.pM == y.pM &&
         x.pV4 == y.pV4 && x.ob == y.ob && x.oe == y.oe && x.oM == y.oM && x.oc4 == y.oc4 &&
         a.lambda == b.lambda && a.g1 == b.g1 && a.g2 == b.g2 && a.cap == b.cap &&
         a.tile_blocks == b.tile_blocks && a.gated == b.gated;
}

struct StateHash {
  size_t operator()(const GateModelState& s) const { return s.hash(); }
};

}  // namespace

GateModelCosts GateModelCosts::from(const PilotOptions& o) {
  const double T = (o.D - o.B) / (1.0 - std::max(*o.d_max, -1e12));
  const auto up = [](double x) { return static_cast<int64_t>(std::ceil(x * kGateModelUnit)); };
  const auto dn = [](double x) { return static_cast<int64_t>(std::floor(x * kGateModelUnit)); };
  const double b = 4 * (o.B + T);
  return {up(b), up(4 * o.S), up(o.M), up(4 * o.V), dn(b), dn(4 * o.S), dn(o.M), dn(4 * o.C)};
}

GateRule GateRule::from(const PilotOptions& o) {
  GateRule r;
  const auto score = [](size_t sw, size_t tb, size_t ts, size_t samp) {
    return GateModelScore{static_cast<int>(sw), static_cast<int>(tb), static_cast<int>(ts),
                          static_cast<int>(samp)};
  };
  r.plain = score(o.v6_score_switch, o.v6_score_blend, o.v6_score_skip, o.v6_score_sample);
  r.safe = score(o.v6_safe_switch, o.v6_safe_blend, o.v6_safe_skip, o.v6_safe_sample);
  r.c = GateModelCosts::from(o);
  r.lambda = static_cast<int64_t>(o.v6_gate_lambda);
  const int64_t unit = kGateModelUnit * kGateModelDen;
  r.g1 = static_cast<int64_t>(o.v6_gate_g1) * unit, r.g2 = static_cast<int64_t>(o.v6_gate_g2) * unit;
  r.cap = static_cast<int64_t>(o.v6_gate_cap) * unit;
  r.tile_blocks = static_cast<int>(o.tile / 16);
  r.gated = o.v6_gate == 1;
  return r;
}

GateModelState GateModelState::start(const GateRule& r) {
  GateModelState s;
  s.vs =
      r.c.oM;  // the oracle enters a blend_skip run by a misprediction (its first block against "non-empty")
  return s;
}

size_t GateModelState::hash() const {
  size_t h = static_cast<size_t>(skip) | static_cast<size_t>(prev) << 1 | static_cast<size_t>(safe) << 2 |
             static_cast<size_t>(last) << 3 | static_cast<size_t>(pos) << 4 |
             static_cast<size_t>(score) << 36;
  for (int64_t x : {vr, vs, g}) h ^= std::hash<int64_t>()(x) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

GateBlock gate_step(GateModelState& s, bool ne, const GateRule& r) {
  const GateModelScore& m = s.safe ? r.safe : r.plain;
  const bool empty = !ne;
  if (s.pos == 0) {  // a tile: the score at 0, `last` "non-empty", a blend_skip run a new run
    if (s.skip) s.prev = false;
    s.score = 0, s.last = false;
  }
  const bool verdict = s.pos + 1 < r.tile_blocks;  // no mode switch after a tile's last block
  GateBlock out;
  out.skip = s.skip;
  bool seen = true;
  if (s.skip) {
    out.mispredicted = empty != s.prev;
    out.paid = (empty ? r.c.pe : r.c.pb) + (out.mispredicted ? r.c.pM : 0);
    s.prev = empty;
  } else {
    seen = out.counted = s.pos % m.sample == m.sample - 1;  // tile-relative
    out.paid = r.c.pb + (out.counted ? r.c.pV4 : 0);
  }
  int64_t R = s.vr, S = s.vs;
  gate_oracle_step<int64_t>(R, S, seen, ne, r.c.ob, r.c.oe, r.c.oM, r.c.oc4);
  out.oracle = std::min(R, S);
  s.vr = R - out.oracle, s.vs = S - out.oracle;
  s.g = std::max(s.g + kGateModelDen * out.paid - r.lambda * out.oracle, -r.cap);
  const auto down = [](int x, int by) { return x > by ? x - by : 0; };
  if (s.skip) {
    s.score = down(s.score + (empty != s.last ? m.sw : 0), empty ? 1 : 0);
    s.last = empty;
    if (verdict && s.score >= m.to_blend) s.skip = false, s.score = 0, s.prev = false;
  } else if (seen) {
    s.score = down(s.score + (empty ? 1 : 0), empty != s.last ? m.sw : 0);
    s.last = empty;
    if (verdict && s.score >= m.to_skip)
      s.skip = true, s.prev = false, s.score = m.probation(), s.last = false;
  }
  s.pos = (s.pos + 1) % r.tile_blocks;
  if (r.gated) {
    if (!s.safe && s.g >= -r.g1)
      s.safe = true, s.score = 0;
    else if (s.safe && s.g <= -r.g2)
      s.safe = false, s.score = 0;
  }
  return out;
}

namespace {

// The safe score's states and edges, built once: each edge keeps what the pilot paid and what O_lb's minimum
// rose by, so that the certificate can be valued at any lambda'.
struct GateEdge {
  size_t to = 0;
  int64_t paid = 0, base = 0;
};
struct GateGraph {
  std::vector<std::array<GateEdge, 2>> edges;  // per state, by the block's content (empty, non-empty)
  std::vector<std::pair<int64_t, int64_t>>
      plain;  // (paid, base) of the plain score's blocks from the same states
  size_t start = 0;
  int64_t g1 = 0, cap = 0;
};

GateGraph gate_graph(const GateRule& r, const GateModelScore& score) {
  GateRule S = r, P = r;
  S.gated = false, S.safe = score;
  P.gated = false, P.safe = r.plain;  // the plain score's block from the same states, for delta
  GateGraph G;
  G.g1 = r.g1, G.cap = r.cap;
  // O_lb's vectors: every one reachable from the start through seen and unseen blocks.
  std::vector<std::pair<int64_t, int64_t>> vecs{{0, r.c.oM}};
  for (size_t i = 0; i < vecs.size(); ++i)
    for (bool seen : {false, true})
      for (bool x : {false, true}) {
        auto [R, V] = vecs[i];
        gate_oracle_step<int64_t>(R, V, seen, x, r.c.ob, r.c.oe, r.c.oM, r.c.oc4);
        const std::pair<int64_t, int64_t> next{R - std::min(R, V), V - std::min(R, V)};
        if (std::find(vecs.begin(), vecs.end(), next) == vecs.end()) vecs.push_back(next);
      }
  std::unordered_map<GateModelState, size_t, StateHash> id;
  std::vector<GateModelState> states;
  const auto add = [&](GateModelState t) {
    t.g = 0;
    const auto [it, fresh] = id.emplace(t, states.size());
    if (fresh) states.push_back(t);
    return it->second;
  };
  G.start = add(GateModelState::start(r));
  // Every state a switch to this score can enter: the score at 0; any mode, last, position and vector (in
  // blend_skip the run's block before is `last`; in blend it is unused and false).
  for (bool sk : {false, true})
    for (bool l : {false, true})
      for (int pos = 0; pos < r.tile_blocks; ++pos)
        for (const auto& [vr, vs] : vecs) {
          GateModelState t;
          t.skip = sk, t.last = l, t.prev = sk && l, t.pos = pos, t.vr = vr, t.vs = vs;
          add(t);
        }
  std::set<std::pair<int64_t, int64_t>> plain;
  for (size_t i = 0; i < states.size(); ++i) {  // states grows as the edges reach new ones
    std::array<GateEdge, 2> e;
    for (int x = 0; x < 2; ++x) {
      GateModelState t = states[i];
      const GateBlock k = gate_step(t, x, S);
      e[x] = {add(t), k.paid, k.oracle};
      GateModelState p = states[i];
      const GateBlock q = gate_step(p, x, P);
      plain.emplace(q.paid, q.oracle);
    }
    G.edges.push_back(e);
  }
  G.plain.assign(plain.begin(), plain.end());
  return G;
}

// What g (h, at the value's lambda) takes on a block from a state with g at 0 (the clamp as gate_step's: it
// only raises the increment, so W stays an upper bound of the unclamped one).
int64_t gain_of(int64_t paid, int64_t base, int64_t lambda, int64_t cap) {
  return std::max(kGateModelDen * paid - lambda * base, -cap);
}

// W' at lambda' (1/100) over the graph: the certificate at lambda'.
GateCertificate value_graph(const GateGraph& G, int64_t lambda, size_t max_iter) {
  const double unit = static_cast<double>(kGateModelUnit * kGateModelDen);
  const size_t n = G.edges.size();
  std::vector<std::array<std::pair<size_t, int64_t>, 2>> edges(n);
  int64_t delta = std::numeric_limits<int64_t>::min(), gain = 0;
  for (size_t i = 0; i < n; ++i)
    for (int x = 0; x < 2; ++x) {
      const GateEdge& e = G.edges[i][x];
      edges[i][x] = {e.to, gain_of(e.paid, e.base, lambda, G.cap)};
      delta = std::max(delta, edges[i][x].second), gain = std::max(gain, edges[i][x].second);
    }
  for (const auto& [paid, base] : G.plain) delta = std::max(delta, gain_of(paid, base, lambda, G.cap));
  // Without a cycle that gains g, the most a path gains is a simple path's, below states x the most an edge
  // gains: above that the iteration diverges (a backstop). The early stop: W only rises, each state's W set
  // by one edge (its parent) when it rose; with the parents a forest, W(s) is at most its tree path's gain (a
  // simple path's), so a diverging iteration soon closes a cycle of parents, which gains g (its gain summed
  // here: a proof of divergence, whatever the lemma).
  const int64_t diverged = static_cast<int64_t>(n) * gain + 1;
  std::vector<int64_t> W(n, 0);
  std::vector<uint8_t> parent(n, 2);  // the edge that set W (2: none, W = 0)
  std::vector<uint32_t> mark(n, 0);
  GateCertificate out;
  out.lambda = lambda;
  bool changed = true, cycle = false;
  for (; changed && !cycle && out.iterations < max_iter; ++out.iterations) {
    changed = false;
    for (size_t i = n; i-- > 0;) {
      int64_t w = W[i];
      uint8_t arg = parent[i];
      for (uint8_t x = 0; x < 2; ++x)
        if (edges[i][x].second + W[edges[i][x].first] > w)
          w = edges[i][x].second + W[edges[i][x].first], arg = x;
      if (w != W[i]) W[i] = w, parent[i] = arg, changed = true;
    }
    if (!changed) break;
    if (*std::max_element(W.begin(), W.end()) > diverged) {
      ++out.iterations;
      break;
    }
    // A cycle of parents: walk each state's parents (marked by the walk's start; stopped at a state seen
    // before).
    std::fill(mark.begin(), mark.end(), 0);
    for (size_t i = 0; i < n && !cycle; ++i) {
      size_t j = i;
      while (parent[j] != 2 && mark[j] == 0)
        mark[j] = static_cast<uint32_t>(i + 1), j = edges[j][parent[j]].first;
      if (parent[j] == 2 || mark[j] != i + 1) continue;  // a root, or a state an earlier walk ended in
      int64_t around = 0;                                // j is on a cycle closed by this walk
      size_t k = j;
      do around += edges[k][parent[k]].second, k = edges[k][parent[k]].first;
      while (k != j);
      cycle = around > 0;
    }
    if (cycle) ++out.iterations;
  }
  out.converged = !changed, out.states = n;
  const int64_t wmax = *std::max_element(W.begin(), W.end());
  out.w_start = static_cast<double>(W[G.start]) / unit;
  out.w_max = static_cast<double>(wmax) / unit;
  out.delta = static_cast<double>(delta) / unit;
  out.gmax = static_cast<double>(std::max(W[G.start], -G.g1 + delta + wmax)) / unit;
  if (!out.converged || W[G.start] == 0) return out;
  // The argmax path: over the tight edges (dg + W(s') = W(s) > 0), the fewest blocks to a state with W = 0 (W
  // is the least fixed point in integers: some finite path from every state reaches W(s)), from the start,
  // empty first.
  std::vector<std::vector<size_t>> into(n);
  for (size_t i = 0; i < n; ++i)
    for (const auto& [j, dg] : edges[i])
      if (W[i] > 0 && dg + W[j] == W[i]) into[j].push_back(i);
  std::vector<size_t> dist(n, SIZE_MAX);
  std::deque<size_t> q;
  for (size_t i = 0; i < n; ++i)
    if (W[i] == 0) dist[i] = 0, q.push_back(i);
  for (; !q.empty(); q.pop_front())
    for (size_t i : into[q.front()])
      if (dist[i] == SIZE_MAX) dist[i] = dist[q.front()] + 1, q.push_back(i);
  for (size_t i = G.start; W[i] > 0 && dist[i] != SIZE_MAX;) {
    for (int x = 0; x < 2; ++x) {
      const auto& [j, dg] = edges[i][x];
      if (dg + W[j] == W[i] && dist[j] + 1 == dist[i]) {
        out.path.push_back(x), i = j;
        break;
      }
    }
  }
  return out;
}

}  // namespace

GateCertificate certify_score(const GateRule& r, const GateModelScore& score, size_t max_iter,
                              std::optional<int64_t> lambda) {
  return value_graph(gate_graph(r, score), lambda.value_or(r.lambda), max_iter);
}

GateCertificate certify_gate(const PilotOptions& o, size_t max_iter) {
  // One entry per thread: bound_unsupported and regret_bound ask for the same options in turn.
  thread_local std::optional<std::tuple<GateRule, size_t, GateCertificate>> last;
  const GateRule r = GateRule::from(o);
  if (last && same(std::get<0>(*last), r) && std::get<1>(*last) == max_iter) return std::get<2>(*last);
  const GateGraph G = gate_graph(r, r.safe);
  // The least lambda' >= lambda whose W converges (W at lambda' falls as lambda' rises: a cycle's gain does,
  // O_lb's rises being >= 0): lambda itself, else lambda + 1, 2, 4, ... until one converges, then bisection
  // between it and the last that did not.
  const int64_t cap = r.lambda + kGateLambdaReach;
  GateCertificate c = value_graph(G, r.lambda, max_iter);
  size_t tried = 1;
  if (!c.converged) {
    int64_t lo = r.lambda, step = 1;
    for (;;) {
      const int64_t hi = std::min(r.lambda + step, cap);
      GateCertificate h = value_graph(G, hi, max_iter);
      ++tried;
      c = std::move(h);
      if (c.converged || hi == cap) break;
      lo = hi, step *= 2;
    }
    for (int64_t hi = c.lambda; c.converged && hi - lo > 1;) {
      const int64_t mid = lo + (hi - lo) / 2;
      GateCertificate m = value_graph(G, mid, max_iter);
      ++tried;
      if (m.converged)
        hi = mid, c = std::move(m);
      else
        lo = mid;
    }
  }
  c.tried = tried;
  last.emplace(r, max_iter, c);
  return c;
}

std::string gate_oracle_unsupported(const CostModel& m, Fn f) {
  const double bsl = 4 * m.t_bsl(f), c4 = 4 * m.C;
  for (const Strategy s : {Strategy::blend, Strategy::blend_skip, Strategy::detour, Strategy::detour_skip,
                           Strategy::compact, Strategy::compact_skip}) {
    const StrategyTerms t = terms(m, f, s);
    // A non-empty block: its own cost, at least one non-empty register, its registers expanded (the run
    // selects).
    const double ne = t.full + t.nonempty_reg + 4 * t.expand_any;
    if (ne < bsl)
      return "the gate's O_lb charges a non-empty block a blend (" + ns(bsl) + " ns), but " +
             std::string(name(s)) + " costs one " + ns(ne) +
             " ns: O_lb would not be a lower bound of the oracle";
    if (t.sw == 0 && t.empty < std::min(c4, bsl))
      return "the gate's O_lb charges an empty block outside a skip run the lesser of a detour over it and a "
             "blend (" +
             ns(std::min(c4, bsl)) + " ns), but " + std::string(name(s)) + " costs one " + ns(t.empty) +
             " ns: O_lb would not be a lower bound of the oracle";
    if (t.sw > 0 && (t.empty < 4 * m.S || t.sw < m.M))
      return std::string(name(s)) + " skips an empty block for less than 4 S or switches for less than M";
  }
  return {};
}

std::string gate_options_unsupported(const PilotOptions& o) {
  if (!o.d_max) return "the gate needs an injected d_max";
  CostModel mo;  // the costs the gate assumes, T from d_max (as the kernel's GateCosts)
  mo.B = o.B, mo.D = o.D, mo.C = o.C, mo.S = o.S, mo.K = o.K, mo.M = o.M, mo.V = o.V, mo.F = 0;
  mo.T[static_cast<size_t>(Fn::sqrt)] = (o.D - o.B) / (1.0 - std::max(*o.d_max, -1e12));
  if (const std::string e = gate_oracle_unsupported(mo, Fn::sqrt); !e.empty())
    return e + " (the options' costs)";
  const GateCertificate c = certify_gate(o);
  if (!c.converged)
    return "the gate's safe score (v6_safe_*) loses more than lambda' against O_lb in the long run for every "
           "lambda' from v6_gate_lambda / 100 to " +
           ns(static_cast<double>(c.lambda) / kGateModelDen) +
           " (or its value iteration ran out): its W' converges at none of them";
  return {};
}

std::string gate_model_unsupported(const PilotOptions& o, const CostModel& m, Fn f) {
  if (!o.d_max) return "the gate needs an injected d_max";
  const GateModelCosts c = GateModelCosts::from(o);
  const double u = static_cast<double>(kGateModelUnit);
  const struct {
    const char* what;
    int64_t have;
    double truth;
    bool pilot;
  } terms_[] = {{"a blended block (4 (B + T))", c.pb, 4 * m.t_bsl(f), true},
                {"a skipped block (4 S)", c.pe, 4 * m.S, true},
                {"a misprediction (M)", c.pM, m.M, true},
                {"a count (4 V)", c.pV4, 4 * m.V, true},
                {"a blended block (4 (B + T))", c.ob, 4 * m.t_bsl(f), false},
                {"a skipped block (4 S)", c.oe, 4 * m.S, false},
                {"a misprediction (M)", c.oM, m.M, false},
                {"a detoured empty block (4 C)", c.oc4, 4 * m.C, false}};
  for (const auto& t : terms_)
    if (t.pilot ? static_cast<double>(t.have) < t.truth * u : static_cast<double>(t.have) > t.truth * u)
      return std::string("the gate's integer costs (from the options) do not dominate the model's for ") +
             std::string(kFnNames[static_cast<size_t>(f)]) + ": " +
             (t.pilot ? "the pilot's " : "the oracle's ") + t.what + " is " +
             ns(static_cast<double>(t.have) / u) + " ns against the model's " + ns(t.truth) +
             " (the options must carry the model's costs: model_options)";
  return gate_oracle_unsupported(m, f);
}

}  // namespace maskapply::gen::hunt
