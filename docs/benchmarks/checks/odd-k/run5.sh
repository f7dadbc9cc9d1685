#!/usr/bin/env bash
# copy_block as our own kernel (fk-bench-kernel) against cudaMemcpy2DAsync (fk-bench-memcpy2d):
# `auto` on problems that pad, both binaries alternating in one call -> $OUT/ab.csv (the binary's
# name in the matrix label).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.carry/lib:${LD_LIBRARY_PATH:-}
export FK_SHARED_DATA=$PWD/.carry/data
tar xJf .carry/bin.tar.xz -C .carry
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for round in 1 2; do
  for bin in kernel memcpy2d; do
    B=.carry/bin/fk-bench-$bin
    for x in "--preset ml-20m" "--gen uniform:rows=500000,cols=17770,nnz=20000000,seed=131" "--input .carry/data/uci-kos/docword.kos.txt.gz"; do
      timeout 120 $B spmm $x --name "$bin-$round" --k 50,65 --op t --variants auto --runs 20 --warmup 3 --csv $OUT/ab.csv > $OUT/last.log 2>&1 || { echo "fail $bin $x"; tail -2 $OUT/last.log; }
      timeout 120 $B sddmm $x --name "$bin-$round" --k 50,65,257 --variants auto --runs 20 --warmup 3 --csv $OUT/ab.csv > $OUT/last.log 2>&1 || { echo "fail sddmm $bin $x"; tail -2 $OUT/last.log; }
    done
  done
done
echo "done $(date +%T)"
