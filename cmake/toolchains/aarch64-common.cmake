# SPDX-License-Identifier: MIT
# What both aarch64 toolchain files share: the target, Debian's arm64 multiarch libraries, pkg-config seeing only
# the arm64 .pc files, and qemu-aarch64 as the emulator ctest runs tests through.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# No -L prefix: the programs load the arm64 multiarch glibc (/lib/ld-linux-aarch64.so.1, libc6:arm64). With
# -L /usr/aarch64-linux-gnu (the cross toolchain's copy) qemu 7.2 hangs in pthread_create.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
