// SPDX-License-Identifier: MIT
// The plug-in API: check any kernel or pilot -- yours, or maskapply's own (check_kernel goes through here) --
// against the scalar oracle for a scalar f and a scalar mask, with the guarantees and the failure messages the
// bundled kernels are checked with: bit for bit (NaN payloads, signed zeros), inside sentinels at any
// misalignment, flush against PROT_NONE guard pages, exactly once with a non-idempotent f, every n in a range,
// a decision trace that partitions the array, and a case file for every failure.
//
//   using namespace maskapply;
//   const testing::Reference ref{"cube", "less(0.5)", [](float x) { return x * x * x; },
//                                [](float x) { return x < 0.5f; }};
//   const auto s = testing::subject("my_kernel", [](float* a, size_t n) { my_kernel(a, n); });
//   testing::CheckResult r = testing::check(s, ref, input);      // r.ok, r.message
//   std::string e = testing::sweep(s, ref);                       // every n in [0, 100], misalignment 0-15
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "catalog.h"
#include "oracle.h"
#include "trace.h"
#include "workspace.h"
#include "pilot.h"

namespace maskapply::testing {

// The scalar reference for one f and one mask: `for i: if (mask(a[i])) a[i] = f(a[i])`. Write f and mask as
// plain scalar code and compile them with -ffp-contract=off (maskapply::oracle does), or a fused multiply-add
// the source does not ask for will differ from your kernel's. The names are what failures print.
struct Reference {
  std::string f_name;    // shown as f=<f_name>
  std::string mask_name; // shown as mask=<mask_name>
  std::function<float(float)> f;
  std::function<bool(float)> mask;
  void apply(float* a, size_t n) const;  // the reference loop
};
// The catalog's f and mask spec, as oracle/ evaluates them (mask_name "less thd=0x3f000000", ...).
Reference reference(Fn f, const MaskSpec& m);
std::string describe_mask(const MaskSpec& m);
// The spec describe_mask described ("less thd=0x3f000000", or with '_' for ' ' as a case file's mask line has
// it); nullopt when it is not one.
std::optional<MaskSpec> parse_mask(std::string_view described);

// The kernel or pilot under test, by name. run() processes [a, a+n) with a workspace of capacity o.tile and
// the options; a pilot reports its runs and tile decisions to the trace (a plain kernel may report nothing).
struct Subject {
  std::string name;
  std::function<void(float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace& trace)> run;
};

// Wraps any callable as a Subject. Accepted forms:
//   void(float* a, size_t n)
//   void(float* a, size_t n, Workspace& ws)
//   void(float* a, size_t n, Workspace& ws, Trace& trace)
//   void(float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace& trace)
template <class K>
Subject subject(std::string name, K kernel) {
  Subject s{std::move(name), {}};
  s.run = [k = std::move(kernel)](float* a, size_t n, Workspace& ws, const PilotOptions& o, Trace& t) mutable {
    if constexpr (std::is_invocable_v<K&, float*, size_t, Workspace&, const PilotOptions&, Trace&>)
      k(a, n, ws, o, t);
    else if constexpr (std::is_invocable_v<K&, float*, size_t, Workspace&, Trace&>)
      k(a, n, ws, t);
    else if constexpr (std::is_invocable_v<K&, float*, size_t, Workspace&>)
      k(a, n, ws);
    else {
      static_assert(std::is_invocable_v<K&, float*, size_t>,
                    "a subject is void(float*, size_t) [, Workspace&] [, const PilotOptions&] [, Trace&]");
      k(a, n);
    }
    (void)ws, (void)o, (void)t;
  };
  return s;
}

struct CheckResult {
  bool ok = true;
  size_t mismatches = 0;
  std::string message;  // empty when ok; else kernel, f, mask, n, misalignment and the first difference
  Trace trace;
  std::vector<float> output;
};

// The workspace a check runs on: its capacity (0: the tile) and the seed of the garbage it is filled with
// (0: left zero-filled, as a fresh one). A kernel must give the same output, bit for bit, on any capacity and
// whatever its workspace held before (Workspace::scribble).
struct HostileWorkspace {
  size_t capacity = 0;
  uint64_t garbage = 0;
};
// The hostile workspace sweep and check_guarded run s on, drawn from a hash of the subject's name, the input,
// the tile and salt (so a case replays it): a capacity equal to the tile, smaller (1 to tile) or larger (up to
// 2 * tile + 64), always filled with garbage, which stays when the kernel grows it (Workspace::reserve).
HostileWorkspace hostile_workspace(std::string_view subject, std::span<const float> input, size_t tile, size_t salt);
// The draw itself, from the keys that name what runs (check_kernel's: the kernel and f).
HostileWorkspace draw_hostile_workspace(std::initializer_list<uint64_t> keys, std::span<const float> input,
                                        size_t tile, size_t salt);

// "kernel=NAME f=F mask=MASK n=N misalign=K tile=T probe=P [d_max=D]": how every failure starts.
std::string describe(std::string_view kernel, std::string_view f, std::string_view mask, size_t n,
                     const PilotOptions& o, size_t misalign);

// Runs s on a copy of input at the misalignment (floats from a 64-byte boundary) inside sentinels, and compares
// bit for bit with ref. The message names the first differing index, its tile, the strategy that wrote it
// (from the trace, when s reports one), input / expected / actual as hex bits, and any overwritten sentinel.
// w: the workspace s runs on (default: a fresh one of o.tile floats); a non-default one is named in the message.
CheckResult check(const Subject& s, const Reference& ref, std::span<const float> input, const PilotOptions& o = {},
                  size_t misalign = 0, const HostileWorkspace& w = {});

// Runs s with the array flush against a PROT_NONE page at its end, then at its start: any read or write outside
// [a, a+n) faults and is reported ("SIGSEGV at ..., 4 bytes past the end of the array"), as is an output that
// differs from ref. Each run on a hostile workspace (hostile_workspace above). Empty when both runs are clean.
std::string check_guarded(const Subject& s, const Reference& ref, std::span<const float> input,
                          const PilotOptions& o = {});

// Exactly once: s must be your kernel instantiated with maskapply::fn::BitsInc (adds 1 to the bit pattern, not
// idempotent) and the mask `mask` describes. Every selected element must come out as its input + 1 and every
// other one unchanged; the message says "element i (selected) got f 2 times" or "0 times".
CheckResult check_exactly_once(const Subject& s_with_bits_inc, std::string_view mask_name,
                               const std::function<bool(float)>& mask, std::span<const float> input,
                               const PilotOptions& o = {}, size_t misalign = 0);

// Empty when the trace's runs cover [0, n) in order, each element exactly once, and its tile decisions (when
// there are any) partition [0, n) too, each run inside one tile and each bail point inside its tile.
std::string check_trace(const Trace& t, size_t n);

// Every n in [0, max_n] at every misalignment 0-15 (and, every `guard_every` n, against guard pages), each run
// on a hostile workspace (hostile_workspace above), on
// seeded data that mixes the catalog's special values (NaNs with payloads, ±0, denormals, ±inf) with values on
// both sides of the mask. Stops at the first failure: returns its message (with the seed) and writes a case
// file; empty when everything passed.
struct SweepOptions {
  size_t max_n = 100;
  uint64_t seed = 1;
  size_t guard_every = 7;
  PilotOptions options{};
};
std::string sweep(const Subject& s, const Reference& ref, const SweepOptions& o = {});

// Seeded data of n floats for ref.mask: about `density` of them selected, a `special` fraction special values,
// the rest values on either side of the mask (drawn, then sorted into the two sides by ref.mask).
std::vector<float> seeded_data(const std::function<bool(float)>& mask, size_t n, uint64_t seed, double density = 0.5,
                               double special = 0.1);

// --- case files for your kernels -------------------------------------------------------------------------------
// The bundled case format (case_file.h) with your names in the kernel, f and mask lines:
//   kernel my_compact / f cube / mask less(0.5) / misalign 3 / options ... / data N + hex bits

// The directory failures are written to: $MASKAPPLY_FAILURE_DIR, default ./failures (absolute).
std::string failure_dir();

struct UserCase {
  std::string kernel, f, mask;
  size_t misalign = 0;
  PilotOptions options;
  std::vector<float> data;
};
std::string to_text(const UserCase& c, std::string_view comment = {});
// The case, or an error ("line 4: ...") when the text is not a case file.
std::pair<std::optional<UserCase>, std::string> parse_user_case(std::string_view text);
// Writes dir/<file_name>.case (dir created if missing); returns the path, or empty when it could not.
std::string write_user_case(const UserCase& c, const std::string& dir, const std::string& file_name,
                            std::string_view comment = {});
// Reads a case file: the case, or an error ("PATH: cannot read", "PATH: line 4: ...").
std::pair<std::optional<UserCase>, std::string> read_user_case(const std::string& path);
// Reads a case file and checks s against ref on it (its kernel, f and mask names are shown, not matched): bit for
// bit inside sentinels (check), then against guard pages (check_guarded), so a case that a property found reading
// or writing outside the array fails when replayed too. For a catalog f and mask, replay_catalog_case
// (plugin_catalog.h) takes them from the file.
CheckResult replay_case(const std::string& path, const Subject& s, const Reference& ref);

// --- faults ------------------------------------------------------------------------------------------------
// A SIGSEGV/SIGBUS during call becomes a returned description ("SIGSEGV at address 0x...") instead of a crash;
// empty when call ran through. fault_address() is the address of the last caught fault in this thread.
std::string catch_fault(const std::function<void()>& call);
uintptr_t fault_address();

}  // namespace maskapply::testing
