#!/bin/bash -eu
# SPDX-License-Identifier: MIT
# Builds the fuzz targets the way OSS-Fuzz and ClusterFuzzLite do, into $OUT: each fuzz_<target> with its
# .options (max_len, timeout, rss limit, dictionary), its dictionary and its seed corpus zip (corpus/<target>/).
# Honours the build environment of OSS-Fuzz:
#   CC, CXX            the compilers (default clang-14, clang++-14)
#   CFLAGS, CXXFLAGS   sanitizer, coverage, optimization and debug flags, used as given (OSS-Fuzz: -O1
#                      -gline-tables-only -fsanitize=address -fsanitize=fuzzer-no-link ...; the build adds only
#                      -DNDEBUG); when CXXFLAGS is unset: -O2 -g1 -fsanitize=fuzzer-no-link,address,undefined
#   LIB_FUZZING_ENGINE the engine's link flags (OSS-Fuzz: -fsanitize=fuzzer); a CMake cache variable
#                      (MASKAPPLY_FUZZING_ENGINE), never hard-coded in the targets
#   OUT                where the targets go (required)
#   WORK               scratch space for the build tree (default: a temporary directory)
#   JOBS               build parallelism (default: nproc)
# Tests, tools and install rules are off: the build needs CMake >= 3.25, Ninja (optional), pkg-config, SLEEF,
# nlohmann-json, zip and on x86-64 SIMDe, nothing else (.clusterfuzzlite/Dockerfile installs exactly those).
# Usage: CXX=clang++-14 LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out bash fuzz/build.sh
set -euo pipefail  # also when run as `bash fuzz/build.sh`, which ignores the -eu above
src=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:?fuzz/build.sh: set OUT to the directory the targets go to}"
CC=${CC:-clang-14}
CXX=${CXX:-clang++-14}
CFLAGS=${CFLAGS:-}
CXXFLAGS=${CXXFLAGS:--O2 -g1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all}
LIB_FUZZING_ENGINE=${LIB_FUZZING_ENGINE:--fsanitize=fuzzer}
targets=(kernels pilots kernels_large pilots_large patterns regret)
build=${WORK:-$(mktemp -d)}/maskapply-fuzz-build
mkdir -p "$OUT"

echo "fuzz/build.sh: CXX=$CXX CXXFLAGS=$CXXFLAGS LIB_FUZZING_ENGINE=$LIB_FUZZING_ENGINE OUT=$OUT"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO=-DNDEBUG -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-DNDEBUG \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DMASKAPPLY_FUZZ=ON -DMASKAPPLY_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DMASKAPPLY_TESTS=OFF -DMASKAPPLY_TOOLS=OFF -DMASKAPPLY_INSTALL=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}"

for t in "${targets[@]}"; do
  cp "$build/fuzz/fuzz_$t" "$OUT/"
  cp "$src/fuzz/fuzz_$t.options" "$OUT/"
  dict=$(sed -n 's/^dict *= *//p' "$src/fuzz/fuzz_$t.options")
  if [ -n "$dict" ]; then
    case $t in kernels|pilots|kernels_large|pilots_large) cp "$src/fuzz/dict/floats.dict" "$OUT/$dict" ;; *) cp "$src/fuzz/dict/$t.dict" "$OUT/$dict" ;; esac
  fi
  rm -f "$OUT/fuzz_${t}_seed_corpus.zip"
  corpus=${t%_large}  # a _large twin seeds from its target's corpus
  (cd "$src/corpus/$corpus" && find . -maxdepth 1 -type f ! -name 'README*' -printf '%P\n' |
     zip -q -@ "$OUT/fuzz_${t}_seed_corpus.zip")
  echo "fuzz/build.sh: $OUT/fuzz_$t (+ .options$([ -n "$dict" ] && echo ", $dict"), seed corpus of $(ls "$src/corpus/$corpus" | wc -l) inputs)"
done
