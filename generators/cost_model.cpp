// SPDX-License-Identifier: MIT
#include "cost_model.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace maskapply::gen {

double ns_per_register(double gib) { return 16.0 / (gib * 1.073741824); }
double gib_per_s(double ns) { return 16.0 / (ns * 1.073741824); }

double CostModel::d_max(Fn f) const { return 1.0 - (D - B) / std::max(1e-9, T[static_cast<size_t>(f)]); }

CostModel CostModel::m5() {
  CostModel m;
  m.name = "m5";
  // B and D: the article's measured constants (ns per register).
  m.B = 0.3, m.D = 0.845;
  // C: detour over an all-empty span does compress only; the article's detour at thd = 0 runs 38.03 / 38.16 /
  // 38.09 GiB/s (sqrt / sin35 / pow10), mean 38.09 -> 0.3912 ns per register. E = D - C = 0.4538.
  m.C = ns_per_register(38.09);
  // S: pilot_v2 at thd = 0 (detour_skip, every block skipped) runs 77.29 GiB/s -> 0.1928 ns per register.
  m.S = ns_per_register(77.29);
  // K: compact's bookkeeping, fitted to the article's pilot_v2 (detour) vs pilot_v3 (compact) at thd = 0.02:
  // sin35 23.71 GiB/s and pow10 16.54 GiB/s give K = 0.177 and 0.188; the mean is 0.18.
  m.K = 0.18;
  // M: a branch misprediction on M5 (~13 cycles at ~4.4 GHz); not from the article.
  m.M = 3.0;
  // V: "1 instruction per register" (the article's vsub in bsl_verified).
  m.V = 0.02;
  // Q: the probe's load + compare + vsub per register, the same work as a skipped register.
  m.Q = m.S;
  // T: from the article's BSL throughputs, T = t_bsl - B with t_bsl = 16 B / (GiB/s).
  const auto t = [&](Fn f, double gib) { m.T[static_cast<size_t>(f)] = ns_per_register(gib) - m.B; };
  t(Fn::sqrt, 32.1), t(Fn::frfrexp, 16.8), t(Fn::sin35, 9.7), t(Fn::sin10, 4.8), t(Fn::pow10, 1.02);
  t(Fn::fma13, 15.6);
  m.T[static_cast<size_t>(Fn::bits_inc)] = 0.02;  // one integer add per register; not in the article
  return m;
}

std::string CostModel::to_json() const {
  nlohmann::ordered_json j;
  j["model"] = name;
  j["B"] = B, j["D"] = D, j["C"] = C, j["S"] = S, j["K"] = K, j["M"] = M, j["V"] = V, j["Q"] = Q, j["F"] = F;
  nlohmann::ordered_json tj;
  for (size_t i = 0; i < kFnNames.size(); ++i) tj[std::string(kFnNames[i])] = T[i];
  j["T"] = tj;
  return j.dump(2) + "\n";
}

std::variant<CostModel, std::string> CostModel::from_json(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::string("not a JSON object");
  CostModel m;
  const auto num = [&](const nlohmann::json& o, const std::string& k, double& out) -> std::string {
    if (!o.contains(k) || !o[k].is_number()) return "missing number '" + k + "'";
    out = o[k].get<double>();
    if (!std::isfinite(out) || out < 0) return "'" + k + "' must be finite and >= 0";
    return {};
  };
  if (j.contains("model") && j["model"].is_string()) m.name = j["model"].get<std::string>();
  for (const auto& [k, p] : {std::pair{"B", &m.B}, {"D", &m.D}, {"C", &m.C}, {"S", &m.S}, {"K", &m.K},
                             {"M", &m.M}, {"V", &m.V}, {"Q", &m.Q}})
    if (std::string e = num(j, k, *p); !e.empty()) return e;
  m.F = 0;  // optional: files written before F existed have none
  if (j.contains("F"))
    if (std::string e = num(j, "F", m.F); !e.empty()) return e;
  if (m.C > m.D) return std::string("C (compress) must not exceed D (compress + expand)");
  if (!j.contains("T") || !j["T"].is_object()) return std::string("missing object 'T' (f per register)");
  for (size_t i = 0; i < kFnNames.size(); ++i)
    if (std::string e = num(j["T"], std::string(kFnNames[i]), m.T[i]); !e.empty()) return "T: " + e;
  return m;
}

SpanStats span_stats(std::span<const uint8_t> sel) {
  SpanStats st;
  st.len = sel.size();
  st.body = st.len & ~size_t{15};
  st.registers = st.body / 4;
  st.blocks = st.body / 16;
  st.tail = st.len - st.body;
  bool prev_empty = false;
  for (size_t b = 0; b < st.blocks; ++b) {
    size_t block = 0;
    for (size_t r = 0; r < 4; ++r) {
      size_t c = 0;
      for (size_t l = 0; l < 4; ++l) c += sel[b * 16 + r * 4 + l] != 0;
      st.nonempty_registers += c != 0;
      block += c;
    }
    st.selected += block;
    const bool empty = block == 0;
    st.empty_blocks += empty;
    st.switches += empty != prev_empty;
    prev_empty = empty;
  }
  for (size_t i = st.body; i < st.len; ++i) st.tail_selected += sel[i] != 0;
  return st;
}

StrategyTerms terms(const CostModel& m, Fn f, Strategy s) {
  const double T = m.T[static_cast<size_t>(f)];
  const double bsl = 4 * (m.B + T), group = 4 * (T + m.F);
  StrategyTerms t;
  switch (s) {
    case Strategy::blend: t.full = t.empty = bsl; break;
    case Strategy::blend_skip: t.full = bsl, t.empty = 4 * m.S, t.sw = m.M; break;
    case Strategy::blend_verified: t.full = t.empty = 4 * (m.B + T + m.V); break;
    case Strategy::blend_skip_verified: t.full = 4 * (m.B + T + m.V), t.empty = 4 * m.S, t.sw = m.M; break;
    case Strategy::detour: t.full = t.empty = 4 * m.C, t.expand_any = m.E(), t.group = group; break;
    case Strategy::detour_skip:
      t.full = 4 * m.C, t.empty = 4 * m.S, t.sw = m.M, t.expand_any = m.E(), t.group = group;
      break;
    case Strategy::compact: t.full = t.empty = 4 * (m.C + m.K), t.nonempty_reg = m.E(), t.group = group; break;
    case Strategy::compact_skip:
      t.full = 4 * (m.C + m.K), t.empty = 4 * m.S, t.sw = m.M, t.nonempty_reg = m.E(), t.group = group;
      break;
  }
  t.windowed = s == Strategy::detour || s == Strategy::detour_skip || s == Strategy::compact ||
               s == Strategy::compact_skip;
  return t;
}

double strategy_cost(const CostModel& m, Fn f, Strategy s, const SpanStats& st) {
  const StrategyTerms t = terms(m, f, s);
  const double G = static_cast<double>(st.blocks), Ge = static_cast<double>(st.empty_blocks);
  const double groups = static_cast<double>((st.selected + 15) / 16);
  return (G - Ge) * t.full + Ge * t.empty + static_cast<double>(st.nonempty_registers) * t.nonempty_reg +
         (st.selected ? static_cast<double>(st.registers) * t.expand_any : 0.0) +
         static_cast<double>(st.switches) * t.sw + groups * t.group + (st.tail ? tail_cost(m, f) : 0.0);
}

double probe_cost(const CostModel& m, size_t len) { return static_cast<double>(4 * ((len + 15) / 16)) * m.Q; }

}  // namespace maskapply::gen
