#!/usr/bin/env bash
# Session 40, second sweep (out of sample for the rule changes that call-sweep.sh's results
# suggested): small skewed matrices (generated power-law, row cv 4-22, under 100K nonzeros) at
# K = 1, 4, 16, 32, 64, 128, 256, and banded matrices of short rows (local patterns) at K = 16,
# 32, 64; S·B and Sᵀ·B, every GPU variant, fk-bench's defaults. Run with carry [".carry"];
# returns skewed.csv.gz, banded.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
SECONDS=0
n=0
for g in powerlaw:rows=8000,cols=8000,nnz=30000 powerlaw:rows=20000,cols=20000,nnz=90000 \
         powerlaw:rows=3000,cols=3000,nnz=12000 powerlaw:rows=40000,cols=20000,nnz=95000,param=0.75 \
         powerlaw:rows=20000,cols=20000,nnz=60000,param=0.8 powerlaw:rows=12000,cols=12000,nnz=80000,param=1.2 \
         powerlaw:rows=1000,cols=5000,nnz=20000 powerlaw:rows=60000,cols=60000,nnz=99000,param=0.9; do
  ((SECONDS > 300)) && { echo "skewed stopped before $g" | tee -a "$o/summary.txt"; break; }
  $bin/fk-bench spmm --op both --k 1,4,16,32,64,128,256 --gen "$g" --device gpu --csv "$o/skewed.csv" \
    > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
echo "skewed: $n matrices in ${SECONDS}s" | tee -a "$o/summary.txt"
SECONDS=0
n=0
for g in banded:rows=10000,cols=10000,nnz=40000 banded:rows=60000,cols=60000,nnz=99000 \
         banded:rows=5000,cols=5000,nnz=30000 banded:rows=40000,cols=40000,nnz=90000,param=31; do
  $bin/fk-bench spmm --op both --k 16,32,64 --gen "$g" --device gpu --csv "$o/banded.csv" \
    > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
echo "banded: $n matrices in ${SECONDS}s" | tee -a "$o/summary.txt"
gzip -9 "$o"/*.csv
true
