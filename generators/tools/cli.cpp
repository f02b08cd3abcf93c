// SPDX-License-Identifier: MIT
// `maskapply`: report, check, calibrate, families, gen. Argument parsing (CLI11) and the small commands; the
// report is in report.cpp.
#include "cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "article.h"
#include "commands.h"
#include "evaluate.h"
#include "families.h"
#include "pattern.h"
#include "provenance.h"
#include "tune.h"

namespace maskapply::cli {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string fn_names() {
  std::string names;
  for (std::string_view n : kFnNames) names += (names.empty() ? "" : ", ") + std::string(n);
  return names;
}

std::string kernel_names(const std::vector<Kernel>& all) {
  std::string names;
  for (Kernel n : all) names += (names.empty() ? "" : ", ") + std::string(name(n));
  return names;
}

std::vector<Fn> parse_fns(const std::string& list, const std::vector<Fn>& all) {
  if (list == "all") return all;
  std::vector<Fn> out;
  for (const std::string& s : split(list, ',')) {
    const auto f = fn_from_name(s);
    if (!f) throw Usage("unknown f '" + s + "' (known: " + fn_names() + ", or all)");
    out.push_back(*f);
  }
  return out;
}

std::vector<Kernel> parse_kernels(const std::string& list, const std::vector<Kernel>& all) {
  if (list == "all") return all;
  std::vector<Kernel> out;
  for (const std::string& s : split(list, ',')) {
    const auto k = kernel_from_name(s);
    if (!k || std::find(all.begin(), all.end(), *k) == all.end())
      throw Usage("unknown kernel '" + s + "' (known: " + kernel_names(all) + ", or all)");
    out.push_back(*k);
  }
  return out;
}

CLI::Validator names_check(const std::string& names, std::function<void(const std::string&)> parse) {
  return CLI::Validator(
      [parse](std::string& list) {
        try {
          parse(list);
          return std::string();
        } catch (const Usage& e) {
          return std::string(e.what());
        }
      },
      "{" + names + "}");
}

std::optional<gen::CostModel> load_model(const std::string& which, const std::string& file) {
  if (which.empty()) return std::nullopt;
  if (which == "m5") return gen::CostModel::m5();
  if (which != "host") {  // a file written by `maskapply calibrate`
    std::error_code ec;
    if (!std::filesystem::is_regular_file(which, ec))
      throw Usage("unknown model '" + which + "' (known: m5, host, or a model file written by `maskapply calibrate`)");
    return load_model("host", which);
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Usage("cannot read host model '" + file + "': run `maskapply calibrate` first (or --model-file)");
  std::stringstream ss;
  ss << in.rdbuf();
  auto m = gen::CostModel::from_json(ss.str());
  if (auto* e = std::get_if<std::string>(&m)) throw Usage("malformed host model '" + file + "': " + *e);
  return std::get<gen::CostModel>(m);
}

std::string json_escape(const std::string& s) { return nlohmann::json(s).dump(); }

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    if (!o) throw std::runtime_error("cannot write '" + tmp + "'");
    o << text;
    if (!o.flush()) throw std::runtime_error("cannot write '" + tmp + "'");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "': " + ec.message());
}

namespace {

const std::vector<Fn> kArticleFnList(kArticleFns.begin(), kArticleFns.end());
const std::vector<Kernel> kKernelList(kAllKernels.begin(), kAllKernels.end());
const std::vector<Kernel> kPilotKernels = [] {
  std::vector<Kernel> v;
  std::copy_if(kAllKernels.begin(), kAllKernels.end(), std::back_inserter(v), is_pilot);
  return v;
}();

std::string read_file(const std::string& path, size_t limit) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Usage("cannot read '" + path + "': not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw Usage("cannot read '" + path + "': " + ec.message());
  if (size > limit) throw Usage("'" + path + "' is too large (" + std::to_string(size) + " bytes)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Usage("cannot read '" + path + "'");
  std::string s(static_cast<size_t>(size), '\0');
  in.read(s.data(), static_cast<std::streamsize>(size));
  if (static_cast<size_t>(in.gcount()) != size) throw Usage("cannot read all of '" + path + "'");
  return s;
}

// Little-endian float32 file.
std::vector<float> read_f32(const std::string& path) {
  const std::string bytes = read_file(path, kMaxElements * 4);
  if (bytes.empty()) throw Usage("'" + path + "' is empty: expected little-endian float32 values");
  if (bytes.size() % 4) throw Usage("'" + path + "' has " + std::to_string(bytes.size()) +
                                    " bytes, not a multiple of 4: expected little-endian float32 values");
  std::vector<float> a(bytes.size() / 4);
  for (size_t i = 0; i < a.size(); ++i) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + 4 * i);
    const uint32_t u = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
    std::memcpy(&a[i], &u, 4);
  }
  return a;
}

std::string to_f32_bytes(const std::vector<float>& a) {
  std::string s(a.size() * 4, '\0');
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &a[i], 4);
    for (int b = 0; b < 4; ++b) s[4 * i + b] = static_cast<char>((u >> (8 * b)) & 0xff);
  }
  return s;
}

// A pattern file and what it records for check (hunt/pattern_file.h: options, d_max and its source, the model).
std::pair<gen::Pattern, gen::hunt::Recorded> read_pattern(const std::string& path) {
  const std::string text = read_file(path, 64 << 20);
  const gen::ParseResult r = gen::parse_pattern(text);
  if (!r) throw Usage("malformed pattern '" + path + "': " + r.error().message());
  auto rec = gen::hunt::read_recorded(text);
  if (auto* e = std::get_if<std::string>(&rec)) throw Usage("malformed recorded lines in '" + path + "': " + *e);
  return {r.pattern(), std::get<gen::hunt::Recorded>(rec)};
}

nlohmann::ordered_json options_json(const PilotOptions& o) {
  nlohmann::ordered_json j;
  for_each_option_field([&](const char* k, auto PilotOptions::*p) { j[k] = o.*p; });
  j["d_max"] = o.d_max ? nlohmann::json(*o.d_max) : nlohmann::json(nullptr);
  return j;
}

}  // namespace

namespace {

std::string runs_text(const std::vector<Run>& runs, size_t begin, size_t end) {
  std::string t;
  for (const Run& r : runs) {
    if (r.end <= begin || r.begin >= end) continue;
    t += (t.empty() ? "" : ", ") + std::string(name(r.strategy)) + " [" + std::to_string(std::max(r.begin, begin)) +
         ", " + std::to_string(std::min(r.end, end)) + ")";
  }
  return t;
}

nlohmann::ordered_json runs_json(const std::vector<Run>& runs, size_t begin, size_t end) {
  nlohmann::ordered_json j = nlohmann::json::array();
  for (const Run& r : runs)
    if (r.end > begin && r.begin < end)
      j.push_back({{"strategy", std::string(name(r.strategy))}, {"begin", std::max(r.begin, begin)},
                   {"end", std::min(r.end, end)}});
  return j;
}

nlohmann::json num_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

}  // namespace

int check(const CheckArgs& a, std::ostream& out, std::ostream& err) {
  if (a.pattern.empty() == a.input.empty()) throw Usage("give exactly one of --pattern FILE and --input FILE.f32");
  if (!std::isfinite(a.thd) && !(a.thd == INFINITY)) throw Usage("--thd must be a number (not NaN or -inf)");
  if (a.dmax && std::isnan(*a.dmax)) throw Usage("--dmax must be a number");
  if (a.dmax && a.timed) throw Usage("give at most one of --dmax and --timed-dmax");
  const std::vector<Fn> fns = parse_fns(a.fns, kArticleFnList);
  const std::vector<Kernel> kernels = parse_kernels(a.kernels, kKernelList);
  // One model for the decisions (its d_max) and the costs, unless --dmax or --timed-dmax says otherwise.
  const gen::CostModel model = *load_model(a.model.empty() ? "m5" : a.model, a.model_file);

  std::vector<float> input;
  std::string source;
  gen::hunt::Recorded rec;  // what a pattern file records (hunt's and the regret fuzz target's files)
  if (!a.input.empty()) {
    if (a.n) throw Usage("--n applies to --pattern only (an --input file has its own size)");
    input = read_f32(a.input);
    source = a.input;
  } else {
    const auto [p, r] = read_pattern(a.pattern);
    rec = r;
    const uint64_t n = a.n ? *a.n : p.length ? p.length : std::max<uint64_t>(2 * p.period, 24 * 4096);
    if (n == 0 || n > kMaxElements)
      throw Usage("impossible size n = " + std::to_string(n) + " (from --n or the pattern): give 1 to 2^26");
    input = gen::make_data(gen::selection(p, static_cast<size_t>(n)), a.thd, a.seed, gen::Specials{a.specials});
    source = a.pattern;
  }
  const size_t n = input.size();
  // The pilots' options: the recorded ones (every field), else the article's; d_max from --dmax, timed, the
  // recorded --dmax, or the model. With --timed-dmax every other constant still comes from the model: the
  // calibration's B and D (d_max = 1 - (D - B) / T with T timed) and v5's C, S, K and M.
  const std::optional<double> dmax =
      a.dmax ? a.dmax : !a.timed && rec.dmax_source == "--dmax" && rec.options ? rec.options->d_max : std::nullopt;
  const std::string dmax_source = a.dmax ? "--dmax" : a.timed ? "timed on this host (bsl_calibrate)"
                                  : dmax ? "--dmax recorded in the file" : "model " + model.name;
  const std::string model_hash = gen::hunt::model_hash(model);
  const bool model_matches = rec.model_hash.empty() || rec.model_hash == model_hash;
  nlohmann::ordered_json j;
  j["source"] = source;
  j["n"] = n;
  j["thd"] = a.thd;
  j["seed"] = a.seed;
  j["model"] = model.name;
  j["dmax_source"] = dmax_source;
  if (dmax) j["dmax"] = *dmax;
  j["model_hash"] = model_hash;
  if (rec.options || !rec.model_hash.empty()) {
    nlohmann::ordered_json rj;
    rj["options"] = rec.options ? options_json(*rec.options) : nlohmann::ordered_json(nullptr);
    rj["dmax_source"] = rec.dmax_source;
    rj["model"] = rec.model_name, rj["model_file"] = rec.model_file, rj["model_hash"] = rec.model_hash;
    rj["model_matches"] = model_matches;
    j["recorded"] = rj;
  }
  for (const auto& [k, v] : gen::fields(gen::provenance())) j["provenance"][k] = v;
  nlohmann::ordered_json results = nlohmann::json::array();
  if (!a.json) {
    out << "check " << source << ": n=" << n << " thd=" << a.thd << " seed=" << a.seed << "; costs under model "
        << model.name << ", pilots' d_max from " << dmax_source << "\n";
    if (a.timed)
      out << "note: the pilots time d_max on this host (T timed; the calibration's B and D from model " << model.name
          << "), v5's plan constants C, S, K, M and the costs from model " << model.name
          << " (two machines unless --model host)\n";
    if (rec.options)
      out << "options recorded in the file: " << gen::hunt::options_text(*rec.options) << "\n";
    if (!model_matches)
      out << "note: the file was written under model " << rec.model_name
          << (rec.model_file.empty() ? "" : " (" + rec.model_file + ")") << ", hash " << rec.model_hash
          << "; this run's model " << model.name << " has hash " << model_hash
          << ": its figures are not the recorded ones\n";
  }
  bool all_exact = true;
  for (Fn f : fns) {
    const std::vector<float> expected = gen::oracle_output(input, f, a.thd);
    PilotOptions o = gen::options_for(rec.options.value_or(PilotOptions{}), f, &model, dmax);
    if (a.timed) o.d_max.reset();  // the pilot times blend for T
    for (Kernel k : kernels) {
      const gen::Evaluation e = gen::evaluate(k, f, a.thd, input, expected, o, model, a.corrupt_for_test);
      all_exact = all_exact && e.bit_exact;
      nlohmann::ordered_json r;
      r["kernel"] = std::string(name(k));
      r["f"] = std::string(name(f));
      r["bit_exact"] = e.bit_exact;
      r["mismatches"] = e.mismatches;
      const bool has_regret = e.regret && !std::isnan(e.regret->vs_oracle);
      const gen::Regret* g = has_regret ? &*e.regret : nullptr;
      r["model_regret"] = g ? num_or_null(g->vs_oracle) : nlohmann::json(nullptr);
      r["model_regret_whole"] = g ? num_or_null(g->whole) : nlohmann::json(nullptr);
      r["model_regret_vs_tile_oracle"] = g ? num_or_null(g->vs_tile_oracle) : nlohmann::json(nullptr);
      r["model_regret_vs_fixed"] = g ? num_or_null(g->vs_fixed) : nlohmann::json(nullptr);
      r["best_fixed"] = g ? nlohmann::json(std::string(name(g->fixed_strategy))) : nlohmann::json(nullptr);
      r["on_block_grid"] = g ? nlohmann::json(g->aligned) : nlohmann::json(nullptr);
      r["d_max"] = e.d_max ? nlohmann::json(*e.d_max) : nlohmann::json(nullptr);
      r["d_max_source"] = is_pilot(k) ? nlohmann::json(dmax_source) : nlohmann::json(nullptr);
      r["options"] = is_pilot(k) ? options_json(o) : nlohmann::ordered_json(nullptr);
      if (g)
        r["model_cost_ns"] = {{"pilot", g->pilot_cost},          {"oracle", g->oracle_cost},
                              {"tile_oracle", g->tile_oracle_cost}, {"fixed", g->fixed_cost},
                              {"probes", g->probe_cost},          {"calibration", g->calibration_cost},
                              {"whole_pilot", g->whole_pilot_cost}, {"whole_oracle", g->whole_oracle_cost}};
      if (e.first)
        r["first_mismatch"] = {{"index", e.first->index}, {"tile", e.first->tile}, {"strategy", e.first->strategy},
                               {"input", e.first->input}, {"expected", e.first->expected},
                               {"actual", e.first->actual}};
      else
        r["first_mismatch"] = nullptr;
      if (!e.message.empty()) r["message"] = e.message;
      // --trace: per decided tile what the pilot saw and did, what the oracle did there, the gap.
      nlohmann::ordered_json tj = nlohmann::json::array();
      std::ostringstream tt;
      if (a.trace && e.regret) {
        size_t next = 0;
        for (const TileDecision& d : e.trace.tiles) {
          if (d.source == CountSource::calibration) continue;
          const gen::TileCost* c = next < e.regret->per_tile.size() ? &e.regret->per_tile[next++] : nullptr;
          if (!c) break;
          nlohmann::ordered_json t;
          t["tile"] = d.index, t["begin"] = d.begin, t["end"] = d.end;
          t["count"] = d.count, t["count_source"] = std::string(name(d.source));
          t["hi"] = d.hi, t["xlo"] = d.xlo, t["lo"] = d.lo;
          t["bail"] = d.bail == kNoBail ? nlohmann::json(nullptr) : nlohmann::json(d.bail);
          t["distrust_after"] = d.distrust;
          t["pilot_runs"] = runs_json(e.trace.runs, d.begin, d.end);
          t["oracle_runs"] = runs_json(e.regret->oracle.runs, d.begin, d.end);
          t["pilot_ns"] = c->pilot, t["oracle_ns"] = c->oracle, t["gap_ns"] = c->pilot - c->oracle;
          t["tile_oracle"] = std::string(name(gen::kOracleStrategies[c->best]));
          tj.push_back(t);
          tt << "  tile " << d.index << " [" << d.begin << ", " << d.end << "): count " << d.count << " ("
             << name(d.source) << "), hi " << d.hi << " xlo " << d.xlo << " lo " << d.lo;
          if (d.bail != kNoBail) tt << ", bailed at " << d.bail;
          if (d.distrust) tt << ", distrust " << d.distrust;
          tt << "\n    pilot  " << fixed(c->pilot, 1) << " ns: " << runs_text(e.trace.runs, d.begin, d.end)
             << "\n    oracle " << fixed(c->oracle, 1) << " ns: " << runs_text(e.regret->oracle.runs, d.begin, d.end)
             << "\n    gap    " << fixed(c->pilot - c->oracle, 1) << " ns\n";
        }
        r["trace"] = tj;
      }
      results.push_back(r);
      if (a.json) continue;
      char line[160];
      std::snprintf(line, sizeof line, "%-15s %-8s ", std::string(name(k)).c_str(), std::string(name(f)).c_str());
      out << line;
      if (e.bit_exact) {
        out << "bit-exact";
      } else {
        out << "MISMATCH " << e.mismatches << " of " << n;
        if (e.first)
          out << ": first at index " << e.first->index << " (tile " << e.first->tile << ", strategy "
              << e.first->strategy << "): input " << e.first->input << " expected " << e.first->expected
              << " actual " << e.first->actual;
        else
          out << ": " << e.message;
      }
      if (e.regret && !has_regret) out << "  model regret n/a (no tile decided after the calibration region)";
      if (g)
        out << "  model regret " << fixed(g->vs_oracle, 4) << " (whole array " << fixed(g->whole, 4)
            << "; vs tile oracle " << fixed(g->vs_tile_oracle, 4) << ", vs best fixed " << name(g->fixed_strategy)
            << " " << fixed(g->vs_fixed, 4) << (g->aligned ? "" : "; off the block grid: not a bound") << ")  d_max "
            << fixed(e.d_max.value_or(NAN), 4);
      out << "\n" << tt.str();
    }
  }
  j["results"] = results;
  if (a.json) out << j.dump(2) << "\n";
  if (!all_exact) err << "maskapply check: some runs were not bit-exact\n";
  return all_exact ? 0 : 1;
}

int calibrate(const CalibrateArgs& a, std::ostream& out, std::ostream& err) {
  if (a.tiles == 0 || a.tiles * 4096 > kMaxElements) throw Usage("--tiles must be in [1, 16384]");
  if (a.reps < 1 || a.reps > 1000) throw Usage("--reps must be in [1, 1000]");
  {
    const std::filesystem::path p(a.out);
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) throw Usage("--out '" + a.out + "' is a directory");
  }
  if (gen::under_emulation())
    err << "maskapply calibrate: warning: running under an emulator, the timings describe the emulator\n";
  const size_t n = a.tiles * 4096;
  const uint64_t seed = 1;
  const std::vector<float> data = gen::uniform(n, seed);
  const double regs = static_cast<double>(n) / 4.0;
  PilotOptions o;
  o.d_max = 0.0;  // blend_verified never bails
  const auto per_reg = [&](Kernel k, Fn f, float thd, const std::vector<float>& in) {
    return gen::time_kernel(k, f, thd, in, o, a.reps) / regs;
  };
  gen::CostModel m = gen::CostModel::m5();
  m.name = "host";
  m.B = per_reg(Kernel::blend, Fn::bits_inc, 1.0f, data);  // f is one integer add: the blend overhead
  for (Fn f : kArticleFns) m.T[static_cast<size_t>(f)] = std::max(0.0, per_reg(Kernel::blend, f, 1.0f, data) - m.B);
  m.T[static_cast<size_t>(Fn::bits_inc)] = 0;
  m.C = per_reg(Kernel::detour, Fn::bits_inc, 0.0f, data);        // nothing selected: compress only
  m.D = std::max(m.C, per_reg(Kernel::detour, Fn::bits_inc, 1.0f, data));
  m.S = per_reg(Kernel::detour_skip, Fn::bits_inc, 0.0f, data);   // every block skipped
  m.Q = m.S;
  m.K = std::max(0.0, per_reg(Kernel::compact, Fn::bits_inc, 0.0f, data) - m.C);
  m.V = std::max(0.0, per_reg(Kernel::blend_verified, Fn::bits_inc, 1.0f, data) - m.B);
  // M: blend_skip over blocks that are empty or full at random; what the model without M misses, per switch.
  std::vector<uint8_t> sel(n);
  for (size_t b = 0; b < n / 16; ++b)
    for (size_t i = 0; i < 16; ++i) sel[b * 16 + i] = gen::mix(seed, b, 11) & 1;
  const std::vector<float> blocks = gen::make_data(sel, 0.5f, seed);
  gen::CostModel no_mispredict = m;
  no_mispredict.M = 0;
  const gen::SpanStats st = gen::span_stats(sel);
  const double predicted = gen::strategy_cost(no_mispredict, Fn::bits_inc, Strategy::blend_skip, st);
  const double got = gen::time_kernel(Kernel::blend_skip, Fn::bits_inc, 0.5f, blocks, o, a.reps);
  m.M = st.switches ? std::max(0.0, (got - predicted) / static_cast<double>(st.switches)) : 0.0;
  write_file(a.out, m.to_json());
  out << "calibrated on " << n << " elements (seed " << seed << ", min of " << a.reps << " runs), written to " << a.out
      << "\n"
      << "B " << fixed(m.B, 4) << "  D " << fixed(m.D, 4) << "  C " << fixed(m.C, 4) << "  S " << fixed(m.S, 4)
      << "  K " << fixed(m.K, 4) << "  M " << fixed(m.M, 4) << "  V " << fixed(m.V, 4) << " ns\n";
  for (Fn f : kArticleFns)
    out << "  " << name(f) << ": T " << fixed(m.T[static_cast<size_t>(f)], 4) << " ns/register, BSL "
        << fixed(gen::gib_per_s(m.t_bsl(f)), 2) << " GiB/s, d_max " << fixed(m.d_max(f), 3) << "\n";
  return 0;
}

namespace {

int families_cmd(std::ostream& out) {
  for (const gen::Family& f : gen::families()) {
    out << f.name << ": " << f.claim << "\n";
    for (const gen::Knob& k : f.knobs)
      out << "    " << k.name << " = " << k.value << "  [" << k.min << ", " << k.max << "]"
          << (k.integer ? " whole" : "") << "  " << k.help << "\n";
  }
  return 0;
}

struct GenArgs {
  std::string family, pattern_out, f32_out;
  size_t n = 24 * 4096;
  float thd = 0.5f;
  uint64_t seed = 1;
  double specials = 0;
};

int gen_cmd(const GenArgs& a, std::ostream& out) {
  if (a.n == 0 || a.n > kMaxElements) throw Usage("impossible size --n " + std::to_string(a.n) + ": give 1 to 2^26");
  if (a.pattern_out.empty() && a.f32_out.empty()) throw Usage("give --pattern-out FILE and/or --f32-out FILE");
  auto g = gen::generate(a.family, a.n, a.seed);
  if (auto* e = std::get_if<std::string>(&g)) throw Usage(*e);
  const gen::Generated& gg = std::get<gen::Generated>(g);
  if (!a.pattern_out.empty() && !gg.pattern)
    throw Usage("family '" + a.family + "' has no pattern form (it is procedural): use --f32-out");
  if (!std::isfinite(a.thd)) throw Usage("--thd must be finite");
  if (!a.pattern_out.empty()) {
    gen::Pattern p = *gg.pattern;
    p.length = a.n;  // `check` generates exactly these n elements from the file
    write_file(a.pattern_out, "# " + gg.label + " seed " + std::to_string(a.seed) + ", n = " + std::to_string(a.n) +
                                  "\n# reproduce: maskapply check --pattern " + a.pattern_out +
                                  " --kernel all --f all --model m5\n" + gen::to_text(p));
  }
  if (!a.f32_out.empty())
    write_file(a.f32_out, to_f32_bytes(gen::make_data(gg.selection, a.thd, a.seed, gen::Specials{a.specials})));
  out << gg.label << " seed " << a.seed << ": n=" << a.n << " density " << fixed(gen::density(gg.selection), 4)
      << "\n";
  return 0;
}

// A whole number in [lo, hi], checked on the text before CLI11 converts it: "-1" for a size_t option would
// otherwise wrap to 2^64 - 1, and "1e9" or "12x" would be refused without saying what is expected.
CLI::Validator whole(uint64_t lo, uint64_t hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        uint64_t v = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || p != s.data() + s.size() || (ec != std::errc{} && ec != std::errc::result_out_of_range))
          return "expected a whole number in " + range + ", got '" + s + "'";
        if (ec == std::errc::result_out_of_range || v < lo || v > hi)
          return "expected a whole number in " + range + ", got " + s;
        return {};
      },
      "", "whole");
}

// A finite number >= lo.
CLI::Validator number_from(double lo) {
  return CLI::Validator(
      [lo](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end || !std::isfinite(v) || v < lo)
          return "expected a finite number >= " + fixed(lo, 0) + ", got '" + s + "'";
        return {};
      },
      "", "number_from");
}

constexpr uint64_t kU64Max = ~uint64_t{0};

// pilot_v5's worst case, where users look (docs/pilot_v5.md, "Knowing the seed": why the seed stays fixed).
constexpr const char* kV5SeedNote =
    "pilot_v5's worst case is its seed-aware figure. It reads its probe at places hashed from the options' seed,\n"
    "0 unless set (fixed, so every run reproduces; printed in every reproduce line). An input that knows the seed\n"
    "costs it 3.23 (sqrt) to 13.10 (pow10) x the block oracle under m5, 36 tiles: worse than pilot_v4's certified\n"
    "bound for sqrt, sin35, sin10 and pow10 (`maskapply hunt --pilot v5`, column seed-aware). Its blind figures\n"
    "(1.32-1.74) hold only while the input cannot know the seed: draw PilotOptions::seed (hunt: --options seed=N)\n"
    "from entropy the input cannot see, and record it. docs/pilot_v5.md, \"Knowing the seed\".";

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"maskapply: a[mask] = f(a[mask]) on NEON - adversarial data, bit-exactness and dispatch regret"};
  app.require_subcommand(1);
  app.footer(kV5SeedNote);
  app.set_help_all_flag("--help-all", "Every subcommand's help");
  std::string version;
  for (const auto& [k, v] : gen::fields(gen::provenance())) version += (version.empty() ? "maskapply " : k + ": ") + v + "\n";
  app.set_version_flag("--version", version.substr(0, version.size() - 1), "Version, commit, compiler, platform, CPU");

  ReportArgs ra;
  CLI::App* rep = app.add_subcommand("report", "All families and the article's cases x f x pilots: correctness, "
                                               "model and measured regret, GiB/s (Markdown, JSON, CSV, SVG)");
  rep->add_option("--out", ra.out, "Output directory for report.json, report.csv, report.md, heatmap.svg")
      ->capture_default_str();
  rep->add_option("--tiles", ra.tiles, "Tiles of 4096 per case")->capture_default_str()->check(whole(0, kU64Max));
  rep->add_option("--seed", ra.seed, "Seed of every random choice (printed)")->capture_default_str()
      ->check(whole(0, kU64Max));
  rep->add_option("--family", ra.families, "A family spec (name or name:knob=value,...); repeat; default: all");
  rep->add_option("--f", ra.fns, "Comma-separated f names, or all")
      ->capture_default_str()
      ->check(names_check(fn_names(), [](const std::string& l) { parse_fns(l, kArticleFnList); }));
  rep->add_option("--pilots", ra.pilots, "Comma-separated pilots, or all")
      ->capture_default_str()
      ->check(names_check(kernel_names(kPilotKernels), [](const std::string& l) { parse_kernels(l, kPilotKernels); }));
  rep->add_flag("--no-article", ra.no_article, "Leave out the article's cases");
  rep->add_flag("--no-sweeps", ra.no_sweeps, "Leave out the article's thd sweeps");
  rep->add_flag("--no-measure", ra.no_measure, "No timing (automatic under an emulator)");
  rep->add_flag("--quick", ra.quick, "Small: 24 tiles, 1 repeat, no sweeps");
  rep->add_option("--reps", ra.reps, "Timing repeats (min is kept)")->capture_default_str()->check(whole(0, 1000000));
  rep->add_option("--model", ra.model, "Cost model: m5 or host")->capture_default_str();
  rep->add_option("--model-file", ra.model_file, "Host model file (from calibrate)")->capture_default_str();

  CheckArgs ca;
  std::string thd_text = "0.5";
  std::optional<double> dmax;
  CLI::App* chk = app.add_subcommand("check", "One input through chosen kernels and pilots against the oracle");
  chk->add_option("--pattern", ca.pattern, "Pattern file (see docs/generators.md)");
  chk->add_option("--input", ca.input, "Raw little-endian float32 file");
  chk->add_option("--f", ca.fns, "Comma-separated f names, or all")
      ->capture_default_str()
      ->check(names_check(fn_names(), [](const std::string& l) { parse_fns(l, kArticleFnList); }));
  chk->add_option("--thd", thd_text, "Threshold: mask is a < thd")->capture_default_str();
  chk->add_option("--kernel", ca.kernels, "Comma-separated kernel names, or all")
      ->capture_default_str()
      ->check(names_check(kernel_names(kKernelList), [](const std::string& l) { parse_kernels(l, kKernelList); }));
  chk->add_option("--dmax", dmax, "Inject this d_max into the pilots (instead of the model's)");
  chk->add_flag("--timed-dmax", ca.timed, "Pilots time d_max on this host (the article's bsl_calibrate)");
  chk->add_option("--model", ca.model, "m5 or host: the costs, and the pilots' d_max unless --dmax/--timed-dmax")
      ->capture_default_str();
  chk->add_flag("--trace", ca.trace, "Per decided tile: count, thresholds, the pilot's runs, the oracle's, the gap");
  chk->add_option("--model-file", ca.model_file, "Host model file (from calibrate)")->capture_default_str();
  chk->add_flag("--json", ca.json, "JSON on stdout");
  chk->add_option("--n", ca.n, "Elements to generate from the pattern")->check(whole(0, kU64Max));
  chk->add_option("--seed", ca.seed, "Seed for the data made from the pattern")->capture_default_str()
      ->check(whole(0, kU64Max));
  chk->add_option("--specials", ca.specials, "Rate of special values (NaN, inf, 0, subnormal) in pattern data");
  chk->add_flag("--corrupt-for-test", ca.corrupt_for_test, "Flip one output bit (tests the mismatch path)")
      ->group("");

  CalibrateArgs cal;
  CLI::App* calc = app.add_subcommand("calibrate", "Measure this host's model constants (B, D, C, S, K, M, V, T)");
  calc->add_option("--out", cal.out, "Model file to write")->capture_default_str();
  calc->add_option("--tiles", cal.tiles, "Tiles of 4096 per measurement")->capture_default_str()
      ->check(whole(0, kU64Max));
  calc->add_option("--reps", cal.reps, "Repeats (min is kept)")->capture_default_str()->check(whole(0, 1000000));

  CLI::App* fam = app.add_subcommand("families", "List the families and their knobs");

  GenArgs ga;
  CLI::App* gen_app = app.add_subcommand("gen", "Write a family's pattern and/or data");
  gen_app->add_option("--family", ga.family, "Family spec: name or name:knob=value,...")->required();
  gen_app->add_option("--n", ga.n, "Elements")->capture_default_str()->check(whole(0, kU64Max));
  gen_app->add_option("--thd", ga.thd, "Threshold for the data")->capture_default_str();
  gen_app->add_option("--seed", ga.seed, "Seed")->capture_default_str()->check(whole(0, kU64Max));
  gen_app->add_option("--specials", ga.specials, "Rate of special values in the data");
  gen_app->add_option("--pattern-out", ga.pattern_out, "Pattern file to write");
  gen_app->add_option("--f32-out", ga.f32_out, "Float32 file to write");

  HuntArgs ha;
  bool no_progress = false;
  CLI::App* hunt_app = app.add_subcommand("hunt", "Hunt dispatch countertests: the patterns where a pilot's choices "
                                                   "cost most against the clairvoyant block oracle (docs/hunt.md)");
  hunt_app->add_option("--pilot", ha.pilots, "Comma-separated pilots (pilot_v4 or v4), or all")
      ->capture_default_str()
      ->check(names_check(kernel_names(kPilotKernels), [](const std::string& l) { parse_pilots(l); }));
  hunt_app->add_option("--f", ha.fns, "Comma-separated f names, or all")
      ->capture_default_str()
      ->check(names_check(fn_names(), [](const std::string& l) { parse_fns(l, kArticleFnList); }));
  hunt_app->add_option("--model", ha.model, "m5, host, or a model file from calibrate")->capture_default_str();
  hunt_app->add_option("--model-file", ha.model_file, "Host model file for --model host")->capture_default_str();
  hunt_app->add_option("--seconds", ha.seconds, "Time cap per pilot x f (0: none); reported when it cuts the budget")
      ->capture_default_str()->check(number_from(0));
  hunt_app->add_option("--budget", ha.budget, "Evaluations of the evolutionary search per pilot x f (0 to 10^8)")
      ->capture_default_str()->check(whole(0, 100000000));
  hunt_app->add_option("--seed", ha.seed, "Seed of every random choice (printed)")->capture_default_str()
      ->check(whole(0, kU64Max));
  hunt_app->add_option("--out", ha.out, "Directory for the pattern files")->capture_default_str();
  hunt_app->add_option("--corpus", ha.corpus, "Where --save adds the best find of each pilot x f")
      ->capture_default_str();
  hunt_app->add_flag("--json", ha.json, "JSON on stdout: {\"best\": [...]} best first");
  hunt_app->add_flag("--save", ha.save, "Also add the best find of each pilot x f to --corpus");
  hunt_app->add_option("--keep", ha.keep, "Finds per pilot x f (deduplicated by mechanism; 1 to 1000)")->capture_default_str()
      ->check(whole(1, 1000));
  hunt_app->add_option("--n", ha.n, "Elements per candidate (default: 36 tiles; 12288 to 2^26)")->capture_default_str()
      ->check(whole(12288, kMaxElements));
  hunt_app->add_option("--jobs", ha.jobs, "Pilot x f hunts in parallel (1 to 64)")->capture_default_str()->check(whole(1, 64));
  hunt_app->add_option("--fail-above", ha.fail_above,
                       "Exit 1 (naming each) when a certified bound or a find's model regret is above this (for CI)")
      ->check(number_from(0));
  hunt_app->add_option("--summary", ha.summary,
                       "Append the gate's Markdown table, with each pattern's check line, to this file "
                       "($GITHUB_STEP_SUMMARY)");
  hunt_app->add_option("--options", ha.options,
                       "The pilots' options as NAME=VALUE words (\"tile=2048 probe=128\"; the article's otherwise); "
                       "the model's constants and d_max go on top");
  hunt_app->add_option("--dmax", ha.dmax, "Inject this d_max into the pilots (instead of the model's)");
  hunt_app->add_flag("!--no-bound", ha.bound, "Skip the certified bound (for pilot_v4 it takes seconds per pilot x f)");
  hunt_app->add_flag("--corrupt-for-test", ha.corrupt_for_test, "Nudge each find's figure (tests the re-score)")
      ->group("");
  hunt_app->add_flag("--no-progress", no_progress, "No progress line, even on a terminal");
  hunt_app->footer(kV5SeedNote);

  TuneArgs ta;
  bool tune_no_progress = false;
  CLI::App* tune_app = app.add_subcommand("tune", "Options with the least certified bound that cost at most 1.03x "
                                                   "the start's on uniform random data, per pilot x f (docs/tune.md)");
  tune_app->add_option("--pilot", ta.pilots,
                       "Comma-separated pilots with a certified bound (v3_5, v4, v6), or all; each is also tried with "
                       "the knobs the pilots before it moved for the same f")
      ->capture_default_str();
  tune_app->add_option("--f", ta.fns, "Comma-separated f names, or all")
      ->capture_default_str()
      ->check(names_check(fn_names(), [](const std::string& l) { parse_fns(l, kArticleFnList); }));
  tune_app->add_option("--model", ta.model, "m5, host, or a model file from calibrate")->capture_default_str();
  tune_app->add_option("--model-file", ta.model_file, "Host model file for --model host")->capture_default_str();
  tune_app->add_option("--options", ta.options, "The options to start from, as NAME=VALUE words (the article's "
                                                "otherwise); the model's constants and d_max go on top");
  tune_app->add_option("--knobs", ta.knobs, "Comma-separated knobs to move (" + gen::hunt::knob_names() +
                                                "); default: every knob the pilot reads");
  tune_app->add_option("--n", ta.n, "Elements (default: 36 tiles, as the hunt; 12288 to 2^21)")->capture_default_str()
      ->check(whole(12288, size_t{1} << 21));
  tune_app->add_option("--seconds", ta.seconds, "Time cap per pilot x f (0: none); reported when it cuts the budget")
      ->capture_default_str()->check(number_from(0));
  tune_app->add_option("--budget", ta.budget, "Candidates of the search after the one-knob sweep, per pilot x f")
      ->capture_default_str()->check(whole(0, 1000000));
  tune_app->add_option("--seed", ta.seed, "Seed of the search's random moves (printed)")->capture_default_str()
      ->check(whole(0, kU64Max));
  tune_app->add_option("--out", ta.out, "Directory for the witnesses' pattern files")->capture_default_str();
  tune_app->add_option("--jobs", ta.jobs, "Pilot x f tunes in parallel (1 to 64)")->capture_default_str()
      ->check(whole(1, 64));
  tune_app->add_flag("--json", ta.json, "JSON on stdout");
  tune_app->add_flag("--no-progress", tune_no_progress, "No progress line, even on a terminal");

  FloorArgs fa;
  CLI::App* floor_app = app.add_subcommand("floor", "The floor under every pilot: per f, the model regret no pilot "
                                                     "can be certified below when the input knows it (docs/bound.md)");
  floor_app->add_option("--f", fa.fns, "Comma-separated f names, or all")
      ->capture_default_str()
      ->check(names_check(fn_names(), [](const std::string& l) { parse_fns(l, kArticleFnList); }));
  floor_app->add_option("--model", fa.model, "m5, host, or a model file from calibrate")->capture_default_str();
  floor_app->add_option("--model-file", fa.model_file, "Host model file for --model host")->capture_default_str();
  floor_app->add_option("--n", fa.n, "Elements (default: 36 tiles, as the hunt; at most 2^21)")->capture_default_str()
      ->check(whole(16, kMaxElements));
  floor_app->add_option("--options", fa.options, "The tile and calibration region as NAME=VALUE words");
  floor_app->add_option("--every", fa.every, "The floor under pilots that choose a strategy or a new run only at "
                        "every N-th block (16 elements) of a tile; N must divide the tile's blocks")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{65536}));
  floor_app->add_flag("--probe-reads", fa.probe_reads, "The floor under pilots that read ahead only in a tile's "
                      "first `probe` elements (with --every 16: pilot_v1 .. v4 and v6)");
  floor_app->add_flag("--json", fa.json, "JSON on stdout");

  std::vector<const char*> argv;
  for (const std::string& s : args) argv.push_back(s.c_str());
  if (argv.empty()) argv.push_back("maskapply");
  std::string cmd = "maskapply";
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    if (chk->parsed()) {
      cmd += " check";
      char* end = nullptr;
      ca.thd = std::strtof(thd_text.c_str(), &end);
      if (thd_text.empty() || *end) throw Usage("--thd: expected a number, got '" + thd_text + "'");
      ca.dmax = dmax;
      return check(ca, out, err);
    }
    if (rep->parsed()) return cmd += " report", report(ra, out, err);
    if (calc->parsed()) return cmd += " calibrate", calibrate(cal, out, err);
    if (fam->parsed()) return families_cmd(out);
    if (gen_app->parsed()) return cmd += " gen", gen_cmd(ga, out);
    if (floor_app->parsed()) return cmd += " floor", floor_cmd(fa, out, err);
    if (tune_app->parsed()) {
      ta.progress = !tune_no_progress && !ta.json && &err == &std::cerr && isatty(2);
      return cmd += " tune", tune_cmd(ta, out, err);
    }
    if (hunt_app->parsed()) {
      ha.progress = !no_progress && !ha.json && &err == &std::cerr && isatty(2);
      return cmd += " hunt", hunt_cmd(ha, out, err);
    }
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ValidationError& e) {
    // A name refused by an option's check (names_check): reported as the commands' own usage errors are.
    for (const CLI::App* sub : app.get_subcommands()) cmd += " " + sub->get_name();
    err << cmd << ": error: " << e.what() << "\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    err << "maskapply: error: " << e.what() << "\nRun with --help or --help-all for more information.\n";
    return 2;
  } catch (const Usage& e) {
    err << cmd << ": error: " << e.what() << "\n";
    return 2;
  } catch (const Unconfirmed& e) {
    err << cmd << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    err << cmd << ": error: out of memory (impossible size?)\n";
    return 2;
  } catch (const std::exception& e) {
    err << cmd << ": error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}

}  // namespace maskapply::cli
