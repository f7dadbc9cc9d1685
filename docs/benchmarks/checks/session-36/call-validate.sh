#!/usr/bin/env bash
# This session's GPU call: every test binary on the GPU after the kernel plans' operand checks
# became one set (kernels/operand_checks.hpp: the cuSPARSE, dense, tensor-core and CUDA SDDMM
# plans gained the overlap and null checks), with memcheck on the API-misuse tests (the new
# ApiMisuse.GpuOverlapsAndNullOperandsAreErrors among them). Then, on the device machine's CPU,
# the processor-sized splits with 4 threads: `--threads 4` on all 16 processors (parts sized for
# 16) against the same under `taskset -c 0-3` (parts for 4), alternated twice.
# Run with carry [".carry"]; returns summary.txt, the split CSVs and the logs of what failed.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $bin/fk-als --version; nproc; } |
  tee "$o/summary.txt"
OUT=/tmp/logs bash scripts/device_run.sh tests > /tmp/tests.txt 2>&1
tee -a "$o/summary.txt" < /tmp/logs/tests-summary.txt
grep -q "rc=[1-9]" /tmp/tests.txt && cp /tmp/logs/*.log "$o/"
FK_SANITIZE_FILTER='ApiMisuse.*' OUT=/tmp/logs bash scripts/device_run.sh memcheck > /tmp/mem.txt 2>&1
echo "memcheck ApiMisuse.*: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED|SKIPPED)|rc=' /tmp/mem.txt /tmp/logs/memcheck.log | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
gen=powerlaw:rows=400000,cols=200000,nnz=8000000
for round in 1 2; do
  for mode in all four; do
    pin=(); [[ $mode == four ]] && pin=(taskset -c 0-3)
    "${pin[@]}" $bin/fk-bench spmm --gen $gen --op both --k 32 --device cpu --threads 4 --runs 7 \
      --variants omp.spmm.rows,omp.spmm.nnz_balanced,omp.spmm.aspt --csv "$o/split4-$mode.csv" \
      > /dev/null 2>>"$o/split.err"
    "${pin[@]}" $bin/fk-bench sddmm --gen $gen --k 32 --device cpu --threads 4 --runs 7 \
      --variants omp.sddmm.rows,omp.sddmm.aspt --csv "$o/split4-$mode.csv" > /dev/null 2>>"$o/split.err"
    echo "round $round, $mode: done" | tee -a "$o/summary.txt"
  done
done
true
