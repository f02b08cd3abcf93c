// SPDX-License-Identifier: MIT
// maskapply::fuzz_replay_main: the main a fuzz harness (maskapply_fuzz.h) links when libFuzzer is not there.
// Runs LLVMFuzzerTestOneInput on every file given, directories recursively in sorted order; '-flag' arguments
// (libFuzzer's) are ignored, so one command line works for both builds. Each input is copied into an allocation
// of exactly its size. Exit 0 when every input ran, 1 when an argument is missing or holds no input.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  size_t ran = 0;
  bool bad = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.empty() || a[0] == '-') continue;
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(a, ec))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
      std::sort(files.begin(), files.end());
    } else if (fs::is_regular_file(a, ec)) {
      files.push_back(a);
    }
    if (files.empty()) {
      std::fprintf(stderr, "replay: %s: no such file, or no input in it\n", a.c_str());
      bad = true;
    }
    for (const fs::path& p : files) {
      std::ifstream in(p, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto copy = std::make_unique<uint8_t[]>(bytes.size() ? bytes.size() : 1);
      std::copy(bytes.begin(), bytes.end(), copy.get());
      std::printf("replay: %s\n", p.string().c_str());
      std::fflush(stdout);
      LLVMFuzzerTestOneInput(copy.get(), bytes.size());
      ++ran;
    }
  }
  std::printf("%s: replayed %zu input%s\n", argv[0], ran, ran == 1 ? "" : "s");
  return bad ? 1 : 0;
}
