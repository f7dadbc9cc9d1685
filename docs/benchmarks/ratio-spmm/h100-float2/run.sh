#!/usr/bin/env bash
# Float2 rows in the fused ratio SpMM where K % 4 == 2 (K = 10, 30, 50, 70, 90; K = 64 as a
# control), against 37b25be's build (fk-bench-old: floats there), alternated twice in one call,
# each with the pair: the 4096-document minibatch both ways, kos, ml-100k, hep-th, held-out 4's
# ratings shape, a power-law matrix; then fk-lda on kos (K = 50) and on the nytimes shape at 50
# topics, both builds twice. Here: fk-bench(-old), fk-lda(-old), fk-datagen in .carry/bin.tar.xz,
# lib/, data/, mb.mtx.xz; on the device machine: bash <this script> ($OUT: where to write).
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin D=.carry/data
xz -dc .carry/mb.mtx.xz > /tmp/mb.mtx
$B/fk-datagen ratings --users 1500 --items 4000 --ratings 120000 --seed 5 --out /tmp/h4r2.csv > /dev/null
for r in 1 2; do
  for bin in fk-bench-old fk-bench; do
    o="--op both --k 10,30,50,64,70,90 --runs 15 --variants cuda.ratio_spmm.fused --csv $OUT/float2-$bin-r$r.csv"
    for src in "--input /tmp/mb.mtx --name mb4096" "--input $D/uci-kos/docword.kos.txt.gz --name kos-real" \
               "--input $D/movielens-100k/u.data --name ml-100k-real" "--input $D/suitesparse/hep-th.mtx" \
               "--input /tmp/h4r2.csv --name ratings-1500x4000" "--gen powerlaw:rows=30000,cols=30000,nnz=300000"; do
      timeout 60 $B/$bin ratio-spmm $src $o > /dev/null 2>&1 || echo "failed: $bin $src"
    done
  done
done
for r in 1 2; do for b in fk-lda-old fk-lda; do
  timeout 60 $B/$b --config configs/lda-kos.ini --input $D/uci-kos/docword.kos.txt.gz --iters 10 --eval-every 0 --device gpu > $OUT/kos-$b-r$r.log 2>&1
  echo "kos $b: $(grep 'median time' $OUT/kos-$b-r$r.log)"
  timeout 90 $B/$b --config configs/lda-nytimes.ini --topics 50 --iters 3 --eval-every 0 --device gpu > $OUT/nyt50-$b-r$r.log 2>&1
  echo "nyt50 $b: $(grep 'median time' $OUT/nyt50-$b-r$r.log)"
done; done
