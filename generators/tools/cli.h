// SPDX-License-Identifier: MIT
// The `maskapply` command-line tool as a function, so tests can run it in-process (also under qemu) and
// check exit codes and output. main.cpp only forwards argv.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace maskapply::cli {

// Exit codes: 0 every run bit-exact, 1 some run was not, 2 bad usage (unknown name, malformed file, impossible
// size); --help exits 0. args[0] is the program name.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace maskapply::cli
