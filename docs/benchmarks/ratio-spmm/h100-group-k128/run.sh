#!/usr/bin/env bash
# Lane groups at K = 65-128 (16 lanes of two float4s, two rows a warp) for rows of mean under 16,
# against the build before (fk-bench-base: a warp a row there), alternated twice in one call, each
# with the pair: LDA minibatch transposes (rows of mean 13.4, 7.9, 5.2), a 600-document nytimes
# transpose (1.3), power-law, uniform and banded matrices of short rows, hep-th, delaunay_n14, at
# K = 96, 100, 128, and K = 30 (floats: 16 lanes of two); then fk-lda on the nytimes shape at
# 128 topics (its topic statistics run over the minibatch's transpose), both builds twice.
# Here: fk-bench(-base), fk-lda(-base), fk-datagen in .carry/bin.tar.xz, lib/, data/, mb*.mtx.xz.
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin D=.carry/data
for m in mb mb2k mb1k; do xz -dc .carry/$m.mtx.xz > /tmp/$m.mtx; done
$B/fk-datagen lda --preset nytimes --docs 600 --seed 7 --out /tmp/hcnyt > /dev/null
for r in 1 2; do
  for bin in fk-bench-base fk-bench; do
    o="--k 30,96,100,128 --runs 15 --variants cuda.ratio_spmm.fused --csv $OUT/group-k128-$bin-r$r.csv"
    for src in "--input /tmp/mb.mtx --name mb4096 --op t" "--input /tmp/mb2k.mtx --name mb2k --op t" \
               "--input /tmp/mb1k.mtx --name mb1k --op t" "--input /tmp/hcnyt/docword.txt --name nytimes-600 --op t" \
               "--gen powerlaw:rows=10000,cols=50000,nnz=150000,seed=7 --op t" "--gen uniform:rows=100000,cols=20000,nnz=1000000,seed=3 --op n" \
               "--gen uniform:rows=300000,cols=30000,nnz=1500000,seed=3 --op n" "--gen banded:rows=200000,cols=200000,nnz=1600000,seed=3 --op n" \
               "--input $D/suitesparse/hep-th.mtx --op both" "--input $D/suitesparse/delaunay_n14.mtx --op n"; do
      timeout 60 $B/$bin ratio-spmm $src $o > /dev/null 2>&1 || echo "failed: $bin $src"
    done
  done
done
for r in 1 2; do for b in fk-lda-base fk-lda; do
  timeout 90 $B/$b --config configs/lda-nytimes.ini --topics 128 --iters 3 --eval-every 0 --device gpu > $OUT/lda128-$b-r$r.log 2>&1
  echo "$b: $(grep 'median time' $OUT/lda128-$b-r$r.log)"
done; done
