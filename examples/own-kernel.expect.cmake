# SPDX-License-Identifier: MIT
# What example.own_kernel asserts (run-example.cmake): the article's padded expand (label buggy) fails the properties
# with a shrunk counterexample, the first differing index and a case file, and the fuzz replay of a one-block input
# with the difference at index 0 (register 0).
set(example_summary "my_pilot: [^\n]*")
set(example_found "kernel=my_compact<padded> [^\n]*")
set(example_buggy
  "own_kernel.padded [^\n]*Failed"                                   # the properties failed
  "Falsifiable after [0-9]+ tests?( and [0-9]+ shrinks?)?"              # RapidCheck found it (no shrinks when its first case is minimal)
  "kernel=my_compact<padded> f=[a-z_0-9]+ mask=[^\n]* n=[0-9]+ misalign=[0-9]+[^\n]*elements differ; first at index "
  "case file: [^\n]*BuggyCompact[^\n]*\\.case"                       # and left a case file
  "fuzz_replay_fuzz_my_compact_padded [^\n]*(Failed|Exception)"      # the fuzz replay caught it too
  "maskapply fuzz: kernel=my_compact<padded>[^\n]*first at index 0 ")
