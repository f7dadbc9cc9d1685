#!/usr/bin/env bash
# spmv16 (spmv16.diff applied to 5a4eddd) on the GPU: its tests (plain and under memcheck/racecheck), then K = 1 timings.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name --format=csv,noheader
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T=.carry/bin/fk_kernel_tests
$T --gtest_filter='*spmv16*:*Spmv16*:CudaSpmmSpecific.*:SpmmConformance*' > $OUT/tests.log 2>&1
echo "tests rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST' $OUT/tests.log | tr '\n' ' ')"
for tool in memcheck racecheck; do
  timeout 150 $CS --tool $tool --error-exitcode 9 $T --gtest_filter='*spmv16*:*Spmv16*:CudaSpmmSpecific.MisalignedDenseOperands' > $OUT/$tool.log 2>&1
  echo "$tool rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' $OUT/$tool.log | tr '\n' ' ')"
done
B=.carry/bin/fk-bench
V=cuda.spmm.spmv16,cuda.spmm.vdl,cuda.spmm.panel,auto
run() { timeout 100 $B spmm "$@" --k 1 --op n --variants $V --csv $OUT/spmv16.csv > $OUT/last.log 2>&1; echo "$* rc=$?"; grep -E "cuda.spmm|auto" $OUT/last.log | sed 's/^/   /'; }
for p in netflix ml-20m nips kos; do run --preset $p; done
for f in .carry/data/suitesparse/*.mtx; do run --input $f; done
# out of sample: shapes no rule has seen, N <= 65536
run --gen powerlaw:rows=500000,cols=40000,nnz=50000000,seed=3
run --gen uniform:rows=200000,cols=65536,nnz=20000000,seed=4
run --gen clustered:rows=300000,cols=30000,nnz=30000000,seed=5
run --gen powerlaw:rows=2000000,cols=20000,nnz=40000000,seed=6
run --gen uniform:rows=50000,cols=8000,nnz=2000000,seed=7
