// SPDX-License-Identifier: MIT
// A libFuzzer harness around your kernel or pilot, in one macro: the fuzzer's bytes pick a catalog f and mask,
// options, a misalignment and the floats; every input is checked against the scalar oracle bit for bit inside
// sentinels, exactly once (with bits_inc), against guard pages, and for a pilot the trace must partition the
// array. A failure prints the same message as the bundled kernels, writes a case file to $MASKAPPLY_FUZZ_CASES
// (default ./fuzz-cases), prints the command that reruns the input, and aborts.
//
//   #include <maskapply/maskapply_fuzz.h>
//   MASKAPPLY_FUZZ_KERNEL("my_compact", [](float* a, size_t n, auto f, auto mask, maskapply::Workspace& ws) {
//     my_compact(a, n, f, mask, ws);
//   })
//   # CMake: maskapply_add_fuzz_target(NAME fuzz_my_compact SOURCES fuzz.cpp CORPUS ${CMAKE_SOURCE_DIR}/corpus)
//
// With clang the target links libFuzzer (-fsanitize=fuzzer); without it maskapply::fuzz_replay_main, which
// replays files and directories, so the corpus is a regression test under gcc and under qemu too.
//
// Input layout (bytes from the front; a short input reads zeros):
//   0      f: catalog entry kPluginFns[b % 3] (sqrt, fma13, bits_inc); for a kernel wrapped in
//          testing::over_spans (f as a function over a span), kAllFns[b % 7], the whole catalog
//   1      mask kind (b % 6: less, greater, not_ge, bits_eq, always, never)
//   2-5    threshold bits (little-endian; for bits_eq the mask, and bytes 6-9 the value)
//   10     misalignment (b % 16)
//   11     tile: 16 << (b % 9) (16 ... 4096); a pilot also gets d_max = (b - 128) / 64 injected
//   12     probe: 1 + b * tile / 256
//   13..   the floats, 4 bytes each (little-endian bit patterns), at most 20000
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "plugin.h"
#include "plugin_catalog.h"

namespace maskapply::fuzzing {

struct Input {
  Fn f = Fn::sqrt;
  MaskSpec mask;
  size_t misalign = 0;
  PilotOptions options;
  std::vector<float> data;
};

inline Input decode(const uint8_t* bytes, size_t size, bool pilot,
                    std::span<const Fn> fns = testing::kPluginFns) {
  const auto at = [&](size_t i) -> uint8_t { return i < size ? bytes[i] : 0; };
  const auto u32 = [&](size_t i) {
    return static_cast<uint32_t>(at(i)) | static_cast<uint32_t>(at(i + 1)) << 8 |
           static_cast<uint32_t>(at(i + 2)) << 16 | static_cast<uint32_t>(at(i + 3)) << 24;
  };
  Input in;
  in.f = fns[at(0) % fns.size()];
  in.mask.kind = static_cast<MaskKind>(at(1) % 6);
  const uint32_t t = u32(2);
  std::memcpy(&in.mask.thd, &t, 4);
  in.mask.bits_mask = t, in.mask.bits_value = u32(6) & t;
  in.misalign = at(10) % 16;
  in.options.tile = size_t{16} << (at(11) % 9);
  if (pilot) in.options.d_max = (static_cast<int>(at(11)) - 128) / 64.0;
  in.options.probe = 1 + at(12) * in.options.tile / 256;
  const size_t n = size > 13 ? std::min<size_t>((size - 13) / 4, 20000) : 0;
  in.data.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t u = u32(13 + 4 * i);
    std::memcpy(&in.data[i], &u, 4);
  }
  return in;
}

[[noreturn]] inline void fail(const std::string& kernel, const Input& in, const std::string& f,
                              const std::string& message) {
  const char* dir = std::getenv("MASKAPPLY_FUZZ_CASES");
  const std::string d = dir && *dir ? dir : "fuzz-cases";
  std::string file = kernel + "-" + std::to_string(in.data.size());
  for (char& ch : file)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
  const std::string path = testing::write_user_case(
      {kernel, f, testing::describe_mask(in.mask), in.misalign, in.options, in.data}, d, file, message);
  std::fprintf(stderr,
               "maskapply fuzz: %s\ncase file: %s\nrerun: the harness with the input replayed above (libFuzzer: "
               "its crash file) as its argument\n",
               message.c_str(), path.empty() ? "(not written)" : path.c_str());
  std::abort();
}

template <class K>
int run_one(const std::string& name, const K& k, bool pilot, const uint8_t* bytes, size_t size) {
  const Input in = decode(bytes, size, pilot, testing::plugin_fns<K>());
  const testing::Reference ref = testing::reference(in.f, in.mask);
  const testing::Subject s = testing::catalog_subject(name, k, in.f, in.mask);
  const testing::CheckResult r = testing::check(s, ref, in.data, in.options, in.misalign);
  if (!r.ok) fail(name, in, ref.f_name, r.message);
  if (pilot)
    if (const std::string e = testing::check_trace(r.trace, in.data.size()); !e.empty())
      fail(name, in, ref.f_name, testing::describe(name, ref.f_name, ref.mask_name, in.data.size(), in.options,
                                                   in.misalign) + ": trace: " + e);
  const testing::CheckResult once = testing::check_exactly_once(
      testing::catalog_subject(name, k, Fn::bits_inc, in.mask), ref.mask_name, ref.mask, in.data, in.options,
      in.misalign);
  if (!once.ok) fail(name, in, "bits_inc", once.message);
  if (const std::string e = testing::check_guarded(s, ref, in.data, in.options); !e.empty())
    fail(name, in, ref.f_name, e);
  return 0;
}

}  // namespace maskapply::fuzzing

#define MASKAPPLY_FUZZ_HARNESS_(name, pilot, ...)                                        \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {             \
    static const auto kernel = __VA_ARGS__;                                              \
    return ::maskapply::fuzzing::run_one(name, kernel, pilot, bytes, size);              \
  }
// A harness for a kernel: (float* a, size_t n, auto f, auto mask, Workspace& ws).
#define MASKAPPLY_FUZZ_KERNEL(name, ...) MASKAPPLY_FUZZ_HARNESS_(name, false, __VA_ARGS__)
// A harness for a pilot: (float* a, size_t n, auto f, auto mask, Workspace& ws, const PilotOptions&, Trace&).
#define MASKAPPLY_FUZZ_PILOT(name, ...) MASKAPPLY_FUZZ_HARNESS_(name, true, __VA_ARGS__)
