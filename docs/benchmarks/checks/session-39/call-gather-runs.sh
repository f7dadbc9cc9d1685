#!/usr/bin/env bash
# The windowed value gather by runs (after bf43c74): the gather's and the CUDA transposed plans'
# tests, memcheck on the gather's, then nnz_vsr's Sᵀ·B at K = 1 on the nytimes and Netflix shapes
# (the gather is most of it there; the same command and kind as the bf43c74 report's rows) and
# fk-als's netflix peak. Run with carry [".carry"]; returns summary.txt and bench.csv.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
timeout 80 $bin/fk_kernel_tests --gtest_brief=1 \
  --gtest_filter='ValueGather.*:DeviceTranspose*:CudaPlanMemory.*:Registered/SpmmConformance.*cuda*:Registered/RatioSpmmConformance.*cuda*' \
  > /tmp/t.txt 2>&1
echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' /tmp/t.txt | tr '\n' ' ')" | tee -a "$o/summary.txt"
grep -E "FAILED|Failure|Expected|Which is|Value of" /tmp/t.txt | head -20 | tee -a "$o/summary.txt"
call_memcheck "value gather" 60 fk_kernel_tests 'ValueGather.*'
for m in nytimes netflix; do
  timeout 100 $bin/fk-bench spmm --preset $m --op t --k 1 --variants cuda.spmm.nnz_vsr --device gpu \
    --runs 20 --warmup 3 --csv "$o/bench.csv" > /tmp/b-$m.txt 2>&1
  echo "bench $m rc=$? $(grep -E 'nnz_vsr' /tmp/b-$m.txt | head -2 | tr '\n' ' ')" | tee -a "$o/summary.txt"
done
timeout 100 $bin/fk-als --config configs/als-netflix.ini --device gpu --iters 1 --verbose --out /tmp/run-als \
  > /tmp/als.out 2> /tmp/als.err
echo "== als-netflix rc=$? $(grep -E -o '[0-9]+ MiB on the GPU|peak memory: .*|\(windowed\)|\(plain\)' /tmp/als.err | sort | uniq -c | tr '\n' ' ')" |
  tee -a "$o/summary.txt"
true
