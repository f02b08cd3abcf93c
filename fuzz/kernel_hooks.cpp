// SPDX-License-Identifier: MIT
// The libFuzzer hooks of the targets that run kernels (kernels, pilots and their _large twins), linked into each
// of them as an object (an archive member defining only these would never be pulled in).
#include "fuzz.h"

namespace maskapply {

// ASan's quarantine (256 MB by default) keeps freed blocks out of reuse to catch a use after free. The kernels
// never allocate or free; what does is the harness's short-lived vectors and workspaces, new ones on every input,
// and with the whole quarantine each of them landed on fresh pages (a page fault per 4 KB). 16 MB still holds the
// last few thousand inputs' blocks. ASAN_OPTIONS overrides it.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=16"; }

extern "C" int LLVMFuzzerInitialize(int*, char*** argv) {
  fuzz::set_program((*argv)[0]);
  return 0;
}

}  // namespace maskapply
