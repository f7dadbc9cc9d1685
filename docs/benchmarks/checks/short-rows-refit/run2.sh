#!/usr/bin/env bash
# Second run: out-of-sample matrices for the rules fitted on run.sh's real files (kos, MovieLens
# 100K, nips): Sᵀ·B of small uneven transposes and of nips-like ones on nnz_vsr from K = 32, and
# S·B of small uneven rows of mean >= 40 on nnz_vsr at 16 < K <= 128. Rows -> $OUT/oos2.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.vdl,cuda.spmm.cusparse,auto
for x in "--preset kos" "--preset default" "--preset ml-100k" \
         "--gen powerlaw:rows=3000,cols=6000,nnz=300000,param=0.5,seed=91" "--gen powerlaw:rows=8000,cols=4000,nnz=400000,param=0.4,seed=92" \
         "--gen powerlaw:rows=1200,cols=3000,nnz=150000,param=0.6,seed=93" "--gen powerlaw:rows=10000,cols=15000,nnz=480000,param=0.5,seed=94" \
         "--gen powerlaw:rows=2000,cols=15000,nnz=900000,param=0.5,seed=95" "--gen uniform:rows=3000,cols=12000,nnz=900000,seed=96" \
         "--gen clustered:rows=5000,cols=8000,nnz=400000,seed=97"; do
  timeout 150 $B spmm $x --k 4,16,32,64,128,256 --op both --variants $V --runs 20 --warmup 3 \
    --csv $OUT/oos2.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -3 $OUT/last.log; }
  echo "oos2 $x $(date +%T)"
done
