#!/usr/bin/env bash
# Session 41, fifth call: the three medium-matrix rules of b46390f out of sample. Twelve more
# generated matrices (seed 5, shapes none of the earlier calls used): power laws of 300K-3.5M
# nonzeros with rows of mean 2-60 (six of them S·B's vendor domain: >= 1M nonzeros, mean >= 20,
# longest >= 6 means), transposes of cv 0.26-2.2 with short parts of S's rows (panel's bound) and
# transposed longest rows of 15-50 means under 400 long (the narrow-transpose bound), a clustered
# and a uniform matrix. Every GPU SpMM variant and `auto`, S·B and Sᵀ·B at K = 1, 2, 4, 16, 32, 64,
# 128. Run with carry [".carry"]; returns oos2.csv.gz and summary.txt.
cd "$(dirname "$0")/../../../.." && source scripts/device_env.sh && source scripts/device_call.sh
call_start
SECONDS=0
n=0
for g in powerlaw:rows=150000,cols=60000,nnz=900000,param=0.45 powerlaw:rows=300000,cols=120000,nnz=600000,param=0.35 \
         powerlaw:rows=40000,cols=40000,nnz=300000,param=0.5 clustered:rows=200000,cols=150000,nnz=2000000 \
         powerlaw:rows=400000,cols=30000,nnz=2000000,param=0.4 uniform:rows=300000,cols=100000,nnz=1500000 \
         powerlaw:rows=60000,cols=30000,nnz=2400000,param=0.45 powerlaw:rows=40000,cols=10000,nnz=1200000,param=0.3 \
         powerlaw:rows=100000,cols=40000,nnz=3500000,param=0.6 powerlaw:rows=30000,cols=60000,nnz=1800000,param=0.4 \
         powerlaw:rows=120000,cols=50000,nnz=3000000,param=0.25 powerlaw:rows=20000,cols=20000,nnz=1000000,param=0.55; do
  ((SECONDS > 420)) && { echo "oos2 stopped before $g" | tee -a "$o/summary.txt"; break; }
  $bin/fk-bench spmm --op both --k 1,2,4,16,32,64,128 --gen "$g,seed=5" --device gpu \
    --csv "$o/oos2.csv" > /dev/null 2>> "$o/errors.txt" && n=$((n + 1))
done
echo "oos2: $n matrices in ${SECONDS}s" | tee -a "$o/summary.txt"
gzip -9 "$o"/*.csv
grep -v "cuda.spmm.cusparse: " "$o/errors.txt" > "$o/other-errors.txt"; rm "$o/errors.txt"
call_binaries "fk_kernel_tests 300"
true
