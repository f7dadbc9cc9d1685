#!/usr/bin/env bash
# Session 40, last GPU call, on the binaries with the three `auto` rule changes and the helpers'
# app fixes: every test binary; the second and third sweeps again, so that the new rules' picks
# are measured rather than replayed (fk-bench's `auto` rows); racecheck on fk-als's GPU tests,
# which call 3's racecheck of fk_app_tests did not reach within its limit.
# Run with carry [".carry"]; returns summary.txt, the logs of failed binaries and the CSVs.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
call_tests 330
SECONDS=0
for g in powerlaw:rows=8000,cols=8000,nnz=30000 powerlaw:rows=20000,cols=20000,nnz=90000 \
         powerlaw:rows=3000,cols=3000,nnz=12000 powerlaw:rows=40000,cols=20000,nnz=95000,param=0.75 \
         powerlaw:rows=20000,cols=20000,nnz=60000,param=0.8 powerlaw:rows=12000,cols=12000,nnz=80000,param=1.2 \
         powerlaw:rows=1000,cols=5000,nnz=20000 powerlaw:rows=60000,cols=60000,nnz=99000,param=0.9; do
  $bin/fk-bench spmm --op both --k 1,4,16,32,64,128,256 --gen "$g" --device gpu --csv "$o/after-skewed.csv" \
    > /dev/null 2>> "$o/errors.txt"
done
for g in banded:rows=10000,cols=10000,nnz=40000 banded:rows=60000,cols=60000,nnz=99000 \
         banded:rows=5000,cols=5000,nnz=30000 banded:rows=40000,cols=40000,nnz=90000,param=31 \
         uniform:rows=10000,cols=10000,nnz=40000 uniform:rows=12000,cols=30000,nnz=36000 \
         uniform:rows=25000,cols=25000,nnz=50000 uniform:rows=35000,cols=10000,nnz=95000 \
         clustered:rows=24000,cols=24000,nnz=90000 clustered:rows=10000,cols=10000,nnz=45000,param=8 \
         powerlaw:rows=20000,cols=20000,nnz=80000,param=0.3 powerlaw:rows=40000,cols=40000,nnz=99000,param=0.5 \
         uniform:rows=9000,cols=9000,nnz=40000 uniform:rows=6000,cols=6000,nnz=20000 \
         clustered:rows=14000,cols=7000,nnz=50000 uniform:rows=16000,cols=16000,nnz=64000,seed=7; do
  $bin/fk-bench spmm --op n --k 16,32,48,64 --gen "$g" --device gpu --csv "$o/after-tiny.csv" \
    > /dev/null 2>> "$o/errors.txt"
done
echo "sweeps again: ${SECONDS}s" | tee -a "$o/summary.txt"
gzip -9 "$o"/*.csv
SECONDS=0
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 $bin/fk_app_tests --gtest_brief=1 \
  --gtest_filter='AlsGpu.*:AlsCli.Compare*' > /tmp/race.txt 2>&1
echo "racecheck fk-als GPU tests: rc=$? ${SECONDS}s $(grep -E 'RACECHECK SUMMARY|^\[  (PASSED|FAILED|SKIPPED)' /tmp/race.txt | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
true
