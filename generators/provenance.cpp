// SPDX-License-Identifier: MIT
#include "provenance.h"

#include <sys/utsname.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>

#include "evaluate.h"
#include "maskapply_git_commit.h"  // generated at build time (cmake/GitCommit.cmake)

namespace maskapply::gen {

namespace {

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

std::string field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  }
  return "";
}

std::string cpu_model(const std::string& cpuinfo) {
  if (std::string m = field(cpuinfo, "model name"); !m.empty()) return m;  // x86 (also the host under qemu-user)
  // arm64 Linux names no model: implementer and part, with the common server and desktop cores spelled out.
  const std::string impl = field(cpuinfo, "CPU implementer"), part = field(cpuinfo, "CPU part");
  if (impl.empty()) return "unknown";
  static const std::map<std::string, std::string> arm{
      {"0x41/0xd08", "Arm Cortex-A72"}, {"0x41/0xd0b", "Arm Cortex-A76"}, {"0x41/0xd0c", "Arm Neoverse-N1"},
      {"0x41/0xd40", "Arm Neoverse-V1"}, {"0x41/0xd49", "Arm Neoverse-N2"}, {"0x41/0xd4f", "Arm Neoverse-V2"},
      {"0x41/0xd8e", "Arm Neoverse-N3"}, {"0x41/0xd84", "Arm Neoverse-V3"}, {"0x61/0x022", "Apple M1"},
      {"0x61/0x023", "Apple M1"}, {"0xc0/0xac3", "Ampere-1"}};
  const auto it = arm.find(impl + "/" + part);
  return (it != arm.end() ? it->second + " " : std::string()) + "(implementer " + impl + ", part " + part + ")";
}

}  // namespace

Provenance provenance() {
  Provenance p;
  p.version = MASKAPPLY_VERSION;
  p.commit = MASKAPPLY_GIT_COMMIT;
  p.compiler = compiler();
  std::ifstream in("/proc/cpuinfo");
  const std::string cpuinfo((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  p.cpu = cpu_model(cpuinfo);
#if defined(__aarch64__)
  p.platform = under_emulation() ? "NEON under qemu-aarch64 (emulated on " + p.cpu + ")" : "native NEON (aarch64)";
#else
  p.platform = "NEON through SIMDe (x86-64)";
#endif
  struct utsname u {};
  if (uname(&u) == 0) p.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  p.date = buf;
  return p;
}

std::vector<std::pair<std::string, std::string>> fields(const Provenance& p) {
  return {{"version", p.version}, {"commit", p.commit}, {"compiler", p.compiler}, {"platform", p.platform},
          {"cpu", p.cpu},         {"os", p.os},         {"date", p.date}};
}

std::string one_line(const Provenance& p) {
  return "maskapply " + p.version + " (" + p.commit + ") " + p.compiler + "; " + p.platform + "; CPU " + p.cpu +
         "; " + p.date;
}

}  // namespace maskapply::gen
