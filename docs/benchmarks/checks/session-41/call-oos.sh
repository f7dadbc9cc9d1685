#!/usr/bin/env bash
# Session 41, second call: the small-uneven rule (longest row >= 15 means under 100K nonzeros ->
# nnz_vsr) out of sample. Ten more generated power-law matrices (seed 3, shapes none of the first
# call's; longest row 9-174 means, three of them under or near the bound: 10.3, 14.7 and a
# transpose of 14.9), every GPU SpMM variant and the new `auto`, S·B and Sᵀ·B, K = 1-256. Then
# fk_kernel_tests on the GPU. Run with carry [".carry"]; returns oos.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
SECONDS=0
n=0
for g in rows=30000,cols=30000,nnz=80000,param=0.3 rows=20000,cols=10000,nnz=70000,param=0.35 \
         rows=15000,cols=15000,nnz=45000,param=0.45 rows=50000,cols=50000,nnz=98000,param=0.55 \
         rows=5000,cols=5000,nnz=30000,param=0.4 rows=35000,cols=20000,nnz=85000,param=0.25 \
         rows=9000,cols=12000,nnz=70000,param=0.65 rows=25000,cols=25000,nnz=95000,param=0.3 \
         rows=2000,cols=4000,nnz=20000,param=0.5 rows=70000,cols=40000,nnz=99000,param=0.45; do
  ((SECONDS > 240)) && { echo "oos stopped before $g" | tee -a "$o/summary.txt"; break; }
  $bin/fk-bench spmm --op both --k 1,4,16,32,64,128,256 --gen "powerlaw:$g,seed=3" --device gpu \
    --csv "$o/oos.csv" > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
echo "oos: $n matrices in ${SECONDS}s" | tee -a "$o/summary.txt"
gzip -9 "$o"/*.csv
grep -v "cuda.spmm.cusparse: " "$o/errors.txt" > "$o/other-errors.txt"; rm "$o/errors.txt"  # keep what is not cuSPARSE's algorithm lines
call_binaries "fk_kernel_tests 300"
true
