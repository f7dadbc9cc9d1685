#!/usr/bin/env bash
# K not a multiple of 4 (the apps' K = factors + 1, LDA's 50 topics): every GPU variant at K just
# below, at, and just above multiples of 4, SpMM (both products) and SDDMM -> $OUT/*.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.vdl,cuda.spmm.cusparse,auto
W=cuda.sddmm.convert,cuda.sddmm.preds,cuda.sddmm.cusparse,auto
for x in "--input .carry/data/uci-kos/docword.kos.txt.gz" "--input .carry/data/movielens-100k/u.data" "--preset nips" \
         "--gen uniform:rows=500000,cols=17770,nnz=20000000,seed=131"; do
  timeout 200 $B spmm $x --k 48,49,50,52,64,65,66,68 --op both --variants $V --runs 20 --warmup 3 --csv $OUT/spmm.csv > $OUT/last.log 2>&1 || { echo "fail $x"; tail -2 $OUT/last.log; }
  timeout 200 $B sddmm $x --k 48,49,50,52,64,65,66,68 --variants $W --runs 20 --warmup 3 --csv $OUT/sddmm.csv > $OUT/last.log 2>&1 || { echo "fail sddmm $x"; tail -2 $OUT/last.log; }
  echo "$x $(date +%T)"
done
x="--gen uniform:rows=500000,cols=17770,nnz=20000000,seed=131"
timeout 200 $B spmm $x --k 256,257,260 --op both --variants $V --runs 10 --warmup 2 --csv $OUT/spmm.csv > $OUT/last.log 2>&1 || { echo "fail 257"; tail -2 $OUT/last.log; }
timeout 200 $B sddmm $x --k 256,257,260 --variants $W --runs 10 --warmup 2 --csv $OUT/sddmm.csv > $OUT/last.log 2>&1 || { echo "fail sddmm 257"; tail -2 $OUT/last.log; }
echo "done $(date +%T)"
