// SPDX-License-Identifier: MIT
// `maskapply hunt`: the countertest hunt (generators/hunt/search.h) for each pilot x f, with a progress line on
// a terminal, a Markdown table, JSON, and pattern files that `maskapply check` reprints.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "floor.h"
#include <sstream>
#include <thread>

#include "bound.h"
#include "commands.h"
#include "evaluate.h"
#include "provenance.h"
#include "run_header.h"
#include "pattern_file.h"
#include "search.h"

namespace maskapply::cli {

namespace hunt = gen::hunt;

std::vector<Kernel> parse_pilots(const std::string& list) {
  if (list == "all") return {hunt::kPilots.begin(), hunt::kPilots.end()};
  std::vector<Kernel> out;
  for (std::string s : split(list, ',')) {
    if (s.rfind("pilot_", 0) != 0) s = "pilot_" + s;
    std::replace(s.begin(), s.end(), '.', '_');
    const auto k = kernel_from_name(s);
    if (!k || !is_pilot(*k)) {
      throw Usage("unknown pilot '" + s + "' (known: pilot_v1, pilot_v2, pilot_v3, pilot_v3_5, pilot_v4, pilot_v5, pilot_v6, or v1 .. "
                  "v6, v3_5, or all)");
    }
    out.push_back(*k);
  }
  return out;
}

namespace {

struct Job {
  Kernel pilot;
  Fn f;
  uint64_t seed;
  hunt::HuntResult result;
  hunt::Find step;  // the one-knob baseline
  PilotOptions options;  // what the hunt gave the pilot (the model's d_max and constants)
  std::vector<std::string> files;
  std::optional<hunt::BoundResult> bound;  // the certified worst case (bound.h), when it covers the pilot
  std::string bound_note;                  // else why not
  hunt::Find witness;                      // the bound's witness, scored
  std::string witness_file;
};


// The pattern on one line for the table; a long one (the seed-aware adversary's run to thousands of segments) cut
// after 160 characters with how many segments it has (the file holds it whole).
std::string seg_line(const gen::Pattern& p) {
  const std::string t = gen::to_text(p);
  std::string out;
  std::istringstream in(t);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("length", 0) != 0) out += (out.empty() ? "" : "; ") + line;
  if (out.size() > 200) {
    const size_t cut = out.rfind(' ', 160);
    out = out.substr(0, cut == std::string::npos ? 160 : cut) + " ... (" + std::to_string(p.segments.size()) +
          " segments: the file has them all)";
  }
  return out;
}

// What `maskapply check` takes to load the same model: m5, host with its file, or the file itself.
std::string model_arg(const HuntArgs& a) {
  if (a.model == "host") return "host --model-file " + a.model_file;
  return a.model;
}

std::string pattern_file(const Job& j, const hunt::Find& f, const gen::CostModel& m, const HuntArgs& a,
                         const PilotOptions& o, const std::string& path) {
  hunt::FileInfo i;
  i.pilot = j.pilot, i.f = j.f, i.model = m, i.model_arg = model_arg(a), i.options = o, i.n = a.n;
  i.model_file = a.model == "m5" ? "" : a.model == "host" ? a.model_file : a.model;
  i.path = path, i.found_by = "maskapply hunt --seed " + std::to_string(j.seed);
  i.dmax_given = a.dmax.has_value();
  return hunt::pattern_file(f, i);
}

}  // namespace

std::string rescore(Kernel pilot, Fn fn, const hunt::Find& f, const gen::CostModel& m, const PilotOptions& o, size_t n,
                    double claimed) {
  const std::vector<float> input = gen::make_data(gen::selection(f.pattern, n), 0.5f, 1);
  const std::vector<float> expected = gen::oracle_output(input, fn, 0.5f);
  const gen::Evaluation e = gen::evaluate(pilot, fn, 0.5f, input, expected, o, m);
  const std::string what = std::string(name(pilot)) + " " + std::string(name(fn)) + ": ";
  if (!e.bit_exact) return what + "the traced kernel is not bit-exact on the find: " + e.message;
  const double traced = e.regret ? e.regret->vs_oracle : NAN;
  if (traced == claimed || (std::isnan(traced) && std::isnan(claimed))) return {};
  char buf[200];
  std::snprintf(buf, sizeof buf, "the hunt's fast evaluation gives model regret %.17g, the traced kernel %.17g",
                claimed, traced);
  return what + buf;
}

int hunt_cmd(const HuntArgs& a, std::ostream& out, std::ostream& err) {
  const std::vector<Kernel> pilots = parse_pilots(a.pilots);
  const std::vector<Fn> fns = parse_fns(a.fns, {kArticleFns.begin(), kArticleFns.end()});
  const gen::CostModel model = *load_model(a.model, a.model_file);
  if (!(a.seconds >= 0)) throw Usage("--seconds must be >= 0");
  if (a.fail_above && !(*a.fail_above >= 0)) throw Usage("--fail-above must be a number >= 0");
  if (a.jobs < 1 || a.jobs > 64) throw Usage("--jobs must be in [1, 64]");
  if (a.n < 2 * 4096 + 4096 || a.n > kMaxElements) throw Usage("--n must be in [12288, 2^26]");
  {
    std::error_code ec;
    if (std::filesystem::exists(a.out, ec) && !std::filesystem::is_directory(a.out, ec))
      throw Usage("--out '" + a.out + "' exists and is not a directory");
    if (a.save && !std::filesystem::is_directory(a.corpus, ec))
      throw Usage("--save: '" + a.corpus + "' is not a directory (run from the repository root, or give --corpus)");
  }
  // The pilots' options: --options over the article's, then the model's constants and d_max (or --dmax) per f.
  auto parsed = gen::hunt::parse_options_text(a.options);
  if (auto* e = std::get_if<std::string>(&parsed)) throw Usage("--options: " + *e);
  if (a.dmax && std::isnan(*a.dmax)) throw Usage("--dmax must not be NaN");
  const PilotOptions given = std::get<PilotOptions>(parsed);
  const auto options_of = [&](Fn f) { return gen::options_for(given, f, &model, a.dmax); };
  std::vector<Job> jobs;
  for (Kernel k : pilots)
    for (Fn f : fns) jobs.push_back(Job{k, f, a.seed, {}, {}, {}, {}, {}, {}, {}, {}});
  if (!a.json)
    out << "maskapply hunt: seed " << a.seed << ", model " << model.name << ", n = " << a.n << ", budget " << a.budget
        << " evaluations per pilot x f, cap " << a.seconds << " s each, " << a.jobs << " job(s)\n";

  std::mutex mu;
  std::vector<double> best(jobs.size(), 0), eps(jobs.size(), 0);
  std::vector<size_t> evals(jobs.size(), 0);
  const auto t0 = std::chrono::steady_clock::now();
  double last_line = -1;
  const auto progress = [&](size_t i, const hunt::Progress& p) {
    std::lock_guard<std::mutex> lock(mu);
    best[i] = p.best, evals[i] = p.evaluations, eps[i] = p.seconds > 0 ? p.evaluations / p.seconds : 0;
    if (!a.progress) return;
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (t - last_line < 0.2 && p.phase != "done") return;
    last_line = t;
    std::ostringstream line;
    line << "\r[" << fixed(t, 0) << " s] " << name(jobs[i].pilot) << " " << name(jobs[i].f) << " " << p.phase
         << ": best " << fixed(p.best, 3) << ", " << fixed(eps[i], 0) << " evals/s";
    double worst = 0;
    size_t done = 0;
    for (size_t j = 0; j < jobs.size(); ++j) worst = std::max(worst, best[j]), done += evals[j] > 0;
    line << " | overall best " << fixed(worst, 3) << " (" << done << "/" << jobs.size() << " started)   ";
    err << line.str() << std::flush;
  };
  std::atomic<size_t> next{0};
  const auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      Job& j = jobs[i];
      hunt::Evaluator ev(j.pilot, j.f, model, options_of(j.f), a.n);
      hunt::HuntConfig c;
      // The certified worst case for the hunt's own options and n; its witness seeds the search.
      const PilotOptions& o = ev.scorer().options();
      j.bound_note = a.bound ? hunt::bound_unsupported(j.pilot, o, a.n) : "not computed (--no-bound)";
      if (j.bound_note.empty()) {
        progress(i, hunt::Progress{0, 0, 0, "bound"});
        j.bound = hunt::regret_bound(j.pilot, j.f, model, o, a.n);
        // A witness of thousands of segments (no period) would make every mutation of it slow: its most
        // frequent tile repeated stands in for it then (the witness itself is still written, below).
        if (j.bound->pattern.segments.size() <= 512) c.start.push_back(j.bound->pattern);
        c.start.push_back(j.bound->tile_pattern);
        c.start_origin = "the bound's witness";
      }
      c.seed = gen::mix(a.seed, static_cast<uint64_t>(j.pilot), static_cast<uint64_t>(j.f));
      c.budget = a.budget, c.seconds = a.seconds, c.keep = a.keep;
      c.progress = [&, i](const hunt::Progress& p) { progress(i, p); };
      j.result = hunt::hunt(ev, c);
      j.options = ev.scorer().options();
      hunt::Evaluator base(j.pilot, j.f, model, options_of(j.f), a.n);
      j.step = hunt::step_sweep(base, base.scorer().options().tile);
      if (j.bound) j.witness = base.find(j.bound->pattern, "the bound's witness");
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < a.jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (a.progress) err << "\n";
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Every find scored again by the traced kernel before anything is written: one that differs is refused.
  for (Job& j : jobs) {
    const PilotOptions o = j.options;
    for (hunt::Find& f : j.result.finds) {
      const double claimed = a.corrupt_for_test ? std::nextafter(f.score.regret, INFINITY) : f.score.regret;
      if (const std::string e = rescore(j.pilot, j.f, f, model, o, a.n, claimed); !e.empty())
        throw Unconfirmed("a find the traced kernel does not confirm, so no file was written: " + e +
                          "\npattern:\n" + gen::to_text(f.pattern));
    }
    if (j.bound)
      if (const std::string e = rescore(j.pilot, j.f, j.witness, model, o, a.n, j.witness.score.regret); !e.empty())
        throw Unconfirmed("the bound's witness is not confirmed by the traced kernel, so no file was written: " + e +
                          "\npattern:\n" + gen::to_text(j.witness.pattern));
  }
  // Files: every find into --out; the best of each pilot x f into --corpus with --save.
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) throw std::runtime_error("cannot create '" + a.out + "': " + ec.message());
  for (Job& j : jobs) {
    for (size_t r = 0; r < j.result.finds.size(); ++r) {
      const hunt::Find& f = j.result.finds[r];
      const std::string base = hunt::pattern_file_name(j.pilot, j.f, f.score.regret);
      const std::string path = (std::filesystem::path(a.out) / base).string();
      write_file(path, pattern_file(j, f, model, a, j.options, path));
      j.files.push_back(path);
      if (a.save && r == 0) {
        // A seed-aware construction (pilot_v5, an input that knows its seed) is named so.
        const bool aware = f.origin.rfind("seed-aware", 0) == 0;
        const std::string cpath = (std::filesystem::path(a.corpus) / ((aware ? "seed-aware-" : "hunt-") + base)).string();
        write_file(cpath, pattern_file(j, f, model, a, j.options, cpath));
      }
    }
    // The bound's witness, a countertest like any find: bound-PILOT-F-REGRET.pattern.
    if (j.bound) {
      const std::string base = "bound-" + hunt::pattern_file_name(j.pilot, j.f, j.witness.score.regret);
      j.witness_file = (std::filesystem::path(a.out) / base).string();
      write_file(j.witness_file, pattern_file(j, j.witness, model, a, j.options, j.witness_file));
      if (a.save) {
        const std::string cpath = (std::filesystem::path(a.corpus) / base).string();
        write_file(cpath, pattern_file(j, j.witness, model, a, j.options, cpath));
      }
    }
  }
  // --fail-above: every certified bound and every find above the bar, named with its file.
  std::vector<std::string> above;
  for (const Job& j : jobs) {
    if (a.fail_above && j.bound && j.bound->bound > *a.fail_above)
      above.push_back(std::string(name(j.pilot)) + " " + std::string(name(j.f)) + " bound " +
                      fixed(j.bound->bound, 4) + " (" + j.witness_file + ")");
    for (size_t r = 0; r < j.result.finds.size(); ++r)
      if (a.fail_above && j.result.finds[r].score.regret > *a.fail_above)
        above.push_back(std::string(name(j.pilot)) + " " + std::string(name(j.f)) + " " +
                        fixed(j.result.finds[r].score.regret, 4) + " (" + j.files[r] + ")");
  }
  // --summary: the gate's table, appended (GitHub's $GITHUB_STEP_SUMMARY is such a file): per pilot x f the
  // figure the gate reads (the certified bound, or the hunt's best find where the bound does not cover the pilot)
  // and the `check` line that replays its pattern.
  if (!a.summary.empty()) {
    std::ostringstream s;
    s << "### maskapply hunt: dispatch gate" << (a.fail_above ? " (--fail-above " + fixed(*a.fail_above, 4) + ")" : "")
      << "\n\nModel " << model.name << ", n = " << a.n << ", seed " << a.seed << ", budget " << a.budget
      << " evaluations per pilot x f. The gate reads the certified bound (docs/bound.md), or the hunt's best find where "
         "the bound does not cover the pilot.\n\n| pilot | f | certified bound | hunt's find | gate | replay |\n"
         "|---|---|---|---|---|---|\n";
    for (const Job& j : jobs) {
      const double find = j.result.finds.empty() ? 0 : j.result.finds[0].score.regret;
      const double figure = j.bound ? j.bound->bound : find;
      const std::string file = j.bound ? j.witness_file : j.files.empty() ? std::string() : j.files[0];
      const std::string check = "maskapply check --pattern " + file + " --f " + std::string(name(j.f)) + " --model " +
                                model_arg(a) + " --kernel " + std::string(name(j.pilot));
      const bool bad = a.fail_above && (figure > *a.fail_above || find > *a.fail_above);
      s << "| " << name(j.pilot) << " | " << name(j.f) << " | " << (j.bound ? fixed(j.bound->bound, 4) : "n/a") << " | "
        << fixed(find, 4) << " | " << (bad ? "**above**" : a.fail_above ? "ok" : "-") << " | `" << check << "` |\n";
    }
    s << "\n" << (above.empty() ? "Nothing above the bar." : std::to_string(above.size()) + " above the bar; the "
                                                               "patterns are in the job's artifact.") << "\n";
    std::ofstream o(a.summary, std::ios::app);
    if (!(o << s.str()) || !o.flush()) throw std::runtime_error("cannot append to --summary '" + a.summary + "'");
  }
  const auto fail = [&]() {
    if (above.empty()) return 0;
    err << "maskapply hunt: " << above.size() << " bound(s) or find(s) above --fail-above " << *a.fail_above << ":\n";
    for (const std::string& s : above) err << "  " << s << "\n";
    return 1;
  };
  // Best first.
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto top = [&](size_t i) { return jobs[i].result.finds.empty() ? 0.0 : jobs[i].result.finds[0].score.regret; };
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return top(x) > top(y); });

  if (a.json) {
    // Schema 2: provenance, model_file, model_hash, options, fail_above, above.
    nlohmann::ordered_json j = run_header(2, a, model, total);
    j["fail_above"] = a.fail_above ? nlohmann::json(*a.fail_above) : nlohmann::json(nullptr);
    j["above"] = above;
    nlohmann::ordered_json arr = nlohmann::json::array();
    for (size_t i : order) {
      const Job& jb = jobs[i];
      for (size_t r = 0; r < jb.result.finds.size(); ++r) {
        const hunt::Find& f = jb.result.finds[r];
        nlohmann::ordered_json e;
        e["pilot"] = std::string(name(jb.pilot));
        e["f"] = std::string(name(jb.f));
        e["model_regret"] = f.score.regret;
        e["vs_fixed"] = f.score.vs_fixed;
        e["pattern"] = gen::to_text(f.pattern);
        e["options"] = hunt::options_text(jb.options);
        e["d_max"] = jb.options.d_max ? nlohmann::json(*jb.options.d_max) : nlohmann::json(nullptr);
        e["file"] = jb.files[r];
        e["mechanism"] = f.score.mechanism.words();
        e["mechanism_key"] = f.score.mechanism.key();
        e["origin"] = f.origin;
        e["unshrunk"] = f.unshrunk;
        e["rank"] = r;
        e["step_sweep"] = jb.step.score.regret;
        e["start"] = jb.result.start;
        e["adversary"] = jb.result.adversary;
        // pilot_v5: the seed-aware adversary's best (an input that knows the seed); null for the other pilots.
        e["seed_aware"] = jb.pilot == Kernel::pilot_v5 ? nlohmann::json(jb.result.seed_aware) : nlohmann::json(nullptr);
        e["evaluations"] = jb.result.evaluations;
        e["seconds"] = jb.result.seconds;
        e["capped"] = jb.result.capped;
        // The certified worst case: every selection of length n has model regret <= bound (docs/bound.md).
        if (jb.bound) {
          e["bound"] = jb.bound->bound;
          e["of_bound"] = f.score.regret / jb.bound->bound;
          e["bound_witness"] = jb.witness.score.regret;
          e["bound_file"] = jb.witness_file;
          e["bound_seconds"] = jb.bound->seconds;
        } else {
          e["bound"] = nullptr;
          e["bound_note"] = jb.bound_note;
        }
        arr.push_back(e);
      }
    }
    std::stable_sort(arr.begin(), arr.end(), [](const nlohmann::ordered_json& x, const nlohmann::ordered_json& y) {
      return x["model_regret"].get<double>() > y["model_regret"].get<double>();
    });
    j["best"] = arr;
    out << j.dump(2) << "\n";
    return fail();
  }
  out << "\n| pilot | f | model regret | bound | find / bound | vs fixed | seeds | adversary | seed-aware | step sweep "
         "| evals | s | bound s | mechanism | pattern |\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (size_t i : order) {
    const Job& jb = jobs[i];
    const hunt::HuntResult& r = jb.result;
    if (r.finds.empty()) continue;
    const hunt::Find& f = r.finds[0];
    out << "| " << name(jb.pilot) << " | " << name(jb.f) << " | **" << fixed(f.score.regret, 3) << "** | "
        << (jb.bound ? fixed(jb.bound->bound, 3) + " | " + fixed(100 * f.score.regret / jb.bound->bound, 1) + " %"
                     : std::string("n/a | n/a"))
        << " | " << fixed(f.score.vs_fixed, 3) << " | " << fixed(r.start, 3) << " | " << fixed(r.adversary, 3) << " | "
        << (jb.pilot == Kernel::pilot_v5 ? fixed(r.seed_aware, 3) : std::string("n/a")) << " | "
        << fixed(jb.step.score.regret, 3) << " | " << r.evaluations << " | " << fixed(r.seconds, 1)
        << (r.capped ? " (capped)" : "") << " | " << (jb.bound ? fixed(jb.bound->seconds, 1) : std::string("n/a"))
        << " | " << f.score.mechanism.key() << " | `" << seg_line(f.pattern)
        << "` |\n";
  }
  out << "\nbound: every selection of length " << a.n << " has model regret <= bound under this model, options and "
      << "d_max (certified, docs/bound.md; bound-*.pattern is its witness); n/a: not covered";
  for (const Job& jb : jobs)
    if (!jb.bound) {
      out << " (" << name(jb.pilot) << ": " << jb.bound_note << ")";
      break;
    }
  out << ".\n";
  for (const Job& jb : jobs)
    if (jb.pilot == Kernel::pilot_v5) {
      out << "seed-aware: pilot_v5's probe positions follow from its seed (in the options, and in every reproduce "
             "line); the seed-aware adversary fills them one way and the rest another (docs/hunt.md, \"Knowing the "
             "seed\"); the other columns are what it costs while the seed is secret. No pilot is certified below "
             "`maskapply floor` against an input that knows it.\n";
      break;
    }
  out << "\nfiles in " << a.out << (a.save ? " and " + a.corpus : "") << "; reprint one with the `# reproduce:` line "
      << "it holds. " << fixed(total, 1) << " s in all.\n";
  for (size_t i : order)
    if (jobs[i].result.capped)
      out << "note: the time cap stopped " << name(jobs[i].pilot) << " " << name(jobs[i].f) << " after "
          << jobs[i].result.evaluations << " evaluations in all (seeds, adversary, evolution; the evolution's "
          << "budget was " << a.budget << "): the result depends on this machine's speed\n";
  return fail();
}

int floor_cmd(const FloorArgs& a, std::ostream& out, std::ostream& err) {
  (void)err;
  const std::vector<Fn> fns = parse_fns(a.fns, {kArticleFns.begin(), kArticleFns.end()});
  const gen::CostModel model = *load_model(a.model, a.model_file);
  // The menu game takes about 0.35 ms per decided block and lambda on the shared 2-core x86-64 VM under load (6 to
  // 13 lambdas; docs/bound.md), the hindsight game a tenth of it: 2^21 elements is about 5 to 10 minutes per f.
  if (a.n > (size_t{1} << 21)) throw Usage("--n must be at most 2^21 for the floor (the default, 36 tiles, takes 20-40 s per f)");
  auto parsed = gen::hunt::parse_options_text(a.options);
  if (auto* e = std::get_if<std::string>(&parsed)) throw Usage("--options: " + *e);
  const PilotOptions o = std::get<PilotOptions>(parsed);
  const gen::hunt::FloorFamily fam{a.every, a.probe_reads};
  if (const std::string why = gen::hunt::floor_unsupported(o, a.n, fam); !why.empty()) throw Usage(why);
  nlohmann::ordered_json arr = nlohmann::json::array();
  if (!a.json)
    out << "maskapply floor: model " << model.name << ", n = " << a.n << " (" << (a.n - o.calib_blocks * o.calib_len) / 16
        << " decided blocks, tiles of " << o.tile << ")\n"
        << "every pilot on the menu"
        << (a.every > 1 ? " that chooses only at every " + std::to_string(a.every) + "-th block of a tile" : std::string())
        << (a.probe_reads ? std::string(a.every > 1 ? " and" : " that") + " reads ahead only in a tile's first " +
                                std::to_string(o.probe) + " elements"
                          : std::string())
        << " has, against an adversary who knows it (its seed included), a selection with\n"
        << "model regret above the floor (certified: docs/bound.md, \"The floor under every pilot\")\n"
        << "(the larger of two games' floors: menu, the oracle's whole menu; hindsight, blend and blend_skip)\n"
        << "f         floor     (not above)  menu      hindsight  seconds\n";
  for (const Fn f : fns) {
    const gen::hunt::FloorResult r = gen::hunt::pilot_floor(f, model, o, a.n, fam);
    if (a.json) {
      nlohmann::ordered_json e;
      e["f"] = std::string(name(f)), e["floor"] = r.floor, e["above"] = r.above, e["blocks"] = r.blocks;
      e["menu"] = r.menu, e["hindsight"] = r.hindsight, e["game"] = r.game;
      e["programs"] = r.programs, e["seconds"] = r.seconds;
      arr.push_back(e);
      continue;
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "%-9s %-9s %-12s %-9s %-10s %.1f\n", std::string(name(f)).c_str(),
                  fixed(r.floor, 4).c_str(), fixed(r.above, 4).c_str(), fixed(r.menu, 4).c_str(),
                  fixed(r.hindsight, 4).c_str(), r.seconds);
    out << buf;
  }
  if (a.json) {
    nlohmann::ordered_json j;
    j["schema_version"] = 1, j["model"] = model.name, j["n"] = a.n, j["every"] = a.every, j["probe_reads"] = a.probe_reads;
    j["floors"] = arr;
    out << j.dump(2) << "\n";
  }
  return 0;
}

}  // namespace maskapply::cli
