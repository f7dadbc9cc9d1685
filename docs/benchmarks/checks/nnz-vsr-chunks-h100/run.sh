#!/usr/bin/env bash
# nnz_vsr with chunks that shrink until the warps fill the GPU (chunk_for): tests, sanitizers, and
# nnz_vsr against cuSPARSE and the other picks on small and medium matrices -> $OUT/*.csv
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=.carry/bin/fk_kernel_tests
F='*nnz_vsr*:*NnzVsr*:*Sliced*'
timeout 200 $T --gtest_filter="$F" --gtest_brief=1 2>&1 | tail -3
CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  timeout 150 $CS --tool $tool --error-exitcode 9 $T --gtest_filter='Registered/SpmmConformance.*/cuda_spmm_nnz_vsr:CudaSpmmSpecific.SlicedTransposedProduct' --gtest_brief=1 > $OUT/$tool.log 2>&1
  echo "$tool rc $? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/$tool.log | tail -2 | tr '\n' ' ')"
done
B=.carry/bin/fk-bench
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.vdl,cuda.spmm.cusparse,auto
tiny=("--input .carry/data/suitesparse/hep-th.mtx" "--gen uniform:rows=100000,cols=100000,nnz=300000,seed=16"
      "--gen clustered:rows=60000,cols=60000,nnz=240000,seed=52" "--gen banded:rows=100000,cols=100000,nnz=400000,seed=54"
      "--gen uniform:rows=400000,cols=50000,nnz=1600000,seed=53" "--gen powerlaw:rows=100000,cols=100000,nnz=400000,seed=51,param=0.3"
      "--gen powerlaw:rows=300000,cols=300000,nnz=3000000,seed=56")
for x in "${tiny[@]}"; do
  timeout 120 $B spmm $x --k 4,32,64,128 --op both --variants $V --runs 20 --warmup 3 --csv $OUT/small.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -3 $OUT/last.log; }
done
timeout 120 $B spmm --preset nips --k 4,32,128,256,512 --op t --variants $V --runs 20 --warmup 3 --csv $OUT/small.csv > $OUT/last.log 2>&1 || echo "fail nips"
# The same nnz_vsr problems with the binary before the change (c746d4a), in this run.
O=.carry/bin/fk-bench-c746d4a
for x in "${tiny[@]}"; do
  timeout 120 $O spmm $x --k 4,32,64,128 --op both --variants cuda.spmm.nnz_vsr --runs 20 --warmup 3 --csv $OUT/small-old.csv > $OUT/last.log 2>&1 || echo "fail old $x"
done
timeout 120 $O spmm --preset nips --k 4,32,128,256,512 --op t --variants cuda.spmm.nnz_vsr --runs 20 --warmup 3 --csv $OUT/small-old.csv > $OUT/last.log 2>&1 || echo "fail old nips"
echo "small done $(date +%T)"
for x in "--gen powerlaw:rows=500000,cols=20000,nnz=40000000,seed=5,param=0.5" "--gen powerlaw:rows=300000,cols=15000,nnz=30000000,seed=5,param=0.6" \
         "--gen powerlaw:rows=1000000,cols=30000,nnz=50000000,seed=5,param=0.7" "--preset netflix" "--preset nytimes"; do
  timeout 200 $B spmm $x --k 64,128 --op t --variants cuda.spmm.nnz_vsr,cuda.spmm.row_split,cuda.spmm.vdl,cuda.spmm.cusparse,auto \
    --runs 10 --warmup 2 --csv $OUT/large.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -3 $OUT/last.log; }
  echo "large $x $(date +%T)"
done
