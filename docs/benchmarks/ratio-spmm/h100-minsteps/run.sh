#!/usr/bin/env bash
# kMinSteps 4 (kept) against 8, one build with a temporary switch (FK_EXP_MINSTEPS), alternated
# twice in one call, on the chain comparison's 18 matrices and the held-out-chain check's 10.
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin D=.carry/data
for m in mb mb2k mb1k; do xz -dc .carry/$m.mtx.xz > /tmp/$m.mtx; done
$B/fk-datagen lda --preset nips --docs 700 --out /tmp/h4nips > /dev/null
$B/fk-datagen lda --preset kos --docs 1500 --out /tmp/h4kos > /dev/null
$B/fk-datagen ratings --users 3000 --items 2000 --ratings 250000 --seed 4 --out /tmp/h4r.csv > /dev/null
$B/fk-datagen ratings --users 1500 --items 4000 --ratings 120000 --seed 5 --out /tmp/h4r2.csv > /dev/null
$B/fk-datagen lda --preset nips --docs 300 --seed 7 --out /tmp/hcnips > /dev/null
$B/fk-datagen lda --preset nytimes --docs 600 --seed 7 --out /tmp/hcnyt > /dev/null
$B/fk-datagen lda --preset kos --docs 3430 --seed 7 --out /tmp/hckos > /dev/null
$B/fk-datagen ratings --users 800 --items 1200 --ratings 60000 --seed 7 --out /tmp/hcr.csv > /dev/null
$B/fk-datagen ratings --users 20000 --items 3000 --ratings 1500000 --seed 8 --out /tmp/hcr2.csv > /dev/null
for r in 1 2; do
  for ms in 4 8; do
    o="--op both --k 16,32,64,128 --runs 15 --variants cuda.ratio_spmm.fused --csv $OUT/minsteps-$ms-r$r.csv"
    for src in "--input /tmp/mb.mtx --name mb4096" "--input /tmp/mb2k.mtx --name mb2k" "--input /tmp/mb1k.mtx --name mb1k" \
               "--input /tmp/h4nips/docword.txt --name nips-700" "--input /tmp/h4kos/docword.txt --name kos-1500" \
               "--input /tmp/h4r.csv --name ratings-3000x2000" "--input /tmp/h4r2.csv --name ratings-1500x4000" \
               "--input $D/uci-kos/docword.kos.txt.gz --name kos-real" "--input $D/movielens-100k/u.data --name ml-100k-real" \
               "--gen uniform:rows=50000,cols=2000,nnz=1000000" "--gen powerlaw:rows=500000,cols=100000,nnz=4000000" \
               "--gen clustered:rows=50000,cols=100000,nnz=2000000" "--gen uniform:rows=100000,cols=1000,nnz=800000" \
               "--gen powerlaw:rows=30000,cols=30000,nnz=300000" "--gen powerlaw:rows=20000,cols=20000,nnz=800000" \
               "--input $D/suitesparse/hep-th.mtx" "--input $D/suitesparse/bcsstk13.mtx" "--input $D/suitesparse/delaunay_n14.mtx" \
               "--input /tmp/hcnips/docword.txt --name nips-300" "--input /tmp/hcnyt/docword.txt --name nytimes-600" \
               "--input /tmp/hckos/docword.txt --name kos-3430" "--input /tmp/hcr.csv --name ratings-800x1200" \
               "--input /tmp/hcr2.csv --name ratings-20000x3000" "--gen uniform:rows=20000,cols=5000,nnz=200000,seed=7" \
               "--gen powerlaw:rows=10000,cols=50000,nnz=150000,seed=7" "--gen banded:rows=40000,cols=40000,nnz=40000,seed=7"; do
      FK_EXP_MINSTEPS=$ms timeout 60 $B/fk-bench ratio-spmm $src $o > /dev/null 2>&1 || echo "failed: $ms $src"
    done
    echo "$ms r$r $SECONDS s"
  done
done
