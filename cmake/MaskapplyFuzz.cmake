# SPDX-License-Identifier: MIT
# maskapply_add_fuzz_target(NAME <name> SOURCES <files...> [LIBS <targets...>] [CORPUS <dir>])
# A fuzz harness around your kernel (see <maskapply/maskapply_fuzz.h>). It links the fuzzing engine
# MASKAPPLY_FUZZING_ENGINE: by default $LIB_FUZZING_ENGINE when that is set at configure time (OSS-Fuzz and
# ClusterFuzzLite set it; their $CXXFLAGS carry the instrumentation), else clang's libFuzzer, -fsanitize=fuzzer
# (the harness is then compiled with -fsanitize=fuzzer-no-link). When the engine does not link (gcc, or
# MASKAPPLY_FUZZ_LIBFUZZER=OFF) the harness links maskapply::fuzz_replay_main instead, which runs the files and
# directories it is given. With CORPUS, ctest replays that directory (test fuzz_replay_<name>, label fuzz-replay)
# either way, through CMAKE_CROSSCOMPILING_EMULATOR when cross-compiling.
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)

if(DEFINED ENV{LIB_FUZZING_ENGINE} AND NOT "$ENV{LIB_FUZZING_ENGINE}" STREQUAL "")
  set(_maskapply_engine_default "$ENV{LIB_FUZZING_ENGINE}")
else()
  set(_maskapply_engine_default "-fsanitize=fuzzer")
endif()
set(MASKAPPLY_FUZZING_ENGINE "${_maskapply_engine_default}" CACHE STRING
    "Link flags of the fuzzing engine (default: $LIB_FUZZING_ENGINE, else -fsanitize=fuzzer)")
unset(_maskapply_engine_default)

function(maskapply_add_fuzz_target)
  cmake_parse_arguments(F "" "NAME;CORPUS" "SOURCES;LIBS" ${ARGN})
  separate_arguments(engine UNIX_COMMAND "${MASKAPPLY_FUZZING_ENGINE}")
  if(NOT DEFINED MASKAPPLY_FUZZ_LIBFUZZER)
    set(CMAKE_REQUIRED_LINK_OPTIONS ${engine})
    if("-fsanitize=fuzzer" IN_LIST engine)
      set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer-no-link)
    endif()
    check_cxx_source_compiles("#include <cstdint>
      #include <cstddef>
      extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }" MASKAPPLY_LIBFUZZER_LINKS)
    set(MASKAPPLY_FUZZ_LIBFUZZER ${MASKAPPLY_LIBFUZZER_LINKS} CACHE BOOL
        "Link fuzz harnesses with the fuzzing engine (MASKAPPLY_FUZZING_ENGINE)")
  endif()
  add_executable(${F_NAME} ${F_SOURCES})
  target_link_libraries(${F_NAME} PRIVATE maskapply::testing ${F_LIBS})
  set(flags "")
  if(MASKAPPLY_FUZZ_LIBFUZZER)
    if("-fsanitize=fuzzer" IN_LIST engine)
      target_compile_options(${F_NAME} PRIVATE -fsanitize=fuzzer-no-link)
      set(flags -runs=0)
    endif()
    target_link_options(${F_NAME} PRIVATE ${engine})
  else()
    target_link_libraries(${F_NAME} PRIVATE maskapply::fuzz_replay_main)
  endif()
  if(F_CORPUS)
    add_test(NAME fuzz_replay_${F_NAME} COMMAND ${F_NAME} ${flags} ${F_CORPUS})
    set_tests_properties(fuzz_replay_${F_NAME} PROPERTIES LABELS fuzz-replay TIMEOUT 300)
  endif()
endfunction()
