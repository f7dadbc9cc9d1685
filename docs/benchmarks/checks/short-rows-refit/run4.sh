#!/usr/bin/env bash
# Fourth run: every DLMC rn50 layer on file (59) with the new nnz_vsr against the variants the
# small-matrix rules choose from, both products -> $OUT/dlmc.csv. .carry/dlmc.tar.xz holds
# ../shared/data/dlmc/rn50 (tar cJf .carry/dlmc.tar.xz -C ../shared/data dlmc/rn50).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
tar xJf .carry/bin.tar.xz -C .carry
mkdir -p /tmp/d && tar xJf .carry/dlmc.tar.xz -C /tmp/d
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
B=.carry/bin/fk-bench
V=cuda.spmm.nnz_vsr,cuda.spmm.row_csc,cuda.spmm.row_split,cuda.spmm.vdl,cuda.spmm.dense,cuda.spmm.cusparse,auto
for f in $(find /tmp/d/dlmc/rn50 -name '*.smtx' | sort); do
  timeout 60 $B spmm --input $f --k 4,32,64,128,256,512 --op both --variants $V --runs 20 --warmup 3 \
    --csv $OUT/dlmc.csv > $OUT/last.log 2>&1 || { echo "fail $f"; tail -2 $OUT/last.log; }
done
echo "done $(date +%T)"
