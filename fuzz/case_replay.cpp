// SPDX-License-Identifier: MIT
// case_replay: reruns case files (oracle/case_file.h) against the oracle: every `*.case` given, directories
// searched recursively in sorted order. The properties and the fuzz targets write one for every failure; ctest
// replays corpus/regressions/ with it (label `regression`). Prints each failure with its message and the
// smallest case that still fails (testing::minimize, written to $MASKAPPLY_FAILURE_DIR); exit 0 when
// every case matches the oracle, 1 when one does not, 2 when a file is unreadable or malformed.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "case_file.h"
#include "minimize.h"
#include "plugin.h"

namespace fs = std::filesystem;
using namespace maskapply;

int main(int argc, char** argv) {
  bool allow_empty = false;
  std::vector<fs::path> files;
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::error_code ec;
    if (a == "--allow-empty") {
      allow_empty = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: %s [--allow-empty] FILE.case|DIR...\nReruns case files against the oracle.\n", argv[0]);
      return 0;
    } else if (fs::is_directory(a, ec)) {
      std::vector<fs::path> found;
      for (const auto& e : fs::recursive_directory_iterator(a, ec))
        if (e.is_regular_file() && e.path().extension() == ".case") found.push_back(e.path());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(a, ec)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "case_replay: %s: no such file or directory\n", a.c_str());
      status = 2;
    }
  }
  size_t passed = 0, failed = 0;
  for (const fs::path& p : files) {
    std::ifstream in(p);
    std::stringstream text;
    text << in.rdbuf();
    const testing::CaseParse parsed = testing::parse_case(text.str());
    if (!parsed.value) {
      std::fprintf(stderr, "%s: %s\n", p.c_str(), parsed.error.c_str());
      status = 2;
      continue;
    }
    const testing::CheckResult r = testing::run_case(*parsed.value);
    if (r.ok) {
      ++passed;
    } else {
      ++failed;
      std::fprintf(stderr, "FAIL %s\n  %s\n  rerun: %s %s\n", p.c_str(), r.message.c_str(), argv[0], p.c_str());
      // The smallest case that still fails (length, then tile, then contents), next to the failure directory's.
      const testing::Minimized m = testing::minimize(*parsed.value, testing::oracle_failure);
      const bool smaller = m.c.data.size() < parsed.value->data.size() || m.c.options.tile < parsed.value->options.tile;
      if (!m.why.empty() && smaller) {
        const std::string min = testing::write_case_file(m.c, testing::failure_dir(), p.stem().string() + "-min",
                                                         m.why + "\n" + m.summary());
        std::fprintf(stderr, "  minimal (%s): %s\n  minimal case file: %s\n", m.summary().c_str(), m.why.c_str(),
                     min.empty() ? "(not written)" : min.c_str());
      }
      if (status == 0) status = 1;
    }
  }
  if (files.empty() && !allow_empty && status == 0) {
    std::fprintf(stderr, "case_replay: no case file given\n");
    status = 2;
  }
  std::printf("case_replay: %zu passed, %zu failed\n", passed, failed);
  return status;
}
