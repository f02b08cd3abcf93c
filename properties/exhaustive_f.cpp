// SPDX-License-Identifier: MIT
// Property 13, exhaustively: every vector f equals its scalar twin on all 2^32 float bit patterns. Hours under
// qemu, minutes natively, so it is off unless MASKAPPLY_EXHAUSTIVE=1 (scripts/properties-long sets it).
//   MASKAPPLY_EXHAUSTIVE_FNS=sqrt,sin35   only these f (default: the six article f and bits_inc)
//   MASKAPPLY_EXHAUSTIVE_THREADS=N        worker threads (default: all cores)
//   MASKAPPLY_EXHAUSTIVE_LIMIT=K          only the first K patterns (a quick estimate of the full run)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "functions.h"
#include "oracle.h"

namespace maskapply {
namespace {

struct Result {
  uint64_t mismatches = 0;
  std::vector<std::string> first;  // up to 8 described
};

// Checks patterns [begin, end) (multiples of 4) of f; 4 lanes per vector call.
template <class F>
void check_range(F fn, Fn f, uint64_t begin, uint64_t end, Result& r, std::mutex& mu) {
  alignas(16) uint32_t in[4];
  alignas(16) uint32_t out[4];
  for (uint64_t u = begin; u < end; u += 4) {
    for (uint32_t j = 0; j < 4; ++j) in[j] = static_cast<uint32_t>(u + j);
    vst1q_u32(out, vreinterpretq_u32_f32(fn(vreinterpretq_f32_u32(vld1q_u32(in)))));
    for (uint32_t j = 0; j < 4; ++j) {
      const uint32_t want = oracle::bits(oracle::apply_f(f, oracle::from_bits(in[j])));
      if (out[j] == want) continue;
      std::lock_guard lock(mu);
      if (r.mismatches++ < 8) {
        char b[128];
        std::snprintf(b, sizeof b, "%s(0x%08x): vector 0x%08x, scalar 0x%08x", std::string(name(f)).c_str(), in[j],
                      out[j], want);
        r.first.push_back(b);
      }
    }
  }
}

TEST(VectorF, equalsItsScalarTwinOnAll2To32Floats) {
  const char* on = std::getenv("MASKAPPLY_EXHAUSTIVE");
  if (!on || std::string(on) != "1") GTEST_SKIP() << "set MASKAPPLY_EXHAUSTIVE=1 to check all 2^32 floats per f";
  std::vector<Fn> fns{Fn::sqrt, Fn::frfrexp, Fn::sin35, Fn::sin10, Fn::pow10, Fn::fma13, Fn::bits_inc};
  if (const char* only = std::getenv("MASKAPPLY_EXHAUSTIVE_FNS")) {
    fns.clear();
    std::string s = only;
    for (size_t at = 0; at <= s.size();) {
      const size_t comma = std::min(s.find(',', at), s.size());
      if (const auto f = fn_from_name(s.substr(at, comma - at))) fns.push_back(*f);
      at = comma + 1;
    }
  }
  unsigned threads = std::thread::hardware_concurrency();
  if (const char* t = std::getenv("MASKAPPLY_EXHAUSTIVE_THREADS")) threads = static_cast<unsigned>(std::atoi(t));
  if (threads == 0) threads = 1;
  uint64_t limit = uint64_t{1} << 32;
  if (const char* l = std::getenv("MASKAPPLY_EXHAUSTIVE_LIMIT")) limit = std::strtoull(l, nullptr, 0) & ~uint64_t{3};
  const auto total0 = std::chrono::steady_clock::now();
  for (const Fn f : fns) {
    Result r;
    std::mutex mu;
    const auto t0 = std::chrono::steady_clock::now();
    visit_fn(f, [&](auto fn) {
      // Chunks of 2^24 handed out in turn, so every thread gets a mix of cheap and expensive ranges.
      constexpr uint64_t kChunk = uint64_t{1} << 24;
      std::atomic<uint64_t> next{0};
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&] {
          for (uint64_t b; (b = next.fetch_add(kChunk)) < limit;) check_range(fn, f, b, std::min(b + kChunk, limit), r, mu);
        });
      for (auto& th : pool) th.join();
    });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("exhaustive %-8s %llu patterns, %llu mismatches, %.1f s (%u threads, %.2f ns/pattern/thread)\n",
                std::string(name(f)).c_str(), static_cast<unsigned long long>(limit),
                static_cast<unsigned long long>(r.mismatches), s, threads, s * 1e9 * threads / limit);
    std::fflush(stdout);
    for (const auto& m : r.first) ADD_FAILURE() << m;
    EXPECT_EQ(r.mismatches, 0u) << name(f) << ": vector f differs from its scalar twin";
  }
  std::printf("exhaustive total %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - total0).count());
}

}  // namespace
}  // namespace maskapply
