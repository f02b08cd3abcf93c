# SPDX-License-Identifier: MIT
# maskapply_add_test(NAME <name> SOURCES <files...> [LIBS <targets...>] LABELS <labels...> [ARGS <args...>]
#                    [TIMEOUT <seconds>] [TARGET <existing executable>] [COST <seconds>])
# The one way tests are registered: builds the executable (unless TARGET names an existing one), links GTest
# unless it is a plain program, and adds it to ctest with its labels. COST: the test's seconds on the 2-core CI
# machine, for a test that takes much longer than the rest: `ctest -j` starts the costliest first when it has no
# timings of its own yet (a clean clone), so a long test does not run alone at the end (docs/ci.md).
# When cross-compiling, ctest runs it through CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64), which add_test applies
# to executable targets.
function(maskapply_add_test)
  cmake_parse_arguments(T "NO_GTEST" "NAME;TIMEOUT;TARGET;COST" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  if(NOT T_LABELS)
    message(FATAL_ERROR "maskapply_add_test(${T_NAME}): give LABELS (unit, property, fuzz-replay, regression...)")
  endif()
  # Label `portable` (the model's own arithmetic, no kernel runs): under an emulator (the aarch64 cross preset) such a
  # test is neither registered nor built by default; x86 and native arm64 run it (docs/ci.md).
  set(skip_here OFF)
  if(CMAKE_CROSSCOMPILING_EMULATOR AND "portable" IN_LIST T_LABELS)
    set(skip_here ON)
  endif()
  set(exe ${T_TARGET})
  if(NOT exe)
    set(exe ${T_NAME})
    if(skip_here)
      add_executable(${exe} EXCLUDE_FROM_ALL ${T_SOURCES})
    else()
      add_executable(${exe} ${T_SOURCES})
    endif()
    target_link_libraries(${exe} PRIVATE ${T_LIBS})
    if(NOT T_NO_GTEST)
      target_link_libraries(${exe} PRIVATE GTest::gtest_main)
    endif()
    target_compile_options(${exe} PRIVATE -Wall -Wextra -Wno-ignored-attributes)
  endif()
  if(skip_here)
    return()
  endif()
  add_test(NAME ${T_NAME} COMMAND ${exe} ${T_ARGS})
  # ctest's timeout guards against a hang, not against a slow machine (tests never fail on timing): 900 s, and 3600 s
  # for label `portable`, whose heaviest tests (bound, floor, tune, v6: 20-76 s on the 2-core x86 CI machine) run
  # 10-20x slower on an arm64 system emulated by qemu-user (docs/platforms.md).
  if(NOT T_TIMEOUT)
    if("portable" IN_LIST T_LABELS)
      set(T_TIMEOUT 3600)
    else()
      set(T_TIMEOUT 900)
    endif()
  endif()
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
  if(T_COST)
    set_tests_properties(${T_NAME} PROPERTIES COST ${T_COST})
  endif()
  # Under the emulator a test may run fewer cases (as Highway's AdjustedReps): MASKAPPLY_EMULATED=1 says so.
  if(CMAKE_CROSSCOMPILING_EMULATOR)
    set_property(TEST ${T_NAME} APPEND PROPERTY ENVIRONMENT "MASKAPPLY_EMULATED=1")
  endif()
endfunction()
