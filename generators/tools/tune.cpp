// SPDX-License-Identifier: MIT
// `maskapply tune`: per pilot x f, the search of generators/hunt/tune.h, the floor under it, the witness of the
// tuned options' bound written as a pattern file `check` replays; a table (or JSON) with the one-knob sweep beside.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>

#include "commands.h"
#include "evaluate.h"
#include "floor.h"
#include "pattern_file.h"
#include "provenance.h"
#include "run_header.h"
#include "tune.h"

namespace maskapply::cli {

namespace hunt = gen::hunt;

namespace {

struct TuneJob {
  Kernel pilot;
  Fn f;
  hunt::TuneResult r;
  std::optional<hunt::FloorResult> floor;  // of the tuned options' family
  hunt::FloorFamily family;
  std::string floor_note;
  hunt::Find witness;
  std::string witness_file, check_line;
  std::vector<Kernel> seeds_from;  // the pilots whose tuned options were handed over as TuneConfig::seeds
  bool done = false;
  // The pilot whose tuned knobs the best options descend from, or empty.
  std::string_view seeded_by() const {
    return r.seed >= 0 ? name(seeds_from[static_cast<size_t>(r.seed)]) : std::string_view();
  }
};

std::string model_arg(const TuneArgs& a) {
  if (a.model == "host") return "host --model-file " + a.model_file;
  return a.model;
}

std::string list_text(const std::vector<double>& v) {
  std::string s;
  for (const double d : v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", d);
    s += (s.empty() ? "" : " ") + std::string(buf);
  }
  return s;
}

}  // namespace

int tune_cmd(const TuneArgs& a, std::ostream& out, std::ostream& err) {
  std::vector<Kernel> pilots;
  if (a.pilots == "all")  // every pilot with a certified bound
    for (const hunt::TunablePilot& t : hunt::tunable_pilots()) pilots.push_back(t.pilot);
  else
    pilots = parse_pilots(a.pilots);
  for (const Kernel k : pilots)
    if (!hunt::tunable(k))
      throw Usage("--pilot: " + std::string(name(k)) + " has no certified bound to tune (known: " +
                  hunt::tunable_pilot_names() + ")");
  const std::vector<Fn> fns = parse_fns(a.fns, {kArticleFns.begin(), kArticleFns.end()});
  const gen::CostModel model = *load_model(a.model, a.model_file);
  if (!(a.seconds >= 0)) throw Usage("--seconds must be >= 0");
  if (a.jobs < 1 || a.jobs > 64) throw Usage("--jobs must be in [1, 64]");
  if (a.n < 2 * 4096 + 4096 || a.n > (size_t{1} << 21)) throw Usage("--n must be in [12288, 2^21]");
  {
    std::error_code ec;
    if (std::filesystem::exists(a.out, ec) && !std::filesystem::is_directory(a.out, ec))
      throw Usage("--out '" + a.out + "' exists and is not a directory");
  }
  auto parsed = hunt::parse_options_text(a.options);
  if (auto* e = std::get_if<std::string>(&parsed)) throw Usage("--options: " + *e);
  const PilotOptions given = std::get<PilotOptions>(parsed);
  std::vector<hunt::Knob> knobs;
  if (!a.knobs.empty())
    for (const std::string& s : split(a.knobs, ',')) {
      const auto k = hunt::knob_from_name(s);
      if (!k) throw Usage("--knobs: unknown knob '" + s + "' (known: " + hunt::knob_names() + ")");
      knobs.push_back(*k);
    }
  std::vector<TuneJob> jobs;
  for (const Kernel k : pilots)
    for (const Fn f : fns) {
      const PilotOptions o = gen::options_for(given, f, &model, std::nullopt);
      if (const std::string e = hunt::bound_unsupported(k, o, a.n); !e.empty())
        throw Usage("--options: the start is off the certified bound's grid for " + std::string(name(k)) + ": " + e);
      for (const hunt::Knob kn : knobs) {
        const auto& mine = hunt::tunable(k)->knobs;
        if (std::find(mine.begin(), mine.end(), kn) == mine.end())
          throw Usage("--knobs: " + std::string(name(k)) + " does not read " + std::string(hunt::name(kn)));
      }
      jobs.push_back(TuneJob{k, f, {}, {}, {}, {}, {}, {}, {}, {}, false});
    }
  const hunt::PlainData plain;
  if (!a.json)
    out << "maskapply tune: seed " << a.seed << ", model " << model.name << ", n = " << a.n << ", budget " << a.budget
        << " candidates per pilot x f after the one-knob sweep, cap " << a.seconds << " s each, " << a.jobs
        << " job(s)\nplain-data rule: on uniform random selections at densities " << list_text(plain.densities)
        << " (seeds 1 2, `seg rest:~d`), the tuned options' model cost <= " << plain.max_ratio << " x the start's\n";

  std::mutex mu;
  const auto t0 = std::chrono::steady_clock::now();
  double last_line = -1;
  // By f, tile, calibration region, probe and family.
  std::map<std::tuple<Fn, size_t, size_t, size_t, size_t, bool>, hunt::FloorResult> floors;
  std::atomic<size_t> next{0};
  std::condition_variable finished;
  const auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      TuneJob& j = jobs[i];
      hunt::TuneConfig c;
      c.seed = a.seed, c.budget = a.budget, c.seconds = a.seconds, c.n = a.n, c.knobs = knobs;
      const PilotOptions start = gen::options_for(given, j.f, &model, std::nullopt);
      {
        // The pilots before this one on the same f hand over the knobs their tunes moved, as seeds: a move that
        // needs two knobs at once for one pilot is often the same for another. The job waits for them (they were
        // taken first), so the result does not depend on --jobs.
        std::unique_lock<std::mutex> lock(mu);
        for (size_t q = 0; q < i; ++q) {
          if (jobs[q].f != j.f) continue;
          finished.wait(lock, [&] { return jobs[q].done; });
          if (jobs[q].r.best.moved.empty()) continue;
          PilotOptions o = start;
          for (const hunt::Knob k : knobs.empty() ? hunt::tunable(j.pilot)->knobs : knobs)
            hunt::set_knob(o, k, hunt::knob_value(jobs[q].r.best.options, k));
          c.seeds.push_back(o), j.seeds_from.push_back(jobs[q].pilot);
        }
      }
      c.progress = [&, i](const hunt::TuneProgress& p) {
        if (!a.progress) return;
        std::lock_guard<std::mutex> lock(mu);
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (t - last_line < 0.2 && p.phase != "done") return;
        last_line = t;
        err << "\r[" << fixed(t, 0) << " s] " << name(jobs[i].pilot) << " " << name(jobs[i].f) << " " << p.phase
            << ": best bound " << fixed(p.best, 4) << ", " << p.evaluations << " candidates, " << p.bounds
            << " bounded   " << std::flush;
      };
      j.r = hunt::tune(j.pilot, j.f, model, start, c);
      const PilotOptions& o = j.r.best.options;
      // The floor of the tuned pilot's family (its choices at its pieces' edges, its reads in its probe): no
      // options of that shape, for any pilot, are certified below it.
      const hunt::FloorFamily fam = hunt::floor_family(j.pilot, o);
      j.family = fam;
      const auto key = std::make_tuple(j.f, o.tile, o.calib_blocks * o.calib_len, o.probe, fam.every, fam.probe_reads);
      {
        std::lock_guard<std::mutex> lock(mu);
        if (const auto it = floors.find(key); it != floors.end()) j.floor = it->second;
      }
      j.floor_note = hunt::floor_unsupported(o, a.n, fam);
      if (!j.floor && j.floor_note.empty()) {
        j.floor = hunt::pilot_floor(j.f, model, o, a.n, fam);
        std::lock_guard<std::mutex> lock(mu);
        floors.emplace(key, *j.floor);
      }
      hunt::Evaluator ev(j.pilot, j.f, model, o, a.n);
      j.witness = ev.find(j.r.best_bound.pattern, "the bound's witness");
      std::lock_guard<std::mutex> lock(mu);
      j.done = true;
      finished.notify_all();
      if (a.progress) err << "\n";
      err << "maskapply tune: " << name(j.pilot) << " " << name(j.f) << ": bound " << fixed(j.r.start.bound, 4) << " -> "
          << fixed(j.r.best.bound, 4) << " (one-knob sweep " << fixed(j.r.sweep.bound, 4) << ") in "
          << fixed(j.r.seconds, 1) << " s (" << fixed(j.r.cpu_seconds, 1) << " s of CPU)\n";
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < a.jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // The witnesses, confirmed by the traced kernel before anything is written.
  for (const TuneJob& j : jobs)
    if (const std::string e = rescore(j.pilot, j.f, j.witness, model, j.r.best.options, a.n, j.witness.score.regret);
        !e.empty())
      throw Unconfirmed("the tuned bound's witness is not confirmed by the traced kernel, so no file was written: " + e +
                        "\npattern:\n" + gen::to_text(j.witness.pattern));
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) throw std::runtime_error("cannot create '" + a.out + "': " + ec.message());
  for (TuneJob& j : jobs) {
    hunt::FileInfo fi;
    fi.pilot = j.pilot, fi.f = j.f, fi.model = model, fi.model_arg = model_arg(a), fi.options = j.r.best.options;
    fi.n = a.n, fi.model_file = a.model == "m5" ? "" : a.model == "host" ? a.model_file : a.model;
    fi.found_by = "maskapply tune --seed " + std::to_string(a.seed);
    j.witness_file =
        (std::filesystem::path(a.out) / ("bound-" + hunt::pattern_file_name(j.pilot, j.f, j.witness.score.regret)))
            .string();
    fi.path = j.witness_file;
    write_file(j.witness_file, hunt::pattern_file(j.witness, fi));
    j.check_line = "maskapply check --pattern " + j.witness_file + " --f " + std::string(name(j.f)) + " --model " +
                   model_arg(a) + " --kernel " + std::string(name(j.pilot));
  }

  if (a.json) {
    nlohmann::ordered_json j = run_header(1, a, model, total);
    j["plain_data"] = {{"densities", plain.densities}, {"seeds", plain.seeds}, {"max_ratio", plain.max_ratio}};
    nlohmann::ordered_json arr = nlohmann::json::array();
    for (const TuneJob& jb : jobs) {
      const hunt::TuneResult& r = jb.r;
      nlohmann::ordered_json e;
      e["pilot"] = std::string(name(jb.pilot));
      e["f"] = std::string(name(jb.f));
      e["options"] = hunt::options_text(r.best.options);
      e["moved"] = r.best.moved;
      e["seeded_by"] = jb.seeded_by().empty() ? nlohmann::json(nullptr) : nlohmann::json(std::string(jb.seeded_by()));
      e["seeds_from"] = nlohmann::json::array();
      for (const Kernel q : jb.seeds_from) e["seeds_from"].push_back(std::string(name(q)));
      e["start_options"] = hunt::options_text(r.start.options);
      e["d_max"] = *r.best.options.d_max;
      e["bound_before"] = r.start.bound;
      e["bound_after"] = r.best.bound;
      e["sweep"] = {{"bound", r.sweep.bound}, {"moved", r.sweep.moved}, {"options", hunt::options_text(r.sweep.options)},
                    {"plain_worst", r.sweep.plain_worst}};
      e["after_over_sweep"] = r.best.bound / r.sweep.bound;
      e["floor"] = jb.floor ? nlohmann::json(jb.floor->floor) : nlohmann::json(nullptr);
      e["floor_every"] = jb.family.every, e["floor_probe_reads"] = jb.family.probe_reads;
      if (!jb.floor) e["floor_note"] = jb.floor_note;
      e["plain_worst"] = r.best.plain_worst;
      e["plain_worst_density"] = r.best.plain_density;
      e["plain_worst_seed"] = r.best.plain_seed;
      e["witness_regret"] = jb.witness.score.regret;
      e["witness_file"] = jb.witness_file;
      e["check"] = jb.check_line;
      e["evaluations"] = r.evaluations;
      e["bounds"] = r.bounds;
      e["off_grid"] = r.off_grid;
      e["refused_plain"] = r.refused_plain;
      e["dismissed"] = r.dismissed;
      e["seconds"] = r.seconds;
      e["cpu_seconds"] = r.cpu_seconds;
      e["capped"] = r.capped;
      arr.push_back(e);
    }
    j["results"] = arr;
    out << j.dump(2) << "\n";
    return 0;
  }
  out << "\n| pilot | f | bound before | one-knob sweep | bound after | after / sweep | floor of its shape "
         "| plain worst (density) | candidates (bounded) | s (CPU s) |\n|---|---|---|---|---|---|---|---|---|---|\n";
  size_t beats = 0;
  double most = 0;
  for (const TuneJob& jb : jobs) {
    const hunt::TuneResult& r = jb.r;
    const double gain = 1 - r.best.bound / r.sweep.bound;
    beats += gain > 1e-9, most = std::max(most, gain);
    out << "| " << name(jb.pilot) << " | " << name(jb.f) << " | " << fixed(r.start.bound, 4) << " | "
        << fixed(r.sweep.bound, 4) << (r.sweep.moved.empty() ? " (start)" : " (" + r.sweep.moved + ")") << " | **"
        << fixed(r.best.bound, 4) << "** | " << fixed(r.best.bound / r.sweep.bound, 4) << " | "
        << (jb.floor ? fixed(jb.floor->floor, 4) + " (every " + std::to_string(jb.family.every) + ")"
                     : std::string("n/a"))
        << " | " << fixed(r.best.plain_worst, 4) << " (" << r.best.plain_density << ") | " << r.evaluations << " (" << r.bounds << ") | " << fixed(r.seconds, 1) << " ("
        << fixed(r.cpu_seconds, 1) << ")" << (r.capped ? " (capped)" : "") << " |\n";
  }
  out << "\ntune beats the one-knob sweep in " << beats << " of " << jobs.size() << " pilot x f"
      << (beats ? ", by up to " + fixed(100 * most, 1) + " % of its bound" : std::string()) << ".\n";
  for (const TuneJob& jb : jobs) {
    out << "\n" << name(jb.pilot) << " " << name(jb.f) << ": "
        << (jb.r.best.moved.empty() ? "the start is the best found" : "moved " + jb.r.best.moved)
        << (jb.seeded_by().empty() ? std::string() : " (from " + std::string(jb.seeded_by()) + "'s tune)")
        << "\n  --options \""
        << hunt::options_text(jb.r.best.options) << "\"\n  witness (regret " << fixed(jb.witness.score.regret, 4)
        << "): " << jb.check_line << "\n";
    if (!jb.floor) out << "  floor: " << jb.floor_note << "\n";
  }
  out << "\nbound: every selection of length " << a.n << " has model regret <= bound under this model and the options "
      << "(certified, docs/bound.md; `maskapply hunt --options \"...\"` reprints it); floor: no pilot that chooses "
      << "and reads as the tuned one does (every N blocks, only its probe: `maskapply floor --every N --probe-reads`) "
      << "is certified below it. " << fixed(total, 1) << " s in all.\n";
  for (const TuneJob& jb : jobs)
    if (jb.r.capped)
      out << "note: the time cap stopped " << name(jb.pilot) << " " << name(jb.f) << " after " << jb.r.evaluations
          << " candidates: the result depends on this machine's speed\n";
  return 0;
}

}  // namespace maskapply::cli
