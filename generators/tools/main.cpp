// SPDX-License-Identifier: MIT
#include <iostream>

#include "cli.h"

int main(int argc, char** argv) {
  return maskapply::cli::run(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
}
