// SPDX-License-Identifier: MIT
#include "fuzz.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "decisions.h"
#include "oracle.h"

namespace maskapply::fuzz {
using reference::show;
namespace {

std::string g_program = "<fuzz target>";
std::string g_input;

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

void fail(std::string_view target, std::string_view what, const testing::Case* c, const testing::Failure& check) {
  std::fprintf(stderr, "\n==== maskapply fuzz target `%.*s`: FAILED\n%.*s\n", int(target.size()), target.data(),
               int(what.size()), what.data());
  const char* env = std::getenv("MASKAPPLY_FUZZ_CASES");
  const std::string dir = env && *env ? env : "fuzz-cases";
  std::string base;
  if (c) {
    base = std::string(target) + "-" + std::string(name(c->kernel)) + "-" + hex64(fnv1a(testing::to_text(*c)));
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
  if (c) {  // after the report: the input and the drawn case are saved whatever the minimizer runs into
    const testing::Minimized m = testing::minimize(*c, check ? check : testing::Failure(testing::oracle_failure));
    if (m.why.empty()) {
      std::fprintf(stderr, "not minimized: the case passes when rerun through %s\n",
                   check ? "the target's check" : "the registry (a failure of the target's own instance)");
    } else {
      const std::string path = testing::write_case_file(m.c, dir, base + "-min", std::string("fuzz target ") +
                                                        std::string(target) + ": " + m.why + "\n" + m.summary());
      std::fprintf(stderr, "minimal failing case (%s):\n%s\ncase file: %s\n", m.summary().c_str(), m.why.c_str(),
                   path.empty() ? "(not written)" : path.c_str());
    }
    std::fflush(stderr);
  }
  std::abort();
}

std::string check_pilot_trace(Kernel k, const MaskSpec& m, std::span<const float> input, const PilotOptions& o,
                              const Trace& t) {
  if (std::string bad = check_trace_partition(t, input.size()); !bad.empty()) return bad;
  // Every decision is the one the decision reference (oracle/decisions.h) computes from the selection.
  return testing::check_decisions(k, input, m, o, t);
}

std::string check_trace_partition(const Trace& t, size_t n) {
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
  return {};
}

}  // namespace maskapply::fuzz
