#!/usr/bin/env bash
# The dense-tile tensor-core SpMM's first GPU call: its tests (and the other tensor-core tests),
# memcheck and racecheck on its raw-kernel test, then tc_bench's SpMM on the generated V x 1
# matrices (4096 x 4096, V = 2, 4, 8 at 50-98% sparsity, K = 64, 128, 256) with tc_tiles beside
# the other contenders. Run with carry [".carry"]; returns summary.txt and tc_bench's files.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
source docs/benchmarks/checks/tc-tiles/common.sh
call_start
tiles_tests
tiles_sanitize
tiles_bench 360
true
