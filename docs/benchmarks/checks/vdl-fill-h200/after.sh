#!/usr/bin/env bash
# After fill_lanes and the tiny-rows rule change (README.md): vdl tests and memcheck, then K = 1-16 on
# the sweep's matrices plus five new ones of short rows. Writes $OUT/after.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name --format=csv,noheader
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
T=.carry/bin/fk_kernel_tests
$T --gtest_filter='*vdl*:*Vdl*:CudaSpmmSpecific.*:*SpmmConformance*' > $OUT/tests.log 2>&1
echo "tests rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED|FAILED TEST' $OUT/tests.log | tr '\n' ' ')"
timeout 200 $CS --tool memcheck --error-exitcode 9 $T --gtest_filter='Registered/SpmmConformance.AwkwardProblems/cuda_spmm_vdl:CudaSpmmSpecific.MisalignedDenseOperands:CudaSpmmSpecific.EveryWidthOnSkewedRows' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' $OUT/memcheck.log | tr '\n' ' ')"
B=.carry/bin/fk-bench
m=()
for f in .carry/data/suitesparse/*.mtx; do m+=("--input $f"); done
m+=("--preset kos" "--preset ml-100k" "--preset nips")
m+=("--gen uniform:rows=20000,cols=20000,nnz=100000,seed=11" "--gen powerlaw:rows=30000,cols=30000,nnz=300000,seed=12"
    "--gen banded:rows=50000,cols=50000,nnz=400000,seed=13" "--gen clustered:rows=10000,cols=10000,nnz=200000,seed=14"
    "--gen uniform:rows=4000,cols=4000,nnz=40000,seed=15" "--gen uniform:rows=100000,cols=100000,nnz=300000,seed=16")
# new, tiny rows (the rule's out-of-sample set)
m+=("--gen uniform:rows=500000,cols=500000,nnz=1000000,seed=21" "--gen banded:rows=200000,cols=200000,nnz=800000,seed=22"
    "--gen clustered:rows=50000,cols=50000,nnz=200000,seed=23" "--gen powerlaw:rows=100000,cols=100000,nnz=400000,seed=24"
    "--gen uniform:rows=3000,cols=3000,nnz=9000,seed=25")
for x in "${m[@]}"; do
  timeout 60 $B spmm $x --k 1,2,4,8,16 --op n --variants cuda.spmm.vdl,auto --csv $OUT/after.csv > $OUT/last.log 2>&1 || echo "fail $x"
done
echo done
