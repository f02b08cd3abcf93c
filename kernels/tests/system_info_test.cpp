// SPDX-License-Identifier: MIT
// Prints which code path this build runs, so every CI log says what was tested.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "platform.h"

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 || line.rfind("CPU implementer", 0) == 0) return line;
  return "unknown";
}

TEST(SystemInfo, PrintsThePathThatRan) {
  std::string path = MASKAPPLY_PLATFORM_NAME;
#if defined(MASKAPPLY_NATIVE_NEON)
  // Under qemu-user, /proc/cpuinfo is the host's: an x86 model name means we are emulated.
  if (cpu_model().rfind("model name", 0) == 0) path = "NEON under qemu-aarch64 (emulated on " + cpu_model() + ")";
#endif
  std::printf("maskapply system_info: %s; compiler %s; cpu: %s\n", path.c_str(), __VERSION__, cpu_model().c_str());
  SUCCEED();
}

}  // namespace
