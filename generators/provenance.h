// SPDX-License-Identifier: MIT
// Where a run ran, so results from different machines can be compared: maskapply's version and git commit, the
// compiler, the platform path (native NEON, NEON under qemu, NEON through SIMDe), the CPU model, the OS and the
// date. One builder shared by `maskapply --version`, report.json, `check --json` and the hunt.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace maskapply::gen {

struct Provenance {
  std::string version;   // CMake's project version
  std::string commit;    // git commit at build time, "-dirty" when the tree had changes; "unknown" outside git
  std::string compiler;  // e.g. "gcc 12.2.0", "clang 14.0.6"
  std::string platform;  // "native NEON (aarch64)", "NEON under qemu-aarch64 (on <host CPU>)", "NEON through SIMDe (x86-64)"
  std::string cpu;       // /proc/cpuinfo's model name, or the Arm implementer/part (Neoverse-N1 ...)
  std::string os;        // uname: sysname release machine
  std::string date;      // UTC, ISO 8601, when provenance() was called
};

Provenance provenance();

// The fields in a fixed order, named as in JSON (version, commit, compiler, platform, cpu, os, date).
std::vector<std::pair<std::string, std::string>> fields(const Provenance& p);

// One line for logs and Markdown: "maskapply 0.1 (abc123) gcc 12.2.0; NEON through SIMDe (x86-64); CPU ...; date".
std::string one_line(const Provenance& p);

}  // namespace maskapply::gen
