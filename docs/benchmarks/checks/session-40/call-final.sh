#!/usr/bin/env bash
# Session 40, last GPU call, on the binaries with the three `auto` rule changes and the helpers'
# app fixes: every test binary; the second and third sweeps again, so that the new rules' picks
# are measured rather than replayed (fk-bench's `auto` rows); racecheck on fk-als's GPU tests,
# which call 3's racecheck of fk_app_tests did not reach within its limit.
# Run with carry [".carry"]; returns summary.txt, the logs of failed binaries and the CSVs.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_tests 330
call_sweep after-skewed 100000 "--op both --k 1,4,16,32,64,128,256" \
  "--gen powerlaw:rows=8000,cols=8000,nnz=30000" \
  "--gen powerlaw:rows=20000,cols=20000,nnz=90000" \
  "--gen powerlaw:rows=3000,cols=3000,nnz=12000" \
  "--gen powerlaw:rows=40000,cols=20000,nnz=95000,param=0.75" \
  "--gen powerlaw:rows=20000,cols=20000,nnz=60000,param=0.8" \
  "--gen powerlaw:rows=12000,cols=12000,nnz=80000,param=1.2" \
  "--gen powerlaw:rows=1000,cols=5000,nnz=20000" \
  "--gen powerlaw:rows=60000,cols=60000,nnz=99000,param=0.9"
mapfile -t tiny < docs/benchmarks/checks/session-40/tiny-matrices.txt  # the third sweep's matrices
call_sweep after-tiny 100000 "--op n --k 16,32,48,64" \
  "--gen banded:rows=10000,cols=10000,nnz=40000" \
  "--gen banded:rows=60000,cols=60000,nnz=99000" \
  "--gen banded:rows=5000,cols=5000,nnz=30000" \
  "--gen banded:rows=40000,cols=40000,nnz=90000,param=31" \
  "${tiny[@]/#/--gen }"
SECONDS=0
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 \
  --gtest_filter='AlsGpu.*:AlsCli.Compare*' > /tmp/race.txt 2>&1
echo "racecheck fk-als GPU tests: rc=$? ${SECONDS}s $(grep -E 'RACECHECK SUMMARY|^\[  (PASSED|FAILED|SKIPPED)' /tmp/race.txt | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
true
