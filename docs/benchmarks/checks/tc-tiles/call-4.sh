#!/usr/bin/env bash
# The dense-tile SpMM, second version (S's tile stored column-major so a vector is one store, three
# B stages, 32-bit entry offsets, the split's partial tiles added through a cluster's distributed
# shared memory instead of global scratch): tests, memcheck and racecheck on the raw-kernel test,
# tc_bench's SpMM on the generated matrices, and ncu's stall reasons at V = 4, 70%, K = 64 and 256.
# Run with carry [".carry"].
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
source docs/benchmarks/checks/tc-tiles/common.sh
call_start
tiles_tests
tiles_sanitize
tiles_bench 300
tiles_ncu_stalls "barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait lg_throttle not_selected
  selected dispatch_stall no_instruction membar branch_resolving imc_miss" \
  sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
  "$o/ncu-stalls.txt"
true
