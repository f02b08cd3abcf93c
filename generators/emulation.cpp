// SPDX-License-Identifier: MIT
#include "emulation.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace maskapply::gen {

bool under_emulation() {
  if (const char* e = std::getenv("MASKAPPLY_EMULATED")) return std::strcmp(e, "0") != 0;
#if defined(__aarch64__)
  // qemu-user passes the host's /proc/cpuinfo through: an x86 host shows vendor_id / flags lines.
  std::ifstream in("/proc/cpuinfo");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("vendor_id") != std::string::npos || text.find("GenuineIntel") != std::string::npos ||
         text.find("AuthenticAMD") != std::string::npos;
#else
  return false;
#endif
}

}  // namespace maskapply::gen
