# SPDX-License-Identifier: MIT
# cmake -P run-example.cmake: install maskapply (MASKAPPLY_BUILD_DIR) into WORK_DIR/prefix, build the example
# (EXAMPLE_SOURCE_DIR) against it with find_package, run its ctest, and assert:
#   label `fixed`: every test passes (kernel and pilot properties, the user's own f, the sweep, regret, fuzz replay);
#   label `buggy`: both tests fail, the properties with a shrunk counterexample, the first differing index and a
#   case file, the fuzz replay of a one-block input with the difference at index 0 (register 0).
# Everything it writes is under WORK_DIR, removed first.
cmake_minimum_required(VERSION 3.25)
foreach(v MASKAPPLY_BUILD_DIR EXAMPLE_SOURCE_DIR WORK_DIR)
  if(NOT ${v})
    message(FATAL_ERROR "run-example.cmake: -D${v}=... is required")
  endif()
endforeach()
string(TIMESTAMP start "%s")

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "example: ${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "example: ${what}: ok")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
step("install maskapply into ${WORK_DIR}/prefix"
     ${CMAKE_COMMAND} --install ${MASKAPPLY_BUILD_DIR} --prefix ${WORK_DIR}/prefix)

set(args -S ${EXAMPLE_SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
if(GENERATOR)
  list(APPEND args -G ${GENERATOR})
endif()
if(BUILD_TYPE)
  list(APPEND args -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
endif()
if(TOOLCHAIN_FILE)
  list(APPEND args -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE})
elseif(CXX_COMPILER)
  list(APPEND args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(EMULATOR)
  list(APPEND args -DCMAKE_CROSSCOMPILING_EMULATOR=${EMULATOR})
endif()
if(LAUNCHER)
  list(APPEND args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(SANITIZE)
  list(APPEND args "-DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all")
endif()
step("configure the example against the installed package" ${CMAKE_COMMAND} ${args})
step("build the example" ${CMAKE_COMMAND} --build ${WORK_DIR}/build -j 2)
string(TIMESTAMP built "%s")

# The fixed kernel, the pilot and the user's own f: everything passes.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/build -L fixed --verbose
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "example: the fixed kernel, the pilot or the user's f failed:\n${out}")
endif()
string(REGEX MATCH "my_pilot: [^\n]*" regret "${out}")
message(STATUS "example: label fixed passed (${regret})")

# The planted bug: both buggy tests must fail, for the right reason.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${WORK_DIR}/build -L buggy --output-on-failure
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "example: the padded kernel passed: the planted bug was NOT found\n${out}")
endif()
set(expect
  "own_kernel.padded [^\n]*Failed"                                   # the properties failed
  "Falsifiable after [0-9]+ tests? and [0-9]+ shrinks?"              # RapidCheck found and shrank it
  "kernel=my_compact<padded> f=[a-z_0-9]+ mask=[^\n]* n=[0-9]+ misalign=[0-9]+[^\n]*elements differ; first at index "
  "case file: [^\n]*BuggyCompact[^\n]*\\.case"                       # and left a case file
  "fuzz_replay_fuzz_my_compact_padded [^\n]*(Failed|Exception)"      # the fuzz replay caught it too
  "maskapply fuzz: kernel=my_compact<padded>[^\n]*first at index 0 ")
foreach(re ${expect})
  if(NOT out MATCHES "${re}")
    message(FATAL_ERROR "example: the padded kernel failed, but its output lacks /${re}/:\n${out}")
  endif()
endforeach()
string(REGEX MATCHALL "kernel=my_compact<padded> [^\n]*" found "${out}")
list(GET found 0 first)
message(STATUS "example: the planted bug was found: ${first}")
string(REGEX MATCH "Falsifiable after [0-9]+ tests? and [0-9]+ shrinks?" shrunk "${out}")
message(STATUS "example: ${shrunk}")
string(TIMESTAMP done "%s")
math(EXPR build_s "${built} - ${start}")
math(EXPR test_s "${done} - ${built}")
message(STATUS "example: install + configure + build ${build_s} s, tests ${test_s} s")
