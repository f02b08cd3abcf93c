// SPDX-License-Identifier: MIT
// What the properties share: generators (float bit patterns biased to specials, arrays, tile-structured data
// with independently drawn densities, the article's patterns with random parameters, pilot options, masks), the
// budget, the case mix tags, and failure reporting (a case file in MASKAPPLY_FAILURE_DIR, its path in the log).
#pragma once

#include <optional>
#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "case_file.h"
#include "check.h"
#include "minimize.h"

namespace maskapply {

// How RapidCheck shows drawn values in a counterexample.
std::ostream& operator<<(std::ostream& os, Fn f);
std::ostream& operator<<(std::ostream& os, Kernel k);
std::ostream& operator<<(std::ostream& os, const MaskSpec& m);
std::ostream& operator<<(std::ostream& os, const PilotOptions& o);

namespace prop {

// An array of floats, shown as hex bit patterns (the first 32; the case file has all of them).
struct Floats {
  std::vector<float> v;
};
std::ostream& operator<<(std::ostream& os, const Floats& a);

// Data drawn together with the mask it was shaped for.
struct Shaped {
  std::vector<float> v;
  MaskSpec mask;
  std::string kind;  // "arbitrary", "tiled", "step", "cycle", ...
};
std::ostream& operator<<(std::ostream& os, const Shaped& s);

// --- the platform -------------------------------------------------------------------------------------------

// True when the tests run under an emulator (qemu-user on an x86 host), from MASKAPPLY_PROP_EMULATED or, on
// arm64, an x86 "model name" in /proc/cpuinfo.
bool emulated();

// Sets RC_PARAMS for this process before RapidCheck reads it: max_success from MASKAPPLY_PROP_CASES (the ctest
// budget; default 100 natively, 25 emulated) times MASKAPPLY_PROP_SCALE, then the caller's RC_PARAMS, whose
// keys win. Returns the effective string.
std::string configure_budget();

// --- generators ---------------------------------------------------------------------------------------------

uint32_t bits(float x);
float from_bits(uint32_t u);

// The specials: ±0, ±inf, quiet and signalling NaNs with payloads, denormals, extremes, values around 0.5 and 1.
const std::vector<uint32_t>& special_bits();

namespace gen {

rc::Gen<float> any_float();          // any bit pattern, biased to specials, NaNs with payloads, denormals
rc::Gen<float> unit_float();         // uniform in (0, 1), 24-bit mantissa steps
rc::Gen<float> any_thd();            // a threshold: in (0, 1) mostly, or any float (NaN, ±0, ±inf, large)
rc::Gen<Floats> float_array(size_t max_long = 3 * 4096 + 40);  // short element-wise arrays, or long seeded ones
rc::Gen<Shaped> tiled(size_t tile);  // segments of independently drawn density (and layout), mask less(thd)
rc::Gen<Shaped> article_pattern(size_t tile);  // step / offset / cycle with random parameters
rc::Gen<Shaped> edges(const PilotOptions& o);  // probe counts at thresholds +-1, bails at each verify block, n at boundaries
rc::Gen<Shaped> pilot_data(const PilotOptions& o);  // any of the above, sized for the options' tiles

rc::Gen<Kernel> plain_kernel();
rc::Gen<Kernel> pilot_kernel();
rc::Gen<Kernel> any_kernel();
rc::Gen<Fn> any_fn();                // the catalog, bits_inc included
rc::Gen<MaskSpec> less_mask();       // the article's mask with any threshold
rc::Gen<MaskSpec> generic_mask(const std::vector<float>& data);  // greater, not_ge, bits_eq, always, never
rc::Gen<MaskSpec> any_mask(const std::vector<float>& data);

rc::Gen<double> d_max();             // very negative, 0, (0, 1), >= 1, ±inf
rc::Gen<PilotOptions> pilot_options();  // every option (v6's too), small tiles mostly, d_max injected

// Draws c.options and c.data for c.kernel, inside a property: a pilot gets pilot_options() and pilot_data()
// (the data's own mask is returned), a plain kernel plain_options() and float_array() (nothing returned); the
// caller then picks the mask.
std::optional<MaskSpec> options_and_data(testing::Case& c);
rc::Gen<PilotOptions> plain_options();  // tile (tiled_detour, blend_verified, workspace capacity), d_max, bail

}  // namespace gen

// --- the case mix and failures ------------------------------------------------------------------------------

// Tags the case: its length (0, < 16, tail, whole blocks, >= 4096), its selection (none, sparse, dense, all)
// and NaN-heavy data.
void classify(const std::vector<float>& data, const MaskSpec& m);

// The directory failures are written to: $MASKAPPLY_FAILURE_DIR, default failures/ (absolute).
std::string failure_dir();

// Writes c as a case file named after the running property (overwritten by each smaller failing case while
// RapidCheck shrinks, so the file left is the minimal case), logs its path with RC_LOG and returns it.
std::string save_case(const testing::Case& c, const std::string& why, const std::string& suffix = {});

// Fails the property on c, which failed `check` with `why`: first shrinks it with testing::minimize under the
// same check (length first, then the tile, then the contents), then saves the minimal case (its file named
// after the property; the drawn case goes next to it with the suffix ".drawn") and fails with the minimal case's
// message and how far it shrank. RapidCheck then shrinks what it drew as usual; each failing step is minimized.
void fail_minimal(const testing::Case& c, const testing::Failure& check, const std::string& why);

// Runs c against the oracle (testing::check_kernel); on a difference fails with the minimal failing case.
testing::CheckResult expect_oracle(const testing::Case& c);

// A SIGSEGV/SIGBUS during fn becomes a returned description ("fault at ...") instead of a crash; empty when
// fn ran through. Used around kernels placed against guard pages.
namespace internal {
std::string run_catching_fault(void (*call)(void*), void* ctx);
}
template <class Call>
std::string catch_fault(Call&& call) {
  using C = std::remove_reference_t<Call>;
  return internal::run_catching_fault([](void* p) { (*static_cast<C*>(p))(); }, &call);
}
// The address of the last caught fault.
uintptr_t last_fault_address();

}  // namespace prop
}  // namespace maskapply
