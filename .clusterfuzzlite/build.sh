#!/bin/bash -eu
# SPDX-License-Identifier: MIT
# ClusterFuzzLite / OSS-Fuzz entry point: the project's fuzz/build.sh does the work ($CXX, $CXXFLAGS,
# $LIB_FUZZING_ENGINE and $OUT come from the build image).
set -euo pipefail
exec bash "$SRC/maskapply/fuzz/build.sh"
