#!/usr/bin/env bash
# Sᵀ·B on small matrices whose transposes have 1025-2047 rows (mean >= 10, even, below 20%
# density, at most 250K nonzeros): does row_split, which `auto` runs on such transposes of up to
# 1024 rows from K = 64 (kernels/select.cpp, row_split_small_transpose_pays), win there too?
# bcsstk13 (2003 rows, K = 128: row_split 1.23-1.24x faster than auto's row_csc in both reports)
# is in sample; ten generated matrices are not; two of 2500 and 4000 rows are the other side of
# the bound. Every applicable variant and auto, K = 64-512. Run with carry [".carry"].
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh
o=${OUT:-/tmp/out}; mkdir -p "$o"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .carry/commit; } | tee "$o/summary.txt"
for spec in uniform:rows=3000,cols=1200,nnz=60000 uniform:rows=4000,cols=1500,nnz=200000 \
    banded:rows=1800,cols=1800,nnz=50000 clustered:rows=5000,cols=1900,nnz=150000 \
    uniform:rows=1600,cols=1600,nnz=40000 banded:rows=2000,cols=2000,nnz=200000 \
    clustered:rows=1300,cols=1300,nnz=100000 uniform:rows=20000,cols=2040,nnz=240000 \
    banded:rows=1100,cols=1100,nnz=30000 uniform:rows=1200,cols=1800,nnz=25000 \
    uniform:rows=3000,cols=2500,nnz=150000 banded:rows=4000,cols=4000,nnz=200000; do
  timeout 100 $bin/fk-bench spmm --gen "$spec,seed=5" --op t --k 64,128,256,512 --runs 20 --warmup 3 \
    --csv "$o/oos.csv" > /dev/null 2>> "$o/errors.txt" || echo "failed: $spec" | tee -a "$o/summary.txt"
done
timeout 100 $bin/fk-bench spmm --input .carry/data/suitesparse/bcsstk13.mtx --op t --k 64,128,256,512 \
  --runs 20 --warmup 3 --csv "$o/in-sample.csv" > /dev/null 2>> "$o/errors.txt"
echo "done" | tee -a "$o/summary.txt"
