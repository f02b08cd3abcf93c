// SPDX-License-Identifier: MIT
// `maskapply report`: every family and the article's cases x f x pilots. Per run: bit-exact against the
// oracle (with the mismatch count), model regret (deterministic: the model's d_max is injected), measured
// regret and GiB/s (natively only). Markdown on stdout; report.json, report.csv, report.md and heatmap.svg in
// the output directory, written only after every run finished.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "article.h"
#include "commands.h"
#include "evaluate.h"
#include "csv.h"
#include "families.h"
#include "provenance.h"

namespace maskapply::cli {

namespace {

const std::vector<std::string> kDefaultFamilies = [] {
  std::vector<std::string> v;
  for (const gen::Family& f : gen::families()) v.push_back(f.name);
  v.push_back("alternating:period=4");
  v.push_back("uniform:d=0.05");
  v.push_back("probe_liar:head=1,rest=0.05");
  return v;
}();

const std::vector<Kernel> kPilotList{Kernel::pilot_v1, Kernel::pilot_v2, Kernel::pilot_v3, Kernel::pilot_v3_5,
                                     Kernel::pilot_v4, Kernel::pilot_v5, Kernel::pilot_v6};

// One input: its data and the f and thd to run it with.
struct Case {
  std::string column;  // heat-map column: the family spec, or the article case's name
  std::string label;   // family with every knob, or the article's claim
  std::string kind;    // "family" or "article"
  Fn f;
  float thd;
  std::shared_ptr<const std::vector<float>> data;
};

struct Row {
  const Case* c;
  Kernel pilot;
  bool bit_exact;
  size_t mismatches;
  std::string message;
  double d_max;
  gen::Regret regret;
  std::optional<gen::Measured> measured;
};

std::string short_name(Kernel k) {
  std::string s(name(k));
  return s.rfind("pilot_", 0) == 0 ? s.substr(6) : s;
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  size_t n = 0;
  for (double x : v)
    if (std::isfinite(x) && x > 0) s += std::log(x), ++n;
  return n ? std::exp(s / static_cast<double>(n)) : NAN;
}

// Green at regret 1, yellow at 1.5, red from 3 (log scale).
std::string color(double r) {
  if (!std::isfinite(r)) return "#dddddd";
  const double t = std::clamp(std::log(std::max(r, 1.0)) / std::log(3.0), 0.0, 1.0);
  const auto mixc = [](double a, double b, double x) { return static_cast<int>(std::lround(a + (b - a) * x)); };
  int R, G, B;
  if (t < 0.37) {  // green -> yellow
    const double x = t / 0.37;
    R = mixc(0x4c, 0xff, x), G = mixc(0xaf, 0xd5, x), B = mixc(0x50, 0x4f, x);
  } else {  // yellow -> red
    const double x = (t - 0.37) / 0.63;
    R = mixc(0xff, 0xd3, x), G = mixc(0xd5, 0x2f, x), B = mixc(0x4f, 0x2f, x);
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", R, G, B);
  return buf;
}

std::string xml(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : c == '"' ? "&quot;" : std::string(1, c);
  return o;
}

using Matrix = std::map<std::string, std::map<Kernel, double>>;  // column -> pilot -> geomean

std::string svg_panel(const std::string& title, const std::vector<std::string>& cols, const std::vector<Kernel>& pilots,
                      const Matrix& m, int y0) {
  std::ostringstream s;
  const int cw = 62, ch = 26, left = 80, top = y0 + 150;
  s << "<text x=\"10\" y=\"" << y0 + 20 << "\" font-size=\"14\" font-weight=\"bold\">" << xml(title) << "</text>\n";
  for (size_t c = 0; c < cols.size(); ++c) {
    const int x = left + static_cast<int>(c) * cw + cw / 2;
    s << "<text transform=\"translate(" << x << "," << top - 6 << ") rotate(-50)\" font-size=\"11\">" << xml(cols[c])
      << "</text>\n";
  }
  for (size_t p = 0; p < pilots.size(); ++p) {
    const int y = top + static_cast<int>(p) * ch;
    s << "<text x=\"10\" y=\"" << y + 17 << "\" font-size=\"12\">" << xml(short_name(pilots[p])) << "</text>\n";
    for (size_t c = 0; c < cols.size(); ++c) {
      const auto col = m.find(cols[c]);
      double v = NAN;
      if (col != m.end())
        if (const auto it = col->second.find(pilots[p]); it != col->second.end()) v = it->second;
      const int x = left + static_cast<int>(c) * cw;
      s << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cw - 2 << "\" height=\"" << ch - 2 << "\" fill=\""
        << color(v) << "\"><title>" << xml(short_name(pilots[p]) + " on " + cols[c] + ": " + fixed(v, 3))
        << "</title></rect>\n";
      s << "<text x=\"" << x + cw / 2 - 1 << "\" y=\"" << y + 17 << "\" font-size=\"11\" text-anchor=\"middle\">"
        << fixed(v, 2) << "</text>\n";
    }
  }
  return s.str();
}

std::string svg(const std::string& subtitle, const std::vector<std::string>& cols, const std::vector<Kernel>& pilots,
                const Matrix& model, const Matrix* measured) {
  const int panel = 150 + static_cast<int>(pilots.size()) * 26 + 30;
  const int width = 80 + static_cast<int>(cols.size()) * 62 + 20;
  const int height = 40 + panel * (measured ? 2 : 1);
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"10\" y=\"" << height - 12 << "\" font-size=\"11\" fill=\"#555\">" << xml(subtitle)
    << " - green 1, yellow 1.5, red 3 and above; 1 means what each panel's title says"
    << (measured ? " (measured cells go below 1 where the model misjudges this machine)" : "") << "</text>\n";
  s << svg_panel("Model regret, decided tiles (geometric mean over f): 1 = the clairvoyant block oracle, a lower bound",
                 cols, pilots, model, 0);
  if (measured)
    s << svg_panel("Measured regret (geometric mean over f): 1 = the model oracle's schedule timed, not a lower bound",
                   cols, pilots, *measured, panel);
  s << "</svg>\n";
  return s.str();
}

struct Story {
  std::string text;
  bool holds;
};

// The article's story from the rows: which pilot each countertest makes lose.
std::vector<Story> story(const std::vector<Row>& rows) {
  std::map<std::string, std::map<Kernel, double>> r;
  for (const Row& row : rows)
    if (row.c->kind == "article" && row.c->column != "article/sweep") r[row.c->column][row.pilot] = row.regret.vs_oracle;
  std::vector<Story> out;
  const auto have = [&](const std::string& c) {
    return r.count(c) && r[c].count(Kernel::pilot_v3) && r[c].count(Kernel::pilot_v3_5) && r[c].count(Kernel::pilot_v4);
  };
  const auto line = [&](const std::string& c, const std::string& f, Kernel loser, const std::vector<Kernel>& others) {
    auto& m = r[c];
    bool holds = true;
    std::string t = c + " (" + f + "): " + short_name(loser) + " " + fixed(m[loser], 2) + " vs";
    for (size_t i = 0; i < others.size(); ++i) {
      const Kernel k = others[i];
      holds = holds && m[loser] > m[k];
      t += std::string(i ? "," : "") + " " + short_name(k) + " " + fixed(m[k], 2);
    }
    t += holds ? ": " + short_name(loser) + " loses" : ": " + short_name(loser) + " does not lose";
    out.push_back({t + (holds ? "  (as in the article)" : "  (NOT as in the article)"), holds});
  };
  if (have("article/step")) line("article/step", "pow10", Kernel::pilot_v3, {Kernel::pilot_v3_5, Kernel::pilot_v4});
  if (have("article/offset390")) line("article/offset390", "pow10", Kernel::pilot_v3_5, {Kernel::pilot_v4});
  if (have("article/cycle17"))
    line("article/cycle17", "fma13", Kernel::pilot_v4, {Kernel::pilot_v3, Kernel::pilot_v3_5});
  return out;
}

}  // namespace

int report(const ReportArgs& in, std::ostream& out, std::ostream& err) {
  ReportArgs a = in;
  if (a.quick) a.tiles = std::min<size_t>(a.tiles, 24), a.reps = 1, a.no_sweeps = true;
  if (a.tiles == 0 || a.tiles > kMaxElements / 4096)
    throw Usage("impossible size --tiles " + std::to_string(a.tiles) + ": give 1 to 16384");
  if (a.reps < 1 || a.reps > 1000) throw Usage("--reps must be in [1, 1000]");
  const std::vector<Fn> fns = parse_fns(a.fns, std::vector<Fn>(kArticleFns.begin(), kArticleFns.end()));
  const std::vector<Kernel> pilots = parse_kernels(a.pilots, kPilotList);
  const gen::CostModel model = *load_model(a.model, a.model_file);
  {
    std::error_code ec;
    if (std::filesystem::exists(a.out, ec) && !std::filesystem::is_directory(a.out, ec))
      throw Usage("--out '" + a.out + "' exists and is not a directory");
  }
  const size_t n = a.tiles * 4096;
  const bool emulated = gen::under_emulation();
  const bool measure = !a.no_measure && !emulated;
  const std::string measure_note = measure ? "yes (pilot and the model oracle's whole-array schedule alike: whole array "
                                             "in place, fresh copy per repeat, min of " + std::to_string(a.reps) +
                                             "; pilots decide with model " + model.name + "'s d_max" +
                                             (model.name == "host" ? ", calibrated for this host" :
                                              ", not calibrated for this host: use --model host") +
#if defined(__aarch64__)
                                             ")"
#else
                                             "; on x86 this times SIMDe, not NEON)"
#endif
                                   : emulated ? "n/a (running under an emulator)"
                                              : "n/a (--no-measure)";

  // The cases: families (data made with thd 0.5) x f, then the article's.
  std::vector<Case> cases;
  const float family_thd = 0.5f;
  for (const std::string& spec : a.families.empty() ? kDefaultFamilies : a.families) {
    auto g = gen::generate(spec, n, a.seed);
    if (auto* e = std::get_if<std::string>(&g)) throw Usage("--family " + spec + ": " + *e);
    const auto& gg = std::get<gen::Generated>(g);
    auto data = std::make_shared<const std::vector<float>>(gen::make_data(gg.selection, family_thd, a.seed));
    for (Fn f : fns) cases.push_back({spec, gg.label, "family", f, family_thd, data});
  }
  if (!a.no_article) {
    for (const gen::ArticleCase& c : gen::article_countertests())
      cases.push_back({c.name, c.claim, "article", c.f, c.thd,
                       std::make_shared<const std::vector<float>>(c.data(n, a.seed))});
    if (!a.no_sweeps) {
      std::vector<Fn> sweep_fns;
      for (Fn f : fns)
        if (f != Fn::fma13) sweep_fns.push_back(f);
      auto data = std::make_shared<const std::vector<float>>(gen::uniform(n, a.seed));
      for (const gen::ArticleCase& c : gen::article_sweeps(sweep_fns))
        cases.push_back({c.name, "uniform, thd = " + fixed(c.thd, 1), "article", c.f, c.thd, data});
    }
  }
  if (cases.empty()) throw Usage("nothing to run: no families and --no-article");

  err << "maskapply report: " << cases.size() << " cases x " << pilots.size() << " pilots, n = " << n << " ("
      << a.tiles << " tiles of 4096), seed " << a.seed << ", model " << model.name << ", measured " << measure_note
      << "\n";
  const bool tty = isatty(2);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Row> rows;
  const size_t total = cases.size() * pilots.size();
  size_t done = 0, last_decile = 0;
  for (const Case& c : cases) {
    const std::vector<float>& data = *c.data;
    const std::vector<float> expected = gen::oracle_output(data, c.f, c.thd);
    const PilotOptions o = gen::model_options(model, c.f);
    std::optional<gen::CaseTimings> timings;
    for (Kernel k : pilots) {
      const gen::Evaluation e = gen::evaluate(k, c.f, c.thd, data, expected, o, model);
      Row r{&c, k, e.bit_exact, e.mismatches, e.message, e.d_max.value_or(NAN), *e.regret, std::nullopt};
      if (measure) {
        if (!timings) {  // the model oracle's whole-array schedule, timed as the pilots are
          const gen::OracleSchedule os =
              gen::oracle_schedule(gen::summarize(gen::selection_of(data, c.thd)), model, c.f, o, 0);
          timings = gen::time_case(c.f, c.thd, data, os.runs, o.tile, a.reps);
        }
        r.measured = gen::measured_regret(gen::time_kernel(k, c.f, c.thd, data, o, a.reps), n, *timings);
      }
      rows.push_back(std::move(r));
      ++done;
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (tty) {
        err << "\r[" << done << "/" << total << "] " << fixed(secs, 0) << " s  " << c.column << " "
            << name(c.f) << " " << short_name(k) << "                    " << std::flush;
      } else if (done * 10 / total > last_decile) {
        last_decile = done * 10 / total;
        err << "[" << done << "/" << total << "] " << fixed(secs, 0) << " s\n";
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (tty) err << "\n";

  // Tables and files.
  size_t inexact = 0;
  for (const Row& r : rows) inexact += !r.bit_exact;
  std::ostringstream md, csv;
  nlohmann::ordered_json j;
  md << "# maskapply report\n\n"
     << "seed " << a.seed << ", n = " << n << " (" << a.tiles << " tiles of 4096) per case, model " << model.name
     << " (its d_max injected into the pilots), measured regret " << measure_note << ", " << rows.size()
     << " runs in " << fixed(seconds, 1) << " s, " << (inexact ? std::to_string(inexact) + " NOT bit-exact" : "all bit-exact")
     << ".\nModel regret = pilot cost / clairvoyant block oracle over the decided tiles (the cheapest schedule at "
        "16-element granularity: a lower bound, >= 1); whole = the same over the whole array, the calibration "
        "region included and scheduled freely by the oracle; vs fixed = pilot cost / best single strategy; measured "
        "regret = pilot time / the model oracle's whole-array schedule timed the same way (not a lower bound: below 1 "
        "where the model misjudges this machine).\n\n";
  md << "| case | f | thd | pilot | correct | model regret | whole array | vs fixed (best) | measured regret | GiB/s |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  csv << "case,kind,label,f,thd,pilot,n,seed,bit_exact,mismatches,d_max,model_regret,model_vs_fixed,best_fixed,"
         "model_regret_whole,measured_regret,measured_vs_fixed,gib_per_s\n";
  nlohmann::ordered_json jrows = nlohmann::json::array();
  Matrix model_m, measured_m;
  std::map<std::string, std::map<Kernel, std::vector<double>>> model_v, measured_v;
  std::vector<std::string> cols;
  for (const Row& r : rows) {
    const Case& c = *r.c;
    if (std::find(cols.begin(), cols.end(), c.column) == cols.end()) cols.push_back(c.column);
    model_v[c.column][r.pilot].push_back(r.regret.vs_oracle);
    if (r.measured) measured_v[c.column][r.pilot].push_back(r.measured->vs_oracle);
    const std::string correct = r.bit_exact ? "yes" : "NO (" + std::to_string(r.mismatches) + ")";
    const std::string mreg = r.measured ? fixed(r.measured->vs_oracle, 2) : "n/a";
    const std::string gib = r.measured ? fixed(r.measured->gib_per_s, 2) : "n/a";
    md << "| " << c.column << " | " << name(c.f) << " | " << fixed(c.thd, 2) << " | " << short_name(r.pilot) << " | "
       << correct << " | " << fixed(r.regret.vs_oracle, 2) << " | " << fixed(r.regret.whole, 2) << " | "
       << fixed(r.regret.vs_fixed, 2) << " ("
       << name(r.regret.fixed_strategy) << ") | " << mreg << " | " << gib << " |\n";
    // Numbers in their shortest exact form (gen::csv_number): read back, each is the value the run computed.
    csv << gen::csv_field(c.column) << "," << c.kind << "," << gen::csv_field(c.label) << "," << name(c.f) << ","
        << gen::csv_number(c.thd) << ","
        << name(r.pilot) << "," << n << "," << a.seed << "," << (r.bit_exact ? "true" : "false") << ","
        << r.mismatches << "," << gen::csv_number(r.d_max) << "," << gen::csv_number(r.regret.vs_oracle) << ","
        << gen::csv_number(r.regret.vs_fixed) << "," << name(r.regret.fixed_strategy) << ","
        << gen::csv_number(r.regret.whole) << ","
        << (r.measured ? gen::csv_number(r.measured->vs_oracle) : "") << ","
        << (r.measured ? gen::csv_number(r.measured->vs_fixed) : "") << ","
        << (r.measured ? gen::csv_number(r.measured->gib_per_s) : "") << "\n";
    nlohmann::ordered_json jr;
    jr["case"] = c.column, jr["kind"] = c.kind, jr["label"] = c.label, jr["f"] = std::string(name(c.f));
    jr["thd"] = c.thd, jr["pilot"] = std::string(name(r.pilot)), jr["bit_exact"] = r.bit_exact;
    jr["mismatches"] = r.mismatches;
    if (!r.message.empty()) jr["message"] = r.message;
    jr["d_max"] = std::isfinite(r.d_max) ? nlohmann::json(r.d_max) : nlohmann::json(nullptr);
    const auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
    jr["model_regret"] = num(r.regret.vs_oracle);
    jr["model_vs_fixed"] = num(r.regret.vs_fixed);
    jr["best_fixed"] = std::string(name(r.regret.fixed_strategy));
    jr["model_regret_whole"] = num(r.regret.whole);
    jr["model_regret_vs_tile_oracle"] = num(r.regret.vs_tile_oracle);
    jr["model_cost_ns"] = {{"pilot", r.regret.pilot_cost}, {"oracle", r.regret.oracle_cost},
                           {"fixed", r.regret.fixed_cost}, {"calibration", r.regret.calibration_cost},
                           {"tile_oracle", r.regret.tile_oracle_cost}, {"whole_pilot", r.regret.whole_pilot_cost},
                           {"whole_oracle", r.regret.whole_oracle_cost}};
    jr["measured_regret"] = r.measured ? num(r.measured->vs_oracle) : nlohmann::json(nullptr);
    jr["measured_vs_fixed"] = r.measured ? num(r.measured->vs_fixed) : nlohmann::json(nullptr);
    jr["gib_per_s"] = r.measured ? num(r.measured->gib_per_s) : nlohmann::json(nullptr);
    jrows.push_back(jr);
  }
  for (const auto& [col, per] : model_v)
    for (const auto& [k, v] : per) model_m[col][k] = geomean(v);
  for (const auto& [col, per] : measured_v)
    for (const auto& [k, v] : per) measured_m[col][k] = geomean(v);

  std::ostringstream summary;
  summary << "\n## Model regret, pilot x case (geometric mean over f" << (a.no_sweeps ? "" : " and thd") << ")\n\n| pilot |";
  for (const std::string& c : cols) summary << " " << c << " |";
  summary << "\n|---|";
  for (size_t i = 0; i < cols.size(); ++i) summary << "---|";
  summary << "\n";
  for (Kernel k : pilots) {
    summary << "| " << short_name(k) << " |";
    for (const std::string& c : cols) summary << " " << fixed(model_m[c].count(k) ? model_m[c][k] : NAN, 2) << " |";
    summary << "\n";
  }
  // pilot_v5's price of robustness on the article's uniform sweeps: its model cost over the best of the other
  // pilots on the same cell (docs/pilot_v5.md).
  std::map<Fn, std::map<float, std::pair<double, double>>> price;  // f -> thd -> (v5, best other)
  for (const Row& r : rows) {
    if (r.c->column != "article/sweep") continue;
    auto& cell = price[r.c->f].try_emplace(r.c->thd, NAN, INFINITY).first->second;
    if (r.pilot == Kernel::pilot_v5)
      cell.first = r.regret.pilot_cost;
    else
      cell.second = std::min(cell.second, r.regret.pilot_cost);
  }
  nlohmann::ordered_json jprice = nlohmann::json::array();
  if (!price.empty() && std::isfinite(price.begin()->second.begin()->second.first) &&
      std::isfinite(price.begin()->second.begin()->second.second)) {
    summary << "\n## pilot_v5's price of robustness (uniform sweeps: v5's model cost / the best other pilot's)\n\n| f |";
    for (const auto& [thd, cell] : price.begin()->second) summary << " " << fixed(thd, 1) << " |";
    summary << "\n|---|";
    for (size_t i = 0; i < price.begin()->second.size(); ++i) summary << "---|";
    summary << "\n";
    for (const auto& [f, cells] : price) {
      summary << "| " << name(f) << " |";
      for (const auto& [thd, cell] : cells) {
        const double ratio = cell.first / cell.second;
        summary << " " << (ratio >= 1 ? "+" : "") << fixed(100 * (ratio - 1), 1) << " % |";
        jprice.push_back({{"f", std::string(name(f))}, {"thd", thd}, {"v5_over_best_other", ratio}});
      }
      summary << "\n";
    }
  }
  const std::vector<Story> st = story(rows);
  if (!st.empty()) {
    summary << "\n## The article's story (model regret)\n\n";
    for (const Story& s : st) summary << "- " << s.text << "\n";
  }
  summary << "\nCorrectness: " << rows.size() - inexact << " of " << rows.size() << " runs bit-exact against the oracle.\n";
  md << summary.str();

  j["tool"] = "maskapply report";
  const gen::Provenance prov = gen::provenance();
  for (const auto& [k, v] : gen::fields(prov)) j["provenance"][k] = v;
  md << "\nRan on: " << gen::one_line(prov) << ".\n";
  j["seed"] = a.seed, j["tiles"] = a.tiles, j["n"] = n, j["seconds"] = seconds;
  j["model"] = nlohmann::json::parse(model.to_json());
  j["measured"] = measure, j["emulated"] = emulated;
  j["all_bit_exact"] = inexact == 0;
  j["rows"] = jrows;
  nlohmann::ordered_json js = nlohmann::json::array();
  for (const Story& s : st) js.push_back({{"text", s.text}, {"holds", s.holds}});
  j["story"] = js;
  j["v5_price"] = jprice;

  const std::string subtitle = "maskapply report, seed " + std::to_string(a.seed) + ", n " + std::to_string(n) +
                               ", model " + model.name;
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) throw std::runtime_error("cannot create '" + a.out + "': " + ec.message());
  const std::filesystem::path dir(a.out);
  write_file((dir / "report.md").string(), md.str());
  write_file((dir / "report.csv").string(), csv.str());
  write_file((dir / "report.json").string(), j.dump(1) + "\n");
  write_file((dir / "heatmap.svg").string(), svg(subtitle, cols, pilots, model_m, measure ? &measured_m : nullptr));
  out << md.str();
  err << "maskapply report: " << rows.size() << " runs in " << fixed(seconds, 1) << " s; wrote report.md, report.csv, "
      << "report.json, heatmap.svg to " << a.out << "/\n";
  return inexact ? 1 : 0;
}

}  // namespace maskapply::cli
