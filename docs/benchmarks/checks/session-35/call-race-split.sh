#!/usr/bin/env bash
# This session's GPU call, part 2: racecheck on the tensor-core tests (shared-memory kernels;
# racecheck was not run in session 34), and on the device machine's CPU what the work splits cost
# a run with far fewer threads than processors: since session 34 the parts of nnz_balanced and the
# panels of ASpT are sized by the processors the process may use (omp_common::split_threads), so a
# --threads 1 run on 16 processors gets 16 parts; `taskset -c 0` makes the same run see 1
# processor. Both orders twice (A B A B), one thread each, the same matrix and seed.
# Run with carry [".carry"]; returns summary.txt and the CSVs.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
nproc | sed 's/^/processors: /' | tee "$o/summary.txt"
FK_SANITIZE_FILTER='TcVector.*' OUT=/tmp/logs bash scripts/device_run.sh racecheck > /tmp/race.txt 2>&1
echo "racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|^\[  (PASSED|FAILED)|rc=' /tmp/race.txt /tmp/logs/racecheck.log | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
gen=powerlaw:rows=400000,cols=200000,nnz=8000000
for round in 1 2; do
  for mode in all one; do
    pin=(); [[ $mode == one ]] && pin=(taskset -c 0)
    "${pin[@]}" $bin/fk-bench spmm --gen $gen --op both --k 32 --device cpu --threads 1 --runs 7 \
      --variants omp.spmm.rows,omp.spmm.nnz_balanced,omp.spmm.aspt --csv "$o/split-$mode.csv" \
      > /dev/null 2>>"$o/split.err"
    "${pin[@]}" $bin/fk-bench sddmm --gen $gen --k 32 --device cpu --threads 1 --runs 7 \
      --variants omp.sddmm.rows,omp.sddmm.aspt --csv "$o/split-$mode.csv" > /dev/null 2>>"$o/split.err"
    echo "round $round, $mode processors: done" | tee -a "$o/summary.txt"
  done
done
