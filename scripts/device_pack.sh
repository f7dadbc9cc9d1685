#!/usr/bin/env bash
# Builds factorkit here for sm_90 and gathers what a lent GPU machine needs into .carry/
# (gitignored): the test and app binaries, the shared libraries it lacks (Boost.Program_options),
# a few real data files, and scripts/device_run.sh. The device machine has the CUDA runtime libraries.
#   scripts/device_pack.sh [TARGET...]   (default: everything)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/device
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build $build -j2 "${targets[@]}"
rm -rf .carry && mkdir -p .carry/bin .carry/lib .carry/data
find $build -maxdepth 3 -type f -perm -u+x \( -name 'fk_*tests' -o -name 'fk-*' \) -exec cp {} .carry/bin/ \;
for lib in $(ldd .carry/bin/* 2>/dev/null | awk '/boost|gtest/ {print $3}' | sort -u); do cp -L "$lib" .carry/lib/; done
if [[ -d ../shared/data ]]; then
  mkdir -p .carry/data/suitesparse .carry/data/uci-kos .carry/data/movielens-100k
  cp ../shared/data/suitesparse/*.mtx .carry/data/suitesparse/
  cp ../shared/data/uci-kos/* .carry/data/uci-kos/
  cp ../shared/data/movielens-100k/u.data .carry/data/movielens-100k/
  cp -r ../shared/data/dlmc .carry/data/
fi
du -sh .carry
