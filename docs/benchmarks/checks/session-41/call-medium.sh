#!/usr/bin/env bash
# Session 41, fourth call: a held-out look at medium matrices (150K-3M nonzeros; uniform, power-law,
# banded and clustered generators, seed 4, shapes no sweep used), every GPU SpMM variant and
# `auto` (binaries of 5316b4f), S·B and Sᵀ·B at K = 1, 4, 16, 32, 64, 128, 256: where else do the
# rules fall short? Run with carry [".carry"]; returns medium.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
SECONDS=0
n=0
for g in uniform:rows=200000,cols=50000,nnz=1000000 uniform:rows=20000,cols=100000,nnz=800000 \
         powerlaw:rows=100000,cols=100000,nnz=500000,param=0.4 powerlaw:rows=50000,cols=20000,nnz=1500000,param=0.5 \
         powerlaw:rows=300000,cols=100000,nnz=3000000,param=0.6 powerlaw:rows=200000,cols=200000,nnz=400000,param=0.3 \
         banded:rows=300000,cols=300000,nnz=2400000 clustered:rows=100000,cols=100000,nnz=1200000 \
         clustered:rows=20000,cols=50000,nnz=600000 powerlaw:rows=10000,cols=50000,nnz=400000,param=0.5 \
         uniform:rows=5000,cols=20000,nnz=300000 powerlaw:rows=80000,cols=5000,nnz=2000000,param=0.2 \
         banded:rows=50000,cols=50000,nnz=150000 powerlaw:rows=500000,cols=50000,nnz=2500000,param=0.35; do
  ((SECONDS > 400)) && { echo "medium stopped before $g" | tee -a "$o/summary.txt"; break; }
  $bin/fk-bench spmm --op both --k 1,4,16,32,64,128,256 --gen "$g,seed=4" --device gpu \
    --csv "$o/medium.csv" > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
echo "medium: $n matrices in ${SECONDS}s" | tee -a "$o/summary.txt"
gzip -9 "$o"/*.csv
grep -v "cuda.spmm.cusparse: " "$o/errors.txt" > "$o/other-errors.txt"; rm "$o/errors.txt"
true
