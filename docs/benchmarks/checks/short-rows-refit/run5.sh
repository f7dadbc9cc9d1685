#!/usr/bin/env bash
# Fifth run: out of sample for row_split on small transposes of at most 1024 rows (fitted on
# run4.sh's DLMC layers): generated matrices of 128-1024 columns (and one of 2048, outside the
# rule), Sᵀ·B at K = 64-512 -> $OUT/oos5.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
V=cuda.spmm.row_split,cuda.spmm.row_csc,cuda.spmm.vdl,cuda.spmm.nnz_vsr,cuda.spmm.dense,cuda.spmm.cusparse,auto
for g in "uniform:rows=20000,cols=512,nnz=200000,seed=111" "uniform:rows=5000,cols=1000,nnz=100000,seed=112" \
         "clustered:rows=8000,cols=768,nnz=150000,seed=113" "uniform:rows=2000,cols=300,nnz=30000,seed=114" \
         "clustered:rows=3000,cols=256,nnz=40000,seed=115" "powerlaw:rows=10000,cols=900,nnz=200000,param=0.2,seed=116" \
         "uniform:rows=50000,cols=1024,nnz=240000,seed=117" "uniform:rows=1000,cols=128,nnz=20000,seed=118" \
         "uniform:rows=10000,cols=2048,nnz=200000,seed=119" "uniform:rows=600,cols=400,nnz=120000,seed=120" \
         "uniform:rows=1000,cols=1000,nnz=240000,seed=121"; do
  timeout 60 $B spmm --gen "$g" --k 64,128,256,512 --op t --variants $V --runs 20 --warmup 3 \
    --csv $OUT/oos5.csv > $OUT/last.log 2>&1 || { echo "fail $g"; tail -2 $OUT/last.log; }
done
echo "done $(date +%T)"
