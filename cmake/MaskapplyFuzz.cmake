# SPDX-License-Identifier: MIT
# maskapply_add_fuzz_target(NAME <name> SOURCES <files...> [LIBS <targets...>] [CORPUS <dir>])
# A fuzz harness around your kernel (see maskapply_fuzz.h): with clang's libFuzzer it links -fsanitize=fuzzer;
# without it (gcc, or MASKAPPLY_FUZZ_LIBFUZZER=OFF) it links maskapply::fuzz_replay_main, which runs the files
# and directories it is given. With CORPUS, ctest replays that directory (test fuzz_replay_<name>, label
# fuzz-replay) either way, through CMAKE_CROSSCOMPILING_EMULATOR when cross-compiling.
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)

function(maskapply_add_fuzz_target)
  cmake_parse_arguments(F "" "NAME;CORPUS" "SOURCES;LIBS" ${ARGN})
  if(NOT DEFINED MASKAPPLY_FUZZ_LIBFUZZER)
    set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
    set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
    check_cxx_source_compiles("#include <cstdint>
      #include <cstddef>
      extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }" MASKAPPLY_LIBFUZZER_LINKS)
    set(MASKAPPLY_FUZZ_LIBFUZZER ${MASKAPPLY_LIBFUZZER_LINKS} CACHE BOOL "Link fuzz harnesses with libFuzzer")
  endif()
  add_executable(${F_NAME} ${F_SOURCES})
  target_link_libraries(${F_NAME} PRIVATE maskapply::testing ${F_LIBS})
  set(flags "")
  if(MASKAPPLY_FUZZ_LIBFUZZER)
    target_compile_options(${F_NAME} PRIVATE -fsanitize=fuzzer)
    target_link_options(${F_NAME} PRIVATE -fsanitize=fuzzer)
    set(flags -runs=0)
  else()
    target_link_libraries(${F_NAME} PRIVATE maskapply::fuzz_replay_main)
  endif()
  if(F_CORPUS)
    add_test(NAME fuzz_replay_${F_NAME} COMMAND ${F_NAME} ${flags} ${F_CORPUS})
    set_tests_properties(fuzz_replay_${F_NAME} PROPERTIES LABELS fuzz-replay TIMEOUT 300)
  endif()
endfunction()
