// SPDX-License-Identifier: MIT
// Properties 11 and 12: pilots running at once in several threads (each with its own workspace) all equal the
// oracle; and a call leaves the caller's floating-point environment as it found it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cfenv>
#include <cstdio>
#include <cstring>
#include <atomic>
#include <sstream>
#include <thread>
#include <utility>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform.h"
#include "support.h"

namespace maskapply::prop {
namespace {

// True when this process can start a thread. Under qemu-aarch64 7.2 (Debian 12) a dynamically linked guest hangs
// in pthread_create, so under an emulator a forked child tries first, with a deadline.
bool threads_start() {
  static const bool ok = [] {
    if (!emulated()) return true;
    const pid_t child = fork();
    if (child == 0) {
      std::thread([] {}).join();
      _exit(0);
    }
    if (child < 0) return false;
    for (int i = 0; i < 100; ++i) {
      int status = 0;
      if (waitpid(child, &status, WNOHANG) == child) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
      usleep(50000);
    }
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    return false;
  }();
  return ok;
}

// 11. Concurrency: several threads, each with its own Workspace, run kernels (mostly pilots) on different arrays
//     at once, several rounds each; every output equals the oracle.
RC_GTEST_PROP(Pilots, equalOracleWhileSeveralThreadsRunAtOnceEachWithItsOwnWorkspace, ()) {
  if (!threads_start()) {
    static bool said = false;
    if (!std::exchange(said, true))
      GTEST_SKIP() << "threads do not start under this emulator (qemu-user hangs in pthread_create); property 11 "
                      "runs natively";
    return;
  }
  const size_t threads = *rc::gen::inRange<size_t>(2, 5);
  std::vector<testing::Case> cases(threads);
  std::vector<std::vector<float>> expected(threads);
  for (size_t t = 0; t < threads; ++t) {
    testing::Case& c = cases[t];
    c.kernel = *rc::gen::weightedOneOf<Kernel>({{4, gen::pilot_kernel()}, {1, gen::plain_kernel()}});
    c.f = *gen::any_fn();
    c.options = *gen::pilot_options();
    const Shaped s = *gen::pilot_data(c.options);
    c.data = s.v, c.mask = s.mask;
    expected[t] = c.data;
    oracle::apply(expected[t].data(), c.data.size(), c.f, c.mask);
  }
  RC_TAG(std::to_string(threads) + " threads");
  constexpr int kRounds = 4;
  std::vector<std::string> failures(threads);
  // A spinning start line rather than std::latch: libstdc++'s atomic wait hangs under qemu-aarch64.
  std::atomic<size_t> ready{0};
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const testing::Case& c = cases[t];
      const testing::HostileWorkspace hw = testing::hostile_workspace(c.kernel, c.f, c.data, c.options.tile, t);
      Workspace ws(hw.capacity);
      std::vector<float> buf;
      Trace trace;
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();
      for (int round = 0; round < kRounds && failures[t].empty(); ++round) {
        buf = c.data;
        trace.clear();
        ws.scribble(hw.garbage + static_cast<uint64_t>(round));  // garbage before every run
        run_kernel(c.kernel, c.f, c.mask, buf.data(), buf.size(), ws, c.options, &trace);
        const std::string where =
            "thread " + std::to_string(t) + " of " + std::to_string(threads) + ", round " + std::to_string(round) + ": ";
        if (const auto mm = oracle::compare(name(c.kernel), c.data, expected[t], buf, c.options.tile); mm)
          failures[t] = where + mm.message;
        else if (const std::string d = testing::check_decisions(c.kernel, c.data, c.mask, c.options, trace); !d.empty())
          failures[t] = where + d;
      }
    });
  for (std::thread& th : pool) th.join();
  for (size_t t = 0; t < threads; ++t)
    if (!failures[t].empty()) {
      const bool alone = testing::run_case(cases[t]).ok;
      // Also straight to stderr: a concurrency failure may not recur when RapidCheck reruns the shrunk case,
      // and then the log of that rerun is all it prints.
      std::fprintf(stderr, "maskapply property 11: %s%s\n", failures[t].c_str(),
                   alone ? " (passes when run alone: a concurrency failure)" : "");
      const std::string path = save_case(cases[t], failures[t] + (alone ? "\nthis case passes on its own: the failure needs the other "
                                                 "threads; rerun the property with its RC_PARAMS reproduce string"
                                               : ""),
                "-thread" + std::to_string(t));
      std::fprintf(stderr, "maskapply property 11: case file %s\n", path.c_str());
      RC_FAIL(failures[t] + (alone ? " (passes when run alone: a concurrency failure)" : ""));
    }
}

// --- the floating-point environment, per platform -----------------------------------------------------------

struct FpEnv {
  int round = 0;            // fegetround()
  uint64_t control = 0;     // x86: MXCSR without its flag bits, and the x87 control word; arm64: FPCR
  unsigned flags = 0;       // fetestexcept(FE_ALL_EXCEPT), plus the platform's own sticky bits
  uint64_t raw_flags = 0;   // x86: MXCSR flag bits; arm64: FPSR cumulative bits
};

constexpr int kExcepts[] = {FE_INVALID, FE_DIVBYZERO, FE_OVERFLOW, FE_UNDERFLOW, FE_INEXACT};

#if defined(__x86_64__)
// SIMDe on x86-64 runs SSE / AVX code: MXCSR holds its rounding mode, FTZ (bit 15), DAZ (bit 6) and flags (0-5);
// the x87 unit has its own control word, which fesetround also sets.
constexpr uint32_t kMxcsrFlags = 0x3f, kFtz = 1u << 15, kDaz = 1u << 6;
FpEnv read_env() {
  FpEnv e;
  e.round = fegetround();
  const uint32_t csr = _mm_getcsr();
  uint16_t cw;
  asm volatile("fnstcw %0" : "=m"(cw));
  e.control = (csr & ~kMxcsrFlags) | (uint64_t{cw} << 32);
  e.flags = static_cast<unsigned>(fetestexcept(FE_ALL_EXCEPT));
  e.raw_flags = csr & kMxcsrFlags;
  return e;
}
void set_flush(bool ftz, bool daz) {
  uint32_t csr = _mm_getcsr() & ~(kFtz | kDaz);
  _mm_setcsr(csr | (ftz ? kFtz : 0) | (daz ? kDaz : 0));
}
constexpr const char* kFlushName = "MXCSR.FTZ";
constexpr bool kHasDaz = true;
#elif defined(__aarch64__)
// arm64: FPCR holds the rounding mode (bits 22-23), FZ (bit 24), DN, AHP, FZ16; FPSR the cumulative flags.
constexpr uint64_t kFz = 1ull << 24;
uint64_t get_fpcr() {
  uint64_t v;
  asm volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
FpEnv read_env() {
  FpEnv e;
  e.round = fegetround();
  e.control = get_fpcr();
  e.flags = static_cast<unsigned>(fetestexcept(FE_ALL_EXCEPT));
  uint64_t sr;
  asm volatile("mrs %0, fpsr" : "=r"(sr));
  e.raw_flags = sr & 0x9f;
  return e;
}
void set_flush(bool ftz, bool /*daz: arm64 has no separate DAZ; FZ flushes inputs and outputs*/) {
  const uint64_t v = (get_fpcr() & ~kFz) | (ftz ? kFz : 0);
  asm volatile("msr fpcr, %0" : : "r"(v));
}
constexpr const char* kFlushName = "FPCR.FZ";
constexpr bool kHasDaz = false;
#endif

std::string show(const FpEnv& e) {
  std::ostringstream s;
  s << "round=" << e.round << " control=0x" << std::hex << e.control << " flags=0x" << e.flags << " raw_flags=0x"
    << e.raw_flags;
  return s.str();
}

// 12. The floating-point environment: the rounding mode, flush-to-zero (and DAZ on x86) and every exception
//     flag the caller had raised are the same after any kernel call as before it.
RC_GTEST_PROP(AllKernels, leaveTheCallersRoundingModeFlushToZeroAndExceptionFlagsAsTheyWere, ()) {
  testing::Case c;
  c.kernel = *gen::any_kernel();
  c.f = *gen::any_fn();
  if (is_pilot(c.kernel)) {
    c.options = *gen::pilot_options();
    if (*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) c.options.d_max.reset();
    c.data = (*gen::pilot_data(c.options)).v;
  } else {
    c.options = *gen::plain_options();
    c.data = (*gen::float_array()).v;
  }
  c.mask = *gen::any_mask(c.data);
  const int round = *rc::gen::element(FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO);
  const bool ftz = *rc::gen::arbitrary<bool>(), daz = kHasDaz && *rc::gen::arbitrary<bool>();
  int raised = 0;
  for (int x : kExcepts) raised |= *rc::gen::arbitrary<bool>() ? x : 0;
  RC_TAG(name(c.kernel));
  RC_CLASSIFY(round != FE_TONEAREST, "directed rounding");
  RC_CLASSIFY(ftz, kFlushName);
  RC_CLASSIFY(raised != 0, "caller had flags raised");

  std::vector<float> buf = c.data;
  Workspace ws(c.options.tile);
  feclearexcept(FE_ALL_EXCEPT);
  fesetround(round);
  set_flush(ftz, daz);
  feraiseexcept(raised);
  const FpEnv before = read_env();
  run_kernel(c.kernel, c.f, c.mask, buf.data(), buf.size(), ws, c.options);
  const FpEnv after = read_env();
  fesetenv(FE_DFL_ENV);
  set_flush(false, false);
  feclearexcept(FE_ALL_EXCEPT);

  std::string why;
  if (after.round != before.round || after.control != before.control)
    why = "the rounding mode or flush-to-zero changed";
  else if ((before.flags & ~after.flags) != 0 || (before.raw_flags & ~after.raw_flags) != 0)
    why = "exception flags the caller had raised were cleared";
  if (!why.empty()) {
    why += ": before " + show(before) + ", after " + show(after);
    save_case(c, why + "\nreproduce with: fesetround(" + std::to_string(round) + "), " + kFlushName + "=" +
                     std::to_string(ftz) + (kHasDaz ? " DAZ=" + std::to_string(daz) : std::string()) +
                     ", feraiseexcept(" + std::to_string(raised) + ") before the call, then compare the environment",
              "-fenv");
    RC_FAIL(why);
  }
}

}  // namespace
}  // namespace maskapply::prop
