#!/usr/bin/env bash
# The dense-tile SpMM with branch-free entry loads and B's pieces from running pointers: tests,
# tc_bench's SpMM on the generated matrices, ncu's instruction count and stalls at V = 4, 70%.
# Run with carry [".carry"].
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
source docs/benchmarks/checks/tc-tiles/common.sh
call_start
tiles_tests
tiles_bench 300
tiles_ncu_stalls "barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait not_selected" \
  sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum \
  "$o/ncu-stalls.txt"
true
