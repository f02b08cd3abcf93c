# SPDX-License-Identifier: MIT
# Cross-compiling to aarch64 with Debian's gcc cross toolchain and arm64 multiarch libraries; tests run under
# qemu-aarch64 (ctest applies CMAKE_CROSSCOMPILING_EMULATOR).
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-common.cmake)
if(NOT CMAKE_CXX_COMPILER)
  set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
  set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
endif()
