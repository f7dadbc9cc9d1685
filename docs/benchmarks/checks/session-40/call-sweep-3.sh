#!/usr/bin/env bash
# Session 40, third sweep: S·B on small matrices of tiny rows (mean 2-4.5, under 100K nonzeros,
# 6000-40000 rows; none in the earlier sweeps) at K = 16, 32, 48, 64, to test a rule the first
# sweep suggests (row_csc, not cuSPARSE, at 32 < K <= 64 from about 10000 rows). Every GPU
# variant, fk-bench's defaults. Run with carry [".carry"]; returns tiny.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
SECONDS=0
n=0
for g in uniform:rows=10000,cols=10000,nnz=40000 uniform:rows=12000,cols=30000,nnz=36000 \
         uniform:rows=25000,cols=25000,nnz=50000 uniform:rows=35000,cols=10000,nnz=95000 \
         clustered:rows=24000,cols=24000,nnz=90000 clustered:rows=10000,cols=10000,nnz=45000,param=8 \
         powerlaw:rows=20000,cols=20000,nnz=80000,param=0.3 powerlaw:rows=40000,cols=40000,nnz=99000,param=0.5 \
         uniform:rows=9000,cols=9000,nnz=40000 uniform:rows=6000,cols=6000,nnz=20000 \
         clustered:rows=14000,cols=7000,nnz=50000 uniform:rows=16000,cols=16000,nnz=64000,seed=7; do
  $bin/fk-bench spmm --op n --k 16,32,48,64 --gen "$g" --device gpu --csv "$o/tiny.csv" \
    > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
echo "tiny: $n matrices in ${SECONDS}s" | tee -a "$o/summary.txt"
gzip -9 "$o"/*.csv
true
