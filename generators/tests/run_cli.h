// SPDX-License-Identifier: MIT
// The `maskapply` tool run in-process, as the tests that drive it see it: exit code, stdout and stderr.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli.h"

namespace maskapply::cli {

struct Result {
  int code;
  std::string out, err;
};

// `maskapply ARGS...` (the program name is added).
inline Result run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "maskapply");
  std::ostringstream out, err;
  const int code = run(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace maskapply::cli
