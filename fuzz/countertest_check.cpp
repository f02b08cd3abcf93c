// SPDX-License-Identifier: MIT
// countertest_check: reruns the regret countertests (corpus/countertests/*.pattern). Each file is a pattern
// (generators/pattern.h) whose first comment line reads
//   # model regret R (...) for PILOT, f = F, model m5, n = N
// (R against the block oracle over the decided tiles, regret.h; generators_countertests_test re-checks the
// same files through their `# reproduce: maskapply check ...` line)
// It recomputes the model regret of PILOT with F on the pattern (fuzz/regret_eval.h) and prints recorded and
// recomputed side by side. Fails (exit 1) when a file does not parse, lacks that line, or the pilot's trace
// differs from the reference pilot; a regret that moved (the cost model changed) is reported, not failed,
// unless --strict. Exit 2 on usage errors.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pattern_file.h"
#include "regret_eval.h"

namespace fs = std::filesystem;
using namespace maskapply;

int main(int argc, char** argv) {
  bool strict = false;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::error_code ec;
    if (a == "--strict") {
      strict = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: %s [--strict] FILE.pattern|DIR...\n", argv[0]);
      return 0;
    } else if (fs::is_directory(a, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(a, ec))
        if (e.is_regular_file() && e.path().extension() == ".pattern") files.push_back(e.path());
    } else if (fs::is_regular_file(a, ec)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "countertest_check: %s: no such file or directory\n", a.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "countertest_check: no .pattern file given\n");
    return 2;
  }
  int status = 0;
  size_t passed = 0, failed = 0;
  for (const fs::path& p : files) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    const std::optional<gen::hunt::Head> h = gen::hunt::read_head(s);
    const auto kernel = h && h->model == "m5" ? kernel_from_name(h->pilot) : std::nullopt;
    const auto f = kernel ? fn_from_name(h->f) : std::nullopt;
    const gen::ParseResult r = gen::parse_pattern(s);
    std::string error;
    if (!kernel || !f) error = "no `# model regret R ... for PILOT, f = F, model m5, n = N` line";
    else if (!r) error = r.error().message();
    double now = 0, recorded = 0;
    if (error.empty()) {
      recorded = std::stod(h->regret);
      const fuzz::RegretEval e = fuzz::evaluate_regret(*kernel, *f, r.pattern(), h->n);
      now = e.regret.vs_oracle;
      if (!e.trace_error.empty()) error = "trace: " + e.trace_error;
      else if (strict && std::fabs(now - recorded) > 5e-4 * recorded)
        error = "regret moved: recorded " + std::to_string(recorded) + ", now " + std::to_string(now);
    }
    if (error.empty()) {
      ++passed;
      std::printf("%-60s %s %s: recorded %.4f, now %.4f%s\n", p.filename().c_str(), h->pilot.c_str(),
                  h->f.c_str(), recorded, now, std::fabs(now - recorded) > 5e-4 * recorded ? "  (moved)" : "");
    } else {
      ++failed;
      status = 1;
      std::fprintf(stderr, "FAIL %s: %s\n  rerun: %s %s\n", p.c_str(), error.c_str(), argv[0], p.c_str());
    }
  }
  std::printf("countertest_check: %zu passed, %zu failed\n", passed, failed);
  return status;
}
