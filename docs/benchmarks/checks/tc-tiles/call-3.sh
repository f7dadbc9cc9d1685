#!/usr/bin/env bash
# Where the dense-tile SpMM's warps wait (call 2's binary): ncu's stall reasons per issued
# instruction and the pipes' use, V = 4, 70%, K = 64 and K = 256. Run with carry [".carry"].
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
source docs/benchmarks/checks/tc-tiles/common.sh
tiles_ncu_stalls "barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait lg_throttle not_selected
  selected dispatch_stall no_instruction membar branch_resolving drain imc_miss tex_throttle sleeping misc" \
  sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
  "$o/ncu-stalls.txt"
true
