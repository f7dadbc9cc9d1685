#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-} FK_SHARED_DATA=$PWD/.carry/data
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
b=.carry/bin; out=${OUT:-/tmp/out}; mkdir -p $out; s=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
f='*TeamsOfLanes*:*RowsAcrossChunk*:*SpmmConformance*vdl*:*Misaligned*'
timeout 200 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter="$f" 2>&1 | tail -3
echo "tests $((SECONDS-s)) s"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter='*TeamsOfLanes*' 2>&1 | tail -2
echo "memcheck rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 $b/fk_kernel_tests --gtest_brief=1 --gtest_filter='*TeamsOfLanes*' 2>&1 | tail -2
echo "racecheck rc=${PIPESTATUS[0]} $((SECONDS-s)) s"
opts="--device gpu --op both --runs 20 --warmup 3 --k 1,2,4"
ab() {
  timeout 60 $b/fk-bench spmm $1 $opts --csv $out/new.csv >/dev/null 2>>$out/err.log || echo "fail new $1"
  FK_VDL_TEAM=0 timeout 60 $b/fk-bench spmm $1 $opts --variants cuda.spmm.vdl --csv $out/old.csv >/dev/null 2>>$out/err.log || echo "fail old $1"
}
for f in .carry/data/dlmc/rn50/magnitude_pruning/*/*.smtx .carry/data/suitesparse/*.mtx; do ab "--input $f"; done
echo "dlmc $((SECONDS-s)) s"
ab "--preset nips"
for g in uniform:rows=1000,cols=10000,nnz=300000,seed=5 uniform:rows=3000,cols=50000,nnz=3000000,seed=5 \
         powerlaw:rows=2000,cols=20000,nnz=400000,seed=5 banded:rows=3000,cols=3000,nnz=600000,seed=5 \
         clustered:rows=1500,cols=8000,nnz=300000,seed=5 uniform:rows=400,cols=4000,nnz=100000,seed=5; do ab "--gen $g"; done
echo "done $((SECONDS-s)) s"
