# SPDX-License-Identifier: MIT
# Cross-compiling to aarch64 with clang-14 (for libFuzzer, which gcc lacks) against Debian's aarch64 gcc
# runtime and arm64 multiarch libraries; programs run under qemu-aarch64. The aarch64-fuzz preset uses it.
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-common.cmake)
set(CMAKE_C_COMPILER clang-14)
set(CMAKE_CXX_COMPILER clang++-14)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
