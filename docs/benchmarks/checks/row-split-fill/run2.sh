#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; out=${OUT:-/tmp/out}; mkdir -p $out; s=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter='*SpmmConformance*AwkwardProblems*row_split*:*CudaSpmmSpecific.RowsAcross*:*TeamsOfLanes*' 2>&1 | tail -2
echo "memcheck rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter='*SpmmConformance*AwkwardProblems*row_split*' 2>&1 | tail -2
echo "racecheck rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
o="--device gpu --runs 20 --warmup 3 --k 32,64,128,256,512 --op n"
for f in .carry/data/dlmc/rn50/magnitude_pruning/*/*.smtx .carry/data/suitesparse/*.mtx; do
  timeout 90 $b/fk-bench spmm --input $f $o --csv $out/sweep.csv >/dev/null 2>>$out/err.log || echo "fail $f"
done
echo "dlmc $((SECONDS-s)) s"
for g in "--preset nips" "--gen uniform:rows=1000,cols=10000,nnz=300000,seed=5" "--gen banded:rows=1000,cols=1000,nnz=300000,seed=7" \
   "--gen clustered:rows=3000,cols=3000,nnz=300000,seed=7" "--gen uniform:rows=2000,cols=100000,nnz=1000000,seed=7" \
   "--gen clustered:rows=800,cols=20000,nnz=400000,seed=7" "--gen uniform:rows=600,cols=6000,nnz=150000,seed=9" \
   "--gen clustered:rows=1500,cols=12000,nnz=600000,seed=9" "--gen banded:rows=2000,cols=2000,nnz=200000,seed=9" \
   "--gen uniform:rows=300,cols=30000,nnz=300000,seed=9" "--gen clustered:rows=4000,cols=16000,nnz=800000,seed=9"; do
  timeout 90 $b/fk-bench spmm $g $o --csv $out/sweep.csv >/dev/null 2>>$out/err.log || echo "fail $g"
done
echo "gens $((SECONDS-s)) s"
timeout 200 $b/fk_kernel_tests --gtest_brief=1 2>&1 | tail -3
echo "done $((SECONDS-s)) s"
