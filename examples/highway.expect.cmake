# SPDX-License-Identifier: MIT
# What example.highway asserts (run-example.cmake): the Highway detour whose tail is a full-width load (label buggy)
# fails the guard-page property with a shrunk counterexample (its n reported) and a case file, fails the committed
# case file, and the fuzz replay of a one-element input faults past the end of the array. The correct one passes
# every property against the whole catalog (label fixed) and reports its Highway target.
set(example_summary "hwy_detour: Highway [^\n]*")
set(example_found "kernel=hwy_detour<full-tail-load> [^\n]*")
set(example_buggy
  "highway.full_tail_load [^\n]*Failed"                              # the properties failed
  "Falsifiable after [0-9]+ tests?( and [0-9]+ shrinks?)?"              # RapidCheck found it (no shrinks when its first case is minimal)
  "kernel=hwy_detour<full-tail-load> f=[a-z_0-9]+ mask=[^\n]* n=[0-9]+ [^\n]*SIG(SEGV|BUS) at [^\n]* bytes past the end of the array"
  "case file: [^\n]*HwyDetourFullTail[^\n]*\\.case"                  # and left a case file
  "FAILED  . HwyDetourFullTail.neverReadsOrWritesOutsideTheArray"
  "FAILED  . HwyDetourFullTail.passesItsCaseFile"                    # the committed case file fails it
  "fuzz_replay_fuzz_hwy_detour_full_tail [^\n]*(Failed|Exception)"   # the fuzz replay caught it too
  "maskapply fuzz: kernel=hwy_detour<full-tail-load> f=pow10 [^\n]* n=1 [^\n]*bytes past the end of the array")
