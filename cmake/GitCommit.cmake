# SPDX-License-Identifier: MIT
# cmake -DSRC=<source dir> -DOUT=<header> -P GitCommit.cmake: writes MASKAPPLY_GIT_COMMIT (the commit, "-dirty"
# when tracked files changed, "unknown" outside git) into OUT, touching it only when the value changes, so each
# build records the commit it was built from without recompiling anything when the commit is the same.
set(commit unknown)
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SRC} rev-parse --short=12 HEAD OUTPUT_VARIABLE c RESULT_VARIABLE rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND c)
    set(commit ${c})
    execute_process(COMMAND ${GIT} -C ${SRC} status --porcelain --untracked-files=no OUTPUT_VARIABLE dirty
                    ERROR_QUIET)
    if(dirty)
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "#pragma once\n#define MASKAPPLY_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
