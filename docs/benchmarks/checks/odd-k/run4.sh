#!/usr/bin/env bash
# The apps' odd K at netflix scale (ALS: 100 factors + bias = 101; SFA: 256 + offset = 257) and
# nips (LDA, 50 topics): `auto` (padded where the rule says) against every variant at the same K
# and at the next multiple of 4 -> $OUT/*.csv.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.cusparse,auto
W=cuda.sddmm.convert,cuda.sddmm.preds,cuda.sddmm.cusparse,auto
timeout 280 $B sddmm --preset netflix --k 101,104,257,260 --variants $W --runs 10 --warmup 2 --csv $OUT/sddmm.csv > $OUT/last.log 2>&1 || { echo "fail sddmm netflix"; tail -2 $OUT/last.log; }
echo "sddmm netflix $(date +%T)"
timeout 200 $B spmm --preset netflix --k 101,104 --op t --variants $V --runs 10 --warmup 2 --csv $OUT/spmm.csv > $OUT/last.log 2>&1 || { echo "fail spmm netflix"; tail -2 $OUT/last.log; }
echo "spmm netflix $(date +%T)"
timeout 100 $B spmm --preset nips --k 50,52 --op t --variants $V --runs 20 --warmup 3 --csv $OUT/spmm.csv > $OUT/last.log 2>&1 || echo "fail nips"
timeout 100 $B sddmm --preset nips --k 50,52 --variants $W --runs 20 --warmup 3 --csv $OUT/sddmm.csv > $OUT/last.log 2>&1 || echo "fail sddmm nips"
echo "done $(date +%T)"
