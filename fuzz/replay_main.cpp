// SPDX-License-Identifier: MIT
// The main a fuzz target links when libFuzzer is not there (gcc, or MASKAPPLY_FUZZ off): runs
// LLVMFuzzerTestOneInput on every file given, directories recursively in sorted order, so the checked-in corpus
// is a regression suite on every preset (simdutf does the same). Arguments starting with '-' are libFuzzer
// flags and are ignored, so one command line works for both builds. Each input is copied into an allocation of
// exactly its size, so an over-read is an over-read. Exit 0 when every input ran, 1 when an argument is
// missing or holds no input (a replay that tests nothing should not pass), unless --allow-empty.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  maskapply::fuzz::set_program(argv[0]);
  bool allow_empty = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--allow-empty") allow_empty = true;
    else if (a == "--help" || a == "-h") {
      std::printf("usage: %s [--allow-empty] FILE|DIR...\nReplays fuzz inputs (directories recursively); "
                  "'-flag' arguments (libFuzzer's) are ignored.\n", argv[0]);
      return 0;
    } else if (!a.empty() && a[0] != '-') args.push_back(a);
  }
  size_t ran = 0;
  bool bad = false;
  for (const std::string& a : args) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(a, ec))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
      std::sort(files.begin(), files.end());
    } else if (fs::is_regular_file(a, ec)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or directory\n", a.c_str());
      bad = true;
      continue;
    }
    if (files.empty() && !allow_empty) {
      std::fprintf(stderr, "replay: %s holds no input\n", a.c_str());
      bad = true;
    }
    for (const fs::path& p : files) {
      std::ifstream in(p, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      auto copy = std::make_unique<uint8_t[]>(bytes.size() ? bytes.size() : 1);
      std::copy(bytes.begin(), bytes.end(), copy.get());
      maskapply::fuzz::set_current_input(p.string());
      LLVMFuzzerTestOneInput(copy.get(), bytes.size());
      ++ran;
    }
  }
  maskapply::fuzz::set_current_input({});
  std::printf("%s: replayed %zu input%s\n", argv[0], ran, ran == 1 ? "" : "s");
  return bad ? 1 : 0;
}
