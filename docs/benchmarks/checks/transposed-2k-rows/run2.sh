#!/usr/bin/env bash
# Out of sample for the rule run.sh led to (row_split on small transposes of 1025-2047 rows of
# mean >= 20 at K = 64 and 128): eight more generated matrices (other shapes, seed 9), and
# bcsstk13 again, every applicable variant and the new `auto`, K = 64, 128 and 256.
# Run with carry [".carry"].
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; } | tee "$o/summary.txt"
for spec in uniform:rows=6000,cols=1400,nnz=120000 banded:rows=1700,cols=1700,nnz=90000 \
    clustered:rows=3000,cols=1600,nnz=80000 uniform:rows=2500,cols=1900,nnz=60000 \
    banded:rows=1300,cols=1300,nnz=40000 clustered:rows=8000,cols=1200,nnz=220000 \
    uniform:rows=1100,cols=2000,nnz=45000 powerlaw:rows=4000,cols=1500,nnz=100000; do
  timeout 100 $bin/fk-bench spmm --gen "$spec,seed=9" --op t --k 64,128,256 --runs 20 --warmup 3 \
    --csv "$o/oos2.csv" > /dev/null 2>> "$o/errors.txt" || echo "failed: $spec" | tee -a "$o/summary.txt"
done
timeout 100 $bin/fk-bench spmm --input .carry/data/suitesparse/bcsstk13.mtx --op t --k 64,128,256 \
  --runs 20 --warmup 3 --csv "$o/in-sample2.csv" > /dev/null 2>> "$o/errors.txt"
echo "done" | tee -a "$o/summary.txt"
