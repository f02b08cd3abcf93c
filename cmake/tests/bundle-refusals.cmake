# SPDX-License-Identifier: MIT
# cmake -P bundle-refusals.cmake -DWORK_DIR=... [-DGENERATOR=...] [-DCXX_COMPILER=...]: the test
# `bundle_helper_refuses_ambiguous_tests`. A scratch project registers tests through maskapply_add_test's BUNDLE
# (cmake/MaskapplyTest.cmake) and is configured once per variant, reusing one build directory:
#   ok        two tests of one bundle: each runs its own suites (a negative --gtest_filter narrows them, other
#             arguments follow), and a filter that matches nothing fails the test;
#   dup       two tests of one bundle name the same suite: refused;
#   none      a source that opens no TEST, TEST_F or RC_GTEST_PROP line: refused;
#   positive  a positive --gtest_filter: refused;
#   mix       a bundle mixing label `portable` with other tests: refused.
# Everything it writes is under WORK_DIR, removed first.
cmake_minimum_required(VERSION 3.25)
if(NOT WORK_DIR)
  message(FATAL_ERROR "bundle-refusals.cmake: -DWORK_DIR=... is required")
endif()
get_filename_component(helper ${CMAKE_CURRENT_LIST_DIR}/../MaskapplyTest.cmake ABSOLUTE)
file(REMOVE_RECURSE ${WORK_DIR})
file(WRITE ${WORK_DIR}/src/a.cpp "TEST(Alpha, one) {}\n")
file(WRITE ${WORK_DIR}/src/b.cpp "TEST(Alpha, two) {}\n")
file(WRITE ${WORK_DIR}/src/c.cpp "int not_a_test = 0;\n")
file(WRITE ${WORK_DIR}/src/d.cpp "TEST(Beta, one) {}\nTEST_F(Gamma, two) {}\n")
file(WRITE ${WORK_DIR}/src/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(bundle_refusals LANGUAGES CXX)
add_library(GTest::gtest_main INTERFACE IMPORTED)
include(${helper})
enable_testing()
maskapply_add_test(NAME ta BUNDLE bun SOURCES a.cpp LABELS unit)
if(VARIANT STREQUAL ok)
  maskapply_add_test(NAME td BUNDLE bun SOURCES d.cpp LABELS unit ARGS --gtest_filter=-Gamma.two --flag)
elseif(VARIANT STREQUAL dup)
  maskapply_add_test(NAME tb BUNDLE bun SOURCES b.cpp LABELS unit)
elseif(VARIANT STREQUAL none)
  maskapply_add_test(NAME tc BUNDLE bun SOURCES c.cpp LABELS unit)
elseif(VARIANT STREQUAL positive)
  maskapply_add_test(NAME td BUNDLE bun SOURCES d.cpp LABELS unit ARGS --gtest_filter=Beta.one)
elseif(VARIANT STREQUAL mix)
  maskapply_add_test(NAME td BUNDLE bun SOURCES d.cpp LABELS unit portable)
endif()
")
set(args)
if(GENERATOR)
  list(APPEND args -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()

set(failures 0)
function(expect variant want_rc regex)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/src -B ${WORK_DIR}/build ${args} -DVARIANT=${variant}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REGEX REPLACE "\n *" " " flat "${out}")  # CMake wraps its error messages
  if((want_rc EQUAL 0 AND NOT rc EQUAL 0) OR (NOT want_rc EQUAL 0 AND rc EQUAL 0) OR NOT flat MATCHES "${regex}")
    message(SEND_ERROR "bundle-refusals: variant ${variant}: exit ${rc}, expected ${want_rc} and /${regex}/; "
                       "output:\n${out}")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  else()
    message(STATUS "bundle-refusals: ${variant}: as expected")
  endif()
endfunction()

expect(ok 0 "Build files have been written")
file(READ ${WORK_DIR}/build/CTestTestfile.cmake tests)
set(filter_ta [=[add_test\(\[=\[ta\]=\] "[^"]*bun" "--gtest_filter=Alpha\.\*"\)]=])
set(filter_td [=[add_test\(\[=\[td\]=\] "[^"]*bun" "--gtest_filter=Beta\.\*:Gamma\.\*-Gamma\.two" "--flag"\)]=])
set(none_fails [=[set_tests_properties\(\[=\[td\]=\] PROPERTIES +FAIL_REGULAR_EXPRESSION "[^"]*PASSED  [^"]*\] 0 tests"]=])
foreach(want "${filter_ta}" "${filter_td}" "${none_fails}")
  if(NOT tests MATCHES "${want}")
    message(SEND_ERROR "bundle-refusals: variant ok: CTestTestfile.cmake has no line matching /${want}/:\n${tests}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
expect(dup 1 "suite Alpha is already another test's in bundle bun")
expect(none 1 "c\\.cpp opens no TEST, TEST_F or RC_GTEST_PROP line")
expect(positive 1 "BUNDLE takes only a negative --gtest_filter")
expect(mix 1 "bundle bun would mix label `portable` with other tests")
if(failures)
  message(FATAL_ERROR "bundle-refusals: ${failures} check(s) failed")
endif()
message(STATUS "bundle-refusals: every variant as expected")
