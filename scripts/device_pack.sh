#!/usr/bin/env bash
# Builds factorkit here for sm_90 and gathers what a lent GPU machine needs into .carry/
# (gitignored): the test, app and benchmark binaries (compressed: .carry/bin.tar.xz), the shared
# libraries it lacks (Boost.Program_options), a few real data files, and scripts/device_run.sh.
# The device machine has the CUDA runtime libraries.
#   scripts/device_pack.sh [TARGET...]   (default: everything)
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/device
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build $build -j2 "${targets[@]}"
rm -rf .carry && mkdir -p .carry/bin .carry/lib .carry/data
echo "$PWD/$build" > .carry/build_dir  # the app paths the CLI tests have compiled in
# The commit the binaries were built from (device_run.sh's report-kernels stamps its report with it).
git describe --always --dirty > .carry/commit 2>/dev/null || echo unknown > .carry/commit
find $build -maxdepth 3 -type f -perm -u+x \( -name 'fk_*tests' -o -name 'fk-*' -o -name tc_bench \) -exec cp {} .carry/bin/ \;
for lib in $(ldd .carry/bin/* 2>/dev/null | awk '/boost|gtest/ {print $3}' | sort -u); do cp -L "$lib" .carry/lib/; done
# Every binary carries sm_90 code for every kernel (about 15 MiB each, stripped): together they
# pass the device tool's 64 MiB. xz with a dictionary larger than one binary packs the copies of
# the kernels once (the default 8 MiB dictionary left 34 MiB, this about 7); device_run.sh unpacks
# them (or, before using .carry/bin directly there: tar xJf .carry/bin.tar.xz -C .carry).
strip --strip-unneeded .carry/bin/*
tar cf - -C .carry bin | xz -T2 --lzma2=preset=6,dict=192MiB >.carry/bin.tar.xz && rm -rf .carry/bin
if [[ -d ../shared/data ]]; then
  mkdir -p .carry/data/suitesparse .carry/data/uci-kos .carry/data/movielens-100k
  cp ../shared/data/suitesparse/*.mtx .carry/data/suitesparse/
  cp ../shared/data/uci-kos/* .carry/data/uci-kos/
  cp ../shared/data/movielens-100k/u.data .carry/data/movielens-100k/
  # Only the DLMC layers the tests (kernels/test_*_conformance.cpp) and bench_kernels.sh name:
  # all of DLMC would push the carried tree past the device tool's 64 MiB.
  dlmc=../shared/data/dlmc/rn50/magnitude_pruning
  for rel in 0.5/bottleneck_2_block_group3_1_1 0.7/bottleneck_2_block_group3_1_1 \
             0.8/bottleneck_2_block_group3_1_1 0.9/bottleneck_2_block_group3_1_1 \
             0.95/bottleneck_2_block_group3_1_1 0.98/bottleneck_2_block_group3_1_1 \
             0.9/bottleneck_2_block_group4_1_1 0.9/bottleneck_2_block_group4_2_1 \
             0.9/final_dense 0.9/bottleneck_1_block_group1_1_1; do
    if [[ -f $dlmc/$rel.smtx ]]; then
      mkdir -p ".carry/data/dlmc/rn50/magnitude_pruning/$(dirname $rel)"
      cp "$dlmc/$rel.smtx" ".carry/data/dlmc/rn50/magnitude_pruning/$rel.smtx"
    fi
  done
fi
du -sh .carry
