#!/usr/bin/env bash
# The fused ratio SpMM's chain length (kernels/cuda/ratio_spmm_fused.cu, chain_steps): one build
# with a temporary switch FK_EXP_CHAIN = fixed (32 steps a warp, 16 a lane group: the kernel before),
# warp (warps' chains from the problem's size, lane groups 16) or both (lane groups too), the three
# alternating twice in one call, on the shapes of held-out checks 2-4 (LDA minibatches, kos,
# ml-100k, ratings, uniform, power-law, clustered, SuiteSparse) at K = 16-256 both ways.
# Here: fk-bench and fk-datagen in .carry/bin.tar.xz, lib/, data/, mb*.mtx.xz; on the device
# machine: bash <this script> ($OUT: where to write).
set -uo pipefail
[[ -d .carry/bin ]] || tar xJf .carry/bin.tar.xz -C .carry
export LD_LIBRARY_PATH=$PWD/.carry/lib
B=.carry/bin D=.carry/data
for m in mb mb2k mb1k; do xz -dc .carry/$m.mtx.xz > /tmp/$m.mtx; done
$B/fk-datagen lda --preset nips --docs 700 --out /tmp/h4nips > /dev/null
$B/fk-datagen lda --preset kos --docs 1500 --out /tmp/h4kos > /dev/null
$B/fk-datagen ratings --users 3000 --items 2000 --ratings 250000 --seed 4 --out /tmp/h4r.csv > /dev/null
$B/fk-datagen ratings --users 1500 --items 4000 --ratings 120000 --seed 5 --out /tmp/h4r2.csv > /dev/null
for r in 1 2; do
  for mode in fixed warp both; do
    o="--op both --k 16,32,64,128,256 --runs 15 --variants cuda.ratio_spmm.fused --csv $OUT/chain-$mode-r$r.csv"
    for src in "--input /tmp/mb.mtx --name mb4096" "--input /tmp/mb2k.mtx --name mb2k" "--input /tmp/mb1k.mtx --name mb1k" \
               "--input /tmp/h4nips/docword.txt --name nips-700" "--input /tmp/h4kos/docword.txt --name kos-1500" \
               "--input /tmp/h4r.csv --name ratings-3000x2000" "--input /tmp/h4r2.csv --name ratings-1500x4000" \
               "--input $D/uci-kos/docword.kos.txt.gz --name kos-real" "--input $D/movielens-100k/u.data --name ml-100k-real" \
               "--gen uniform:rows=50000,cols=2000,nnz=1000000" "--gen powerlaw:rows=500000,cols=100000,nnz=4000000" \
               "--gen clustered:rows=50000,cols=100000,nnz=2000000" "--gen uniform:rows=100000,cols=1000,nnz=800000" \
               "--gen powerlaw:rows=30000,cols=30000,nnz=300000" "--gen powerlaw:rows=20000,cols=20000,nnz=800000" \
               "--input $D/suitesparse/hep-th.mtx" "--input $D/suitesparse/bcsstk13.mtx" "--input $D/suitesparse/delaunay_n14.mtx"; do
      FK_EXP_CHAIN=$mode timeout 60 $B/fk-bench ratio-spmm $src $o > /dev/null 2>&1 || echo "failed: $mode $src"
    done
    echo "$mode r$r done $SECONDS s"
  done
done
